"""Collection fees (R4), hand-checked against 003 "EZ Baccarat Panda 8: Collection Fee Schedule" (EZ
Baccarat Panda 8).

Player fees by wager size and by spot are checked against 003 "Three Card Poker 6 Card Bonus:
Schedule Options 1-13", "Fortune Pai Gow Poker: Collection Fees".
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tablectl.rules.fees import (
    Bracket,
    CollectionSchedule,
    ScheduleError,
    load_schedules,
    player_dealer_fee,
    player_fees,
    total_table_action,
)

SHIPPED = Path(__file__).resolve().parents[2] / "config" / "schedules" / "ez-baccarat-panda8.toml"

# Table limit per spot of every option, as written in 003 (line of the option's first row).
DOCUMENT_LIMITS = {
    **{option: ("5", "500") for option in range(1, 7)},  # lines 1231-1256
    **{option: ("5", "1000") for option in range(7, 13)},  # lines 1264-1289
    **{option: ("25", "1000") for option in range(13, 18)},  # lines 1294-1314
    **{option: ("100", "2000") for option in range(18, 23)},  # lines 1322-1342
    23: ("500", "10000"),  # line 1347: $500-$10,000
}


def D(text: str) -> Decimal:
    """Shorthand for an exact decimal amount."""
    return Decimal(text)


@pytest.fixture(scope="module")
def shipped() -> dict[int, CollectionSchedule]:
    """The shipped EZ Baccarat Panda 8 schedules."""
    return load_schedules(SHIPPED)


def fee(schedules: dict[int, CollectionSchedule], option: int, action: str) -> Decimal:
    """The player-dealer fee of one shipped option at a total table action."""
    return player_dealer_fee(schedules[option], D(action))


def write(tmp_path: Path, text: str) -> Path:
    """A schedule file with the given TOML text."""
    path = tmp_path / "schedules.toml"
    path.write_text(text, encoding="utf-8")
    return path


def toml_schedule(brackets: str, extra: str = "", option: int = 1) -> str:
    """One [[schedule]] table with the given brackets array body."""
    return (
        f"[[schedule]]\noption = {option}\n"
        'table_limit = { min = "5", max = "500" }\n'
        f"{extra}"
        f"brackets = [\n{brackets}\n]\n"
    )


GOOD_BRACKETS = '{ from = "5", fee = "0.50" },\n{ from = "26", fee = "1" },'


# --- the shipped file -------------------------------------------------------------------------


def test_shipped_file_has_options_1_to_23_with_document_limits_R4(
    shipped: dict[int, CollectionSchedule],
) -> None:
    assert sorted(shipped) == list(range(1, 24))
    for option, (low, high) in DOCUMENT_LIMITS.items():
        schedule = shipped[option]
        assert schedule.option == option
        assert (schedule.table_min, schedule.table_max) == (D(low), D(high)), option
        assert 1 <= len(schedule.brackets) <= 5
        assert schedule.player_fee == 0  # line 1228: no collection fee taken from players
        assert player_fees(schedule, [(1, "p1", D("100"))]) == []


def test_schedule_1_bracket_fees_R4(shipped: dict[int, CollectionSchedule]) -> None:
    # lines 1231-1235: $5-$25 $0.50, $26-$100 $1.00, $101-$200 $1, $201-$300 $2, $301+ $3
    assert fee(shipped, 1, "5") == D("0.50")
    assert fee(shipped, 1, "25") == D("0.50")
    assert fee(shipped, 1, "26") == D("1.00")
    assert fee(shipped, 1, "100") == D("1.00")
    assert fee(shipped, 1, "101") == D("1")
    assert fee(shipped, 1, "300") == D("2")
    assert fee(shipped, 1, "301") == D("3")
    assert fee(shipped, 1, "5000") == D("3")


def test_schedule_1_action_between_written_ranges_pays_lower_bracket_R4(
    shipped: dict[int, CollectionSchedule],
) -> None:
    # "$5-$25" then "$26-$100": $25.50 is in neither written range; matched by lower bound.
    assert fee(shipped, 1, "25.50") == D("0.50")


def test_schedule_3_bracket_fees_and_1000_overlap_R4(
    shipped: dict[int, CollectionSchedule],
) -> None:
    # lines 1241-1245: $5-$200 $1, $201-$300 $2, $301-$500 $3, $501-$1000 $5, $1000+ $8
    assert fee(shipped, 3, "200") == D("1")
    assert fee(shipped, 3, "201") == D("2")
    assert fee(shipped, 3, "500") == D("3")
    assert fee(shipped, 3, "501") == D("5")
    assert fee(shipped, 3, "999.99") == D("5")
    # The document's ranges overlap at $1000; the "$1000+" row (highest lower bound) wins.
    assert fee(shipped, 3, "1000") == D("8")
    assert fee(shipped, 9, "1000") == D("8")  # lines 1277-1278, same overlap
    assert fee(shipped, 9, "999") == D("5")


def test_schedule_10_bracket_boundary_1000_vs_1001_R4(
    shipped: dict[int, CollectionSchedule],
) -> None:
    # lines 1279-1283: $5-$100 $1, $101-$300 $2, $301-$500 $4, $501-$1000 $6, $1001+ $10
    assert fee(shipped, 10, "100") == D("1")
    assert fee(shipped, 10, "101") == D("2")
    assert fee(shipped, 10, "301") == D("4")
    assert fee(shipped, 10, "1000") == D("6")
    assert fee(shipped, 10, "1001") == D("10")


def test_schedule_13_and_17_bracket_fees_R4(shipped: dict[int, CollectionSchedule]) -> None:
    # lines 1294-1298: $25-$100 $1, $101-$500 $2, $501-$700 $5, $701-$1,200 $7, $1,201+ $10
    assert fee(shipped, 13, "700") == D("5")
    assert fee(shipped, 13, "701") == D("7")
    assert fee(shipped, 13, "1200") == D("7")
    assert fee(shipped, 13, "1201") == D("10")
    # lines 1314-1318: $25-$200 $1, $201-$500 $5, $501-$800 $8, $801-$1,200 $10, $1,201+ $12
    assert fee(shipped, 17, "200") == D("1")
    assert fee(shipped, 17, "201") == D("5")
    assert fee(shipped, 17, "801") == D("10")
    assert fee(shipped, 17, "1201") == D("12")


def test_schedule_18_to_21_action_below_101_pays_first_bracket_R4(
    shipped: dict[int, CollectionSchedule],
) -> None:
    # lines 1322, 1327, 1332, 1337: table minimum $100 but the first bracket starts at $101.
    assert fee(shipped, 18, "100") == D("2")
    assert fee(shipped, 19, "100") == D("2")
    assert fee(shipped, 20, "100") == D("3")
    assert fee(shipped, 21, "100") == D("3")
    # line 1338: $301-$600 $7 in schedule 21
    assert fee(shipped, 21, "301") == D("7")
    # line 1342: schedule 22 begins at $100 as its table minimum does
    assert fee(shipped, 22, "100") == D("5")
    assert fee(shipped, 22, "2001") == D("50")


def test_schedule_23_bracket_fees_R4(shipped: dict[int, CollectionSchedule]) -> None:
    # lines 1347-1351: $500-$2,000 $10, $2,001-$5,000 $25, $5,001-$10,000 $50,
    # $10,001-$15,000 $75, $15,001+ $100
    assert fee(shipped, 23, "2000") == D("10")
    assert fee(shipped, 23, "2001") == D("25")
    assert fee(shipped, 23, "10000") == D("50")
    assert fee(shipped, 23, "10001") == D("75")
    assert fee(shipped, 23, "15000") == D("75")
    assert fee(shipped, 23, "15001") == D("100")


def test_zero_action_pays_nothing_R4(shipped: dict[int, CollectionSchedule]) -> None:
    for schedule in shipped.values():
        assert player_dealer_fee(schedule, D("0")) == 0
    assert fee(shipped, 23, "0.01") == D("10")  # above zero, below the first bound


def test_negative_action_refused_R4(shipped: dict[int, CollectionSchedule]) -> None:
    with pytest.raises(ValueError, match="negative"):
        fee(shipped, 1, "-1")


# --- validation -------------------------------------------------------------------------------


def test_more_than_five_brackets_refused_R4(tmp_path: Path) -> None:
    six = ",\n".join(
        f'{{ from = "{lo}", fee = "{n}" }}' for n, lo in enumerate((5, 10, 20, 30, 40, 50))
    )
    path = write(tmp_path, toml_schedule(GOOD_BRACKETS) + "\n" + toml_schedule(six, option=2))
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    assert caught.value.problems == (
        f"{path}: schedule[1].brackets: 6 collection rates; at most 5 are allowed "
        "per table limit (R4)",
    )


def test_percentage_fee_refused_R4(tmp_path: Path) -> None:
    path = write(
        tmp_path, toml_schedule('{ from = "5", fee = "0.50" },\n{ from = "26", fee = "5%" },')
    )
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    (problem,) = caught.value.problems
    assert problem.startswith(f"{path}: schedule[0].brackets[1].fee: percentages are not allowed")


def test_percentage_player_fee_refused_R4(tmp_path: Path) -> None:
    path = write(tmp_path, toml_schedule(GOOD_BRACKETS, extra='player_fee = "1%"\n'))
    with pytest.raises(ScheduleError, match=r"schedule\[0\]\.player_fee: percentages are not"):
        load_schedules(path)


def test_descending_brackets_refused_R4(tmp_path: Path) -> None:
    brackets = (
        '{ from = "5", fee = "1" },\n{ from = "300", fee = "2" },\n{ from = "200", fee = "3" },'
    )
    path = write(tmp_path, toml_schedule(brackets))
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    assert caught.value.problems == (
        f"{path}: schedule[0].brackets[2].from: 200.00 is not above the previous bracket's "
        "300.00; brackets must be strictly ascending",
    )


def test_equal_bracket_bounds_refused_R4() -> None:
    with pytest.raises(ValidationError, match="strictly ascending"):
        CollectionSchedule(
            option=1,
            table_min=D("5"),
            table_max=D("500"),
            brackets=(
                Bracket(min_action=D("5"), fee=D("1")),
                Bracket(min_action=D("5"), fee=D("2")),
            ),
        )


def test_unknown_keys_refused_with_key_paths_R4(tmp_path: Path) -> None:
    brackets = '{ from = "5", fee = "1", upto = "25" },'
    text = toml_schedule(brackets, extra='rake = "5"\n').replace(
        'max = "500" }', 'max = "500", mid = "50" }'
    )
    path = write(tmp_path, "title = 'x'\n" + text)
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    assert sorted(caught.value.problems) == sorted(
        [
            f"{path}: title: unknown key; schedules are written as [[schedule]] tables",
            f"{path}: schedule[0].table_limit.mid: unknown key",
            f"{path}: schedule[0].rake: unknown key",
            f"{path}: schedule[0].brackets[0].upto: unknown key",
        ]
    )


def test_every_problem_is_reported_with_file_and_key_path_R4(tmp_path: Path) -> None:
    text = (
        toml_schedule(GOOD_BRACKETS, extra="player_fee = 0.5\n")
        + '\n[[schedule]]\noption = 1\ntable_limit = { min = "600", max = "500" }\n'
        + 'brackets = [ { from = "5", fee = "1" } ]\nplayer_fee_per = "hand"\n'
    )
    path = write(tmp_path, text)
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    problems = caught.value.problems
    assert len(problems) == 2, problems
    assert problems[0].startswith(f"{path}: schedule[0].player_fee: money must be a decimal string")
    assert problems[1].startswith(f"{path}: schedule[1].player_fee_per: ")
    assert str(caught.value) == "\n".join(problems)


def test_table_min_above_max_and_duplicate_option_refused_R4(tmp_path: Path) -> None:
    text = (
        toml_schedule(GOOD_BRACKETS)
        + "\n"
        + toml_schedule(GOOD_BRACKETS).replace('min = "5"', 'min = "600"')
        + "\n"
        + toml_schedule(GOOD_BRACKETS)
    )
    path = write(tmp_path, text)
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    assert caught.value.problems == (
        f"{path}: schedule[1].table_limit.max: table minimum 600.00 is above table maximum 500.00",
        f"{path}: schedule[2].option: option 1 is already defined by schedule[0]",
    )


def test_missing_table_limit_and_negative_fee_refused_R4(tmp_path: Path) -> None:
    text = '[[schedule]]\noption = 4\nbrackets = [ { from = "5", fee = "-1" } ]\n'
    path = write(tmp_path, text)
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    assert caught.value.problems == (
        f"{path}: schedule[0].table_limit: missing; write table_limit = "
        '{ min = "5", max = "500" }',
        f"{path}: schedule[0].brackets[0].fee: '-1' is negative",
    )


def test_unreadable_and_malformed_files_refused_R4(tmp_path: Path) -> None:
    with pytest.raises(ScheduleError, match="cannot read"):
        load_schedules(tmp_path / "absent.toml")
    with pytest.raises(ScheduleError, match="not valid TOML"):
        load_schedules(write(tmp_path, "[[schedule]\n"))
    with pytest.raises(ScheduleError, match=r"schedule: missing"):
        load_schedules(write(tmp_path, ""))
    with pytest.raises(ScheduleError, match=r"schedule: must be an array of tables"):
        load_schedules(write(tmp_path, "[schedule]\noption = 1\n"))


def test_table_limit_errors_reported_beside_layout_problems_R4(tmp_path: Path) -> None:
    text = toml_schedule(GOOD_BRACKETS).replace(
        'table_limit = { min = "5", max = "500" }', 'table_limit = { min = "5%", top = "500" }'
    )
    path = write(tmp_path, text)
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    problems = caught.value.problems
    assert problems[0] == f"{path}: schedule[0].table_limit.top: unknown key"
    assert problems[1].startswith(f"{path}: schedule[0].table_limit.min: percentages are not")
    assert problems[2] == f"{path}: schedule[0].table_limit.max: missing"
    assert len(problems) == 3, problems


# --- player fees and total action ------------------------------------------------------------


def made_up(per: str) -> CollectionSchedule:
    """A made-up schedule with a $1 flat player fee per wager or per player."""
    return CollectionSchedule.model_validate(
        {
            "option": 99,
            "table_min": "5",
            "table_max": "500",
            "brackets": [{"from": "5", "fee": "0.50"}],
            "player_fee": "1",
            "player_fee_per": per,
        }
    )


WAGERS = [
    (1, "ann", D("25")),
    (1, "ann", D("5")),  # ann's second wager (e.g. a Tie bet)
    (2, "bob", D("10")),
    (2, "cat", D("20")),  # cat backs bob's seat
    (3, "dan", D("0")),  # nothing wagered: no fee
    (4, "cat", D("5")),  # cat also plays seat 4
]


def test_player_fee_per_wager_R4() -> None:
    assert player_fees(made_up("wager"), WAGERS) == [
        (1, "ann", D("1")),
        (1, "ann", D("1")),
        (2, "bob", D("1")),
        (2, "cat", D("1")),
        (4, "cat", D("1")),
    ]


def test_player_fee_per_player_charged_once_at_first_seat_R4() -> None:
    assert player_fees(made_up("player"), WAGERS) == [
        (1, "ann", D("1")),
        (2, "bob", D("1")),
        (2, "cat", D("1")),
    ]


def test_total_table_action_sums_pre_deal_wagers_R4() -> None:
    assert total_table_action([amount for _, _, amount in WAGERS]) == D("65.00")
    assert total_table_action([]) == 0
    with pytest.raises(ValueError, match="negative"):
        total_table_action([D("5"), D("-1")])


# --- properties -------------------------------------------------------------------------------

ACTIONS = st.decimals(
    min_value=0, max_value=50_000, places=2, allow_nan=False, allow_infinity=False
)


@st.composite
def schedules(draw: st.DrawFn) -> CollectionSchedule:
    """Valid made-up schedules: 1-5 strictly ascending bounds, non-decreasing fees."""
    bounds = sorted(draw(st.sets(st.integers(1, 20_000), min_size=1, max_size=5)))
    fees = sorted(
        draw(st.lists(st.integers(0, 10_000), min_size=len(bounds), max_size=len(bounds)))
    )
    return CollectionSchedule(
        option=draw(st.integers(1, 99)),
        table_min=D("5"),
        table_max=D("500"),
        brackets=tuple(
            Bracket(min_action=Decimal(bound), fee=Decimal(cents) / 100)
            for bound, cents in zip(bounds, fees, strict=True)
        ),
    )


SHIPPED_SCHEDULES = load_schedules(SHIPPED)


@given(option=st.integers(1, 23), a=ACTIONS, b=ACTIONS)
def test_shipped_fee_monotone_and_one_of_the_schedule_fees_R4(
    option: int, a: Decimal, b: Decimal
) -> None:
    schedule = SHIPPED_SCHEDULES[option]
    low, high = sorted((a, b))
    fee_low, fee_high = player_dealer_fee(schedule, low), player_dealer_fee(schedule, high)
    assert fee_low <= fee_high
    allowed = {bracket.fee for bracket in schedule.brackets}
    for action, charged in ((low, fee_low), (high, fee_high)):
        assert charged in allowed if action > 0 else charged == 0


@given(schedule=schedules(), a=ACTIONS, b=ACTIONS)
def test_fee_monotone_and_one_of_the_schedule_fees_R4(
    schedule: CollectionSchedule, a: Decimal, b: Decimal
) -> None:
    low, high = sorted((a, b))
    fee_low, fee_high = player_dealer_fee(schedule, low), player_dealer_fee(schedule, high)
    assert fee_low <= fee_high
    allowed = {bracket.fee for bracket in schedule.brackets}
    for action, charged in ((low, fee_low), (high, fee_high)):
        assert charged in allowed if action > 0 else charged == 0


# --- player fees by wager size and by spot --------------------------------------------------------
# 003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13",
# "Fortune Pai Gow Poker: Collection Fees"


def ante_sized(**extra: object) -> CollectionSchedule:
    """003 Three Card Poker option 4 (lines 1035-1038): a player fee by the Ante's amount."""
    data: dict[str, object] = {
        "option": 4,
        "table_min": "3",
        "table_max": "1000",
        "brackets": [
            {"from": "3", "fee": "0.50"},
            {"from": "100", "fee": "1"},
            {"from": "301", "fee": "2"},
            {"from": "501", "fee": "3"},
        ],
        "player_fee_brackets": [
            {"from": "3", "fee": "0.50"},
            {"from": "100", "fee": "1"},
            {"from": "301", "fee": "2"},
            {"from": "501", "fee": "4"},
        ],
        "player_fee_spots": ["ante"],
    }
    data.update(extra)
    return CollectionSchedule.model_validate(data)


