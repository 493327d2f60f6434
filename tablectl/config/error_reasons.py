"""pydantic's validation errors as a technician reads them: the key each is at (as written in the
TOML) and the reason, with the value it saw, in the words of the file rather than of Python."""

from __future__ import annotations

import re
from typing import Any

from tablectl.config.problems import shown
from tablectl.config.sections import PATTERNS
from tablectl.games.registry import game_ids

GAME_IDS = game_ids()
"""Every known game id (tablectl/games/registry.py)."""


def key_of(loc: tuple[int | str, ...]) -> str:
    """The key a pydantic error is at, as the TOML writes it (`devices[0].port`; a key that
    is itself refused, pydantic's `[key]`, is the key: `ledger.shifts."night shift"`)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in GAME_IDS or part.startswith("function-") or part == "[key]":
            continue  # discriminator tags, validator names and a key's own mark are not keys
        else:
            out += ("." if out else "") + (part if _BARE_KEY.fullmatch(part) else shown(part))
    return out


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
"""A key TOML writes without quotes; any other is written in quotes."""


_KINDS = {
    "int_type": "a whole number written without quotes",
    "int_from_float": "a whole number",
    "bool_type": "true or false, without quotes",
    "string_type": "text in quotes",
    "list_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "decimal_type": "an amount",
    "float_type": "a number",
}


def reason_of(err: Any) -> str:
    """pydantic's error as a technician reads it, with the value it saw."""
    kind = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    msg = str(err["msg"]).removeprefix("Value error, ")
    if kind == "extra_forbidden":
        return "unknown key (check the spelling; unknown keys are not ignored)"
    if kind == "missing":
        return "required key is missing"
    if kind == "union_tag_invalid":
        return f"unknown game id {shown(ctx.get('tag'))}; known: {', '.join(GAME_IDS)}"
    if kind == "union_tag_not_found":
        return f"required key is missing: name the game; known: {', '.join(GAME_IDS)}"
    if kind in _KINDS:
        return f"must be {_KINDS[kind]}, not {shown(value)}"
    if kind == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern", ""))
        meaning = PATTERNS.get(pattern, f"text of the form {pattern}")
        return f"{shown(value)} is not usable here: give {meaning}"
    if kind == "string_too_short" and value == "":
        return 'is empty ("")'
    if kind == "literal_error":
        return f"{shown(value)} is not one of {ctx.get('expected', '')}"
    if isinstance(value, dict | list) or value is None:
        return msg
    seen = shown(value)
    if isinstance(value, bool | str):  # a message quoting Python's True or 'x': as TOML says it
        msg = msg.replace(repr(value), seen, 1)
    return msg if seen in msg else f"{msg} (got {seen})"


def error_key(err: Any) -> str:
    """The key an error of the full pass is at: a game id's is `game.id`, not `game`."""
    key = key_of(tuple(err["loc"]))
    if err["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return f"{key}.id"
    return key
