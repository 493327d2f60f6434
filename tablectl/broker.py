"""Who may publish and read what on a card room's Mosquitto: the broker users and the ACL
(`tablectl broker-acl`; docs/operations.md, "The broker: users, passwords, ACL, TLS").

One user per role, generated from the tables' configs so that a technician never writes an ACL by
hand:

- ``table-<site>-<table>`` (or the config's ``[mqtt] username``): the table daemon. It may write
  only its own topics below its base, and read only its commands ``<base>/cmd/<verb>``. It may not
  publish a command, not even to itself, nor anything under another table's base;
- ``console-<site>-<table>``: the table's dealer console. It may write ``<base>/cmd/<verb>`` and
  read every topic the table publishes but ``broadcast/#`` (the replies, and ``state`` to know
  what to offer), and the commands that carry no card the table has not shown
  (`tablectl.commands.OPEN_COMMANDS`): a ``cmd/hole.cards`` keyed at one console is read by the
  table alone, not by the table's other consoles (one user for all of them) nor the pit;
- ``pit-<site>``: the floor supervisor's console: a console for every table of the site (it
  resolves held rounds with ``round.resume`` and ``round.void``);
- ``floor-<site>``: floor and surveillance systems: read everything the tables publish, but not the
  inbound commands (a ``cmd/decision`` can name a player's hand of cards before the showdown,
  docs/mqtt.md), and write nothing;
- ``display-<site>``: display pages (EZTRAK boards, table signs, the scoreboard page): read
  ``status``, ``info`` (the posted limits, pay tables and collection schedule), ``state`` and
  ``display/#`` only, write nothing; with ``--display-results`` (``display_results``) also
  ``round/result``, which names every player id with each wager's result (the scoreboard's last
  hand and side-bet hits need it), so it is left out unless asked;
- ``broadcast-<site>``: a broadcast production's feed: read only ``broadcast/#``, the delayed feed
  with every card (tablectl/broadcast.py), which no other role may read (the consoles, pit and
  floor are denied it: R46 keeps hole cards off every live topic);
- ``surveillance-<site>``: the card room's surveillance: read only ``surveillance/#``, the live
  figures of every wager from the cards left in the shoe and the alerts on them
  (tablectl/surveillance/), which no other role may read: they count the burns and the
  face-down cards, and a player who could read them would be handed the count. The floor's
  ``<base>/#`` grant would take them in, so the floor is denied them as it is ``broadcast/#``
  (a ``deny`` line is applied before any grant, whatever the order); the consoles, the pit and
  the display pages are granted topic by topic and are never granted them;
- ``ledger-<site>``: the card room's books (`tablectl ledger`): read every topic the tables
  publish but ``broadcast/#`` and ``surveillance/#``, and the answers on ``history``; write only
  ``cmd/history`` (it asks a table for messages it missed, and commands nothing). The answers
  are its alone.

Anonymous clients get nothing (the first section of an ACL file, before any ``user`` line, is
theirs, and it is empty); the broker's ``allow_anonymous false`` refuses them at connect anyway.

A topic the table publishes must be in ``TABLE_WRITES``. The relay speaks MQTT 5, so a publish
the ACL refuses comes back with reason code 0x87 in its PUBACK and stays unsent (an alert says
so: tablectl/relay/); the integration tests run every whole-daemon test against this ACL.

Mosquitto's ``deny`` line refuses writing as well as reading, so a console's reads are listed
topic by topic rather than "everything but": it must still write the commands it may not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tablectl.commands import OPEN_COMMANDS
from tablectl.config import TableConfig
from tablectl.discovery import discovery_topics

Access = Literal["read", "write", "readwrite", "deny"]

# Below `tablectl/<site>/<table>`: everything the daemon publishes (docs/mqtt.md, "Topics"). The
# Last Will is on `status`, and Mosquitto refuses a connection whose will the ACL does not allow.
TABLE_WRITES = (
    "status",
    "info",
    "state",
    "event",
    "alert",
    "alerts/open",
    "round/result",
    "device/+/status",
    "display/#",
    "journal/#",
    "cmd/+/reply",
    "broadcast/#",
    "history",
    "surveillance/#",
)
HISTORY = "history"  # the answers to the ledger's cmd/history: the ledger role's alone
HISTORY_REQUEST = "cmd/history"
TABLE_READS = ("cmd/+",)  # the commands; `cmd/<verb>/reply` is one level deeper, so not these
COMMANDS = "cmd/+"  # what a console may write: a command, never a reply
DISPLAY_READS = ("status", "info", "state", "display/#")  # nothing any card the table hides
DISPLAY_RESULTS = "round/result"  # player ids with each wager's result: only when asked
BROADCAST = "broadcast/#"  # the delayed feed: its own role only
SURVEILLANCE = "surveillance/#"  # the live figures and their alerts: its own role only
OWN_ROLE_ONLY = (BROADCAST, SURVEILLANCE, HISTORY)  # the floor is denied each
CONSOLE_READS = tuple(t for t in TABLE_WRITES if t not in OWN_ROLE_ONLY) + tuple(
    f"cmd/{verb}" for verb in OPEN_COMMANDS
)  # what the table publishes but the feeds of a role of their own, and the commands that show
# no hidden card

# What a Mosquitto password file and an ACL file's `user` line can carry.
_USERNAME = re.compile(r"^[A-Za-z0-9_.@-]{1,128}$")


@dataclass(frozen=True)
class Grant:
    """One `topic <access> <topic>` line."""

    access: Access
    topic: str

    def line(self) -> str:
        return f"topic {self.access} {self.topic}"


@dataclass(frozen=True)
class BrokerUser:
    """One broker user: its role and what the ACL grants it."""

    name: str
    role: Literal[
        "table", "console", "pit", "floor", "display", "broadcast", "surveillance", "ledger"
    ]
    site: str
    grants: tuple[Grant, ...]
    comment: str


def table_user(table: TableConfig) -> str:
    """The table daemon's broker user: the config's ``[mqtt] username``, else the default."""
    return table.mqtt.username or f"table-{table.site}-{table.table}"


def console_user(site: str, table: str) -> str:
    return f"console-{site}-{table}"


def pit_user(site: str) -> str:
    return f"pit-{site}"


def floor_user(site: str) -> str:
    return f"floor-{site}"


def display_user(site: str) -> str:
    return f"display-{site}"


def broadcast_user(site: str) -> str:
    return f"broadcast-{site}"


def ledger_user(site: str) -> str:
    return f"ledger-{site}"


def surveillance_user(site: str) -> str:
    return f"surveillance-{site}"


def numbered(name: str, screens: int) -> list[str]:
    """`name` and, for more screens than one, `name-2` ... `name-<screens>`: on a broker where a
    client's id is its user name (`use_username_as_clientid`) a user is one connection at a
    time, so each screen of a role needs a user of its own."""
    return [name, *(f"{name}-{n}" for n in range(2, screens + 1))]


def room_users(
    tables: Sequence[TableConfig], *, display_results: bool = False, screens: int = 1
) -> list[BrokerUser]:
    """Every user of a card room's broker, for these tables: per table the daemon and its console,
    per site the pit, floor and display roles (the display role reads `round/result` too when
    `display_results`; `screens` users each of the floor and display roles, `numbered`).
    ValueError for two configs of one table, a user name the broker cannot take, or one user
    name given to two roles."""
    if screens < 1:
        raise ValueError(f"--screens must be 1 or more, not {screens}")
    display_reads = (*DISPLAY_READS, DISPLAY_RESULTS) if display_results else DISPLAY_READS
    if not tables:
        raise ValueError("no table config given")
    bases: dict[str, TableConfig] = {}
    for t in tables:
        if t.base_topic in bases:
            raise ValueError(f"two configs are for the same table {t.site}/{t.table}")
        bases[t.base_topic] = t
    users: list[BrokerUser] = []
    sites = list(dict.fromkeys(t.site for t in tables))
    for site in sites:
        here = [t for t in tables if t.site == site]
        for t in here:
            base = t.base_topic
            users.append(
                BrokerUser(
                    table_user(t),
                    "table",
                    site,
                    tuple(Grant("write", f"{base}/{s}") for s in TABLE_WRITES)
                    + tuple(Grant("read", f"{base}/{s}") for s in TABLE_READS)
                    + _discovery_grants(t),
                    f"{site}/{t.table}: the table daemon ({t.game.id})",
                )
            )
            users.append(
                BrokerUser(
                    console_user(site, t.table),
                    "console",
                    site,
                    _console_grants(base),
                    f"{site}/{t.table}: its dealer console",
                )
            )
        users.append(
            BrokerUser(
                pit_user(site),
                "pit",
                site,
                tuple(g for t in here for g in _console_grants(t.base_topic)),
                f"{site}: the floor supervisor's console, for every table",
            )
        )
        users += [
            BrokerUser(
                name,
                "floor",
                site,
                # deny is applied before any grant, whatever the order of the lines
                tuple(Grant("deny", f"{t.base_topic}/{COMMANDS}") for t in here)
                + tuple(
                    Grant("deny", f"{t.base_topic}/{own}") for t in here for own in OWN_ROLE_ONLY
                )
                + tuple(Grant("read", f"{t.base_topic}/#") for t in here),
                f"{site}: floor and surveillance systems, read only, no inbound commands",
            )
            for name in numbered(floor_user(site), screens)
        ]
        users += [
            BrokerUser(
                name,
                "display",
                site,
                tuple(Grant("read", f"{t.base_topic}/{s}") for t in here for s in display_reads),
                f"{site}: display pages, read only: " + ", ".join(display_reads),
            )
            for name in numbered(display_user(site), screens)
        ]
        users.append(
            BrokerUser(
                broadcast_user(site),
                "broadcast",
                site,
                tuple(Grant("read", f"{t.base_topic}/{BROADCAST}") for t in here),
                f"{site}: broadcast production, the delayed feed (broadcast/#) only",
            )
        )
        users.append(
            BrokerUser(
                surveillance_user(site),
                "surveillance",
                site,
                tuple(Grant("read", f"{t.base_topic}/{SURVEILLANCE}") for t in here),
                f"{site}: surveillance, the live figures and their alerts (surveillance/#) only",
            )
        )
        users.append(
            BrokerUser(
                ledger_user(site),
                "ledger",
                site,
                tuple(
                    Grant("read", f"{t.base_topic}/{s}")
                    for t in here
                    for s in TABLE_WRITES
                    if s not in (BROADCAST, SURVEILLANCE)
                )
                + tuple(Grant("write", f"{t.base_topic}/{HISTORY_REQUEST}") for t in here),
                f"{site}: the ledger (the books), read only but cmd/history",
            )
        )
    seen: dict[str, BrokerUser] = {}
    for u in users:
        if not _USERNAME.match(u.name):
            raise ValueError(
                f"broker user {u.name!r} ({u.comment}): use 1-128 of A-Z a-z 0-9 _ . @ -"
            )
        if u.name in seen:
            raise ValueError(
                f"broker user {u.name!r} is given twice: {seen[u.name].comment}; {u.comment}"
            )
        seen[u.name] = u
    return users


def _console_grants(base: str) -> tuple[Grant, ...]:
    """A console's (and the pit's, per table): write any command but the ledger's
    `cmd/history`, read `CONSOLE_READS`. The one ``deny`` line is that request, which a console
    must neither send nor read; no other: Mosquitto's deny would refuse writing the commands a
    console may not read."""
    reads = (Grant("read", f"{base}/{t}") for t in CONSOLE_READS)
    deny = Grant("deny", f"{base}/{HISTORY_REQUEST}")
    return (deny, Grant("write", f"{base}/{COMMANDS}"), *reads)


def _discovery_grants(t: TableConfig) -> tuple[Grant, ...]:
    """Home Assistant discovery, where the table publishes it: its retained entity configs."""
    if not t.mqtt.discovery:
        return ()
    return (Grant("write", discovery_topics(t.mqtt.discovery_prefix, t.site, t.table)),)


def acl_text(users: Sequence[BrokerUser]) -> str:
    """The Mosquitto ``acl_file`` for these users."""
    lines = [
        "# Mosquitto acl_file for tablectl, generated by `tablectl broker-acl`",
        '# (docs/operations.md, "The broker"). Regenerate it when a table is added; do not edit.',
        "# Anonymous clients: no topic (this first section is theirs, and it is empty).",
        "# Every user below needs a password: mosquitto_passwd <password_file> <user>",
    ]
    for u in users:
        lines += ["", f"# {u.comment}", f"user {u.name}"]
        lines += [g.line() for g in u.grants]
    return "\n".join(lines) + "\n"
