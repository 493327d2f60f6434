"""A Chinese Poker table's `[game]` options: the value of one point ("The limit of the game
indicates the wager being played for; each hand basically represents one (1) point which is
equivalent to the money value of the game's limit", 003 "Chinese Poker"), the buy-in, the
smallest chip and the collection schedule option the table posts (R44)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from tablectl.games.poker.spec import PokerCollection, keyed_problem, posted_schedules, under_game
from tablectl.games.settings import GameSettings
from tablectl.games.spec import GameSpec
from tablectl.rules.fees import ScheduleError
from tablectl.rules.poker_fees import PokerSchedule, table_schedule
from tablectl_base.money import Money, fmt

if TYPE_CHECKING:
    from tablectl.config import TableConfig
    from tablectl.games.table_rules import Rules

TABLE_LIMIT = (Decimal(1), Decimal(100))
"""Every collection option's "Table Limit": "$1 - $100" (003 "Chinese Poker", Collection Fees)."""
BUY_IN_POINTS = 20
"""003 "Chinese Poker", Game Rules 1: "The buy-in is twenty (20) times the value of one point"."""
MOST_SEATS = 5
"""003 "Chinese Poker": "The game allows up to five (5) seated players"."""


class ChinesePoker(GameSettings):
    """Chinese Poker (003 "Chinese Poker")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["chinese-poker"]
    document: Literal["003"] = "003"
    point: Money
    chip: Money = Decimal(1)
    buy_in_min: Money | None = None
    collection: PokerCollection = Field(default_factory=PokerCollection)

    @model_validator(mode="after")
    def _point_within_the_table_limit(self) -> ChinesePoker:
        """A point of $1 to $100 in whole chips; a buy-in of at least twenty points."""
        low, high = TABLE_LIMIT
        if not low <= self.point <= high:
            raise ValueError(
                f"point: {fmt(self.point)} is outside the posted table limit "
                f"${fmt(low)} - ${fmt(high)}"
            )
        if self.chip <= 0 or self.point % self.chip:
            raise ValueError(
                f"point: {fmt(self.point)} cannot be paid in chips of {fmt(self.chip)}"
            )
        least = self.point * BUY_IN_POINTS
        if self.buy_in_min is not None and self.buy_in_min < least:
            raise ValueError(
                f"buy_in_min: {fmt(self.buy_in_min)} is below twenty points, {fmt(least)} "
                '(003 "Chinese Poker", Game Rules 1)'
            )
        return self

    @property
    def least_buy_in(self) -> Decimal:
        """The least a player sits down with: twenty points, or the table's higher minimum."""
        return self.buy_in_min or self.point * BUY_IN_POINTS

    def schedule(self, seats: int) -> PokerSchedule:
        """The schedule option the table charges by (R44)."""
        try:
            return table_schedule(
                self.document,
                self.id,
                seats,
                posted=posted_schedules(self.document, self.id),
                options=self.collection.options,
                inline=self.collection.schedule,
            )
        except ScheduleError as exc:
            raise ScheduleError([under_game(p) for p in exc.problems]) from None

    def own_schedule(self, seats: int) -> PokerSchedule | None:
        return self.schedule(seats)

    def posted_terms(self, rules: Rules) -> dict[str, Any]:
        """`points`: the value of a point, the smallest chip, the least buy-in and the posted
        table limit."""
        low, high = TABLE_LIMIT
        return {
            "points": {
                "point": fmt(self.point),
                "chip": fmt(self.chip),
                "buy_in": fmt(self.least_buy_in),
                "table_limit": {"min": fmt(low), "max": fmt(high)},
            }
        }

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """The seats (at most five) and the collection against them."""
        problems: list[tuple[str, str]] = []
        if table.seats.count > MOST_SEATS:
            problems.append(
                (
                    "seats.count",
                    f"{table.seats.count} seats: Chinese Poker seats at most {MOST_SEATS} "
                    '(003 "Chinese Poker")',
                )
            )
            return problems
        try:
            self.schedule(table.seats.count)
        except ScheduleError as exc:
            problems += [keyed_problem(p) for p in exc.problems]
        return problems


SPEC = GameSpec(
    title="Chinese Poker",
    settings={"chinese-poker": ChinesePoker},
    engine="tablectl.games.chinese_poker.engine:ChinesePokerEngine",
    spots={},
    kind="poker",
    screen="chinese-poker",
    recall_printer="tablectl.games.chinese_poker.recall:format_chinese_round",
    # none: the hands are dealt by hand and set at the dealer's console
    device_roles=(),
    snapshot_classes={
        "chinese_poker.ChineseState": "tablectl.games.chinese_poker.engine:ChineseState",
        "chinese_poker.ChineseRound": "tablectl.games.chinese_poker.engine:ChineseRound",
        "chinese_poker.Hand": "tablectl.rules.chinese_poker:Hand",
        "chinese_poker.Setting": "tablectl.rules.chinese_poker:Setting",
    },
)
