"""Benchmark: the live figures after each card (tablectl/protection/), over whole seeded shoes.

Each shoe is shuffled from a seed and dealt as the engine deals it: baccarat (8 decks) burns its
first card and as many more as its point (ten for a zero, 003), then deals coups in R25 order
(`next_to_draw`, the engine's own) until fewer than CUT_CARD cards are left before a coup, as
hil/synthetic.py does; the 21.5 games' figures depend on the composition alone, so their shoes
(8 decks) are dealt card by card, down to a deck left. After the shoe goes in and after every
card, burns included, the time for `ShoeLeft.without` and `live_figures` is taken; the first
call of the process (building the per-process tables: `live.prepare`) is reported apart.
Printed: median and 99th percentile in milliseconds per game, the target (p99 at most
TARGET_P99_MS) met or not, and for a sample of the same compositions the brute-force
enumeration (tests/protection/brute_force.py, card by card) with its time and whether every
figure is the same Fraction. Absolute times on a shared machine are noisy: compare within a run.

With --latency N it also runs hil/bench_latency.py's card-to-subscriber trip (a real daemon, a
pseudo-terminal shoe, Mosquitto) with the surveillance feed off and on, alternating, N cards a
run (`card_to_subscriber_on_off`).

usage: .venv/bin/python hil/bench_protection.py [--shoes 4] [--seed 1] [--brute-every 150]
       [--red-flex-brute 0] [--latency 0] [--latency-repeats 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablectl.config import load_config
from tablectl.games.baccarat.spec import BaccaratGame
from tablectl.games.blackjack.variant import policy_of
from tablectl.games.table_rules import Rules
from tablectl.protection.live import LiveFigures, live_figures, prepare
from tablectl.protection.shoe import ShoeLeft
from tablectl.rules.baccarat import next_to_draw, point
from tablectl_base.cards import Card, DeckKind, deck_of
from tests.protection import brute_force

REPO = Path(__file__).resolve().parents[1]
TARGET_P99_MS = 20.0
"""The live figures after a card in at most this many milliseconds, 99th percentile, over whole
8-deck shoes on the 2-core machine."""
DECKS = 8
CUT_CARD = 14  # baccarat: a new shoe when fewer are left before a coup (hil/synthetic.py)
BLACKJACK_LEFT = 52  # the 21.5 shoes are dealt down to a deck left


def rules_of(config: str, decks: int) -> Rules:
    """A shipped example config's rules, with `decks` decks."""
    rules = load_config(REPO / "config" / config).rules
    return rules.model_copy(update={"game": rules.game.model_copy(update={"decks": decks})})


def baccarat_shoe(rng: random.Random) -> Iterator[Card | None]:
    """None as the shoe goes in, then every card out of it: the burn (003), then coups."""
    shoe = list(deck_of(DeckKind.STANDARD_52)) * DECKS
    rng.shuffle(shoe)
    yield None
    first = shoe.pop()
    yield first
    for _ in range(point(first) or 10):
        yield shoe.pop()
    while len(shoe) >= CUT_CARD:
        player: list[Card] = []
        banker: list[Card] = []
        while (side := next_to_draw(player, banker)) is not None:
            card = shoe.pop()
            (player if side == "player" else banker).append(card)
            yield card


def blackjack_shoe(rng: random.Random, kind: DeckKind) -> Iterator[Card | None]:
    """None as the shoe goes in, then its cards one by one down to a deck left."""
    shoe = list(deck_of(kind)) * DECKS
    rng.shuffle(shoe)
    yield None
    while len(shoe) > BLACKJACK_LEFT:
        yield shoe.pop()


