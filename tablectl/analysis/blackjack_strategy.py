"""The basic strategy the base game analysis plays (tablectl/analysis/blackjack_base.py): its
tables for Pure 21.5 and Spanish 21.5 stated as data and checked as they load (`parse_table`),
and the move they give a hand among the engine's legal actions (`base_strategy`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from tablectl.analysis.blackjack import PURE_GAME, SPANISH_GAME, WAGERS
from tablectl.rules.blackjack import card_value, hand_total
from tablectl_base.cards import Card

# The basic-strategy tables, stated as data: a row per hand class, a column per
# player-dealer up card (T = any card worth 10, R10). Codes: H hit, S stand, D double if allowed
# else hit, Ds double if allowed else stand, P split; after a Spanish double (R20): S stand,
# R rescue, DD double again if allowed else stand. Pure 21.5 is the published multi-deck chart
# for a dealer hitting soft 17 with double after split and no surrender (docs/games/blackjack.md
# "Base game analysis"), whose rules 000 has (000 "Pure 21.5 Blackjack: Chart 1A", "Chart 1B",
# "Double-Down, Split, and Surrender"; R12, R14, R16); Spanish 21.5 is derived from 003's own rules
# (003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used", "Card Values and Hand
# Rankings", "Chart 1A", "Chart 1B", "Double-Down, Rescue, Double-Double Down, Split, and
# Surrender"; R20) by the infinite-deck expected value of each move. Surrender, insurance and
# doubling for less: never.
PURE_TABLE = """
         2  3  4  5  6  7  8  9  T  A
hard 4   H  H  H  H  H  H  H  H  H  H
hard 5   H  H  H  H  H  H  H  H  H  H
hard 6   H  H  H  H  H  H  H  H  H  H
hard 7   H  H  H  H  H  H  H  H  H  H
hard 8   H  H  H  H  H  H  H  H  H  H
hard 9   H  D  D  D  D  H  H  H  H  H
hard 10  D  D  D  D  D  D  D  D  H  H
hard 11  D  D  D  D  D  D  D  D  D  D
hard 12  H  H  S  S  S  H  H  H  H  H
hard 13  S  S  S  S  S  H  H  H  H  H
hard 14  S  S  S  S  S  H  H  H  H  H
hard 15  S  S  S  S  S  H  H  H  H  H
hard 16  S  S  S  S  S  H  H  H  H  H
hard 17  S  S  S  S  S  S  S  S  S  S
hard 18  S  S  S  S  S  S  S  S  S  S
hard 19  S  S  S  S  S  S  S  S  S  S
hard 20  S  S  S  S  S  S  S  S  S  S
hard 21  S  S  S  S  S  S  S  S  S  S
soft 12  H  H  H  H  D  H  H  H  H  H
soft 13  H  H  H  D  D  H  H  H  H  H
soft 14  H  H  H  D  D  H  H  H  H  H
soft 15  H  H  D  D  D  H  H  H  H  H
soft 16  H  H  D  D  D  H  H  H  H  H
soft 17  H  D  D  D  D  H  H  H  H  H
soft 18  Ds Ds Ds Ds Ds S  S  H  H  H
soft 19  S  S  S  S  Ds S  S  S  S  S
soft 20  S  S  S  S  S  S  S  S  S  S
soft 21  S  S  S  S  S  S  S  S  S  S
pair A   P  P  P  P  P  P  P  P  P  P
pair 2   P  P  P  P  P  P  H  H  H  H
pair 3   P  P  P  P  P  P  H  H  H  H
pair 4   H  H  H  P  P  H  H  H  H  H
pair 5   D  D  D  D  D  D  D  D  H  H
pair 6   P  P  P  P  P  H  H  H  H  H
pair 7   P  P  P  P  P  P  H  H  H  H
pair 8   P  P  P  P  P  P  P  P  P  P
pair 9   P  P  P  P  P  S  P  P  S  S
pair T   S  S  S  S  S  S  S  S  S  S
"""
SPANISH_TABLE = """
         2  3  4  5  6  7  8  9  T  A
