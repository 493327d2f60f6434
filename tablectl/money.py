"""Money as exact decimals with two places: parsed from strings, printed as "25.00"."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer

CENT = Decimal("0.01")
MAX_DIGITS = 12  # whole-dollar digits: far above any table, far below the decimal context's 28
ZERO = Decimal("0.00")


class MoneyError(ValueError):
    """A money value that is not a non-negative decimal with at most two places."""


def parse_money(value: object, *, allow_zero: bool = True) -> Decimal:
    """Parse a decimal string (or int) as money; refuse floats, negatives, fractions of a cent."""
    if isinstance(value, (bool, float)):
        raise MoneyError(f'money must be a decimal string like "12.50", not {value!r}')
    if not isinstance(value, (str, int, Decimal)):
        raise MoneyError(f"money must be a decimal string, not {type(value).__name__}")
    text = str(value).strip().lstrip("$").replace(",", "")
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise MoneyError(f"{value!r} is not a decimal amount") from None
    if not amount.is_finite():
        raise MoneyError(f"{value!r} is not a finite amount")
    if amount.adjusted() >= MAX_DIGITS:
        raise MoneyError(f"{value!r} is too large: at most {MAX_DIGITS} digits before the point")
    if amount < 0:
        raise MoneyError(f"{value!r} is negative")
    if not allow_zero and amount == 0:
        raise MoneyError(f"{value!r} must be more than zero")
    if amount != amount.quantize(CENT):
        raise MoneyError(f"{value!r} has fractions of a cent")
    return amount.quantize(CENT)


def fmt(amount: Decimal) -> str:
    """Canonical text of an amount: always two places, no exponent, "-0.00" never."""
    q = amount.quantize(CENT, rounding=ROUND_HALF_UP)
    if q == 0:
        q = ZERO
    return f"{q:.2f}"


Money = Annotated[Decimal, BeforeValidator(parse_money), PlainSerializer(fmt, return_type=str)]
"""A money field for pydantic models (events, config): parsed by `parse_money`, shown by `fmt`."""
