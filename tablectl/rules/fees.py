"""Collection fees (R4): schedules as validated data, and the one fee calculator every game uses.

A collection schedule is a table limit, up to five total-table-action brackets each with a flat
player-dealer fee, and a flat player fee per wager (or per player). The documents forbid more than
five collection rates per table limit and any rate given as a percentage; validation refuses both.

Some schedules charge the player by the size of the wager instead ("Player Wager | Player
Collection Fee", 003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13", "Fortune Pai Gow Poker:
Collection Fees", 004 "Fortune Pai Gow Poker: Collection Rates"): those are `player_fee_brackets`,
matched against the one wager's amount by the same rule as below, at most five of them (R4). Some
charge the player on some spots only ("based on each individual player's ante", 003 "Three Card
Poker 6 Card Bonus: Schedule Options 1-13"):
those spots are `player_fee_spots` (empty: every spot, "per spot, including controlled game and
bonus bet spots", 003 "Fortune Pai Gow Poker: Collection Fees"); engines keep only the wagers whose
spot `player_fee_applies`.

Bracket matching: brackets are matched by their lower bound. The bracket with the highest lower
bound not above the total action applies, so where the documents' ranges overlap (EZ Baccarat
Panda 8 schedules 3 and 9: "$501-$1000" then "$1000+") exactly $1000 takes the "$1000+" fee, and an
action that falls between two written ranges ($25.50 between "$5-$25" and "$26-$100") takes the
lower bracket's fee. Any action above zero but below the first lower bound pays the first bracket's
fee (schedules 18-21 begin at $101 while the table minimum is $100). Zero action pays nothing.
Player-fee brackets are matched the same way, with the one wager's amount in place of the total
action: a $125 Ante under 003 Three Card Poker option 4 ("$100-$300 $1", line 1036) pays $1.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
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
from pydantic_core import ErrorDetails, PydanticCustomError

from tablectl.rules.approval import KEY as APPROVAL
from tablectl.rules.approval import Approval, parse_approval
from tablectl_base.money import ZERO, MoneyError, fmt, parse_money

MAX_RATES = 5
"""R4: no more than five collection rates per table limit (003 "Chinese Poker: Collection Procedure"
and every schedule)."""

KeyPath = tuple[str | int, ...]


class ScheduleError(ValueError):
    """Every problem in a schedule file, each one line "<file>: <key path>: <reason>"."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("\n".join(self.problems))


def refuse(reason: str, at: KeyPath = ()) -> PydanticCustomError:
    """A validation error with a plain message; `at` is a key path below the failing field."""
    return PydanticCustomError("schedule", "{reason}", {"reason": reason, "at": at})


def _money(value: object, *, allow_zero: bool) -> Decimal:
    """Parse one money field, naming percentages explicitly because R4 forbids them."""
    if isinstance(value, str) and "%" in value:
        raise refuse(
            f"percentages are not allowed ({value!r}): the documents require flat fees, "
            'written as an amount like "5.00" (R4)'
        )
    try:
        return parse_money(value, allow_zero=allow_zero)
    except MoneyError as err:
        raise refuse(str(err)) from None


def _fee_amount(value: object) -> Decimal:
    """A fee: a flat, non-negative amount (zero allowed: a zero-collection rate)."""
    return _money(value, allow_zero=True)


def _positive_amount(value: object) -> Decimal:
    """A table limit or bracket bound: a flat amount above zero."""
    return _money(value, allow_zero=False)


Fee = Annotated[Decimal, BeforeValidator(_fee_amount)]
Amount = Annotated[Decimal, BeforeValidator(_positive_amount)]


