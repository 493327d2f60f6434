"""Pure 21.5 Blackjack and Pure Spanish 21.5 (documents 000, 002, 003, 004; R1-R5, R10-R21) as
one pure engine dealt from the card-reading shoe.

A round: the player-dealer posts a bank (R1, R5), players place the base wager and the side bets
(Red Flex, Buster; Spanish: Match the Dealer), betting closes (`bets.close` or the first card),
`shoe.card` deals one card to each seat with a base wager clockwise from the player-dealer's left
and the player-dealer last, twice, the player-dealer's second card face down
(000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play").
With an ace up, insurance and even money are offered until `bets.close` (R17); with an ace or a
bonus card up the hole card is checked (R12) and a Pure 21.5 ends the round. Otherwise each hand
acts in turn: a `shoe.card` while a hand acts is its hit, and `decision`s stand, double, split,
surrender (Spanish: rescue) under Chart 1A (R15) and R16/R20. Then the hole card is turned, the
player-dealer completes its hand by Chart 1B (R14) and every wager settles against the bank (R1)
from the action seat (R2) in the configured order (R3), with fees on the pre-deal wagers (R4).

Every transition has a `verify_*` that raises Rejected and leaves the state alone. The hole card
is never published before it is turned: `state` leaves it out, its `event` echo hides it, and no
rejection quotes it. docs/games/blackjack.md describes the rules as implemented.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal, TypeVar, cast

from tablectl.cards import Card, DeckKind, ShoeComposition, parse_card
from tablectl.config import Pure215Game, PureSpanish215Game, Rules
from tablectl.events import (
    Bank,
    BetsClose,
    Decision,
    InputEvent,
    ShoeBurn,
    ShoeCard,
    ShoeNew,
    Wager,
)
from tablectl.game_records import GameRecord, InputAccepted, JsonObject, JsonValue
from tablectl.games.base import DEALER_ERROR, REJECTED, Rejected
from tablectl.games.common import (
    PlacedWager,
    PlayerDealerEngine,
    Transition,
    can,
    default_player,
    event_msg,
    has_wager,
    player_dealer_view,
    player_of,
    replace,
    verify_bank_before_deal,
    verify_bets_open,
    verify_limits,
    verify_not_player_dealer,
    verify_round_in_progress,
    verify_seat,
)
from tablectl.games.decks import seen_plus
from tablectl.games.seating import (
    OnSpot,
    action_button_seat,
    action_order,
    first_wagered,
    seats_from,
    seats_from_left,
)
from tablectl.money import ZERO, fmt
from tablectl.rules import blackjack as bj
from tablectl.rules.fees import total_table_action
from tablectl.rules.paytables import PayTable, payout, winnings
from tablectl.rules.rotation import Rotation
from tablectl.rules.settlement import Verdict, WagerVerdict, settle_round, void_round

Phase = Literal["betting", "dealing", "insurance", "playing", "player-dealer"]
# Why a hand stopped acting: its own decision, a bust, a Pure 21.5 (paid and put away,
# 000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet"), or the one card R16 allows after a double
# (21.5) or on a split ace (21.5).
End = Literal["stand", "bust", "surrender", "rescue", "pure", "doubled", "split-aces"]
Action = Literal["hit", "stand", "double", "split", "surrender", "rescue"]
DECISIONS = ("stand", "double", "split", "surrender", "insurance", "even-money", "rescue")
MAX_HANDS = 4  # "A maximum of three splits is allowed per hand, giving a player up to 4 hands"
# Spanish: "double the total wager up to three times"
# (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender", R20)
MAX_DOUBLES = 3
HALF = Decimal("0.5")
# R15: "A decision against the chart is rejected with an alert (it is a dealer error)".
CHART_1A = "R15"
CENT = Decimal("0.01")
BURN_HIDDEN = frozenset(ShoeBurn.model_fields) - {"type"}  # a burn is echoed by type alone
W = TypeVar("W", bound=OnSpot)


@dataclass(frozen=True)
class Hand:
    """One player hand: the seat's original hand or one made by splitting it."""

    seat: int
    player: str  # who makes the decisions: the first base wager's player at the seat
    stake: Decimal  # that player's wager on this hand before any double (a split: equal, R16)
    cards: tuple[Card, ...] = ()
    doubles: tuple[Decimal, ...] = ()  # each doubling in order (Spanish: up to three, R20)
    split: bool = False  # made by a split: never a Pure 21.5 (R10)
    owed: bool = False  # a card is due before anything else: a split's second card, a double's
    end: End | None = None

    @property
    def staked(self) -> Decimal:
        """Everything the hand's player has on it: the stake and every double."""
        return self.stake + sum(self.doubles, ZERO)

    @property
    def open(self) -> bool:
        """Whether the hand still acts (or is owed a card)."""
        return self.end is None


@dataclass(frozen=True)
class BlackjackState:
    """Everything the table knows; immutable, replaced on every accepted input."""

    round: int = 1
    phase: Phase = "betting"
    rotation: Rotation = field(default_factory=Rotation)
    bank_seat: int | None = None
    bank: Decimal | None = None
    wagers: tuple[PlacedWager, ...] = ()  # pre-deal wagers: base and side bets
    insurance: tuple[PlacedWager, ...] = ()  # R17: placed after the deal, never charged a fee
    even_money: tuple[int, ...] = ()  # seats whose insurance is the even-money choice
    order: tuple[int, ...] = ()  # seats dealt a hand, clockwise from the player-dealer's left
    hands: tuple[Hand, ...] = ()  # in acting order: seat by seat, a seat's split hands in order
    initial: tuple[tuple[int, tuple[Card, ...]], ...] = ()  # each seat's two initial cards
    dealer: tuple[Card, ...] = ()  # the player-dealer's cards in the order received
    dealt: int = 0  # cards dealt in the initial two rounds
    peeked: bool = False  # the hole card was checked for a Pure 21.5 and it was not one (R12)
    hole_shown: bool = False
    shoe_number: int = 0
    shoe_seen: dict[Card, int] = field(default_factory=dict)  # copy-on-write, never mutated

    def hands_of(self, seat: int) -> list[Hand]:
        """The seat's hands, left to right (one, or up to four after splits)."""
        return [h for h in self.hands if h.seat == seat]

    def index_of(self, hand: Hand) -> int:
        """The hand's number at its seat, 1-based, left to right after splits."""
        return next(i for i, h in enumerate(self.hands_of(hand.seat), 1) if h is hand)

    @property
    def current(self) -> Hand | None:
        """The hand whose turn it is (playing phase only)."""
        if self.phase != "playing":
            return None
        return next((h for h in self.hands if h.open), None)

    @property
    def up_card(self) -> Card | None:
        """The player-dealer's face-up card, once dealt."""
        return self.dealer[0] if self.dealer else None


# Journal snapshots name a state's classes by module and qualname (tablectl/snapshot.py), and
# `verify-journal --deep` compares a stored snapshot byte for byte: these keep the name they had
# before the game became a package.
Hand.__module__ = BlackjackState.__module__ = "tablectl.games.blackjack"


