"""EZTRAK statistics and the `display/eztrak` payload (R28)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.games.baccarat.eztrak import (
    Coup,
    Scoreboard,
    Scoreboards,
    Winner,
    board_payload,
    display_payload,
    percent,
    shoe_roads,
    shoe_stats,
)


def coup(
    winner: Winner,
    player: int,
    banker: int,
    *,
    pn: bool = False,
    bn: bool = False,
    d7: bool = False,
    p8: bool = False,
) -> Coup:
    return Coup(winner, player, banker, pn, bn, d7, p8)


# A small shoe of 11 hands, worked by hand:
#   1 P 8-5 player natural          7 P 7-6
#   2 B 4-7 Dragon 7                8 P 5-1
#   3 T 6-6                         9 B 0-6
#   4 P 8-3 Panda 8 (three cards)  10 B 3-4
#   5 T 9-9 both naturals          11 P 9-7 (three cards)
#   6 B 2-9 banker natural
# Player 5/11 = 45.45 -> "45.5"; Banker 4/11 = 36.36 -> "36.4"; Tie 2/11 = 18.18 -> "18.2";
# Dragon 7 1/11 = 9.09 -> "9.1"; Panda 8 1/11 -> "9.1";
# naturals (either hand) hands 1, 5, 6 = 3/11 = 27.27 -> "27.3";
# player naturals hands 1, 5 = 2 -> "18.2"; banker naturals hands 5, 6 = 2 -> "18.2".
SHOE = [
    coup("player", 8, 5, pn=True),
    coup("banker", 4, 7, d7=True),
    coup("tie", 6, 6),
    coup("player", 8, 3, p8=True),
    coup("tie", 9, 9, pn=True, bn=True),
    coup("banker", 2, 9, bn=True),
    coup("player", 7, 6),
    coup("player", 5, 1),
    coup("banker", 0, 6),
    coup("banker", 3, 4),
    coup("player", 9, 7),
]

SHOE_STATS = {
    "hands": 11,
    "player": {"count": 5, "pct": "45.5"},
    "banker": {"count": 4, "pct": "36.4"},
    "tie": {"count": 2, "pct": "18.2"},
    "dragon7": {"count": 1, "pct": "9.1"},
    "panda8": {"count": 1, "pct": "9.1"},
    "naturals": {"count": 3, "pct": "27.3"},
    "player_naturals": {"count": 2, "pct": "18.2"},
    "banker_naturals": {"count": 2, "pct": "18.2"},
}

EMPTY_STATS = {
    "hands": 0,
    "player": {"count": 0, "pct": "0.0"},
    "banker": {"count": 0, "pct": "0.0"},
    "tie": {"count": 0, "pct": "0.0"},
    "dragon7": {"count": 0, "pct": "0.0"},
    "panda8": {"count": 0, "pct": "0.0"},
    "naturals": {"count": 0, "pct": "0.0"},
    "player_naturals": {"count": 0, "pct": "0.0"},
    "banker_naturals": {"count": 0, "pct": "0.0"},
}

LIMITS = {"player": "5-500", "banker": "5-500", "tie": "1-50"}


def test_small_shoe_counts_and_percentages_R28() -> None:
    assert shoe_stats(SHOE) == SHOE_STATS


def test_empty_shoe_gives_zeros_and_0_0_R28() -> None:
    assert shoe_stats([]) == EMPTY_STATS
    payload = display_payload([], None, LIMITS, None, 1)
    assert payload["hands"] == 0
    assert payload["stats"] == EMPTY_STATS
    assert payload["roads"] == {
        "bead_plate": [],
        "big_road": [],
        "big_eye_boy": [],
        "small_road": [],
        "cockroach_pig": [],
    }


def test_previous_shoe_statistics_carried_R28() -> None:
    current = SHOE[:2]
    payload = display_payload(current, SHOE, LIMITS, 30, 7)
    assert payload["previous"] == SHOE_STATS
    assert payload["stats"]["hands"] == 2
    assert payload["stats"]["player"] == {"count": 1, "pct": "50.0"}


def test_no_previous_shoe_is_null_R28() -> None:
    assert display_payload(SHOE, None, LIMITS, None, 1)["previous"] is None


def test_payload_fields_limits_and_bet_timer_R28() -> None:
    payload = display_payload(SHOE, [], LIMITS, 25, 4)
    assert list(payload) == ["shoe", "hands", "stats", "previous", "limits", "bet_timer", "roads"]
    assert payload["shoe"] == 4
    assert payload["hands"] == 11
    assert payload["stats"] == SHOE_STATS
    assert payload["previous"] == EMPTY_STATS
    assert payload["limits"] == LIMITS
    assert payload["limits"] is not LIMITS
    assert payload["bet_timer"] == 25
    assert display_payload(SHOE, None, LIMITS, None, 4)["bet_timer"] is None


# Roads of the small shoe, letters P B T P T B P P B B P:
# Big road: [P nat] [B, 1 tie] [P, 1 tie] [B nat] [P, P] [B, B] [P]; lengths [1,1,1,1,2,2,1].
# Big eye boy: col1 has 1 entry -> start (2,0).
#   (2,0) 1 vs 1 R; (3,0) 1 vs 1 R; (4,0) 1 vs 1 R; (4,1) col3 length 1 == r B;
#   (5,0) 2 vs 1 B; (5,1) col4 has row 1 R; (6,0) 2 vs 2 R       => RRR BB RR
# Small road: col2 has 1 entry -> start (3,0).
#   (3,0) col2 1 vs col0 1 R; (4,0) col3 1 vs col1 1 R; (4,1) col2 length 1 == r B;
#   (5,0) col4 2 vs col2 1 B; (5,1) col3 length 1 == r B; (6,0) col5 2 vs col3 1 B => RR BBBB
# Cockroach pig: col3 has 1 entry -> start (4,0).
#   (4,0) col3 1 vs col0 1 R; (4,1) col1 length 1 == r B; (5,0) col4 2 vs col1 1 B;
#   (5,1) col2 length 1 == r B; (6,0) col5 2 vs col2 1 B             => R BBBB
def test_small_shoe_five_roads_R28() -> None:
    def entry(winner: str, ties: int = 0, natural: bool = False) -> dict[str, object]:
        return {"winner": winner, "ties": ties, "natural": natural}

    roads = display_payload(SHOE, None, LIMITS, None, 1)["roads"]
    assert list(roads) == ["bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"]
    assert roads["bead_plate"] == [list("PBTPTB"), list("PPBBP")]
    assert roads["big_road"] == [
        [entry("P", natural=True)],
        [entry("B", ties=1)],
        [entry("P", ties=1)],
        [entry("B", natural=True)],
        [entry("P"), entry("P")],
        [entry("B"), entry("B")],
        [entry("P")],
    ]
    assert roads["big_eye_boy"] == [list("RRR"), list("BB"), list("RR")]
    assert roads["small_road"] == [list("RR"), list("BBBB")]
    assert roads["cockroach_pig"] == [list("R"), list("BBBB")]


def test_payload_deterministic_and_json_round_trips_R28() -> None:
    first = display_payload(SHOE, SHOE[:3], LIMITS, 20, 2)
    second = display_payload(list(SHOE), list(SHOE[:3]), dict(LIMITS), 20, 2)
    assert first == second
    assert json.dumps(first) == json.dumps(second)
    # A tuple anywhere would come back as a list and break equality.
    assert json.loads(json.dumps(first)) == first


@pytest.mark.parametrize(
    ("count", "hands", "text"),
    [
        (0, 0, "0.0"),
        (3, 0, "0.0"),
        (0, 7, "0.0"),
        (1, 1, "100.0"),
        (1, 3, "33.3"),
        (2, 3, "66.7"),
        (1, 8, "12.5"),
        (1, 16, "6.3"),  # 6.25 rounds half up
        (1, 80, "1.3"),  # 1.25 rounds half up
        (5, 11, "45.5"),
        (1, 1000, "0.1"),
        (1, 2001, "0.0"),
    ],
)
def test_percent_one_decimal_half_up_R28(count: int, hands: int, text: str) -> None:
    assert percent(count, hands) == text


@pytest.mark.parametrize(
    "args",
    [
        ("player", 3, 5, False, False, False, False),  # winner contradicts totals
        ("tie", 3, 5, False, False, False, False),
        ("banker", 3, 10, False, False, False, False),  # not a baccarat total
        ("player", 7, 2, True, False, False, False),  # a natural is 8 or 9
        ("banker", 7, 9, False, False, True, False),  # Dragon 7 is a banker 7
        ("banker", 6, 7, False, False, False, True),  # Panda 8 is a player win
        ("player", 8, 2, True, False, False, True),  # Panda 8 is a three-card 8
        ("player", 8, 8, False, False, False, True),
    ],
)
def test_contradictory_coup_refused_R28(
    args: tuple[Winner, int, int, bool, bool, bool, bool],
) -> None:
    with pytest.raises(ValueError):
        Coup(*args)


@st.composite
def coups(draw: st.DrawFn) -> Coup:
    """Any self-consistent coup."""
    player = draw(st.integers(0, 9))
    banker = draw(st.integers(0, 9))
    winner: Winner = "player" if player > banker else "banker" if banker > player else "tie"
    pn = player >= 8 and draw(st.booleans())
    bn = banker >= 8 and draw(st.booleans())
    d7 = winner == "banker" and banker == 7 and player <= 6 and draw(st.booleans())
    p8 = winner == "player" and player == 8 and not pn and banker <= 7 and draw(st.booleans())
    return Coup(winner, player, banker, pn, bn, d7, p8)


@given(st.lists(coups(), max_size=80), st.one_of(st.none(), st.lists(coups(), max_size=20)))
def test_stats_and_roads_consistent_for_any_shoe_R28(
    current: list[Coup], previous: list[Coup] | None
) -> None:
    payload = display_payload(current, previous, LIMITS, None, 3)
    stats = payload["stats"]
    assert stats["hands"] == payload["hands"] == len(current)
    assert stats["player"]["count"] + stats["banker"]["count"] + stats["tie"]["count"] == len(
        current
    )
    assert (
        stats["naturals"]["count"]
        <= stats["player_naturals"]["count"] + stats["banker_naturals"]["count"]
    )
    for block in stats.values():
        if isinstance(block, dict):
            whole, _, tenth = block["pct"].partition(".")
            assert whole.isdigit() and len(tenth) == 1 and tenth.isdigit()
            assert 0 <= float(block["pct"]) <= 100
    roads = payload["roads"]
    assert sum(len(column) for column in roads["bead_plate"]) == len(current)
    assert roads == shoe_roads(current)
    assert json.loads(json.dumps(payload)) == payload


@given(st.lists(coups(), max_size=90), st.one_of(st.none(), st.lists(coups(), max_size=20)))
def test_scoreboard_kept_coup_by_coup_equals_full_recomputation_R28(
    current: list[Coup], previous: list[Coup] | None
) -> None:
    """What the engine publishes round by round (a Scoreboard grown one coup at a time) is,
    after every coup, the statistics, roads and payload recomputed over the whole shoe."""
    before = None if previous is None else Scoreboard.of(previous)
    board = Scoreboard()
    for n, coup in enumerate(current, start=1):
        board = board.plus(coup)
        assert board.coups == tuple(current[:n])
        assert board.stats() == shoe_stats(current[:n])
        assert board.roads.roads() == shoe_roads(current[:n])
    full = display_payload(current, previous, LIMITS, 25, 4)
    assert board_payload(board, before, LIMITS, 25, 4) == full
    assert json.dumps(board_payload(board, before, LIMITS, 25, 4)) == json.dumps(full)


@given(st.lists(st.tuples(st.lists(coups(), max_size=12), st.integers(0, 12)), max_size=12))
def test_scoreboards_cache_gives_the_board_of_exactly_the_coups_asked_R28(
    asks: list[tuple[list[Coup], int]],
) -> None:
    """Whatever order shoes are asked for in (growing, restarted, an older state restored after
    an engine error, a previous shoe), the cached board is the one of exactly those coups."""
    boards = Scoreboards()
    shoe: tuple[Coup, ...] = ()
    for more, cut in asks:
        shoe = (*shoe[: max(len(shoe) - cut, 0)], *more)
        for n in range(len(shoe) + 1):
            board = boards.of(shoe[:n])
            assert board.coups == shoe[:n]
            assert board.stats() == shoe_stats(shoe[:n])
            assert board.roads.roads() == shoe_roads(shoe[:n])
