"""The five baccarat scoreboard roads (R28) as pure functions over the coups of one shoe.

Bead plate, big road, and the three derived roads (big eye boy, small road, cockroach pig). All
columns are returned at their true length (R28: "built from true column lengths"): a display may
wrap a long column into a dragon tail, the data never does, so the derived roads read real lengths.
Everything returned is plain lists, dicts, strings, ints and bools, ready for JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Sized
from typing import Any, Literal, NamedTuple, TypedDict, TypeVar, cast

Letter = Literal["P", "B", "T"]
Side = Literal["P", "B"]
Colour = Literal["R", "B"]
T = TypeVar("T")
U = TypeVar("U")

BEAD_ROWS = 6
"""Rows per bead-plate column (the standard six-high grid)."""

BIG_EYE_BOY = 1
SMALL_ROAD = 2
COCKROACH_PIG = 3
"""Offsets of the derived roads: how many big-road columns back each one compares."""


class Mark(NamedTuple):
    """One coup as the roads see it: who won, and whether a natural was dealt."""

    letter: Letter
    natural: bool = False


class BigRoadEntry(TypedDict):
    """One big-road cell: the winner, ties counted on it, and whether it was a natural."""

    winner: Side
    ties: int
    natural: bool


class Roads(TypedDict):
    """All five roads of one shoe, in the order the display shows them."""

    bead_plate: list[list[Letter]]
    big_road: list[list[BigRoadEntry]]
    big_eye_boy: list[list[Colour]]
    small_road: list[list[Colour]]
    cockroach_pig: list[list[Colour]]


def bead_plate(letters: Sequence[Letter]) -> list[list[Letter]]:
    """Every coup in order, ties included, laid top to bottom in columns of six (R28)."""
    return [list(letters[i : i + BEAD_ROWS]) for i in range(0, len(letters), BEAD_ROWS)]


def big_road(marks: Sequence[Mark]) -> list[list[BigRoadEntry]]:
    """Columns of consecutive Player or Banker wins at true length (R28).

    A tie opens nothing: it is counted on the most recent entry. Ties dealt before the first
    Player or Banker win are held and counted on the first entry when it comes (until then the big
    road is empty and only the bead plate shows them).
    """
    columns: list[list[BigRoadEntry]] = []
    pending_ties = 0
    for letter, natural in marks:
        if letter == "T":
            if columns:
                columns[-1][-1]["ties"] += 1
            else:
                pending_ties += 1
            continue
        entry: BigRoadEntry = {"winner": letter, "ties": pending_ties, "natural": natural}
        pending_ties = 0
        if columns and columns[-1][-1]["winner"] == letter:
            columns[-1].append(entry)
        else:
            columns.append([entry])
    return columns


def derived_start(lengths: Sequence[int], offset: int) -> tuple[int, int] | None:
    """The big-road cell (column, row) where a derived road with this offset starts, if reached.

    It is row 1 of column `offset`, or row 0 of the next column when column `offset` has only
    one entry; None while the big road has not got that far.
    """
    if offset < 1:
        raise ValueError(f"derived-road offset must be 1 or more, not {offset}")
    if len(lengths) <= offset:
        return None
    if lengths[offset] >= 2:
        return (offset, 1)
    if len(lengths) > offset + 1:
        return (offset + 1, 0)
    return None


def derived_road(big: Sequence[Sized], offset: int) -> list[list[Colour]]:
    """A derived road (offset 1, 2, 3) from the big road's true column lengths (R28).

    For each big-road cell from the start on, at column c, row r, with offset k:
    r == 0 compares the lengths of columns c-1 and c-1-k (equal: red, different: blue);
    r > 0 looks at column c-k: a cell at row r is red, ending exactly at row r-1 is blue,
    ending before that is red. The colours are grouped into columns of the same colour.
    """
    lengths = [len(column) for column in big]
    start = derived_start(lengths, offset)
    if start is None:
        return []
    colours: list[Colour] = []
    for c, length in enumerate(lengths):
        for r in range(length):
            if (c, r) < start:
                continue
            if r == 0:
                colours.append("R" if lengths[c - 1] == lengths[c - 1 - offset] else "B")
            else:
                colours.append("B" if lengths[c - offset] == r else "R")
    return group_runs(colours)


def group_runs(colours: Sequence[Colour]) -> list[list[Colour]]:
    """Group a colour sequence into columns of consecutive equal colours (true length)."""
    columns: list[list[Colour]] = []
    for colour in colours:
        if columns and columns[-1][-1] == colour:
            columns[-1].append(colour)
        else:
            columns.append([colour])
    return columns


def all_roads(marks: Sequence[Mark]) -> Roads:
    """The five roads of one shoe from its coups in order (R28)."""
    big = big_road(marks)
    return {
        "bead_plate": bead_plate([mark.letter for mark in marks]),
        "big_road": big,
        "big_eye_boy": derived_road(big, BIG_EYE_BOY),
        "small_road": derived_road(big, SMALL_ROAD),
        "cockroach_pig": derived_road(big, COCKROACH_PIG),
    }


DERIVED_OFFSETS = (BIG_EYE_BOY, SMALL_ROAD, COCKROACH_PIG)


class BigRoadCell(NamedTuple):
    """A big-road entry as `RoadBoard` keeps it (immutable): winner, ties on it, natural."""

    winner: Side
    ties: int
    natural: bool


class RoadBoard(NamedTuple):
    """The five roads of a shoe so far, extended one coup at a time (`plus`): equal to
    `all_roads` over the same marks (tests/games/baccarat/test_roads.py proves it), without
    rebuilding the
    whole shoe every round. Immutable: what it was built from cannot change under it.

    A derived-road cell depends only on columns to the left of its own, which no later coup
    changes, so each big-road cell's three colours are decided when it is placed."""

    bead: tuple[tuple[Letter, ...], ...] = ()
    big: tuple[tuple[BigRoadCell, ...], ...] = ()
    pending_ties: int = 0  # ties before the first Player or Banker win
    derived: tuple[tuple[tuple[Colour, ...], ...], ...] = ((), (), ())  # by DERIVED_OFFSETS

    def plus(self, mark: Mark) -> RoadBoard:
        """The roads with one more coup."""
        letter, natural = mark
        bead = self.bead
        if bead and len(bead[-1]) < BEAD_ROWS:
            bead = (*bead[:-1], (*bead[-1], letter))
        else:
            bead = (*bead, (letter,))
        big = self.big
        if letter == "T":
            if not big:
                return self._replace(bead=bead, pending_ties=self.pending_ties + 1)
            last = big[-1][-1]
            big = (*big[:-1], (*big[-1][:-1], last._replace(ties=last.ties + 1)))
            return self._replace(bead=bead, big=big)
        cell = BigRoadCell(letter, self.pending_ties, natural)
        if big and big[-1][-1].winner == letter:
            c, r = len(big) - 1, len(big[-1])
            big = (*big[:-1], (*big[-1], cell))
        else:
            c, r = len(big), 0
            big = (*big, (cell,))
        derived = tuple(
            _with_colour(road, _colour(big, c, r, k)) if c > k or (c == k and r >= 1) else road
            for road, k in zip(self.derived, DERIVED_OFFSETS, strict=True)
        )
        return RoadBoard(bead, big, 0, derived)

    def roads(self) -> Roads:
        """The roads as `all_roads` returns them: a fresh dict, but each road's list grown from
        the one the board before it gave (`_road_list`), and sharing that one's columns: read
        them, never change them (a view is read-only)."""
        b, s, c = self.derived
        return {
            "bead_plate": _road_list("bead_plate", self.bead, list),
            "big_road": _road_list("big_road", self.big, _big_column),
            "big_eye_boy": _road_list("big_eye_boy", b, list),
            "small_road": _road_list("small_road", s, list),
            "cockroach_pig": _road_list("cockroach_pig", c, list),
        }


