"""The flop games of the poker room (documents 003 and 004) as one unit: each game's
`[game]` options and the GameSpec.

A poker table has no `[limits]` and no banked `[collection]` (R4): its stakes are the betting
structure, stakes and blinds in `[game]`, and its collection the posted schedule options (or,
where no document posts one, an inline schedule) in `[game.collection]` (R44).
"""

from __future__ import annotations

import sys
import tomllib
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from tablectl.games.settings import GameSettings, StrictInt
from tablectl.games.spec import DeviceRole, GameSpec
from tablectl.rules.approval import KEY as APPROVAL
from tablectl.rules.approval import parse_approval, unfit
from tablectl.rules.fees import ScheduleError
from tablectl.rules.poker_fees import (
    PokerSchedule,
    parse_poker_schedule_file,
    posted_file,
    table_schedule,
)
from tablectl_base.money import Money, fmt

if TYPE_CHECKING:
    from tablectl.config import TableConfig
    from tablectl.games.table_rules import Rules
    from tablectl.rules.betting import Structure

StructureName = Literal["fixed-limit", "spread-limit", "pot-limit", "no-limit"]
Document = Literal["003", "004"]

KILL_FACTORS: dict[str, Decimal] = {"half": Decimal("1.5"), "full": Decimal(2)}
"""003 "Betting Limits", Kill Rules 2: in a half kill game the stakes go up by one-and-a-half,
in a full kill game they double."""
SPREAD_ROUND_CAP = Decimal(200)
"""R43: under 004 no seat puts more than $200 into one spread-limit betting round."""
MAX_RAISES = 3
"""R43: three raises a fixed-limit round unless only two players are in it."""


def _shipped(folder: str) -> Path:
    """A folder of data that comes with tablectl: config/<folder> in a source checkout, otherwise
    where installing put it (pyproject.toml data-files: share/tablectl/<folder>)."""
    source = Path(__file__).resolve().parents[3] / "config" / folder
    return source if source.is_dir() else Path(sys.prefix) / "share" / "tablectl" / folder


SCHEDULE_DIR = _shipped("schedules")
LIMITS_DIR = _shipped("limits")


@cache
def posted_schedules(document: str, game: str) -> dict[int, PokerSchedule] | None:
    """The schedules `document` posts for `game`, read from the shipped file (None: it posts
    none). ScheduleError if the shipped file is damaged."""
    name = posted_file(document, game)
    if name is None:
        return None
    path = SCHEDULE_DIR / name
    schedules, approval = parse_poker_schedule_file(path.read_text(encoding="utf-8"), str(path))
    why = unfit(str(path), approval, game, document)
    if why is not None:  # a shipped file edited or swapped: what it says it is for decides
        raise ScheduleError([f"game.document: {why}"])
    return schedules


