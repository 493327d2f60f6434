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

The engine composes the package's functions of a policy and a state: `variant` (what differs
between the two games, the configured table), `state`, `deal`, `decisions`, `insurance`,
`settlement` and `views`; it builds each input's echo and the `state` that follows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablectl.game_records import GameRecord, InputAccepted, JsonValue
from tablectl.games.base import Rejected
from tablectl.games.blackjack import deal, decisions, insurance, settlement, views
from tablectl.games.blackjack.settlement import BlackjackRoundEnd
from tablectl.games.blackjack.state import BlackjackState, Hand, replace_hand
from tablectl.games.blackjack.variant import policy_of
from tablectl.games.common import (
    PlayerDealerEngine,
    Transition,
    can,
    default_player,
    event_msg,
    has_wager,
    player_of,
    replace,
    verify_bank_before_deal,
    verify_limits,
    verify_not_player_dealer,
    verify_seat,
)
from tablectl.games.decks import seen_plus
from tablectl.games.table_rules import Rules
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import (
    Bank,
    BetsClose,
    Decision,
    InputEvent,
    ShoeBurn,
    ShoeCard,
    ShoeNew,
    Wager,
)
from tablectl_base.money import fmt

BURN_HIDDEN = frozenset(ShoeBurn.model_fields) - {"type"}  # a burn is echoed by type alone


class BlackjackEngine(BlackjackRoundEnd, PlayerDealerEngine[BlackjackState]):
    """The rules of Pure 21.5 Blackjack or Pure Spanish 21.5 for one configured table; what is
    blackjack's own at a round's end (a misdeal's money and cards, the shoe, the next round) is
    BlackjackRoundEnd's."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(policy_of(rules))  # BlackjackRoundEnd: policy, game_id, schedule
        self.rules = rules
        self.game = self.policy.game
        self.variant = self.policy.variant
        self.seats = self.policy.seats
        self.shoe = self.policy.shoe
        self.limits = self.policy.limits

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
            f"{self.variant.name} has no {event.type!r} input: cards come from the reading shoe",
            rule="000 line 53",
        )

    def in_deal(self, state: BlackjackState) -> bool:
        """Cards are being dealt or the hands played: a device fault now holds the round."""
        return state.phase != "betting"

    def state_payload(self, state: BlackjackState) -> dict[str, JsonValue]:
        """The retained `state` (tablectl/games/blackjack/views.py)."""
        return views.state_payload(self.policy, state)

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
        spots = self.policy.spots
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
        if ev.spot not in spots:
            raise Rejected(
                f"no wager {ev.spot!r} at this {self.variant.name} table; spots: "
                + ", ".join(spots),
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

    # -- closing bets (R12, R17) ---------------------------------------------------------------

    def verify_bets_close(self, state: BlackjackState) -> None:
        """Betting closes against a posted bank with at least one base wager to deal to; with an
        ace up it closes the insurance offer instead (R17)."""
        deal.verify_bets_close(state)

    def bets_close(
        self, state: BlackjackState, ev: BetsClose, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """ "No more bets": the seats to be dealt are fixed now; with an ace up it closes the
        insurance offer and the hole card is checked (R12, R17)."""
        self.verify_bets_close(state)
        extra: dict[str, JsonValue] = {"round": state.round}
        if state.phase == "insurance":
            new, out = deal.peek(self.policy, state)
            extra.update(views.reveal(state, new))
            return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]
        new = deal.closed(self.policy, state)
        return new, [InputAccepted(ev, ts, extra), self._state(new)]

    # -- cards (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"; R12, R14, R16) ----

    def verify_card(self, state: BlackjackState, card: Card) -> str:
        """Where `card` goes ("deal", "hand" or "player-dealer"), or why it cannot be drawn now
        (a dealer error when no hand may draw it, R15)."""
        return deal.verify_card(self.policy, state, card)

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
                state = deal.closed(self.policy, state)
            return self._deal(replace(state, shoe_seen=seen), ev, card, ts)
        if to == "player-dealer":
            echo = event_msg(ev, ts, round=state.round, to="player-dealer")
            new, out = deal.dealer_draw(self.policy, replace(state, shoe_seen=seen), card)
            return new, [echo, *out, self._state(new)]
        hand = state.current
        assert hand is not None
        index = state.index_of(hand)
        received = deal.receive(self.policy, hand, card)
        new = replace(state, hands=replace_hand(state, hand, received), shoe_seen=seen)
        extra: dict[str, JsonValue] = {
            "round": state.round,
            "to": {"seat": hand.seat, "hand": index},
        }
        new, out = deal.advance(self.policy, new)
        extra.update(views.reveal(state, new))
        return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]

    def _deal(
        self, state: BlackjackState, ev: ShoeCard, card: Card, ts: str
    ) -> tuple[BlackjackState, list[GameRecord]]:
        """One card of the initial deal; the player-dealer's second card face down and not shown
        (hidden in the echo)."""
        new, to = deal.deal_one(state, card)
        extra: dict[str, JsonValue] = {"round": state.round, "to": to}
        hide: set[str] = set()
        if to == "player-dealer" and len(new.dealer) == 2:
            hide, extra["face_down"] = {"card"}, True
        out: list[GameRecord] = []
        if deal.dealt_out(new):
            dealt = new
            new, out = deal.after_deal(self.policy, new)
            extra.update(views.reveal(dealt, new))
        return new, [event_msg(ev, ts, hide=hide, **extra), *out, self._state(new)]

    def verify_burn(self, state: BlackjackState, card: Card) -> None:
        """A burn only between rounds (before the round's first card), of a card the shoe holds."""
        deal.verify_burn(self.policy, state, card)

    def can_burn(self, state: BlackjackState, card: Card) -> bool:
        """Whether `verify_burn` accepts."""
        return can(self.verify_burn, state, card)

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
        deal.verify_shoe_new(state)

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

    # -- decisions (R15-R17, R20) --------------------------------------------------------------

    def verify_decision(self, state: BlackjackState, ev: Decision) -> Hand | None:
        """A decision by the seat whose turn it is, for its hand in turn, that the rules allow
        now; insurance and even money while they are offered. Returns the hand it acts on."""
        decisions.verify_form(self.policy, ev)
        if ev.action in ("insurance", "even-money"):
            insurance.verify_insurance(self.policy, state, ev)
            return None
        hand = decisions.hand_in_turn(state, ev)
        decisions.verify_action(self.policy, state, hand, ev)
        return hand

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
            placed = insurance.insurance_wager(state, ev)
            new, out = insurance.insure(self.policy, state, placed, ev.action == "even-money")
            extra.update(player=placed.player, amount=fmt(placed.amount))
            extra.update(views.reveal(state, new))
            return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]
        extra["hand"] = state.index_of(hand)
        played, shown = decisions.play(state, hand, ev)
        extra.update(shown)
        new, out = deal.advance(self.policy, played)
        extra.update(views.reveal(state, new))
        return new, [InputAccepted(ev, ts, extra), *out, self._state(new)]

    def legal_actions(self, state: BlackjackState) -> tuple[str, ...]:
        """What the dealer console may enter now for the hand in turn ("hit" = draw a card)."""
        return decisions.legal_actions(self.policy, state)

    # -- the round's end (the walk: RoundEnd; blackjack's own: settlement.BlackjackRoundEnd) ----

    def action_seat(self, state: BlackjackState) -> int | None:
        """Where settlement starts (R2); None until the hole card is turned."""
        return settlement.action_seat(self.policy, state)
