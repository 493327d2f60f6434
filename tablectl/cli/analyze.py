"""`tablectl analyze`: hit frequency and house edge of a game's wager (each game's spec says which
wagers it analyzes), as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from tablectl.cli.common import EXIT_OK, EXIT_USAGE, add_command, positive

if TYPE_CHECKING:
    from tablectl.games.spec import AnalyzeOption


def add_parser(sub: Any) -> None:
    from tablectl.analysis.examples import ANALYZE_EXAMPLES

    games = analyzed_games()
    analyze = add_command(
        sub,
        "analyze",
        "hit frequency and house edge of a wager (exact, or simulated with its interval)",
        "Hit frequency and house edge of a wager, in percent. An exact figure is the headline;\n"
        "a simulated one is printed with its 95% confidence interval (and, where an exact figure\n"
        "exists too, as a cross-check of it, with a note on what a difference means). Progress\n"
        "goes to stderr on a terminal.\n\n"
        "wagers by game:\n" + "\n".join(f"  {g}: {' '.join(w)}" for g, w in games.items()),
        ANALYZE_EXAMPLES,
    )
    analyze.add_argument(
        "--game",
        required=True,
        choices=list(games),
        metavar="GAME",
        help="the game id: " + ", ".join(games),
    )
    analyze.add_argument(
        "--wager",
        required=True,
        metavar="WAGER",
        help="the wager (spot) id: each game's wagers are listed above (another is refused, "
        "naming the game's)",
    )
    analyze.add_argument(
        "--paytable", metavar="NAME", help="the pay table (default: the wager's usual one)"
    )
    analyze.add_argument(
        "--decks",
        type=positive,
        help="games dealt from a shoe: decks in it (default: the game's own, "
        + ", ".join(f"{g} {d}" for g in games if (d := default_decks(g)) is not None)
        + ")",
    )
    for option in game_options():  # each game's own (its spec's `analyze_options`)
        if option.choices is None:
            analyze.add_argument(option.flag, action="store_true", help=option.help)
        else:
            analyze.add_argument(option.flag, choices=list(option.choices), help=option.help)
    analyze.add_argument(
        "--json",
        action="store_true",
        help="every figure as one JSON document: fractions of one, each with its percent "
        "beside it (<name>_pct)",
    )
    analyze.set_defaults(func=cmd_analyze)


def analyzed_games() -> dict[str, tuple[str, ...]]:
    """Each game `analyze` knows -> the wagers it analyzes: the registry's games that have an
    analysis, with the wagers their specs name (`analyzed_wagers`; every spot by default)."""
    from tablectl.games.registry import game_ids, spec_of

    return {gid: spec_of(gid).analyzed(gid) for gid in game_ids() if spec_of(gid).analyzer}


def game_options() -> list[AnalyzeOption]:
    """The options games add to `analyze` (`GameSpec.analyze_options`), each once, in the
    registry's order of the games."""
    from tablectl.games.registry import game_ids, spec_of

    found: dict[str, AnalyzeOption] = {}
    for gid in game_ids():
        for option in spec_of(gid).analyze_options:
            found.setdefault(option.flag, option)
    return list(found.values())


def default_decks(game: str) -> int | None:
    """The deck count of a game's shoe when its config does not say (its `[game]` model's
    default), None for a game dealt from one deck a round."""
    from tablectl.games.registry import spec_of

    spec = spec_of(game)
    if not spec.dealt_from_shoe:
        return None
    field = spec.settings[game].model_fields.get("decks")
    default = None if field is None else field.default
    return default if isinstance(default, int) else None


def cmd_analyze(args: argparse.Namespace) -> int:
    from tablectl.analysis import progress_to, with_percents
    from tablectl.games.registry import spec_of
    from tablectl.games.spec import AnalyzeRequest

    try:
        spec = spec_of(args.game)
    except ValueError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.decks is not None and not spec.dealt_from_shoe:
        print(
            f"tablectl: {args.game} is dealt from one deck a round: --decks does not apply",
            file=sys.stderr,
        )
        return EXIT_USAGE
    request = AnalyzeRequest(
        game=args.game,
        wager=args.wager,
        paytable=args.paytable,
        decks=args.decks if args.decks is not None else default_decks(args.game),
        **{option.field: getattr(args, option.field) for option in game_options()},
    )
    counter = ProgressCounter(sys.stderr)
    try:
        with progress_to(counter):
            analysis = spec.analyze(request)
    except (ValueError, KeyError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        counter.close()
    if args.json:
        print(json.dumps(with_percents(analysis.result)))
    else:
        print("\n".join(analysis_lines(analysis.what, analysis.result)))
    return EXIT_OK


PROGRESS_AFTER = 3.0
"""Seconds an analysis runs before ProgressCounter shows anything."""


class ProgressCounter:
    """`analyze`'s progress on a terminal: "parts done/total, seconds" on one line of stderr,
    rewritten in place, once the analysis has run PROGRESS_AFTER seconds; nothing when stderr is
    not a terminal (a log, a pipe, a test)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        isatty = getattr(stream, "isatty", None)
        self.enabled = bool(isatty is not None and isatty())
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.started
        if not self.enabled or elapsed < PROGRESS_AFTER:
            return
        self.stream.write(f"\ranalyze: {done}/{total} parts done, {elapsed:.0f} s")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """End the progress line, if one was shown."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False


def _pct(x: float) -> str:
    return f"{100 * x:.4f}%"


def _interval(ci: Sequence[float]) -> str:
    return f"95% interval {_pct(ci[0])} to {_pct(ci[1])}"


def _simulated(result: Mapping[str, Any]) -> str:
    """A simulation's figures, each with its 95% interval, and its size."""
    parts = [f"hit frequency {_pct(float(result['hit_frequency']))}"]
    if "hit_frequency_ci95" in result:
        parts[0] += f" ({_interval(result['hit_frequency_ci95'])})"
    parts.append(f"house edge {_pct(float(result['house_edge']))}")
    if "ci95" in result:
        parts[1] += f" ({_interval(result['ci95'])})"
    size = f", {result['hands']:,} rounds" if "hands" in result else ""
    seed = f", seed {result['seed']}" if "seed" in result else ""
    return ", ".join(parts) + f" (simulation{size}{seed})"


def analysis_lines(what: str, result: Mapping[str, Any]) -> list[str]:
    """`analyze`'s text, the same figures as `--json` in the same order, every one a percent: an
    exact figure is the headline; a simulation is printed with the 95% interval of every figure,
    as the cross-check (`result["simulation"]`) of the exact figure when there is one, followed
    by its note (which figure is the headline, and what a difference between them means)."""
    check = result.get("simulation")
    if result.get("method") == "exact" and isinstance(check, Mapping):
        hit, edge = float(result["hit_frequency"]), float(result["house_edge"])
        low, high = (float(v) for v in check["ci95"])
        inside = "inside" if low <= edge <= high else "outside"
        scope = f"exact: {result['exact_for']}" if result.get("exact_for") else "exact"
        lines = [
            f"{what}: hit frequency {_pct(hit)}, house edge {_pct(edge)} ({scope})",
            f"  cross-check: {_simulated(check)}; the exact house edge is {inside} the interval",
        ]
        if check.get("note"):
            lines.append(f"  {check['note']}")
        return lines
    if result.get("method") == "simulation":
        return [f"{what}: {_simulated(result)}"]
    return [
        f"{what}: hit frequency {_pct(float(result['hit_frequency']))}, "
        f"house edge {_pct(float(result['house_edge']))} ({result['method']})"
    ]