class PostedLimit(BaseModel):
    """One betting limit a document posts (003 "Betting Limits"): a structure with its stakes
    (and a spread limit's later spread); `game` when only that game's section posts it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    structure: StructureName
    stakes: tuple[Money, Money] | None = None
    late_stakes: tuple[Money, Money] | None = None
    game: str | None = None

    @property
    def text(self) -> str:
        """As the document prints it: "$2-$4", "spread $1-$3/$1-$6", "pot limit"."""
        if self.stakes is None:
            return self.structure.replace("-", " ")
        spread = "" if self.late_stakes is None else "/" + _dollars(self.late_stakes)
        kind = "spread " if self.structure == "spread-limit" else ""
        return f"{kind}{_dollars(self.stakes)}{spread}"


def _dollars(pair: tuple[Decimal, Decimal]) -> str:
    """A pair of amounts as the documents print a limit: "$2-$4"."""
    return f"${fmt(pair[0])}-${fmt(pair[1])}"


LIMITS_FILES = {"003": "poker-003.toml"}
"""Document -> its posted betting limits, in config/limits (004 posts none: its schedules' table
limits bind its tables)."""


@cache
def posted_limits(document: str) -> tuple[PostedLimit, ...] | None:
    """The betting limits `document` posts (None: it posts no list)."""
    name = LIMITS_FILES.get(document)
    if name is None:
        return None
    data = tomllib.loads((LIMITS_DIR / name).read_text(encoding="utf-8"))
    return tuple(PostedLimit.model_validate(entry) for entry in data["limit"])


def limits_file_problem(document: str, game: str) -> str | None:
    """Why the betting limits file `document` posts (`LIMITS_FILES`) cannot serve a `game`
    table under it, as its `[approval]` says (tablectl/rules/approval.py); None when it can or
    the document posts none."""
    name = LIMITS_FILES.get(document)
    if name is None:
        return None
    path = LIMITS_DIR / name
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    approval, wrong = parse_approval(data.get(APPROVAL))
    if wrong:
        return f"{path}: {'; '.join(wrong)}"
    return unfit(str(path), approval, game, document)


class PokerCollection(BaseModel):
    """`[game.collection]`: the posted options this table charges by, or its own schedule where
    no document posts one (R44)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    options: tuple[StrictInt, ...] = ()
    # As written (a TOML table): `table_schedule` validates it, naming each problem by its key.
    schedule: dict[str, Any] | None = None


