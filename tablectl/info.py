"""The retained `<base>/info` topic (issue 14 item 1): which software a table runs and under
what, so a floor of many tables can tell at a glance which run which release, game, rules and
config file, and which devices (docs/mqtt.md "info").

Like `status` it describes the running process, not the table's play: published from memory
(`Relay.notice`, retained, no `seq`, not journaled) by the daemon at start and again whenever
the rules in force change, and by the relay again after every connect. Pure: the daemon hands
in the config, the rules in force, the time and how to find a port's serial.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from tablectl import __version__
from tablectl.config import LoadedConfig, Rules

SerialOf = Callable[[str], str | None]
"""A device port -> the serial behind it, None when unknown (the daemon's `port_serial`)."""


def rules_digest(rules: Rules) -> str:
    """ "sha256:<hex>" of the rules' canonical JSON: `Rules.to_json()` with sorted keys, no
    spaces, UTF-8. The `config` record the journal holds carries the same JSON (`rules`), so
    anyone with an export can recompute it."""
    text = json.dumps(rules.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"sha256:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def devices(cfg: LoadedConfig, serial_of: SerialOf) -> list[dict[str, str]]:
    """Each configured device: its name, its driver (the device class: a built-in such as
    `shoe`, or a vendor plugin's name) and, only where it is known, the serial behind its port."""
    out: list[dict[str, str]] = []
    for dev in cfg.table.devices:
        entry = {"name": dev.name, "driver": dev.driver}
        serial = serial_of(dev.port)
        if serial is not None:
            entry["serial"] = serial
        out.append(entry)
    return out


def info_payload(
    cfg: LoadedConfig, rules: Rules, *, ts: str, serial_of: SerialOf
) -> dict[str, Any]:
    """The `info` payload without `table` (the daemon puts it first, as in every notice).

    `rules` are the rules in force (the journal's), which differ from the config file's while a
    change waits for the end of a round; `config_digest` is the file's as loaded (None for a
    config built in memory); `ts` is when this info was made."""
    return {
        "version": __version__,
        "game": rules.game.id,
        "rules_digest": rules_digest(rules),
        "config_digest": cfg.digest,
        "devices": devices(cfg, serial_of),
        "ts": ts,
    }
