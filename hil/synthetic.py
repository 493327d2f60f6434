"""A seeded, realistic EZ Baccarat Panda 8 table history, as `tablectl export` writes it
(each line with its chain head, so `tablectl import` proves it as it proves a real export).

The longevity benchmark (hil/bench_longevity.py) needs a year of a busy table without
playing a year: this writes the journal lines such a table would have, for `tablectl import`
and `tablectl replay`. Each round is the bank, the wagers and "no more bets" from the dealer
console (MQTT commands, `cmd/<verb>` with an id, as docs/events.md says a real console sends
them), then the shoe's cards with their positions in the order the drawing rules call for
(`next_to_draw`, the engine's own). A new 8-deck shoe, burn included, goes in when the cut card
comes out, so shoe changes and the EZTRAK statistics are exercised too.

usage: python hil/synthetic.py --config table.toml --rounds 1000 [--seed 1] > history.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any, Literal

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablectl.config import load_config
from tablectl.journal.chain import GENESIS, record_bytes
from tablectl.rules.baccarat import next_to_draw, point
from tablectl_base.cards import RANKS, SUITS, Card

START = datetime(2027, 1, 5, 14, 0, tzinfo=UTC)
"""The history's first record: a fixed instant, so the same seed gives the same bytes."""
ROUND_SECONDS = 60
"""A busy table deals about 60 rounds an hour: a year is about 500,000 rounds."""
SHOE_CHANGE_SECONDS = 240
"""The dealer's break for a new shoe: unloading, shuffling, loading, the burn."""
DECKS = 8
CUT_CARD = 14
"""A new shoe goes in before a round when fewer cards than this are left (the cut card)."""
FRAME_SEQ = 10_000
"""The shoe numbers its frames 0..9999 and wraps (docs/protocols/envelope.md, SEQ)."""

LINE_AMOUNTS = ("5.00", "10.00", "15.00", "20.00", "25.00", "50.00", "100.00", "200.00", "500.00")
LINE_WEIGHTS = (8, 14, 6, 6, 18, 14, 8, 3, 1)
SIDE_AMOUNTS = ("5.00", "10.00", "25.00")
SIDE_SPOTS = ("tie", "dragon7", "panda8")
BANKS = ("500.00", "1000.00", "2000.00", "5000.00")

Console = Literal["cmd", "console"]


def _compact_encoder() -> Callable[[dict[str, Any]], str]:
    """Compact JSON, as `json.dumps(obj, separators=(",", ":"), ensure_ascii=False)` gives it,
    made once: `json.dumps` with options builds a new encoder on every call, and even a kept
    `JSONEncoder` builds its C scanner per call (a third of the cost at 7 M lines)."""
    fallback = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    if c_make_encoder is None:  # pragma: no cover - CPython always has the C encoder
        return fallback

    def refuse(obj: object) -> object:
        raise TypeError(f"not JSON: {type(obj).__name__}")

    chunks = c_make_encoder(None, refuse, encode_basestring, None, ":", ",", False, False, True)
    return lambda obj: "".join(chunks(obj, 0))


_encode = _compact_encoder()


class _Clock:
    """The journal's timestamps (ISO-8601 UTC, microseconds, Z), from a microsecond count,
    without a datetime per record: the date part is made once a day, "HH:MM:SS" once."""

    _HMS = tuple(
        f"{h:02d}:{m:02d}:{s:02d}" for h in range(24) for m in range(60) for s in range(60)
    )

    def __init__(self, start: datetime) -> None:
        self.midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
        self.us = (start - self.midnight) // timedelta(microseconds=1)
        self._days: dict[int, str] = {}

    def ts(self) -> str:
        day, rest = divmod(self.us, 86_400_000_000)
        prefix = self._days.get(day)
        if prefix is None:
            prefix = (self.midnight + timedelta(days=day)).strftime("%Y-%m-%dT")
            self._days[day] = prefix
        second, micros = divmod(rest, 1_000_000)
        return f"{prefix}{self._HMS[second]}.{micros:06d}Z"

    def advance(self, seconds: float) -> None:
        self.us += int(seconds * 1_000_000)


