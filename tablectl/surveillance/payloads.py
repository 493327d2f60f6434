"""The surveillance messages' bytes: exact fractions and their decimal forms, and the envelope.

Every figure goes out twice: as a decimal string of `DIGITS` places (rounded half to even from
the exact value, so the same fraction always prints the same) and as the exact fraction
("-1234/56789"), so a reader can compare exactly or read at a glance. The envelope is the table's
(`table`, `ts`, `v`) with the surveillance stream's own place, `record` (the journal record the
message follows) and `part` (its place among that record's messages, from 1): the same journal
gives the same places, in the daemon and in `tablectl replay --surveillance`, whatever the
daemon published before or after (docs/mqtt.md, "surveillance/odds").
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

DIGITS = 6
"""Places after the decimal point of every expectation (the exact fraction goes with it)."""
RHO_DIGITS = 4
"""Places of a rank correlation (its exact test is on whole numbers: counter.py)."""


def decimal_text(value: Fraction, digits: int = DIGITS) -> str:
    """`value` rounded half to even to `digits` places, as text: "-0.012345", "0.000000"."""
    scaled = round(value * 10**digits)  # Fraction.__round__: exact, half to even
    sign = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}"


def fraction_text(value: Fraction) -> str:
    """The exact fraction in lowest terms: "-1234/56789", "0/1"."""
    return f"{value.numerator}/{value.denominator}"


def figure(value: Fraction) -> dict[str, str]:
    """A figure as published: its decimal form and its exact fraction."""
    return {"value": decimal_text(value), "exact": fraction_text(value)}


def encode(fields: dict[str, Any]) -> bytes:
    """Compact JSON, as every tablectl payload (separators without spaces, UTF-8 as is)."""
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