def _road_list(
    name: str, road: tuple[tuple[T, ...], ...], column: Callable[[tuple[T, ...]], U]
) -> list[U]:
    """`[column(c) for c in road]`, grown from the list last made for the road `name`: from one
    coup to the next a road keeps its columns but the last, which may change, and may gain one
    (`plus`), so only those are worked out again (a shoe's EZTRAK board is published every round,
    its roads eighty columns long by the end). Any other road is worked out whole. `column` must
    depend on the column's value only: equal columns are taken as they are."""
    last = _LAST_LISTS.get(name)
    if last is not None:
        before, made = last
        if road is before:
            return cast(list[U], made)
        kept = len(before) - 1
        if kept >= 0 and len(road) - kept in (1, 2) and road[:kept] == before[:kept]:
            grown = made[:kept]
            grown.extend(column(c) for c in road[kept:])
            _LAST_LISTS[name] = (road, grown)
            return cast(list[U], grown)
    made = [column(c) for c in road]
    _LAST_LISTS[name] = (road, made)
    return made


def _big_column(column: tuple[BigRoadCell, ...]) -> list[BigRoadEntry]:
    """A big-road column as `big_road` gives it."""
    return [{"winner": e.winner, "ties": e.ties, "natural": e.natural} for e in column]


_LAST_LISTS: dict[str, tuple[tuple[Any, ...], list[Any]]] = {}
"""Each road's last list (`_road_list`), with the road it was made of."""


def _colour(big: Sequence[Sized], c: int, r: int, offset: int) -> Colour:
    """The derived-road colour of big-road cell (c, r), as `derived_road` decides it."""
    if r == 0:
        return "R" if len(big[c - 1]) == len(big[c - 1 - offset]) else "B"
    return "B" if len(big[c - offset]) == r else "R"


def _with_colour(
    road: tuple[tuple[Colour, ...], ...], colour: Colour
) -> tuple[tuple[Colour, ...], ...]:
    """A derived road with one more colour, grouped into runs as `group_runs` does."""
    if road and road[-1][-1] == colour:
        return (*road[:-1], (*road[-1], colour))
    return (*road, (colour,))
