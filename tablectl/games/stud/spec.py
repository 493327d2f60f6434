"""The stud tables' `[game]` options: the poker room's (tablectl/games/poker/spec.py: document,
structure and stakes, blinds, chip, buy-in, kill, collection), one model per game id. Document
003 approves every stud game; it posts no collection schedule for them, so the table's config
gives one (R44)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from tablectl.games.poker.spec import CARD_READING_TABLE, PokerGame
from tablectl.games.spec import GameSpec
from tablectl.rules.stud import FIVE_CARD_STUD, SEVEN_CARD_STUD, Face, cards_each, most_seats

if TYPE_CHECKING:
    from tablectl.config import TableConfig


class StudTable(PokerGame):
    """What every stud table checks beside the poker room's options: no more seats than one
    deck deals every card to."""

    STREETS: ClassVar[tuple[tuple[Face, ...], ...]] = SEVEN_CARD_STUD
    BOUGHT: ClassVar[int] = 0  # cards a player may buy (Option Alley: one)

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """The poker room's checks, and the seats against the deck."""
        problems = super().cross_check(table)
        most = most_seats(self.STREETS, self.BOUGHT)
        if table.seats.count > most:
            cards = cards_each(self.STREETS, self.BOUGHT)
            problems.append(
                (
                    "seats.count",
                    f"{table.seats.count} seats: a {self.id} table seats at most {most} "
                    f"({cards} cards each from one 52-card deck)",
                )
            )
        return problems


class SevenCardStud(StudTable):
    """Seven Card Stud high (003 "Basic Seven Card Stud Rules", "Seven Card Stud (High)")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["seven-card-stud"]


class SevenCardStudHiLo(StudTable):
    """Seven Card Stud high-low split, eight or better (003 "Seven Card Stud (High-Low
    Split)")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["seven-card-stud-hi-lo"]


class Razz(StudTable):
    """Razz, Seven Card Stud low only (003 "Razz (Seven Card Stud, Low Only)")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["razz"]


class FiveCardStud(StudTable):
    """Five Card Stud high (003 "Five Card Stud")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    STREETS: ClassVar[tuple[tuple[Face, ...], ...]] = FIVE_CARD_STUD
    id: Literal["five-card-stud"]


class OptionAlley(StudTable):
    """Option Alley: Five Card Stud high-low with no low qualifier and one card bought for a
    last betting round (003 "Option Alley")."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    STREETS: ClassVar[tuple[tuple[Face, ...], ...]] = FIVE_CARD_STUD
    BOUGHT: ClassVar[int] = 1
    id: Literal["option-alley"]


SPEC = GameSpec(
    title="Poker: the stud games and Option Alley",
    settings={
        "seven-card-stud": SevenCardStud,
        "seven-card-stud-hi-lo": SevenCardStudHiLo,
        "razz": Razz,
        "five-card-stud": FiveCardStud,
        "option-alley": OptionAlley,
    },
    engine="tablectl.games.poker.engine:PokerTableEngine",
    spots={},
    kind="poker",
    screen="poker",
    recall_printer="tablectl.games.poker.recall:format_poker_hand",
    device_roles=(CARD_READING_TABLE,),
)
