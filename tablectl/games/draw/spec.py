"""The draw tables' `[game]` options: the poker room's (tablectl/games/poker/spec.py), one model
per game id. Document 003 approves every draw game; it posts no collection schedule for them, so
the table's config gives one (R44)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from tablectl.games.poker.spec import CARD_READING_TABLE, PokerGame
from tablectl.games.spec import GameSpec
from tablectl.rules.draw import HAND_SIZE

if TYPE_CHECKING:
    from tablectl.config import TableConfig

MOST_SEATS = 52 // HAND_SIZE
"""Five cards each from one pack: ten players at most (the draw deals from what is left, and
cards thrown away may be dealt again when it runs out: docs/games/draw.md)."""


class DrawTable(PokerGame):
    """What every draw table checks beside the poker room's options: at most ten seats. The
    small bet before the draw, the big one after it."""

    SMALL_ROUNDS: ClassVar[int] = 1

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """The poker room's checks, and the seats against the pack."""
        problems = super().cross_check(table)
        if table.seats.count > MOST_SEATS:
            problems.append(
                (
                    "seats.count",
                    f"{table.seats.count} seats: a {self.id} table seats at most {MOST_SEATS} "
                    "(five cards each from one pack)",
                )
            )
        return problems


class FiveCardDraw(DrawTable):
    """Five Card Draw high (003 "Five Card Draw")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["five-card-draw"]


class FiveCardDrawHiLo(DrawTable):
    """Five Card Draw high-low split, eight or better (003 "Five Card Draw (High-Low Split)")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["five-card-draw-hi-lo"]


class Lowball(DrawTable):
    """Lowball with the bug (003 "Lowball")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["lowball"]


SPEC = GameSpec(
    title="Poker: the draw games",
    settings={
        "five-card-draw": FiveCardDraw,
        "five-card-draw-hi-lo": FiveCardDrawHiLo,
        "lowball": Lowball,
    },
    engine="tablectl.games.poker.engine:PokerTableEngine",
    spots={},
    kind="poker",
    screen="poker",
    recall_printer="tablectl.games.poker.recall:format_poker_hand",
    device_roles=(CARD_READING_TABLE,),
)