hard 4   H  H  H  D  D  H  H  H  H  H
hard 5   H  H  H  D  D  H  H  H  H  H
hard 6   H  H  H  D  D  H  H  H  H  H
hard 7   H  H  H  D  D  H  H  H  H  H
hard 8   H  H  D  D  D  H  H  H  H  H
hard 9   H  D  D  D  D  H  H  H  H  H
hard 10  D  D  D  D  D  D  D  H  H  H
hard 11  D  D  D  D  D  D  D  D  D  D
hard 12  H  H  H  H  H  H  H  H  H  H
hard 13  H  H  H  H  S  H  H  H  H  H
hard 14  H  H  S  S  S  H  H  H  H  H
hard 15  S  S  S  S  S  H  H  H  H  H
hard 16  S  S  S  S  S  H  H  H  H  H
hard 17  S  S  S  S  S  S  S  S  S  S
hard 18  S  S  S  S  S  S  S  S  S  S
hard 19  S  S  S  S  S  S  S  S  S  S
hard 20  S  S  S  S  S  S  S  S  S  S
hard 21  S  S  S  S  S  S  S  S  S  S
soft 12  H  D  D  D  D  D  H  H  H  H
soft 13  H  D  D  D  D  H  H  H  H  H
soft 14  H  D  D  D  D  H  H  H  H  H
soft 15  H  H  D  D  D  H  H  H  H  H
soft 16  H  H  D  D  D  H  H  H  H  H
soft 17  H  H  D  D  D  H  H  H  H  H
soft 18  S  S  Ds Ds Ds S  S  H  H  H
soft 19  S  S  S  S  S  S  S  S  S  S
soft 20  S  S  S  S  S  S  S  S  S  S
soft 21  S  S  S  S  S  S  S  S  S  S
pair A   P  P  P  P  P  P  P  P  P  P
pair 2   P  P  P  P  P  P  P  H  H  H
pair 3   P  P  P  P  P  P  P  H  H  H
pair 4   H  H  D  D  D  H  H  H  H  H
pair 5   D  D  D  D  D  D  D  H  H  H
pair 6   H  H  P  P  P  H  H  H  H  H
pair 7   P  P  P  P  P  P  H  H  H  H
pair 8   P  P  P  P  P  P  P  P  P  H
pair 9   S  P  P  P  P  S  P  P  S  S
pair T   S  S  S  S  S  S  S  S  S  S
"""
# A Spanish hand that has doubled and taken its card (R20: the engine offers stand, rescue and,
# with double-double down, another double): derived like SPANISH_TABLE for a hand doubled once.
SPANISH_AFTER_DOUBLE_TABLE = """
         2  3  4  5  6  7  8  9  T  A
