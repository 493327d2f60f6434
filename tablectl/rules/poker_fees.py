"""Poker collections (R44): the posted schedules as validated data, and the fee of a hand or a half
hour.

The players of a poker game play each other for the pot; the house takes only its collection, a
flat fee by the number of players, never a share of the pot ("Rates may not be calculated as a
fraction or percentage of wagers made or winnings earned", 003 "Collection Rates for Poker Games";
004 "Collection Procedures" ("Poker Games")). A schedule option is either

* **per hand**: the fee of the rate that covers the number of players dealt in (R44), taken from
  the main pot after the flop (what the main pot cannot cover from the side pots in order, R52:
  `tablectl.rules.pots.take_fee`) (003 "Crazy Pineapple High-Low Split: Collection Fee Schedule"
  options 1-3 and 5-6; 004 "Texas Hold'em: Collection Fee Schedule" and "Omaha High/Low Split:
  Collection Fee Schedule"). A hand that ends before the flop pays the schedule's modified fee
  (003 Crazy Pineapple: "$1 collection, referred to as the Modified fee"), or nothing where the
  schedule prints none (004); or
* **per half hour**: each seated player pays the rate that covers the number of players seated,
  every thirty minutes, outside any pot (003 Crazy Pineapple option 4, "Time Collection Per 1/2
  Hour"; R44).

A rate covers a range of player counts, written as the document prints it ("2-4", "5-6", "7-10";
"4 or less" is read as 2-4 and "Any" as two or more, since a hand is dealt to two players at least).
One option has at most five rates, in ascending order with no count covered twice and none skipped
(R4's and R44's "no more than five collection rates ... per table limit"). Money fields reuse the
banked schedules' validation (`tablectl.rules.fees`): flat amounts, a percentage refused by name.

004 posts its options in pairs of one table limit, each covering part of the player counts
("$4 - $8 | 6-9 | $4" is option 1, "$4 - $8 | 5 or less | $3" option 2). A table names the options
it posts; several options are read together as one schedule when they share their table limit,
their kind and their modified fee, and together still have at most five rates (`table_schedule`).
No ruling settles this reading, beside the documents' "Only one collection schedule option ...
shall be used at a table at any one time" (003 "Collection Rates for Poker Games"); a single option
that covers every count, as 003's do, is the case where the two agree.
A table whose seats the schedule does not cover, from two players up to every seat, is a config
problem (R44), so no hand can ever meet a count with no fee.

Which documents post a schedule for which game is `POSTED`. Where none does (003's Hold'em, Omaha
and stud games, R44), the table's config must give one inline, validated like a posted one. 003's
"Poker Games Collection Rates" pages, which do list schedules for those games, are not transcribed:
docs/rulings.md R44 leaves them an open question.

Pure: the caller reads the files; nothing here does I/O.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

# The banked schedules' validation helpers, reused so that both kinds refuse the same things
# with the same words: one home for money in a schedule.
from tablectl.rules.approval import KEY as APPROVAL
from tablectl.rules.approval import Approval, parse_approval
from tablectl.rules.fees import (
    MAX_RATES,
    Amount,
    Fee,
    KeyPath,
    ScheduleError,
    describe_error,
    key_path,
    refuse,
)
from tablectl_base.money import ZERO, fmt

MIN_PLAYERS = 2
"""The fewest players a hand is dealt to; the documents' rates begin at "2-4"."""

Per = Literal["hand", "half-hour"]

POSTED: Mapping[tuple[str, str], str] = {
    ("003", "crazy-pineapple-hi-lo"): "poker/crazy-pineapple-003.toml",
    ("004", "texas-holdem"): "poker/texas-holdem-004.toml",
    ("004", "omaha-hi-lo"): "poker/omaha-hi-lo-004.toml",
    ("003", "chinese-poker"): "poker/chinese-poker-003.toml",
}
"""(document id, game id) -> the posted schedules' file, relative to config/schedules/."""


