"""`tablectl demo`: a simulated EZ Baccarat Panda 8 table, end to end, on this machine.

A simulated card-reading shoe speaks the real wire protocol over a pseudo-terminal, the real
driver reads it, the daemon journals and plays every round; a console bot posts the bank and the
wagers as a dealer console would. With a broker on the MQTT port the rounds are published too;
without one they wait in the journal's outbox and the relay keeps retrying.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from decimal import Decimal
from pathlib import Path

from tablectl.chainkey import create_key
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.history.text import format_round
from tablectl.logs import configure_logging
from tablectl.outputs import OutboxRow
from tablectl.records import Record
from tablectl_drivers.sim.shoe import SimulatedShoe

SCHEDULES = (
    Path(__file__).resolve().parent.parent / "config" / "schedules" / "ez-baccarat-panda8.toml"
)
SEATS = 8  # seven players and the player-dealer position (003)
DECKS = 8
RESHUFFLE_BELOW = 16  # cards left when the demo dealer puts in a new shoe
KEY_FILE = "journal.key"  # the demo table's chain key, made in its folder (tablectl keygen)
SHOE_LINK = "shoe.pty"
"""The demo shoe's port in the demo's folder: a link to the simulator's pseudo-terminal while the
demo runs, gone when it ends, so that `tablectl run` on the demo's config later finds no port
rather than a /dev/pts number the next terminal opened has taken."""


def write_config(
    folder: Path, port: str, mqtt_port: int, broker: bool, table: str = "bac-1"
) -> Path:
    """The demo table's config in `folder`, its shoe at `port` (the simulator's: `emulator`)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / KEY_FILE).exists():  # the demo's install step: its own journal chain key
        create_key(folder / KEY_FILE)
    path = folder / "table.toml"
    path.write_text(
        f"""# Written by `tablectl demo`.
site = "demo"
table = "{table}"

[game]
id = "ez-baccarat-panda8"
decks = {DECKS}

[seats]
count = {SEATS}

[limits]
min = "5"
max = "500"

[collection]
file = "{SCHEDULES}"
option = 3

[[devices]]
name = "shoe"
driver = "shoe"
port = "{port}"
baud = 9600
emulator = true     # the simulated shoe's pseudo-terminal, there only while the demo runs

[mqtt]
enabled = {"true" if broker else "false"}
host = "127.0.0.1"
port = {mqtt_port}

[journal]
path = "journal.db"
key_file = "{KEY_FILE}"
"""
    )
    return path


def broker_reachable(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def run_demo(
    folder: Path,
    *,
    rounds: int,
    mqtt_port: int,
    seed: int,
    delay: float,
    table: str = "bac-1",
) -> int:
    configure_logging("error")
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends the demo; the journal is kept
        asyncio.run(_demo(folder, rounds, mqtt_port, seed, delay, table))
    return 0


async def _demo(
    folder: Path, rounds: int, mqtt_port: int, seed: int, delay: float, table: str
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    link = folder.resolve() / SHOE_LINK
    shoe = SimulatedShoe(link=link)  # the link goes when the shoe is closed, at the demo's end
    broker = broker_reachable(mqtt_port)
    cfg = load_config(write_config(folder, str(link), mqtt_port, broker, table))
    daemon = Daemon(cfg)
    progress = asyncio.Event()

    def show(rec: Record, rows: list[OutboxRow]) -> None:
        progress.set()
        for row in rows:
            if row.topic.endswith("/round/result"):
                import json

                print(format_round(rec.ts, json.loads(row.payload)), flush=True)
                print(flush=True)
            elif row.topic.endswith("/alert"):
                print(f"ALERT {row.payload.decode()}", flush=True)

    daemon.listeners.append(show)
    print(f"tablectl demo: simulated shoe on {link} ({shoe.port}), journal {cfg.journal_path}")
    print(
        f"MQTT: publishing to 127.0.0.1:{mqtt_port} under {cfg.table.base_topic}"
        if broker
        else f"MQTT: no broker on 127.0.0.1:{mqtt_port}; results stay in the journal's outbox"
    )
    print()
    runner = asyncio.create_task(daemon.run(install_signals=False))
    rng = random.Random(seed)
    try:
        await _wait_for(lambda: daemon.table.position > 0 or runner.done(), progress)
        await _feed(shoe, progress, daemon, lambda: shoe.new_shoe(DECKS, rng.randrange(1 << 30)))
        played = 0
        bank_seat, turns = 1, 0
        while rounds == 0 or played < rounds:
            if runner.done():
                break
            if shoe.remaining < RESHUFFLE_BELOW:
                await _feed(
                    shoe, progress, daemon, lambda: shoe.new_shoe(DECKS, rng.randrange(1 << 30))
                )
            if turns == 2:  # R5: the bank moves on clockwise after two hands
                bank_seat, turns = bank_seat % SEATS + 1, 0
            turns += 1
            await daemon.submit("console", {"type": "bank", "seat": bank_seat, "amount": "500"})
            for seat in range(1, SEATS + 1):
                if seat == bank_seat or rng.random() < 0.3:
                    continue
                line = rng.choice(["player", "banker"])
                await daemon.submit("console", _wager(seat, line, rng.choice([10, 25, 50, 100])))
                if rng.random() < 0.3:
                    side = rng.choice(["tie", "dragon7", "panda8"])
                    await daemon.submit("console", _wager(seat, side, rng.choice([5, 10])))
            await daemon.submit("console", {"type": "bets.close"})
            start = daemon.table.state_view().round
            while daemon.table.state_view().round == start and not runner.done():
                await asyncio.sleep(delay)
                await _feed(shoe, progress, daemon, shoe.draw)
            played += 1
    finally:
        daemon.stop()
        await asyncio.gather(runner, return_exceptions=True)
        shoe.close()
    print(f"played {played} rounds. Look back with:")
    print(f"  .venv/bin/tablectl recall --config {cfg.path} --last 3")
    print(f"  .venv/bin/tablectl verify-journal --config {cfg.path}")


def _wager(seat: int, spot: str, amount: int) -> dict[str, object]:
    return {"type": "wager", "seat": seat, "spot": spot, "amount": str(Decimal(amount))}


async def _feed(shoe: SimulatedShoe, progress: asyncio.Event, daemon: Daemon, act: object) -> None:
    """Do something at the shoe and wait until the daemon has journaled what the driver read."""
    before = daemon.table.position
    progress.clear()
    assert callable(act)
    act()
    await _wait_for(lambda: daemon.table.position > before, progress)


async def _wait_for(cond: object, progress: asyncio.Event, timeout: float = 10.0) -> None:
    assert callable(cond)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        left = deadline - loop.time()
        if left <= 0:
            raise TimeoutError("the daemon did not take the simulated shoe's input in time")
        progress.clear()
        try:
            async with asyncio.timeout(left):  # not wait_for: it can swallow a stop (3.11)
                await progress.wait()
        except TimeoutError:
            continue
