"""A refused input's alert never shows its cards (DESIGN contract 3: a card is published only once
the table shows it; a refused stack or card is not thereby exposed). The journal keeps them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import make_config, play


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
