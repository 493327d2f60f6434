"""The retained `info` topic: the software version, the game, a digest of the
rules in force that anyone can recompute from the journal, the config file's digest, and the
devices with their serials where known. Published at start, again on every connect (the relay's
retained notices; tests/integration/test_retained_e2e.py restarts the broker), and anew when a
`config` record puts other rules in force."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.metadata
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

import tablectl
from tablectl import schemas
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.games.table_rules import Rules
from tablectl.journal import Journal
from tablectl.table_info import devices, info_payload, posted, rules_digest
from tests.conftest import MosquittoBroker
from tests.helpers import BASE, TABLE_ID, write_config

SHOE = {"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-shoe"}
EZTRAK = {"name": "board", "driver": "eztrak", "port": "usb:0403:6001:A1B2C3"}
TIMEOUT = 10.0
SHIPPED = Path(__file__).resolve().parents[2] / "config"

# config/schedules/ez-baccarat-panda8.toml option 3 (003 "EZ Baccarat Panda 8: Collection Fee
# Schedule"): $5-$500 per spot, the player-dealer's fee $1 from $5 of total action, $2 from
# $201, $3 from $301, $5 from $501, $8 from $1000; no player fee.
EZ_BACCARAT_OPTION_3 = {
    "option": 3,
    "table_min": "5.00",
    "table_max": "500.00",
    "brackets": [
        {"min_action": "5.00", "fee": "1.00"},
        {"min_action": "201.00", "fee": "2.00"},
        {"min_action": "301.00", "fee": "3.00"},
        {"min_action": "501.00", "fee": "5.00"},
        {"min_action": "1000.00", "fee": "8.00"},
    ],
    "player_fee": "0.00",
    "player_fee_per": "wager",
    "player_fee_brackets": [],
    "player_fee_spots": [],
}


# R26, R27 (003 "EZ Baccarat Panda 8"): Player and Banker 1 to 1 (no commission), Tie 8 to 1,
# Dragon 7 40 to 1, Panda 8 25 to 1; the banker line wins on a Dragon 7 unless the option says push.
EZ_BACCARAT_PAYS = [
    {"wager": "player", "hand": "player wins", "pays": "1 to 1"},
    {"wager": "banker", "hand": "banker wins", "pays": "1 to 1"},
    {"wager": "tie", "hand": "tie", "pays": "8 to 1"},
    {
        "wager": "dragon7",
        "hand": "banker wins with three cards totalling 7 against 6 or less",
        "pays": "40 to 1",
    },
    {
        "wager": "panda8",
        "hand": "player wins with three cards totalling 8 against 7 or less",
        "pays": "25 to 1",
    },
]


def no_serial(port: str) -> str | None:
    return None


def canonical_sha256(data: Any) -> str:
    """The digest a floor computes itself: sorted keys, no spaces, UTF-8, sha256."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_info_names_version_game_digests_and_devices(tmp_path: Path) -> None:
    path = write_config(tmp_path)
    cfg = load_config(path)
    info = info_payload(cfg, cfg.rules, ts="2026-11-27T00:00:00.000000Z", serial_of=no_serial)
    assert info == {
        "version": tablectl.__version__,
        "game": "ez-baccarat-panda8",
        "screen": "baccarat",  # the scoreboard's view (web/views/baccarat.js)
        "rules_digest": canonical_sha256(cfg.rules.to_json()),
        "config_digest": "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest(),
        "devices": [],
        "heartbeat_seconds": 5,  # [mqtt] heartbeat_seconds, its default
        "posted": {
            "limits": {"min": "5.00", "max": "500.00", "spots": {}},
            "pays": EZ_BACCARAT_PAYS,
            "paytables": [],
            "collection": EZ_BACCARAT_OPTION_3,
        },
        "ts": "2026-11-27T00:00:00.000000Z",
    }
    assert info["version"] == importlib.metadata.version("tablectl")  # the installed release


def shipped_posted(name: str) -> dict[str, Any]:
    """`posted` of a shipped config, after checking the whole `info` against its schema."""
    cfg = load_config(SHIPPED / name)
    info = info_payload(cfg, cfg.rules, ts="2026-11-27T00:00:00.000000Z", serial_of=no_serial)
    schemas.validate(
        f"{cfg.table.base_topic}/info", json.dumps({"table": "t", "v": 1, **info}).encode()
    )
    found: dict[str, Any] = info["posted"]
    return found


