"""Poker collections as posted (R44), worked by hand from the documents' schedules.

003 "Crazy Pineapple High-Low Split: Collection Fee Schedule" (options 1-3 and 5-6 per hand after
the flop with a $1 modified fee, option 4 per half hour per seated player), 004 "Texas Hold'em:
Collection Fee Schedule" and 004 "Omaha High/Low Split: Collection Fee Schedule" (per hand after the
flop, no modified fee). Each expected fee below was read from the document's table, quoted in the
comment, never from the shipped data or the code.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.rules.fees import ScheduleError
from tablectl.rules.poker_fees import (
    POSTED,
    PokerSchedule,
    hand_fee,
    parse_poker_schedules,
    posted_file,
    table_schedule,
    time_fee,
    time_rate,
)

SCHEDULES = Path(__file__).resolve().parents[3] / "config" / "schedules"
POKER_FILES = sorted((SCHEDULES / "poker").glob("*.toml"))


def D(text: str) -> Decimal:
    """Shorthand for an exact decimal amount."""
    return Decimal(text)


@cache
def posted(document: str, game: str) -> dict[int, PokerSchedule]:
    """The shipped schedules a document posts for a game, parsed once per run."""
    name = posted_file(document, game)
    assert name is not None
    return parse_poker_schedules((SCHEDULES / name).read_text(encoding="utf-8"), name)


def table(document: str, game: str, options: list[int], seats: int = 9) -> PokerSchedule:
    """The schedule a table of `seats` seats charges by, from the posted options it names."""
    return table_schedule(document, game, seats, posted=posted(document, game), options=options)


def pineapple(option: int) -> PokerSchedule:
    """003 Crazy Pineapple's option at a ten-seat table ("up to ten seated positions")."""
    return table("003", "crazy-pineapple-hi-lo", [option], seats=10)


def inline(**changes: Any) -> dict[str, Any]:
    """An inline schedule, as the table's config would decode it, with some keys changed."""
    entry: dict[str, Any] = {
        "option": 1,
        "per": "hand",
        "modified_fee": "1",
        "rates": [
            {"from": 2, "to": 4, "fee": "1"},
            {"from": 5, "to": 6, "fee": "2"},
            {"from": 7, "to": 10, "fee": "3"},
        ],
    }
    entry.update(changes)
    return {key: value for key, value in entry.items() if value is not None}


def holdem_003(entry: dict[str, Any], seats: int = 10) -> PokerSchedule:
    """003 Texas Hold'em, which takes its schedule from the table's config (R44)."""
    return table_schedule("003", "texas-holdem", seats, posted=None, inline=entry)


def refused(call: Any) -> str:
    """The text of the ScheduleError a call raises."""
    with pytest.raises(ScheduleError) as err:
        call()
    return str(err.value)


# --- a fee by the players dealt in, after the flop ----------------------------------------------

# 003 "Crazy Pineapple High-Low Split: Collection Fee Schedule", "Collection Fees after the Flop":
#   option 1: "2-4 $1", "5-6 $2", "7-10 $3"    option 2: "2-4 $2", "5-6 $3", "7-10 $4"
#   option 3: "2-4 $2", "5-6 $3", "7-10 $5"    option 5 and 6: "4 or less $2", "5-6 $3", "7-10 $4"
PINEAPPLE_AFTER_THE_FLOP = [
    (1, 2, "1"),
    (1, 4, "1"),
    (1, 5, "2"),
    (1, 6, "2"),
    (1, 7, "3"),
    (1, 10, "3"),
    (2, 2, "2"),
    (2, 4, "2"),
    (2, 5, "3"),
    (2, 6, "3"),
    (2, 7, "4"),
    (2, 10, "4"),
    (3, 3, "2"),
    (3, 6, "3"),
    (3, 8, "5"),
    (3, 10, "5"),
    (5, 2, "2"),
    (5, 4, "2"),
    (5, 5, "3"),
    (5, 9, "4"),
    (6, 3, "2"),
    (6, 6, "3"),
    (6, 7, "4"),
]


