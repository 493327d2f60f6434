"""A Dealer's Choice table's `[game]` options: the poker room's (document, structure, stakes,
blinds, chip, buy-in, kill, collection), the games offered (`games`) and, per game, its own
limits (`[game.limits.<id>]`: "Game-specific limits apply per hand"). Document 003
approves it ("Dealer's Choice"); it posts no collection schedule, so the table gives one (R44)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tablectl.games.poker.spec import CARD_READING_TABLE, PokerGame, StructureName
from tablectl.games.poker.state import DRAW_VARIANTS, STUD_VARIANTS, VARIANTS
from tablectl.games.spec import GameSpec
from tablectl.rules.poker_fees import PokerSchedule
from tablectl_base.money import Money

if TYPE_CHECKING:
    from tablectl.config import TableConfig

OFFERABLE: tuple[str, ...] = (*VARIANTS, *STUD_VARIANTS, *DRAW_VARIANTS)
"""The games document 003 approves that tablectl plays: "Any game offered at Angie's including
variations such as High-Low Split and High-only may be selected" (003 "Dealer's Choice")."""

SHARED = ("id", "games", "limits")
"""Keys of a Dealer's Choice `[game]` that are its own, not the offered games'."""


class GameLimits(BaseModel):
    """One offered game's own limits, each defaulting to the table's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    structure: StructureName | None = None
    stakes: tuple[Money, Money] | None = None
    late_stakes: tuple[Money, Money] | None = None
    blinds: tuple[Money, Money] | None = None


class DealersChoice(PokerGame):
    """Dealer's Choice (003 "Dealer's Choice"): the button chooses each hand's game."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["dealers-choice"]
    games: tuple[str, ...] = Field(min_length=2)
    limits: dict[str, GameLimits] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _offered_games_are_playable(self) -> DealersChoice:
        """Only games tablectl plays, each once; limits only for games offered; and each game
        with its limits is a valid table of that game (its own checks: structure, chips,
        kill)."""
        unknown = [g for g in self.games if g not in OFFERABLE]
        if unknown:
            raise ValueError(
                f"games: {', '.join(unknown)} cannot be offered; the games are "
                + ", ".join(OFFERABLE)
            )
        if len(set(self.games)) != len(self.games):
            raise ValueError("games: each game is offered once")
        stray = [g for g in self.limits if g not in self.games]
        if stray:
            raise ValueError(f"limits: {', '.join(stray)} is not offered at this table")
        for game in self.games:
            try:
                self.game_options(game)
            except ValidationError as exc:
                reasons = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
                raise ValueError(f"limits.{game}: {reasons}") from None
        return self

    def game_options(self, game: str) -> PokerGame:
        """The table's options as one offered game's `[game]`: this table's, with that game's
        own limits."""
        from tablectl.games.registry import settings_models

        data = {k: v for k, v in self.model_dump().items() if k not in SHARED}
        own = self.limits.get(game)
        if own is not None:
            data.update(own.model_dump(exclude_none=True))
        model = settings_models()[game]
        options = model.model_validate({**data, "id": game})
        assert isinstance(options, PokerGame)
        return options

    def posted_betting(self, schedule: PokerSchedule) -> dict[str, Any]:
        """The poker room's betting, then each offered game with its own limits."""
        out = super().posted_betting(schedule)
        out["games"] = [{"game": g, **self.game_options(g).posted_stakes()} for g in self.games]
        return out

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """The poker room's checks, and each offered game's (its seats: a stud table seats at
        most as many as one deck deals every card to)."""
        problems = super().cross_check(table)
        for game in self.games:
            for key, reason in self.game_options(game).cross_check(table):
                if key == "seats.count" and (key, reason) not in problems:
                    problems.append((key, f"{reason}, and this table offers {game}"))
        return problems


SPEC = GameSpec(
    title="Poker: Dealer's Choice",
    settings={"dealers-choice": DealersChoice},
    engine="tablectl.games.dealers_choice.engine:DealersChoiceEngine",
    spots={},
    kind="poker",
    screen="poker",
    recall_printer="tablectl.games.poker.recall:format_poker_hand",
    device_roles=(CARD_READING_TABLE,),
)