hard 4   S  S  DD DD DD S  R  R  R  R
hard 5   S  S  DD DD DD S  R  R  R  R
hard 6   S  S  DD DD DD S  R  R  R  R
hard 7   DD DD DD DD DD DD R  R  R  R
hard 8   DD DD DD DD DD DD DD DD R  R
hard 9   DD DD DD DD DD DD DD DD DD DD
hard 10  DD DD DD DD DD DD DD DD DD DD
hard 11  DD DD DD DD DD DD DD DD DD DD
hard 12  S  S  S  S  S  DD DD R  R  R
hard 13  S  S  S  S  S  S  R  R  R  R
hard 14  S  S  S  S  S  S  R  R  R  R
hard 15  S  S  S  S  S  S  R  R  R  R
hard 16  S  S  S  S  S  S  R  R  R  R
hard 17  S  S  S  S  S  S  S  S  S  R
hard 18  S  S  S  S  S  S  S  S  S  S
hard 19  S  S  S  S  S  S  S  S  S  S
hard 20  S  S  S  S  S  S  S  S  S  S
hard 21  S  S  S  S  S  S  S  S  S  S
soft 12  DD DD DD DD DD DD DD DD DD DD
soft 13  DD DD DD DD DD DD DD DD DD DD
soft 14  DD DD DD DD DD DD DD DD DD DD
soft 15  DD DD DD DD DD DD DD DD DD DD
soft 16  DD DD DD DD DD DD DD DD DD DD
soft 17  DD DD DD DD DD DD DD DD DD DD
soft 18  S  S  DD DD DD S  S  S  S  S
soft 19  S  S  S  S  S  S  S  S  S  S
soft 20  S  S  S  S  S  S  S  S  S  S
soft 21  S  S  S  S  S  S  S  S  S  S
"""
UP_COLUMNS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
# Every hand class a decision can meet: two cards make hard 4 (2-2) to hard 20 and soft 12
# (A-A) to soft 21, more cards hard 5 to 21 and soft 13 to 21 (R10); a busted or pure hand
# never decides (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet").
HARD_ROWS = tuple(f"hard {t}" for t in range(4, 22))
SOFT_ROWS = tuple(f"soft {t}" for t in range(12, 22))
PAIR_ROWS = tuple(f"pair {c}" for c in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T"))
CODES = frozenset({"H", "S", "D", "Ds", "P"})
AFTER_DOUBLE_CODES = frozenset({"S", "R", "DD"})
# A code's moves, best first; the first the engine offers is taken, so where Chart 1A (R15)
# forbids the table's hit or stand, or a double or split is not offered (R16, R20), the next.
MOVES_OF: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "H": ("hit", "stand"),
        "S": ("stand", "hit"),
        "D": ("double", "hit", "stand"),
        "Ds": ("double", "stand", "hit"),
        "P": ("split",),
        "R": ("rescue", "stand", "hit"),
        "DD": ("double", "stand", "hit"),
    }
)

Table = Mapping[str, Mapping[str, str]]


def parse_table(text: str, rows: Sequence[str], codes: frozenset[str]) -> Table:
    """A strategy table stated as text: exactly `rows`, each with one of `codes` per up card."""
    lines = [line.split() for line in text.strip().splitlines()]
    header, body = lines[0], lines[1:]
    if tuple(header) != UP_COLUMNS:
        raise ValueError(f"a strategy table's columns are {' '.join(UP_COLUMNS)}, not {header}")
    table: dict[str, Mapping[str, str]] = {}
    for words in body:
        name, cells = " ".join(words[:2]), words[2:]
        if len(cells) != len(UP_COLUMNS) or not set(cells) <= codes or name in table:
            raise ValueError(f"bad strategy row {' '.join(words)!r}")
        table[name] = MappingProxyType(dict(zip(UP_COLUMNS, cells, strict=True)))
    if tuple(table) != tuple(rows):
        raise ValueError(f"a strategy table has the rows {', '.join(rows)}")
    return MappingProxyType(table)


STRATEGY_TABLES: Mapping[str, Table] = MappingProxyType(
    {
        PURE_GAME: parse_table(PURE_TABLE, HARD_ROWS + SOFT_ROWS + PAIR_ROWS, CODES),
        SPANISH_GAME: parse_table(SPANISH_TABLE, HARD_ROWS + SOFT_ROWS + PAIR_ROWS, CODES),
    }
)
AFTER_DOUBLE: Table = parse_table(
    SPANISH_AFTER_DOUBLE_TABLE, HARD_ROWS + SOFT_ROWS, AFTER_DOUBLE_CODES
)

BASE_STRATEGY: Mapping[str, str] = MappingProxyType(
    {
        PURE_GAME: (
            "basic strategy by the table STRATEGY_TABLES[pure-21.5-blackjack] (the published "
            "multi-deck chart for a dealer hitting soft 17, double after split, no surrender; "
            'docs/games/blackjack.md), within Chart 1A (000 "Pure 21.5 Blackjack: Chart 1A": '
            "stand on hard 19 or more, hit hard 11 or less) and the engine's legal actions: "
            "double for the full wager on any first two cards, split hands included (000 "
            '"Pure 21.5 Blackjack: Double-Down, Split, and Surrender"), split pairs and two '
            "bonus cards by the table (up to four hands, split aces one card each, R16); never "
            "surrender, never take insurance or even money"
        ),
        SPANISH_GAME: (
            "basic strategy by the table STRATEGY_TABLES[pure-spanish-21.5] (derived from "
            "003's rules by the infinite-deck expected value of each move; "
            'docs/games/blackjack.md), within Chart 1A (003 "Pure Spanish 21.5: Chart 1A": '
            "stand on hard 17 or more) and the engine's legal actions: double for the full "
            'wager on any first two cards, split hands included (003 "Pure Spanish 21.5: '
            'Double-Down, Rescue, Double-Double Down, Split, and Surrender"), split any two '
            "cards of equal value by the table (R20, up to four hands); after a double, stand, "
            "rescue or double again (double-double down, R20) by the table AFTER_DOUBLE; never "
            "surrender (the Spanish approval offers no insurance)"
        ),
    }
)


def _column(value: int) -> str:
    """The table label of a card value (R10): an ace is A, a bonus card T, else the value."""
    return "A" if value == 1 else "T" if value == 10 else str(value)


def base_strategy(
    cards: Sequence[Card], up: Card, legal: Sequence[str], *, game: str = PURE_GAME
) -> str:
    """The stated basic strategy's move (STRATEGY_TABLES[game]) for a hand, one of `legal`.

    "hit" means: draw the next card. A hand owed its card after a split or a double has only
    "hit" legal and takes it. A hand offered "rescue" is a Spanish hand that has doubled
    (R20, 003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender")
    and plays by AFTER_DOUBLE. A two-card hand that may split plays by its pair row, any other by
    its hard or soft total. The table's code gives its moves best first (MOVES_OF) and the first the
    engine offers is taken: that is how Chart 1A (R15) always overrides the table, and how D and Ds
    fall back when a double is not offered.
    """
    if len(legal) == 1:
        return legal[0]
    if game not in STRATEGY_TABLES:
        raise ValueError(f"no strategy table for {game!r}: expected one of {', '.join(WAGERS)}")
    total = hand_total(cards)
    if total.value > 21:
        raise ValueError(f"a busted hand ({total.value}) has no decision")
    row = f"{'soft' if total.soft else 'hard'} {total.value}"
    column = _column(card_value(up))
    if "rescue" in legal:
        code = AFTER_DOUBLE[row][column]
    else:
        table = STRATEGY_TABLES[game]
        code = table[row][column]
        pair = len(cards) == 2 and card_value(cards[0]) == card_value(cards[1])
        if pair and "split" in legal:
            code = table[f"pair {_column(card_value(cards[0]))}"][column]
    for move in MOVES_OF[code]:
        if move in legal:
            return move
    raise ValueError(f"the strategy's {code} for {row} against {up} is not among {legal}")
