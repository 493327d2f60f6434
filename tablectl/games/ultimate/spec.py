"""Ultimate Texas Hold'em (documents 003, 004) as one unit: its `[game]` options and its
GameSpec."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from tablectl.games.settings import GameSettings
from tablectl.games.spec import GameSpec

if TYPE_CHECKING:
    from tablectl.config import TableConfig


class UltimateTexasHoldemGame(GameSettings):
    """Ultimate Texas Hold'em (003 with the Bad Beat, 004 Trips only; R35) and its options."""

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "blind_table": ("ultimate-texas-holdem.toml", "blind"),
        "trips_table": ("ultimate-texas-holdem.toml", "trips"),
        "bad_beat_table": ("ultimate-texas-holdem.toml", "bad-beat"),
    }

    # 004 "Ultimate Texas Hold'em: Description of Table Used and Total Number of Seated Positions":
    # six players plus the player-dealer, seven in all
    MAX_SEATS: ClassVar[int] = 7

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003", "004")
    id: Literal["ultimate-texas-holdem"]
    # The rule document this table is approved under (docs/config.md): check-config holds the
    # collection schedule file and the pay tables to it. Unset: the one the data files name
    # (they must agree on one).
    document: Literal["003", "004"] | None = None
    blind_table: str
    trips_table: str
    bad_beat_table: str | None = None  # None: no Bad Beat wager at this table (004)
    # 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play": "settled from seat to
    # seat" in the order Ante, Play, Blind, Trips, Bad Beat.
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"
    # Where the house dealer starts handing out the stacks and asking for decisions:
    # 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play" /
    # 004 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play" 4b "Starting on their left
    # and continuing clockwise" (seat 1 up, contract 2), or from the player-dealer's left as R29
    # does for Three Card Poker.
    deal_from: Literal["house-dealer-left", "player-dealer-left"] = "house-dealer-left"

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """Checks against the other sections: a table has at most seven places (004 "Ultimate Texas
        Hold'em: Description of Table Used and Total Number of Seated Positions")."""
        if table.seats.count > self.MAX_SEATS:
            return [
                (
                    "seats.count",
                    f"Ultimate Texas Hold'em has at most {self.MAX_SEATS} places, the "
                    "player-dealer's included (004 \"Ultimate Texas Hold'em: Description of Table "
                    'Used and Total Number of Seated Positions"; 003 "Ultimate Texas Hold\'em: '
                    'Description of Table Used and Total Number of Seated Positions" has six)',
                )
            ]
        return []


SPEC = GameSpec(
    title="Ultimate Texas Hold'em",
    settings={"ultimate-texas-holdem": UltimateTexasHoldemGame},
    engine="tablectl.games.ultimate.engine:UltimateEngine",
    spots={"ultimate-texas-holdem": ("ante", "blind", "play", "trips", "bad-beat")},
    analyzer="tablectl.analysis.ultimate:analyze_request",
    screen="ultimate",
    recall_printer="tablectl.games.ultimate.recall:print_round",
    analyzed_wagers="tablectl.analysis.ultimate:WAGERS",
    device_roles=(
        {
            "role": "the hands and the board",
            "drivers": ("hand-dispenser", "shuffler"),
            "needed": True,
            "most": 1,
            "stack_size": (2, 5),
            "why": "003 lines 3490-3492: two cards to each hand, five community cards",
        },
    ),
    snapshot_classes={
        "ultimate.UltimateState": "tablectl.games.ultimate.state:UltimateState",
        "ultimate.Stack": "tablectl.games.ultimate.state:Stack",
        "ultimate.Play": "tablectl.games.ultimate.state:Play",
    },
)