@dataclass
class GameRun:
    """One game's timings and sampled compositions."""

    name: str
    rules: Rules
    spanish: bool
    times_ms: list[float] = field(default_factory=list)
    samples: list[tuple[ShoeLeft, LiveFigures]] = field(default_factory=list)

    def play(self, cards: Iterator[Card | None], sample_every: int) -> None:
        shoe = ShoeLeft.full(DECKS, spanish=self.spanish)
        for i, card in enumerate(cards):
            t0 = time.perf_counter()
            if card is not None:
                shoe = shoe.without(card)
            figures = live_figures(self.rules, shoe)
            self.times_ms.append((time.perf_counter() - t0) * 1000)
            if sample_every and i % sample_every == sample_every // 2:
                self.samples.append((shoe, figures))


def brute(run: GameRun, shoe: ShoeLeft, red_flex: bool) -> dict[str, Fraction]:
    """The same figures by the brute force (Red Flex only when asked: minutes a composition)."""
    game = run.rules.game
    if isinstance(game, BaccaratGame):
        return brute_force.baccarat(shoe, banker_push_on_dragon7=game.banker_push_on_dragon7)
    policy = policy_of(run.rules)
    out = {}
    if policy.buster is not None:
        out["buster"] = brute_force.buster(shoe, policy.buster)
    if policy.red_flex is not None and red_flex:
        out["red-flex"] = brute_force.red_flex(shoe, policy.red_flex)
    if policy.match is not None:
        out["match-dealer"] = brute_force.match_dealer(shoe, policy.match)
    return out


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(q * len(s) + 0.5) - 1))]


# ------------------------------------------------------------------------------------------------
# Card to subscriber with the surveillance feed on and off: hil/bench_latency.py's machinery.
# It needs `run_tablectl(..., extra_config="...")` (TOML appended to the bench table's config);
# without that keyword it measures nothing and says so.
# ------------------------------------------------------------------------------------------------

FEED_ON = "[protection]\nenabled = true\n"
"""The surveillance feed on (docs/config.md `[protection]`); off is the section left out."""


def _one_latency_run(run: Any, n: int, gap_ms: float, work: Path, extra: str) -> dict[str, Any]:
    """One daemon trip of hil/bench_latency.py against a broker of its own (a second daemon of
    the same table on one broker waits on the first one's session)."""

    from hil import bench_latency as bl

    with bl.local_broker(work) as port:
        result: dict[str, Any] = run(n, gap_ms / 1000, work, port, extra_config=extra)
        return result


