"""Every shipped collection schedule file loads (R4), and hand-read rows of each are pinned.

Each expectation below was read by hand from the rule document and line it cites
(shared seeds/), never from the loaded data.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.rules.fees import (
    CollectionSchedule,
    load_schedules,
    player_dealer_fee,
    player_fees,
)

SCHEDULES_DIR = Path(__file__).resolve().parents[2] / "config" / "schedules"
FILES = sorted(SCHEDULES_DIR.glob("*.toml"))
CITED = re.compile(r"#\s*line \d+")


def D(text: str) -> Decimal:
    """Shorthand for an exact decimal amount."""
    return Decimal(text)


@cache
def shipped(name: str) -> dict[int, CollectionSchedule]:
    """The schedules of one shipped file, by option (loaded once per test run)."""
    return load_schedules(SCHEDULES_DIR / f"{name}.toml")


def fee(name: str, option: int, action: str) -> Decimal:
    """The player-dealer fee of one shipped option at a total table action."""
    return player_dealer_fee(shipped(name)[option], D(action))


def pfee(name: str, option: int, spot: str, wager: str) -> Decimal:
    """The player fee one wager on `spot` pays under one shipped option (0 when none)."""
    schedule = shipped(name)[option]
    if not schedule.player_fee_applies(spot):
        return D("0")
    rows = player_fees(schedule, [(1, "ann", D(wager))])
    return sum((amount for _, _, amount in rows), D("0"))


def limit(name: str, option: int) -> tuple[Decimal, Decimal]:
    """The table limit of one shipped option."""
    schedule = shipped(name)[option]
    return schedule.table_min, schedule.table_max


# --- every file -------------------------------------------------------------------------------


def test_the_schedule_files_are_found_R4() -> None:
    names = {path.stem for path in FILES}
    assert {
        "ez-baccarat-panda8",
        "three-card-poker-6cb-000",
        "three-card-poker-6cb-001",
        "three-card-poker-6cb-003",
        "three-card-poker-6cb-003-cardroom",
        "three-card-poker-6cb-004",
        "fortune-pai-gow-003",
        "fortune-pai-gow-004",
        "ultimate-texas-holdem-003",
        "ultimate-texas-holdem-004",
    } <= names


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_every_schedule_file_loads_R4(path: Path) -> None:
    schedules = load_schedules(path)
    assert schedules
    for option, schedule in schedules.items():
        assert schedule.option == option
        assert 1 <= len(schedule.brackets) <= 5
        assert len(schedule.player_fee_brackets) <= 5


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_every_row_cites_its_document_line_R4(path: Path) -> None:
    """The commenting standard: every limit and bracket row quotes the line it comes from."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#"), "a header comment names the source"
    for number, text in enumerate(lines, start=1):
        if text.startswith("table_limit") or text.lstrip().startswith("{ from"):
            assert CITED.search(text), f"{path.name}:{number}: {text}"


ALL_SCHEDULES = [
    (path.stem, schedule) for path in FILES for schedule in load_schedules(path).values()
]
AMOUNTS = st.decimals(min_value=0, max_value=30_000, places=2, allow_nan=False)


@given(
    picked=st.sampled_from(ALL_SCHEDULES),
    a=AMOUNTS,
    b=AMOUNTS,
)
def test_every_fee_charged_is_a_written_rate_R4(
    picked: tuple[str, CollectionSchedule], a: Decimal, b: Decimal
) -> None:
    """R4: flat fees only; whatever the action or wager, the fee is one of the written rates."""
    _, schedule = picked
    for amount in (a, b):
        charged = player_dealer_fee(schedule, amount)
        if amount == 0:
            assert charged == 0
        else:
            assert charged in {bracket.fee for bracket in schedule.brackets}
        rates = {bracket.fee for bracket in schedule.player_fee_brackets} or {schedule.player_fee}
        for _, _, paid in player_fees(schedule, [(1, "ann", amount)]):
            assert paid in rates


# --- Three Card Poker 6 Card Bonus, document 000 ----------------------------------------------

TCP000 = "three-card-poker-6cb-000"


def test_tcp_000_options_and_limits_R4() -> None:
    assert sorted(shipped(TCP000)) == [1, 2, 3, 4, 5]  # line 432: schedule options 1-5
    assert limit(TCP000, 1) == (D("5"), D("500"))  # line 435: $5-$500
    assert limit(TCP000, 5) == (D("5"), D("500"))  # line 458: $5-$500


