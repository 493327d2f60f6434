"""Kill campaign: is the journal still the table after a hundred SIGKILLs?

A real daemon plays EZ Baccarat Panda 8 from the shoe emulator on a pseudo-terminal, with a real
Mosquitto and a floor subscriber (QoS 1) recording everything. A dealer thread plays rounds the
way a dealer does: the bank and the wagers from the console (retried with the same request id
until answered), then the coup dealt card by card from the shoe, by the drawing chart, whether or
not the daemon is up. Meanwhile the daemon is SIGKILLed at random moments and started again.
When the shoe's line drops during a deal (a start can meet it as the new daemon opens the pty),
the table holds the round as the rules say, and the dealer sends `round.resume` as the floor
would once the shoe is back (`resumes_sent`); --unplugs pulls the shoe's cable during a share
of the deals to make such holds on purpose.

At the end the figures compare three records of the same play: what the shoe dealt (the
emulator's own log, position by position), what the journal holds, and what the floor received:

    cards missing from the journal     shoe positions the journal never recorded
    cards recorded twice               positions dealt into a round more than once
    rounds whose deal differs          results whose cards are not the shoe's for that coup
    rounds without a result / twice    results the floor never got, or got under two seqs

Exit status 0 when every one of those is 0, 1 otherwise.

With --tamper it runs the tamper pass instead (hil/tamper_pass.py): every kind of
tampering an insider can do to a journal or an export, --trials times each at random places, and
which checks caught it; exit 1 unless the check the docs name caught every trial.

usage: python -m hil.campaign [--kills 110] [--seed 1] [--json]
       python -m hil.campaign --tamper [--trials 20] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hil.die_with_parent import die_with_parent
from hil.ports import free_port
from hil.runner import REPO, SCHEDULES, open_broker
from tablectl.journal import Journal, JournalError
from tablectl.rules.baccarat import next_to_draw
from tablectl_base.cards import parse_card
from tablectl_drivers.sim.shoe import SimulatedShoe

REPLY_WAIT = 1.0  # seconds a console waits for a command's reply before sending it again
RESULT_WAIT = 60.0  # seconds the dealer waits for a round's result before calling it lost
TABLE = "k1"
BASE = f"tablectl/hil/{TABLE}"


def table_config(
    folder: Path,
    shoe_port: Path | None,
    mqtt_port: int | None,
    *,
    journal: Path | None = None,
    key_file: str | None = None,
) -> Path:
    """The campaign's baccarat table: its shoe at `shoe_port`, a simulator's (None: no device,
    the cards keyed), its broker at `mqtt_port` (None: MQTT off), its journal (default
    `folder/journal.db`), its chain key."""
    shoe = (
        f"""[[devices]]
name = "shoe"
driver = "shoe"
port = "{shoe_port}"
emulator = true
[devices.options]
backoff_initial = 0.05
backoff_max = 0.2
"""
        if shoe_port is not None
        else ""
    )
    mqtt_table = (
        f"""[mqtt]
host = "127.0.0.1"
port = {mqtt_port}
keepalive = 5
"""
        if mqtt_port is not None
        else "[mqtt]\nenabled = false\n"
    )
    key = f'key_file = "{key_file}"\n' if key_file else ""
    path = folder / "table.toml"
    path.write_text(
        f"""site = "hil"