def baccarat_history(
    rounds: int, seed: int, table_config: Path, *, console: Console = "cmd"
) -> Iterator[str]:
    """`rounds` whole rounds of EZ Baccarat Panda 8 at the table `table_config` describes, as
    export lines (no trailing newline): its `config` record first, the shoe's status, then
    every shoe and round. The same arguments always give the same lines.

    `console` "cmd": the console's inputs are MQTT commands (source `cmd/bank`, ...; ref the
    command id "c-<n>"), as a real table journals them. "console": source `console` with the
    same refs, as the demo's in-process bot.
    """
    cfg = load_config(table_config)
    seats = cfg.table.seats.count
    rng = random.Random(seed)
    clock = _Clock(START)
    cards = [Card(rank, suit) for rank in RANKS for suit in SUITS]
    names = {card: str(card) for card in cards}
    src = {
        verb: (f"cmd/{verb}" if console == "cmd" else "console")
        for verb in ("bank", "wager", "bets.close")
    }
    shoe_src = "device/shoe"
    command = 0
    frame = 0  # the shoe's frame counter (SEQ before the wrap)

    prev, seq = GENESIS, 0  # the chain so far: an export line carries its head (exports.py)

    def line(body: dict[str, Any], source: str, ref: str | None = None) -> str:
        nonlocal prev, seq
        seq += 1
        ts = clock.ts()
        prev = hashlib.sha256(record_bytes(prev, seq, ts, source, ref, _encode(body))).hexdigest()
        body["ts"] = ts
        body["source"] = source
        if ref is not None:
            body["ref"] = ref
        body["chain"] = {"seq": seq, "hash": prev, "key": None}
        return _encode(body)

    def cmd(body: dict[str, Any], verb: str) -> str:
        nonlocal command
        command += 1
        return line(body, src[verb], f"c-{command}")

    def at(run: str, pos: int) -> dict[str, Any]:
        nonlocal frame
        out = {"run": run, "pos": pos, "seq": frame % FRAME_SEQ}
        frame += 1
        return out

    yield line({"type": "config", "rules": cfg.rules.to_json()}, "config")
    clock.advance(0.4)
    yield line(
        {
            "type": "device.status",
            "device": "shoe",
            "available": True,
            "detail": {"port": "/dev/tablectl-shoe", "empty": False, "serial": None},
        },
        shoe_src,
    )
    shoe: list[Card] = []
    run, pos = "", 0
    bank_seat, turns = 1, 0
    for _ in range(rounds):
        round_start = clock.us
        if len(shoe) < CUT_CARD:
            clock.advance(SHOE_CHANGE_SECONDS)
            round_start = clock.us
            shoe = cards * DECKS
            rng.shuffle(shoe)
            run, pos = str(int(run or 0) + 1), 0
            yield line({"type": "shoe.new", "at": at(run, pos)}, shoe_src)
            # The first card is turned up and burned, then as many more as its value (003).
            first = shoe.pop()
            for burned in [first, *(shoe.pop() for _ in range(point(first) or 10))]:
                clock.advance(1.5)
                pos += 1
                yield line(
                    {"type": "shoe.burn", "at": at(run, pos), "card": names[burned]}, shoe_src
                )
            clock.advance(5)
        if turns == 2:  # R5: the bank moves on clockwise after two hands
            bank_seat, turns = bank_seat % seats + 1, 0
        turns += 1
        clock.advance(2)
        yield cmd(
            {"type": "bank", "seat": bank_seat, "amount": rng.choice(BANKS)},
            "bank",
        )
        for seat in range(1, seats + 1):
            if seat == bank_seat or rng.random() < 0.35:
                continue
            clock.advance(rng.uniform(0.5, 2.5))
            spot = "banker" if rng.random() < 0.55 else "player"
            amount = rng.choices(LINE_AMOUNTS, LINE_WEIGHTS)[0]
            yield cmd({"type": "wager", "seat": seat, "spot": spot, "amount": amount}, "wager")
            if rng.random() < 0.3:
                clock.advance(rng.uniform(0.5, 1.5))
                side = {
                    "type": "wager",
                    "seat": seat,
                    "spot": rng.choice(SIDE_SPOTS),
                    "amount": rng.choice(SIDE_AMOUNTS),
                }
                yield cmd(side, "wager")
            if rng.random() < 0.04:  # a back-line bettor behind the seat
                clock.advance(rng.uniform(0.5, 1.5))
                back = {
                    "type": "wager",
                    "seat": seat,
                    "spot": spot,
                    "amount": rng.choice(SIDE_AMOUNTS),
                    "player": f"bk-{rng.randrange(1, 400)}",
                }
                yield cmd(back, "wager")
        clock.us = max(clock.us, round_start + 30_000_000)
        yield cmd({"type": "bets.close"}, "bets.close")
        player: list[Card] = []
        banker: list[Card] = []
        while (side_to := next_to_draw(player, banker)) is not None:
            card = shoe.pop()
            (player if side_to == "player" else banker).append(card)
            pos += 1
            clock.advance(rng.uniform(1.5, 3.0))
            yield line({"type": "shoe.card", "at": at(run, pos), "card": names[card]}, shoe_src)
        next_round = round_start + int(rng.uniform(ROUND_SECONDS - 6, ROUND_SECONDS + 6) * 1e6)
        clock.us = max(clock.us + 1_000_000, next_round)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, required=True, help="the table config (its rules)")
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--console", choices=["cmd", "console"], default="cmd")
    a = ap.parse_args()
    out = sys.stdout
    for text in baccarat_history(a.rounds, a.seed, a.config, console=a.console):
        out.write(text + "\n")


if __name__ == "__main__":
    main()