def test_tcp_000_rows_R4() -> None:
    assert fee(TCP000, 1, "50") == D("0.50")  # line 435: $5-$50 $.50
    assert fee(TCP000, 1, "51") == D("1.00")  # line 436: $51-$100 $1.00
    assert fee(TCP000, 2, "700") == D("5.00")  # line 443: $301-$700 $5.00
    assert fee(TCP000, 2, "701") == D("10.00")  # line 444: $701+ $10.00
    assert fee(TCP000, 3, "1000") == D("8.00")  # line 448: $601-$1,000 $8.00
    assert fee(TCP000, 3, "1001") == D("10.00")  # line 449: $1001+ $10.00
    assert fee(TCP000, 5, "450") == D("8.00")  # line 460: $301-$600 $8.00
    assert fee(TCP000, 5, "1001") == D("15.00")  # line 462: $1001+ $15.00


def test_tcp_000_no_player_fee_R4() -> None:
    # line 432: "there shall be no collection fees taken from the player position"
    for option in range(1, 6):
        assert pfee(TCP000, option, "ante", "100") == 0


# --- Three Card Poker 6 Card Bonus, document 001 ----------------------------------------------

TCP001 = "three-card-poker-6cb-001"


def test_tcp_001_options_14_and_18_left_out_R4() -> None:
    # line 283: option 14's first fee is unreadable; line 307: option 18's last row is unreadable.
    assert sorted(shipped(TCP001)) == [*range(1, 14), 15, 16, 17]


def test_tcp_001_limits_from_the_wagering_limits_sentence_R4() -> None:
    # line 210: minimum $1-$1,000, maximum $200-$10,000; no per-option table limit is given.
    for option in shipped(TCP001):
        assert limit(TCP001, option) == (D("1"), D("10000"))


def test_tcp_001_rows_R4() -> None:
    assert fee(TCP001, 1, "49") == D("1")  # line 213: $1-$49 $1
    assert fee(TCP001, 1, "50") == D("3")  # line 214: $50-$99 $3
    assert fee(TCP001, 1, "149") == D("5")  # line 215: $100-$149 $5
    assert fee(TCP001, 1, "150") == D("7")  # line 216: $150-$199 $7.00
    assert fee(TCP001, 1, "200") == D("10")  # line 217: $200+ $10.00
    assert fee(TCP001, 2, "199") == D("6")  # line 220: $100-$199 $6
    assert fee(TCP001, 2, "200") == D("12")  # line 221: $200+ $12
    assert fee(TCP001, 4, "120") == D("3")  # line 232: $100-$149 $3
    assert fee(TCP001, 10, "400") == D("4")  # line 263: $225-$400 $4
    assert fee(TCP001, 10, "401") == D("7")  # line 264: $401+ $7
    assert fee(TCP001, 17, "800") == D("15")  # line 302: $800+ $15
    assert len(shipped(TCP001)[2].brackets) == 4  # lines 218-221: four rows


def test_tcp_001_player_fee_on_the_base_wager_only_R4() -> None:
    # line 208: "A fee will be also taken from the player when placing a base game wager";
    # line 215 (option 1) and line 220 (option 2): $1.00.
    assert pfee(TCP001, 1, "ante", "25") == D("1.00")
    assert pfee(TCP001, 2, "ante", "25") == D("1.00")
    assert pfee(TCP001, 1, "pair-plus", "25") == 0
    assert pfee(TCP001, 1, "six-card-bonus", "25") == 0
    # line 208: options 3-18, no collection fee from a player.
    assert pfee(TCP001, 3, "ante", "25") == 0


# --- Three Card Poker 6 Card Bonus, document 003 (the game's section) ------------------------

TCP003 = "three-card-poker-6cb-003"


def test_tcp_003_options_and_limits_R4() -> None:
    assert sorted(shipped(TCP003)) == list(range(1, 14))  # line 1015: Schedule Options 1-13
    assert limit(TCP003, 1) == (D("3"), D("200"))  # line 1018: $3-$200
    assert limit(TCP003, 4) == (D("3"), D("1000"))  # line 1035: $3-$1,000
    assert limit(TCP003, 13) == (D("100"), D("2000"))  # line 1082: $100-$2,000