def _player_count(value: object) -> int:
    """A number of players: a whole number, at least the two players a hand is dealt to."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise refuse(f"a number of players is a whole number like 4, not {value!r}")
    if value < MIN_PLAYERS:
        raise refuse(f"{value} is too few: a hand is dealt to {MIN_PLAYERS} players at least")
    return value


def _option_numbers(value: object) -> tuple[int, ...]:
    """`option = N` in a file or inline; several only when code reads options together (a
    schedule as journaled writes them as a JSON list, which `_validated` refuses in a file)."""
    numbers = tuple(value) if isinstance(value, tuple | list) else (value,)
    for number in numbers:
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise refuse(f"an option is a whole number from 1, like option = 2, not {value!r}")
    return numbers


Players = Annotated[int, BeforeValidator(_player_count)]
Options = Annotated[tuple[int, ...], BeforeValidator(_option_numbers)]


class PlayerRate(BaseModel):
    """One rate: with `min_players` to `max_players` players (no maximum: or more), the fee."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_players: Players = Field(validation_alias=AliasChoices("from", "min_players"))
    max_players: Players | None = Field(
        default=None, validation_alias=AliasChoices("to", "max_players")
    )
    fee: Fee

    @model_validator(mode="after")
    def _range_ordered(self) -> PlayerRate:
        """A range runs upward: `from` may not exceed `to`."""
        if self.max_players is not None and self.max_players < self.min_players:
            raise refuse(
                f"from {self.min_players} is above to {self.max_players} players", at=("to",)
            )
        return self

    def covers(self, players: int) -> bool:
        """Whether this rate is the one for `players` players."""
        return self.min_players <= players and (
            self.max_players is None or players <= self.max_players
        )

    @property
    def span(self) -> str:
        """The range as a person reads it: "2-4", "5", "7 or more"."""
        return _span(self.min_players, self.max_players)


def _span(lowest: int, highest: int | None) -> str:
    """A range of player counts as a person reads it: "2-4", "5", "7 or more"."""
    if highest is None:
        return f"{lowest} or more"
    return str(lowest) if highest == lowest else f"{lowest}-{highest}"


def _ordering_problem(previous: PlayerRate, current: PlayerRate) -> str | None:
    """Why `current` cannot follow `previous`, if it cannot: each count must have one rate."""
    if previous.max_players is None:
        return (
            f"the rate for {previous.span} players covers every larger count, "
            f"so no rate may follow it (here {current.span})"
        )
    if current.min_players <= previous.max_players:
        return f"the rate for {current.span} players overlaps the rate for {previous.span}"
    if current.min_players > previous.max_players + 1:
        missing = _span(previous.max_players + 1, current.min_players - 1)
        return (
            f"no rate for {missing} players, between the rates for {previous.span} "
            f"and {current.span}"
        )
    return None


