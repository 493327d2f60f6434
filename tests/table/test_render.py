"""The one renderer (tablectl/render.py): records to contract-3 payloads, keys in the order
tablectl has always published them (docs/mqtt.md)."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

from tablectl.game_records import (
    BankView,
    Deck,
    JsonObject,
    RoundHeaders,
    RoundSettled,
    Settlement,
)
from tablectl.render import render
from tablectl.rules.settlement import void_round

D = Decimal


class _Outcome:
    def payload(self) -> JsonObject:
        return {"winner": "player"}


def _settled(**extra: object) -> RoundSettled:
    base = RoundSettled(
        round=3,
        game="toy",
        outcome=_Outcome(),
        dealt=[],
        bank=BankView(1, D(100), D(90), 2),
        action_seat=2,
        settlements=(Settlement(2, "p2", "base", D(10), "win", D(10), {"for_seat": 4}),),
        fees=(),
    )
    return dataclasses.replace(base, **extra)  # type: ignore[arg-type]


def test_a_deck_the_device_did_not_name_is_published_as_null_contract3() -> None:
    """Three Card Poker, Pai Gow and Ultimate publish `deck` even when no stack named a colour."""
    body = render(_settled(headers=RoundHeaders(deck=Deck(None)))).payload
    assert "deck" in body and body["deck"] is None
    assert list(body)[:3] == ["round", "game", "deck"]


def test_deck_after_dealt_keeps_where_pai_gow_and_ultimate_publish_it_contract3() -> None:
    body = render(_settled(headers=RoundHeaders(deck=Deck("red", after_dealt=True)))).payload
    keys = list(body)
    assert keys.index("deck") == keys.index("dealt") + 1
    assert body["deck"] == "red"


def test_a_game_without_decks_publishes_no_deck_key_contract3() -> None:
    assert "deck" not in render(_settled()).payload


def test_settlement_rows_carry_the_games_notes_after_the_money_R1() -> None:
    (row,) = render(_settled()).payload["settlements"]
    assert list(row) == ["seat", "player", "spot", "amount", "status", "net", "for_seat"]
    assert (row["amount"], row["net"], row["for_seat"]) == ("10.00", "10.00", 4)


def test_a_void_round_returns_every_wager_and_shows_no_turn_round_void() -> None:
    class _W:
        seat, player, spot, amount = 2, "p2", "ante", D(25)

    record = void_round(
        round_=5,
        game="toy",
        reason="misdeal",
        bank_seat=1,
        bank=D(200),
        ordered=[_W()],
        dealt=[],
        headers=RoundHeaders(deck=Deck(None)),
    )
    body = render(record).payload
    assert json.dumps(body, separators=(",", ":")) == (
        '{"round":5,"game":"toy","deck":null,"void":true,"reason":"misdeal","outcome":null,'
        '"dealt":[],"bank":{"seat":1,"start":"200.00","end":"200.00"},"action_seat":null,'
        '"settlements":[{"seat":2,"player":"p2","spot":"ante","amount":"25.00",'
        '"status":"returned","net":"0.00"}],"fees":[]}'
    )


def test_every_round_result_carries_the_tables_notes_devices_then_chain_contract3() -> None:
    """Whatever game ended the round, the table's notes (devices, positions, the journal's chain
    head) follow the game's own fields, in that order (docs/mqtt.md)."""
    from tablectl.game_records import DeviceUsed, PokerHandSettled, TableNotes

    notes = TableNotes(
        (DeviceUsed("shoe", "S-1"),), {"positions": [1]}, {"seq": 9, "hash": "ab", "key": None}
    )
    poker = PokerHandSettled(
        hand=1,
        game="texas-holdem",
        button=1,
        board=(),
        pots=(),
        fee=D(0),
        fee_players=2,
        fee_modified=False,
        returned=(),
        shown=(),
        stacks=(),
        showdown=False,
        table=notes,
    )
    for record in (poker, _settled(table=notes)):
        body = render(record).payload
        assert list(body)[-3:] == ["devices", "positions", "chain"]
        assert body["devices"] == [{"name": "shoe", "serial": "S-1"}]
        assert body["chain"] == {"seq": 9, "hash": "ab", "key": None}