def test_tcp_003_rows_R4() -> None:
    assert fee(TCP003, 1, "50") == D("0.50")  # line 1018: $3-$50 $0.50
    assert fee(TCP003, 1, "51") == D("1")  # line 1019: $51-$100 $1
    # lines 1028-1029: "$25-$200 $0.50" then "$51-$100 $1": matched by lower bound.
    assert fee(TCP003, 3, "50") == D("0.50")
    assert fee(TCP003, 3, "51") == D("1")
    assert fee(TCP003, 3, "500") == D("2")  # line 1032: $301+ $2
    assert fee(TCP003, 4, "501") == D("3")  # line 1038: $501+ $3
    assert fee(TCP003, 5, "501") == D("4")  # line 1042: $501+ $4
    assert fee(TCP003, 8, "1001") == D("5")  # line 1061: $1,001+ $5
    assert fee(TCP003, 13, "100") == D("1")  # line 1082: $101-$200 $1, below the first bound
    assert fee(TCP003, 13, "2001") == D("10")  # line 1086: $2,001+ $10


def test_tcp_003_player_fee_per_hand_on_the_ante_R4() -> None:
    # line 1015: options 1-3 "taken per hand", only on the base game wager.
    assert pfee(TCP003, 1, "ante", "500") == D("0.50")  # line 1018: $0.50
    assert pfee(TCP003, 2, "ante", "5") == D("1.00")  # line 1023: $1.00
    assert pfee(TCP003, 3, "ante", "25") == D("1.00")  # line 1028: $1.00
    assert pfee(TCP003, 2, "pair-plus", "5") == 0
    assert pfee(TCP003, 2, "six-card-bonus", "5") == 0


def test_tcp_003_player_fee_by_the_ante_R4() -> None:
    # line 1015: options 4-5 "based on each individual player's ante".
    assert pfee(TCP003, 4, "ante", "99") == D("0.50")  # line 1035: $3-$99 $0.50
    assert pfee(TCP003, 4, "ante", "100") == D("1")  # line 1036: $100-$300 $1
    assert pfee(TCP003, 4, "ante", "300") == D("1")
    assert pfee(TCP003, 4, "ante", "301") == D("2")  # line 1037: $301-$500 $2
    assert pfee(TCP003, 4, "ante", "501") == D("4")  # line 1038: $501+ $4
    assert pfee(TCP003, 5, "ante", "150") == D("1")  # line 1040: $101-$300 $1
    assert pfee(TCP003, 5, "ante", "501") == D("3")  # line 1042: $501+ $3
    assert pfee(TCP003, 4, "pair-plus", "501") == 0
    assert pfee(TCP003, 5, "six-card-bonus", "501") == 0


def test_tcp_003_options_6_to_13_no_player_fee_R4() -> None:
    # line 1015: "there shall be no additional collection fee taken from a player"
    for option in range(6, 14):
        assert pfee(TCP003, option, "ante", "100") == 0


# --- Three Card Poker 6 Card Bonus, document 003 (the card room's collection rates) -----------

TCP003_ROOM = "three-card-poker-6cb-003-cardroom"


def test_tcp_003_cardroom_options_and_limits_R4() -> None:
    assert sorted(shipped(TCP003_ROOM)) == list(range(1, 44))  # line 2660: Options 1-43
    assert limit(TCP003_ROOM, 1) == (D("3"), D("200"))  # line 2663: $3-$200
    assert limit(TCP003_ROOM, 32) == (D("500"), D("10000"))  # line 2827: $500-$10,000
    assert limit(TCP003_ROOM, 43) == (D("100"), D("2000"))  # line 2882: $100-$2,000


def test_tcp_003_cardroom_rows_R4() -> None:
    assert fee(TCP003_ROOM, 1, "25") == D("0.50")  # line 2663: $3-$25 $0.50
    assert fee(TCP003_ROOM, 1, "26") == D("1")  # line 2664: $26-$100 $1
    assert fee(TCP003_ROOM, 2, "3") == D("0.50")  # line 2668: $5-$100 $0.50, below the first
    assert fee(TCP003_ROOM, 5, "40") == D("0.50")  # line 2683: $5-$40 $0.50
    assert fee(TCP003_ROOM, 5, "41") == D("1")  # line 2684: $41-$75 $1
    assert fee(TCP003_ROOM, 5, "76") == D("3")  # line 2685: $76-$200 $3
    assert fee(TCP003_ROOM, 27, "100") == D("2")  # line 2799: $101-$400 $2, below the first
    assert fee(TCP003_ROOM, 27, "2001") == D("20")  # line 2803: $2,001+ $20
    assert fee(TCP003_ROOM, 32, "15000") == D("75")  # line 2830: $10,001-$15,000 $75
    assert fee(TCP003_ROOM, 32, "15001") == D("100")  # line 2831: $15,001+ $100
    assert fee(TCP003_ROOM, 34, "301") == D("5")  # line 2840: $301+ $5
    assert len(shipped(TCP003_ROOM)[34].brackets) == 4  # lines 2837-2840


