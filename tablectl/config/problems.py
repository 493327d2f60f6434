"""A problem of a config, named by file, key and reason, and the error that carries them all:
what `check-config` prints, one line each, and what `run` refuses to start with."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a config: the file, the key (empty: the file as a whole), why."""

    file: str
    key: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key or '(top level)'}: {self.reason}"


class BrokerSetupError(Exception):
    """The config's broker password or TLS files cannot be used: the daemon does not start (the
    message names the config key and the file)."""


class ConfigError(Exception):
    """A config that cannot be used; `problems` names every one."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def shown(value: object) -> str:
    """A value as the technician wrote it in TOML: text quoted, numbers and true/false bare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        if text.isprintable():
            return text
        # What would not show (DEL, a no-break or zero-width space) as TOML escapes it.
        return "".join(c if c.isprintable() else _escaped(c) for c in text)
    if isinstance(value, int | float | Decimal):
        return str(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _escaped(char: str) -> str:
    """A character as a TOML string escapes it."""
    code = ord(char)
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def toml_problem(exc: ValueError | RecursionError) -> str:
    """Why tomllib refused a text: besides TOMLDecodeError it raises a plain ValueError for an
    integer of more digits than Python converts (4300) and RecursionError for deep nesting."""
    if isinstance(exc, RecursionError):
        return "not valid TOML: nested too deeply"
    if "integer string conversion" in str(exc):
        return f"not valid TOML: a number has more than {sys.get_int_max_str_digits()} digits"
    return f"not valid TOML: {exc}"
