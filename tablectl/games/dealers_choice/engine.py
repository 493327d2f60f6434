"""The Dealer's Choice engine, pure: one table (seats, stacks, button, blinds owed, kill), each hand
played by the engine of the game the player on the button chose ("The player located on the
dealer's button is allowed to choose the game to be played for that hand ... The rules for each
game apply. Then the dealer button is rotated, and the game is chosen by the next dealer", 003
"Dealer's Choice").

`hand.start` names the game (`game`, one of those offered); the hand is then the chosen game's
engine's, with that game's limits (tablectl/games/dealers_choice/spec.py), to its end. Between
hands, seats, sitting out and time collections are the poker room's, the same in every game.
Lowball is dealt without the joker here (003 "Lowball" rule 1).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tablectl.game_records import GameRecord, StateChanged
from tablectl.games.base import Rejected
from tablectl.games.poker.engine import VARIANT_OF, PokerEngine, table_settings
from tablectl.games.poker.state import PokerState
from tablectl_base.events import HandStart, InputEvent, RoundVoid

if TYPE_CHECKING:
    from tablectl.games.dealers_choice.spec import DealersChoice
    from tablectl.games.table_rules import Rules

CHOICE = '003 "Dealer\'s Choice"'


class DealersChoiceEngine:
    """The `Engine` of a Dealer's Choice table: one engine per game offered, one table."""

    game_id = "dealers-choice"

    def __init__(self, rules: Rules) -> None:
        from tablectl.games.dealers_choice.spec import DealersChoice

        options = rules.game
        assert isinstance(options, DealersChoice)
        self.options: DealersChoice = options
        self.engines: dict[str, PokerEngine] = {}
        for game in options.games:
            settings = table_settings(rules, VARIANT_OF[game], options.game_options(game))
            # Lowball here is dealt without the joker (003 "Lowball" rule 1); no other game has it
            self.engines[game] = PokerEngine(settings, game, joker=False)
        self.between = self.engines[options.games[0]]  # seats are the same in every game

    # ------------------------------------------------------------------ the Engine protocol

    def initial(self) -> PokerState:
        """An empty table."""
        return PokerState()

    def in_deal(self, state: PokerState) -> bool:
        """A hand is in play."""
        return state.hand is not None

    def between_rounds(self, state: PokerState) -> bool:
        """No hand in play: new rules may take over."""
        return state.hand is None

    def _playing(self, state: PokerState) -> PokerEngine:
        """The engine of the hand in play (the game chosen for it), or the table's between
        hands."""
        if state.hand is None:
            return self.between
        assert state.hand.game is not None
        return self.engines[state.hand.game]

    def verify_hand_start(self, state: PokerState, ev: HandStart) -> None:
        """The button's choice: one of the games offered, named on `hand.start`."""
        offered = ", ".join(self.options.games)
        if ev.game is None:
            raise Rejected(
                f"the player on the button chooses the game: name it (`game`: {offered})",
                rule=CHOICE,
            )
        if ev.game not in self.engines:
            raise Rejected(f"{ev.game} is not offered at this table ({offered})", rule=CHOICE)
        self.engines[ev.game].verify_hand_start(state, ev)

    def apply(
        self, state: PokerState, event: InputEvent, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """A `hand.start` is the chosen game's, and so is every input until the hand ends;
        between hands the table's. Every result ends with this table's `state`."""
        if isinstance(event, HandStart) and state.hand is None:
            self.verify_hand_start(state, event)
            assert event.game is not None
            new, out = self.engines[event.game].apply(state, event, ts)
            assert new.hand is not None
            new = replace(new, hand=replace(new.hand, game=event.game))
        else:
            new, out = self._playing(state).apply(state, event, ts)
        assert out and isinstance(out[-1], StateChanged)
        return new, [*out[:-1], self.state_view(new)]

    def void(self, state: PokerState, reason: str, ts: str) -> tuple[PokerState, list[GameRecord]]:
        """A misdeal of the hand in play: its game's (the same button chooses again)."""
        new, out = self._playing(state).apply(state, RoundVoid(reason=reason), ts)
        return new, [*out[:-1], self.state_view(new)]

    def state_view(self, state: PokerState) -> StateChanged:
        """The playing game's `state`, with the table's game and what it offers."""
        view = self._playing(state).state_view(state)
        hand = state.hand
        extra: dict[str, Any] = {
            "dealers_choice": {
                "games": list(self.options.games),
                "game": None if hand is None else hand.game,
            }
        }
        if hand is None:
            extra["game"] = self.game_id
        return view.with_fields(extra)