@dataclass(frozen=True)
class Variant:
    """What differs between Pure 21.5 Blackjack and Pure Spanish 21.5, each with its rule; chosen
    once from the config (`variant_of`). Everything else the two games play alike."""

    name: str  # the game's name in refusals
    chart: bj.Variant  # which Chart 1A the player's hands keep to (R15)
    chart_text: str  # how a refusal names that chart
    # contract 1, 000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used",
    # 003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used"
    deck: DeckKind
    # a side bet needs the same player's base wager at the seat first (000 "Pure 21.5 Blackjack:
    # Dealing Procedures and Round of Play"; 003 "Pure Spanish 21.5: Match the Dealer Up Card
    # Bonus Bet"): the rule id the refusal publishes
    side_bet_rule: str
    # R11: a Pure 21.5 pays the approval's `pure_pays`; a Pure Spanish 21.5 pays 6 to 5
    # (003 "Pure Spanish 21.5: Card Values and Hand Rankings": "pays 6 to 5")
    pure_odds: Fraction
    # R17: Pure 21.5 insures after the deal (a pre-deal "insurance" wager is refused as that
    # decision); the Spanish approval has no insurance and no even money at all
    insurance_decision: bool
    insurance: bool  # offered at this table (R17: the approval's `insurance`)
    even_money: bool  # offered at this table (R17: the approval's `even_money`)
    # "only one additional card" after a double, one card per split ace and no resplit of aces
    # (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"); Spanish: neither (R20)
    one_card_after_double: bool
    split_aces_one_card: bool
    # R16: 21.5 splits "any pair or two ... bonus cards" (000 "Pure 21.5 Blackjack: Double-Down,
    # Split, and Surrender"); Spanish "any pair or two cards of the equal value, including aces and
    # Bonus cards" (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and
    # Surrender")
    split_by_value: bool
    # R20: double-double down (the approval's `double_double`) and rescue, Spanish only
    double_double: bool
    rescue: bool
    # A player's Pure 21.5 against the player-dealer's: 000 "Pure 21.5 Blackjack: How Each Wager
    # Wins, Loses, or Pushes" (R11) pushes; 003 "Pure Spanish 21.5: Dealing Procedures and Round of
    # Play": "both ... Pure Spanish 21.5 ... the player wins"
    pure_beats_pure: bool
    # R20: a Spanish player's 21 beats the player-dealer's 21
    twenty_one_wins: bool

    def is_pair(self, a: Card, b: Card) -> bool:
        """Whether two cards are a pair this game lets the player split (R16, R20)."""
        if self.split_by_value:
            return bj.card_value(a) == bj.card_value(b)
        return a.rank == b.rank or (bj.is_bonus(a) and bj.is_bonus(b))


PURE = Variant(
    name="Pure 21.5 Blackjack",
    chart="pure-21.5",
    chart_text="Chart 1A (Pure 21.5: stand on hard 19 or more, hit hard 11 or less)",
    deck=DeckKind.PURE_21_5,
    side_bet_rule="000 line 129",
    pure_odds=bj.PURE_ODDS[bj.DEFAULT_PURE_ODDS],
    insurance_decision=True,
    insurance=True,
    even_money=False,
    one_card_after_double=True,
    split_aces_one_card=True,
    split_by_value=False,
    double_double=False,
    rescue=False,
    pure_beats_pure=False,
    twenty_one_wins=False,
)
"""Pure 21.5 Blackjack (documents 000, 002, 003, 004) with its approval's defaults."""

SPANISH = Variant(
    name="Pure Spanish 21.5",
    chart="spanish-21.5",
    chart_text="Chart 1A (Spanish 21.5: stand on hard 17 or more)",
    deck=DeckKind.SPANISH_48,
    side_bet_rule="003 line 1944",
    pure_odds=Fraction(6, 5),
    insurance_decision=False,
    insurance=False,
    even_money=False,
    one_card_after_double=False,
    split_aces_one_card=False,
    split_by_value=True,
    double_double=False,
    rescue=True,
    pure_beats_pure=True,
    twenty_one_wins=True,
)
"""Pure Spanish 21.5 (document 003) with its approval's defaults."""


def variant_of(game: Pure215Game | PureSpanish215Game) -> Variant:
    """The game's variant with what its approval chose: a Pure 21.5's odds (R11), insurance and
    even money (R17); a Spanish table's double-double down (R20)."""
    if isinstance(game, Pure215Game):
        return replace(
            PURE,
            pure_odds=bj.PURE_ODDS[game.pure_pays],
            insurance=game.insurance,
            even_money=game.even_money,
        )
    return replace(SPANISH, double_double=game.double_double)


def hand_numbers(hands: Sequence[Hand]) -> list[int]:
    """Each hand's number at its seat, in one pass: what `BlackjackState.index_of` gives each
    (the first of its seat's hands that is the same object)."""
    numbers: list[int] = []
    counted: dict[int, int] = {}
    first: dict[int, int] = {}  # id of a hand: its number where it first came
    for h in hands:
        counted[h.seat] = counted.get(h.seat, 0) + 1
        numbers.append(first.setdefault(id(h), counted[h.seat]))
    return numbers


@lru_cache(maxsize=4096)
def _ranked(cards: tuple[Card, ...], pure: bool) -> tuple[int, bool, str]:
    """A hand's total, softness and rank name; remembered, as every `state` message shows every
    hand and most hands have not changed since the last one (cards are immutable)."""
    total = bj.hand_total(cards)
    if pure:
        rank = "pure-21.5"
    elif bj.is_888(cards):
        rank = "888"
    elif total.value > 21:
        rank = "bust"
    else:
        rank = f"{'soft' if total.soft else 'hard'} {total.value}"
    return total.value, total.soft, rank


def rank_view(cards: Sequence[Card], *, pure: bool) -> dict[str, JsonValue]:
    """A hand's total and rank name: "pure-21.5", "888", "bust", or e.g. "soft 18"."""
    total, soft, rank = _ranked(tuple(cards), pure)
    return {"total": total, "soft": soft, "rank": rank}


@dataclass(frozen=True)
class RedFlexResult:
    """The Red Flex bet's result: the red cards counted in the player-dealer's hand and the pay
    table category they make, None when the bet loses (R18)."""

    count: int
    category: str | None


@dataclass(frozen=True)
class BusterResult:
    """The Buster bet's result: how many cards the player-dealer busted with (None: it did not
    bust) and their pay table category, None when the bet loses (R19)."""

    cards: int | None
    category: str | None


@dataclass(frozen=True)
class MatchResult:
    """A seat's Match the Dealer result: its two initial cards against the up card, and the pay
    table category, None when the bet loses (R21)."""

    seat: int
    cards: tuple[Card, ...]
    category: str | None


@dataclass(frozen=True)
class BlackjackOutcome:
    """The round's hands at the end: the player-dealer's (up card first), whether the hole card
    was checked (R12), every player hand with its number at its seat, and the result of each side
    bet the table offers (None: not offered)."""

    bank_seat: int
    dealer: tuple[Card, ...]
    peek: bool
    hands: tuple[tuple[int, Hand], ...]
    red_flex: RedFlexResult | None = None
    buster: BusterResult | None = None
    match_dealer: tuple[MatchResult, ...] | None = None

    def payload(self) -> JsonObject:
        """`round/result`'s `outcome` (docs/games/blackjack.md "What is published")."""
        dealer = self.dealer
        out: dict[str, JsonValue] = {
            "player_dealer": {
                "seat": self.bank_seat,
                "cards": [str(c) for c in dealer],
                "up_card": str(dealer[0]),
                "hole_card": str(dealer[1]),
                **rank_view(dealer, pure=bj.is_pure(dealer, split=False)),
                "eight_eight_eight": bj.is_888(dealer),
            },
            "peek": self.peek,
            "hands": [
                {
                    "seat": h.seat,
                    "hand": number,
                    "player": h.player,
                    "cards": [str(c) for c in h.cards],
                    **rank_view(h.cards, pure=h.end == "pure"),
                    "split": h.split,
                    "doubles": [fmt(d) for d in h.doubles],
                    "end": h.end if h.end is not None else "dealt",
                }
                for number, h in self.hands
            ],
        }
        if self.red_flex is not None:
            out["red_flex"] = {"count": self.red_flex.count, "category": self.red_flex.category}
        if self.buster is not None:
            out["buster"] = {"cards": self.buster.cards, "category": self.buster.category}
        if self.match_dealer is not None:
            out["match_dealer"] = [
                {"seat": m.seat, "cards": [str(c) for c in m.cards], "category": m.category}
                for m in self.match_dealer
            ]
        return out


