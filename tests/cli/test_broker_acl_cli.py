"""`tablectl broker-acl`: the Mosquitto users and ACL of a card room, generated
from its tables' configs. What the broker does with the ACL is tested against a real Mosquitto in
tests/integration/test_broker_acl.py; here, what the file says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from paho.mqtt.client import topic_matches_sub

from tablectl.broker import TABLE_WRITES
from tablectl.cli import main
from tablectl.commands import CARD_COMMANDS, COMMAND_VERBS, FACE_UP_COMMANDS

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "config").glob("*.toml"))
BAC = ROOT / "config" / "ez-baccarat-panda8.toml"
TCP = ROOT / "config" / "three-card-poker-6cb-004.toml"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def grants(acl: str) -> dict[str, list[tuple[str, str]]]:
    """user -> its (access, topic) lines; '' for the anonymous section before any user."""
    out: dict[str, list[tuple[str, str]]] = {"": []}
    user = ""
    for line in acl.splitlines():
        if not line or line.startswith("#"):
            continue
        word, *rest = line.split()
        if word == "user":
            (user,) = rest
            assert user not in out, f"user {user} appears twice"
            out[user] = []
        else:
            assert word == "topic" and len(rest) == 2, f"not a `topic ACCESS TOPIC` line: {line!r}"
            out[user].append((rest[0], rest[1]))
    return out


def may(lines: list[tuple[str, str]], access: str, topic: str) -> bool:
    """Mosquitto's rule: a matching deny refuses whatever the order; else any matching grant."""
    if any(a == "deny" and topic_matches_sub(t, topic) for a, t in lines):
        return False
    return any(access in (a, "readwrite") and topic_matches_sub(t, topic) for a, t in lines)


