"""The ledger's PostgreSQL schema, created and migrated by the ledger itself.

Each migration is a numbered list of statements applied once, in its own transaction, recorded
in `ledger_migrations`; a ledger starting against a database migrated by a newer version (a
number it does not know) refuses to run rather than write rows that version may not expect.
Only the writer migrates: a reader (`ledger gaps`, `ledger report`, perhaps on accounting's
machine, of another version than the running ledger) checks the schema and changes nothing
(`check_schema`)."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

MIGRATION_LOCK = 0x7461626C  # "tabl": the advisory lock two ledgers migrating at once share


@dataclass(frozen=True)
class Migration:
    version: int
    what: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "messages keyed by site, table and seq; each table's received numbers; its presence; "
        "the messages the books could not take as they came (quarantine)",
        (
            """CREATE TABLE ledger_tables (
                site text NOT NULL,
                table_id text NOT NULL,
                through bigint NOT NULL DEFAULT 0,
                above jsonb NOT NULL DEFAULT '[]'::jsonb,
                first_seen timestamptz NOT NULL DEFAULT now(),
                last_seen timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (site, table_id)
            )""",
            """CREATE TABLE ledger_messages (
                site text NOT NULL,
                table_id text NOT NULL,
                seq bigint NOT NULL CHECK (seq >= 1),
                topic text NOT NULL,
                kind text NOT NULL,
                ts timestamptz NOT NULL,
                payload jsonb NOT NULL,
                received timestamptz NOT NULL DEFAULT clock_timestamp(),  -- the row's insert
                PRIMARY KEY (site, table_id, seq)
            )""",
            """CREATE TABLE ledger_presence (
                site text NOT NULL,
                table_id text NOT NULL,
                at timestamptz NOT NULL,
                status text NOT NULL CHECK (status IN ('online', 'offline')),
                PRIMARY KEY (site, table_id, at)
            )""",
            """CREATE TABLE ledger_quarantine (
                site text NOT NULL,
                table_id text NOT NULL,
                seq bigint NOT NULL,
                topic text NOT NULL,
                text text NOT NULL,
                reason text NOT NULL,
                received timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (site, table_id, seq, received)
            )""",
            "CREATE INDEX ledger_messages_ts ON ledger_messages (ts)",
            "CREATE INDEX ledger_messages_kind_ts ON ledger_messages (kind, ts)",
        ),
    ),
)
"""Every migration, oldest first; a new one is appended with the next number, never edited."""


class SchemaError(RuntimeError):
    """The database holds a schema this ledger cannot use; the message says which and why."""


def migrate(conn: psycopg.Connection[tuple[object, ...]]) -> list[int]:
    """Apply the migrations the database lacks; the versions applied (none when current)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            """CREATE TABLE IF NOT EXISTS ledger_migrations (
                version integer PRIMARY KEY,
                what text NOT NULL,
                applied timestamptz NOT NULL DEFAULT now()
            )"""
        )
        have = _versions(conn)
        _refuse_newer(
            have,
            "upgrade this ledger, then start it again (scripts/install restarts an enabled "
            "ledger on the new release; or systemctl restart tablectl-ledger)",
        )
        applied = []
        for m in MIGRATIONS:
            if m.version in have:
                continue
            for statement in m.statements:
                conn.execute(statement.encode())
            conn.execute(
                "INSERT INTO ledger_migrations (version, what) VALUES (%s, %s)", (m.version, m.what)
            )
            applied.append(m.version)
    return applied


def check_schema(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """SchemaError unless the database holds exactly the schema this tablectl reads: a reader
    never creates or migrates the books (DDL beside a running ledger of another version could
    break its writes); it says who does."""
    exists = conn.execute("SELECT to_regclass('ledger_migrations')").fetchone()
    if exists is None or exists[0] is None:
        raise SchemaError(
            "the database holds no books yet: the ledger creates them when it first starts "
            "(`tablectl ledger run`, the tablectl-ledger service)"
        )
    have = _versions(conn)
    _refuse_newer(have, "upgrade this tablectl")
    missing = sorted({m.version for m in MIGRATIONS} - have)
    if missing:
        raise SchemaError(
            f"the database's books lack version {missing[-1]} of their schema, which this "
            "tablectl reads: upgrade the ledger (it migrates the books when it starts), then "
            "ask again"
        )


def _versions(conn: psycopg.Connection[tuple[object, ...]]) -> set[int]:
    rows = conn.execute("SELECT version FROM ledger_migrations").fetchall()
    return {int(str(r[0])) for r in rows}


def _refuse_newer(have: set[int], what_to_do: str) -> None:
    """SchemaError when the database was migrated by a newer tablectl than this one."""
    known = {m.version for m in MIGRATIONS}
    unknown = sorted(have - known)
    if unknown:
        raise SchemaError(
            f"the database was migrated to version {unknown[-1]} by a newer tablectl; "
            f"this one knows versions up to {max(known)}: {what_to_do}"
        )
