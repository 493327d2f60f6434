"""The shipped Pure 21.5 / Pure Spanish 21.5 configs pass `tablectl check-config` (contract 4), and
the approval options (R2, R3, R11, R17-R21; 000, 003, 004 backline rules) are validated with the
reason named."""

from __future__ import annotations

import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, load_config
from tablectl.games.blackjack.spec import Pure215Game, PureSpanish215Game
from tablectl.rules.fees import load_schedules
from tests.helpers import REPO, as_plugged_in, make_config

CONFIGS = {
    "pure-21.5-blackjack-000.toml": ("6 to 5", "RFB-02", "option-5", "action-button"),
    "pure-21.5-blackjack-003-3to2.toml": ("3 to 2", "RFB-12", "option-1", "player-dealer-left"),
    "pure-21.5-blackjack-003-6to5.toml": ("6 to 5", "RFB-12", "option-1", "player-dealer-left"),
    "pure-21.5-blackjack-004.toml": ("6 to 5", None, "option-1", "action-button"),
}
COLLECTION = {
    "file": None,
    "option": None,
    "schedule": {
        "option": 1,
        "table_min": "5",
        "table_max": "500",
        "brackets": [{"from": "5", "fee": "1"}],
    },
}
NOT_BACCARAT = {"decks": None, "banker_push_on_dragon7": None, "bet_timer_seconds": None}
# A blackjack table needs its card source (its device_roles, checked by parse_config): the shoe.
CARD_SHOE = [{"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-shoe"}]