class PokerGame(GameSettings):
    """A flop game's table: the document it is approved under (its odd-chip rule R41 and its
    posted collections R44), the betting structure with its stakes, the blinds, the smallest chip
    in play and the buy-in minimum."""

    document: Document
    structure: StructureName
    # fixed limit: the small and the big bet; spread limit: the spread of the first two rounds
    stakes: tuple[Money, Money] | None = None
    # spread limit: the spread of the last two rounds, where the table posts another one
    late_stakes: tuple[Money, Money] | None = None
    blinds: tuple[Money, Money]
    chip: Money = Decimal(1)
    buy_in_min: Money | None = None
    # 003 "Betting Limits": a fixed- or spread-limit game "can be played with a half kill or
    # full kill" (Kill Rules).
    kill: Literal["none", "half", "full"] = "none"
    collection: PokerCollection = Field(default_factory=PokerCollection)

    DOCUMENTS: ClassVar[tuple[str, ...]] = ()
    """The documents that approve the game (each subclass names its own)."""
    SMALL_ROUNDS: ClassVar[int] = 2
    """Betting rounds at the small bet (or the first spread) before the big one: the flop
    games' and stud's first two (003 "Crazy Pineapple High-Low Split"; docs/games/stud.md); a
    draw game's one, before the draw (docs/games/draw.md)."""

    @field_validator("document")
    @classmethod
    def _approved_by_document(cls, document: str, info: ValidationInfo) -> str:
        """The game is one the table's document approves (R41's odd chips and R44's schedules
        are that document's)."""
        if document not in cls.DOCUMENTS:
            game = info.data.get("id", cls.__name__)
            raise ValueError(
                f"document {document} does not approve {game}; {', '.join(cls.DOCUMENTS)} does"
            )
        return document

    @model_validator(mode="after")
    def _stakes_fit_structure(self) -> PokerGame:
        """Stakes where the structure posts them, blinds that open it, all in whole chips."""
        limit = self.structure in ("fixed-limit", "spread-limit")
        if limit and self.stakes is None:
            raise ValueError(f"a {self.structure} table posts its stakes: stakes = [low, high]")
        if not limit and self.stakes is not None:
            raise ValueError(f"a {self.structure} table has no stakes: the big blind sets them")
        if self.late_stakes is not None and self.structure != "spread-limit":
            raise ValueError("late_stakes is the later spread of a spread-limit table only")
        for pair, what in ((self.stakes, "stakes"), (self.late_stakes, "late_stakes")):
            if pair is not None and not 0 < pair[0] <= pair[1]:
                raise ValueError(f"{what} run from a low amount above 0 to a high one")
        small, big = self.blinds
        if not 0 < small <= big:
            raise ValueError("blinds: the small blind is above 0 and at most the big blind")
        if self.chip <= 0:
            raise ValueError("chip: the smallest chip in play is above 0")
        amounts = [*self.blinds, *(self.stakes or ()), *(self.late_stakes or ())]
        _in_chips(amounts, self.chip, "")
        if self.kill != "none":
            if self.structure not in ("fixed-limit", "spread-limit"):
                raise ValueError(
                    'kill: "With the exception of Pot Limit and No Limit, any and all games '
                    "played at the other betting limits can be played with a half kill or full "
                    'kill" (003 "Betting Limits")'
                )
            if self.document != "003":
                raise ValueError('kill: the kill rules are document 003\'s ("Betting Limits")')
            factor = KILL_FACTORS[self.kill]
            kill_amounts = [a * factor for a in (self.blinds[1], *amounts[2:])]
            _in_chips(kill_amounts, self.chip, f"kill: the {self.kill} kill's blind and stakes ")
        return self

    def betting(self, factor: Decimal = Decimal(1)) -> Structure:
        """The betting structure (rules/betting_structures.py) these options describe (R43), its
        stakes times `factor` (a kill pot's, `KILL_FACTORS`)."""
        from tablectl.rules.betting_structures import FixedLimit, NoLimit, PotLimit, SpreadLimit

        if self.structure == "fixed-limit":
            assert self.stakes is not None
            small, big = (a * factor for a in self.stakes)
            return FixedLimit(small, big, max_raises=MAX_RAISES, small_rounds=self.SMALL_ROUNDS)
        if self.structure == "spread-limit":
            assert self.stakes is not None
            low, high = (a * factor for a in self.stakes)
            late = [None if a is None else a * factor for a in self.late_stakes or (None, None)]
            cap = SPREAD_ROUND_CAP if self.document == "004" else None
            return SpreadLimit(
                low, high, late[0], late[1], round_cap=cap, small_rounds=self.SMALL_ROUNDS
            )
        if self.structure == "pot-limit":
            return PotLimit(self.blinds[1])
        return NoLimit(self.blinds[1])

    def schedule(self, seats: int) -> PokerSchedule:
        """The one schedule this table charges by (R44); ScheduleError naming each problem by
        its key under `game.`."""
        posted = posted_schedules(self.document, self.id)
        inline = self.collection.schedule
        try:
            schedule = table_schedule(
                self.document,
                self.id,
                seats,
                posted=posted,
                options=self.collection.options,
                inline=inline,
            )
        except ScheduleError as exc:
            raise ScheduleError([under_game(p) for p in exc.problems]) from None
        problem = self._limit_problem(schedule) or self._buy_in_problem(schedule)
        if problem:
            raise ScheduleError([problem])
        return schedule

    def advice(self, table: TableConfig) -> list[tuple[str, str]]:
        """A limit the table's document does not list (003 "Betting Limits"): reported, not
        refused, since 003's own Crazy Pineapple section describes a limit its list leaves out
        ("a $3-$6 game"), so the list is not the only limits 003 approves."""
        found = self._posted_limit_problem(self.schedule(table.seats.count))
        return [] if found is None else [keyed_problem(found)]

    def _posted_limit_problem(self, schedule: PokerSchedule) -> str | None:
        """Under a document that lists the limits a table may post (003 "Betting Limits"), the
        table's is one of them, or one its game's own section posts; a schedule option naming
        its table limits binds the stakes already (`_limit_problem`)."""
        listed = posted_limits(self.document)
        if listed is None or schedule.table_limits:
            return None
        mine = PostedLimit(
            structure=self.structure, stakes=self.stakes, late_stakes=self.late_stakes
        )
        allowed = [x for x in listed if x.game in (None, self.id)]
        if any(x.model_copy(update={"game": None}) == mine for x in allowed):
            return None
        posted = ", ".join(x.text for x in allowed)
        return (
            f"game.stakes: {mine.text} is not a betting limit document {self.document} posts for "
            f'{self.id} ({posted}; 003 "Betting Limits")'
        )

    def _buy_in_problem(self, schedule: PokerSchedule) -> str | None:
        """A table under an option that posts a buy-in seats no one with less."""
        posted = schedule.buy_in
        if posted is None or self.buy_in_min is None or self.buy_in_min >= posted:
            return None
        return (
            f"game.buy_in_min: {fmt(self.buy_in_min)} is below the ${fmt(posted)} buy-in the "
            f"document posts with {schedule.label}"
        )

    def least_buy_in(self, schedule: PokerSchedule | None) -> Decimal | None:
        """The least a player sits down with: the config's, else the posted option's."""
        if self.buy_in_min is not None:
            return self.buy_in_min
        return None if schedule is None else schedule.buy_in

    def _limit_problem(self, schedule: PokerSchedule) -> str | None:
        """A posted option belongs to a table limit, under a heading (004's "Limit", "Spread
        Limit"): the table's structure and stakes must be those (R44: "Only one collection
        schedule option, which utilizes one table limit")."""
        if schedule.structure is not None and schedule.structure != self.structure:
            return (
                f"game.structure: the document posts {schedule.label} for a "
                f"{schedule.structure} table, not a {self.structure} one (R44)"
            )
        limits = schedule.table_limits
        if not limits:
            return None
        posted = " or ".join(lim.text for lim in limits)
        if self.stakes is None:  # pot or no limit: the posted limits are a limit game's
            return (
                f"game.structure: the document posts {schedule.label} for a {posted} table; "
                f"a {self.structure} table has no such limit (R44)"
            )
        if any((lim.lower, lim.higher) == tuple(self.stakes) for lim in limits):
            return None
        return (
            f"game.stakes: ${fmt(self.stakes[0])}-${fmt(self.stakes[1])} is not the table limit "
            f"of {schedule.label} ({posted}): pick the options posted for this table's stakes "
            "(R44)"
        )

    def own_schedule(self, seats: int) -> PokerSchedule | None:
        """The schedule of `[game.collection]` (R44)."""
        return self.schedule(seats)

    def posted_terms(self, rules: Rules) -> dict[str, Any]:
        """`betting`: the posted structure, stakes, blinds, kill, smallest chip and least
        buy-in (the config's, else the posted option's; None: none posted)."""
        return {"betting": self.posted_betting(rules.poker_schedule())}

    def hand_history_terms(self) -> dict[str, Any] | None:
        """The game, its document, the betting structure, stakes, blinds and smallest chip
        (what tablectl/games/poker/hand_rebuild.py rebuilds a hand with)."""
        return {
            "game": self.id,
            "document": self.document,
            "structure": self.structure,
            "stakes": None if self.stakes is None else [fmt(a) for a in self.stakes],
            "blinds": [fmt(a) for a in self.blinds],
            "chip": fmt(self.chip),
        }

    def posted_betting(self, schedule: PokerSchedule) -> dict[str, Any]:
        """The table's betting as `posted_terms` shows it."""
        least = self.least_buy_in(schedule)
        return {
            **self.posted_stakes(),
            "kill": self.kill,
            "chip": fmt(self.chip),
            "buy_in": None if least is None else fmt(least),
        }

    def posted_stakes(self) -> dict[str, Any]:
        """The structure, stakes, later stakes and blinds, as money text."""
        return {
            "structure": self.structure,
            "stakes": _money_pair(self.stakes),
            "late_stakes": _money_pair(self.late_stakes),
            "blinds": _money_pair(self.blinds),
        }

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """The collection against the seats (R44); no banked sections at a poker table; the
        document's posted limits file is for this game (its `[approval]`)."""
        problems: list[tuple[str, str]] = []
        limits = limits_file_problem(self.document, self.id)
        if limits is not None:
            return [("game.document", limits)]  # the limits the advice reads are not these
        try:
            self.schedule(table.seats.count)
        except ScheduleError as exc:
            problems += [keyed_problem(p) for p in exc.problems]
        return problems


