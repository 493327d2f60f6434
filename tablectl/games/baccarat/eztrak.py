"""EZTRAK statistics for one baccarat shoe and the retained `display/eztrak` payload (R28).

The EZTRAK display shows the table limits, counts and percentages of Player, Banker, Tie,
Dragon 7 and Panda 8 wins, naturals, the hands dealt in this shoe, the previous shoe's statistics,
an optional bet timer, and the five scoreboard roads. This module is pure: the baccarat engine
hands it the finished coups and publishes the dict it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from tablectl.rules.roads import Letter, Mark, RoadBoard, all_roads

Winner = Literal["player", "banker", "tie"]

_LETTERS: dict[Winner, Letter] = {"player": "P", "banker": "B", "tie": "T"}


@dataclass(frozen=True)
class Coup:
    """One finished baccarat round as the scoreboard sees it."""

    winner: Winner
    player_total: int
    banker_total: int
    player_natural: bool  # player's first two cards made 8 or 9
    banker_natural: bool
    dragon7: bool  # banker won with a three-card 7 against player 6 or less
    panda8: bool  # player won with a three-card 8 against banker 7 or less

    def __post_init__(self) -> None:
        """Refuse a coup that contradicts itself, so an engine bug cannot reach the display."""
        if self.winner not in _LETTERS:
            raise ValueError(f"winner must be player, banker or tie, not {self.winner!r}")
        for name, total in (
            ("player_total", self.player_total),
            ("banker_total", self.banker_total),
        ):
            if isinstance(total, bool) or not isinstance(total, int) or not 0 <= total <= 9:
                raise ValueError(f"{name} must be a baccarat total 0-9, not {total!r}")
        if self.winner != _winner_of(self.player_total, self.banker_total):
            raise ValueError(
                f"winner {self.winner} contradicts totals {self.player_total}-{self.banker_total}"
            )
        if self.player_natural and self.player_total < 8:
            raise ValueError(f"a player natural totals 8 or 9, not {self.player_total}")
        if self.banker_natural and self.banker_total < 8:
            raise ValueError(f"a banker natural totals 8 or 9, not {self.banker_total}")
        if self.dragon7 and not (
            self.winner == "banker" and self.banker_total == 7 and self.player_total <= 6
        ):
            raise ValueError("Dragon 7 needs a banker win with 7 against player 6 or less")
        if self.panda8 and not (
            self.winner == "player"
            and self.player_total == 8
            and not self.player_natural
            and self.banker_total <= 7
        ):
            raise ValueError("Panda 8 needs a three-card player 8 against banker 7 or less")

    @property
    def natural(self) -> bool:
        """Either hand was a natural (the EZTRAK "occurrence of Naturals")."""
        return self.player_natural or self.banker_natural


def _winner_of(player_total: int, banker_total: int) -> Winner:
    """The hand closer to nine wins; equal totals tie."""
    if player_total > banker_total:
        return "player"
    if banker_total > player_total:
        return "banker"
    return "tie"


def percent(count: int, hands: int) -> str:
    """`count` as a percentage of `hands`, one decimal place, half up; "0.0" when no hands.

    Integer arithmetic keeps it exact and identical on every platform (no float rounding).
    """
    if hands <= 0:
        return "0.0"
    tenths = (count * 2000 + hands) // (2 * hands)
    return f"{tenths // 10}.{tenths % 10}"


_COUNTERS: tuple[tuple[str, Callable[[Coup], bool]], ...] = (
    ("player", lambda coup: coup.winner == "player"),
    ("banker", lambda coup: coup.winner == "banker"),
    ("tie", lambda coup: coup.winner == "tie"),
    ("dragon7", lambda coup: coup.dragon7),
    ("panda8", lambda coup: coup.panda8),
    ("naturals", lambda coup: coup.natural),
    ("player_naturals", lambda coup: coup.player_natural),
    ("banker_naturals", lambda coup: coup.banker_natural),
)
"""Each statistic the display shows, in display order, with the test for a coup counting."""


def shoe_stats(coups: Sequence[Coup]) -> dict[str, Any]:
    """Counts and percentages (of hands in the shoe) for one shoe (R28).

    Shape: `{"hands": n, "player": {"count": c, "pct": "45.5"}, ...}` for player, banker, tie,
    dragon7, panda8, naturals (either hand), player_naturals and banker_naturals.
    """
    hands = len(coups)
    stats: dict[str, Any] = {"hands": hands}
    for name, counts in _COUNTERS:
        count = sum(1 for coup in coups if counts(coup))
        stats[name] = {"count": count, "pct": percent(count, hands)}
    return stats


def shoe_roads(coups: Sequence[Coup]) -> dict[str, Any]:
    """The five scoreboard roads for one shoe, built from true column lengths (R28)."""
    marks = [Mark(_LETTERS[coup.winner], coup.natural) for coup in coups]
    return dict(all_roads(marks))


def display_payload(
    current: Sequence[Coup],
    previous: Sequence[Coup] | None,
    limits: Mapping[str, str],
    bet_timer_seconds: int | None,
    shoe_number: int,
) -> dict[str, Any]:
    """The JSON-able payload for the retained `display/eztrak` topic (without table/seq).

    Same input, same dict with the same key order; lists only, never tuples. `previous` is the
    previous shoe's statistics block or None; `bet_timer` is the optional timer that closes
    betting by itself, in seconds, or None when the table runs without one.
    """
    return {
        "shoe": shoe_number,
        "hands": len(current),
        "stats": shoe_stats(current),
        "previous": None if previous is None else shoe_stats(previous),
        "limits": dict(limits),
        "bet_timer": bet_timer_seconds,
        "roads": shoe_roads(current),
    }


class Scoreboard(NamedTuple):
    """One shoe's statistics and roads kept as its coups come (`plus`), equal to `shoe_stats`
    and `shoe_roads` over the same coups (tests/games/baccarat/test_eztrak.py proves it): a round
    costs one
    coup's work, not the whole shoe's. Immutable; `coups` says exactly what it was built from."""

    coups: tuple[Coup, ...] = ()
    counts: tuple[int, ...] = (0,) * len(_COUNTERS)  # by _COUNTERS
    roads: RoadBoard = RoadBoard()

    @classmethod
    def of(cls, coups: Sequence[Coup]) -> Scoreboard:
        board = cls()
        for coup in coups:
            board = board.plus(coup)
        return board

    def plus(self, coup: Coup) -> Scoreboard:
        """The scoreboard with one more coup."""
        counts = tuple(
            n + counts_it(coup) for n, (_, counts_it) in zip(self.counts, _COUNTERS, strict=True)
        )
        mark = Mark(_LETTERS[coup.winner], coup.natural)
        return Scoreboard((*self.coups, coup), counts, self.roads.plus(mark))

    def stats(self) -> dict[str, Any]:
        """`shoe_stats` of its coups (a fresh dict)."""
        hands = len(self.coups)
        stats: dict[str, Any] = {"hands": hands}
        for (name, _), count in zip(_COUNTERS, self.counts, strict=True):
            stats[name] = {"count": count, "pct": percent(count, hands)}
        return stats


KEPT_BOARDS = 3  # this shoe's, the one it grew from, and the previous shoe's


class Scoreboards:
    """The Scoreboard of a shoe's coups, built from the last ones asked for: a shoe grows by one
    coup a round, so each is one `plus` away. Found by comparing the immutable coups tuples (the
    same objects, so the comparison is cheap), never by position or round number."""

    def __init__(self) -> None:
        self._kept: tuple[Scoreboard, ...] = ()  # the last few asked for, newest first

    def of(self, coups: tuple[Coup, ...]) -> Scoreboard:
        board = next((b for b in self._kept if b.coups is coups or b.coups == coups), None)
        if board is None:
            grown = next((b for b in self._kept if coups[:-1] == b.coups), None) if coups else None
            board = Scoreboard.of(coups) if grown is None else grown.plus(coups[-1])
        self._kept = (board, *(b for b in self._kept if b is not board))[:KEPT_BOARDS]
        return board


def board_payload(
    current: Scoreboard,
    previous: Scoreboard | None,
    limits: Mapping[str, str],
    bet_timer_seconds: int | None,
    shoe_number: int,
) -> dict[str, Any]:
    """`display_payload` from scoreboards kept as the shoe is dealt: the same dict."""
    return {
        "shoe": shoe_number,
        "hands": len(current.coups),
        "stats": current.stats(),
        "previous": None if previous is None else previous.stats(),
        "limits": dict(limits),
        "bet_timer": bet_timer_seconds,
        "roads": current.roads.roads(),
    }