def test_every_shipped_config_gets_its_users_and_a_complete_acl(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["broker-acl"] + [arg for p in SHIPPED for arg in ("--config", str(p))]
    code, acl, err = run(argv, capsys)
    assert (code, err) == (0, "")
    code, users, _ = run([*argv, "--users"], capsys)
    assert code == 0
    by_user = grants(acl)
    assert by_user.pop("") == []  # anonymous clients: nothing
    assert sorted(users.split()) == sorted(by_user)
    tables = [f"table-cardroom-1-{t}" for t in ("bac-01", "tcp-04", "pgp-01", "uth-01", "bj-02")]
    site_roles = [
        "pit-cardroom-1",
        "floor-cardroom-1",
        "display-cardroom-1",
        "broadcast-cardroom-1",
        "surveillance-cardroom-1",
    ]
    for name in [*tables, *site_roles]:
        assert name in by_user
    assert len([u for u in by_user if u.startswith("table-")]) == len(SHIPPED)
    assert len([u for u in by_user if u.startswith("console-")]) == len(SHIPPED)


def test_each_role_may_do_what_the_issue_says_and_nothing_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, acl, _ = run(["broker-acl", "--config", str(BAC), "--config", str(TCP)], capsys)
    assert code == 0
    by_user = grants(acl)
    bac, tcp = "tablectl/cardroom-1/bac-01", "tablectl/cardroom-1/tcp-04"
    table, console = by_user["table-cardroom-1-bac-01"], by_user["console-cardroom-1-bac-01"]
    pit, floor = by_user["pit-cardroom-1"], by_user["floor-cardroom-1"]
    display = by_user["display-cardroom-1"]

    # the table: its own topics only, its commands to read, no command to send
    for topic in ("state", "round/result", "status", "alert", "cmd/wager/reply", "journal/head"):
        assert may(table, "write", f"{bac}/{topic}"), topic
    assert may(table, "read", f"{bac}/cmd/wager")
    assert not may(table, "write", f"{bac}/cmd/wager")
    assert not may(table, "write", f"{bac}/cmd/round.void")
    assert not may(table, "write", f"{tcp}/round/result")
    assert not may(table, "read", f"{tcp}/cmd/decision")
    assert not may(table, "read", f"{bac}/round/result")

    # its console: commands to this table, and what this table publishes to read
    assert may(console, "write", f"{bac}/cmd/wager")
    assert not may(console, "write", f"{bac}/cmd/wager/reply")  # no forged reply
    assert not may(console, "write", f"{bac}/round/result")
    assert not may(console, "write", f"{tcp}/cmd/wager")
    assert may(console, "read", f"{bac}/round/result")
    assert not may(console, "read", f"{tcp}/round/result")

    # the pit: a console for every table of the site
    for base in (bac, tcp):
        assert may(pit, "write", f"{base}/cmd/round.resume")
        assert not may(pit, "write", f"{base}/state")

    # the floor: everything but the commands (a Pai Gow low hand), nothing to write
    for base in (bac, tcp):
        assert may(floor, "read", f"{base}/round/result")
        assert may(floor, "read", f"{base}/cmd/decision/reply")
        assert not may(floor, "read", f"{base}/cmd/decision")
    assert all(a in ("read", "deny") for a, _ in floor)

    # display pages (the scoreboard): status, info (the posted limits, pay tables and
    # schedule), state and display/#; not round/result (player ids) unless asked, nor anything
    # with a card the table has not shown
    for base in (bac, tcp):
        for topic in ("status", "info", "state", "display/eztrak"):
            assert may(display, "read", f"{base}/{topic}"), topic
    for topic in (
        "round/result",
        "event",
        "alert",
        "cmd/wager",
        "cmd/wager/reply",
        "journal/head",
        "device/shoe/status",
        "broadcast/event",
        "broadcast/round/result",
    ):
        assert not may(display, "read", f"{bac}/{topic}"), topic
    assert all(a == "read" for a, _ in display)

    # the delayed broadcast feed (every card): its own role only, R46 keeps it from the others
    broadcast = by_user["broadcast-cardroom-1"]
    assert may(table, "write", f"{bac}/broadcast/event")
    for base in (bac, tcp):
        assert may(broadcast, "read", f"{base}/broadcast/event")
        assert may(broadcast, "read", f"{base}/broadcast/round/result")
        for topic in ("event", "state", "round/result", "cmd/decision"):
            assert not may(broadcast, "read", f"{base}/{topic}"), topic
        for other in (floor, pit):
            assert not may(other, "read", f"{base}/broadcast/event")
    assert not may(console, "read", f"{bac}/broadcast/event")
    assert all(a == "read" for a, _ in broadcast)


def test_only_the_surveillance_role_reads_the_live_figures_and_their_alerts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`surveillance/#` (the live figures, counting burns and face-down cards, and the alerts
    on them) is written by its table and read by `surveillance-<site>` alone: the floor's
    `<base>/#` grant is carved by a deny line (Mosquitto applies a deny before any grant), and
    no other role is granted it; the surveillance role reads nothing else."""
    code, acl, _ = run(["broker-acl", "--config", str(BAC), "--config", str(TCP)], capsys)
    assert code == 0
    by_user = grants(acl)
    watcher = by_user.pop("surveillance-cardroom-1")
    for base in ("bac-01", "tcp-04"):
        topic = f"tablectl/cardroom-1/{base}"
        assert may(by_user[f"table-cardroom-1-{base}"], "write", f"{topic}/surveillance/odds")
        for suffix in ("surveillance/odds", "surveillance/alert"):
            assert may(watcher, "read", f"{topic}/{suffix}")
            readers = [u for u, lines in by_user.items() if may(lines, "read", f"{topic}/{suffix}")]
            assert readers == [], suffix
        for suffix in ("event", "state", "alert", "round/result", "broadcast/event", "cmd/wager"):
            assert not may(watcher, "read", f"{topic}/{suffix}"), suffix
    assert ("deny", "tablectl/cardroom-1/bac-01/surveillance/#") in by_user["floor-cardroom-1"]
    assert all(a == "read" for a, _ in watcher)


def test_only_the_ledger_asks_for_history_and_reads_the_answers_and_it_commands_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`cmd/history` is written by `ledger-<site>` alone (a console or the pit could otherwise
    answer for the ledger's requests or load the table's outbox at will) and read by the table;
    `history` (the answers) is written by the table and read by the ledger alone; the ledger
    writes nothing else, and reads neither the commands nor the two feeds of a role of their
    own."""
    code, acl, _ = run(["broker-acl", "--config", str(BAC), "--config", str(TCP)], capsys)
    assert code == 0
    by_user = grants(acl)
    ledger = by_user.pop("ledger-cardroom-1")
    for base in ("bac-01", "tcp-04"):
        topic = f"tablectl/cardroom-1/{base}"
        table = by_user[f"table-cardroom-1-{base}"]
        assert may(ledger, "write", f"{topic}/cmd/history") and may(
            ledger, "read", f"{topic}/history"
        )
        assert may(table, "read", f"{topic}/cmd/history") and may(
            table, "write", f"{topic}/history"
        )
        writers = [u for u, g in by_user.items() if may(g, "write", f"{topic}/cmd/history")]
        readers = [u for u, g in by_user.items() if may(g, "read", f"{topic}/history")]
        assert (writers, readers) == ([], [f"table-cardroom-1-{base}"][:0] or []), (
            writers,
            readers,
        )
        for suffix in ("cmd/wager", "cmd/bank", "state", "history", "round/result"):
            if suffix != "cmd/history":
                assert not may(ledger, "write", f"{topic}/{suffix}"), suffix
        for suffix in ("cmd/wager", "cmd/hole.cards", "broadcast/event", "surveillance/odds"):
            assert not may(ledger, "read", f"{topic}/{suffix}"), suffix
        for suffix in ("event", "round/result", "alert", "device/shoe/status", "cmd/bank/reply"):
            assert may(ledger, "read", f"{topic}/{suffix}"), suffix


def test_display_results_lets_the_display_role_read_round_results_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--display-results`: the scoreboard's last hand and side-bet hits need `round/result`,
    which names every player id; asked for, the display role reads it, and still nothing else
    more (no event, no command, no delayed feed) and writes nothing. The other roles are as
    without it."""
    argv = ["broker-acl", "--config", str(BAC), "--config", str(TCP)]
    code, plain, _ = run(argv, capsys)
    assert code == 0
    code, acl, _ = run([*argv, "--display-results"], capsys)
    assert code == 0
    by_user, without = grants(acl), grants(plain)
    display = by_user["display-cardroom-1"]
    for base in ("tablectl/cardroom-1/bac-01", "tablectl/cardroom-1/tcp-04"):
        assert may(display, "read", f"{base}/round/result")
        assert not may(without["display-cardroom-1"], "read", f"{base}/round/result")
        for topic in ("status", "info", "state", "display/eztrak"):
            assert may(display, "read", f"{base}/{topic}"), topic
        for topic in ("event", "alert", "cmd/wager", "broadcast/round/result", "journal/head"):
            assert not may(display, "read", f"{base}/{topic}"), topic
    assert all(a == "read" for a, _ in display)
    assert {u: g for u, g in by_user.items() if u != "display-cardroom-1"} == {
        u: g for u, g in without.items() if u != "display-cardroom-1"
    }


def test_screens_gives_each_screen_of_the_floor_and_display_roles_a_user_of_its_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With `use_username_as_clientid` (the shipped broker config) a user is one connection at a
    time: `--screens 3` makes three floor and three display users per site, each with the
    grants of its role, and nothing else changes."""
    argv = ["broker-acl", "--config", str(BAC), "--config", str(TCP)]
    code, plain, _ = run(argv, capsys)
    code3, acl, err = run([*argv, "--screens", "3"], capsys)
    assert (code, code3, err) == (0, 0, "")
    by_user, without = grants(acl), grants(plain)
    for role in ("floor", "display"):
        names = [f"{role}-cardroom-1", f"{role}-cardroom-1-2", f"{role}-cardroom-1-3"]
        assert [u for u in by_user if u.startswith(f"{role}-")] == names
        assert all(by_user[n] == without[f"{role}-cardroom-1"] for n in names)
    assert {u: g for u, g in by_user.items() if u in without} == without
    code, _, err = run([*argv, "--screens", "0"], capsys)
    assert code == 2 and "--screens must be 1 or more, not 0" in err


def test_the_table_may_write_every_topic_the_daemon_publishes() -> None:
    """Mosquitto drops a denied publish without a word for MQTT 3.1.1, so every topic in the HIL
    scenarios' recorded output (all five device classes) is in TABLE_WRITES."""
    topics = {"alert", "cmd/round.void/reply"}
    for expected in (ROOT / "hil" / "scenarios").glob("*/expected.jsonl"):
        for line in expected.read_text().splitlines():
            topic = json.loads(line)["topic"]
            if topic.startswith("tablectl/"):
                topics.add(topic.split("/", 3)[3])
    assert {"state", "round/result", "display/eztrak", "device/shoe/status"} <= topics
    for topic in sorted(topics):
        assert any(topic_matches_sub(w, topic) for w in TABLE_WRITES), topic
        assert not topic_matches_sub("cmd/+", topic), topic


def test_the_configs_username_is_the_tables_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "bac.toml"
    text = BAC.read_text().replace('username = "table-cardroom-1-bac-01"', 'username = "bac01"')
    cfg.write_text(text.replace('file = "schedules/', f'file = "{ROOT}/config/schedules/'))
    code, users, _ = run(["broker-acl", "--users", "--config", str(cfg)], capsys)
    assert code == 0
    assert users.splitlines()[0] == "bac01"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("", ""), "two configs are for the same table cardroom-1/bac-01"),
        (('username = "table-cardroom-1-bac-01"', 'username = "bac 01"'), "broker user 'bac 01'"),
        (
            ('username = "table-cardroom-1-bac-01"', 'username = "floor-cardroom-1"'),
            "broker user 'floor-cardroom-1' is given twice",
        ),
    ],
)
def test_a_room_the_broker_cannot_have_is_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], message: str
) -> None:
    cfg = tmp_path / "other.toml"
    text = BAC.read_text().replace('file = "schedules/', f'file = "{ROOT}/config/schedules/')
    assert edit[0] in text
    text = text.replace(*edit)
    if edit[0]:  # another table of the same room
        text = text.replace('table = "bac-01"', 'table = "bac-02"')
    cfg.write_text(text)
    code, out, err = run(["broker-acl", "--config", str(BAC), "--config", str(cfg)], capsys)
    assert (code, out) == (2, "")
    assert message in err


def test_an_invalid_config_is_reported_like_check_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(BAC.read_text().replace('table = "bac-01"', 'table = "bac/01"'))
    code, out, err = run(["broker-acl", "--config", str(BAC), "--config", str(bad)], capsys)
    assert (code, out) == (2, "")
    assert f"{bad}: table:" in err


def test_the_shipped_example_acl_is_what_the_generator_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """config/mosquitto/tablectl.acl.example is `tablectl broker-acl` for the shipped baccarat
    table, so it cannot go stale."""
    code, acl, _ = run(["broker-acl", "--config", str(BAC)], capsys)
    assert code == 0
    assert (ROOT / "config" / "mosquitto" / "tablectl.acl.example").read_text() == acl


def test_a_command_that_carries_an_unshown_card_is_read_by_the_table_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 24 item 7: `cmd/hole.cards` and every command that can name a card the table has
    not shown (`CARD_COMMANDS`) is read by the table's daemon only; its consoles (one user for
    all of them) and the pit may still send it and read its reply, and read the other
    commands. The floor, display and broadcast roles read no command at all."""
    code, acl, _ = run(["broker-acl", "--config", str(BAC), "--config", str(TCP)], capsys)
    assert code == 0
    by_user = grants(acl)
    assert {"hole.cards", "shoe.burn", "shuffler.stack", "decision"} <= CARD_COMMANDS
    for base, table in (
        ("bac-01", "table-cardroom-1-bac-01"),
        ("tcp-04", "table-cardroom-1-tcp-04"),
    ):
        topic = f"tablectl/cardroom-1/{base}/cmd"
        senders = [by_user[f"console-cardroom-1-{base}"], by_user["pit-cardroom-1"]]
        for verb in COMMAND_VERBS:
            assert may(by_user[table], "read", f"{topic}/{verb}"), verb
            for sender in senders:
                assert may(sender, "write", f"{topic}/{verb}"), verb
                assert may(sender, "read", f"{topic}/{verb}/reply"), verb
                assert may(sender, "read", f"{topic}/{verb}") is (verb not in CARD_COMMANDS), verb
            for role in ("floor", "display", "broadcast"):
                assert not may(by_user[f"{role}-cardroom-1"], "read", f"{topic}/{verb}"), verb
        for sender in senders:  # a verb the table does not know is nobody's to read either
            assert not may(sender, "read", f"{topic}/hole.cardz")
            # a deny would refuse writing: the one a console has is the ledger's request
            assert all(a in ("read", "write") or t.endswith("/cmd/history") for a, t in sender)


def test_every_command_that_can_carry_a_card_is_placed_on_one_side_of_the_card_rule() -> None:
    """A verb whose payload schema (schemas/cmd.json) takes a card is either kept from the
    consoles (`CARD_COMMANDS`) or listed as carrying only face-up cards (`FACE_UP_COMMANDS`):
    a new verb with a card cannot be read by the consoles until someone decided it may."""
    defs = json.loads((ROOT / "schemas" / "cmd.json").read_text())["$defs"]
    with_cards = {verb for verb, d in defs.items() if "#/$defs/input_card" in json.dumps(d)}
    assert CARD_COMMANDS.isdisjoint(FACE_UP_COMMANDS)
    assert with_cards == CARD_COMMANDS | FACE_UP_COMMANDS
    assert with_cards <= COMMAND_VERBS.keys()