class Bracket(BaseModel):
    """One total-table-action bracket: from `min_action` (inclusive) up, the fee is `fee`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_action: Amount = Field(validation_alias=AliasChoices("from", "min_action"))
    fee: Fee


class CollectionSchedule(BaseModel):
    """One schedule option: table limit per spot, action brackets, and the player fee (R4)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    option: int = Field(strict=True, ge=1)
    table_min: Amount
    table_max: Amount
    brackets: tuple[Bracket, ...]
    player_fee: Fee = ZERO
    player_fee_per: Literal["wager", "player"] = "wager"
    player_fee_brackets: tuple[Bracket, ...] = ()
    player_fee_spots: tuple[str, ...] = ()

    @field_validator("brackets", "player_fee_brackets")
    @classmethod
    def _rates_allowed(cls, brackets: tuple[Bracket, ...]) -> tuple[Bracket, ...]:
        """R4: at most five rates, bounds strictly ascending so each amount has one bracket."""
        if len(brackets) > MAX_RATES:
            raise refuse(
                f"{len(brackets)} collection rates; at most {MAX_RATES} are allowed "
                "per table limit (R4)"
            )
        for i in range(1, len(brackets)):
            previous, current = brackets[i - 1].min_action, brackets[i].min_action
            if current <= previous:
                raise refuse(
                    f"{fmt(current)} is not above the previous bracket's {fmt(previous)}; "
                    "brackets must be strictly ascending",
                    at=(i, "from"),
                )
        return brackets

    @field_validator("player_fee_spots")
    @classmethod
    def _spots_named_once(cls, spots: tuple[str, ...]) -> tuple[str, ...]:
        """Each spot is a non-empty name given once, so the list reads as a set."""
        for i, spot in enumerate(spots):
            if not spot.strip():
                raise refuse("a spot name may not be empty", at=(i,))
            if spot in spots[:i]:
                raise refuse(f"spot {spot!r} is listed twice", at=(i,))
        return spots

    @model_validator(mode="after")
    def _limit_ordered(self) -> CollectionSchedule:
        """The table minimum may not exceed the table maximum."""
        if self.table_min > self.table_max:
            raise refuse(
                f"table minimum {fmt(self.table_min)} is above table maximum {fmt(self.table_max)}",
                at=("table_max",),
            )
        return self

    @model_validator(mode="after")
    def _one_player_fee_shape(self) -> CollectionSchedule:
        """Wager-sized player fees are per wager and replace the flat fee: refuse a mix of both."""
        if not self.player_fee_brackets:
            return self
        if self.player_fee > 0:
            raise refuse(
                f"player_fee {fmt(self.player_fee)} and player_fee_brackets are both given; "
                "with player_fee_brackets the fee comes from the wager's bracket, so write "
                'player_fee = "0" or leave it out',
                at=("player_fee",),
            )
        if self.player_fee_per != "wager":
            raise refuse(
                "player_fee_brackets are matched against each wager's amount, so "
                'player_fee_per must be "wager"',
                at=("player_fee_per",),
            )
        return self

    def player_fee_applies(self, spot: str) -> bool:
        """Whether a wager on `spot` attracts a player fee: every spot unless some are named."""
        return not self.player_fee_spots or spot in self.player_fee_spots


def player_dealer_fee(schedule: CollectionSchedule, total_action: Decimal) -> Decimal:
    """The player-dealer's flat fee for one hand: the highest bracket reached (see module)."""
    if total_action < 0:
        raise ValueError(f"total action {total_action} is negative")
    if total_action == 0 or not schedule.brackets:
        return ZERO
    return _bracket_fee(schedule.brackets, total_action)


def _bracket_fee(brackets: Sequence[Bracket], amount: Decimal) -> Decimal:
    """The fee of the highest bracket whose lower bound is not above `amount` (see module).

    An amount above zero but below the first bound pays the first bracket's fee.
    """
    fee = brackets[0].fee
    for bracket in brackets:
        if bracket.min_action > amount:
            break
        fee = bracket.fee
    return fee


def player_fees(
    schedule: CollectionSchedule, wagers: Sequence[tuple[int, str, Decimal]]
) -> list[tuple[int, str, Decimal]]:
    """Player fees for pre-deal (seat, player, amount) wagers: one per wager or per player.

    The fee is the flat `player_fee`, or with `player_fee_brackets` the fee of the wager's own
    bracket by amount (always per wager). Per player, a player is charged once, at the seat of
    their first wager. The caller passes only the wagers whose spot `player_fee_applies`. Rows
    are in wager order and only rows with a fee above zero are returned.
    """
    rows: list[tuple[int, str, Decimal]] = []
    charged: set[str] = set()
    for seat, player, amount in wagers:
        if amount < 0:
            raise ValueError(f"seat {seat} wager {amount} is negative")
        if amount == 0:
            continue
        if schedule.player_fee_brackets:
            fee = _bracket_fee(schedule.player_fee_brackets, amount)
        else:
            fee = schedule.player_fee
        if fee <= 0:
            continue
        if schedule.player_fee_per == "player":
            if player in charged:
                continue
            charged.add(player)
        rows.append((seat, player, fee))
    return rows


def total_table_action(amounts: Iterable[Decimal]) -> Decimal:
    """R4 total table action: the sum of the players' pre-deal wagers.

    Game and bonus wagers count; the caller passes only those. The player-dealer's bank and anything
    placed after the deal (double, split, insurance, play) must not be passed in.
    """
    total = ZERO
    for amount in amounts:
        if amount < 0:
            raise ValueError(f"wager {amount} is negative")
        total += amount
    return total


# --- loading from TOML -----------------------------------------------------------------------