class TableLimit(BaseModel):
    """A posted table limit: its lower and higher amount ("$4 - $8", "$4 - $200")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lower: Amount
    higher: Amount

    @model_validator(mode="after")
    def _ordered(self) -> TableLimit:
        """The lower amount may not exceed the higher."""
        if self.lower > self.higher:
            raise refuse(
                f"lower {fmt(self.lower)} is above higher {fmt(self.higher)}", at=("higher",)
            )
        return self

    @property
    def text(self) -> str:
        """The limit as the documents print it: "$4-$8"."""
        return f"${fmt(self.lower)}-${fmt(self.higher)}"


def _label(options: Sequence[int]) -> str:
    """Option numbers as a sentence names them: "option 2", "options 1 and 2"."""
    if len(options) == 1:
        return f"option {options[0]}"
    head = ", ".join(str(n) for n in options[:-1])
    return f"options {head} and {options[-1]}"


class PokerSchedule(BaseModel):
    """One posted schedule option, or several of one table limit read together (R44)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    options: Options = Field(validation_alias=AliasChoices("option", "options"))
    per: Per
    rates: tuple[PlayerRate, ...]
    modified_fee: Fee | None = None
    table_limits: tuple[TableLimit, ...] = ()
    # The heading the document posts the option under (004's "Limit" and "Spread Limit"): the
    # betting structure of the table it is for; None where the document posts no heading.
    structure: Literal["fixed-limit", "spread-limit"] | None = None
    # The buy-in the document posts with the option (003 Crazy Pineapple options 5 and 6): the
    # least a player sits down with at such a table.
    buy_in: Amount | None = None
    # What the player holding the action and dealer buttons pays instead of the rate (003
    # Chinese Poker options 2 and 3, "Player # 1"); None: the rate, like everyone.
    button_fee: Amount | None = None

    @field_validator("options")
    @classmethod
    def _options_once(cls, options: tuple[int, ...]) -> tuple[int, ...]:
        """Options read together are named once each, in ascending order."""
        if list(options) != sorted(set(options)):
            raise refuse(f"options {list(options)} must be ascending and each named once")
        return options

    @field_validator("rates")
    @classmethod
    def _rates_allowed(cls, rates: tuple[PlayerRate, ...]) -> tuple[PlayerRate, ...]:
        """R4/R44: one to five rates, ascending, no player count covered twice or skipped."""
        if not rates:
            raise refuse("no rates; write at least one { from, to, fee }")
        if len(rates) > MAX_RATES:
            raise refuse(
                f"{len(rates)} collection rates; at most {MAX_RATES} are allowed "
                "per table limit (R4, R44)"
            )
        for i in range(1, len(rates)):
            problem = _ordering_problem(rates[i - 1], rates[i])
            if problem:
                raise refuse(problem, at=(i,))
        return rates

    @model_validator(mode="after")
    def _modified_fee_per_hand(self) -> PokerSchedule:
        """A time collection is taken outside any pot, so it has no fee for a hand's early end."""
        if self.per == "half-hour" and self.modified_fee is not None:
            raise refuse(
                "a time collection (per half hour) is not taken from a pot, so it has no "
                "modified fee; leave modified_fee out",
                at=("modified_fee",),
            )
        return self

    @property
    def label(self) -> str:
        """The options as a sentence names them: "option 2", "options 1 and 2"."""
        return _label(self.options)

    @property
    def covered(self) -> str:
        """The player counts the rates cover, from the first rate's to the last rate's."""
        first, last = self.rates[0], self.rates[-1]
        return _span(first.min_players, last.max_players)

    def rate_for(self, players: int) -> Decimal:
        """The fee of the rate covering `players`; a count no rate covers is a ValueError."""
        if players < MIN_PLAYERS:
            raise ValueError(
                f"{players} players: no rate begins below {MIN_PLAYERS}, the fewest a hand is "
                "dealt to"
            )
        for rate in self.rates:
            if rate.covers(players):
                return rate.fee
        raise ValueError(
            f"{self.label} has no rate for {players} players; its rates cover {self.covered} "
            "(R44: a table the schedule does not cover is a config problem)"
        )


# --- the fees ---------------------------------------------------------------------------------


def hand_fee(schedule: PokerSchedule, players_dealt_in: int, reached_flop: bool) -> Decimal:
    """The collection one hand owes, taken from its main pot first (R44, R52).

    The rate is chosen by the players dealt in, not by those left when the fee is taken. A hand
    that ends before the flop pays the modified fee, or nothing where the schedule has none. A time
    collection takes nothing from a hand's pot.
    """
    fee = schedule.rate_for(players_dealt_in)
    if schedule.per == "half-hour":
        return ZERO
    if reached_flop:
        return fee
    return schedule.modified_fee if schedule.modified_fee is not None else ZERO


def time_rate(schedule: PokerSchedule, seated_players: int) -> Decimal:
    """What each seated player pays for one half hour (R44); nothing under a per-hand schedule."""
    fee = schedule.rate_for(seated_players)
    return fee if schedule.per == "half-hour" else ZERO


def time_fee(schedule: PokerSchedule, seated_players: int, half_hours: int) -> Decimal:
    """The time collection of `half_hours` half hours with `seated_players` seated throughout.

    Each seated player pays the rate for the number seated, every half hour, outside any pot
    (R44); the result is the table's total. Seats that change between half hours are separate
    calls, one half hour each.
    """
    if isinstance(half_hours, bool) or half_hours < 0:
        raise ValueError(f"{half_hours!r} half hours: a count of half hours is 0 or more")
    return time_rate(schedule, seated_players) * seated_players * half_hours