def test_player_fee_brackets_match_each_wager_by_amount_R4() -> None:
    # 003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13": Player Wager $3-$99 $0.50,
    # $100-$300 $1, $301-$500 $2, $501+ $4
    wagers = [
        (1, "ann", D("3")),
        (2, "bob", D("99")),
        (3, "cat", D("100")),
        (4, "dan", D("300")),
        (5, "eve", D("301")),
        (6, "fay", D("501")),
        (7, "gus", D("1000")),
    ]
    assert player_fees(ante_sized(), wagers) == [
        (1, "ann", D("0.50")),
        (2, "bob", D("0.50")),
        (3, "cat", D("1")),
        (4, "dan", D("1")),
        (5, "eve", D("2")),
        (6, "fay", D("4")),
        (7, "gus", D("4")),
    ]


def test_player_fee_brackets_between_below_and_zero_R4() -> None:
    schedule = ante_sized()
    # $99.50 falls between "$3-$99" and "$100-$300": the lower row, $0.50.
    assert player_fees(schedule, [(1, "ann", D("99.50"))]) == [(1, "ann", D("0.50"))]
    # $2 is below the first row's $3: the first row's fee, as for player-dealer brackets.
    assert player_fees(schedule, [(1, "ann", D("2"))]) == [(1, "ann", D("0.50"))]
    assert player_fees(schedule, [(1, "ann", D("0"))]) == []
    with pytest.raises(ValueError, match="negative"):
        player_fees(schedule, [(1, "ann", D("-1"))])


