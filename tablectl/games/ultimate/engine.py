"""Ultimate Texas Hold'em (document 003 "Ultimate Texas Hold'em" with the Bad Beat, document
004 "Ultimate Texas Hold'em" with the Trips only; rulings R1-R5, R35) as a pure engine.

A round: the player-dealer posts a bank, players place equal Ante and Blind wagers and any Trips
or Bad Beat, betting closes, the hand dispenser hands out two cards to each seat with an Ante and
Blind, two to the player-dealer and the five community cards, all face down (003 "Ultimate Texas
Hold'em: Dealing Procedures and Round of Play"). The players then decide street by street (pre-flop
bet 3x/4x or check; flop 2x or check; river 1x or fold, 003 "Ultimate Texas Hold'em: Dealing
Procedures and Round of Play") while the board is turned over, and after the river the
player-dealer's two cards are turned over and every wager is settled against the bank (R1, R35) seat
by seat from the player-dealer's left (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of
Play"). Every transition has a `verify_*` that raises Rejected and leaves the state alone. No card
is published before the table shows it.

This module takes the inputs; the round's state is `state.py`'s, the showdown and its verdicts
`settlement.py`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from tablectl.game_records import (
    Deck,
    GameRecord,
    InputAccepted,
    JsonObject,
    JsonValue,
    RoundHeaders,
)
from tablectl.games.base import Rejected
from tablectl.games.common import (
    PlacedWager,
    PlayerDealerEngine,
    Transition,
    W,
    can,
    default_player,
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
from tablectl.games.seating import action_order, first_wagered, seats_from, seats_from_left
from tablectl.games.table_rules import Rules
from tablectl.games.ultimate.settlement import PayTables, dealer_shown, settle
from tablectl.games.ultimate.spec import UltimateTexasHoldemGame
from tablectl.games.ultimate.state import (
    ACTIONS,
    BOARD_SHOWN,
    BOARD_SIZE,
    BONUS_SPOTS,
    FLOP_SIZE,
    GAME_ID,
    HAND_SIZE,
    MULTIPLES,
    ONE_DECK,
    PRE_DEAL_SPOTS,
    SETTLEMENT_SPOTS,
    STREET_LINE,
    STREETS,
    Play,
    Stack,
    To,
    UltimateState,
    street_of,
)
from tablectl.rules.fees import total_table_action
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import Bank, BetsClose, Decision, InputEvent, ShufflerStack, Wager
from tablectl_base.money import fmt


class UltimateEngine(PlayerDealerEngine[UltimateState]):
    """The rules of Ultimate Texas Hold'em for one configured table."""

    game_id = GAME_ID
    # hole cards and the board are dealt face down
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
    shows_every_card = False

    def __init__(self, rules: Rules) -> None:
        game = rules.game
        if not isinstance(game, UltimateTexasHoldemGame):
            raise TypeError(f"UltimateEngine cannot play {game.id}")
        self.rules = rules
        self.seats = rules.seats.count
        self.settlement_order = game.settlement_order
        self.deal_from = game.deal_from
        self.limits, self.schedule = rules.banked()
        self.tables = PayTables(  # as journaled with the rules
            blind=rules.paytable(game.blind_table),
            trips=rules.paytable(game.trips_table),
            bad_beat=(
                rules.paytable(game.bad_beat_table) if game.bad_beat_table is not None else None
            ),
        )

    # -- the engine protocol -----------------------------------------------------------------------

    def initial(self) -> UltimateState:
        """A table just set up: round 1, betting, no bank."""
        return UltimateState()

    def transitions(self) -> Mapping[type[Any], Transition[UltimateState]]:
        """The inputs this game takes besides `bank` and `wager`."""
        return {BetsClose: self.bets_close, ShufflerStack: self.stack, Decision: self.decision}

    def no_such_input(self, event: InputEvent) -> Rejected:
        """Any other input is refused."""
        return Rejected(
            f"Ultimate Texas Hold'em has no {event.type!r} input: its cards come from the hand "
            "dispenser as shuffler.stack",
            rule="003 line 3489",
        )

    def in_deal(self, state: UltimateState) -> bool:
        """Whether stacks are being dispensed: a device fault now would leave a half-dealt
        round. Decisions come from the console, so a fault after the last stack holds nothing."""
        return state.phase == "dealing"

    def state_payload(self, state: UltimateState) -> dict[str, JsonValue]:
        """What the retained `state` shows: never a hole card or an unturned community card."""
        nxt = self.next_stack(state) if state.phase == "dealing" else None
        return {
            "game": GAME_ID,
            "round": state.round,
            "phase": state.phase,
            "player_dealer": player_dealer_view(state.bank_seat, state.bank, state.rotation),
            "bank_offer_seat": state.rotation.offer_seat(self.seats),
            "wagers": [w.payload() for w in state.wagers],
            "plays": [p.payload() for p in state.plays],
            "total_action": fmt(total_table_action(w.amount for w in state.wagers)),
            "deck": state.deck,
            # the next round must not use it
            # (003 "Ultimate Texas Hold'em: Description of the Deck and Number of Decks Used")
            "last_deck": state.last_deck,
            "hands": [s.seat for s in state.stacks if s.to == "seat"],
            "folded": list(state.folded),
            "board": [str(c) for c in state.board()[: BOARD_SHOWN[state.phase]]],
            "next_stack": (None if nxt is None else {"to": nxt[0], "seat": nxt[1], "size": nxt[2]}),
            "to_act": self.to_act(state),
        }

    # -- bank (R1, R5) -----------------------------------------------------------------------------

    def verify_bank(self, state: UltimateState, ev: Bank) -> None:
        """R1/R5: a bank is posted before the deal, by a seat the rotation allows."""
        verify_bank_before_deal(
            state.phase == "betting", state.rotation, ev, self.seats, state.wagers
        )

    # -- wagers ------------------------------------------------------------------------------------
    # 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play", "Trips Bonus Bet",
    # "Bad Beat Bonus Bet"; limits

    def verify_wager(self, state: UltimateState, ev: Wager) -> None:
        """A pre-deal wager: Ante, an equal Blind, then Trips and (where offered) Bad Beat."""
        verify_seat(ev.seat, self.seats)
        if state.phase != "betting":
            raise Rejected("no more bets: betting is closed for this round", rule="003 line 3482")
        verify_not_player_dealer(ev, state.bank_seat)
        if ev.player is not None and ev.player != default_player(ev.seat):
            raise Rejected(
                f"backline betting is not permitted: player {ev.player} cannot wager on "
                f"seat {ev.seat}",
                rule="003 line 3476",
            )
        if ev.spot == "play":
            raise Rejected(
                "the Play wager is made by a bet decision after the deal, not before it",
                rule="003 line 3496",
            )
        spots = self.wager_spots()
        if ev.spot not in spots:
            raise Rejected(
                f"no wager {ev.spot!r} at this table; spots before the deal: " + ", ".join(spots),
                rule="004 line 947" if ev.spot == "bad-beat" else "003 line 3477",
            )
        player = player_of(ev)
        if ev.spot == "blind":
            ante = staked(state.wagers, ev.seat, "ante")
            blind = staked(state.wagers, ev.seat, "blind") + ev.amount
            if blind != ante:
                raise Rejected(
                    f"the Blind must equal the Ante: seat {ev.seat} has an Ante of {fmt(ante)} "
                    f"and the Blind would be {fmt(blind)}",
                    rule="003 line 3478",
                )
        if ev.spot in BONUS_SPOTS and not (
            has_wager(state.wagers, ev.seat, player, ("ante",))
            and has_wager(state.wagers, ev.seat, player, ("blind",))
        ):
            name = "Trips" if ev.spot == "trips" else "Bad Beat"
            raise Rejected(
                f"a {name} Bonus Bet needs an Ante and a Blind wager first",
                rule="003 line 3581" if ev.spot == "trips" else "003 line 3602",
            )
        verify_limits(self.limits, state.wagers, ev)

    def wager_spots(self) -> tuple[str, ...]:
        """The pre-deal spots of this table: the Bad Beat only where a table is configured."""
        if self.tables.bad_beat is None:
            return tuple(s for s in PRE_DEAL_SPOTS if s != "bad-beat")
        return PRE_DEAL_SPOTS

    # -- closing bets (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play") ---------

    def verify_bets_close(self, state: UltimateState) -> None:
        """No more bets: a bank is posted and every seat's Ante equals its Blind
        (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")."""
        verify_bets_open(state.phase == "betting", state.bank_seat, "003 line 3482")
        for seat in sorted({w.seat for w in state.wagers}):
            ante = staked(state.wagers, seat, "ante")
            blind = staked(state.wagers, seat, "blind")
            if ante != blind:
                raise Rejected(
                    f"seat {seat} has an Ante of {fmt(ante)} and a Blind of {fmt(blind)}: "
                    "they must be equal before the deal",
                    rule="003 line 3478",
                )

    def bets_close(
        self, state: UltimateState, ev: BetsClose, ts: str
    ) -> tuple[UltimateState, list[GameRecord]]:
        """Close betting; the seats to be dealt are fixed now."""
        self.verify_bets_close(state)
        new = self._closed(state)
        return new, [event_msg(ev, ts, round=state.round), self._state(new)]

    def _closed(self, state: UltimateState) -> UltimateState:
        assert state.bank_seat is not None
        wagered = {w.seat for w in state.wagers if w.spot == "ante"}
        hands_for = tuple(s for s in self.deal_order(state.bank_seat) if s in wagered)
        return replace(state, phase="dealing", hands_for=hands_for)

    # -- stacks (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play") ---------------

    def next_stack(self, state: UltimateState) -> tuple[To, int | None, int] | None:
        """Where the next stack goes and its size: each dealt seat's two cards in deal order,
        then the player-dealer's two, then the five community cards
        (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")."""
        if state.phase == "betting":
            if state.bank_seat is None:
                return None
            state = self._closed(state)
        if state.phase != "dealing":
            return None
        n = len(state.stacks)
        if n < len(state.hands_for):
            return ("seat", state.hands_for[n], HAND_SIZE)
        if n == len(state.hands_for):
            return ("player-dealer", state.bank_seat, HAND_SIZE)
        return ("board", None, BOARD_SIZE)

    def verify_stack(
        self, state: UltimateState, ev: ShufflerStack
    ) -> tuple[To, int | None, tuple[Card, ...]]:
        """Where the stack goes and its cards, or why it cannot be dealt now."""
        if state.phase == "betting":
            self.verify_bets_close(state)  # the first stack closes betting (contract 2)
        elif state.phase != "dealing":
            raise Rejected(
                "every stack of this round has been dealt: two to each seat, two to the "
                "player-dealer and the five community cards",
                rule="003 line 3489",
            )
        nxt = self.next_stack(state)
        assert nxt is not None  # betting with a bank, or dealing
        to, seat, size = nxt
        where = "the community cards" if to == "board" else f"{to} {seat}"
        if len(ev.cards) != size:
            raise Rejected(
                f"a stack of {len(ev.cards)} cards cannot be dealt: {where} takes {size}",
                rule="003 line 3490" if to != "board" else "003 line 3492",
            )
        # One deck a round, the two decks alternating (003 "Ultimate Texas Hold'em: Description of
        # the Deck and Number of Decks Used"); a stack without a colour is not checked.
        verify_deck_colour(
            ev.deck,
            state.deck,
            state.last_deck,
            one_deck_rule="003 line 3428",
            alternate_rule="003 line 3428",
        )
        cards = tuple(parse_card(c) for c in ev.cards)
        verify_single_deck(
            cards, state.dealt(), ONE_DECK, foreign_rule="003 line 3423", twice_rule="003 line 3424"
        )
        return to, seat, cards

    def can_stack(self, state: UltimateState, ev: ShufflerStack) -> bool:
        """Whether `verify_stack` accepts."""
        return can(self.verify_stack, state, ev)

    def stack(
        self, state: UltimateState, ev: ShufflerStack, ts: str
    ) -> tuple[UltimateState, list[GameRecord]]:
        """Deal one stack face down; after the board, the pre-flop decisions begin."""
        to, seat, cards = self.verify_stack(state, ev)
        if state.phase == "betting":
            state = self._closed(state)
        new = replace(
            state,
            stacks=(*state.stacks, Stack(to, seat, cards)),
            deck=state.deck if state.deck is not None else ev.deck,
        )
        extra: dict[str, JsonValue] = {"to": to}
        if seat is not None:
            extra["seat"] = seat
        revealed: dict[str, JsonValue] = {}
        finished: list[GameRecord] = []
        if to == "board":
            new, revealed, finished = self._advance(replace(new, phase="preflop"))
        if revealed:
            extra["revealed"] = revealed
        # Every card is dealt face down (003 "Ultimate Texas Hold'em: Dealing Procedures and Round
        # of Play"): the echo names where the stack went.
        echo = event_msg(ev, ts, hide={"cards"}, round=state.round, size=len(cards), **extra)
        return new, [echo, *finished, self._state(new)]

    # -- decisions (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play") ------------

    def to_act(self, state: UltimateState) -> int | None:
        """The seat whose decision is due on this street, in deal order, or None."""
        if state.phase not in STREETS:
            return None
        for seat in state.hands_for:
            if seat in state.folded or seat in state.acted or state.play_of(seat):
                continue
            return seat
        return None

    def verify_decision(self, state: UltimateState, ev: Decision) -> Decimal | None:
        """The Play wager a decision makes (None for check and fold), or why it is refused."""
        verify_seat(ev.seat, self.seats)
        if ev.action not in ("bet", "check", "fold"):
            raise Rejected(
                f"no decision {ev.action!r} in Ultimate Texas Hold'em: bet (with multiple), "
                "check or fold",
                rule="contract 2",
            )
        street = street_of(state.phase)
        if street is None:
            raise Rejected("decisions come after every stack has been dealt", rule="003 line 3496")
        if ev.seat not in state.hands_for:
            raise Rejected(f"seat {ev.seat} has no hand this round", rule="003 line 3490")
        if state.play_of(ev.seat):
            raise Rejected(
                f"seat {ev.seat} has made its Play wager: once a player bets, they cannot bet "
                "again and cannot change the bet",
                rule="003 line 3496",
            )
        if ev.seat in state.folded:
            raise Rejected(f"seat {ev.seat} has folded", rule="003 line 3501")
        due = self.to_act(state)
        if ev.seat != due:
            start = "house dealer" if self.deal_from == "house-dealer-left" else "player-dealer"
            raise Rejected(
                f"seat {ev.seat} is out of turn: seat {due} decides first on this street "
                f"(clockwise from the {start}'s left)",
                rule="003 line 3483",
            )
        if ev.low is not None or ev.hand not in (None, 1):
            raise Rejected(
                "an Ultimate Texas Hold'em decision names no low hand and no second hand",
                rule="contract 2",
            )
        if ev.action not in ACTIONS[street]:
            allowed = " or ".join(ACTIONS[street])
            raise Rejected(
                f"no {ev.action} on the {street}: a player may {allowed}",
                rule=STREET_LINE[street],
            )
        if ev.action != "bet":
            if ev.multiple is not None or ev.amount is not None:
                raise Rejected(f"a {ev.action} makes no Play wager", rule=STREET_LINE[street])
            return None
        allowed_multiples = MULTIPLES[street]
        sizes = " or ".join(f"{m}x" for m in allowed_multiples)
        if ev.multiple is None:
            raise Rejected(
                f"a bet names its multiple of the Ante: {sizes} on the {street}",
                rule=STREET_LINE[street],
            )
        if ev.multiple not in allowed_multiples:
            raise Rejected(
                f"a Play wager of {ev.multiple}x the Ante cannot be made on the {street}: "
                f"{sizes} only",
                rule=STREET_LINE[street],
            )
        amount = staked(state.wagers, ev.seat, "ante") * ev.multiple
        if ev.amount is not None and ev.amount != amount:
            raise Rejected(
                f"a {ev.multiple}x Play wager on an Ante of "
                f"{fmt(staked(state.wagers, ev.seat, 'ante'))} is {fmt(amount)}, "
                f"not {fmt(ev.amount)}",
                rule=STREET_LINE[street],
            )
        return amount

    def can_decision(self, state: UltimateState, ev: Decision) -> bool:
        """Whether `verify_decision` accepts."""
        return can(self.verify_decision, state, ev)

    def decision(
        self, state: UltimateState, ev: Decision, ts: str
    ) -> tuple[UltimateState, list[GameRecord]]:
        """Bet, check or fold; when the street is done the board is turned over (003 "Ultimate Texas
        Hold'em: Dealing Procedures and Round of Play") and after the river the round settles."""
        amount = self.verify_decision(state, ev)
        extra: dict[str, JsonValue] = {"round": state.round, "street": state.phase}
        if ev.action == "bet":
            assert amount is not None and ev.multiple is not None
            street = street_of(state.phase)
            assert street is not None
            play = Play(ev.seat, default_player(ev.seat), street, ev.multiple, amount)
            new = replace(state, plays=(*state.plays, play))
            extra["amount"] = fmt(amount)
        elif ev.action == "check":
            new = replace(state, acted=(*state.acted, ev.seat))
        else:
            new = replace(state, folded=(*state.folded, ev.seat))
        new, revealed, finished = self._advance(new)
        if revealed:
            extra["revealed"] = revealed
        return new, [InputAccepted(ev, ts, extra), *finished, self._state(new)]

    def _advance(
        self, state: UltimateState
    ) -> tuple[UltimateState, dict[str, JsonValue], list[GameRecord]]:
        """Move on while nobody is due to decide: turn the flop
        (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"), then the turn and
        river (line 3499), then settle (line 3508). Returns what was turned over."""
        revealed: dict[str, JsonValue] = {}
        board = state.board()
        while state.phase in STREETS and self.to_act(state) is None:
            if state.phase == "preflop":
                state = replace(state, phase="flop", acted=())
                revealed["flop"] = [str(c) for c in board[:FLOP_SIZE]]
            elif state.phase == "flop":
                state = replace(state, phase="river", acted=())
                revealed["turn"] = str(board[3])
                revealed["river"] = str(board[4])
            else:
                settled, finished = self._finish(state)
                return settled, revealed, finished
        return state, revealed, []

    # -- the end of a round ------------------------------------------------------------------------
    # R1, R4, R35; 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"
    # to "Bad Beat Bonus Bet Payout Table" (tablectl/games/ultimate/settlement.py)

    def _finish(self, state: UltimateState) -> tuple[UltimateState, list[GameRecord]]:
        assert state.bank_seat is not None
        seat_order = seats_from_left(state.bank_seat, self.seats)
        verdicts, outcome = settle(state, self.at_stake(state), seat_order, self.tables)
        new, result = self.settled(
            state,
            verdicts,
            outcome,
            # R4: total table action is the pre-deal wagers only, never the Play; chips added to
            # one circle are charged as one wager (collection_fees).
            fee_wagers=state.wagers,
            action_seat=first_wagered(seat_order, state.wagers),
        )
        return new, [result]

    # -- the round's end: what is Ultimate Texas Hold'em's own (the walk: RoundEnd) --------------

    def at_stake(self, state: UltimateState) -> list[PlacedWager]:
        """Every wager of the round, the pre-deal wagers (a player's chips in a circle are one
        wager, `merged`) and the Plays: what settles, and what a misdeal returns."""
        return [*merged(state.wagers), *(p.wager() for p in state.plays)]

    def exposed(self, state: UltimateState, settled: bool) -> list[JsonObject]:
        """At the showdown every stack but a folded hand's (it shows no card) and the
        player-dealer's when no player remains (003 "Ultimate Texas Hold'em: Dealing Procedures
        and Round of Play"). A misdeal shows only the community cards already turned over."""
        if not settled:
            shown = state.board()[: BOARD_SHOWN[state.phase]]
            return [{"to": "board", "cards": [str(c) for c in shown]}] if shown else []
        folded = set(state.folded)
        shows_dealer = dealer_shown(state)
        return [
            s.payload()
            for s in state.stacks
            if not (s.to == "seat" and s.seat in folded)
            and not (s.to == "player-dealer" and not shows_dealer)
        ]

    def headers(self, state: UltimateState) -> RoundHeaders:
        """The round's deck colour (null when the dispenser named none), published after `dealt`
        as it always was."""
        return RoundHeaders(deck=Deck(state.deck, after_dealt=True))

    def next_round(self, state: UltimateState, settled: bool) -> UltimateState:
        """The next round, the rotation moved on after a settled round only (R5); the deck used
        is the last deck, which the next round must not use: a round that dealt used its deck,
        named or not, a misdeal's too
        (003 "Ultimate Texas Hold'em: Description of the Deck and Number of Decks Used")."""
        return UltimateState(
            round=state.round + 1,
            rotation=self.rotation_after(state, settled),
            last_deck=deck_after_round(state.deck, settled or bool(state.stacks), state.last_deck),
        )

    # -- order (R2, R3; 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play") --------

    def deal_order(self, bank_seat: int) -> list[int]:
        """Seats in the order stacks are handed out and decisions asked, the player-dealer's
        left out: from the house dealer's left (003 "Ultimate Texas Hold'em: Dealing Procedures and
        Round of Play") or the player-dealer's (config)."""
        if self.deal_from == "house-dealer-left":
            order = seats_from(1, self.seats)
        else:
            order = seats_from_left(bank_seat, self.seats)
        return [s for s in order if s != bank_seat]

    def in_settlement_order(self, state: UltimateState, wagers: Sequence[W]) -> list[W]:
        """Wagers (or the verdicts on them) in settlement order: from the player-dealer's left
        (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play", R2), seat by seat in
        the order Ante, Play, Blind, Trips, Bad Beat (003 "Ultimate Texas Hold'em: Dealing
        Procedures and Round of Play") unless the config settles spot by spot (R3)."""
        assert state.bank_seat is not None
        return action_order(
            wagers,
            seats_from_left(state.bank_seat, self.seats),
            SETTLEMENT_SPOTS,
            self.settlement_order,
        )
