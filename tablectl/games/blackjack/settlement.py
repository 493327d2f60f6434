"""The end of a blackjack round: what every wager did (its `WagerVerdict`, R11, R13, R16-R21), in
the order the documents settle them (R2, R3), walked against the bank by the one settlement walk
(tablectl/rules/settlement.py: R1, the fees R4); the outcome the round publishes; what is
blackjack's own at a round's end, settled or void (BlackjackRoundEnd)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

from tablectl.game_records import JsonObject, JsonValue, RoundHeaders, RoundSettled
from tablectl.games.blackjack import views
from tablectl.games.blackjack.state import BlackjackState, Hand, half_down, hand_numbers
from tablectl.games.blackjack.variant import Policy
from tablectl.games.blackjack.views import rank_view
from tablectl.games.common import PlacedWager, RoundEnd
from tablectl.games.seating import (
    OnSpot,
    action_button_seat,
    action_order,
    first_wagered,
    seats_from,
    seats_from_left,
)
from tablectl.rules import blackjack as bj
from tablectl.rules.paytables import payout, winnings
from tablectl.rules.settlement import Verdict, WagerVerdict
from tablectl_base.cards import Card
from tablectl_base.money import ZERO, fmt

W = TypeVar("W", bound=OnSpot)


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


class BlackjackRoundEnd(RoundEnd[BlackjackState]):
    """What is blackjack's own at a round's end, for the one walk (tablectl/games/common.py
    RoundEnd): the money at stake, the settlement order, the cards shown, the shoe and the next
    round. BlackjackEngine is one (its `void`); `finish` makes one of the policy, as the deal's
    functions end a round without the engine."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.game_id = policy.game_id
        self.schedule = policy.schedule

    def at_stake(self, state: BlackjackState) -> list[PlacedWager]:
        """Every wager of the round, doubles, splits and insurance too: each dealt hand's whole
        stake, the wagers placed before the deal that no hand plays (side bets, backline base
        wagers), insurance. A misdeal returns them all."""
        money = [PlacedWager(h.seat, h.player, "base", h.staked) for h in state.hands] + [
            w for w in state.wagers if not (w.spot == "base" and _is_played(state, w))
        ]
        return money + list(state.insurance)

    def in_settlement_order(self, state: BlackjackState, wagers: Sequence[W]) -> list[W]:
        """Insurance first, then from the action seat (R2) in the configured order (R3):
        `ordered`."""
        return ordered(self.policy, state, wagers)

    def exposed(self, state: BlackjackState, settled: bool) -> list[JsonValue]:
        """Every player card (dealt face up) and the player-dealer's, the hole card only once it
        was turned: at a misdeal it stays hidden unless it already was (`views.exposed`)."""
        return views.exposed(state)

    def headers(self, state: BlackjackState) -> RoundHeaders:
        """The shoe the round was dealt from."""
        return RoundHeaders(shoe=state.shoe_number)

    def next_round(self, state: BlackjackState, settled: bool) -> BlackjackState:
        """The next round, from the same shoe (cards drawn, a misdeal's too, stay out of it); the
        rotation moved on after a settled round only (R5)."""
        return BlackjackState(
            round=state.round + 1,
            rotation=self.rotation_after(state, settled),
            shoe_number=state.shoe_number,
            shoe_seen=state.shoe_seen,
        )


def finish(policy: Policy, state: BlackjackState) -> tuple[BlackjackState, RoundSettled]:
    """Settle every wager against the bank (R1) from the action seat (R2) in the configured
    order (R3); fees on the pre-deal wagers only (R4); the next round starts."""
    return BlackjackRoundEnd(policy).settled(
        state,
        verdicts(policy, state),
        outcome(policy, state),
        # R4 (000 "Pure 21.5 Blackjack: Wagering Limits and Collection Fees",
        # 003 "Pure 21.5 Blackjack 3 to 2: Wagering Limits and Collection Fees"): the wagers
        # placed before the deal only, never a double, a split or insurance
        fee_wagers=state.wagers,
        action_seat=action_seat(policy, state),
    )


