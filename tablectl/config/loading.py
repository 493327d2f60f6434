"""Reading a config file and validating it whole (`load_config`, `parse_config`): every problem
of every section named by file, key and reason, so that one typo does not hide the others."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tablectl import snapshot_names
from tablectl.config.data_files import (
    data_file_problems,
    game_paytables,
    limit_problems,
    paytable_dir,
    paytable_problems,
    schedule_of,
)
from tablectl.config.device_checks import driver_checks, duplicate_names, role_checks, surprises
from tablectl.config.error_reasons import GAME_IDS, error_key, key_of, reason_of
from tablectl.config.loaded import LoadedConfig
from tablectl.config.ports import written_port_problems
from tablectl.config.problems import ConfigError, Problem, toml_problem
from tablectl.config.sections import (
    Collection,
    TableConfig,
    protection_problems,
    section_or_none,
)
from tablectl.games.registry import spec_of, spots_of
from tablectl.games.table_rules import Limits, SpotLimit
from tablectl.rules.approval import Approval
from tablectl.rules.fees import CollectionSchedule
from tablectl.rules.poker_fees import PokerSchedule


def load_config(path: Path | str) -> LoadedConfig:
    """Read and validate a table config file."""
    p = Path(path)
    if "\0" in str(p):
        shown = str(p).replace("\0", "\\0")
        raise ConfigError([Problem(shown, "", "the path contains a NUL byte (\\0)")])
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError([Problem(str(p), "", f"cannot read: {exc.strerror or exc}")]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError([Problem(str(p), "", "not UTF-8 text")]) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError([Problem(str(p), "", toml_problem(exc))]) from None
    return replace(parse_config(data, p), digest=f"sha256:{hashlib.sha256(raw).hexdigest()}")


def parse_config(data: dict[str, Any], path: Path) -> LoadedConfig:
    """Validate decoded TOML; raise ConfigError listing every problem.

    Every device must fill one of the game's device roles (`GameSpec.device_roles`),
    and a role the game cannot do without (its card reader) must be filled: here, so a
    config built in memory (a test's, a tool's) is held to the same rules as a file `load_config`
    reads. Nothing that replays a journal needs a config without devices: the journaled `Rules`
    carry everything a round is played under, and `Rules` has no devices.

    The cross-checks (schedule file, limits against the schedule, per-spot limits, driver names)
    run on every section that is valid by itself, so one typo does not hide the other problems.
    """
    name = str(path)
    problems: list[Problem] = []
    table: TableConfig | None = None
    try:
        table = TableConfig.model_validate(data)
    except ValidationError as exc:
        problems += [
            Problem(name, error_key(e), reason_of(e))
            for e in exc.errors()
            if e["type"] != "duplicate_device_name"  # named at each device's key below
        ]
    problems += duplicate_names(name, data.get("devices"))
    problems += written_port_problems(name, data.get("devices"))
    collection = section_or_none(Collection, data.get("collection"))
    limits = section_or_none(Limits, data.get("limits"))
    game = data.get("game")
    game_id = game.get("id") if isinstance(game, dict) else None
    kind = spec_of(str(game_id)).kind if game_id in GAME_IDS else None
    problems += _kind_problems(name, kind, data)
    schedule: CollectionSchedule | PokerSchedule | None = None
    schedule_approval: Approval | None = None
    schedule_read = False
    if collection is not None:
        before = len(problems)
        schedule, schedule_approval = schedule_of(collection, path, problems)
        schedule_read = (  # a poker table's [collection] is refused as such (_kind_problems)
            kind == "banked"
            and collection.file is not None
            and not any(p.key == "collection.file" for p in problems[before:])
        )
    if isinstance(schedule, CollectionSchedule) and limits is not None:
        problems += limit_problems(name, limits, schedule)
    if limits is not None and game_id in GAME_IDS:
        known = spots_of(str(game_id))
        for spot in limits.spots:
            if spot not in known:
                problems.append(
                    Problem(
                        name,
                        key_of(("limits", "spots", spot)),
                        f"no such wager in {game_id}; known: {', '.join(known)}",
                    )
                )
    if isinstance(schedule, CollectionSchedule) and game_id in GAME_IDS:
        known = spots_of(str(game_id))
        for spot in schedule.player_fee_spots:
            if spot not in known:
                problems.append(
                    Problem(
                        name,
                        "collection",
                        f"schedule {schedule.option} charges a player fee on {spot!r}, which is "
                        f"no wager in {game_id} (known: {', '.join(known)}), so nobody would pay "
                        "it (R4)",
                    )
                )
    raw_limits = data.get("limits")
    if limits is None and isinstance(raw_limits, dict):
        try:
            SpotLimit.model_validate({k: raw_limits.get(k) for k in ("min", "max")})
        except ValidationError as exc:
            problems += [
                Problem(name, key_of(("limits", *e["loc"])), reason_of(e)) for e in exc.errors()
            ]
    driver_problems, driver_warnings, built = driver_checks(name, data.get("devices"))
    problems += driver_problems
    if game_id in GAME_IDS and isinstance(data.get("devices", []), list):
        role_problems, role_warnings = role_checks(
            name, str(game_id), data.get("devices", []), built, data.get("manual_entry") is True
        )
        problems += role_problems
        driver_warnings += role_warnings
    driver_warnings += surprises(name, data.get("devices"), built)
    if table is not None and table.mqtt.username not in (None, table.client_id):
        driver_warnings.append(
            Problem(
                name,
                "mqtt.client_id",
                f"{table.client_id!r} is not the username {table.mqtt.username!r}: a broker "
                "set up as config/mosquitto/tablectl.conf (use_username_as_clientid) uses the "
                "username instead; leave client_id out",
            )
        )
    document: str | None = None
    if table is not None:
        problems += paytable_problems(name, table.game, paytable_dir(path, table))
        found, document = data_file_problems(
            name, table, schedule_approval, schedule_read, paytable_dir(path, table)
        )
        problems += found
        # a game's own checks of the other sections (e.g. its seat count)
        problems += [Problem(name, key, reason) for key, reason in table.game.cross_check(table)]
        problems += [Problem(name, key, reason) for key, reason in protection_problems(table)]
    problems = list(dict.fromkeys(problems))  # the same problem found by two passes, once
    if table is not None and table.mqtt.password_file and not table.mqtt.username:
        problems.append(Problem(name, "mqtt.password_file", "a password file needs a username"))
    if not problems and table is not None and kind == "poker":
        schedule = table.game.own_schedule(table.seats.count)
    if problems or table is None or schedule is None:
        raise ConfigError(problems)
    return LoadedConfig(
        path=path,
        table=table,
        schedule=schedule,
        paytables=game_paytables(table.game, paytable_dir(path, table)),
        warnings=tuple(str(w) for w in driver_warnings)
        + tuple(str(Problem(name, key, why)) for key, why in table.game.advice(table))
        + tuple(
            str(Problem(name, "game", f"snapshot class {line} (a game installed beside this one)"))
            for line in snapshot_names.refused()
        ),
        document=document,
    )


_POKER_HAS_NO = {
    "limits": "a poker table has no [limits]: its stakes are game.structure, game.stakes and "
    "game.blinds",
    "collection": "a poker table's collection is [game.collection]: the posted options, or a "
    "schedule where no document posts one (R44)",
}


def _kind_problems(name: str, kind: str | None, data: dict[str, Any]) -> list[Problem]:
    """A banked game needs `[limits]` and `[collection]` (R4); a poker game has neither."""
    if kind == "banked":
        return [
            Problem(name, key, "required key is missing")
            for key in ("limits", "collection")
            if key not in data
        ]
    if kind == "poker":
        return [Problem(name, key, why) for key, why in _POKER_HAS_NO.items() if key in data]
    return []