def test_player_fee_brackets_do_not_change_the_player_dealer_fee_R4() -> None:
    # 003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13": total action $501+ pays the
    # player-dealer $3 while a $501 Ante pays $4.
    assert player_dealer_fee(ante_sized(), D("501")) == D("3")


def test_player_fee_spots_named_R4() -> None:
    # 003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13": "based on each individual player's
    # ante"; no fee on Pair Plus or 6 Card Bonus.
    schedule = ante_sized()
    assert schedule.player_fee_applies("ante")
    assert not schedule.player_fee_applies("pair-plus")
    assert not schedule.player_fee_applies("six-card-bonus")
    spots = [("ante", 1, "ann", D("150")), ("pair-plus", 1, "ann", D("600"))]
    charged = [(s, p, a) for spot, s, p, a in spots if schedule.player_fee_applies(spot)]
    assert player_fees(schedule, charged) == [(1, "ann", D("1"))]


def test_player_fee_spots_empty_means_every_spot_R4() -> None:
    # 003 "Fortune Pai Gow Poker: Collection Fees" (Fortune Pai Gow options 33-36): "per spot,
    # including controlled game and bonus bet spots"; line 1726 (option 35): $10-$100 $1, $105-$200
    # $2, $205-$300 $3.
    schedule = CollectionSchedule.model_validate(
        {
            "option": 35,
            "table_min": "10",
            "table_max": "3000",
            "brackets": [{"from": "10", "fee": "1"}, {"from": "101", "fee": "2"}],
            "player_fee_brackets": [
                {"from": "10", "fee": "1"},
                {"from": "105", "fee": "2"},
                {"from": "205", "fee": "3"},
            ],
        }
    )
    assert schedule.player_fee_spots == ()
    for spot in ("base", "fortune", "envy"):
        assert schedule.player_fee_applies(spot)
    wagers = [(1, "ann", D("100")), (1, "ann", D("205")), (2, "bob", D("150"))]
    assert player_fees(schedule, wagers) == [
        (1, "ann", D("1")),
        (1, "ann", D("3")),
        (2, "bob", D("2")),
    ]


