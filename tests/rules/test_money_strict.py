"""Money is ASCII digits with an optional point and one or two decimals, nothing else (issue 9,
item 7): every other form is refused with a MoneyError that says what was wrong."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tablectl_base.events import EventError, parse_event
from tablectl_base.money import MAX_DIGITS, MoneyError, fmt, parse_money

ACCEPTED_TEXT = re.compile(r"[0-9]+(\.[0-9]{1,2})?")


def refusal(value: object) -> str:
    with pytest.raises(MoneyError) as exc_info:
        parse_money(value)
    message = str(exc_info.value)
    assert message and "Traceback" not in message
    return message


# -- accepted ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5", "5.00"),
        ("0", "0.00"),
        ("12.5", "12.50"),
        ("12.50", "12.50"),
        ("0.01", "0.01"),
        ("007", "7.00"),
        ("999999999999.99", "999999999999.99"),
    ],
)
def test_money_accepts_ascii_digits_with_an_optional_point_and_one_or_two_decimals(
    text: str, expected: str
) -> None:
    assert parse_money(text) == Decimal(expected)
    assert fmt(parse_money(text)) == expected


def test_money_accepts_a_non_negative_python_int() -> None:
    assert parse_money(25) == Decimal("25.00")
    assert parse_money(0) == Decimal("0.00")


def test_money_accepts_a_finite_decimal_in_whole_cents_as_the_models_pass_it() -> None:
    assert parse_money(Decimal("5.00")) == Decimal("5.00")
    assert parse_money(Decimal("1E+1")) == Decimal("10.00")
    assert str(parse_money(Decimal("-0"))) == "0.00"  # never "-0.00"


# -- refused, each with its reason -------------------------------------------------------------


def test_money_refuses_thousands_separator_1_5() -> None:
    assert "comma" in refusal("1,5")
    assert "comma" in refusal("1,000.00")


def test_money_refuses_a_currency_sign() -> None:
    assert "currency sign" in refusal("$25")


def test_money_refuses_leading_and_trailing_spaces() -> None:
    assert "spaces around it" in refusal("3 ")
    assert "spaces around it" in refusal(" 3")
    assert "spaces around it" in refusal("5\n")
    assert "spaces in it" in refusal("1 000")


def test_money_refuses_underscore_between_digits_5_0() -> None:
    assert '"_"' in refusal("5_0")


def test_money_refuses_an_exponent_1e1() -> None:
    assert "exponent" in refusal("1E1")
    assert "exponent" in refusal("1e-2")


def test_money_refuses_a_plus_sign() -> None:
    assert '"+" sign' in refusal("+25")


def test_money_refuses_negative_amounts() -> None:
    assert refusal("-5") == "'-5' is negative"
    assert "is negative" in refusal("-0.01")
    assert "is negative" in refusal(-1)
    assert "is negative" in refusal(Decimal("-0.01"))


@pytest.mark.parametrize(
    "text",
    [
        "\uff11",
        "\uff12\uff15",
        "\u0665",
        "\u0662\u0665.\u0665\u0660",
        "\u06f5",
        "\u096b",
        "2\uff15",
    ],
    ids=[
        "fullwidth-1",
        "fullwidth-25",
        "arabic-indic-5",
        "arabic-indic-25.50",
        "persian",
        "deva",
        "mixed",
    ],
)
def test_money_refuses_digits_that_are_not_ascii(text: str) -> None:
    assert "not ASCII" in refusal(text)


@pytest.mark.parametrize("text", ["NaN", "nan", "sNaN", "Infinity", "-Infinity", "inf"])
def test_money_refuses_nan_and_infinity_as_not_finite(text: str) -> None:
    assert "not a finite amount" in refusal(text)


def test_money_refuses_the_empty_string() -> None:
    assert "is empty" in refusal("")


def test_money_refuses_too_many_digits_before_the_point() -> None:
    assert f"at most {MAX_DIGITS} digits" in refusal("1" * (MAX_DIGITS + 1))
    assert f"at most {MAX_DIGITS} digits" in refusal(10**MAX_DIGITS)
    assert f"at most {MAX_DIGITS} digits" in refusal(10**5000)  # no int-to-text conversion
    assert f"at most {MAX_DIGITS} digits" in refusal(Decimal("1E+30"))


def test_money_refuses_fractions_of_a_cent() -> None:
    assert "fractions of a cent" in refusal("1.005")
    assert "fractions of a cent" in refusal(Decimal("0.001"))
    assert "more than two digits after the point" in refusal("5.000")


def test_money_refuses_a_point_without_digits_on_either_side() -> None:
    assert "no digits after it" in refusal("5.")
    assert "no digit before the point" in refusal(".5")


@pytest.mark.parametrize("value", [True, False, 2.5, 25.0, float("nan")])
def test_money_refuses_bools_and_floats(value: object) -> None:
    assert "decimal string" in refusal(value)


@pytest.mark.parametrize("value", [None, [5], {"v": "5"}, b"5"])
def test_money_refuses_other_types_naming_the_type(value: object) -> None:
    assert type(value).__name__ in refusal(value)


def test_money_refusal_quotes_a_long_value_cut_short() -> None:
    message = refusal("x" * 10_000)
    assert len(message) < 200


def test_a_wager_with_thousands_separator_is_refused_naming_the_amount_field() -> None:
    with pytest.raises(EventError, match=r"^amount: '1,5' has a comma"):
        parse_event({"type": "wager", "seat": 1, "spot": "tie", "amount": "1,5"})


# -- properties ------------------------------------------------------------------------------


@given(st.text())
@example("1,5")
@example("\uff15")
@example("5_0")
@example("1E1")
@example("+25")
@example("3 ")
@example("\u0665")
@example("0" * 40 + "1")
def test_any_text_is_its_ascii_digits_value_or_a_money_error_with_a_reason(text: str) -> None:
    """For any text, parse_money returns exactly the amount the ASCII digits say, or raises
    MoneyError with a non-empty message; never another exception."""
    readable = ACCEPTED_TEXT.fullmatch(text)
    fits = readable is not None and len(text.partition(".")[0].lstrip("0")) <= MAX_DIGITS
    try:
        amount = parse_money(text)
    except MoneyError as exc:
        assert not fits
        assert str(exc).strip()
        return
    assert fits
    assert amount == Decimal(text)


@given(st.binary().map(lambda b: b.decode("latin-1")))
def test_any_byte_string_as_text_is_money_or_a_money_error(text: str) -> None:
    try:
        parse_money(text)
    except MoneyError as exc:
        assert str(exc).strip()


@given(
    st.integers(0, 10**MAX_DIGITS - 1),
    st.one_of(st.none(), st.integers(0, 9), st.integers(0, 99)),
    st.booleans(),
)
def test_any_valid_amount_round_trips_through_fmt(whole: int, cents: int | None, two: bool) -> None:
    if cents is None:
        text = str(whole)
    elif cents < 10 and not two:
        text = f"{whole}.{cents}"
    else:
        text = f"{whole}.{cents:02d}"
    amount = parse_money(text)
    assert amount == Decimal(text)
    assert parse_money(fmt(amount)) == amount
    assert fmt(parse_money(fmt(amount))) == fmt(amount)


@given(st.one_of(st.integers(), st.decimals(), st.floats(), st.booleans(), st.none()))
def test_any_non_text_value_is_money_or_a_money_error(value: object) -> None:
    try:
        amount = parse_money(value)
    except MoneyError as exc:
        assert str(exc).strip()
        return
    assert amount >= 0 and amount == amount.quantize(Decimal("0.01"))