def test_tcp_003_cardroom_no_player_fee_R4() -> None:
    # line 2660: "no additional collection fee taken from a player"
    for option in range(1, 44):
        assert pfee(TCP003_ROOM, option, "ante", "100") == 0


# --- Three Card Poker 6 Card Bonus, document 004 ----------------------------------------------

TCP004 = "three-card-poker-6cb-004"


def test_tcp_004_rows_R4() -> None:
    assert sorted(shipped(TCP004)) == [1]  # line 635: schedule option 1
    assert limit(TCP004, 1) == (D("5"), D("500"))  # line 638: $5-$500
    assert fee(TCP004, 1, "45") == D("0.50")  # line 638: $5-$45 $0.50
    assert fee(TCP004, 1, "47") == D("0.50")  # between "$5-$45" and "$50-$95"
    assert fee(TCP004, 1, "50") == D("1")  # line 639: $50-$95 $1
    assert fee(TCP004, 1, "295") == D("2")  # line 640: $100-$295 $2
    assert fee(TCP004, 1, "494") == D("4")  # line 641: $300-$495 $4
    assert fee(TCP004, 1, "495") == D("5")  # line 642: $495+ $5 (overlap: the "+" row wins)
    assert pfee(TCP004, 1, "ante", "100") == 0  # line 635: no fee from any players


# --- Fortune Pai Gow Poker, document 003 ------------------------------------------------------

FPG003 = "fortune-pai-gow-003"


def test_fpg_003_options_and_limits_R4() -> None:
    assert sorted(shipped(FPG003)) == list(range(1, 44))  # lines 1543, 1719, 1738: 1-43
    assert limit(FPG003, 1) == (D("3"), D("200"))  # line 1546: $3 - $200
    assert limit(FPG003, 36) == (D("10"), D("5000"))  # line 1732: $10 - $5,000
    assert limit(FPG003, 42) == (D("100"), D("1000"))  # line 1769: $100 - $1,000


def test_fpg_003_player_dealer_rows_R4() -> None:
    assert fee(FPG003, 1, "25") == D("0.50")  # line 1546: $3-$25 $0.50
    assert fee(FPG003, 1, "26") == D("1.00")  # line 1547: $26-$100 $1.00
    assert fee(FPG003, 1, "301") == D("3")  # line 1550: $301+ $3
    assert fee(FPG003, 5, "800") == D("8")  # line 1573: "$501 $8" with no "+"
    assert fee(FPG003, 27, "100") == D("2")  # line 1685: $100-$400 $2
    assert fee(FPG003, 32, "15001") == D("100")  # line 1717: $15,001+ $100
    assert fee(FPG003, 33, "200") == D("1")  # line 1722: $10-$200 $1
    assert fee(FPG003, 33, "201") == D("2")  # line 1723: $201+ $2
    assert fee(FPG003, 37, "401") == D("1")  # line 1743: $401-600 $1
    assert fee(FPG003, 42, "300") == D("0.50")  # line 1769: $100-$300 $.50
    assert fee(FPG003, 42, "301") == D("1.00")  # line 1770: $301-$500 $1.00
    assert fee(FPG003, 43, "1001") == D("5")  # line 1777: $1,001+ $5


def test_fpg_003_no_player_fee_options_1_to_32_R4() -> None:
    # line 1543: "no collection fee shall be taken from the player"
    for option in range(1, 33):
        assert pfee(FPG003, option, "base", "100") == 0


def test_fpg_003_player_fee_per_spot_by_wager_R4() -> None:
    # line 1719: "per spot, including controlled game and bonus bet spots"
    assert pfee(FPG003, 33, "base", "10") == D("0.50")  # line 1722: $10-$50 $.50
    assert pfee(FPG003, 33, "fortune", "500") == D("0.50")  # one row only
    assert pfee(FPG003, 36, "base", "102") == D("1")  # between "$10-$100" and "$105-$200"
    assert pfee(FPG003, 36, "fortune", "400") == D("4")  # line 1735: $305-$400 $4
    assert pfee(FPG003, 36, "base", "405") == D("5")  # line 1736: $405-$500 $5
    assert pfee(FPG003, 34, "base", "1000") == D("2")  # line 1725: last row, $105-$200 $2


