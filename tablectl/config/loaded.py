"""A validated config with everything it refers to resolved (`LoadedConfig`), the `Rules` it
gives the table, and where a path the config names is (`resolve`)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path

from tablectl.config.sections import TableConfig, Tls
from tablectl.games.table_rules import Rules
from tablectl.rules.fees import CollectionSchedule
from tablectl.rules.paytables import PayTable
from tablectl.rules.poker_fees import PokerSchedule


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config with everything it refers to resolved."""

    path: Path
    table: TableConfig
    schedule: CollectionSchedule | PokerSchedule
    paytables: dict[str, PayTable] = field(default_factory=dict)
    # "file: key: reason" of what does not stop the table but a technician should know: a
    # vendor plugin that cannot be loaded (plugins are imported lazily so that a broken one
    # cannot stop the daemon; its device reports itself unavailable instead).
    warnings: tuple[str, ...] = ()
    # "sha256:<hex>" of the file's bytes as `load_config` read them (the retained `info` topic
    # names it, so a floor can tell which tables run which config file); None for a config
    # built in memory.
    digest: str | None = None
    # The rule document the table is approved under: its `game.document`, else the one document
    # that approves the game, else the one its data files agree on; None when nothing says.
    document: str | None = None

    @property
    def rules(self) -> Rules:
        t = self.table
        return Rules(
            game=t.game,
            seats=t.seats,
            limits=t.limits,
            schedule=self.schedule,
            paytables=self.paytables,
            pace=t.pace,
            manual_entry=t.manual_entry,
        )

    @property
    def journal_path(self) -> Path:
        return resolve(self.path, self.table.journal.path)

    @property
    def archive_path(self) -> Path | None:
        """Where closed journal segments are archived, if the config says."""
        folder = self.table.journal.archive_dir
        return None if folder is None else resolve(self.path, folder)

    @property
    def key_path(self) -> Path | None:
        """The journal's chain key file, if the config names one."""
        key_file = self.table.journal.key_file
        return None if key_file is None else resolve(self.path, key_file)


def resolve(config_path: Path, value: str) -> Path:
    """A path from the config: absolute as given, relative to the config file's folder otherwise."""
    p = Path(value)
    return p if p.is_absolute() else (config_path.parent / p)


def tls_context(config_path: Path, tls: Tls) -> ssl.SSLContext:
    """The TLS context of a `[...tls]` section (its files relative to the config's folder): the
    broker's CA, and the client's certificate and key when given. OSError or ssl.SSLError when
    a file cannot be read."""
    context = ssl.create_default_context(cafile=str(resolve(config_path, tls.ca)))
    if tls.cert:
        key = str(resolve(config_path, tls.key)) if tls.key else None
        context.load_cert_chain(str(resolve(config_path, tls.cert)), key)
    return context
