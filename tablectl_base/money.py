"""Money as exact decimals with two places: parsed from strings, printed as "25.00".

Money written as text is ASCII digits with an optional point and one or two decimals ("25",
"12.5", "12.50") and nothing else: no spaces, sign, currency sign, thousands separator, "_",
exponent, or digits of another script. Everything else is refused with a `MoneyError` saying why.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer

CENT = Decimal("0.01")
MAX_DIGITS = 12  # whole-dollar digits: far above any table, far below the decimal context's 28
ZERO = Decimal("0.00")

MONEY_TEXT = re.compile(r"[0-9]+(\.[0-9]{1,2})?")
"""The only text form of money: ASCII digits, optionally a point and one or two decimals."""

_FORM = 'money is ASCII digits with an optional point and one or two decimals, like "12.50"'
_SIGNED = re.compile(r"[+-][0-9]*\.?[0-9]*")
_EXPONENT = re.compile(r"[0-9]*\.?[0-9]*[eE][+-]?[0-9]*")
_NOT_FINITE = re.compile(r"[+-]?(s?nan[0-9]*|inf|infinity)", re.IGNORECASE)
_SHOWN = 40  # characters of a refused value quoted in its reason


class MoneyError(ValueError):
    """A money value that is not a non-negative decimal with at most two places."""


def parse_money(value: object, *, allow_zero: bool = True) -> Decimal:
    """Parse money: text in the one form `MONEY_TEXT`, a Python `int`, or a finite `Decimal`.

    Text is ASCII digits with an optional point and one or two decimals ("5", "12.5", "12.50");
    one decimal is accepted because configs and consoles write "12.5". An `int` (not a bool) and
    a `Decimal` (what the models pass each other, e.g. a spot's limits) must be non-negative
    whole cents. Floats are refused: they are not exact. At most MAX_DIGITS digits before the
    point. Anything else raises MoneyError naming what was wrong.
    """
    if isinstance(value, (bool, float)):
        raise MoneyError(f'money must be a decimal string like "12.50", not {value!r}')
    if isinstance(value, str):
        cents = _text_cents(value)
        if not allow_zero and cents == 0:
            raise MoneyError(f"{_show(value)} must be more than zero")
        return cents
    if isinstance(value, int):
        if value < 0:
            raise MoneyError(f"{_show(value)} is negative")
        if value >= 10**MAX_DIGITS:
            raise MoneyError(f"{_show(value)} is too large: {_TOO_MANY}")
        amount = Decimal(value)
    elif isinstance(value, Decimal):
        amount = _checked_decimal(value)
    else:
        raise MoneyError(f"money must be a decimal string, not {type(value).__name__}")
    if not allow_zero and amount == 0:
        raise MoneyError(f"{_show(value)} must be more than zero")
    cents = amount.quantize(CENT)
    return ZERO if cents == 0 else cents  # never "-0.00", whatever Decimal came in


_TOO_MANY = f"at most {MAX_DIGITS} digits before the point"


@lru_cache(maxsize=4096)
def _text_cents(text: str) -> Decimal:
    """Money text as whole cents, remembered: a table sees the same few amounts all day (a
    Decimal is immutable, so one serves every parse); text that is not money raises, uncached."""
    cents = Decimal(_checked_text(text)).quantize(CENT)
    return ZERO if cents == 0 else cents


def _checked_text(text: str) -> str:
    """The text itself if it is money's one form; otherwise MoneyError with the reason."""
    if MONEY_TEXT.fullmatch(text):
        whole = text.partition(".")[0].lstrip("0")
        if len(whole) > MAX_DIGITS:
            raise MoneyError(f"{_show(text)} is too large: {_TOO_MANY}")
        return text
    raise MoneyError(f"{_show(text)} {_text_problem(text)}")


def _text_problem(text: str) -> str:
    """Why `text` is not money, from the most specific reason to the most general."""
    if not text:
        return f"is not a decimal amount: it is empty; {_FORM}"
    if text != text.strip():
        return f"has spaces around it; {_FORM}"
    if any(ch.isspace() for ch in text):
        return f"has spaces in it; {_FORM}"
    if not text.isascii():
        if any(ch.isdigit() for ch in text):
            return f"has digits that are not ASCII 0-9; {_FORM}"
        return f"is not a decimal amount: it has characters that are not ASCII; {_FORM}"
    if _NOT_FINITE.fullmatch(text):
        return "is not a finite amount"
    if "$" in text:
        return 'has a currency sign; write the amount alone, like "12.50"'
    if "," in text:
        return 'has a comma (a thousands separator or decimal comma); write "1500.00" or "1.50"'
    if "_" in text:
        return f'has "_" between digits; {_FORM}'
    if _SIGNED.fullmatch(text) and any(ch.isdigit() for ch in text):
        if text.startswith("-"):
            return "is negative"
        return f'has a "+" sign; {_FORM}'
    if _EXPONENT.fullmatch(text) and text[0] not in "eE":
        return 'has an exponent ("e"); write the amount out in digits, like "1500.00"'
    whole, point, decimals = text.partition(".")
    if point and whole.isdigit() and decimals.isdigit():  # three or more decimals
        if decimals[2:].strip("0"):
            return "has fractions of a cent"
        return f"has more than two digits after the point; {_FORM}"
    if point and whole.isdigit() and not decimals:
        return f'has a point with no digits after it; write "{whole}" or "{whole}.00"'
    if point and not whole and decimals.isdigit():
        return f'has no digit before the point; write "0.{decimals}"'
    return f"is not a decimal amount: {_FORM}"


def _checked_decimal(amount: Decimal) -> Decimal:
    if not amount.is_finite():
        raise MoneyError(f"{_show(amount)} is not a finite amount")
    if amount.adjusted() >= MAX_DIGITS:
        raise MoneyError(f"{_show(amount)} is too large: {_TOO_MANY}")
    if amount < 0:
        raise MoneyError(f"{_show(amount)} is negative")
    if amount != amount.quantize(CENT):
        raise MoneyError(f"{_show(amount)} has fractions of a cent")
    return amount


def _show(value: object) -> str:
    """A refused value as its reason quotes it: its repr, cut short if long."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 128 else "<huge int>"
    return text if len(text) <= _SHOWN else text[: _SHOWN - 4] + "...'"


@lru_cache(maxsize=4096, typed=True)
def fmt(amount: Decimal) -> str:
    """Canonical text of an amount: always two places, no exponent, "-0.00" never.

    Remembered by value: equal Decimals ("5", "5.00", "-0") have the same text, and a table
    formats the same few amounts in every message."""
    q = amount.quantize(CENT, rounding=ROUND_HALF_UP)
    if q == 0:
        q = ZERO
    return f"{q:.2f}"


Money = Annotated[Decimal, BeforeValidator(parse_money), PlainSerializer(fmt, return_type=str)]
"""A money field for pydantic models (events, config): parsed by `parse_money`, shown by `fmt`."""