def pays(*rows: tuple[str, str]) -> list[dict[str, str]]:
    return [{"hand": hand, "pays": pay} for hand, pay in rows]


def test_posted_at_a_blackjack_table_limits_per_spot_side_bets_and_the_schedule() -> None:
    """config/pure-21.5-blackjack-003-6to5.toml: limits $5-$200, Red Flex and Buster $5-$100
    each (003 "Pure 21.5 Blackjack 6 to 5: Wagering Limits and Collection Fees"); RFB-12
    (config/paytables/blackjack.toml, 003 "Red Flex Bet") and Buster option 1 (003 "Buster
    Blackjack Bonus Bet Pay Table"); schedule option 5 (003 "Pure 21.5 Blackjack 6 to 5:
    Wagering Limits and Collection Fees"). No bet timer."""
    assert shipped_posted("pure-21.5-blackjack-003-6to5.toml") == {
        "limits": {
            "min": "5.00",
            "max": "200.00",
            "spots": {
                "red-flex": {"min": "5.00", "max": "100.00"},
                "buster": {"min": "5.00", "max": "100.00"},
            },
        },
        # R11: this approval pays a pure 21.5 6 to 5; R17: insurance 2 to 1
        "pays": [
            {"wager": "base", "hand": "a pure 21.5", "pays": "6 to 5"},
            {"wager": "insurance", "hand": "the player-dealer has a pure 21.5", "pays": "2 to 1"},
        ],
        "paytables": [
            {
                "name": "RFB-12",
                "wager": "red-flex",
                "pays": pays(
                    ("red-8-or-more", "300 to 1"),
                    ("red-7", "200 to 1"),
                    ("red-6", "100 to 1"),
                    ("red-5", "50 to 1"),
                    ("red-4", "8 to 1"),
                    ("red-3", "3 to 1"),
                    ("red-2", "2 to 1"),
                ),
            },
            {
                "name": "option-1",
                "wager": "buster",
                "pays": pays(
                    ("cards-3", "1 to 1"),
                    ("cards-4", "3 to 1"),
                    ("cards-5", "8 to 1"),
                    ("cards-6", "20 to 1"),
                    ("cards-7", "50 to 1"),
                    ("cards-8-or-more", "200 to 1"),
                ),
            },
        ],
        "collection": {
            "option": 5,
            "table_min": "5.00",
            "table_max": "200.00",
            "brackets": [
                {"min_action": "5.00", "fee": "0.50"},
                {"min_action": "51.00", "fee": "1.00"},
                {"min_action": "101.00", "fee": "2.00"},
                {"min_action": "201.00", "fee": "3.00"},
                {"min_action": "301.00", "fee": "4.00"},
            ],
            "player_fee": "0.00",
            "player_fee_per": "wager",
            "player_fee_brackets": [],
            "player_fee_spots": [],
        },
    }


def test_posted_ultimate_texas_holdem_a_fractional_pay_and_a_fee_per_player() -> None:
    """config/ultimate-texas-holdem-004.toml: the Blind pays a flush 3 to 2 and the Trips as 004
    "Ultimate Texas Hold'em Paytable" lists them; option 1 charges each player $1 once (004
    "Ultimate Texas Hold'em: Collection Rates Schedule")."""
    got = shipped_posted("ultimate-texas-holdem-004.toml")
    assert got["limits"] == {"min": "5.00", "max": "500.00", "spots": {}}
    assert got["paytables"] == [
        {
            "name": "BLIND-004",
            "wager": "blind",
            "pays": pays(
                ("royal-flush", "500 to 1"),
                ("straight-flush", "50 to 1"),
                ("four-of-a-kind", "10 to 1"),
                ("full-house", "3 to 1"),
                ("flush", "3 to 2"),
                ("straight", "1 to 1"),
            ),
        },
        {
            "name": "TRIPS-004",
            "wager": "trips",
            "pays": pays(
                ("royal-flush", "50 to 1"),
                ("straight-flush", "40 to 1"),
                ("four-of-a-kind", "30 to 1"),
                ("full-house", "9 to 1"),
                ("flush", "7 to 1"),
                ("straight", "4 to 1"),
                ("three-of-a-kind", "3 to 1"),
            ),
        },
    ]
    collection = got["collection"]
    assert (collection["player_fee"], collection["player_fee_per"]) == ("1.00", "player")
    assert [b["min_action"] for b in collection["brackets"]] == [
        "5.00",
        "25.00",
        "75.00",
        "125.00",
        "200.00",
    ]
    assert [b["fee"] for b in collection["brackets"]] == ["1.00", "2.00", "3.00", "5.00", "10.00"]
    assert "bet_timer" not in got


