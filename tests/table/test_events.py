"""Contract 1 (cards) and contract 2 (input events): what is accepted, its canonical form, and a
refusal that names the bad part for everything else."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.table import journal_input
from tablectl_base.cards import JOKER, RANKS, SUITS, Card, CardError, parse_card, standard_deck
from tablectl_base.events import (
    PUBLIC_TYPES,
    Bank,
    EventError,
    ShoeCard,
    Wager,
    canonical_json,
    event_dict,
    parse_event,
    parse_event_line,
)

# -- contract 1: cards ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("Ah", "Ah"),
        ("ah", "Ah"),
        ("AH", "Ah"),
        ("aH", "Ah"),
        ("td", "Td"),
        ("TD", "Td"),
        ("9c", "9c"),
        ("9C", "9c"),
        ("kS", "Ks"),
        ("qh", "Qh"),
        ("jD", "Jd"),
        (" Ah ", "Ah"),
    ],
)
def test_card_parse_is_case_insensitive_and_prints_canonically(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize("text", ["JKR", "jkr", "Jkr", "jKr"])
def test_joker_parses_in_any_case_and_prints_as_JKR(text: str) -> None:
    card = parse_card(text)
    assert card.is_joker
    assert str(card) == JOKER


def test_every_card_of_the_deck_round_trips_through_its_text_in_any_case() -> None:
    for card in (*standard_deck(), parse_card("JKR")):
        text = str(card)
        assert parse_card(text) == card
        assert parse_card(text.upper()) == card
        assert parse_card(text.lower()) == card
    assert len({str(c) for c in standard_deck()}) == 52


@given(st.sampled_from(RANKS + RANKS.lower()), st.sampled_from(SUITS + SUITS.upper()))
def test_any_rank_and_suit_in_any_case_is_the_canonical_card(rank: str, suit: str) -> None:
    assert parse_card(rank + suit) == Card(rank.upper(), suit.lower())


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("10d", ["'10d'", "expected rank and suit"]),  # "10" is not the ten: T is
        ("Xh", ["'Xh'", "rank 'X'"]),
        ("1s", ["'1s'", "rank '1'"]),
        ("Ax", ["'Ax'", "suit 'x'"]),
        ("Kz", ["'Kz'", "suit 'z'"]),
        ("A", ["'A'", "expected rank and suit"]),
        ("", ["''", "expected rank and suit"]),
        ("Ahh", ["'Ahh'", "expected rank and suit"]),
        ("JOKER", ["'JOKER'"]),
    ],
)
def test_bad_card_code_is_refused_naming_the_bad_part(text: str, names: list[str]) -> None:
    with pytest.raises(CardError) as exc_info:
        parse_card(text)
    for part in names:
        assert part in str(exc_info.value)


@pytest.mark.parametrize("value", [7, None, ["Ah"], b"Ah"])
def test_a_card_that_is_not_a_string_is_refused(value: object) -> None:
    with pytest.raises(CardError, match="a card is a string"):
        parse_card(value)


@given(st.text(min_size=2, max_size=2))
def test_two_characters_parse_only_to_a_valid_rank_and_suit(text: str) -> None:
    t = text.strip()
    valid = len(t) == 2 and t[0].upper() in RANKS and t[1].lower() in SUITS
    if valid:
        assert str(parse_card(text)) == t[0].upper() + t[1].lower()
    else:
        with pytest.raises(CardError):
            parse_card(text)


# -- contract 2: every event type -----------------------------------------------------------

VALID_EVENTS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"type": "shoe.new"}, {"type": "shoe.new"}),
    ({"type": "shoe.card", "card": "ah"}, {"type": "shoe.card", "card": "Ah"}),
    ({"type": "shoe.burn", "card": "TD"}, {"type": "shoe.burn", "card": "Td"}),
    (
        {"type": "shuffler.stack", "cards": ["ah", "KS", "2c"]},
        {"type": "shuffler.stack", "cards": ["Ah", "Ks", "2c"]},
    ),
    (
        {"type": "shuffler.stack", "cards": ["jkr", "9h"], "deck": "red"},
        {"type": "shuffler.stack", "cards": ["JKR", "9h"], "deck": "red"},
    ),
    ({"type": "dice.roll", "dice": [1, 6, 3]}, {"type": "dice.roll", "dice": [1, 6, 3]}),
    (
        {"type": "bank", "seat": 4, "amount": "500"},
        {"type": "bank", "seat": 4, "amount": "500.00"},
    ),
    (
        {"type": "wager", "seat": 1, "spot": "tie", "amount": "12.5"},
        {"type": "wager", "seat": 1, "spot": "tie", "amount": "12.50"},
    ),
    (
        {"type": "wager", "seat": 2, "spot": "player", "amount": "25", "player": "back-1"},
        {"type": "wager", "seat": 2, "spot": "player", "amount": "25.00", "player": "back-1"},
    ),
    ({"type": "bets.close"}, {"type": "bets.close"}),
    (
        {"type": "decision", "seat": 3, "action": "stand"},
        {"type": "decision", "seat": 3, "action": "stand"},
    ),
    (
        {"type": "decision", "seat": 3, "action": "double", "hand": 1, "amount": "10"},
        {"type": "decision", "seat": 3, "action": "double", "hand": 1, "amount": "10.00"},
    ),
    (
        {"type": "decision", "seat": 5, "action": "bet", "multiple": 4},
        {"type": "decision", "seat": 5, "action": "bet", "multiple": 4},
    ),
    (
        {"type": "decision", "seat": 6, "action": "set", "low": ["kd", "jkr"]},
        {"type": "decision", "seat": 6, "action": "set", "low": ["Kd", "JKR"]},
    ),
    (
        {"type": "seat.take", "seat": 3, "stack": "100", "player": "ann"},
        {"type": "seat.take", "seat": 3, "stack": "100.00", "player": "ann"},
    ),
    ({"type": "seat.leave", "seat": 3}, {"type": "seat.leave", "seat": 3}),
    ({"type": "seat.away", "seat": 3}, {"type": "seat.away", "seat": 3}),
    ({"type": "seat.back", "seat": 3}, {"type": "seat.back", "seat": 3}),
    ({"type": "hand.start"}, {"type": "hand.start"}),
    ({"type": "hand.start", "button": 4}, {"type": "hand.start", "button": 4}),
    (
        {"type": "hole.cards", "seat": 2, "cards": ["ah", "KD"]},
        {"type": "hole.cards", "seat": 2, "cards": ["Ah", "Kd"]},
    ),
    (
        {"type": "hole.discard", "seat": 2, "card": "7c"},
        {"type": "hole.discard", "seat": 2, "card": "7c"},
    ),
    (
        {"type": "board.cards", "cards": ["2h", "3h", "4h"]},
        {"type": "board.cards", "cards": ["2h", "3h", "4h"]},
    ),
    (
        {"type": "up.cards", "cards": [{"seat": 3, "card": "kd"}, {"seat": 5, "card": "2C"}]},
        {"type": "up.cards", "cards": [{"seat": 3, "card": "Kd"}, {"seat": 5, "card": "2c"}]},
    ),
    ({"type": "down.cards"}, {"type": "down.cards"}),
    (
        {"type": "option.buy", "seat": 2, "discard": "hole", "card": "as"},
        {"type": "option.buy", "seat": 2, "discard": "hole", "card": "As"},
    ),
    (
        {"type": "option.buy", "seat": 2, "discard": "kd", "card": "2c"},
        {"type": "option.buy", "seat": 2, "discard": "Kd", "card": "2c"},
    ),
    ({"type": "option.buy", "seat": 4}, {"type": "option.buy", "seat": 4}),
    (
        {"type": "draw", "seat": 1, "count": 2, "discard": ["kd", "qs"], "cards": ["jkr", "2c"]},
        {"type": "draw", "seat": 1, "count": 2, "discard": ["Kd", "Qs"], "cards": ["JKR", "2c"]},
    ),
    ({"type": "draw", "seat": 1, "count": 0}, {"type": "draw", "seat": 1, "count": 0}),
    (
        {"type": "hand.dead", "seat": 2, "reason": "six cards"},
        {"type": "hand.dead", "seat": 2, "reason": "six cards"},
    ),
    (
        {"type": "card.flashed", "seat": 2, "card": "6H", "when": "deal"},
        {"type": "card.flashed", "seat": 2, "card": "6h", "when": "deal"},
    ),
    (
        {"type": "chinese.set", "seat": 1, "front": ["ah"], "middle": [], "back": ["2C"]},
        {"type": "chinese.set", "seat": 1, "front": ["Ah"], "middle": [], "back": ["2c"]},
    ),
    (
        {"type": "chinese.sweep", "seat": 1, "sweep": "dragon", "cards": ["ah", "2c"]},
        {"type": "chinese.sweep", "seat": 1, "sweep": "dragon", "cards": ["Ah", "2c"]},
    ),
    (
        {"type": "hand.start", "button": 1, "straddles": ["4", "8.00"]},
        {"type": "hand.start", "button": 1, "straddles": ["4.00", "8.00"]},
    ),
    (
        {"type": "down.cards", "cards": [{"seat": 1, "card": "jkr"}]},
        {"type": "down.cards", "cards": [{"seat": 1, "card": "JKR"}]},
    ),
    (
        {
            "type": "table.card",
            "zone": "seat",
            "seat": 4,
            "card": "qs",
            "at": {"run": "h7", "pos": 3},
        },
        {
            "type": "table.card",
            "at": {"run": "h7", "pos": 3},
            "zone": "seat",
            "seat": 4,
            "card": "Qs",
        },
    ),
    (
        {"type": "table.card", "zone": "board", "card": "2c"},
        {"type": "table.card", "zone": "board", "card": "2c"},
    ),
    (
        {"type": "showdown", "high": [[3], [1, 5]], "low": [[5]]},
        {"type": "showdown", "high": [[3], [1, 5]], "low": [[5]]},
    ),
    ({"type": "showdown", "high": [[2]]}, {"type": "showdown", "high": [[2]]}),
    ({"type": "time.collect"}, {"type": "time.collect"}),
    ({"type": "round.resume"}, {"type": "round.resume"}),
    ({"type": "round.void"}, {"type": "round.void", "reason": "misdeal"}),
    (
        {"type": "round.void", "reason": "card fell"},
        {"type": "round.void", "reason": "card fell"},
    ),
    (
        {"type": "alert.ack", "alert": 41, "by": "floor:ann", "why": "reseated the shoe"},
        {"type": "alert.ack", "alert": 41, "by": "floor:ann", "why": "reseated the shoe"},
    ),
    (
        {"type": "device.status", "device": "shoe", "available": False, "fault": "timeout"},
        {"type": "device.status", "device": "shoe", "available": False, "fault": "timeout"},
    ),
    (
        {"type": "input.invalid", "raw": "xyz", "reason": "not JSON"},
        {"type": "input.invalid", "raw": "xyz", "reason": "not JSON"},
    ),
]


def test_every_public_event_type_has_a_valid_example() -> None:
    assert {given["type"] for given, _ in VALID_EVENTS} >= set(PUBLIC_TYPES)


@pytest.mark.parametrize(("given", "canonical"), VALID_EVENTS)
def test_valid_event_parses_to_its_canonical_form_with_type_first(
    given: dict[str, Any], canonical: dict[str, Any]
) -> None:
    out = event_dict(parse_event(given))
    assert out == canonical
    assert next(iter(out)) == "type"
    assert list(out) == list(canonical)


@pytest.mark.parametrize(("given", "canonical"), VALID_EVENTS)
def test_canonical_form_parses_back_to_the_same_event(
    given: dict[str, Any], canonical: dict[str, Any]
) -> None:
    event = parse_event(given)
    assert parse_event(canonical) == event
    assert parse_event_line(canonical_json(canonical)) == event


def test_ts_is_accepted_and_kept_out_of_the_canonical_body() -> None:
    event = parse_event({"type": "shoe.card", "card": "9h", "ts": "2024-05-01T12:00:00Z"})
    assert isinstance(event, ShoeCard)
    assert event.ts == "2024-05-01T12:00:00Z"
    assert event_dict(event) == {"type": "shoe.card", "card": "9h"}


def test_optional_player_left_out_or_null_is_the_same_wager() -> None:
    a = parse_event({"type": "wager", "seat": 1, "spot": "tie", "amount": "5"})
    b = parse_event({"type": "wager", "seat": 1, "spot": "tie", "amount": "5", "player": None})
    assert isinstance(a, Wager) and a.player is None
    assert a == b
    assert "player" not in event_dict(a)


def test_canonical_json_is_compact_in_insertion_order_and_keeps_unicode() -> None:
    assert canonical_json({"type": "x", "a": [1, 2], "n": "é"}) == '{"type":"x","a":[1,2],"n":"é"}'


# -- money ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "expected"),
    [("25", "25.00"), ("12.50", "12.50"), ("12.5", "12.50"), ("0.01", "0.01"), ("1000", "1000.00")],
)
def test_money_is_a_decimal_string_printed_with_two_places(amount: str, expected: str) -> None:
    event = parse_event({"type": "bank", "seat": 1, "amount": amount})
    assert isinstance(event, Bank)
    assert event.amount == Decimal(expected)
    assert event_dict(event)["amount"] == expected


@given(st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False, allow_infinity=False))
def test_any_non_negative_amount_in_cents_round_trips_exactly(amount: Decimal) -> None:
    body = event_dict(parse_event({"type": "bank", "seat": 1, "amount": str(amount)}))
    assert Decimal(body["amount"]) == amount
    assert body["amount"] == f"{amount:.2f}"


@given(
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=1, max_value=9),
)
def test_any_fraction_of_a_cent_is_refused(cents: int, tenth: int) -> None:
    amount = f"{cents // 100}.{cents % 100:02d}{tenth}"
    with pytest.raises(EventError, match=r"^amount: .*fractions of a cent"):
        parse_event({"type": "wager", "seat": 1, "spot": "tie", "amount": amount})


BAD_MONEY: list[tuple[object, str]] = [
    (1.5, "decimal string"),
    (25.0, "decimal string"),
    (True, "decimal string"),
    ("-5", "negative"),
    ("-0.01", "negative"),
    ("1.005", "fractions of a cent"),
    ("12.501", "fractions of a cent"),
    ("abc", "not a decimal amount"),
    ("", "not a decimal amount"),
    ("NaN", "not a finite amount"),
    ("Infinity", "not a finite amount"),
    (["5"], "decimal string"),
    ({"v": "5"}, "decimal string"),
]


@pytest.mark.parametrize(("amount", "reason"), BAD_MONEY)
@pytest.mark.parametrize(
    "base",
    [
        {"type": "bank", "seat": 1},
        {"type": "wager", "seat": 1, "spot": "player"},
        {"type": "decision", "seat": 1, "action": "double"},
    ],
    ids=["bank", "wager", "decision"],
)
def test_bad_money_is_refused_naming_the_amount_field_and_why(
    base: dict[str, Any], amount: object, reason: str
) -> None:
    with pytest.raises(EventError) as exc_info:
        parse_event({**base, "amount": amount})
    message = str(exc_info.value)
    assert message.startswith("amount: ")
    assert reason in message


def test_a_float_amount_in_a_json_line_is_refused() -> None:
    with pytest.raises(EventError, match=r"^amount: money must be a decimal string"):
        parse_event_line('{"type":"wager","seat":1,"spot":"tie","amount":12.5}')


# -- refusals: unknown type, extra keys, missing fields, bad values -------------------------


@pytest.mark.parametrize("typ", ["shoe.shuffle", "Shoe.Card", "", "wagers"])
def test_unknown_event_type_is_refused_naming_the_type(typ: str) -> None:
    with pytest.raises(EventError, match="unknown event type") as exc_info:
        parse_event({"type": typ})
    assert repr(typ) in str(exc_info.value)


@pytest.mark.parametrize("typ", [["bank"], {}, {"bank": 1}, 7, None, True])
def test_a_type_that_is_no_text_is_refused_as_unknown_not_a_crash(typ: object) -> None:
    """A list or object where the type goes cannot even be looked up among the types: it is
    an unknown type like any other (journaled as input.invalid), never a TypeError."""
    with pytest.raises(EventError, match="unknown event type") as exc_info:
        parse_event({"type": typ})
    assert repr(typ) in str(exc_info.value)
    body, event = journal_input({"type": typ})
    assert body["type"] == "input.invalid" and event is None


def test_event_without_type_is_refused() -> None:
    with pytest.raises(EventError, match="no 'type'"):
        parse_event({"card": "Ah"})


@pytest.mark.parametrize("value", [[1, 2], "shoe.new", 7, None])
def test_event_that_is_not_an_object_is_refused(value: object) -> None:
    with pytest.raises(EventError, match="an event is a JSON object"):
        parse_event(value)


@pytest.mark.parametrize(("given", "_canonical"), VALID_EVENTS)
def test_extra_key_on_any_event_type_is_refused_naming_the_key(
    given: dict[str, Any], _canonical: dict[str, Any]
) -> None:
    with pytest.raises(EventError) as exc_info:
        parse_event({**given, "colour": "red"})
    assert str(exc_info.value).startswith("colour: ")
    assert "Extra inputs are not permitted" in str(exc_info.value)


REQUIRED = [
    ({"type": "shoe.card", "card": "Ah"}, "card"),
    ({"type": "shoe.burn", "card": "Ah"}, "card"),
    ({"type": "shuffler.stack", "cards": ["Ah"]}, "cards"),
    ({"type": "dice.roll", "dice": [1]}, "dice"),
    ({"type": "bank", "seat": 1, "amount": "5"}, "seat"),
    ({"type": "bank", "seat": 1, "amount": "5"}, "amount"),
    ({"type": "wager", "seat": 1, "spot": "tie", "amount": "5"}, "seat"),
    ({"type": "wager", "seat": 1, "spot": "tie", "amount": "5"}, "spot"),
    ({"type": "wager", "seat": 1, "spot": "tie", "amount": "5"}, "amount"),
    ({"type": "decision", "seat": 1, "action": "stand"}, "seat"),
    ({"type": "decision", "seat": 1, "action": "stand"}, "action"),
]


@pytest.mark.parametrize(("event", "field"), REQUIRED)
def test_missing_required_field_is_refused_naming_the_field(
    event: dict[str, Any], field: str
) -> None:
    data = {k: v for k, v in event.items() if k != field}
    with pytest.raises(EventError) as exc_info:
        parse_event(data)
    assert str(exc_info.value) == f"{field}: Field required"


def test_every_problem_of_one_event_is_named() -> None:
    with pytest.raises(EventError) as exc_info:
        parse_event({"type": "wager", "seat": 0, "amount": "-1", "extra": 1})
    message = str(exc_info.value)
    for part in ("seat: ", "spot: Field required", "amount: '-1' is negative", "extra: "):
        assert part in message


@pytest.mark.parametrize(
    ("event", "names"),
    [
        ({"type": "shoe.card", "card": "Zz"}, ["card: ", "'Zz'", "rank 'Z'"]),
        ({"type": "shoe.burn", "card": "10h"}, ["card: ", "'10h'"]),
        ({"type": "shuffler.stack", "cards": ["Ah", "Qx"]}, ["cards.1: ", "'Qx'", "suit 'x'"]),
        ({"type": "decision", "seat": 1, "action": "set", "low": ["Ah", "1c"]}, ["low.1: "]),
        ({"type": "bank", "seat": 0, "amount": "5"}, ["seat: ", "greater than or equal to 1"]),
        ({"type": "wager", "seat": -3, "spot": "tie", "amount": "5"}, ["seat: "]),
        ({"type": "dice.roll", "dice": [1.5]}, ["dice.0: "]),
        ({"type": "dice.roll", "dice": "6"}, ["dice: "]),
        ({"type": "shuffler.stack", "cards": "AhKd"}, ["cards: "]),
        ({"type": "shoe.new", "ts": 5}, ["ts: "]),
    ],
)
def test_bad_field_value_is_refused_naming_the_field(
    event: dict[str, Any], names: list[str]
) -> None:
    with pytest.raises(EventError) as exc_info:
        parse_event(event)
    message = str(exc_info.value)
    assert message.startswith(names[0])
    for part in names[1:]:
        assert part in message


@pytest.mark.parametrize("line", ["{", "not json", '{"type": "bank",}', ""])
def test_line_that_is_not_json_is_refused_as_not_json(line: str) -> None:
    with pytest.raises(EventError, match=r"^not JSON: "):
        parse_event_line(line)


def test_event_error_is_a_value_error() -> None:
    assert issubclass(EventError, ValueError)


def test_refusal_messages_drop_the_discriminator_tag_from_field_names() -> None:
    with pytest.raises(EventError) as exc_info:
        parse_event({"type": "wager", "seat": 1, "spot": "tie", "amount": "x"})
    assert "wager." not in str(exc_info.value)


def test_parse_event_line_and_parse_event_agree() -> None:
    data = {"type": "wager", "seat": 3, "spot": "banker", "amount": "40", "player": "p9"}
    assert parse_event_line(json.dumps(data)) == parse_event(data)
