"""A refused input's alert never shows its cards (DESIGN contract 3: a card is published only once
the table shows it; a refused stack or card is not thereby exposed). The journal keeps them."""

from __future__ import annotations

import json
from pathlib import Path

from tablectl.table import Table, mask_cards
from tests.games.three_card_poker.test_three_card_poker_engine import tcp_config
from tests.helpers import feed, make_config, play


def test_refused_stack_alert_names_the_withheld_cards_but_shows_none_contract3(
    tmp_path: Path,
) -> None:
    cfg = make_config(tmp_path)
    _, rows = play(cfg, [{"type": "shuffler.stack", "cards": ["Ah", "Kd", "7c"]}])
    (alert,) = [r for r in rows if r.topic.endswith("/alert")]
    body = json.loads(alert.payload)
    assert body["kind"] == "rejected"
    assert body["input"] == {"type": "shuffler.stack", "withheld": ["cards"]}
    for card in ("Ah", "Kd", "7c"):
        assert card.encode() not in alert.payload


def test_refused_card_and_pai_gow_low_hand_are_withheld_contract3(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    _, rows = play(
        cfg,
        [
            {"type": "shoe.card", "card": "Qs"},  # no bank posted: refused (R1)
            {"type": "decision", "seat": 2, "action": "set", "low": ["9c", "8c"]},
        ],
    )
    alerts = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
    assert [a["input"].get("withheld") for a in alerts] == [["card"], ["low"]]
    assert not any(c in json.dumps(alerts) for c in ("Qs", "9c", "8c"))


def test_unparsable_stack_alert_masks_the_readable_cards_contract3(tmp_path: Path) -> None:
    # "ZZ" makes the stack invalid; "Ah" and "kd" are real cards and must not be shown (Three
    # Card Poker: a game with hidden cards, its spec's shows_every_card False).
    table = Table(tcp_config(tmp_path))
    rows = feed(table, {"type": "shuffler.stack", "cards": ["Ah", "kd", "ZZ"]})
    (alert,) = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
    assert alert["kind"] == "invalid-input"
    assert '"??"' in alert["raw"] and "ZZ" in alert["raw"]
    assert "Ah" not in json.dumps(alert) and "kd" not in json.dumps(alert)


def test_mask_cards_keeps_words_and_masks_canonical_and_quoted_cards() -> None:
    assert mask_cards("Ah seen twice, same as Td; JKR too") == "?? seen twice, same as ??; ?? too"
    assert mask_cards('["ah","QS"]') == '["??","??"]'
    assert mask_cards("Kings and Queens as well") == "Kings and Queens as well"


def test_rejection_reasons_of_games_with_hidden_cards_mask_card_names_contract3(
    tmp_path: Path,
) -> None:
    baccarat = Table(make_config(tmp_path / "baccarat"))  # every card face up (003)
    assert baccarat._public_text("Ah cannot be drawn again") == "Ah cannot be drawn again"
    hidden = Table(tcp_config(tmp_path / "tcp"))  # hole cards
    assert hidden._public_text("Ah cannot be drawn again") == "?? cannot be drawn again"


def test_a_burn_keyed_at_a_baccarat_console_is_masked_in_its_alert_though_baccarat_shows_cards(
    tmp_path: Path,
) -> None:
    """Baccarat shows every card it deals, so its alerts name cards; but a burn is never shown
    (docs/mqtt.md), and `cmd/shoe.burn` is read by the table alone (tablectl/commands.py): a
    retained or unparsable one must not publish its card in the alert's `raw` or reason, which
    consoles, the pit and the floor read. (Found in review: a retained cmd/shoe.burn put its
    card on `alert`.)"""
    from tablectl.table import journal_body

    table = Table(make_config(tmp_path))
    retained = journal_body(
        '{"id":"b-1","card":"Kh","at":{"pos":1}}',
        "cmd/shoe.burn came retained: refused",
        retained=True,
    )
    rows = feed(table, retained, source="cmd/shoe.burn", ref="b-1")
    garbled = journal_body('{"card":"Qd"', "payload is not JSON: Expecting ',' delimiter")
    rows += feed(table, garbled, source="cmd/shoe.burn")
    alerts = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
    assert [a["kind"] for a in alerts] == ["retained-command", "invalid-input"]
    published = json.dumps([json.loads(r.payload) for r in rows])
    assert "Kh" not in published and "Qd" not in published
    assert '"??"' in alerts[0]["raw"] and '"??"' in alerts[1]["raw"]