def test_posted_fortune_pai_gow_the_envy_amounts_and_a_fee_by_the_wager() -> None:
    """config/fortune-pai-gow-004.toml: FORTUNE-003 with its Envy amounts (004 "Envy Bonus");
    option 1 charges the player by the wager's size (004 "Fortune Pai Gow Poker: Collection
    Rates")."""
    got = shipped_posted("fortune-pai-gow-004.toml")
    assert got["limits"] == {"min": "10.00", "max": "500.00", "spots": {}}
    (fortune,) = got["paytables"]
    assert (fortune["name"], fortune["wager"]) == ("FORTUNE-003", "fortune")
    assert fortune["pays"][0] == {"hand": "seven-card-straight-flush", "pays": "5000 to 1"}
    assert fortune["pays"][-1] == {"hand": "straight", "pays": "2 to 1"}
    assert len(fortune["pays"]) == 11
    assert fortune["envy"] == [
        {"hand": "seven-card-straight-flush", "amount": "5000.00"},
        {"hand": "royal-flush-royal-match", "amount": "1000.00"},
        {"hand": "seven-card-straight-flush-joker", "amount": "500.00"},
        {"hand": "five-aces", "amount": "250.00"},
        {"hand": "royal-flush", "amount": "50.00"},
        {"hand": "straight-flush", "amount": "20.00"},
        {"hand": "four-of-a-kind", "amount": "5.00"},
    ]
    collection = got["collection"]
    assert collection["player_fee"] == "0.00"
    assert collection["player_fee_brackets"][:3] == [
        {"min_action": "10.00", "fee": "0.50"},
        {"min_action": "50.00", "fee": "1.00"},
        {"min_action": "101.00", "fee": "2.00"},
    ]


def test_posted_at_a_poker_table_the_stakes_and_the_posted_options_read_together() -> None:
    """config/texas-holdem-004.toml: fixed limit $4-$8, blinds $2-$4; the posted options 1 and 2
    (config/schedules/poker/texas-holdem-004.toml) read as one schedule: $3 a hand with 2 to 5
    players, $4 with 6 to 9, for a $4-$8 "Limit" table; no pay table, no banked limits."""
    assert shipped_posted("texas-holdem-004.toml") == {
        "betting": {
            "structure": "fixed-limit",
            "stakes": ["4.00", "8.00"],
            "late_stakes": None,
            "blinds": ["2.00", "4.00"],
            "kill": "none",
            "chip": "1.00",
            "buy_in": None,
        },
        "pays": [],
        "paytables": [],
        "collection": {
            "options": [1, 2],
            "per": "hand",
            "rates": [
                {"min_players": 2, "max_players": 5, "fee": "3.00"},
                {"min_players": 6, "max_players": 9, "fee": "4.00"},
            ],
            "modified_fee": None,
            "table_limits": [{"lower": "4.00", "higher": "8.00"}],
            "structure": "fixed-limit",
            "buy_in": None,
            "button_fee": None,
        },
    }