def verdicts(policy: Policy, state: BlackjackState) -> list[WagerVerdict]:
    """Every wager with what the rules say it did (the amount at risk, the verdict, what a
    win is owed), with the fields the game adds to its settlement row: a base wager's `hand`
    and `result` (and `staked` when only part of it was at risk), insurance's `even_money`."""
    out: list[WagerVerdict] = []
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
            verdict, at_risk, owed, how = base_verdict(
                policy, hand, staked, own, dealer, dealer_pure
            )
            notes: dict[str, JsonValue] = {"hand": index, "result": how}
            if at_risk != staked:
                notes["staked"] = fmt(staked)
            out.append(WagerVerdict(hand.seat, player, "base", at_risk, verdict, owed, notes))
    for w in state.wagers:
        if w.spot == "base":
            continue
        odds = side_odds(policy, state, w)
        if odds > 0:
            out.append(
                WagerVerdict(w.seat, w.player, w.spot, w.amount, "win", winnings(w.amount, odds))
            )
        else:
            out.append(WagerVerdict(w.seat, w.player, w.spot, w.amount, "lose"))
    for w in state.insurance:
        won = dealer_pure
        out.append(
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
    return out


def base_verdict(
    policy: Policy,
    hand: Hand,
    staked: Decimal,
    own: bool,
    dealer: Sequence[Card],
    dealer_pure: bool,
) -> tuple[Verdict, Decimal, Decimal, str]:
    """A base wager's verdict, the amount in action, what a win is owed, and a word for it.

    R11 pure against pure, R12 the peek, R13 888, R16 surrender, R20 Spanish 21s and rescue.
    """
    variant = policy.variant
    pure = hand.end == "pure"
    if dealer_pure:  # R12: the round ended at the peek; only a pure hand is spared
        if not pure:
            return "lose", staked, ZERO, "lose"
        # both pure: 003 "Pure Spanish 21.5: Dealing Procedures and Round of Play" the player
        # wins; 000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes" (R11) a push
        if variant.pure_beats_pure:
            return "win", staked, winnings(staked, variant.pure_odds), "pure"
        return "push", staked, ZERO, "push"
    # paid at once (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet"): 6 to 5 or 3 to 2
    # (R11)
    if pure:
        return "win", staked, winnings(staked, variant.pure_odds), "pure"
    if hand.end == "surrender":  # R16, R13: half is forfeited, even against 888
        return "lose", half_down(staked), ZERO, "surrender"
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
    if mine > theirs or (variant.twenty_one_wins and mine == theirs == 21):  # R20
        return "win", staked, staked, "win"
    if mine < theirs:
        return "lose", staked, ZERO, "lose"
    return "push", staked, ZERO, "push"


def side_odds(policy: Policy, state: BlackjackState, w: PlacedWager) -> Fraction:
    """Odds to one a side bet is paid, 0 when it loses (R18, R19, R21)."""
    if w.spot == "red-flex":
        assert policy.red_flex is not None
        count = bj.red_flex_count(state.dealer)
        category = bj.red_flex_category(count, policy.red_flex)
        return Fraction(0) if category is None else payout(policy.red_flex, category)
    if w.spot == "buster":
        assert policy.buster is not None
        category = bj.buster_category(bj.buster_cards(state.dealer), policy.buster)
        return Fraction(0) if category is None else payout(policy.buster, category)
    assert w.spot == "match-dealer" and policy.match is not None
    up = state.up_card
    assert up is not None
    two = dict(state.initial)[w.seat]
    category = bj.match_dealer_category(bj.match_dealer(two, up), policy.match)
    return Fraction(0) if category is None else payout(policy.match, category)


def outcome(policy: Policy, state: BlackjackState) -> BlackjackOutcome:
    """Every hand as the table shows it at the end, and the side bets' results."""
    assert state.bank_seat is not None
    dealer = state.dealer
    up = state.up_card
    red_flex = buster = match = None
    if policy.red_flex is not None:
        count = bj.red_flex_count(dealer)
        red_flex = RedFlexResult(count, bj.red_flex_category(count, policy.red_flex))
    if policy.buster is not None:
        n = bj.buster_cards(dealer)
        buster = BusterResult(n, bj.buster_category(n, policy.buster))
    if policy.match is not None:
        table = policy.match
        assert up is not None
        match = tuple(
            MatchResult(seat, two, bj.match_dealer_category(bj.match_dealer(two, up), table))
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


def _is_played(state: BlackjackState, w: PlacedWager) -> bool:
    """Whether a base wager is the stake of a dealt hand (counted in its hand's money)."""
    return any(h.seat == w.seat and h.player == w.player for h in state.hands)


# -- action order (R2, R3) -----------------------------------------------------------------------


def action_seat(policy: Policy, state: BlackjackState) -> int | None:
    """Where settlement starts (R2): the action button the hole card places (000 "Pure 21.5
    Blackjack: Dealing Procedures and Round of Play") or the player-dealer's left (003 "Pure
    21.5 Blackjack 3 to 2: Round of Play"), then the first seat clockwise with a wager.
    None until the hole card is turned."""
    if state.bank_seat is None or not state.hole_shown:
        return None
    if policy.game.action_start == "player-dealer-left":
        return first_wagered(seats_from_left(state.bank_seat, policy.seats), state.wagers)
    button = action_button_seat(state.dealer[1], state.bank_seat, policy.seats)
    if button is None:
        return None
    return first_wagered(seats_from(button, policy.seats), state.wagers)


def ordered(policy: Policy, state: BlackjackState, wagers: Sequence[W]) -> list[W]:
    """`wagers` (or the verdicts on them) in settlement order: insurance first (it is decided
    when the hole card is checked, before any hand plays: 003 "Pure 21.5 Blackjack 3 to 2:
    Insurance and Even Money"), then by seat or by spot as configured (R3) from the action
    seat (R2); a seat's hands in order, backline after the seat's."""
    assert state.bank_seat is not None
    first = action_seat(policy, state)
    seat_order = (
        seats_from(first, policy.seats)
        if first is not None
        else seats_from_left(state.bank_seat, policy.seats)
    )
    insurance = [w for w in wagers if w.spot == "insurance"]
    rest = [w for w in wagers if w.spot != "insurance"]
    return action_order(insurance, seat_order, ("insurance",), "by-spot") + action_order(
        rest, seat_order, policy.spots, policy.game.settlement_order
    )