def test_flat_player_fee_on_named_spots_R4() -> None:
    # 003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13": option 2's $1.00 player fee "taken
    # per hand" on the base wager.
    schedule = made_up("wager").model_copy(update={"player_fee_spots": ("ante",)})
    assert schedule.player_fee_applies("ante")
    assert not schedule.player_fee_applies("pair-plus")
    assert player_fees(schedule, [(1, "ann", D("700"))]) == [(1, "ann", D("1"))]


def test_schedules_without_the_new_keys_are_unchanged_R4(
    shipped: dict[int, CollectionSchedule],
) -> None:
    for schedule in shipped.values():
        assert schedule.player_fee_brackets == ()
        assert schedule.player_fee_spots == ()
        for spot in ("player", "banker", "tie", "dragon7", "panda8"):
            assert schedule.player_fee_applies(spot)


def test_player_fee_brackets_loaded_from_toml_R4(tmp_path: Path) -> None:
    extra = (
        'player_fee_spots = ["ante"]\n'
        'player_fee_brackets = [ { from = "3", fee = "0.50" }, { from = "100", fee = "1" } ]\n'
    )
    schedule = load_schedules(write(tmp_path, toml_schedule(GOOD_BRACKETS, extra=extra)))[1]
    assert schedule.player_fee_spots == ("ante",)
    assert [(b.min_action, b.fee) for b in schedule.player_fee_brackets] == [
        (D("3"), D("0.50")),
        (D("100"), D("1")),
    ]