@pytest.mark.parametrize("name", [*CONFIGS, "pure-spanish-21.5-003.toml"])
def test_shipped_blackjack_config_passes_check_config_contract4(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-config", str(REPO / "config" / name)]) == 0
    out, err = as_plugged_in(*capsys.readouterr())
    assert err == ""
    document = re.search(r"-(00[0-4])", name)  # each file is named for its document
    assert document is not None
    assert f": ok: {name.split('-00')[0]} (document {document[1]}) table " in out


@pytest.mark.parametrize(("name", "expected"), CONFIGS.items())
def test_each_pure_config_carries_its_approval_options_R2_R11_R18_R19(
    name: str, expected: tuple[str, str | None, str, str]
) -> None:
    game = load_config(REPO / "config" / name).table.game
    assert isinstance(game, Pure215Game)
    assert (game.pure_pays, game.red_flex_table, game.buster_table, game.action_start) == expected


def blackjack_game(name: str) -> Pure215Game | PureSpanish215Game:
    game = load_config(REPO / "config" / name).table.game
    assert isinstance(game, Pure215Game | PureSpanish215Game)
    return game


def test_backline_per_approval_000_003_004() -> None:
    spots = {name: blackjack_game(name).backline_spots for name in CONFIGS}
    # 000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes" all three wagers;
    # 003 "Pure 21.5 Blackjack 3 to 2: Game Rules" the base wager only;
    # 004 "Pure 21.5 Blackjack: How Winners are Determined and Paid" base, Buster
    assert spots == {
        "pure-21.5-blackjack-000.toml": ("base", "red-flex", "buster"),
        "pure-21.5-blackjack-003-3to2.toml": ("base",),
        "pure-21.5-blackjack-003-6to5.toml": ("base",),
        "pure-21.5-blackjack-004.toml": ("base", "buster"),
    }


def test_spanish_config_match_the_dealer_and_double_double_R20_R21() -> None:
    loaded = load_config(REPO / "config" / "pure-spanish-21.5-003.toml")
    game = loaded.table.game
    assert isinstance(game, PureSpanish215Game)
    assert (game.match_dealer_table, game.double_double, game.decks) == ("MATCH-003", True, 6)
    # 003 "Pure Spanish 21.5: Description of the Table Used and Total Number of Seated Positions":
    # up to seven players
    assert loaded.table.seats.count == 7


def test_003_side_bet_maximum_is_100_per_spot_003_line_545() -> None:
    limits, _ = load_config(REPO / "config" / "pure-21.5-blackjack-003-3to2.toml").rules.banked()
    assert limits.for_spot("red-flex").max == Decimal(100)
    assert limits.for_spot("buster").max == Decimal(100)
    assert limits.for_spot("base").max == Decimal(200)


def test_003_3to2_option_2_charges_the_player_per_base_wager_only_R4() -> None:
    # 003 "Pure 21.5 Blackjack 3 to 2: Wagering Limits and Collection Fees": a player fee "per bet
    # when placing a game wager", none on a bonus bet;
    # line 556: option 2 prints $1
    path = REPO / "config" / "schedules" / "pure-21.5-blackjack-003-3to2.toml"
    schedule = load_schedules(path)[2]
    assert schedule.player_fee == Decimal(1)
    assert schedule.player_fee_applies("base") and not schedule.player_fee_applies("buster")


def test_004_schedule_option_1_rows_R4() -> None:
    # 004 "Pure 21.5 Blackjack: Collection Rates Schedule": $10-$45 $0.50, $50-$95 $1, $100-$295 $3,
    # $300-$495 $5, $495+ $8
    schedule = load_schedules(REPO / "config" / "schedules" / "pure-21.5-blackjack-004.toml")[1]
    assert [(b.min_action, b.fee) for b in schedule.brackets] == [
        (Decimal(10), Decimal("0.50")),
        (Decimal(50), Decimal(1)),
        (Decimal(100), Decimal(3)),
        (Decimal(300), Decimal(5)),
        (Decimal(495), Decimal(8)),
    ]


def test_spanish_schedules_1_to_52_with_player_fee_brackets_from_option_42_R4() -> None:
    schedules = load_schedules(REPO / "config" / "schedules" / "pure-spanish-21.5-003.toml")
    assert sorted(schedules) == list(range(1, 53))
    # 003 "Pure Spanish 21.5: Collection Fees": option 45 charges $1 to $5 per spot by the wager's
    # size
    assert [b.fee for b in schedules[45].player_fee_brackets] == [Decimal(n) for n in range(1, 6)]
    assert not schedules[41].player_fee_brackets and schedules[41].player_fee == 0


def _problems(tmp_path: Path, **game: Any) -> str:
    base = {"id": "pure-21.5-blackjack", **NOT_BACCARAT, "settlement_order": "by-seat"}
    with pytest.raises(ConfigError) as err:
        make_config(tmp_path, game={**base, **game}, collection=COLLECTION, devices=CARD_SHOE)
    return str(err.value)


def test_even_money_needs_insurance_R17(tmp_path: Path) -> None:
    assert "even_money" in _problems(tmp_path, insurance=False, even_money=True)


def test_unknown_backline_spot_is_refused(tmp_path: Path) -> None:
    assert "insurance" in _problems(tmp_path, backline_spots=["base", "insurance"])


def test_unknown_pay_table_name_is_refused_R18(tmp_path: Path) -> None:
    assert "RFB-99" in _problems(tmp_path, red_flex_table="RFB-99")


def test_a_buster_table_is_not_a_red_flex_table_R18_R19(tmp_path: Path) -> None:
    assert "red-flex" in _problems(tmp_path, red_flex_table="option-1")


def test_pure_table_has_at_most_eight_places_000_line_49(tmp_path: Path) -> None:
    base = {"id": "pure-21.5-blackjack", **NOT_BACCARAT, "settlement_order": "by-seat"}
    with pytest.raises(ConfigError) as err:
        make_config(
            tmp_path, game=base, collection=COLLECTION, seats={"count": 9}, devices=CARD_SHOE
        )
    assert "seats.count" in str(err.value)


def test_spanish_decks_4_to_8_003_line_1841(tmp_path: Path) -> None:
    game = {"id": "pure-spanish-21.5", **NOT_BACCARAT, "settlement_order": "by-seat", "decks": 2}
    with pytest.raises(ConfigError) as err:
        make_config(tmp_path, game=game, collection=COLLECTION, devices=CARD_SHOE)
    assert "decks" in str(err.value)


@pytest.mark.parametrize(
    ("name", "decks"),
    [
        # 000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used": "a minimum of
        # a single deck to a maximum of eight decks"
        ("pure-21.5-blackjack-000.toml", 0),
        ("pure-21.5-blackjack-000.toml", 9),
        # 003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used": "a minimum of
        # four decks ... to a maximum of eight decks"
        ("pure-spanish-21.5-003.toml", 3),
        ("pure-spanish-21.5-003.toml", 9),
    ],
)
def test_check_config_refuses_decks_the_document_does_not_allow_000_line_29_003_line_1841(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, decks: int
) -> None:
    """Contract 4: exit 2 with a `FILE: game.decks: reason` line; the shipped config otherwise."""
    text = (REPO / "config" / name).read_text(encoding="utf-8")
    edited = re.sub(r"(?m)^decks = 6\b", f"decks = {decks}", text, count=1)
    edited = edited.replace('file = "schedules/', f'file = "{REPO / "config" / "schedules"}/', 1)
    assert edited.count(f"decks = {decks}") == 1 and str(REPO) in edited
    path = tmp_path / name
    path.write_text(edited, encoding="utf-8")
    assert main(["check-config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert [line.split(": ")[1] for line in err.strip().splitlines()] == ["game.decks"], err
    assert err.startswith(f"{path}: game.decks: ")
    # the same file with the shipped 6 decks passes: the deck count is the only problem
    path.write_text(edited.replace(f"decks = {decks}", "decks = 6", 1), encoding="utf-8")
    assert main(["check-config", str(path)]) == 0


def test_shipped_configs_are_toml_with_a_shoe_device() -> None:
    for name in [*CONFIGS, "pure-spanish-21.5-003.toml"]:
        data = tomllib.loads((REPO / "config" / name).read_text())
        assert [d["driver"] for d in data["devices"]] == ["shoe"]
        assert data["journal"]["path"].startswith("/var/lib/tablectl/")