_LIMIT_KEYS = {"min": "table_min", "max": "table_max"}
_LIMIT_EXAMPLE = 'table_limit = { min = "5", max = "500" }'
_LIMIT_LOCS = (("table_min",), ("table_max",))


def key_path(loc: Iterable[str | int]) -> str:
    """Render a location as the TOML reader sees it: `schedule[2].brackets[5].fee`."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = {"table_min": "table_limit.min", "table_max": "table_limit.max"}.get(part, part)
            text += f".{name}" if text else name
    return text or "(top level)"


def _flatten_limit(entry: dict[str, Any], where: KeyPath) -> tuple[dict[str, Any], list[str], bool]:
    """Map the file's `table_limit = { min, max }` onto the model's table_min/table_max fields
    (`entry` is decoded TOML, not yet validated: hence `Any`).

    Returns the model's input, layout problems, and whether table_limit itself was unusable (then
    the model's own "missing" errors for the two limits would only repeat that).
    """
    data = dict(entry)
    problems: list[str] = []
    for field in _LIMIT_KEYS.values():
        if field in data:
            del data[field]
            problems.append(f"{key_path((*where, field))}: write the limit as {_LIMIT_EXAMPLE}")
    if "table_limit" not in data:
        problems.append(f"{key_path((*where, 'table_limit'))}: missing; write {_LIMIT_EXAMPLE}")
        return data, problems, True
    limit = data.pop("table_limit")
    if not isinstance(limit, dict):
        problems.append(f"{key_path((*where, 'table_limit'))}: must be {_LIMIT_EXAMPLE}")
        return data, problems, True
    for key, value in limit.items():
        if key in _LIMIT_KEYS:
            data[_LIMIT_KEYS[key]] = value
        else:
            problems.append(f"{key_path((*where, 'table_limit', key))}: unknown key")
    return data, problems, False


def describe_error(err: ErrorDetails, where: KeyPath) -> str:
    """One pydantic error as "<key path>: <reason>", descending into our own `at` sub-paths."""
    ctx = err.get("ctx") or {}
    loc: KeyPath = (*where, *err["loc"], *ctx.get("at", ()))
    reason = str(err["msg"])
    if err["type"] == "extra_forbidden":
        reason = "unknown key"
    elif err["type"] == "missing":
        reason = "missing"
    return f"{key_path(loc)}: {reason}"


def load_schedules(path: Path) -> dict[int, CollectionSchedule]:
    """Load a `[[schedule]]` TOML file keyed by option; ScheduleError names every fault."""
    return load_schedule_file(path)[0]


def load_schedule_file(path: Path) -> tuple[dict[int, CollectionSchedule], Approval | None]:
    """A `[[schedule]]` TOML file's schedules keyed by option, and its `[approval]` (what it is
    for: tablectl/rules/approval.py; None when the file has none); ScheduleError names every
    fault, the approval's included."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ScheduleError([f"{path}: cannot read: {err.strerror or err}"]) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ScheduleError([f"{path}: not valid TOML: {err}"]) from None

    approval, problems = parse_approval(document.get(APPROVAL))
    for key in document:
        if key not in ("schedule", APPROVAL):
            problems.append(f"{key}: unknown key; schedules are written as [[schedule]] tables")
    entries = document.get("schedule")
    if not entries:
        problems.append("schedule: missing; write one [[schedule]] table per option")
        entries = []
    elif not isinstance(entries, list):
        problems.append("schedule: must be an array of tables, written [[schedule]]")
        entries = []

    schedules: dict[int, CollectionSchedule] = {}
    first_index: dict[int, int] = {}
    for index, entry in enumerate(entries):
        where: KeyPath = ("schedule", index)
        if not isinstance(entry, dict):
            problems.append(f"{key_path(where)}: must be a [[schedule]] table")
            continue
        data, layout_problems, limit_unusable = _flatten_limit(entry, where)
        problems.extend(layout_problems)
        try:
            schedule = CollectionSchedule.model_validate(data)
        except ValidationError as err:
            for detail in err.errors():
                limit_missing = detail["type"] == "missing" and detail["loc"] in _LIMIT_LOCS
                if limit_unusable and limit_missing:
                    continue  # already reported as a table_limit layout problem
                problems.append(describe_error(detail, where))
            continue
        if layout_problems:
            continue
        if schedule.option in schedules:
            problems.append(
                f"{key_path((*where, 'option'))}: option {schedule.option} is already "
                f"defined by {key_path(('schedule', first_index[schedule.option]))}"
            )
            continue
        schedules[schedule.option] = schedule
        first_index[schedule.option] = index

    if problems:
        raise ScheduleError([f"{path}: {problem}" for problem in problems])
    return schedules, approval