def test_more_than_five_player_fee_brackets_refused_R4(tmp_path: Path) -> None:
    six = ", ".join(f'{{ from = "{lo}", fee = "1" }}' for lo in (5, 10, 20, 30, 40, 50))
    path = write(tmp_path, toml_schedule(GOOD_BRACKETS, extra=f"player_fee_brackets = [{six}]\n"))
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    assert caught.value.problems == (
        f"{path}: schedule[0].player_fee_brackets: 6 collection rates; at most 5 are allowed "
        "per table limit (R4)",
    )


def test_bad_player_fee_brackets_refused_with_key_paths_R4(tmp_path: Path) -> None:
    extra = (
        'player_fee_brackets = [ { from = "100", fee = "1" }, { from = "50", fee = "2" } ]\n'
        'player_fee_spots = ["ante", "ante"]\n'
    )
    text = toml_schedule(GOOD_BRACKETS, extra=extra) + toml_schedule(
        GOOD_BRACKETS,
        extra='player_fee_brackets = [ { from = "5", fee = "2%" } ]\nplayer_fee_spots = [""]\n',
        option=2,
    )
    path = write(tmp_path, text)
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    problems = caught.value.problems
    assert problems[0] == (
        f"{path}: schedule[0].player_fee_brackets[1].from: 50.00 is not above the previous "
        "bracket's 100.00; brackets must be strictly ascending"
    )
    assert problems[1] == f"{path}: schedule[0].player_fee_spots[1]: spot 'ante' is listed twice"
    assert problems[2].startswith(
        f"{path}: schedule[1].player_fee_brackets[0].fee: percentages are not allowed"
    )
    assert problems[3] == f"{path}: schedule[1].player_fee_spots[0]: a spot name may not be empty"
    assert len(problems) == 4, problems