@pytest.mark.parametrize(("option", "dealt_in", "fee"), PINEAPPLE_AFTER_THE_FLOP)
def test_fee_by_players_dealt_in_after_the_flop_003_crazy_pineapple_R44(
    option: int, dealt_in: int, fee: str
) -> None:
    assert hand_fee(pineapple(option), dealt_in, reached_flop=True) == D(fee)


def test_six_dealt_in_under_option_2_pay_3_the_example_of_R44() -> None:
    # R44's example, from 003 option 2: "5-6 $3" after the flop, "$1" Modified Fee before it.
    assert hand_fee(pineapple(2), 6, reached_flop=True) == D("3")
    assert hand_fee(pineapple(2), 6, reached_flop=False) == D("1")


def test_the_count_is_the_players_dealt_in_not_those_left_at_the_flop_R44() -> None:
    # Seven dealt in under 003 option 2, five fold before the flop, two see it: the fee is the
    # "7-10 $4" row's, not the "2-4 $2" row's.
    assert hand_fee(pineapple(2), 7, reached_flop=True) == D("4")
    assert hand_fee(pineapple(2), 7, reached_flop=True) != hand_fee(pineapple(2), 2, True)


# 004 "Texas Hold'em: Collection Fee Schedule" ("Schedule Option | Table Limit | Number of Players |
# Player Fee"); the two options of one table limit read together:
#   $4 - $8: "1 | 6-9 | $4", "2 | 5 or less | $3"      $3 - $6: "3 | 6-9 | $4", "4 | 5 or less | $3"
#   $2 - $4: "5 | 6-9 | $4", "6 | 5 or less | $3"
#   $4 - $200: "7 | 7-9 | $5", "8 | 6 or Less | $4"    $3 - $200: "9 | Any | $4"
#   $3 - $100: "10 | 7-9 | $4", "11 | 6 or less | $3"   $2 - $10: "12 | Any | $4"
#   $1 - $4: "13 | 7 - 9 | $4", "14 | 6 or less | $3"
HOLDEM_004 = [
    ([1, 2], 2, "3"),
    ([1, 2], 5, "3"),
    ([1, 2], 6, "4"),
    ([1, 2], 9, "4"),
    ([3, 4], 4, "3"),
    ([3, 4], 7, "4"),
    ([5, 6], 5, "3"),
    ([5, 6], 6, "4"),
    ([7, 8], 6, "4"),
    ([7, 8], 7, "5"),
    ([7, 8], 9, "5"),
    ([9], 2, "4"),
    ([9], 9, "4"),
    ([10, 11], 6, "3"),
    ([10, 11], 7, "4"),
    ([12], 3, "4"),
    ([13, 14], 2, "3"),
    ([13, 14], 6, "3"),
    ([13, 14], 8, "4"),
]


@pytest.mark.parametrize(("options", "dealt_in", "fee"), HOLDEM_004)
def test_fee_by_players_dealt_in_after_the_flop_004_texas_holdem_R44(
    options: list[int], dealt_in: int, fee: str
) -> None:
    assert hand_fee(table("004", "texas-holdem", options), dealt_in, reached_flop=True) == D(fee)


# 004 "Omaha High/Low Split: Collection Fee Schedule":
#   $4 - $8: "1 | 5-8 | $5", "2 | 4 or less | $4"      $3 - $6: "3 | 5-8 | $4", "4 | 4 or less | $3"
#   $2 - $4: "5 | 5 - 8 | $4", "6 | 4 or less | $3"
OMAHA_004 = [
    ([1, 2], 2, "4"),
    ([1, 2], 4, "4"),
    ([1, 2], 5, "5"),
    ([1, 2], 8, "5"),
    ([3, 4], 3, "3"),
    ([3, 4], 6, "4"),
    ([5, 6], 4, "3"),
    ([5, 6], 5, "4"),
]


