"""Table rules for the protection tests: baccarat as tests/helpers.py builds it, and the two
21.5 games with their side bets named (as tests/games/blackjack/ configures them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablectl.games.table_rules import Rules
from tests.helpers import make_config

_SCHEDULE = {
    "option": 1,
    "table_min": "5",
    "table_max": "500",
    "brackets": [{"from": "5", "fee": "1"}, {"from": "101", "fee": "2"}],
}
_COLLECTION = {"file": None, "option": None, "schedule": _SCHEDULE}
_NOT_BACCARAT = {"decks": None, "banker_push_on_dragon7": None, "bet_timer_seconds": None}
_SHOE = [{"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-shoe"}]


def baccarat_rules(tmp_path: Path, *, decks: int = 8, push: bool = False) -> Rules:
    """EZ Baccarat Panda 8 with `decks` decks; `push`: the banker pushes on a Dragon 7 (R26)."""
    return make_config(tmp_path, game={"decks": decks, "banker_push_on_dragon7": push}).rules


def blackjack_rules(tmp_path: Path, game: str, **options: Any) -> Rules:
    """Pure 21.5 (Red Flex RFB-02, Buster option-5) or Pure Spanish 21.5 (Match the Dealer
    MATCH-003), 6 decks, unless `options` say otherwise."""
    if game == "pure-21.5-blackjack":
        base: dict[str, Any] = {"red_flex_table": "RFB-02", "buster_table": "option-5"}
    else:
        base = {"match_dealer_table": "MATCH-003"}
    section = {"id": game, **_NOT_BACCARAT, "settlement_order": "by-seat", "decks": 6}
    return make_config(
        tmp_path,
        game={**section, **base, **options},
        collection=_COLLECTION,
        devices=_SHOE,
    ).rules


def three_card_poker_rules(tmp_path: Path) -> Rules:
    """Three Card Poker (no shoe of decks: no live figures)."""
    return make_config(
        tmp_path,
        game={"id": "three-card-poker-6cb", **_NOT_BACCARAT, "settlement_order": None},
        collection=_COLLECTION,
    ).rules