def test_flat_fee_beside_player_fee_brackets_refused_R4(tmp_path: Path) -> None:
    brackets = 'player_fee_brackets = [ { from = "5", fee = "1" } ]\n'
    text = toml_schedule(GOOD_BRACKETS, extra=brackets + 'player_fee = "1"\n') + toml_schedule(
        GOOD_BRACKETS, extra=brackets + 'player_fee_per = "player"\n', option=2
    )
    path = write(tmp_path, text)
    with pytest.raises(ScheduleError) as caught:
        load_schedules(path)
    problems = caught.value.problems
    assert problems[0].startswith(
        f"{path}: schedule[0].player_fee: player_fee 1.00 and player_fee_brackets are both given"
    )
    assert problems[1].startswith(
        f"{path}: schedule[1].player_fee_per: player_fee_brackets are matched against each "
        "wager's amount"
    )
    assert len(problems) == 2, problems


@st.composite
def wager_sized(draw: st.DrawFn) -> CollectionSchedule:
    """Valid made-up schedules with 1-5 player-fee brackets, non-decreasing fees."""
    bounds = sorted(draw(st.sets(st.integers(1, 2_000), min_size=1, max_size=5)))
    fees = sorted(draw(st.lists(st.integers(0, 1_000), min_size=len(bounds), max_size=len(bounds))))
    return CollectionSchedule(
        option=1,
        table_min=D("5"),
        table_max=D("500"),
        brackets=(Bracket(min_action=D("5"), fee=D("1")),),
        player_fee_brackets=tuple(
            Bracket(min_action=Decimal(bound), fee=Decimal(cents) / 100)
            for bound, cents in zip(bounds, fees, strict=True)
        ),
    )


@given(schedule=wager_sized(), a=ACTIONS, b=ACTIONS)
def test_player_fee_by_wager_monotone_and_one_of_the_rates_R4(
    schedule: CollectionSchedule, a: Decimal, b: Decimal
) -> None:
    low, high = sorted((a, b))

    def charged(amount: Decimal) -> Decimal:
        rows = player_fees(schedule, [(1, "ann", amount)])
        return rows[0][2] if rows else D("0")

    assert charged(low) <= charged(high)
    rates = {bracket.fee for bracket in schedule.player_fee_brackets}
    for amount in (low, high):
        assert charged(amount) in rates | {D("0")}
        if amount == 0:
            assert charged(amount) == 0
