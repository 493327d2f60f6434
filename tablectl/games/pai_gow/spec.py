"""Fortune Pai Gow Poker (documents 003, 004) as one unit: its `[game]` options and its GameSpec."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Literal

from tablectl.games.settings import GameSettings
from tablectl.games.spec import GameSpec
from tablectl_base.money import Money

if TYPE_CHECKING:
    from tablectl.config import TableConfig


class FortunePaiGowGame(GameSettings):
    """Fortune Pai Gow Poker (documents 003, 004; R30-R32) and its options."""

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "fortune_table": ("fortune-pai-gow.toml", "fortune"),
    }

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003", "004")
    id: Literal["fortune-pai-gow"]
    # The rule document this table is approved under (docs/config.md): check-config holds the
    # collection schedule file and the pay tables to it. Unset: the one the data files name
    # (they must agree on one).
    document: Literal["003", "004"] | None = None
    fortune_table: str
    envy_minimum: Money = Decimal(5)  # R32: an Envy button per Fortune wager of $5 or more
    # R31: the player-dealer's house way: 003 "Fortune Pai Gow Poker House Way" (golden rule) or
    # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'".
    house_way: Literal["003", "004"] = "003"
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """R30, 003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated
        Players": seven hands go to seven positions, so the table has seven seats."""
        if table.seats.count != 7:
            return [
                (
                    "seats.count",
                    "Fortune Pai Gow Poker deals seven hands to seven positions (R30, 003 "
                    '"Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated '
                    'Players"): seats.count must be 7',
                )
            ]
        return []


SPEC = GameSpec(
    title="Fortune Pai Gow Poker",
    settings={"fortune-pai-gow": FortunePaiGowGame},
    engine="tablectl.games.pai_gow.engine:PaiGowEngine",
    spots={"fortune-pai-gow": ("base", "fortune", "envy")},
    analyzer="tablectl.analysis.pai_gow:analyze_request",
    screen="pai-gow",
    recall_printer="tablectl.games.pai_gow.recall:print_round",
    analyzed_wagers="tablectl.analysis.pai_gow:WAGERS",
    device_roles=(
        {
            "role": "the hands",
            "drivers": ("hand-dispenser", "shuffler"),
            "needed": True,
            "most": 1,
            "stack_size": (7,),
            "why": "003 line 1409: seven piles of seven cards",
        },
        {
            "role": "the dice",
            "drivers": ("dice-cup",),
            "most": 1,
            "dice": 3,
            "why": '003 line 1417: "a dice cup containing three standard dice"',
        },
    ),
    snapshot_classes={
        "pai_gow.PaiGowState": "tablectl.games.pai_gow.state:PaiGowState",
        "pai_gow.Setting": "tablectl.games.pai_gow.state:Setting",
    },
)