def test_posted_dealers_choice_each_offered_game_with_its_own_limits() -> None:
    """config/dealers-choice-003.toml: $2-$4 for every game but Omaha high-low, $5-$10 with
    blinds $2-$5 ([game.limits.omaha-hi-lo]); its own schedule, an open-ended top rate."""
    got = shipped_posted("dealers-choice-003.toml")
    games = {g["game"]: (g["stakes"], g["blinds"]) for g in got["betting"]["games"]}
    assert list(games)[:2] == ["texas-holdem", "omaha-hi-lo"]
    assert games["omaha-hi-lo"] == (["5.00", "10.00"], ["2.00", "5.00"])
    assert games["razz"] == (["2.00", "4.00"], ["1.00", "2.00"])
    assert got["collection"]["rates"][-1] == {"min_players": 7, "max_players": None, "fee": "3.00"}
    assert got["collection"]["modified_fee"] == "1.00"


def test_posted_chinese_poker_the_point_the_buy_in_and_the_button_fee() -> None:
    """config/chinese-poker-003.toml: a $5 point, twenty points' buy-in ($100), the posted
    $1-$100 limit; option 2: $1 each, $2 for the buttons' holder (003 "Chinese Poker")."""
    got = shipped_posted("chinese-poker-003.toml")
    assert got["points"] == {
        "point": "5.00",
        "chip": "1.00",
        "buy_in": "100.00",
        "table_limit": {"min": "1.00", "max": "100.00"},
    }
    assert "limits" not in got and "betting" not in got
    assert got["collection"]["rates"] == [{"min_players": 2, "max_players": 5, "fee": "1.00"}]
    assert got["collection"]["button_fee"] == "2.00"


def test_posted_bet_timer_where_one_runs_and_every_shipped_config_fits_the_schema(
    tmp_path: Path,
) -> None:
    timed = load_config(write_config(tmp_path, game={"bet_timer_seconds": 45})).rules
    assert posted(timed)["bet_timer"] == 45
    assert "bet_timer" not in posted(load_config(write_config(tmp_path)).rules)
    for path in sorted(SHIPPED.glob("*.toml")):
        shipped_posted(path.name)  # each one's info validates against schemas/info.json


def test_posted_follows_the_rules_not_the_file(tmp_path: Path) -> None:
    """`posted` is built from the rules it is given (the journal's, in force), as the digest."""
    cfg = load_config(write_config(tmp_path))
    lower = load_config(write_config(tmp_path, limits={"max": "100"})).rules
    info = info_payload(cfg, lower, ts="2026-11-27T00:00:00.000000Z", serial_of=no_serial)
    assert info["posted"]["limits"]["max"] == "100.00"


def test_a_device_serial_is_given_where_known_and_left_out_where_not(tmp_path: Path) -> None:
    path = write_config(tmp_path)
    text = path.read_text()
    for dev in (SHOE, EZTRAK):
        text += "\n[[devices]]\n" + "".join(f'{k} = "{v}"\n' for k, v in dev.items())
    path.write_text(text)
    cfg = load_config(path)
    serials = {"usb:0403:6001:A1B2C3": "A1B2C3"}
    assert devices(cfg, serials.get) == [
        {"name": "shoe", "driver": "shoe"},
        {"name": "board", "driver": "eztrak", "serial": "A1B2C3"},
    ]


def test_the_rules_digest_is_recomputable_from_the_journaled_config_record(
    tmp_path: Path,
) -> None:
    """The daemon journals the rules as a `config` record; the digest of that record's `rules`
    (what `tablectl export` shows) is the one `info` publishes."""
    path = write_config(tmp_path, mqtt={"enabled": False})
    cfg = load_config(path)

    async def start_and_stop() -> None:
        daemon = Daemon(cfg)
        runner = asyncio.create_task(daemon.run(install_signals=False))
        daemon.stop()
        await asyncio.wait_for(runner, TIMEOUT)

    asyncio.run(start_and_stop())
    journal = Journal(tmp_path / "journal.db", table=TABLE_ID)
    try:
        (journaled,) = [r.body["rules"] for r in journal.records() if r.body["type"] == "config"]
    finally:
        journal.close()
    assert canonical_sha256(journaled) == rules_digest(cfg.rules)
    assert rules_digest(Rules.model_validate(journaled)) == rules_digest(cfg.rules)


def test_other_rules_have_another_digest(tmp_path: Path) -> None:
    lower = load_config(write_config(tmp_path, limits={"max": "100"})).rules
    assert rules_digest(lower) != rules_digest(load_config(write_config(tmp_path)).rules)