def test_fpg_003_player_fee_by_wager_options_37_to_43_R4() -> None:
    # line 1738: "based on the player's wager"
    assert pfee(FPG003, 37, "base", "49") == D("0.50")  # line 1741: $10-$49 $.50
    assert pfee(FPG003, 37, "base", "50") == D("1")  # line 1742: $50-$100 $1
    assert pfee(FPG003, 40, "fortune", "301") == D("3")  # line 1759: $301-$500 $3
    assert pfee(FPG003, 41, "base", "100") == D("1")  # line 1761: $100-$200 $1
    assert pfee(FPG003, 42, "base", "100") == D("3")  # line 1770: $50-$100 $3
    assert pfee(FPG003, 43, "base", "700") == D("5")  # line 1776: $401-$600 $5, gap above
    assert pfee(FPG003, 43, "base", "1000") == D("7")  # line 1777: $1000+ $7


# --- Fortune Pai Gow Poker, document 004 ------------------------------------------------------

FPG004 = "fortune-pai-gow-004"


def test_fpg_004_rows_R4() -> None:
    assert sorted(shipped(FPG004)) == [1]  # line 908: schedule option 1
    assert limit(FPG004, 1) == (D("10"), D("500"))  # line 911: $10 - $500
    assert fee(FPG004, 1, "149") == D("0.50")  # line 911: $10 - $149 $0.50
    assert fee(FPG004, 1, "150") == D("1.00")  # line 912: $150 - $400 $1.00
    assert fee(FPG004, 1, "1001") == D("4.00")  # line 915: $1,001+ $4.00
    assert pfee(FPG004, 1, "base", "49") == D("0.50")  # line 911: $10 - $49 $0.50
    assert pfee(FPG004, 1, "base", "50") == D("1.00")  # line 912: $50 - $100 $1.00
    assert pfee(FPG004, 1, "fortune", "300") == D("2.00")  # line 913: $101 - $300 $2.00
    assert pfee(FPG004, 1, "base", "301") == D("3.00")  # line 914: $301 - $500 $3.00


# --- Ultimate Texas Hold'em, document 003 -----------------------------------------------------

UTH003 = "ultimate-texas-holdem-003"


def test_uth_003_rows_R4() -> None:
    assert sorted(shipped(UTH003)) == [1, 2, 3, 4]  # line 3632: options 1 through 4
    assert limit(UTH003, 1) == (D("5"), D("300"))  # line 3635: $5-$300
    assert limit(UTH003, 4) == (D("100"), D("2000"))  # line 3650: $100-$2,000
    assert fee(UTH003, 1, "50") == D("1")  # line 3635: $5-$50 $1
    assert fee(UTH003, 1, "51") == D("2")  # line 3636: $51-$100 $2
    assert fee(UTH003, 1, "100") == D("2")
    assert fee(UTH003, 1, "301") == D("9")  # line 3639: $301+ $9
    assert fee(UTH003, 2, "25") == D("0.50")  # line 3640: $5-$25 $0.50
    assert fee(UTH003, 3, "800") == D("15")  # line 3648: $501-$800 $15
    assert fee(UTH003, 3, "1000") == D("20")  # line 3649: "$801 $20" with no "+"
    assert fee(UTH003, 4, "1601") == D("30")  # line 3654: $1,601+ $30
    for option in range(1, 5):  # line 3632: no collection fee from players
        assert pfee(UTH003, option, "ante", "100") == 0


# --- Ultimate Texas Hold'em, document 004 -----------------------------------------------------

UTH004 = "ultimate-texas-holdem-004"


def test_uth_004_rows_R4() -> None:
    assert sorted(shipped(UTH004)) == [1]  # line 1147: schedule option 1
    assert limit(UTH004, 1) == (D("5"), D("500"))  # line 1150: $5 - $500
    assert fee(UTH004, 1, "24") == D("1")  # line 1150: $5 - $24 $1
    assert fee(UTH004, 1, "25") == D("2")  # line 1151: $25 - $74 $2
    assert fee(UTH004, 1, "124") == D("3")  # line 1152: $75 - $124 $3
    assert fee(UTH004, 1, "125") == D("5")  # line 1153: $125 - $199 $5
    assert fee(UTH004, 1, "200") == D("10")  # line 1154: $200+ $10


def test_uth_004_player_fee_once_per_player_R4() -> None:
    # line 1150: Player Collection $1; line 1147: none for placing the Ante, Blind or Trips.
    schedule = shipped(UTH004)[1]
    wagers = [(1, "ann", D("10")), (1, "ann", D("10")), (1, "ann", D("5")), (2, "bob", D("10"))]
    assert player_fees(schedule, wagers) == [(1, "ann", D("1")), (2, "bob", D("1"))]
