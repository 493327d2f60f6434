"""The five scoreboard roads (R28): hand-worked shoes, an independent grid check, properties."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby, pairwise

from hypothesis import given
from hypothesis import strategies as st

from tablectl.rules.roads import (
    BIG_EYE_BOY,
    COCKROACH_PIG,
    SMALL_ROAD,
    Colour,
    Letter,
    Mark,
    RoadBoard,
    all_roads,
    bead_plate,
    big_road,
    derived_road,
    derived_start,
)


def marks(text: str) -> list[Mark]:
    """Marks from a string of letters, e.g. "PBT"; no naturals."""
    out: list[Mark] = []
    for ch in text:
        assert ch in ("P", "B", "T")
        letter: Letter = "P" if ch == "P" else "B" if ch == "B" else "T"
        out.append(Mark(letter))
    return out


def cols(spec: str) -> list[list[Colour]]:
    """Derived-road columns from a spec like "R BBBBB R": one word per column."""
    out: list[list[Colour]] = []
    for word in spec.split():
        out.append(["R" if ch == "R" else "B" for ch in word])
    return out


def lengths(text: str) -> list[int]:
    """True big-road column lengths of a letter string."""
    return [len(column) for column in big_road(marks(text))]


# --- Worked shoe 1: "BBPPPBPPTBBBB" -----------------------------------------------------------
# Big road: col0 B,B | col1 P,P,P | col2 B | col3 P,P (tie on the 2nd P) | col4 B,B,B,B
# Lengths [2, 3, 1, 2, 4]; 12 entries, 1 tie.
#
# Big eye boy (k=1): col1 has 3 entries, so start at (1,1).
#   (1,1) r>0, col0 has row 1 -> R     (1,2) col0 length 2 == r -> B
#   (2,0) len col1 3 vs col0 2 -> B     (3,0) len col2 1 vs col1 3 -> B
#   (3,1) col2 length 1 == r -> B       (4,0) len col3 2 vs col2 1 -> B
#   (4,1) col3 has row 1 -> R           (4,2) col3 length 2 == r -> B
#   (4,3) col3 length 2 < r -> R
#   => R B B B B B R B R
# Small road (k=2): col2 has 1 entry, so start at (3,0).
#   (3,0) len col2 1 vs col0 2 -> B     (3,1) col1 has row 1 -> R
#   (4,0) len col3 2 vs col1 3 -> B     (4,1) col2 length 1 == r -> B
#   (4,2) col2 length 1 < r -> R        (4,3) col2 length 1 < r -> R
#   => B R B B R R
# Cockroach pig (k=3): col3 has 2 entries, so start at (3,1).
#   (3,1) col0 has row 1 -> R           (4,0) len col3 2 vs col0 2 -> R
#   (4,1) col1 has row 1 -> R           (4,2) col1 has row 2 -> R
#   (4,3) col1 length 3 == r -> B
#   => R R R R B
SHOE_1 = "BBPPPBPPTBBBB"


def test_worked_shoe_1_big_road_true_lengths_R28() -> None:
    assert lengths(SHOE_1) == [2, 3, 1, 2, 4]
    big = big_road(marks(SHOE_1))
    assert [[e["winner"] for e in column] for column in big] == [
        ["B", "B"],
        ["P", "P", "P"],
        ["B"],
        ["P", "P"],
        ["B", "B", "B", "B"],
    ]
    assert [[e["ties"] for e in column] for column in big][3] == [0, 1]


def test_worked_shoe_1_big_eye_boy_R28() -> None:
    assert derived_road(big_road(marks(SHOE_1)), BIG_EYE_BOY) == cols("R BBBBB R B R")


def test_worked_shoe_1_small_road_R28() -> None:
    assert derived_road(big_road(marks(SHOE_1)), SMALL_ROAD) == cols("B R BB RR")


def test_worked_shoe_1_cockroach_pig_R28() -> None:
    assert derived_road(big_road(marks(SHOE_1)), COCKROACH_PIG) == cols("RRRR B")


# --- Worked shoe 2: "TPBPBPB" (a leading tie, then a chop) ------------------------------------
# Big road: six columns of one entry; the leading tie is counted on the first P.
# Lengths [1,1,1,1,1,1].
# Big eye boy: col1 has 1 entry -> start (2,0); every new column compares two columns of
#   length 1 -> equal -> R at (2,0),(3,0),(4,0),(5,0)         => RRRR
# Small road: col2 has 1 entry -> start (3,0); R at (3,0),(4,0),(5,0)   => RRR
# Cockroach pig: col3 has 1 entry -> start (4,0); R at (4,0),(5,0)     => RR
# Bead plate: T P B P B P | B
SHOE_2 = "TPBPBPB"


def test_worked_shoe_2_leading_tie_counts_on_first_entry_R28() -> None:
    big = big_road(marks(SHOE_2))
    assert [len(column) for column in big] == [1, 1, 1, 1, 1, 1]
    assert big[0][0] == {"winner": "P", "ties": 1, "natural": False}
    assert sum(e["ties"] for column in big for e in column) == 1


def test_worked_shoe_2_chop_derived_roads_all_red_R28() -> None:
    big = big_road(marks(SHOE_2))
    assert derived_road(big, BIG_EYE_BOY) == cols("RRRR")
    assert derived_road(big, SMALL_ROAD) == cols("RRR")
    assert derived_road(big, COCKROACH_PIG) == cols("RR")


def test_worked_shoe_2_bead_plate_columns_of_six_R28() -> None:
    assert bead_plate([m.letter for m in marks(SHOE_2)]) == [
        ["T", "P", "B", "P", "B", "P"],
        ["B"],
    ]


# --- Worked shoe 3: "BBBBBBBPPB" (a seven-long streak) ----------------------------------------
# Big road: col0 seven Bs at TRUE length (no dragon tail, R28) | col1 P,P | col2 B.
# Lengths [7, 2, 1].
# Big eye boy: col1 has 2 entries -> start (1,1).
#   (1,1) col0 has row 1 -> R     (2,0) len col1 2 vs col0 7 -> B      => R B
# Small road: col2 has 1 entry and there is no col3 -> not started.
# Cockroach pig: there is no col3 -> not started.
SHOE_3 = "BBBBBBBPPB"


def test_worked_shoe_3_long_column_not_wrapped_R28() -> None:
    big = big_road(marks(SHOE_3))
    assert [len(column) for column in big] == [7, 2, 1]
    assert bead_plate([m.letter for m in marks(SHOE_3)]) == [
        ["B"] * 6,
        ["B", "P", "P", "B"],
    ]


def test_worked_shoe_3_derived_roads_R28() -> None:
    big = big_road(marks(SHOE_3))
    assert derived_road(big, BIG_EYE_BOY) == cols("R B")
    assert derived_road(big, SMALL_ROAD) == []
    assert derived_road(big, COCKROACH_PIG) == []


# --- Small cases ------------------------------------------------------------------------------


def test_tie_counts_on_last_big_road_entry_R28() -> None:
    big = big_road(marks("PPTTBT"))
    assert big == [
        [
            {"winner": "P", "ties": 0, "natural": False},
            {"winner": "P", "ties": 2, "natural": False},
        ],
        [{"winner": "B", "ties": 1, "natural": False}],
    ]


def test_tie_does_not_open_or_break_a_column_R28() -> None:
    assert lengths("BTBTTB") == [3]


def test_only_ties_leave_big_road_empty_but_bead_plate_full_R28() -> None:
    roads = all_roads(marks("TTT"))
    assert roads["bead_plate"] == [["T", "T", "T"]]
    assert roads["big_road"] == []
    assert roads["big_eye_boy"] == roads["small_road"] == roads["cockroach_pig"] == []


def test_natural_flag_carried_on_big_road_entry_R28() -> None:
    big = big_road([Mark("B", True), Mark("T", True), Mark("B", False)])
    assert big == [
        [
            {"winner": "B", "ties": 1, "natural": True},
            {"winner": "B", "ties": 0, "natural": False},
        ]
    ]


def test_derived_start_positions_R28() -> None:
    assert derived_start([2, 3], 1) == (1, 1)
    assert derived_start([2, 1], 1) is None  # column 1 has one entry, no column 2 yet
    assert derived_start([2, 1, 1], 1) == (2, 0)
    assert derived_start([1, 1], 2) is None
    assert derived_start([1, 1, 1, 1], 3) is None
    assert derived_start([1, 1, 1, 1, 1], 3) == (4, 0)


def test_empty_shoe_all_roads_empty_R28() -> None:
    assert all_roads([]) == {
        "bead_plate": [],
        "big_road": [],
        "big_eye_boy": [],
        "small_road": [],
        "cockroach_pig": [],
    }


# --- Independent reference: a cell grid read the way a dealer reads the board -----------------


def grid_reference(letters: Sequence[str], k: int) -> list[str]:
    """Derived road by looking up cells on a drawn big-road grid, not by column lengths."""
    cells: set[tuple[int, int]] = set()
    order: list[tuple[int, int]] = []
    col, row, last = -1, 0, ""
    for letter in letters:
        if letter == "T":
            continue
        if letter == last:
            row += 1
        else:
            col, row, last = col + 1, 0, letter
        cells.add((col, row))
        order.append((col, row))
    if (k, 1) in cells:
        start = (k, 1)
    elif (k + 1, 0) in cells:
        start = (k + 1, 0)
    else:
        return []
    out: list[str] = []
    started = False
    for c, r in order:
        started = started or (c, r) == start
        if not started:
            continue
        if r == 0:
            # Walk down columns c-1 and c-1-k together; they are "neat" if they end together.
            i = 0
            while (c - 1, i) in cells and (c - 1 - k, i) in cells:
                i += 1
            neat = (c - 1, i) not in cells and (c - 1 - k, i) not in cells
            out.append("R" if neat else "B")
        else:
            # Blue only when the cell k columns left is empty but the one above it is filled.
            empty_left = (c - k, r) not in cells
            filled_above_left = (c - k, r - 1) in cells
            out.append("B" if empty_left and filled_above_left else "R")
    return out


def flatten(columns: Sequence[Sequence[str]]) -> list[str]:
    return [x for column in columns for x in column]


def test_grid_reference_agrees_on_worked_shoe_1_R28() -> None:
    assert grid_reference(SHOE_1, 1) == list("RBBBBBRBR")
    assert grid_reference(SHOE_1, 2) == list("BRBBRR")
    assert grid_reference(SHOE_1, 3) == list("RRRRB")


# --- Properties -------------------------------------------------------------------------------

shoes = st.lists(st.sampled_from(["P", "B", "T"]), max_size=90).map("".join)
streaky = st.lists(st.tuples(st.sampled_from(["P", "B", "T"]), st.integers(1, 9)), max_size=20).map(
    lambda runs: "".join(letter * n for letter, n in runs)
)
any_shoe = st.one_of(shoes, streaky)


@given(any_shoe)
def test_bead_plate_has_every_coup_in_columns_of_six_R28(text: str) -> None:
    plate = bead_plate([m.letter for m in marks(text)])
    assert "".join(flatten(plate)) == text
    assert all(len(column) == 6 for column in plate[:-1])
    assert all(1 <= len(column) <= 6 for column in plate)


@given(any_shoe)
def test_big_road_entries_plus_ties_equal_coups_R28(text: str) -> None:
    big = big_road(marks(text))
    entries = sum(len(column) for column in big)
    ties = sum(e["ties"] for column in big for e in column)
    assert entries == text.count("P") + text.count("B")
    if entries:
        assert entries + ties == len(text)
    else:
        assert big == []


@given(any_shoe)
def test_big_road_column_lengths_are_true_runs_R28(text: str) -> None:
    big = big_road(marks(text))
    decisive = text.replace("T", "")
    runs = [(key, len(list(group))) for key, group in groupby(decisive)]
    assert [(column[0]["winner"], len(column)) for column in big] == runs
    for column in big:
        assert len({e["winner"] for e in column}) == 1
    for left, right in pairwise(big):
        assert left[0]["winner"] != right[0]["winner"]


@given(any_shoe, st.sampled_from([BIG_EYE_BOY, SMALL_ROAD, COCKROACH_PIG]))
def test_derived_road_entry_count_from_start_R28(text: str, k: int) -> None:
    big = big_road(marks(text))
    road = derived_road(big, k)
    start = derived_start([len(column) for column in big], k)
    expected = sum(
        1 for c, column in enumerate(big) for r in range(len(column)) if start and (c, r) >= start
    )
    assert len(flatten(road)) == expected


@given(any_shoe, st.sampled_from([BIG_EYE_BOY, SMALL_ROAD, COCKROACH_PIG]))
def test_derived_road_matches_grid_reference_R28(text: str, k: int) -> None:
    assert flatten(derived_road(big_road(marks(text)), k)) == grid_reference(text, k)


@given(any_shoe, st.sampled_from([BIG_EYE_BOY, SMALL_ROAD, COCKROACH_PIG]))
def test_derived_road_columns_are_true_colour_runs_R28(text: str, k: int) -> None:
    road = derived_road(big_road(marks(text)), k)
    assert all(column and len(set(column)) == 1 for column in road)
    for left, right in pairwise(road):
        assert left[0] != right[0]


@given(st.lists(st.tuples(st.sampled_from(["P", "B", "T"]), st.booleans()), max_size=90))
def test_road_board_kept_coup_by_coup_equals_all_roads_recomputed_R28(
    coups: list[tuple[Letter, bool]],
) -> None:
    """The incremental roads the engine publishes are, after every coup, exactly the roads
    recomputed from the whole shoe (naturals included)."""
    board = RoadBoard()
    seen: list[Mark] = []
    assert board.roads() == all_roads(seen)
    for letter, natural in coups:
        seen.append(Mark(letter, natural))
        board = board.plus(seen[-1])
        assert board.roads() == all_roads(seen)


@given(streaky)
def test_road_board_equals_all_roads_on_long_streaks_R28(text: str) -> None:
    board = RoadBoard()
    for mark in marks(text):
        board = board.plus(mark)
    assert board.roads() == all_roads(marks(text))


@given(
    st.lists(st.tuples(st.sampled_from(["P", "B", "T"]), st.booleans()), max_size=60),
    st.lists(st.tuples(st.sampled_from(["P", "B", "T"]), st.booleans()), max_size=60),
    st.lists(st.integers(0, 2), max_size=40),
)
def test_road_lists_are_right_whatever_board_was_asked_before_R28(
    one: list[tuple[Letter, bool]], two: list[tuple[Letter, bool]], asks: list[int]
) -> None:
    """A board's road lists are grown from those the last board asked gave (the shoe one coup
    back, as a table asks): asked of two shoes in turn, of a board again, of an older one or
    of a new shoe, each board's roads are still exactly those recomputed from its marks."""
    boards = [[RoadBoard()], [RoadBoard()]]
    for shoe, coups in zip(boards, (one, two), strict=True):
        for letter, natural in coups:
            shoe.append(shoe[-1].plus(Mark(letter, natural)))
    shoe_marks = [[Mark(x, n) for x, n in one], [Mark(x, n) for x, n in two]]
    for i, ask in enumerate(asks):
        which = i % 2
        n = min(len(boards[which]) - 1, i // 2 + ask)
        assert boards[which][n].roads() == all_roads(shoe_marks[which][:n])