table = "{TABLE}"
log_level = "info"
manual_entry = {"false" if shoe_port is not None else "true"}
[game]
id = "ez-baccarat-panda8"
decks = 8
[seats]
count = 7
[limits]
min = "5"
max = "500"
[collection]
file = "{SCHEDULES / "ez-baccarat-panda8.toml"}"
option = 3
{shoe}{mqtt_table}[journal]
path = "{journal or folder / "journal.db"}"
{key}"""
    )
    return path


class Broker:
    """A Mosquitto on a free loopback port for the campaign alone."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.args = open_broker(
            folder / "mosquitto.conf",
            self.port,
            "persistence false",
            "set_tcp_nodelay true",
            "max_queued_messages 100000",
        )
        self.start()

    def start(self) -> None:
        """Start it (again, on the same port) and wait until it takes a connection."""
        self.proc = subprocess.Popen(
            self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                probe = mqtt.Client(CallbackAPIVersion.VERSION2)
                probe.connect("127.0.0.1", self.port)
                probe.disconnect()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


class Floor:
    """The floor system: a persistent QoS 1 subscriber on the table's topics, and the console's
    command sender. Messages are kept once per table seq (a republish after a restart carries
    the same seq)."""

    def __init__(self, port: int) -> None:
        self.by_seq: dict[int, tuple[str, dict[str, Any]]] = {}
        self.seqs_per_topic: Counter[str] = Counter()
        self.replies: dict[str, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id="campaign-floor", clean_session=False
        )
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *_: c.subscribe(f"{BASE}/#", qos=1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            return
        if not isinstance(payload, dict):
            return
        topic = msg.topic.removeprefix(BASE + "/")
        with self._cond:
            seq = payload.get("seq")
            if isinstance(seq, int) and seq not in self.by_seq:
                self.by_seq[seq] = (topic, payload)
            if topic.endswith("/reply") and isinstance(payload.get("id"), str):
                self.replies[payload["id"]] = payload
            self._cond.notify_all()

    def results(self) -> list[dict[str, Any]]:
        with self._cond:
            return [p for _, (t, p) in sorted(self.by_seq.items()) if t == "round/result"]

    def command(
        self, verb: str, body: dict[str, Any], ref: str, give_up: Callable[[], bool]
    ) -> bool:
        """Send `cmd/<verb>` until it is answered or `give_up()` (same id each time: a repeat of
        one already handled is answered "duplicate request id"); whether it was taken."""
        payload = json.dumps({**body, "id": ref})
        while not give_up():
            self.client.publish(f"{BASE}/cmd/{verb}", payload, qos=1)
            deadline = time.monotonic() + REPLY_WAIT
            with self._cond:
                while ref not in self.replies and time.monotonic() < deadline:
                    self._cond.wait(deadline - time.monotonic())
                reply = self.replies.get(ref)
            if reply is not None:
                return bool(reply["ok"]) or "duplicate request id" in str(reply.get("reason"))
        return False

    def wait_shoe(self, timeout: float) -> bool:
        """Wait until the daemon says its shoe is connected (a table is set up, then played)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not any(
                t == "device/shoe/status" and p.get("available") for t, p in self.by_seq.values()
            ):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def round_held(self) -> bool:
        """Whether the table's latest `state` says its round is held (a device's fault during a
        deal: a person plays on with `round.resume`)."""
        with self._cond:
            states = [(s, p) for s, (t, p) in self.by_seq.items() if t == "state"]
        return bool(states) and max(states, key=lambda sp: sp[0])[1].get("held") is not None

    def wait_results(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len([1 for t, _ in self.by_seq.values() if t == "round/result"]) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@dataclass
class Coup:
    """One coup as the shoe dealt it."""

    shoe: str
    player: list[str] = field(default_factory=list)
    banker: list[str] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)


class Dealer:
    """Plays rounds: console commands through the floor, cards from the shoe emulator."""

    def __init__(
        self,
        shoe: SimulatedShoe,
        floor: Floor,
        rng: random.Random,
        faults: float = 0.0,
        result_wait: float = RESULT_WAIT,
        unplugs: float = 0.0,
    ) -> None:
        self.shoe, self.floor, self.rng = shoe, floor, rng
        self.result_wait = result_wait
        self.unplug_rate = unplugs
        self.unplugged = 0  # coups whose deal the shoe's cable was pulled in
        self.fault_rate = faults
        self.faults: Counter[str] = Counter()
        self.coups: list[Coup] = []
        self.drawn: list[tuple[str, int, str]] = []  # (shoe, position, card), every card out
        self.lost_rounds = 0
        self.resumes = 0  # round.resume commands the table took (a refused one is sent again)
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self._refs = 0

    def new_shoe(self) -> None:
        self.shoe.new_shoe(8, self.rng.randrange(1 << 30))
        self.drawn.append((str(self.shoe.shoe), self.shoe.position + 1, self.shoe.burn()))

    def run(self) -> None:
        try:
            if not self.floor.wait_shoe(self.result_wait):
                raise RuntimeError("the daemon never reported its shoe connected")
            self.new_shoe()
            while not self.stop.is_set():
                self.play_round(len(self.coups))
        except BaseException as exc:  # reported by main: a campaign must not hang on a bug
            self.error = exc

    def _wire_fault(self) -> str | None:
        """A fault on this card's frame, at the campaign's rate: lost, garbled, read twice or
        retransmitted."""
        if self.rng.random() >= self.fault_rate:
            return None
        fault = self.rng.choice(("drop", "garble", "repeat", "dup"))
        self.faults[fault] += 1
        return fault

    def _command(
        self, verb: str, body: dict[str, Any], give_up: Callable[[], bool] | None = None
    ) -> bool:
        """Send a console command; by default given up when the campaign stops the dealer."""
        self._refs += 1
        return self.floor.command(verb, body, f"k{self._refs}", give_up or self.stop.is_set)

    def _wait_result(self, count: int) -> bool:
        """Wait for the round's result, playing on as the floor would when the table held the
        round: the shoe's line dropped during the deal (a kill or the pty can cut it as a new
        daemon opens the port) holds it, with the cards that came meanwhile kept, until a person
        sends `round.resume` (docs/mqtt.md); the table refuses it while the shoe is still down,
        and it is sent again a second later. A round dealt is played out even when the campaign
        is stopping: its cards are out of the shoe."""
        deadline = time.monotonic() + self.result_wait
        while (left := deadline - time.monotonic()) > 0:
            if self.floor.wait_results(count, min(1.0, left)):
                return True
            if self.floor.round_held() and self._command(
                "round.resume", {}, give_up=lambda: time.monotonic() > deadline
            ):
                self.resumes += 1
        return False

    def play_round(self, index: int) -> None:
        bank_seat = 1 + index % 3  # R5: no seat banks three rounds running
        players = [s for s in (4, 5, 6) if s != bank_seat]
        steps = [
            ("bank", {"seat": bank_seat, "amount": "5000"}),
            ("wager", {"seat": players[0], "spot": "player", "amount": "25"}),
            ("wager", {"seat": players[1], "spot": "banker", "amount": "20"}),
            ("bets.close", {}),
        ]
        for verb, body in steps:
            if not self._command(verb, body):
                if self.stop.is_set():
                    return
                raise RuntimeError(f"round {index + 1}: {verb} {body} refused")
        coup = Coup(str(self.shoe.shoe))
        while (side := next_to_draw(_cards(coup.player), _cards(coup.banker))) is not None:
            fault = self._wire_fault()
            if fault in ("drop", "garble"):
                getattr(self.shoe, f"{fault}_next")()
            card = self.shoe.draw()
            if fault == "repeat":
                self.shoe.repeat_last()  # the shoe reads the card twice
            elif fault == "dup":
                self.shoe.duplicate_last()  # the line retransmits the frame
            coup.positions.append(self.shoe.position)
            (coup.player if side == "player" else coup.banker).append(card)
            self.drawn.append((coup.shoe, self.shoe.position, card))
            time.sleep(self.rng.uniform(0.005, 0.05))
            if len(coup.positions) == 2 and self.rng.random() < self.unplug_rate:
                self.unplugged += 1  # the cable out and in again: the table holds the round
                self.shoe.unplug()
                time.sleep(self.rng.uniform(0.05, 0.3))
                self.shoe.replug()
        self.coups.append(coup)
        if not self._wait_result(len(self.coups)):
            self.lost_rounds += 1
            raise RuntimeError(f"round {index + 1}: no result within {self.result_wait} s")
        if self.shoe.remaining < 20:
            self.new_shoe()


def _cards(texts: list[str]) -> list[Any]:
    return [parse_card(t) for t in texts]


class Daemon:
    """`tablectl run` as a child process, SIGKILLed and started again."""

    def __init__(self, config: Path) -> None:
        self.config = config
        self.log = config.parent / "daemon.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                die_with_parent(
                    [sys.executable, "-m", "tablectl.cli", "run", "--config", str(self.config)]
                ),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=REPO,
                env=env,
            )

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=20)

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def _read_journal(
    journal_path: Path, *, verify: bool = True
) -> tuple[dict[tuple[str, int], str], int, bool]:
    """The journal's cards by (shoe run, position), its gap reports, whether its chain holds
    (True without `verify`)."""
    journal = Journal(journal_path, table=None, readonly=True)
    try:
        records = list(journal.records())
        chain_ok = not journal.verify() if verify else True
    finally:
        journal.close()
    journaled: dict[tuple[str, int], str] = {}
    gaps = 0
    for rec in records:
        body = rec.body
        if body.get("type") == "device.gap":
            gaps += 1
        at = body.get("at")
        if body.get("type") in ("shoe.card", "shoe.burn") and isinstance(at, dict):
            journaled.setdefault((str(at.get("run")), int(at["pos"])), str(body["card"]))
    return journaled, gaps, chain_ok


def _wait_journaled(journal_path: Path, dealer: Dealer, timeout: float) -> None:
    """Wait (bounded) until the journal holds the last card out of the shoe: a card (a new
    shoe's burn) can leave the shoe just before the campaign stops, while a daemon started
    after the last kill is still opening its port. A card still missing after the wait is
    counted. The daemon is writing meanwhile: a read that fails is tried again."""
    if not dealer.drawn:
        return
    last = dealer.drawn[-1][:2]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if last in _read_journal(journal_path, verify=False)[0]:
                return
        except (JournalError, sqlite3.Error):
            pass  # read again below: the figures read it once the daemon has stopped
        time.sleep(0.1)


def figures(dealer: Dealer, floor: Floor, journal_path: Path, kills: int) -> dict[str, Any]:
    """Compare the shoe's log, the journal and what the floor received."""
    journaled, gaps, chain_ok = _read_journal(journal_path)
    drawn = {(s, p): c for s, p, c in dealer.drawn}
    missing = [k for k in drawn if k not in journaled]
    wrong_card = [k for k, c in drawn.items() if k in journaled and journaled[k] != c]
    results = floor.results()
    dealt_positions: Counter[tuple[str, int]] = Counter()
    for r in results:
        for group in r.get("positions", []):
            for p in group["pos"]:
                dealt_positions[(str(group["run"]), p)] += 1
    twice = [k for k, n in dealt_positions.items() if n > 1]
    rounds = Counter(r["round"] for r in results)
    differs = 0
    for coup, result in zip(dealer.coups, results, strict=False):
        outcome = result.get("outcome") or {}
        got = (outcome.get("player", {}).get("cards"), outcome.get("banker", {}).get("cards"))
        if got != (coup.player, coup.banker) or result.get("void"):
            differs += 1
    return {
        "kills": kills,
        "cards_drawn": len(drawn),
        "cards_journaled": len(journaled),
        "cards_missing": len(missing),
        "cards_wrong": len(wrong_card),
        "cards_recorded_twice": len(twice),
        "rounds_dealt": len(dealer.coups),
        "rounds_with_result": len(rounds),
        "rounds_without_result": max(0, len(dealer.coups) - len(results)),
        "rounds_twice": sum(1 for n in rounds.values() if n > 1),
        "rounds_deal_differs": differs,
        "wire_faults": sum(dealer.faults.values()),
        **{f"wire_faults_{k}": n for k, n in sorted(dealer.faults.items())},
        "gaps_reported": gaps,
        "rounds_unplugged": dealer.unplugged,
        "resumes_sent": dealer.resumes,
        "chain_intact": chain_ok,
        # Where, for a campaign that failed: the first few shoe positions (run:pos card).
        "cards_missing_at": [f"{r}:{p} {drawn[(r, p)]}" for r, p in missing[:10]],
        "cards_wrong_at": [f"{r}:{p} {drawn[(r, p)]}" for r, p in wrong_card[:10]],
    }


FAILING = (
    "cards_missing",
    "cards_wrong",
    "cards_recorded_twice",
    "rounds_without_result",
    "rounds_twice",
    "rounds_deal_differs",
)


def campaign(
    kills: int,
    seed: int,
    up: tuple[float, float],
    down: float,
    faults: float = 0.0,
    result_wait: float = RESULT_WAIT,
    folder: Path | None = None,
    unplugs: float = 0.0,
) -> dict[str, Any]:
    """Run the campaign in `folder` (kept: its daemon's log and journal, for a campaign that
    failed) or a scratch folder; its figures. `result_wait` bounds each wait for the table (its
    shoe, a round's result): a test passes a short one, so a campaign that goes wrong fails
    with its reason inside the test's timeout instead of being cut off by it. `unplugs`: the
    share of coups whose deal the shoe's cable is pulled in, after the second card, and
    plugged in again a moment later."""
    if folder is not None:
        return _campaign(kills, seed, up, down, faults, result_wait, unplugs, folder)
    with tempfile.TemporaryDirectory(prefix="tablectl-campaign-") as scratch:
        return _campaign(kills, seed, up, down, faults, result_wait, unplugs, Path(scratch))


def _campaign(
    kills: int,
    seed: int,
    up: tuple[float, float],
    down: float,
    faults: float,
    result_wait: float,
    unplugs: float,
    folder: Path,
) -> dict[str, Any]:
    """`campaign` in `folder`."""
    rng = random.Random(seed)
    broker = Broker(folder)
    shoe = SimulatedShoe(link=folder / "shoe0", seed=seed)
    floor = Floor(broker.port)
    daemon = Daemon(table_config(folder, folder / "shoe0", broker.port))
    dealer = Dealer(shoe, floor, random.Random(seed + 1), faults, result_wait, unplugs)
    thread = threading.Thread(target=dealer.run, name="dealer", daemon=True)
    done = 0
    try:
        daemon.start()
        thread.start()
        while done < kills:
            time.sleep(rng.uniform(*up))
            if dealer.error is not None:
                break
            daemon.kill()
            done += 1
            time.sleep(rng.uniform(0.0, down))
            daemon.start()
        dealer.stop.set()
        thread.join(timeout=result_wait + 10)
        if thread.is_alive():
            raise RuntimeError(
                f"the dealer did not stop within {result_wait + 10} s; it was at:\n"
                + "".join(traceback.format_stack(sys._current_frames()[thread.ident or 0]))
                + daemon.log.read_text(errors="replace")[-3000:]
            )
        floor.wait_results(len(dealer.coups), result_wait)
        if dealer.error is None:
            _wait_journaled(folder / "journal.db", dealer, result_wait)
        time.sleep(0.5)
        daemon.terminate()
        if dealer.error is not None:
            tail = daemon.log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the dealer stopped: {dealer.error} (in {folder})\n{tail}")
        return figures(dealer, floor, folder / "journal.db", done)
    finally:
        dealer.stop.set()
        if daemon.proc is not None and daemon.proc.poll() is None:
            daemon.proc.kill()
        floor.stop()
        shoe.close()
        broker.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hil.campaign",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--kills", type=int, default=110, help="SIGKILLs (default 110)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-up", type=float, default=0.3, help="seconds up, at least")
    parser.add_argument("--max-up", type=float, default=2.5, help="seconds up, at most")
    parser.add_argument("--max-down", type=float, default=0.5, help="seconds down, at most")
    parser.add_argument(
        "--faults",
        type=float,
        default=0.05,
        help="share of card frames lost, garbled, read twice or retransmitted (default 0.05)",
    )
    parser.add_argument(
        "--unplugs",
        type=float,
        default=0.0,
        help="share of coups whose deal the shoe's cable is pulled in and plugged in again: "
        "the table holds the round, the dealer resumes it (default 0)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--tamper",
        action="store_true",
        help="instead of the kills: the tamper pass (hil/tamper_pass.py), every kind of "
        "tampering --trials times against a keyed journal, and what caught it",
    )
    parser.add_argument("--trials", type=int, default=20, help="--tamper: trials per kind")
    parser.add_argument(
        "--others",
        type=int,
        default=5000,
        help="--tamper: commands between a command and its copy after a broker restart",
    )
    args = parser.parse_args(argv)
    if args.tamper:
        return _tamper(args)
    started = time.monotonic()
    result = campaign(
        args.kills,
        args.seed,
        (args.min_up, args.max_up),
        args.max_down,
        args.faults,
        unplugs=args.unplugs,
    )
    result["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(result))
    else:
        width = max(len(k) for k in result)
        for key, value in result.items():
            flag = "  <- must be 0" if key in FAILING and value else ""
            print(f"{key:<{width}}  {value}{flag}")
    return 1 if any(result[k] for k in FAILING) or not result["chain_intact"] else 0


def _tamper(args: argparse.Namespace) -> int:
    from hil.tamper_pass import print_table, tamper_pass

    started = time.monotonic()
    figures = tamper_pass(args.trials, args.seed, others=args.others)
    figures["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(figures))
    else:
        print_table(figures)
        print(f"{figures['seconds']} s")
    return 0 if figures["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