# --- reading schedules ------------------------------------------------------------------------


def _validated(entry: object, where: KeyPath) -> tuple[PokerSchedule | None, list[str]]:
    """One decoded TOML table (`[[schedule]]` or an inline schedule) as a schedule, or problems."""
    if not isinstance(entry, dict):
        return None, [f"{key_path(where)}: must be a table"]
    if "options" in entry:  # only code reads options together (`table_schedule`)
        return None, [f"{key_path((*where, 'options'))}: unknown key; write option = N"]
    option = entry.get("option")
    if isinstance(option, list):  # TOML has no tuple: a written list is several options
        return None, [
            f"{key_path((*where, 'option'))}: an option is a whole number from 1, like "
            f"option = 2, not {option}"
        ]
    try:
        return PokerSchedule.model_validate(entry), []
    except ValidationError as err:
        return None, [describe_error(detail, where) for detail in err.errors()]


def parse_poker_schedules(text: str, source: str) -> dict[int, PokerSchedule]:
    """A `[[schedule]]` TOML text keyed by option; ScheduleError names every fault in `source`."""
    return parse_poker_schedule_file(text, source)[0]


def parse_poker_schedule_file(
    text: str, source: str
) -> tuple[dict[int, PokerSchedule], Approval | None]:
    """A `[[schedule]]` TOML text keyed by option, and its `[approval]` (what it is for:
    tablectl/rules/approval.py; None when it has none); ScheduleError names every fault in
    `source`, the approval's included."""
    try:
        document: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScheduleError([f"{source}: not valid TOML: {err}"]) from None

    approval, problems = parse_approval(document.get(APPROVAL))
    problems += [
        f"{key}: unknown key; schedules are written as [[schedule]] tables"
        for key in document
        if key not in ("schedule", APPROVAL)
    ]
    entries = document.get("schedule")
    if not isinstance(entries, list) or not entries:
        problems.append("schedule: missing; write one [[schedule]] table per option")
        entries = []

    schedules: dict[int, PokerSchedule] = {}
    for index, entry in enumerate(entries):
        where: KeyPath = ("schedule", index)
        schedule, found = _validated(entry, where)
        problems += found
        if schedule is None:
            continue
        (option,) = schedule.options  # TOML gives a list, never a tuple: one option per table
        if option in schedules:
            problems.append(f"{key_path((*where, 'option'))}: option {option} is given twice")
            continue
        schedules[option] = schedule

    if problems:
        raise ScheduleError([f"{source}: {problem}" for problem in problems])
    return schedules, approval


def posted_file(document: str, game: str) -> str | None:
    """The file of the schedules `document` posts for `game`, or None where it posts none."""
    return POSTED.get((document, game))


def table_schedule(
    document: str,
    game: str,
    seats: int,
    *,
    posted: Mapping[int, PokerSchedule] | None,
    options: Sequence[int] = (),
    inline: object = None,
) -> PokerSchedule:
    """The one schedule a poker table charges by, checked against its seats (R44).

    `posted` is the parsed `posted_file(document, game)` (None where the document posts none);
    `options` names the posted options the table uses; `inline` is the decoded inline schedule a
    game with no posted schedule must give. Every problem is a line of the ScheduleError, keyed
    the way the table's config writes it (`collection.options`, `collection.schedule...`).
    """
    where = f"document {document} {game}"
    name = posted_file(document, game)
    if name is not None and posted is None:
        raise ValueError(f"{where}: pass the parsed {name} as posted")
    if name is None and posted is not None:
        raise ValueError(f"{where}: no document posts this schedule, so posted must be None")
    if posted is None:
        if options:
            raise ScheduleError(
                [f"collection.options: {where} has no posted schedule to pick options from"]
            )
        if inline is None:
            raise ScheduleError(
                [
                    f"collection.schedule: missing; document {document} posts no collection "
                    f"schedule for {game}, so the table's config must supply one, written inline "
                    "as [game.collection.schedule] with option, per and rates (R44)"
                ]
            )
        schedule, problems = _validated(inline, ("collection", "schedule"))
        key, hint = "collection.schedule.rates", f"begin the rates at {MIN_PLAYERS} players"
    else:
        if inline is not None:
            raise ScheduleError(
                [
                    f"collection.schedule: document {document} posts {game}'s schedules; name "
                    "them with game.collection.options instead of an inline schedule (R44)"
                ]
            )
        schedule, problems = _read_together(posted, options)
        key = "collection.options"
        hint = "name with it the option of the same table limit that covers them"
    if schedule is not None:
        problems += _seat_problems(schedule, seats, key, hint)
    if problems:
        raise ScheduleError(problems)
    assert schedule is not None
    return schedule