# -- through the daemon and a real Mosquitto ---------------------------------------------------


@contextlib.asynccontextmanager
async def info_messages(broker: MosquittoBroker) -> AsyncIterator[list[dict[str, Any]]]:
    """Every `info` message the broker delivers while the block runs, decoded."""
    got: list[dict[str, Any]] = []
    async with aiomqtt.Client(broker.host, broker.port, identifier="info-test") as client:
        await client.subscribe(f"{BASE}/info", qos=1)

        async def collect() -> None:
            async for m in client.messages:
                got.append(json.loads(bytes(m.payload)))

        task = asyncio.create_task(collect())
        try:
            yield got
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def until(predicate: Any, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def play(path: Path, inputs: list[dict[str, Any]], got: list[dict[str, Any]]) -> int:
    """Run a daemon on `path`, wait for its `info`, submit `inputs`; how many `info` messages
    had arrived once the daemon stopped."""
    before = len(got)
    daemon = Daemon(load_config(path))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        await until(lambda: len(got) > before, "the start's info")
        for data in inputs:
            await daemon.submit("console", data)
    finally:
        daemon.stop()
        await asyncio.wait_for(runner, TIMEOUT)
    assert not daemon.failed
    return len(got)


ROUND_OPEN: list[dict[str, Any]] = [
    {"type": "bank", "seat": 1, "amount": "1000"},
    {"type": "wager", "seat": 2, "spot": "player", "amount": "100"},
]
ROUND_END: list[dict[str, Any]] = [
    {"type": "bets.close"},
    *({"type": "shoe.card", "card": c} for c in ["9h", "2d", "Kc", "3s"]),  # natural 9 vs 5
]


@pytest.mark.integration
async def test_info_follows_the_rules_in_force_across_a_change_that_waits_for_the_round(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """A restart with a lowered maximum in the middle of a round: `info` says the rules still in
    force (the round's), then, once the round is over and the new rules are journaled, `info`
    again with theirs. The config digest is the file's as this start read it."""
    mqtt = {"host": mosquitto.host, "port": mosquitto.port, "keepalive": 5}
    path = write_config(tmp_path, mqtt=mqtt)
    old = rules_digest(load_config(path).rules)
    async with info_messages(mosquitto) as got:
        await play(path, ROUND_OPEN, got)
        write_config(tmp_path, mqtt=mqtt, limits={"max": "400"})
        new = rules_digest(load_config(path).rules)
        file_digest = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
        first = len(got)
        await play(path, ROUND_END, got)
        await until(lambda: any(i["rules_digest"] == new for i in got[first:]), "the new info")
    assert old != new
    assert got[0]["table"] == TABLE_ID and got[0]["rules_digest"] == old
    second_start = got[first:]
    assert [i["rules_digest"] for i in second_start] == [old, new]
    assert {i["config_digest"] for i in second_start} == {file_digest}


def test_posted_pays_follow_the_approval_a_3_to_2_table_and_a_spanish_one() -> None:
    """R11: config/pure-21.5-blackjack-003-3to2.toml pays a pure 21.5 3 to 2 (003 "Pure 21.5
    Blackjack 3 to 2: Value of the Cards"); Pure Spanish 21.5 pays 6 to 5 and offers no
    insurance (003 "Pure Spanish 21.5: Card Values and Hand Rankings", R17)."""
    assert shipped_posted("pure-21.5-blackjack-003-3to2.toml")["pays"][0] == {
        "wager": "base",
        "hand": "a pure 21.5",
        "pays": "3 to 2",
    }
    assert shipped_posted("pure-spanish-21.5-003.toml")["pays"] == [
        {"wager": "base", "hand": "a pure 21.5", "pays": "6 to 5"}
    ]


def test_posted_banker_line_says_a_dragon_7_pushes_where_the_option_is_on_R26(
    tmp_path: Path,
) -> None:
    rules = load_config(write_config(tmp_path, game={"banker_push_on_dragon7": True})).rules
    (_, banker, *_) = posted(rules)["pays"]
    assert banker == {
        "wager": "banker",
        "hand": "banker wins (a Dragon 7 pushes)",
        "pays": "1 to 1",
    }