@pytest.mark.parametrize(("options", "dealt_in", "fee"), OMAHA_004)
def test_fee_by_players_dealt_in_after_the_flop_004_omaha_hi_lo_R44(
    options: list[int], dealt_in: int, fee: str
) -> None:
    schedule = table("004", "omaha-hi-lo", options, seats=8)
    assert hand_fee(schedule, dealt_in, reached_flop=True) == D(fee)


# --- a hand that ends before the flop -----------------------------------------------------------


@pytest.mark.parametrize("option", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("dealt_in", [2, 5, 10])
def test_a_hand_ending_before_the_flop_pays_the_1_modified_fee_003_crazy_pineapple_R44(
    option: int, dealt_in: int
) -> None:
    # 003: "If the hand does not reach the flop a $1 collection, referred to as the Modified fee,
    # will be taken from the pot", whatever the number of players ("Modified Fee $1").
    assert hand_fee(pineapple(option), dealt_in, reached_flop=False) == D("1")


@pytest.mark.parametrize(
    ("game", "options", "dealt_in", "seats"),
    [
        ("texas-holdem", [1, 2], 9, 9),
        ("texas-holdem", [9], 3, 9),
        ("texas-holdem", [13, 14], 7, 9),
        ("omaha-hi-lo", [1, 2], 6, 8),
        ("omaha-hi-lo", [5, 6], 2, 8),
    ],
)
def test_a_hand_ending_before_the_flop_pays_nothing_004_R44(
    game: str, options: list[int], dealt_in: int, seats: int
) -> None:
    # 004 prints no modified fee: its fee is taken "from the pot after the flop" only.
    schedule = table("004", game, options, seats)
    assert schedule.modified_fee is None
    assert hand_fee(schedule, dealt_in, reached_flop=False) == D("0")


# --- time collection ----------------------------------------------------------------------------

# 003 Crazy Pineapple option 4, "Time Collection Per 1/2 Hour": "2-4 $6", "5-6 $8", "7-10 $10".
TIME_COLLECTION = [
    # seated, half hours, the table's total: each seated player pays the rate for the number seated
    (2, 1, "12"),  # 2 x $6
    (4, 2, "48"),  # 4 x $6 x 2
    (5, 1, "40"),  # 5 x $8
    (6, 1, "48"),  # 6 x $8: R44's example, "each pays $8 every half hour"
    (6, 3, "144"),  # 6 x $8 x 3
    (7, 4, "280"),  # 7 x $10 x 4
    (10, 2, "200"),  # 10 x $10 x 2
    (8, 0, "0"),  # no half hour completed, nothing yet
]


@pytest.mark.parametrize(("seated", "half_hours", "total"), TIME_COLLECTION)
def test_time_collection_for_seated_players_over_half_hours_003_option_4_R44(
    seated: int, half_hours: int, total: str
) -> None:
    assert time_fee(pineapple(4), seated, half_hours) == D(total)


@pytest.mark.parametrize(("seated", "each"), [(3, "6"), (6, "8"), (9, "10")])
def test_each_seated_player_pays_the_rate_for_the_number_seated_003_option_4_R44(
    seated: int, each: str
) -> None:
    assert time_rate(pineapple(4), seated) == D(each)


def test_a_time_collection_takes_nothing_from_a_pot_003_option_4_R44() -> None:
    # "each player shall pay a collection fee every thirty minutes": outside any pot (R44), so a
    # hand pays nothing from its pot, before or after the flop.
    assert hand_fee(pineapple(4), 6, reached_flop=True) == D("0")
    assert hand_fee(pineapple(4), 6, reached_flop=False) == D("0")


def test_a_per_hand_schedule_has_no_time_collection_R44() -> None:
    assert time_fee(pineapple(2), 6, 3) == D("0")
    assert time_fee(table("004", "texas-holdem", [1, 2]), 9, 2) == D("0")


def test_a_negative_count_of_half_hours_is_refused_R44() -> None:
    with pytest.raises(ValueError, match="half hours"):
        time_fee(pineapple(4), 6, -1)


# --- refusals -----------------------------------------------------------------------------------


def test_a_percentage_of_the_pot_is_refused_R44() -> None:
    # "Rates may not be calculated as a fraction or percentage of wagers made or winnings earned"
    # (003 "Collection Rates for Poker Games"; 004 "Collection Procedures").
    rates = [{"from": 2, "fee": "10%"}]
    text = refused(lambda: holdem_003(inline(rates=rates)))
    assert "collection.schedule.rates[0].fee: percentages are not allowed ('10%')" in text
    text = refused(lambda: holdem_003(inline(modified_fee="5%")))
    assert "collection.schedule.modified_fee: percentages are not allowed ('5%')" in text


def test_a_share_of_the_pot_written_any_other_way_is_refused_R44() -> None:
    assert "unknown key" in refused(lambda: holdem_003(inline(rake="10%")))
    rates = [{"from": 2, "fee": 0.05}]  # a fraction, as a float
    assert "rates[0].fee: money must be a decimal string" in refused(
        lambda: holdem_003(inline(rates=rates))
    )
    assert "collection.schedule.per: " in refused(lambda: holdem_003(inline(per="pot")))


def test_six_rates_are_refused_R44() -> None:
    six = [{"from": n, "to": n, "fee": str(n)} for n in range(2, 7)] + [{"from": 7, "fee": "7"}]
    text = refused(lambda: holdem_003(inline(rates=six)))
    assert "collection.schedule.rates: 6 collection rates; at most 5 are allowed" in text


def test_five_rates_are_allowed_R44() -> None:
    five = [{"from": n, "to": n, "fee": str(n)} for n in range(2, 6)] + [{"from": 6, "fee": "6"}]
    schedule = holdem_003(inline(rates=five))
    assert [hand_fee(schedule, n, True) for n in (2, 5, 6, 10)] == [D(x) for x in "2566"]


def test_options_read_together_still_have_at_most_five_rates_R44() -> None:
    # Two options of one table limit with three rates each: six rates for one table limit.
    text = """
[[schedule]]
option = 1
per = "hand"
rates = [
  { from = 2, to = 2, fee = "1" }, { from = 3, to = 3, fee = "2" }, { from = 4, to = 4, fee = "3" }
]
[[schedule]]
option = 2
per = "hand"
rates = [
  { from = 5, to = 5, fee = "4" }, { from = 6, to = 6, fee = "5" }, { from = 7, to = 9, fee = "6" }
]
"""
    schedules = parse_poker_schedules(text, "two.toml")  # stands in for 004's posted file
    with pytest.raises(ScheduleError, match="options 1 and 2 read together: 6 collection rates"):
        table_schedule("004", "texas-holdem", 9, posted=schedules, options=[1, 2])


@pytest.mark.parametrize(
    ("document", "game", "options", "seats", "stop"),
    [
        ("004", "texas-holdem", [1, 2], 10, "options 1 and 2's rates stop at 9 players"),
        ("004", "texas-holdem", [7, 8], 10, "options 7 and 8's rates stop at 9 players"),
        ("004", "omaha-hi-lo", [1, 2], 9, "options 1 and 2's rates stop at 8 players"),
        ("003", "crazy-pineapple-hi-lo", [2], 11, "option 2's rates stop at 10 players"),
    ],
)
def test_a_table_with_more_seats_than_the_schedule_covers_is_a_config_problem_R44(
    document: str, game: str, options: list[int], seats: int, stop: str
) -> None:
    # 004's tables seat "up to ten" but its Hold'em rates end at "6-9"/"7-9", its Omaha at "5-8";
    # 003 Crazy Pineapple's at "7-10".
    text = refused(lambda: table(document, game, options, seats))
    assert f"seats.count: {seats} seats, but {stop}" in text
    assert "config problem" in text


def test_the_same_table_with_seats_the_schedule_covers_is_accepted_R44() -> None:
    assert table("004", "texas-holdem", [1, 2], seats=9).options == (1, 2)
    assert table("004", "texas-holdem", [9], seats=10).options == (9,)  # "Any"
    assert table("004", "omaha-hi-lo", [1, 2], seats=8).options == (1, 2)


def test_an_option_covering_only_the_larger_tables_needs_its_partner_004_R44() -> None:
    # 004 option 1 alone ("$4 - $8 | 6-9 | $4") has no fee for five players or fewer: option 2
    # ("$4 - $8 | 5 or less | $3") of the same table limit covers them.
    text = refused(lambda: table("004", "texas-holdem", [1]))
    assert "collection.options: option 1 has no rate for 2-5 players" in text


def test_options_of_different_table_limits_are_not_read_together_004_R44() -> None:
    # option 1 is "$4 - $8", option 4 "$3 - $6".
    text = refused(lambda: table("004", "texas-holdem", [1, 4]))
    assert "option 1 and option 4 are not one schedule" in text
    assert "table limit $4.00-$8.00 and table limit $3.00-$6.00" in text


def test_a_time_collection_and_a_per_hand_fee_are_not_read_together_003_R44() -> None:
    text = refused(lambda: table("003", "crazy-pineapple-hi-lo", [3, 4], seats=10))
    assert "per hand and per half-hour" in text
    assert "a modified fee of $1.00 and no modified fee" in text


def test_options_covering_the_same_players_are_not_read_together_R44() -> None:
    # Two options of one kind and modified fee that both post "2-4": two fees for one count.
    text = """
[[schedule]]
option = 1
per = "hand"
modified_fee = "1"
rates = [{ from = 2, to = 4, fee = "1" }, { from = 5, to = 10, fee = "2" }]
[[schedule]]
option = 2
per = "hand"
modified_fee = "1"
rates = [{ from = 2, to = 4, fee = "2" }]
"""
    schedules = parse_poker_schedules(text, "overlap.toml")
    with pytest.raises(ScheduleError, match="options 1 and 2 read together: the rate for 2-4 "):
        table_schedule("003", "crazy-pineapple-hi-lo", 10, posted=schedules, options=[1, 2])


@pytest.mark.parametrize(
    ("rates", "reason"),
    [
        ([{"from": 2, "to": 4, "fee": "1"}, {"from": 4, "fee": "2"}], "overlaps the rate for 2-4"),
        ([{"from": 2, "to": 4, "fee": "1"}, {"from": 6, "fee": "2"}], "no rate for 5 players"),
        ([{"from": 2, "fee": "1"}, {"from": 5, "fee": "2"}], "covers every larger count"),
        ([{"from": 2, "to": 1, "fee": "1"}], "1 is too few"),
        ([{"from": 5, "to": 4, "fee": "1"}], "from 5 is above to 4 players"),
        ([{"from": 1, "to": 4, "fee": "1"}], "1 is too few: a hand is dealt to 2 players"),
        ([{"from": "2", "fee": "1"}], "a number of players is a whole number like 4"),
        ([], "no rates"),
    ],
)
def test_every_player_count_has_exactly_one_rate_R44(rates: list[Any], reason: str) -> None:
    assert reason in refused(lambda: holdem_003(inline(rates=rates)))


def test_a_time_collection_has_no_modified_fee_R44() -> None:
    text = refused(lambda: holdem_003(inline(per="half-hour")))
    assert "collection.schedule.modified_fee: a time collection (per half hour)" in text


def test_a_count_no_rate_covers_is_refused_by_the_fee_R44() -> None:
    with pytest.raises(ValueError, match="option 2 has no rate for 11 players; its rates cover"):
        hand_fee(pineapple(2), 11, reached_flop=True)
    with pytest.raises(ValueError, match="1 players: no rate begins below 2"):
        hand_fee(pineapple(2), 1, reached_flop=False)
    with pytest.raises(ValueError, match="1 players: no rate begins below 2"):
        time_fee(pineapple(4), 1, 1)


# --- where no document posts a schedule ---------------------------------------------------------


@pytest.mark.parametrize("game", ["texas-holdem", "omaha", "omaha-hi-lo", "seven-card-stud"])
def test_a_game_with_no_posted_schedule_needs_one_in_the_tables_config_003_R44(game: str) -> None:
    assert posted_file("003", game) is None
    text = refused(lambda: table_schedule("003", game, 9, posted=None))
    assert text == (
        f"collection.schedule: missing; document 003 posts no collection schedule for {game}, "
        "so the table's config must supply one, written inline as [game.collection.schedule] with "
        "option, per and rates (R44)"
    )


def test_an_inline_schedule_is_charged_like_a_posted_one_003_R44() -> None:
    # The card room's own schedule for 003 Hold'em, written like 003 Crazy Pineapple option 1.
    schedule = holdem_003(inline())
    assert hand_fee(schedule, 6, reached_flop=True) == D("2")
    assert hand_fee(schedule, 6, reached_flop=False) == D("1")
    assert "seats.count: 11 seats" in refused(lambda: holdem_003(inline(), seats=11))


def test_an_inline_schedule_is_refused_where_the_document_posts_one_R44() -> None:
    text = refused(
        lambda: table_schedule(
            "004", "texas-holdem", 9, posted=posted("004", "texas-holdem"), inline=inline()
        )
    )
    assert "collection.schedule: document 004 posts texas-holdem's schedules" in text


def test_options_are_named_from_the_posted_ones_R44() -> None:
    assert "collection.options: missing" in refused(lambda: table("004", "texas-holdem", []))
    assert "collection.options: no option 15; the posted ones are [1, 2," in refused(
        lambda: table("004", "texas-holdem", [15])
    )
    text = refused(lambda: table_schedule("003", "omaha", 9, posted=None, options=[2]))
    assert "has no posted schedule to pick options from" in text


def test_the_posted_file_must_match_the_document_and_game_R44() -> None:
    with pytest.raises(ValueError, match=r"pass the parsed poker/texas-holdem-004\.toml"):
        table_schedule("004", "texas-holdem", 9, posted=None, options=[9])
    with pytest.raises(ValueError, match="no document posts this schedule"):
        table_schedule("003", "texas-holdem", 9, posted=posted("004", "texas-holdem"))


# --- the shipped files --------------------------------------------------------------------------


def test_every_posted_file_is_shipped_and_every_shipped_file_is_posted_R44() -> None:
    assert {SCHEDULES / name for name in POSTED.values()} == set(POKER_FILES)


@pytest.mark.parametrize("path", POKER_FILES, ids=[path.stem for path in POKER_FILES])
def test_every_row_quotes_the_document_and_no_line_number_R44(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and "(R44)" in lines[0]
    for number, text in enumerate(lines, start=1):
        assert not re.search(r"\blines? \d", text), f"{path.name}:{number}: cites a line"
        if text.lstrip().startswith(("{ from", "rates = [{", "modified_fee", "table_limits")):
            assert '# "' in text, f"{path.name}:{number}: quotes no cell: {text}"


def test_the_shipped_options_are_the_documents_R44() -> None:
    # 003 Crazy Pineapple: options 1-6, option 4 the only time collection; 004 Hold'em 1-14
    # ("Limit" 1-6, "Spread Limit" 7-14), Omaha High/Low Split 1-6.
    cp = posted("003", "crazy-pineapple-hi-lo")
    assert sorted(cp) == [1, 2, 3, 4, 5, 6]
    assert [cp[n].per for n in sorted(cp)] == ["hand"] * 3 + ["half-hour"] + ["hand"] * 2
    assert sorted(posted("004", "texas-holdem")) == list(range(1, 15))
    assert sorted(posted("004", "omaha-hi-lo")) == list(range(1, 7))
    # "For 2-4 and 2-8 Limit Games"; 004 option 7 "$4 - $200".
    assert [limit.text for limit in cp[5].table_limits] == ["$2.00-$4.00", "$2.00-$8.00"]
    assert posted("004", "texas-holdem")[7].table_limits[0].text == "$4.00-$200.00"


def test_a_schedule_file_names_every_fault_R44() -> None:
    text = """
extra = 1
[[schedule]]
option = 1
per = "hand"
rake = "10%"
rates = [{ from = 2, fee = "1" }]
[[schedule]]
option = 1
per = "hand"
rates = [{ from = 2, fee = "1" }]
[[schedule]]
option = [1, 2]
per = "hand"
rates = [{ from = 2, fee = "1" }]
"""
    with pytest.raises(ScheduleError) as err:
        parse_poker_schedules(text, "bad.toml")
    assert err.value.problems == (
        "bad.toml: extra: unknown key; schedules are written as [[schedule]] tables",
        "bad.toml: schedule[0].rake: unknown key",
        "bad.toml: schedule[2].option: an option is a whole number from 1, like option = 2, "
        "not [1, 2]",
    )
    with pytest.raises(ScheduleError, match="option 1 is given twice"):
        parse_poker_schedules(text.replace('rake = "10%"\n', ""), "bad.toml")
    with pytest.raises(ScheduleError, match=r"bad\.toml: not valid TOML"):
        parse_poker_schedules("[[schedule", "bad.toml")


# --- properties ---------------------------------------------------------------------------------


@st.composite
def schedules(draw: st.DrawFn) -> tuple[dict[str, Any], dict[int, Decimal], int]:
    """A valid inline per-hand schedule, its fee for each count (the reference), and its top."""
    cuts = sorted(draw(st.sets(st.integers(3, 10), max_size=4)))
    fees = draw(st.lists(st.integers(0, 2000), min_size=len(cuts) + 1, max_size=len(cuts) + 1))
    open_ended = draw(st.booleans())
    top = 10
    starts = [2, *cuts]
    rates: list[dict[str, Any]] = []
    reference: dict[int, Decimal] = {}
    for i, start in enumerate(starts):
        end = starts[i + 1] - 1 if i + 1 < len(starts) else top
        rate: dict[str, Any] = {"from": start, "fee": f"{fees[i] / 100:.2f}"}
        if i + 1 < len(starts) or not open_ended:
            rate["to"] = end
        rates.append(rate)
        for count in range(start, end + 1):
            reference[count] = Decimal(fees[i]) / 100
    return inline(rates=rates), reference, top


@settings(max_examples=60, deadline=None)
@given(picked=schedules(), dealt_in=st.integers(2, 10), modified=st.integers(0, 300))
def test_the_fee_is_the_rate_covering_the_count_and_never_negative_R44(
    picked: tuple[dict[str, Any], dict[int, Decimal], int], dealt_in: int, modified: int
) -> None:
    entry, reference, top = picked
    entry["modified_fee"] = f"{modified / 100:.2f}"
    schedule = holdem_003(entry, seats=top)
    after = hand_fee(schedule, dealt_in, reached_flop=True)
    before = hand_fee(schedule, dealt_in, reached_flop=False)
    assert after == reference[dealt_in] >= 0
    assert before == Decimal(modified) / 100 >= 0


@settings(max_examples=60, deadline=None)
@given(
    picked=schedules(),
    seated=st.integers(2, 10),
    first=st.integers(0, 20),
    then=st.integers(0, 20),
)
def test_time_collection_adds_up_half_hour_by_half_hour_R44(
    picked: tuple[dict[str, Any], dict[int, Decimal], int], seated: int, first: int, then: int
) -> None:
    entry, reference, top = picked
    entry.pop("modified_fee")
    schedule = holdem_003({**entry, "per": "half-hour"}, seats=top)
    total = time_fee(schedule, seated, first + then)
    assert total == time_fee(schedule, seated, first) + time_fee(schedule, seated, then)
    assert total == reference[seated] * seated * (first + then) >= 0
    assert hand_fee(schedule, seated, reached_flop=True) == 0