def card_to_subscriber_on_off(n: int, gap_ms: float, repeats: int) -> dict[str, Any]:
    """Card-to-subscriber latency with the surveillance feed off and on, alternating `repeats`
    times in this run (off first): each side's median and p99 (the median of its runs'), and on
    / off ratios. Noisy machine: compare the ratio, not the figures."""
    import inspect
    import tempfile

    from hil import bench_latency as bl

    run: Any = bl.run_tablectl  # called with extra_config, which it may not take yet
    if "extra_config" not in inspect.signature(run).parameters:
        return {"measured": False, "why": "hil/bench_latency.py run_tablectl takes no extra_config"}
    runs: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            for side in ("off", "on"):
                work = Path(tmp) / f"{side}{i}"
                work.mkdir()
                extra = FEED_ON if side == "on" else ""
                runs[side].append(_one_latency_run(run, n, gap_ms, work, extra))
    out: dict[str, Any] = {"measured": True, "n": n, "repeats": repeats}
    for side, done in runs.items():
        out[side] = {
            "median_ms": round(statistics.median(r["median_ms"] for r in done), 3),
            "p99_ms": round(statistics.median(r["p99_ms"] for r in done), 3),
            "runs": [(r["median_ms"], r["p99_ms"]) for r in done],
        }
    out["ratio_on_off"] = {
        k: round(out["on"][k] / out["off"][k], 3) for k in ("median_ms", "p99_ms")
    }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shoes", type=int, default=4, help="whole shoes per game")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--brute-every", type=int, default=150, help="a brute-force check every this many cards"
    )
    ap.add_argument("--red-flex-brute", type=int, default=0, help="Red Flex brute-force samples")
    ap.add_argument("--json", action="store_true", help="one JSON object, no table")
    ap.add_argument(
        "--latency",
        type=int,
        default=0,
        help="also card to subscriber, feed off and on, this many cards a run (0: not measured)",
    )
    ap.add_argument("--latency-repeats", type=int, default=2, help="off/on pairs of runs")
    a = ap.parse_args()
    runs = [
        GameRun("ez-baccarat-panda8", rules_of("ez-baccarat-panda8.toml", DECKS), False),
        GameRun("pure-21.5-blackjack", rules_of("pure-21.5-blackjack-000.toml", DECKS), False),
        GameRun("pure-spanish-21.5", rules_of("pure-spanish-21.5-003.toml", DECKS), True),
    ]
    results: dict[str, Any] = {"target_p99_ms": TARGET_P99_MS, "decks": DECKS, "games": {}}
    for run in runs:
        t0 = time.perf_counter()
        prepare(run.rules)
        warm = (time.perf_counter() - t0) * 1000
        rng = random.Random(a.seed)
        for _ in range(a.shoes):
            shoe = (
                baccarat_shoe(rng)
                if not run.spanish and run.name == "ez-baccarat-panda8"
                else blackjack_shoe(rng, DeckKind.SPANISH_48 if run.spanish else DeckKind.PURE_21_5)
            )
            run.play(shoe, a.brute_every)
        agree, brute_ms, compared = True, [], 0
        red_flex_left = a.red_flex_brute
        for shoe_left, figures in run.samples:
            t1 = time.perf_counter()
            want = brute(run, shoe_left, red_flex_left > 0)
            brute_ms.append((time.perf_counter() - t1) * 1000)
            red_flex_left -= "red-flex" in want
            got = {w.wager: w.expectation for w in figures.wagers}
            agree &= all(got[k] == v for k, v in want.items())
            compared += len(want)
        times = run.times_ms
        p99 = percentile(times, 0.99)
        results["games"][run.name] = {
            "shoes": a.shoes,
            "figures": len(times),
            "first_call_ms": round(warm, 1),
            "median_ms": round(statistics.median(times), 3),
            "p99_ms": round(p99, 3),
            "max_ms": round(max(times), 3),
            "target_met": p99 <= TARGET_P99_MS,
            "brute_force": {
                "compositions": len(run.samples),
                "figures_compared": compared,
                "same": agree,
                "median_ms": round(statistics.median(brute_ms), 1) if brute_ms else None,
            },
        }
    results["card_to_subscriber"] = (
        card_to_subscriber_on_off(a.latency, 5.0, a.latency_repeats) if a.latency else None
    )
    if a.json:
        print(json.dumps(results))
        return
    print(json.dumps(results))
    print()
    print("| game | figures | median ms | p99 ms | p99 <= 20 ms | brute force: samples, ms, same |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, g in results["games"].items():
        b = g["brute_force"]
        print(
            f"| {name} | {g['figures']} | {g['median_ms']} | {g['p99_ms']} | "
            f"{'met' if g['target_met'] else 'NOT met'} | {b['compositions']}, "
            f"{b['median_ms']} ms, {'yes' if b['same'] else 'NO'} |"
        )
    lat = results["card_to_subscriber"]
    if lat is None or not lat["measured"]:
        why = "--latency not given" if lat is None else lat["why"]
        print(f"card to subscriber, surveillance feed off and on: not measured ({why})")
        return
    print()
    print("| card to subscriber | median ms | p99 ms |")
    print("| --- | --- | --- |")
    for side in ("off", "on"):
        print(f"| feed {side} | {lat[side]['median_ms']} | {lat[side]['p99_ms']} |")
    r = lat["ratio_on_off"]
    print(f"| on / off | {r['median_ms']}x | {r['p99_ms']}x |")


if __name__ == "__main__":
    main()