def _money_pair(pair: tuple[Decimal, Decimal] | None) -> list[str] | None:
    return None if pair is None else [fmt(pair[0]), fmt(pair[1])]


def _in_chips(amounts: list[Decimal], chip: Decimal, what: str) -> None:
    """ValueError naming each amount (once) that is not a whole number of chips (R41)."""
    odd = list(dict.fromkeys(fmt(a) for a in amounts if a % chip))
    if odd:
        raise ValueError(
            f"{what}{', '.join(odd)} cannot be paid in chips of {fmt(chip)} (R41: pots are "
            "split in the smallest chip)"
        )


def under_game(problem: str) -> str:
    """A schedule problem keyed as the table's config writes it: `collection...` is under
    `game.`; `seats.count` stays where it is."""
    return problem if problem.startswith(("seats.", "game.")) else f"game.{problem}"


def keyed_problem(problem: str) -> tuple[str, str]:
    """ "key: reason" as (key, reason)."""
    key, _, reason = problem.partition(": ")
    return key, reason


class TexasHoldem(PokerGame):
    """Texas Hold'em (003 "Texas Hold-Em (High)"; 004 "Texas Hold'em")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003", "004")
    id: Literal["texas-holdem"]


class Omaha(PokerGame):
    """Omaha high (003 "Omaha (High)")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["omaha"]


