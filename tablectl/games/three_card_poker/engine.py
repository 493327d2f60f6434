"""Three Card Poker 6 Card Bonus (documents 000, 001, 003, 004; R1-R5, R29) as a pure engine.

A round: the player-dealer posts a bank, players place Antes and the two bonus wagers, betting
closes (explicitly or by the first stack), the shuffler's stacks of three go one to each seat with
an Ante clockwise from the player-dealer's left and the player-dealer's stack last (its bottom card
turned face up), each hand then plays (a Play equal to its Ante) or folds in turn, and after the
last decision the player-dealer's cards are revealed and every wager settles against the bank (R1)
seat by seat from the action seat (R2, R3). Line references are to document 004
(`004_dad8fc1ada8336f9.txt`) unless another document is named; 000, 001 and 003 say the same in
their own words except where docs/games/three-card-poker-6cb.md notes a difference.
Every transition has a `verify_*` that raises Rejected and leaves the state alone.

This module takes the inputs; the round's state is `state.py`'s, the verdicts and the outcome
`settlement.py`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from tablectl.game_records import Deck, GameRecord, JsonObject, JsonValue, RoundHeaders
from tablectl.games.base import Rejected
from tablectl.games.common import (
    PlacedWager,
    PlayerDealerEngine,
    Transition,
    W,
    can,
    event_msg,
    has_wager,
    merged,
    player_dealer_view,
    player_of,
    staked,
    verify_bank_before_deal,
    verify_bets_open,
    verify_limits,
    verify_not_player_dealer,
    verify_seat,
)
from tablectl.games.decks import deck_after_round, verify_deck_colour, verify_single_deck
from tablectl.games.seating import (
    action_button_seat,
    action_order,
    first_wagered,
    seats_from,
    seats_from_left,
)
from tablectl.games.table_rules import Rules
from tablectl.games.three_card_poker.settlement import PayTables, outcome, verdict
from tablectl.games.three_card_poker.spec import ThreeCardPokerGame
from tablectl.games.three_card_poker.state import (
    ACTIONS,
    BONUS_SPOTS,
    GAME_ID,
    ONE_DECK,
    PRE_DEAL_SPOTS,
    STACK_SIZE,
    WAGER_ORDERS,
    Action,
    ThreeCardPokerState,
    qualifies,
)
from tablectl.rules.fees import total_table_action
from tablectl.rules.poker import three_card_rank
from tablectl_base.cards import parse_card
from tablectl_base.events import Bank, BetsClose, Decision, InputEvent, ShufflerStack, Wager
from tablectl_base.money import fmt


class ThreeCardPokerEngine(PlayerDealerEngine[ThreeCardPokerState]):
    """The rules of Three Card Poker 6 Card Bonus for one configured table."""

    game_id = GAME_ID

    def __init__(self, rules: Rules) -> None:
        game = rules.game
        assert isinstance(game, ThreeCardPokerGame)
        self.rules = rules
        self.game = game
        self.seats = rules.seats.count
        self.settlement_order = game.settlement_order
        self.spot_order = WAGER_ORDERS[game.wager_order]
        self.limits, self.schedule = rules.banked()
        self.six_card_table = rules.paytable(game.six_card_bonus_table)  # as journaled
        self.pair_plus_table = rules.paytable(game.pair_plus_table)
        self.tables = PayTables(pair_plus=self.pair_plus_table, six_card=self.six_card_table)

    # -- the engine protocol -------------------------------------------------------------

    def initial(self) -> ThreeCardPokerState:
        """Round 1, betting, no bank, no deck used yet."""
        return ThreeCardPokerState()

    def transitions(self) -> Mapping[type[Any], Transition[ThreeCardPokerState]]:
        """The inputs this game takes besides `bank` and `wager`."""
        return {BetsClose: self.bets_close, ShufflerStack: self.stack, Decision: self.decision}

    def no_such_input(self, event: InputEvent) -> Rejected:
        """Any other input is refused."""
        return Rejected(
            f"Three Card Poker 6 Card Bonus has no {event.type!r} input: cards come from the "
            "shuffler in stacks of three",
            rule="004 line 542",
        )

    def in_deal(self, state: ThreeCardPokerState) -> bool:
        """Stacks are being dispensed or the hands are being played."""
        return state.phase != "betting"

    def state_payload(self, state: ThreeCardPokerState) -> dict[str, JsonValue]:
        """Only what the table shows: wagers, whose turn it is, the player-dealer's face-up card
        (never a hole card or a player's cards: they are revealed in `round/result`)."""
        face_up = state.face_up
        view = player_dealer_view(state.bank_seat, state.bank, state.rotation)
        return {
            "game": GAME_ID,
            "round": state.round,
            "phase": state.phase,
            "deck": state.deck,
            "previous_deck": state.last_deck,  # the next round is dealt from the other (line 490)
            "player_dealer": (
                None
                if view is None
                else {**view, "face_up": None if face_up is None else str(face_up)}
            ),
            "bank_offer_seat": state.rotation.offer_seat(self.seats),
            "wagers": [w.payload() for w in (*state.wagers, *state.plays)],
            "total_action": fmt(total_table_action(w.amount for w in state.wagers)),
            "hands": [
                {
                    "seat": s,
                    "dealt": state.hand_of(s) is not None,
                    "decision": state.decision_of(s),
                }
                for s in state.player_seats
            ],
            "action_seat": self.action_seat(state),
            "next_stack": self._next_stack(state),
            "next_decision": self._next_decision(state),
        }

    # -- bank (R1, R5) -----------------------------------------------------------------------

    def verify_bank(self, state: ThreeCardPokerState, ev: Bank) -> None:
        """R1/R5: a bank is posted before the deal, by a seat the rotation allows."""
        verify_bank_before_deal(
            state.phase == "betting", state.rotation, ev, self.seats, state.wagers
        )

    # -- wagers (lines 534-538) -----------------------------------------------------------------

    def verify_wager(self, state: ThreeCardPokerState, ev: Wager) -> None:
        """An Ante, Pair Plus or 6 Card Bonus before "no more bets", a bonus only with an Ante
        by the same player at the seat (line 537), within the table limits (line 534)."""
        verify_seat(ev.seat, self.seats)
        if state.phase != "betting":
            raise Rejected("no more bets: betting is closed for this round", rule="004 line 538")
        verify_not_player_dealer(ev, state.bank_seat)
        if ev.spot == "play":
            raise Rejected(
                "a Play is placed after the deal by the seat's play decision, not as a wager",
                rule="004 line 536",
            )
        if ev.spot not in PRE_DEAL_SPOTS:
            raise Rejected(
                f"no wager {ev.spot!r} in Three Card Poker 6 Card Bonus; spots before the deal: "
                + ", ".join(PRE_DEAL_SPOTS),
                rule="004 line 517",
            )
        if ev.spot in BONUS_SPOTS and not has_wager(
            state.wagers, ev.seat, player_of(ev), ("ante",)
        ):
            name = "Pair Plus" if ev.spot == "pair-plus" else "6 Card Bonus"
            raise Rejected(
                f"a {name} wager needs an Ante by the same player at seat {ev.seat} first",
                rule="004 line 537",
            )
        verify_limits(self.limits, state.wagers, ev)

    # -- closing bets (line 538) ---------------------------------------------------------------

    def verify_bets_close(self, state: ThreeCardPokerState) -> None:
        """Betting closes once (line 538), and only against a posted bank (R1)."""
        verify_bets_open(state.phase == "betting", state.bank_seat, "004 line 538")

    def bets_close(
        self, state: ThreeCardPokerState, ev: BetsClose, ts: str
    ) -> tuple[ThreeCardPokerState, list[GameRecord]]:
        """ "No more bets": the seats to be dealt are fixed now."""
        self.verify_bets_close(state)
        new = self._closed(state)
        return new, [event_msg(ev, ts, round=state.round), self._state(new)]

    def _closed(self, state: ThreeCardPokerState) -> ThreeCardPokerState:
        """Betting closed: R29 / line 524, a stack to each seat with an Ante clockwise from the
        player-dealer's left, then the player-dealer's."""
        assert state.bank_seat is not None
        anted = {w.seat for w in state.wagers if w.spot == "ante"}
        left = seats_from_left(state.bank_seat, self.seats)[:-1]
        order = (*[s for s in left if s in anted], state.bank_seat)
        return replace(state, phase="dealing", order=order)

    # -- stacks (R29; lines 485-491, 524, 542-543) ------------------------------------------------

    def verify_stack(self, state: ThreeCardPokerState, ev: ShufflerStack) -> None:
        """A stack of three distinct, joker-free cards of this round's deck, while one is due.

        No reason quotes a card: an alert is published, and a refused stack is not shown.
        """
        if state.phase == "betting":
            self.verify_bets_close(state)  # the first stack closes betting (contract 2)
        elif state.phase != "dealing":
            raise Rejected("every hand has its stack: no more cards this round", rule="R29")
        if len(ev.cards) != STACK_SIZE:
            raise Rejected(
                f"a stack of {len(ev.cards)} cards: the shuffler dispenses stacks of three",
                rule="004 line 542",
            )
        verify_single_deck(
            [parse_card(c) for c in ev.cards],
            (c for stack in state.stacks for c in stack),
            ONE_DECK,
            foreign_rule="004 line 486",
            twice_rule="004 line 485",
        )
        # Two alternating decks of different colours, each used every other round (lines
        # 487-491); a stack without a colour is not checked.
        verify_deck_colour(
            ev.deck,
            state.deck,
            state.last_deck,
            one_deck_rule="004 line 489",
            alternate_rule="004 line 490",
            colours=self.game.deck_colours,
            colours_rule="004 line 488",
        )

    def can_stack(self, state: ThreeCardPokerState, ev: ShufflerStack) -> bool:
        """Whether `verify_stack` accepts."""
        return can(self.verify_stack, state, ev)

    def stack(
        self, state: ThreeCardPokerState, ev: ShufflerStack, ts: str
    ) -> tuple[ThreeCardPokerState, list[GameRecord]]:
        """Deliver the next stack; the echo shows where it went and nothing of a hole card."""
        self.verify_stack(state, ev)
        if state.phase == "betting":
            state = self._closed(state)
        seat = state.order[len(state.stacks)]
        new = replace(
            state,
            stacks=(*state.stacks, tuple(parse_card(c) for c in ev.cards)),
            deck=state.deck if ev.deck is None else ev.deck,
        )
        echo: dict[str, JsonValue] = {"round": state.round, "to": seat}
        out: list[GameRecord] = []
        if new.player_dealer_hand is not None:
            echo.update(hand="player-dealer", face_up=str(new.face_up))
            echo["action_seat"] = self.action_seat(new)
            out.append(event_msg(ev, ts, hide={"cards"}, **echo))
            if not new.player_seats:  # nobody anted: nothing to decide
                new, finished = self._finish(new)
                out += finished
            else:
                new = replace(new, phase="deciding")
        else:
            echo["hand"] = "player"
            out.append(event_msg(ev, ts, hide={"cards"}, **echo))
        out.append(self._state(new))
        return new, out

    # -- decisions (lines 550-557) -----------------------------------------------------------

    def verify_decision(self, state: ThreeCardPokerState, ev: Decision) -> Action:
        """Play or fold, by the seat whose turn it is (clockwise from the player-dealer's left,
        line 554) once every stack is out; a Play equals the seat's Ante (line 536)."""
        if ev.action not in ACTIONS:
            raise Rejected(
                f"no decision {ev.action!r} in Three Card Poker: play or fold", rule="contract 2"
            )
        action: Action = "play" if ev.action == "play" else "fold"
        if ev.hand not in (None, 1) or ev.multiple is not None or ev.low is not None:
            raise Rejected(
                "a Three Card Poker decision names only the seat, the action and, for a "
                "play, the amount",
                rule="contract 2",
            )
        verify_seat(ev.seat, self.seats)
        if state.phase != "deciding":
            raise Rejected(
                "decisions come after every stack has been delivered", rule="004 line 548"
            )
        if ev.seat not in state.player_seats:
            raise Rejected(f"seat {ev.seat} has no hand this round", rule="004 line 550")
        if state.decision_of(ev.seat) is not None:
            raise Rejected(f"seat {ev.seat} has already decided", rule="004 line 550")
        turn = self._next_decision(state)
        if ev.seat != turn:
            raise Rejected(
                f"out of turn: seat {turn} decides before seat {ev.seat} (clockwise from "
                "the player-dealer's left)",
                rule="004 line 554",
            )
        if action == "fold" and ev.amount is not None:
            raise Rejected("a fold places no wager", rule="004 line 550")
        if action == "play" and ev.amount is not None:
            ante = self._ante_at(state, ev.seat)
            if ev.amount != ante:
                raise Rejected(
                    f"a Play of the wrong size: {fmt(ev.amount)} against an Ante of {fmt(ante)}; "
                    "the Play must equal the Ante",
                    rule="004 line 536",
                )
        return action

    def can_decision(self, state: ThreeCardPokerState, ev: Decision) -> bool:
        """Whether `verify_decision` accepts."""
        return can(self.verify_decision, state, ev)

    def decision(
        self, state: ThreeCardPokerState, ev: Decision, ts: str
    ) -> tuple[ThreeCardPokerState, list[GameRecord]]:
        """Play (a Play equal to each Ante at the seat) or fold; the last one ends the round."""
        action = self.verify_decision(state, ev)
        plays = state.plays
        if action == "play":
            plays = (*plays, *self._plays_at(state, ev.seat))
        new = replace(state, decisions=(*state.decisions, (ev.seat, action)), plays=plays)
        echo = (
            event_msg(ev, ts, round=state.round, play=fmt(self._ante_at(state, ev.seat)))
            if action == "play"
            else event_msg(ev, ts, round=state.round)
        )
        out: list[GameRecord] = [echo]
        if len(new.decisions) == len(new.player_seats):
            new, finished = self._finish(new)
            out += finished
        out.append(self._state(new))
        return new, out

    def _ante_at(self, state: ThreeCardPokerState, seat: int) -> Decimal:
        """Every Ante at `seat` (the seated player's and back-line bettors')."""
        return staked(state.wagers, seat, "ante")

    def _plays_at(self, state: ThreeCardPokerState, seat: int) -> list[PlacedWager]:
        """A Play per player with an Ante at `seat`, equal to that player's Ante (line 536);
        back-line bettors ride the seated hand's decision."""
        return [
            PlacedWager(seat, w.player, "play", w.amount)
            for w in merged(state.wagers)
            if w.seat == seat and w.spot == "ante"
        ]

    # -- the end of a round (R1-R4, R29; lines 559-575) -------------------------------------------
    # the verdicts and the outcome: tablectl/games/three_card_poker/settlement.py

    def _finish(self, state: ThreeCardPokerState) -> tuple[ThreeCardPokerState, list[GameRecord]]:
        """Reveal the player-dealer's hand, settle every wager (R1) and start the next round."""
        assert state.bank_seat is not None and state.bank is not None
        dealer_hand = state.player_dealer_hand
        assert dealer_hand is not None
        dealer = three_card_rank(dealer_hand)
        qualified = qualifies(dealer)
        new, result = self.settled(
            state,
            [verdict(state, w, dealer, qualified, self.tables) for w in self.at_stake(state)],
            outcome(state, dealer, qualified, self.tables),
            # R4 (003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13"): "the Ante, Pair Plus,
            # and 6 card bonus wagers only", never Play; a player's chips in one circle are one
            # wager, so a fee "per hand" or "based on each individual player's ante" is charged
            # once, on the whole Ante.
            fee_wagers=state.wagers,
            action_seat=self.action_seat(state),
        )
        return new, [result]

    # -- the round's end: what is Three Card Poker's own (the walk: RoundEnd) -------------------

    def at_stake(self, state: ThreeCardPokerState) -> tuple[PlacedWager, ...]:
        """Every wager of the round, the pre-deal wagers and the Plays: a misdeal returns them
        all."""
        return (*state.wagers, *state.plays)

    def exposed(self, state: ThreeCardPokerState, settled: bool) -> list[JsonObject]:
        """The cards the table shows, by hand in delivery order: at the end every played hand
        and the player-dealer's (lines 559, 570); before it (a misdeal) only the face-up card
        (line 543): no hole card is shown."""
        out: list[JsonObject] = []
        for seat, cards in zip(state.order, state.stacks, strict=False):
            if seat == state.bank_seat:
                shown = list(cards) if settled else [cards[0]]
                out.append(
                    {"seat": seat, "hand": "player-dealer", "cards": [str(c) for c in shown]}
                )
            elif settled and state.decision_of(seat) == "play":
                out.append({"seat": seat, "hand": "player", "cards": [str(c) for c in cards]})
        return out

    def headers(self, state: ThreeCardPokerState) -> RoundHeaders:
        """The round's deck colour (null when no stack named it), published before the outcome,
        as it always was."""
        return RoundHeaders(deck=Deck(state.deck))

    def next_round(self, state: ThreeCardPokerState, settled: bool) -> ThreeCardPokerState:
        """The next round, dealt from the other deck (line 490): a deck that was dealt from
        counts as used for the alternation, a misdeal's too; the rotation moves on after a
        settled round only (R5)."""
        return ThreeCardPokerState(
            round=state.round + 1,
            rotation=self.rotation_after(state, settled),
            last_deck=deck_after_round(state.deck, settled or bool(state.stacks), state.last_deck),
        )

    # -- action order (R2, R3) ---------------------------------------------------------------

    def action_seat(self, state: ThreeCardPokerState) -> int | None:
        """Where settlement starts (R2): from the action button the face-up card places
        (000 "Three Card Poker 6 Card Bonus: Description of Table Used and Total Number of Seated
        Positions"), or the player-dealer's left
        (003 "Three Card Poker 6 Card Bonus: Round of Play") as configured; then the first seat
        clockwise with a wager. None while the face-up card is not out yet."""
        if state.bank_seat is None:
            return None
        wagers = (*state.wagers, *state.plays)
        if self.game.action_start == "player-dealer-left":
            if state.phase == "betting":
                return None
            return first_wagered(seats_from_left(state.bank_seat, self.seats), wagers)
        face_up = state.face_up
        if face_up is None:
            return None
        button = action_button_seat(face_up, state.bank_seat, self.seats)
        if button is None:
            return None
        return first_wagered(seats_from(button, self.seats), wagers)

    def in_settlement_order(self, state: ThreeCardPokerState, wagers: Sequence[W]) -> list[W]:
        """Wagers (or the verdicts on them) in settlement order: seat by seat from the action
        seat (R2), each seat's wagers in the configured order (R3); with no action seat yet, from
        the player-dealer's left. A seat's wagers on one spot keep the order they were placed
        in."""
        assert state.bank_seat is not None
        first = self.action_seat(state)
        seat_order = (
            seats_from(first, self.seats)
            if first is not None
            else seats_from_left(state.bank_seat, self.seats)
        )
        return action_order(wagers, seat_order, self.spot_order, self.settlement_order)

    # -- helpers -----------------------------------------------------------------------------

    def _next_stack(self, state: ThreeCardPokerState) -> int | None:
        if state.phase != "dealing":
            return None
        return state.order[len(state.stacks)]

    def _next_decision(self, state: ThreeCardPokerState) -> int | None:
        if state.phase != "deciding":
            return None
        return next((s for s in state.player_seats if state.decision_of(s) is None), None)
