"""Fortune Pai Gow Poker (003 "Fortune Pai Gow Poker", 004 "Fortune Pai Gow Poker"; R1-R5, R30-R32)
as a pure engine.

A round: the player-dealer posts a bank, players place game (`base`) and Fortune Bonus wagers,
betting closes, the dice name the position that receives the first 7-card hand (R30), the hand
dispenser delivers seven stacks of seven cards clockwise from there, every seat with a game wager
sets its hand (or asks for the house way), and once all have set the player-dealer's hand is
exposed, set by the house way (R31) and every wager is settled against the bank (R1): seat by
seat from the Action button, game wager, Fortune, Envy
(003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"). The hands' rules (ranks, fouls,
the house way, the Fortune categories) are `tablectl.rules.pai_gow`'s; this module keeps the round.
Every transition has a `verify_*` that raises Rejected and leaves the state alone.

Nothing of any hand is published before the showdown (DESIGN contract 3): stacks are echoed
without their cards, a player's chosen low hand is echoed without its cards, and hands that went
to seats without a game wager are discarded unseen
(003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play") and never published at all.

This module takes the inputs; the round's state is `state.py`'s, the showdown and its verdicts
`settlement.py`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from tablectl.game_records import Deck, GameRecord, JsonObject, JsonValue, RoundHeaders
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
    player_dealer_view,
    player_of,
    verify_bank_before_deal,
    verify_bets_open,
    verify_limits,
    verify_not_player_dealer,
    verify_seat,
)
from tablectl.games.decks import deck_after_round, verify_single_deck
from tablectl.games.pai_gow.settlement import settle
from tablectl.games.pai_gow.spec import FortunePaiGowGame
from tablectl.games.pai_gow.state import (
    ACTIONS,
    DECK,
    DICE,
    GAME_ID,
    POSITIONS,
    SETTLEMENT_SPOTS,
    STACK_SIZE,
    WAGER_SPOTS,
    PaiGowState,
    Setting,
    button_seat,
    position_seat,
)
from tablectl.games.seating import action_order, first_wagered, seats_from, seats_from_left
from tablectl.games.table_rules import Rules
from tablectl.rules import pai_gow as hands
from tablectl.rules.fees import total_table_action
from tablectl.rules.paytables import PayTable
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import (
    Bank,
    BetsClose,
    Decision,
    DiceRoll,
    InputEvent,
    ShufflerStack,
    Wager,
)
from tablectl_base.money import fmt


class PaiGowEngine(PlayerDealerEngine[PaiGowState]):
    """The rules of Fortune Pai Gow Poker for one configured table."""

    game_id = GAME_ID

    def __init__(self, rules: Rules) -> None:
        game = rules.game
        assert isinstance(game, FortunePaiGowGame)
        if rules.seats.count != POSITIONS:
            raise ValueError(
                "Fortune Pai Gow Poker deals seven hands to seven positions (R30, 003 "
                '"Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated '
                f'Players"): seats.count must be {POSITIONS}, not {rules.seats.count}'
            )
        self.rules = rules
        self.seats = POSITIONS
        self.paytable: PayTable = rules.paytable(game.fortune_table)  # as journaled
        self.envy_minimum = game.envy_minimum
        self.house_way: hands.HouseWay = game.house_way  # R31: 003 or 004's chart
        self.settlement_order = game.settlement_order
        self.limits, self.schedule = rules.banked()

    # -- the engine protocol -------------------------------------------------------------

    def initial(self) -> PaiGowState:
        """A table just set up: round 1, betting, no bank."""
        return PaiGowState()

    def transitions(self) -> Mapping[type[Any], Transition[PaiGowState]]:
        """The inputs this game takes besides `bank` and `wager`."""
        return {
            BetsClose: self.bets_close,
            DiceRoll: self.dice_roll,
            ShufflerStack: self.stack,
            Decision: self.decision,
        }

    def no_such_input(self, event: InputEvent) -> Rejected:
        """Any other input is refused."""
        return Rejected(
            f"Fortune Pai Gow Poker has no {event.type!r} input: hands come from the hand "
            "dispenser as shuffler.stack (003 line 1407)",
            rule="003 line 1407",
        )

    def in_deal(self, state: PaiGowState) -> bool:
        """The dice are due or the hands are being dispensed: a device fault now holds the round.
        Once all seven hands are out, the settings come from the console and a fault of the
        dispenser (shuffling the next deck) or the dice cup holds nothing."""
        return state.phase in ("closed", "dealing")

    def state_payload(self, state: PaiGowState) -> dict[str, JsonValue]:
        """The retained `state`: no card at all, since no hand is exposed before the showdown,
        which ends the round (contract 3)."""
        in_play = self.in_play(state)
        dealt = [s for s, _ in state.hands]
        button = (
            button_seat(state.first_seat, state.bank_seat)
            if state.first_seat is not None and state.bank_seat is not None
            else None
        )
        return {
            "game": GAME_ID,
            "round": state.round,
            "phase": state.phase,
            "player_dealer": player_dealer_view(state.bank_seat, state.bank, state.rotation),
            "bank_offer_seat": state.rotation.offer_seat(self.seats),
            "wagers": [w.payload() for w in state.wagers],
            "total_action": fmt(total_table_action(w.amount for w in state.wagers)),
            "envy_buttons": [
                {"seat": w.seat, "player": w.player} for w in self.envy_buttons(state.wagers)
            ],
            "dice": list(state.dice) or None,
            "first_seat": state.first_seat,
            "button_seat": button,
            "hands_dealt": dealt,
            "in_play": in_play,
            "awaiting_setting": (
                [s for s in in_play if state.setting(s) is None] if state.phase == "setting" else []
            ),
            "deck": state.deck,
            "last_deck": state.last_deck,  # the last round's deck: one deck, reshuffled (1485)
        }

    # -- bank (R1, R5) -----------------------------------------------------------------------

    def verify_bank(self, state: PaiGowState, ev: Bank) -> None:
        """R1/R5: a bank is posted before the deal by a seat the rotation allows."""
        verify_bank_before_deal(
            state.phase == "betting", state.rotation, ev, self.seats, state.wagers
        )

    # -- wagers ------------------------------------------------------------------------------------
    # 003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated Players",
    # "Dealing Procedures and Round of Play", "Fortune Bonus Bet", "Envy Bonus"

    def verify_wager(self, state: PaiGowState, ev: Wager) -> None:
        """A game or Fortune wager before the deal, within the limits; a Fortune needs the same
        player's game wager at the seat (003 "Fortune Pai Gow Poker: Fortune Bonus Bet"); backline
        betting is allowed (003 "Fortune Pai Gow Poker: Description of Table Used and Total Number
        of Seated Players"); the Envy is no wager (R32)."""
        verify_seat(ev.seat, self.seats)
        if state.phase != "betting":
            raise Rejected(
                "no more bets: wagers are placed before the deal (003 line 1491)",
                rule="003 line 1491",
            )
        verify_not_player_dealer(ev, state.bank_seat)
        if ev.spot == "envy":
            raise Rejected(
                "the Envy Bonus is not a wager: a seated player's Fortune Bonus Bet of "
                f"{fmt(self.envy_minimum)} or more earns its Envy button (R32, 003 line 1507)",
                rule="R32",
            )
        if ev.spot not in WAGER_SPOTS:
            raise Rejected(
                f"no wager {ev.spot!r} in Fortune Pai Gow Poker; spots: " + ", ".join(WAGER_SPOTS),
                rule="003 line 1421",
            )
        if ev.spot == "fortune" and not has_wager(state.wagers, ev.seat, player_of(ev), ["base"]):
            raise Rejected(
                "a Fortune Bonus Bet needs the same player's Fortune Pai Gow Poker game wager "
                "at the seat first (003 line 1491)",
                rule="003 line 1491",
            )
        verify_limits(self.limits, state.wagers, ev)

    def wager(self, state: PaiGowState, ev: Wager, ts: str) -> tuple[PaiGowState, list[GameRecord]]:
        """Place a wager; more on a spot the player already holds adds to that one wager (one
        designated area per seat and wager, 003 "Fortune Pai Gow Poker: Fortune Bonus Bet")."""
        self.verify_wager(state, ev)
        player = player_of(ev)
        key = (ev.seat, player, ev.spot)
        if any((w.seat, w.player, w.spot) == key for w in state.wagers):
            wagers = tuple(
                replace(w, amount=w.amount + ev.amount) if (w.seat, w.player, w.spot) == key else w
                for w in state.wagers
            )
        else:
            wagers = (*state.wagers, PlacedWager(ev.seat, player, ev.spot, ev.amount))
        new = replace(state, wagers=wagers)
        return new, [event_msg(ev, ts, round=state.round, player=player), self._state(new)]

    # -- closing bets, the dice (R30) ----------------------------------------------------------

    def verify_bets_close(self, state: PaiGowState) -> None:
        """Betting closes once (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play":
        bets are put up before the hand), after a bank is posted (R1)."""
        verify_bets_open(state.phase == "betting", state.bank_seat, "003 line 1421")

    def bets_close(
        self, state: PaiGowState, ev: BetsClose, ts: str
    ) -> tuple[PaiGowState, list[GameRecord]]:
        """No more bets (contract 2)."""
        self.verify_bets_close(state)
        new = replace(state, phase="closed")
        return new, [event_msg(ev, ts, round=state.round), self._state(new)]

    def verify_dice(self, state: PaiGowState, dice: Sequence[int]) -> int:
        """The seat receiving the first hand, or why this reading cannot be used (R30: three
        standard dice, 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"); the roll
        closes betting if it is still open."""
        if state.phase == "betting":
            self.verify_bets_close(state)
        elif state.phase != "closed":
            raise Rejected(
                "the dice have already named this round's first position (R30)", rule="R30"
            )
        if len(dice) != DICE or any(not 1 <= d <= 6 for d in dice):
            raise Rejected(
                f"a reading of {len(dice)} dice {list(dice)}: the dice cup holds three standard "
                "dice, each 1 to 6 (R30, 003 line 1417); shake again",
                rule="R30",
            )
        assert state.bank_seat is not None
        return position_seat(sum(dice), state.bank_seat)

    def can_dice(self, state: PaiGowState, dice: Sequence[int]) -> bool:
        """Whether `verify_dice` accepts."""
        return can(self.verify_dice, state, dice)

    def dice_roll(
        self, state: PaiGowState, ev: DiceRoll, ts: str
    ) -> tuple[PaiGowState, list[GameRecord]]:
        """R30: the sum names the position of the first hand and the Action button."""
        first = self.verify_dice(state, ev.dice)
        assert state.bank_seat is not None
        new = replace(state, phase="dealing", dice=tuple(ev.dice), first_seat=first)
        echo = event_msg(
            ev,
            ts,
            round=state.round,
            total=sum(ev.dice),
            first_seat=first,
            button_seat=button_seat(first, state.bank_seat),
        )
        return new, [echo, self._state(new)]

    # -- the hands (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play") -------------

    def verify_stack(self, state: PaiGowState, ev: ShufflerStack) -> tuple[int, list[Card]]:
        """The seat the stack goes to and its cards, or why it cannot be dealt now: seven cards
        of the one 53-card deck (003 "Fortune Pai Gow Poker: Description of the Deck and Number of
        Decks Used", "Dealing Procedures and Round of Play"), none seen before this round, all of
        the round from that one deck (the same colour every round: it is reshuffled, line 1485)."""
        if state.phase in ("betting", "closed"):
            raise Rejected(
                "roll the dice first: they name the position that receives the first hand (R30)",
                rule="R30",
            )
        if state.phase != "dealing":
            raise Rejected(
                "all seven hands of this round are already dealt (003 line 1409)",
                rule="003 line 1409",
            )
        if len(ev.cards) != STACK_SIZE:
            raise Rejected(
                f"a stack of {len(ev.cards)} cards: every Fortune Pai Gow Poker hand is seven "
                "cards (003 line 1409); call a misdeal",
                rule="003 line 1409",
            )
        cards = [parse_card(c) for c in ev.cards]
        verify_single_deck(
            cards,
            (c for _, hand in state.hands for c in hand),
            DECK,
            foreign_rule="003 line 1369",
            twice_rule="003 line 1369",
        )
        if ev.deck is not None and state.deck is not None and ev.deck != state.deck:
            raise Rejected(
                f"a stack from the {ev.deck} deck in a round dealt from the {state.deck} "
                "deck: a round uses one deck (003 line 1369)",
                rule="003 line 1369",
            )
        assert state.first_seat is not None
        return seats_from(state.first_seat, self.seats)[len(state.hands)], cards

    def can_stack(self, state: PaiGowState, ev: ShufflerStack) -> bool:
        """Whether `verify_stack` accepts."""
        return can(self.verify_stack, state, ev)

    def stack(
        self, state: PaiGowState, ev: ShufflerStack, ts: str
    ) -> tuple[PaiGowState, list[GameRecord]]:
        """One hand, to the next position clockwise from the dice's (003 "Fortune Pai Gow Poker:
        Dealing Procedures and Round of Play"); the echo says where it went, never what it holds."""
        seat, cards = self.verify_stack(state, ev)
        hands_now = (*state.hands, (seat, tuple(cards)))
        new = replace(
            state,
            hands=hands_now,
            deck=state.deck if state.deck is not None else ev.deck,
            phase="setting" if len(hands_now) == self.seats else "dealing",
        )
        in_play = seat == state.bank_seat or seat in self.in_play(state)
        echo = event_msg(
            ev,
            ts,
            hide={"cards"},
            round=state.round,
            to=seat,
            position=len(hands_now),
            in_play=in_play,
        )
        out: list[GameRecord] = [echo]
        if new.phase == "setting" and self._all_set(new):
            new, finished = self._finish(new)
            out += finished
        out.append(self._state(new))
        return new, out

    # -- setting the hands -------------------------------------------------------------------------
    # R31, 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"
    # to "Fortune Pai Gow Poker House Way"

    def verify_decision(self, state: PaiGowState, ev: Decision) -> Setting:
        """The seat's setting, or why it is refused: only once every hand is dealt, only by a
        seat with a game wager, once, and never foul (R31,
        003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")."""
        verify_seat(ev.seat, self.seats)
        if state.phase != "setting":
            raise Rejected(
                "hands are set once all seven hands are dealt (003 line 1425)",
                rule="003 line 1425",
            )
        if ev.seat == state.bank_seat:
            raise Rejected(
                "the player-dealer's hand is set by the house way once every player has set "
                "(R31, 003 line 1427)",
                rule="R31",
            )
        if ev.seat not in self.in_play(state):
            raise Rejected(
                f"seat {ev.seat} has no hand: it has no game wager, so its cards were discarded "
                "(003 line 1419)",
                rule="003 line 1419",
            )
        if state.setting(ev.seat) is not None:
            raise Rejected(f"seat {ev.seat} has already set its hand", rule="003 line 1425")
        if ev.action not in ACTIONS:
            raise Rejected(
                f"no decision {ev.action!r} in Fortune Pai Gow Poker: a player sets the hand "
                "(set, with the two cards of the low hand) or asks for the house way "
                "(house-way) (003 line 1425)",
                rule="003 line 1425",
            )
        if ev.hand is not None or ev.amount is not None or ev.multiple is not None:
            raise Rejected(
                "a Pai Gow setting takes only the low hand's cards (contract 2)",
                rule="contract 2",
            )
        seven = state.hand(ev.seat)
        if ev.action == "house-way":
            if ev.low is not None:
                raise Rejected(
                    "house-way sets the hand by the house way: give no low hand (003 line 1425)",
                    rule="003 line 1425",
                )
            high, low = hands.house_way(seven, way=self.house_way)
            return Setting(ev.seat, tuple(high), tuple(low), "house-way")
        chosen = [parse_card(c) for c in ev.low or ()]
        if len(chosen) != 2 or len(set(chosen)) != 2 or any(c not in seven for c in chosen):
            raise Rejected(
                f"the low hand must be two different cards of seat {ev.seat}'s seven "
                "(003 line 1425)",
                rule="003 line 1425",
            )
        try:
            high, low = hands.verify_setting(seven, chosen)
        except hands.SettingError as exc:
            raise Rejected(
                f"seat {ev.seat}'s setting fouls: the five-card hand must rank higher than the "
                "two-card hand (R31, 003 line 1425)",
                rule="R31",
            ) from exc
        return Setting(ev.seat, tuple(high), tuple(low), "player")

    def can_decision(self, state: PaiGowState, ev: Decision) -> bool:
        """Whether `verify_decision` accepts."""
        return can(self.verify_decision, state, ev)

    def decision(
        self, state: PaiGowState, ev: Decision, ts: str
    ) -> tuple[PaiGowState, list[GameRecord]]:
        """A seat's setting; the last one brings the showdown
        (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"). The echo never shows
        the low hand's cards: the hands are face down until then."""
        setting = self.verify_decision(state, ev)
        new = replace(state, settings=(*state.settings, setting))
        out: list[GameRecord] = [event_msg(ev, ts, hide={"low"}, round=state.round)]
        if self._all_set(new):
            new, finished = self._finish(new)
            out += finished
        out.append(self._state(new))
        return new, out

    # -- the showdown and settlement (tablectl/games/pai_gow/settlement.py) ------------------------

    def _finish(self, state: PaiGowState) -> tuple[PaiGowState, list[GameRecord]]:
        seat_order = self._seat_order(state)
        in_play = [s for s in seat_order if s in self.in_play(state)]
        verdicts, outcome = settle(
            state, in_play, self.envy_buttons(state.wagers), self.paytable, self.house_way
        )
        new, result = self.settled(
            state,
            verdicts,
            outcome,
            fee_wagers=state.wagers,  # R4: game and Fortune wagers; the Envy is no wager
            action_seat=first_wagered(seat_order, state.wagers),
        )
        return new, [result]

    # -- the round's end: what is Pai Gow's own (the walk: RoundEnd) -------------------------------

    def at_stake(self, state: PaiGowState) -> tuple[PlacedWager, ...]:
        """A misdeal returns every game and Fortune wager (R32: an Envy is no wager)."""
        return state.wagers

    def in_settlement_order(self, state: PaiGowState, wagers: Sequence[W]) -> list[W]:
        """Seat by seat from the Action button: game wager, Fortune, Envy (003 "Fortune Pai Gow
        Poker: Dealing Procedures and Round of Play"; R30), or as configured (R3); before the dice
        have placed the button, from the player-dealer's left (R2)."""
        return action_order(
            wagers, self._seat_order(state), SETTLEMENT_SPOTS, self.settlement_order
        )

    def _seat_order(self, state: PaiGowState) -> list[int]:
        """Seats clockwise from the Action button (R30), or from the player-dealer's left (R2)
        while the dice have not placed it."""
        assert state.bank_seat is not None
        if state.first_seat is None:
            return seats_from_left(state.bank_seat, self.seats)
        return seats_from(button_seat(state.first_seat, state.bank_seat), self.seats)

    def exposed(self, state: PaiGowState, settled: bool) -> list[JsonObject]:
        """At the showdown, the hands in play and the player-dealer's; the others were discarded
        unseen (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"). A misdeal
        exposed no hand, so none is published (the journal keeps them)."""
        if not settled:
            return []
        assert state.bank_seat is not None
        return _dealt(state, {state.bank_seat, *self.in_play(state)})

    def headers(self, state: PaiGowState) -> RoundHeaders:
        """The round's deck colour (null when the dispenser named none), published after `dealt`
        as it always was."""
        return RoundHeaders(deck=Deck(state.deck, after_dealt=True))

    def next_round(self, state: PaiGowState, settled: bool) -> PaiGowState:
        """The next round, the rotation moved on after a settled round only (R5); the last
        round's deck, for the record: one deck, reshuffled
        (003 "Fortune Pai Gow Poker: How Winners are Determined and Paid"), used once dealt from."""
        return PaiGowState(
            round=state.round + 1,
            rotation=self.rotation_after(state, settled),
            last_deck=deck_after_round(state.deck, settled or bool(state.hands), state.last_deck),
        )

    # -- who plays --------------------------------------------------------------------------

    def in_play(self, state: PaiGowState) -> list[int]:
        """Seats with a game wager (anyone's, backline included), in seat order: their hands are
        played; the others are discarded unseen
        (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")."""
        return sorted({w.seat for w in state.wagers if w.spot == "base"})

    def envy_buttons(self, wagers: Iterable[PlacedWager]) -> list[PlacedWager]:
        """R32: one Envy button per Fortune wager of at least `envy_minimum` placed by the seat's
        own (seated) player; backline players get none (003 "Fortune Pai Gow Poker: Envy Bonus")."""
        return [
            w
            for w in wagers
            if w.spot == "fortune"
            and w.amount >= self.envy_minimum
            and w.player == default_player(w.seat)
        ]

    # -- helpers -----------------------------------------------------------------------------

    def _all_set(self, state: PaiGowState) -> bool:
        return all(state.setting(s) is not None for s in self.in_play(state))


def _dealt(state: PaiGowState, shown: set[int]) -> list[JsonObject]:
    """The exposed hands in dispense order (in play, and the player-dealer's); the others were
    discarded unseen (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")."""
    return [
        {"to": seat, "position": i + 1, "cards": [str(c) for c in cards]}
        for i, (seat, cards) in enumerate(state.hands)
        if seat in shown
    ]