def _read_together(
    posted: Mapping[int, PokerSchedule], options: Sequence[int]
) -> tuple[PokerSchedule | None, list[str]]:
    """The named posted options as one schedule: one table limit, one kind, one modified fee."""
    key = "collection.options"
    if not options:
        return None, [f"{key}: missing; name the posted schedule options, e.g. options = [2]"]
    unknown = [n for n in options if n not in posted]
    if unknown:
        return None, [
            f"{key}: no option {n}; the posted ones are {sorted(posted)}" for n in unknown
        ]
    if len(set(options)) != len(options):
        return None, [f"{key}: {list(options)} names an option twice"]
    picked = [posted[n] for n in sorted(options)]
    first = picked[0]
    problems = [
        f"{key}: {first.label} and {other.label} are not one schedule: {ours} and {theirs}; "
        "only options of one kind, modified fee and table limit are read together (R44)"
        for other in picked[1:]
        for ours, theirs in (
            (f"per {first.per}", f"per {other.per}"),
            (_modified_text(first), _modified_text(other)),
            (_limits_text(first), _limits_text(other)),
            (f"heading {first.structure}", f"heading {other.structure}"),
            (f"buy-in {first.buy_in}", f"buy-in {other.buy_in}"),
            (f"button fee {first.button_fee}", f"button fee {other.button_fee}"),
        )
        if ours != theirs
    ]
    if problems:
        return None, problems
    rates = sorted((r for s in picked for r in s.rates), key=lambda r: r.min_players)
    merged = {
        "options": tuple(sorted(options)),
        "per": first.per,
        "rates": rates,
        "modified_fee": first.modified_fee,
        "table_limits": first.table_limits,
        "structure": first.structure,
        "buy_in": first.buy_in,
        "button_fee": first.button_fee,
    }
    try:
        return PokerSchedule.model_validate(merged), []
    except ValidationError as err:
        together = _label(tuple(sorted(options)))
        return None, [f"{key}: {together} read together: {d['msg']}" for d in err.errors()]


def _modified_text(schedule: PokerSchedule) -> str:
    """A schedule's modified fee in a sentence."""
    fee = schedule.modified_fee
    return "no modified fee" if fee is None else f"a modified fee of ${fmt(fee)}"


def _limits_text(schedule: PokerSchedule) -> str:
    """A schedule's table limits in a sentence."""
    if not schedule.table_limits:
        return "no table limit"
    return "table limit " + " and ".join(limit.text for limit in schedule.table_limits)


def _seat_problems(schedule: PokerSchedule, seats: int, key: str, hint: str) -> list[str]:
    """R44: every count from two players to every seat filled needs a rate."""
    problems = []
    first, last = schedule.rates[0], schedule.rates[-1]
    if first.min_players > MIN_PLAYERS:
        problems.append(
            f"{key}: {schedule.label} has no rate for "
            f"{_span(MIN_PLAYERS, first.min_players - 1)} players (its rates cover "
            f"{schedule.covered}), so a hand with fewer players would have no fee; {hint} (R44)"
        )
    if last.max_players is not None and seats > last.max_players:
        problems.append(
            f"seats.count: {seats} seats, but {schedule.label}'s rates stop at "
            f"{last.max_players} players (R44: a table with more seats than its schedule covers "
            "is a config problem)"
        )
    return problems
