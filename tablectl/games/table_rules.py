"""The rules a table plays a round under (`Rules`: the game's section, seats, limits, collection
schedule, pay tables), owned by the games: every engine is built from them, and the config
(tablectl/config/) only fills them from its file, so no game imports the config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from tablectl.games.registry import settings_models
from tablectl.games.settings import GameSettings, StrictInt
from tablectl.rules.fees import CollectionSchedule
from tablectl.rules.paytables import PayTable
from tablectl.rules.poker_fees import PokerSchedule
from tablectl_base.money import Money


class StrictSection(BaseModel):
    """A part of the config or the rules: unknown keys are errors, and it is never changed."""

    model_config = ConfigDict(extra="forbid", frozen=True)


if TYPE_CHECKING:
    GameConfig = GameSettings
else:
    _models = settings_models()
    GameConfig = Annotated[Union[tuple(_models.values())], Field(discriminator="id")]  # noqa: UP007
"""A `[game]` section: the model of the game its `id` names (tablectl/games/registry.py)."""


class SpotLimit(StrictSection):
    min: Money
    max: Money

    @model_validator(mode="after")
    def _ordered(self) -> SpotLimit:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


class Limits(SpotLimit):
    """Per-spot table limits; `spots` overrides them for single spots (a smaller Panda 8 max)."""

    spots: dict[str, SpotLimit] = Field(default_factory=dict)

    def for_spot(self, spot: str) -> SpotLimit:
        return self.spots.get(spot, SpotLimit(min=self.min, max=self.max))


class Seats(StrictSection):
    count: StrictInt = Field(7, ge=1, le=14)


class PaceBand(StrictSection):
    """The rounds an hour a table is expected to play: outside the band an alert (`pace`) waits
    for a person, so a table that stalls or races is looked at. Either end may be left out;
    journaled with the rules, so a replay raises the same alerts."""

    min_rounds_per_hour: StrictInt | None = Field(None, ge=1, le=10_000)
    max_rounds_per_hour: StrictInt | None = Field(None, ge=1, le=10_000)

    @model_validator(mode="after")
    def _ordered(self) -> PaceBand:
        low, high = self.min_rounds_per_hour, self.max_rounds_per_hour
        if low is not None and high is not None and low > high:
            raise PydanticCustomError(
                "pace_band",
                "min_rounds_per_hour ({low}) is above max_rounds_per_hour ({high})",
                {"low": low, "high": high},
            )
        return self


class Rules(StrictSection):
    """Everything that decides how a round is played and settled: journaled, so that a round is
    always replayed under the rules it was played under, whatever the config file says later."""

    game: GameConfig
    seats: Seats
    limits: Limits | None  # a banked game's; None at a poker table
    schedule: CollectionSchedule | PokerSchedule  # R4 for a banked game, R44 for poker
    # The pay tables the game names, by name, as they read when the rules were loaded: a later
    # edit of config/paytables/*.toml changes new rounds only, never how old ones replay.
    paytables: dict[str, PayTable] = Field(default_factory=dict)
    pace: PaceBand | None = None  # the band of rounds an hour (alerts only)
    # R55: the table has no card reader; the dealer keys every card at the console.
    manual_entry: bool = False

    def to_json(self) -> dict[str, Any]:
        """The rules as journaled; without `pace` when none is set, `manual_entry` when false,
        and without a banked game's `document` when the config names none, so rules journaled
        before they existed keep their JSON (and digest)."""
        doc = self.model_dump(mode="json", by_alias=True)
        if doc.get("pace") is None:
            doc.pop("pace", None)
        if not doc.get("manual_entry"):
            doc.pop("manual_entry", None)
        if doc["game"].get("document", "") is None:
            doc["game"].pop("document")
        return doc

    def banked(self) -> tuple[Limits, CollectionSchedule]:
        """A banked game's limits and collection schedule (R4); ValueError at a poker table."""
        if self.limits is None or not isinstance(self.schedule, CollectionSchedule):
            raise ValueError(f"{self.game.id} is not a banked game: no limits, no R4 schedule")
        return self.limits, self.schedule

    def poker_schedule(self) -> PokerSchedule:
        """A poker table's collection schedule (R44); ValueError at a banked table."""
        if not isinstance(self.schedule, PokerSchedule):
            raise ValueError(f"{self.game.id} is not a poker game: it has no R44 schedule")
        return self.schedule

    def paytable(self, name: str) -> PayTable:
        """A pay table these rules name (engines take theirs from here, not from the file)."""
        try:
            return self.paytables[name]
        except KeyError:
            have = ", ".join(self.paytables) or "none"
            raise ValueError(f"the rules carry no pay table {name!r} (they carry {have})") from None