class OmahaHiLo(PokerGame):
    """Omaha high-low split, eight or better (003 "Omaha (High-Low Split)"; 004 "Omaha High/Low
    Split")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003", "004")
    id: Literal["omaha-hi-lo"]


class CrazyPineappleHiLo(PokerGame):
    """Crazy Pineapple high-low split, nine or better (003 "Crazy Pineapple High-Low Split")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["crazy-pineapple-hi-lo"]


def settings_of(game: Any) -> PokerGame:
    """A table's `[game]` as a poker game's options (TypeError if it is another game's)."""
    if not isinstance(game, PokerGame):
        raise TypeError(f"{type(game).__name__} is not a poker game's settings")
    return game


CARD_READING_TABLE: DeviceRole = {
    "role": "the cards",
    "drivers": ("poker-table",),
    "most": 1,
    "why": "the card-reading table's table.card; without it the dealer's console deals",
}
"""The one device a pot game's table takes, whichever game it deals (the stud, draw and Dealer's
Choice specs name it too)."""


SPEC = GameSpec(
    title="Poker: the flop games",
    settings={
        "texas-holdem": TexasHoldem,
        "omaha": Omaha,
        "omaha-hi-lo": OmahaHiLo,
        "crazy-pineapple-hi-lo": CrazyPineappleHiLo,
    },
    engine="tablectl.games.poker.engine:PokerTableEngine",
    spots={},
    kind="poker",
    screen="poker",
    recall_printer="tablectl.games.poker.recall:format_poker_hand",
    device_roles=(CARD_READING_TABLE,),
    round_formats={"phh": "tablectl.games.poker.phh:PhhWriter"},
    snapshot_classes={
        "poker.PokerState": "tablectl.games.poker.state:PokerState",
        "poker.HandState": "tablectl.games.poker.state:HandState",
        "poker.SeatState": "tablectl.games.poker.state:SeatState",
        "poker.Rotation": "tablectl.rules.rotation:Rotation",
        "poker.BettingRound": "tablectl.rules.betting:BettingRound",
        "poker.Player": "tablectl.rules.betting:Player",
        "poker.Action": "tablectl.rules.betting:Action",
        "poker.FixedLimit": "tablectl.rules.betting_structures:FixedLimit",
        "poker.SpreadLimit": "tablectl.rules.betting_structures:SpreadLimit",
        "poker.PotLimit": "tablectl.rules.betting_structures:PotLimit",
        "poker.NoLimit": "tablectl.rules.betting_structures:NoLimit",
    },
)