def _half_down(amount: Decimal) -> Decimal:
    """Half an amount to the cent below: the most insurance a wager allows (R17), the half a
    surrender forfeits (R16). The documents print no rounding rule; the player is never charged
    more than half."""
    return (amount * HALF).quantize(CENT, rounding=ROUND_DOWN)


class BlackjackEngine(PlayerDealerEngine[BlackjackState]):
    """The rules of Pure 21.5 Blackjack or Pure Spanish 21.5 for one configured table."""

    def __init__(self, rules: Rules) -> None:
        game = rules.game
        assert isinstance(game, (Pure215Game, PureSpanish215Game))
        self.rules = rules
        self.game = game
        self.game_id = game.id
        self.variant = variant_of(game)
        self.seats = rules.seats.count
        self.shoe = ShoeComposition(self.variant.deck, game.decks)  # contract 1
        self.limits = rules.limits
        self.schedule = rules.schedule
        self.red_flex: PayTable | None = None
        self.buster: PayTable | None = None
        self.match: PayTable | None = None
        # The side bets this table offers: those the game has whose pay table the config names
        # (000 "Pure 21.5 Blackjack: Red Flex Bet", "Buster Blackjack Bonus Bet"; 003 "Pure
        # Spanish 21.5: Match the Dealer Up Card Bonus Bet": "casinos may offer").
        if isinstance(game, Pure215Game):
            if game.red_flex_table is not None:
                self.red_flex = rules.paytable(game.red_flex_table)
            if game.buster_table is not None:
                self.buster = rules.paytable(game.buster_table)
        elif game.match_dealer_table is not None:
            self.match = rules.paytable(game.match_dealer_table)
        # The pre-deal spots this table takes, in R3's seat-by-seat order (000 "Pure 21.5 Blackjack:
        # Double-Down, Split, and Surrender": "game wager, Red Flex Bet, Buster Bet"; 003 "Pure
        # Spanish 21.5: Match the Dealer Up Card Bonus Bet": "base game wager, Match the Dealer").
        side = (
            ("red-flex", self.red_flex),
            ("buster", self.buster),
            ("match-dealer", self.match),
        )
        self.spots: tuple[str, ...] = ("base", *(s for s, t in side if t is not None))

    # -- the engine protocol -------------------------------------------------------------

    def initial(self) -> BlackjackState:
        """A fresh table: round 1, no bank, no shoe announced yet."""
        return BlackjackState()

    def transitions(self) -> Mapping[type[Any], Transition[BlackjackState]]:
        """The inputs this game takes besides `bank` and `wager`."""
        return {
            BetsClose: self.bets_close,
            ShoeCard: self.card,
            Decision: self.decision,
            ShoeBurn: self.burn,
            ShoeNew: self.shoe_new,
        }

    def no_such_input(self, event: InputEvent) -> Rejected:
        """Any other input is refused."""
        return Rejected(
            f"{self._name} has no {event.type!r} input: cards come from the reading shoe",
            rule="000 line 53",
        )

    def in_deal(self, state: BlackjackState) -> bool:
        """Cards are being dealt or the hands played: a device fault now holds the round."""
        return state.phase != "betting"

    def between_rounds(self, state: BlackjackState) -> bool:
        """No bank, wager or card is down: new rules may take over now."""
        return state.phase == "betting" and state.bank_seat is None and not state.wagers

    def state_payload(self, state: BlackjackState) -> dict[str, JsonValue]:
        """What the dealer console needs and the table shows: never the hole card before it is
        turned (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"), whose turn it is,
        which hand and its legal actions."""
        current = state.current
        legal = self.legal_actions(state)
        numbers = hand_numbers(state.hands)
        return {
            "game": self.game_id,
            "round": state.round,
            "phase": state.phase,
            "shoe": state.shoe_number,
            "player_dealer": self._dealer_view(state),
            "bank_offer_seat": state.rotation.offer_seat(self.seats),
            "wagers": [w.payload() for w in (*state.wagers, *state.insurance)],
            "total_action": fmt(total_table_action(w.amount for w in state.wagers)),
            "hands": [self._hand_view(h, n) for h, n in zip(state.hands, numbers, strict=True)],
            "turn": (
                None if current is None else {"seat": current.seat, "hand": state.index_of(current)}
            ),
            "legal": list(legal),
            "next_card": self._next_card_view(state, current, legal),
            "insurance": self._insurance_view(state),
            "peeked": state.peeked,
        }

    # -- bank (R1, R5) -----------------------------------------------------------------------

    def verify_bank(self, state: BlackjackState, ev: Bank) -> None:
        """R1/R5: a bank is posted before the deal, by a seat the rotation allows."""
        verify_bank_before_deal(
            state.phase == "betting", state.rotation, ev, self.seats, state.wagers
        )

    # -- wagers ------------------------------------------------------------------------------------
    # 000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play", "Buster Blackjack Bonus Bet",
    # "Red Flex Bet"; 003 "Pure Spanish 21.5: Match the Dealer Up Card Bonus Bet"

    def verify_wager(self, state: BlackjackState, ev: Wager) -> None:
        """A base wager or a side bet before the deal; a side bet needs a base wager by the same
        player at the seat; backline only on the spots the approval allows; within limits."""
        verify_seat(ev.seat, self.seats)
        if state.phase != "betting":
            raise Rejected(
                "no more bets: wagers are placed before the initial deal", rule="000 line 130"
            )
        verify_not_player_dealer(ev, state.bank_seat)
        if ev.spot == "insurance" and self.variant.insurance_decision:
            raise Rejected(
                "insurance is a decision taken after the deal with an ace up, not a wager "
                "placed before it",
                rule="R17",
            )
        if ev.spot not in self.spots:
            raise Rejected(
                f"no wager {ev.spot!r} at this {self._name} table; spots: " + ", ".join(self.spots),
                rule="config game",
            )
        player = player_of(ev)
        if player != default_player(ev.seat) and ev.spot not in self.game.backline_spots:
            raise Rejected(
                f"backline betting is not permitted on the {ev.spot} wager at this table",
                rule="config game.backline_spots",
            )
        if ev.spot != "base" and not has_wager(state.wagers, ev.seat, player, ("base",)):
            raise Rejected(
                f"a {ev.spot} wager needs a base wager by the same player at seat {ev.seat} first",
                rule=self.variant.side_bet_rule,
            )
        verify_limits(self.limits, state.wagers, ev)

    # -- closing bets ------------------------------------------------------------------------

    def verify_bets_close(self, state: BlackjackState) -> None:
        """Betting closes against a posted bank with at least one base wager to deal to; with an
        ace up it closes the insurance offer instead (R17)."""
        if state.phase == "insurance":
            return
        verify_bets_open(state.phase == "betting", state.bank_seat, "000 line 130")
        if not any(w.spot == "base" for w in state.wagers):
            raise Rejected(
                "no base wager: there is no hand to deal to (void the round to end it)",
                rule="000 line 53",
            )

    def bets_close(
        self, state: BlackjackState, ev: BetsClose, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """ "No more bets": the seats to be dealt are fixed now; with an ace up it closes the
        insurance offer and the hole card is checked (R12, R17)."""
        self.verify_bets_close(state)
        extra: dict[str, JsonValue] = {"round": state.round}
        if state.phase == "insurance":
            new, out = self._peek(state)
            extra.update(self._reveal(state, new))
            return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]
        new = self._closed(state)
        return new, [InputAccepted(ev, ts, extra), self._state(new)]

    def _closed(self, state: BlackjackState) -> BlackjackState:
        """Betting closed: a hand for each seat with a base wager, clockwise from the
        player-dealer's left (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"),
        played by the seated player when that player has a base wager there: a backline wager rides
        behind the seated player's (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or
        Pushes", 004 "Pure 21.5 Blackjack: How Winners are Determined and Paid"), whichever was
        placed first. A circle with only other players' wagers (000 "Pure 21.5 Blackjack: Dealing
        Procedures and Round of Play": "other unoccupied betting circles") is played by its first
        base bettor."""
        assert state.bank_seat is not None
        hands: list[Hand] = []
        for seat in seats_from_left(state.bank_seat, self.seats)[:-1]:
            bases = [w for w in state.wagers if w.seat == seat and w.spot == "base"]
            if not bases:
                continue
            seated = default_player(seat)
            player = seated if any(w.player == seated for w in bases) else bases[0].player
            stake = sum((w.amount for w in bases if w.player == player), ZERO)
            hands.append(Hand(seat=seat, player=player, stake=stake))
        return replace(
            state, phase="dealing", order=tuple(h.seat for h in hands), hands=tuple(hands)
        )

    # -- cards (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"; R12, R14, R16) ----

    def verify_card(self, state: BlackjackState, card: Card) -> str:
        """Where `card` goes ("deal", "hand" or "player-dealer"), or why it cannot be drawn now.

        A card drawn when no hand may draw it is a dealer error (R15; issue 3 "Bad input"): kind
        "dealer-error". A card the shoe cannot hold stays "rejected" (contract 1). No reason
        quotes the card: it may be the hole card.
        """
        if state.phase == "betting":
            self._verify_first_card(state)  # the first card closes betting (contract 2)
        self._verify_in_shoe(state, card)
        if state.phase in ("betting", "dealing"):
            return "deal"
        if state.phase == "insurance":
            raise Rejected(
                "dealer error: no hand may draw while insurance is offered: close it with "
                "bets.close so the hole card is checked first",
                rule="R12",
                kind=DEALER_ERROR,
            )
        if state.phase == "player-dealer":
            return "player-dealer"
        hand = state.current
        assert hand is not None  # the playing phase always has a hand in turn
        if hand.owed:
            return "hand"
        if "hit" not in self._actions(state, hand):
            raise Rejected(
                self._why_no_hit(state, hand), rule=self._hit_rule(hand), kind=DEALER_ERROR
            )
        return "hand"

    def _verify_first_card(self, state: BlackjackState) -> None:
        """A card before betting has closed closes it (contract 2), so it needs what
        `bets.close` needs (a bank, a base wager: 000 "Pure 21.5 Blackjack: Dealing Procedures and
        Round of Play"); without them no hand may draw it, a dealer error."""
        try:
            self.verify_bets_close(state)
        except Rejected as rej:
            raise Rejected(
                f"dealer error: a card drawn with no hand to deal to: {rej.reason}",
                rule=rej.rule,
                kind=DEALER_ERROR,
            ) from rej

    def can_card(self, state: BlackjackState, card: Card) -> bool:
        """Whether `verify_card` accepts."""
        return can(self.verify_card, state, card)

    def card(
        self, state: BlackjackState, ev: ShoeCard, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """Deal, hit, the card owed after a split or double, or the player-dealer's draw."""
        card = parse_card(ev.card)
        to = self.verify_card(state, card)
        seen = seen_plus(state.shoe_seen, [card])
        if to == "deal":
            if state.phase == "betting":
                state = self._closed(state)
            return self._deal(replace(state, shoe_seen=seen), ev, card, ts)
        if to == "player-dealer":
            new = replace(state, dealer=(*state.dealer, card), shoe_seen=seen)
            echo = event_msg(ev, ts, round=state.round, to="player-dealer")
            if bj.dealer_must_hit(new.dealer):
                return new, [echo, self._state(new)]
            new, out = self._finish(new)
            return new, [echo, *out, self._state(new)]
        hand = state.current
        assert hand is not None
        index = state.index_of(hand)
        new = replace(state, hands=self._replace_hand(state, hand, self._receive(hand, card)))
        new = replace(new, shoe_seen=seen)
        extra: dict[str, JsonValue] = {
            "round": state.round,
            "to": {"seat": hand.seat, "hand": index},
        }
        new, out = self._advance(new)
        extra.update(self._reveal(state, new))
        return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]

    def _deal(
        self, state: BlackjackState, ev: ShoeCard, card: Card, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """One card of the initial deal: each seat, then the player-dealer, twice
        (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"); the player-dealer's
        second card face down and not shown (hidden in the echo)."""
        n = len(state.order) + 1
        position = state.dealt % n
        extra: dict[str, JsonValue] = {"round": state.round}
        if position == len(state.order):
            new = replace(state, dealer=(*state.dealer, card), dealt=state.dealt + 1)
            extra["to"] = "player-dealer"
            hide: set[str] = set()
            if len(new.dealer) == 2:
                hide, extra["face_down"] = {"card"}, True
        else:
            seat = state.order[position]
            hand = state.hands_of(seat)[0]
            new = replace(
                state,
                hands=self._replace_hand(state, hand, replace(hand, cards=(*hand.cards, card))),
                dealt=state.dealt + 1,
            )
            extra["to"] = {"seat": seat, "hand": 1}
            hide = set()
        out: list[GameRecord] = []
        if new.dealt == 2 * n:
            dealt = new
            new, out = self._after_deal(new)
            extra.update(self._reveal(dealt, new))
        return new, [event_msg(ev, ts, hide=hide, **extra), *out, self._state(new)]

    def _after_deal(self, state: BlackjackState) -> tuple[BlackjackState, list[GameRecord]]:
        """Both rounds are out: pure hands are put away
        (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet"), insurance is offered with an ace up
        (R17), else the hole card is checked (R12)."""
        hands = tuple(
            replace(h, end="pure") if bj.is_pure(h.cards, split=False) else h for h in state.hands
        )
        initial = tuple((h.seat, h.cards) for h in state.hands)
        state = replace(state, hands=hands, initial=initial)
        up = state.up_card
        assert up is not None
        if self.variant.insurance and up.rank == "A":
            return replace(state, phase="insurance"), []
        return self._peek(state)

    def _peek(self, state: BlackjackState) -> tuple[BlackjackState, list[GameRecord]]:
        """R12: with an ace or a bonus card up the hole card is checked before any player draws;
        a Pure 21.5 ends the round (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or
        Pushes"). Then the hands play, or the player-dealer."""
        up = state.up_card
        assert up is not None
        if up.rank == "A" or bj.is_bonus(up):
            if bj.is_pure(state.dealer, split=False):
                return self._finish(replace(state, hole_shown=True))
            state = replace(state, peeked=True)
        return self._advance(replace(state, phase="playing"))

    def _advance(self, state: BlackjackState) -> tuple[BlackjackState, list[GameRecord]]:
        """After a hand's input: the next open hand acts, or (none left) the hole card is turned
        and the player-dealer completes its hand by Chart 1B (R14;
        000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play")."""
        if state.phase == "playing" and state.current is not None:
            return state, []
        state = replace(state, phase="player-dealer", hole_shown=True)
        if bj.dealer_must_hit(state.dealer):
            return state, []
        return self._finish(state)

    def _receive(self, hand: Hand, card: Card) -> Hand:
        """A card for the hand in turn: a hit, a split's second card or a double's card (R16)."""
        cards = (*hand.cards, card)
        new = replace(hand, cards=cards, owed=False)
        if bj.is_bust(cards):
            return replace(new, end="bust")
        if hand.owed and hand.doubles and self.variant.one_card_after_double:
            # "only one additional card"
            # (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender")
            return replace(new, end="doubled")
        if (
            hand.owed
            and hand.split
            and hand.cards[0].rank == "A"
            and self.variant.split_aces_one_card
        ):
            # one card per split ace (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender")
            return replace(new, end="split-aces")
        return new

    def verify_burn(self, state: BlackjackState, card: Card) -> None:
        """A burn only between rounds (before the round's first card), of a card the shoe holds."""
        if state.phase != "betting":
            raise Rejected("a card cannot be burned in the middle of a round", rule="000 line 53")
        self._verify_in_shoe(state, card)

    def can_burn(self, state: BlackjackState, card: Card) -> bool:
        """Whether `verify_burn` accepts."""
        return can(self.verify_burn, state, card)

    def _verify_in_shoe(self, state: BlackjackState, card: Card) -> None:
        """Contract 1: refuse a card the configured shoe cannot hold (a `T` in a Spanish deck, one
        copy too many since `shoe.new`), without quoting it: it may be the hole card."""
        why = self.shoe.why_not(card, state.shoe_seen)
        if why:
            raise Rejected(
                "a card this shoe cannot hold: " + why.replace(str(card), "the card"),
                rule="contract 1",
            )

    def burn(
        self, state: BlackjackState, ev: ShoeBurn, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """A burned card goes face down: the journal keeps it, no topic ever shows it."""
        card = parse_card(ev.card)
        self.verify_burn(state, card)
        new = replace(state, shoe_seen=seen_plus(state.shoe_seen, [card]))
        return new, [event_msg(ev, ts, hide=BURN_HIDDEN, round=state.round)]

    def verify_shoe_new(self, state: BlackjackState) -> None:
        """A new shoe goes in between rounds only."""
        if state.phase != "betting":
            raise Rejected("a new shoe cannot be put in during a round", rule="000 line 53")

    def can_shoe_new(self, state: BlackjackState) -> bool:
        """Whether `verify_shoe_new` accepts."""
        return can(lambda s, _e: self.verify_shoe_new(s), state, None)

    def shoe_new(
        self, state: BlackjackState, ev: ShoeNew, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """A freshly shuffled shoe: every card may be drawn again up to `decks` times."""
        self.verify_shoe_new(state)
        new = replace(state, shoe_number=state.shoe_number + 1, shoe_seen={})
        return new, [event_msg(ev, ts, round=state.round), self._state(new)]

    # -- decisions ---------------------------------------------------------------------------------
    # 000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender", 003 "Pure Spanish 21.5:
    # Double-Down, Rescue, Double-Double Down, Split, and Surrender"; R15-R17, R20

    def verify_decision(self, state: BlackjackState, ev: Decision) -> Hand | None:
        """A decision by the seat whose turn it is, for its hand in turn, that the rules allow
        now; insurance and even money while they are offered. Returns the hand it acts on."""
        if ev.action not in DECISIONS:
            raise Rejected(
                f"no decision {ev.action!r} in {self._name}: " + ", ".join(DECISIONS),
                rule="contract 2",
            )
        if ev.multiple is not None or ev.low is not None:
            raise Rejected(
                "a blackjack decision names the seat, the action and, where it needs them, the "
                "hand and the amount",
                rule="contract 2",
            )
        verify_seat(ev.seat, self.seats)
        if ev.action in ("insurance", "even-money"):
            self._verify_insurance(state, ev)
            return None
        hand = self._hand_in_turn(state, ev)
        self._verify_action(state, hand, ev)
        return hand

    def _hand_in_turn(self, state: BlackjackState, ev: Decision) -> Hand:
        """The hand a play decision acts on: the hand in turn, clockwise from the player-dealer's
        left (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"), while the hands act
        and before the down card is turned (000 "Pure 21.5 Blackjack: Dealing Procedures and Round
        of Play"); one owed its card after a split or a double takes that card first (R16)."""
        if state.phase == "insurance":
            raise Rejected(
                "insurance is being offered: close it with bets.close before the hands act",
                rule="R17",
            )
        if state.phase == "player-dealer" and ev.action == "surrender":
            raise Rejected(
                "the player-dealer's down card is exposed: surrender comes before it is",
                rule="000 line 116",
            )
        if state.phase == "player-dealer":
            raise Rejected(
                "every hand has acted and the down card is turned up", rule="000 line 59"
            )
        if state.phase != "playing":
            raise Rejected("no hand is acting now: the cards are not all dealt", rule="000 line 54")
        hand = state.current
        assert hand is not None
        if not state.hands_of(ev.seat):
            raise Rejected(f"seat {ev.seat} has no hand this round", rule="000 line 53")
        index = state.index_of(hand)
        if ev.seat != hand.seat or (ev.hand is not None and ev.hand != index):
            raise Rejected(
                f"out of turn: seat {hand.seat} hand {index} acts now (clockwise from the "
                "player-dealer's left)",
                rule="000 line 54",
            )
        if hand.owed:
            raise Rejected(
                f"seat {hand.seat} hand {index} is owed its card first (one card after a "
                "split or a double)",
                rule="R16",
            )
        return hand

    def _verify_action(self, state: BlackjackState, hand: Hand, ev: Decision) -> None:
        """The action is one the rules allow this hand now (R15, R16, R20), with the wager it
        needs: a double up to the wager (or exactly it with double-double), a split equal to it."""
        action = cast(Action, ev.action)  # one of DECISIONS, insurance handled by the caller
        if action not in self._actions(state, hand):
            reason, rule = self._why_not(state, hand, action)
            # R15: a decision against Chart 1A is a dealer error, told apart by its alert kind
            raise Rejected(reason, rule=rule, kind=DEALER_ERROR if rule == CHART_1A else REJECTED)
        if action in ("stand", "surrender", "rescue") and ev.amount is not None:
            raise Rejected(f"a {action} places no wager", rule="contract 2")
        if action == "double" and ev.amount is not None:
            self._verify_double_amount(hand, ev.amount)
        if action == "split" and ev.amount is not None and ev.amount != hand.stake:
            raise Rejected(
                f"a split wager must equal the original wager {fmt(hand.stake)}: there is no "
                "splitting for less",
                rule="R16",
            )

    def can_decision(self, state: BlackjackState, ev: Decision) -> bool:
        """Whether `verify_decision` accepts."""
        return can(self.verify_decision, state, ev)

    def decision(
        self, state: BlackjackState, ev: Decision, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """Apply a decision; the last hand's decision turns the hole card and completes the
        player-dealer's hand (R14), which may end the round."""
        hand = self.verify_decision(state, ev)
        extra: dict[str, JsonValue] = {"round": state.round}
        if hand is None:
            placed = self._insurance_wager(state, ev)
            new, out = self._insure(state, placed, ev.action == "even-money")
            extra.update(player=placed.player, amount=fmt(placed.amount))
            extra.update(self._reveal(state, new))
            return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]
        extra["hand"] = state.index_of(hand)
        action = ev.action
        if action == "stand":
            changed: tuple[Hand, ...] = (replace(hand, end="stand"),)
        elif action == "surrender":
            changed = (replace(hand, end="surrender"),)
        elif action == "rescue":
            changed = (replace(hand, end="rescue"),)
        elif action == "double":
            amount = ev.amount if ev.amount is not None else self._double_default(hand)
            extra["amount"] = fmt(amount)
            changed = (replace(hand, doubles=(*hand.doubles, amount), owed=True),)
        else:  # split: two hands of one card each, each owed its second card (R16)
            extra["amount"] = fmt(hand.stake)
            first, second = hand.cards
            changed = (
                replace(hand, cards=(first,), split=True, owed=True),
                Hand(hand.seat, hand.player, hand.stake, (second,), split=True, owed=True),
            )
        hands = list(state.hands)
        at = next(i for i, h in enumerate(hands) if h is hand)
        hands[at : at + 1] = changed
        new, out = self._advance(replace(state, hands=tuple(hands)))
        extra.update(self._reveal(state, new))
        return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]

    def legal_actions(self, state: BlackjackState) -> tuple[str, ...]:
        """What the dealer console may enter now for the hand in turn ("hit" = draw a card)."""
        hand = state.current
        if hand is None:
            return ()
        if hand.owed:
            return ("hit",)
        return self._actions(state, hand)

    def _actions(self, state: BlackjackState, hand: Hand) -> tuple[Action, ...]:
        """The actions the rules allow an open hand that is owed no card (R15, R16, R20)."""
        force = bj.chart_1a(hand.cards, self.variant.chart)
        two = len(hand.cards) == 2
        out: list[Action] = []
        if not hand.doubles and force != "must-stand":
            out.append("hit")
        if force != "must-hit" or hand.doubles:
            out.append("stand")
        if force != "must-stand" and self._may_double(hand):
            out.append("double")
        if two and not hand.doubles and self._pair(hand) and self._may_split(state, hand):
            out.append("split")
        if two and not hand.doubles and not hand.split:
            out.append("surrender")  # before the hole card is shown: it is shown after play
        if self.variant.rescue and hand.doubles:
            out.append("rescue")  # R20: after a double, on a hand that has not busted
        return tuple(out)

    def _may_split(self, state: BlackjackState, hand: Hand) -> bool:
        """R16: up to three splits, four hands at the seat; split aces take one card each in
        Pure 21.5 and are not split again
        (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender")."""
        if len(state.hands_of(hand.seat)) >= MAX_HANDS:
            return False
        return not (self.variant.split_aces_one_card and hand.split and hand.cards[0].rank == "A")

    def _may_double(self, hand: Hand) -> bool:
        """R16: on the first two cards (after a split too); Spanish double-double: again after
        each double card, up to three doublings (R20)."""
        if not hand.doubles:
            return len(hand.cards) == 2
        return self.variant.double_double and len(hand.doubles) < MAX_DOUBLES

    def _pair(self, hand: Hand) -> bool:
        """R16: 21.5 splits "any pair or two ... bonus cards"
        (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"); Spanish "any pair or two
        cards of the equal value, including aces and Bonus cards"
        (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender")."""
        a, b = hand.cards
        return self.variant.is_pair(a, b)

    def _double_default(self, hand: Hand) -> Decimal:
        """A double without an amount: the full original wager; a double-double doubles the total
        wager again
        (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender")."""
        return hand.staked if hand.doubles else hand.stake

    def _verify_double_amount(self, hand: Hand, amount: Decimal) -> None:
        """R16: "equal to or less than the player's original wager"
        (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"); Spanish with double-double:
        no doubling for less, and a double-double doubles the total (R20)."""
        if amount <= 0:
            raise Rejected("a double places a wager above zero", rule="R16")
        if self.variant.double_double:
            want = self._double_default(hand)
            if amount != want:
                raise Rejected(
                    f"with double-double down there is no doubling for less: the double must "
                    f"be {fmt(want)}",
                    rule="003 line 1928",
                )
        elif amount > hand.stake:
            raise Rejected(
                f"a double of {fmt(amount)} is more than the original wager {fmt(hand.stake)}",
                rule="R16",
            )

    def _why_not(self, state: BlackjackState, hand: Hand, action: Action) -> tuple[str, str]:
        """Why the rules refuse `action` for the hand in turn, with the rule."""
        force = bj.chart_1a(hand.cards, self.variant.chart)
        total = bj.hand_total(hand.cards)
        name = f"{'soft' if total.soft else 'hard'} {total.value}"
        chart = self.variant.chart_text
        if action == "stand":
            if hand.doubles:
                return "the hand is complete", "R16"
            return f"dealer error: {name} must hit by {chart}", CHART_1A
        if action == "double":
            if force == "must-stand" and (not hand.doubles or self._may_double(hand)):
                return f"dealer error: {name} must stand by {chart}; a double draws", CHART_1A
            if hand.doubles:
                if not self.variant.double_double:
                    return "a double gets one card only; no second double", "R16"
                return f"at most {MAX_DOUBLES} doublings (8 times the wager)", "R20"
            return "a double is on the first two cards only", "R16"
        if action == "split":
            if len(hand.cards) != 2 or hand.doubles:
                return "a split is of the first two cards only", "R16"
            if len(state.hands_of(hand.seat)) >= MAX_HANDS:
                return "a maximum of three splits: four hands already", "R16"
            return "the two cards are not a pair the rules let the player split", "R16"
        if action == "surrender":
            if hand.split:
                return "surrender is on the initial two cards, not after a split", "R16"
            return "surrender is on the first two cards only, before any double", "R16"
        if action == "rescue":
            if not self.variant.rescue:
                return "rescue is a Pure Spanish 21.5 option", "R20"
            return "rescue takes back a doubled portion: the hand has not doubled", "R20"
        return self._why_no_hit(state, hand), self._hit_rule(hand)

    def _why_no_hit(self, state: BlackjackState, hand: Hand) -> str:
        """Why the hand in turn may not draw: its double took its one card (R16), or Chart 1A
        says it must stand (R15). Names the seat and total, never a card."""
        if hand.doubles:
            return "dealer error: a doubled hand gets one card only"
        total = bj.hand_total(hand.cards)
        return (
            f"dealer error: seat {hand.seat} hand {state.index_of(hand)} holds "
            f"{'soft' if total.soft else 'hard'} {total.value} and must stand by Chart 1A"
        )

    def _hit_rule(self, hand: Hand) -> str:
        """The rule `_why_no_hit` cites."""
        return "R16" if hand.doubles else CHART_1A

    # -- insurance and even money (R17) -------------------------------------------------------

    def _verify_insurance(self, state: BlackjackState, ev: Decision) -> None:
        """Only with an ace up, before the hole card is checked, once per seat with a hand; up
        to half the game wager; even money only on a Pure 21.5, exactly half (R17)."""
        if not self.variant.insurance:
            raise Rejected(f"this {self._name} table offers no insurance", rule="R17")
        if ev.action == "even-money" and not self.variant.even_money:
            raise Rejected("this table's approval offers no even money", rule="R17")
        if state.phase != "insurance":
            if state.up_card is not None and state.up_card.rank != "A":
                raise Rejected("insurance is offered only with an ace up", rule="R17")
            raise Rejected(
                "insurance is offered after the deal with an ace up, before the hole card is "
                "checked",
                rule="R17",
            )
        hands = state.hands_of(ev.seat)
        if not hands:
            raise Rejected(f"seat {ev.seat} has no hand this round", rule="R17")
        if ev.hand not in (None, 1):
            raise Rejected("insurance is on the seat's one hand", rule="R17")
        if any(w.seat == ev.seat for w in state.insurance):
            raise Rejected(f"seat {ev.seat} has already taken insurance", rule="R17")
        hand = hands[0]
        most = _half_down(hand.stake)
        if ev.action == "even-money":
            if hand.end != "pure":
                raise Rejected("even money is for a hand holding a Pure 21.5", rule="R17")
            if ev.amount is not None and ev.amount != most:
                raise Rejected(
                    f"even money is an insurance wager of exactly half the wager: {fmt(most)}",
                    rule="R17",
                )
        elif ev.amount is not None and not ZERO < ev.amount <= most:
            raise Rejected(
                f"insurance may be no more than half the wager: at most {fmt(most)}", rule="R17"
            )
        if most <= 0:
            raise Rejected("the wager is too small to insure", rule="R17")

    def _insurance_wager(self, state: BlackjackState, ev: Decision) -> PlacedWager:
        """The insurance a decision places: its amount, or half the wager (R17)."""
        hand = state.hands_of(ev.seat)[0]
        amount = ev.amount if ev.amount is not None else _half_down(hand.stake)
        return PlacedWager(ev.seat, hand.player, "insurance", amount)

    def _insure(
        self, state: BlackjackState, placed: PlacedWager, even_money: bool
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """Place the insurance wager; when every hand has answered the offer closes (R12)."""
        even = (*state.even_money, placed.seat) if even_money else state.even_money
        new = replace(state, insurance=(*state.insurance, placed), even_money=even)
        if {w.seat for w in new.insurance} >= set(new.order):
            return self._peek(new)
        return new, []

    # -- the end of a round (R1-R4, R11, R13, R17-R21) ------------------------------------------

    def _finish(self, state: BlackjackState) -> tuple[BlackjackState, list[GameRecord]]:
        """Settle every wager against the bank (R1) from the action seat (R2) in the configured
        order (R3); fees on the pre-deal wagers only (R4); the next round starts."""
        assert state.bank_seat is not None and state.bank is not None
        result = settle_round(
            round_=state.round,
            game=self.game_id,
            bank_seat=state.bank_seat,
            bank=state.bank,
            turn=state.rotation.turn_of(state.bank_seat),
            verdicts=self._ordered(state, self._verdicts(state)),
            # R4 (000 "Pure 21.5 Blackjack: Wagering Limits and Collection Fees",
            # 003 "Pure 21.5 Blackjack 3 to 2: Wagering Limits and Collection Fees"): the wagers
            # placed before the deal only, never a double, a split or insurance
            fee_wagers=state.wagers,
            schedule=self.schedule,
            outcome=self._outcome(state),
            dealt=self._exposed(state),
            action_seat=self.action_seat(state),
            shoe=state.shoe_number,
        )
        new = BlackjackState(
            round=state.round + 1,
            rotation=state.rotation.after_round(state.bank_seat),
            shoe_number=state.shoe_number,
            shoe_seen=state.shoe_seen,
        )
        return new, [result]

    def _verdicts(self, state: BlackjackState) -> list[WagerVerdict]:
        """Every wager with what the rules say it did (the amount at risk, the verdict, what a
        win is owed), with the fields the game adds to its settlement row: a base wager's `hand`
        and `result` (and `staked` when only part of it was at risk), insurance's `even_money`."""
        verdicts: list[WagerVerdict] = []
        dealer = state.dealer
        dealer_pure = bj.is_pure(dealer, split=False)  # only ever found at the peek (R12)
        for hand in state.hands:
            index = state.index_of(hand)
            riders = [
                w
                for w in state.wagers
                if w.seat == hand.seat and w.spot == "base" and w.player != hand.player
            ]
            stakes = [(hand.player, hand.staked, True)]
            if index == 1:  # backline base wagers ride the seat's first hand, undoubled
                stakes += [(w.player, w.amount, False) for w in riders]
            for player, staked, own in stakes:
                verdict, at_risk, owed, how = self._base(hand, staked, own, dealer, dealer_pure)
                notes: dict[str, JsonValue] = {"hand": index, "result": how}
                if at_risk != staked:
                    notes["staked"] = fmt(staked)
                verdicts.append(
                    WagerVerdict(hand.seat, player, "base", at_risk, verdict, owed, notes)
                )
        for w in state.wagers:
            if w.spot == "base":
                continue
            odds = self._side_odds(state, w)
            if odds > 0:
                verdicts.append(
                    WagerVerdict(
                        w.seat, w.player, w.spot, w.amount, "win", winnings(w.amount, odds)
                    )
                )
            else:
                verdicts.append(WagerVerdict(w.seat, w.player, w.spot, w.amount, "lose"))
        for w in state.insurance:
            won = dealer_pure
            verdicts.append(
                WagerVerdict(
                    w.seat,
                    w.player,
                    "insurance",
                    w.amount,
                    "win" if won else "lose",
                    winnings(w.amount, bj.INSURANCE_ODDS) if won else ZERO,
                    {"even_money": w.seat in state.even_money},
                )
            )
        return verdicts

    def _base(
        self,
        hand: Hand,
        staked: Decimal,
        own: bool,
        dealer: Sequence[Card],
        dealer_pure: bool,
    ) -> tuple[Verdict, Decimal, Decimal, str]:
        """A base wager's verdict, the amount in action, what a win is owed, and a word for it.

        R11 pure against pure, R12 the peek, R13 888, R16 surrender, R20 Spanish 21s and rescue.
        """
        pure = hand.end == "pure"
        if dealer_pure:  # R12: the round ended at the peek; only a pure hand is spared
            if not pure:
                return "lose", staked, ZERO, "lose"
            # both pure: 003 "Pure Spanish 21.5: Dealing Procedures and Round of Play" the player
            # wins; 000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes" (R11) a push
            if self.variant.pure_beats_pure:
                return "win", staked, winnings(staked, self.variant.pure_odds), "pure"
            return "push", staked, ZERO, "push"
        # paid at once (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet"): 6 to 5 or 3 to 2
        # (R11)
        if pure:
            return "win", staked, winnings(staked, self.variant.pure_odds), "pure"
        if hand.end == "surrender":  # R16, R13: half is forfeited, even against 888
            return "lose", _half_down(staked), ZERO, "surrender"
        if hand.end == "rescue":  # R20: the last doubled portion comes back, the rest is lost
            kept = hand.doubles[-1] if own and hand.doubles else ZERO
            return "lose", staked - kept, ZERO, "rescue"
        player = bj.hand_total(hand.cards)
        if bj.is_bust(hand.cards):
            if bj.is_888(dealer):  # R13: every busted player hand pushes on 888
                return "push", staked, ZERO, "push"
            return "lose", staked, ZERO, "lose"  # even when the player-dealer busts too
        if bj.is_bust(dealer):
            return "win", staked, staked, "win"
        mine, theirs = player.value, bj.hand_total(dealer).value
        if mine > theirs or (self.variant.twenty_one_wins and mine == theirs == 21):  # R20
            return "win", staked, staked, "win"
        if mine < theirs:
            return "lose", staked, ZERO, "lose"
        return "push", staked, ZERO, "push"

    def _side_odds(self, state: BlackjackState, w: PlacedWager) -> Fraction:
        """Odds to one a side bet is paid, 0 when it loses (R18, R19, R21)."""
        if w.spot == "red-flex":
            assert self.red_flex is not None
            count = bj.red_flex_count(state.dealer)
            category = bj.red_flex_category(count, self.red_flex)
            return Fraction(0) if category is None else payout(self.red_flex, category)
        if w.spot == "buster":
            assert self.buster is not None
            category = bj.buster_category(bj.buster_cards(state.dealer), self.buster)
            return Fraction(0) if category is None else payout(self.buster, category)
        assert w.spot == "match-dealer" and self.match is not None
        up = state.up_card
        assert up is not None
        two = dict(state.initial)[w.seat]
        category = bj.match_dealer_category(bj.match_dealer(two, up), self.match)
        return Fraction(0) if category is None else payout(self.match, category)

    def _outcome(self, state: BlackjackState) -> BlackjackOutcome:
        """Every hand as the table shows it at the end, and the side bets' results."""
        assert state.bank_seat is not None
        dealer = state.dealer
        up = state.up_card
        red_flex = buster = match = None
        if self.red_flex is not None:
            count = bj.red_flex_count(dealer)
            red_flex = RedFlexResult(count, bj.red_flex_category(count, self.red_flex))
        if self.buster is not None:
            n = bj.buster_cards(dealer)
            buster = BusterResult(n, bj.buster_category(n, self.buster))
        if self.match is not None:
            assert up is not None
            match = tuple(
                MatchResult(
                    seat, two, bj.match_dealer_category(bj.match_dealer(two, up), self.match)
                )
                for seat, two in state.initial
                if any(w.seat == seat and w.spot == "match-dealer" for w in state.wagers)
            )
        return BlackjackOutcome(
            bank_seat=state.bank_seat,
            dealer=dealer,
            peek=(up is not None) and (up.rank == "A" or bj.is_bonus(up)),
            hands=tuple(zip(hand_numbers(state.hands), state.hands, strict=True)),
            red_flex=red_flex,
            buster=buster,
            match_dealer=match,
        )

    def _rank(self, cards: Sequence[Card], *, pure: bool) -> dict[str, JsonValue]:
        """A hand's total and rank name: "pure-21.5", "888", "bust", or e.g. "soft 18"."""
        return rank_view(cards, pure=pure)

    def _exposed(self, state: BlackjackState) -> list[JsonValue]:
        """The cards the table shows, by hand: every player card is dealt face up
        (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play");
        the player-dealer's hole card only once it is turned."""
        out: list[JsonValue] = [
            {"seat": h.seat, "hand": state.index_of(h), "cards": [str(c) for c in h.cards]}
            for h in state.hands
        ]
        if state.dealer:
            shown = state.dealer if state.hole_shown else state.dealer[:1]
            out.append(
                {
                    "seat": state.bank_seat,
                    "hand": "player-dealer",
                    "cards": [str(c) for c in shown],
                }
            )
        return out

    def void(
        self, state: BlackjackState, reason: str, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """A misdeal: the round ends unplayed, every wager (doubles, splits and insurance too)
        comes back, no fee is charged and the hand does not count toward the player-dealer's two
        (R5). The hole card stays hidden unless it was already turned."""
        verify_round_in_progress(self.between_rounds(state))
        money = [PlacedWager(h.seat, h.player, "base", h.staked) for h in state.hands] + [
            w for w in state.wagers if not (w.spot == "base" and self._is_played(state, w))
        ]
        money += list(state.insurance)
        ordered = self._ordered(state, money) if state.bank_seat is not None else money
        result = void_round(
            round_=state.round,
            game=self.game_id,
            reason=reason,
            bank_seat=state.bank_seat,
            bank=state.bank,
            ordered=ordered,
            dealt=self._exposed(state),
            shoe=state.shoe_number,
        )
        new = BlackjackState(
            round=state.round + 1,
            rotation=state.rotation,
            shoe_number=state.shoe_number,
            shoe_seen=state.shoe_seen,
        )
        return new, [result, self._state(new)]

    def _is_played(self, state: BlackjackState, w: PlacedWager) -> bool:
        """Whether a base wager is the stake of a dealt hand (counted in its hand's money)."""
        return any(h.seat == w.seat and h.player == w.player for h in state.hands)

    # -- action order (R2, R3) ---------------------------------------------------------------

    def action_seat(self, state: BlackjackState) -> int | None:
        """Where settlement starts (R2): the action button the hole card places (000 "Pure 21.5
        Blackjack: Dealing Procedures and Round of Play") or the player-dealer's left (003 "Pure
        21.5 Blackjack 3 to 2: Round of Play"), then the first seat clockwise with a wager.
        None until the hole card is turned."""
        if state.bank_seat is None or not state.hole_shown:
            return None
        if self.game.action_start == "player-dealer-left":
            return first_wagered(seats_from_left(state.bank_seat, self.seats), state.wagers)
        button = action_button_seat(state.dealer[1], state.bank_seat, self.seats)
        if button is None:
            return None
        return first_wagered(seats_from(button, self.seats), state.wagers)

    def _ordered(self, state: BlackjackState, wagers: Sequence[W]) -> list[W]:
        """`wagers` (or the verdicts on them) in settlement order: insurance first (it is decided
        when the hole card is checked, before any hand plays: 003 "Pure 21.5 Blackjack 3 to 2:
        Insurance and Even Money"), then by seat or by spot as configured (R3) from the action
        seat (R2); a seat's hands in order, backline after the seat's."""
        assert state.bank_seat is not None
        first = self.action_seat(state)
        seat_order = (
            seats_from(first, self.seats)
            if first is not None
            else seats_from_left(state.bank_seat, self.seats)
        )
        insurance = [w for w in wagers if w.spot == "insurance"]
        rest = [w for w in wagers if w.spot != "insurance"]
        return action_order(insurance, seat_order, ("insurance",), "by-spot") + action_order(
            rest, seat_order, self.spots, self.game.settlement_order
        )

    # -- helpers -----------------------------------------------------------------------------

    @property
    def _name(self) -> str:
        """The game's name for refusals."""
        return self.variant.name

    def _replace_hand(self, state: BlackjackState, old: Hand, new: Hand) -> tuple[Hand, ...]:
        """The hands with `old` (found by identity: two hands may hold equal cards) replaced."""
        return tuple(new if h is old else h for h in state.hands)

    def _reveal(self, before: BlackjackState, after: BlackjackState) -> dict[str, JsonValue]:
        """The hole card for the echo of the input that turned it over, else nothing."""
        if before.hole_shown or len(before.dealer) < 2:
            return {}
        turned = after.hole_shown or after.round != before.round
        return {"hole_card": str(before.dealer[1])} if turned else {}

    def _dealer_view(self, state: BlackjackState) -> dict[str, JsonValue] | None:
        """The player-dealer as `state` shows it: the up card only until the hole card is
        turned (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"), its total only
        after."""
        seat = player_dealer_view(state.bank_seat, state.bank, state.rotation)
        if seat is None:
            return None
        shown = state.dealer if state.hole_shown else state.dealer[:1]
        view: dict[str, JsonValue] = {
            **seat,
            "cards": [str(c) for c in shown],
            "hole_card_down": len(state.dealer) >= 2 and not state.hole_shown,
        }
        if state.hole_shown:
            view.update(self._rank(state.dealer, pure=False))
        return view

    def _hand_view(self, h: Hand, number: int) -> dict[str, JsonValue]:
        """A player hand as `state` shows it (`number`: its index_of): every player card is face
        up (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play")."""
        view: dict[str, JsonValue] = {
            "seat": h.seat,
            "hand": number,
            "player": h.player,
            "cards": [str(c) for c in h.cards],
            "stake": fmt(h.stake),
            "doubles": [fmt(d) for d in h.doubles],
            "split": h.split,
            "end": h.end,
        }
        if h.cards:
            view.update(self._rank(h.cards, pure=h.end == "pure"))
        return view

    def _next_card_view(
        self, state: BlackjackState, hand: Hand | None, legal: Sequence[str]
    ) -> JsonValue:
        """Where the next `shoe.card` goes, for the dealer console; None when no card may come.
        (`hand` and `legal`: the state's current hand and legal actions.)"""
        if state.phase == "dealing":
            n = len(state.order) + 1
            position = state.dealt % n
            if position == len(state.order):
                return "player-dealer"
            return {"seat": state.order[position], "hand": 1}
        if state.phase == "player-dealer":
            return "player-dealer"
        if hand is not None and "hit" in legal:
            return {"seat": hand.seat, "hand": state.index_of(hand)}
        return None

    def _insurance_view(self, state: BlackjackState) -> dict[str, JsonValue] | None:
        """While insurance is offered (R17): the seats yet to answer, those that may take even
        money."""
        if state.phase != "insurance":
            return None
        taken = {w.seat for w in state.insurance}
        return {
            "open": True,
            "pending": [s for s in state.order if s not in taken],
            "even_money": (
                [h.seat for h in state.hands if h.end == "pure" and h.seat not in taken]
                if self.variant.even_money
                else []
            ),
        }
