"""Configuring a poker table (R41, R43, R44): the shipped flop-game configs pass `tablectl
check-config` (contract 4) and charge what their documents post; every refusal names its key and
says why; a poker table's `Rules` survive the journal's JSON.

Every expected fee, table limit and option number below is read from the documents, never from the
code's output:

* 004 "Texas Hold'em: Collection Fee Schedule": Limit options 1 "$4 - $8 | 6-9 | $4", 2 "$4 - $8 |
  5 or less | $3", 3 "$3 - $6 | 6-9 | $4", 4 "$3 - $6 | 5 or less | $3" ...; Spread Limit options
  7 "$4 - $200 | 7-9 | $5", 8 "$4 - $200 | 6 or Less | $4", 9 "$3 - $200 | Any | $4" ... 14. No
  modified fee (R44: nothing before the flop).
* 004 "Omaha High/Low Split: Collection Fee Schedule": options 1 "$4 - $8 | 5-8 | $5", 2 "$4 - $8 |
  4 or less | $4" ... 6.
* 003 "Crazy Pineapple High-Low Split: Collection Fee Schedule": option 2 "2-4 $2, 5-6 $3, 7-10 $4",
  modified fee $1; option 4 a time collection per half hour; option 6 "For 3-6 and 6-12 Limit
  Games".
* 003 and 004 post no other flop-game schedule the code reads (R44): 003's Hold'em and Omaha tables
  give theirs inline (the shipped ones copy 003 "Poker Games Collection Rates", "Limit Games"
  options 1-3, an open question of R44).
* 003 "Collection Rates for Poker Games": "Rates may not be calculated as a fraction or percentage
  ... no more than five collection rates may be established per table limit" (R4, R44).
"""

from __future__ import annotations

import copy
import json
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, LoadedConfig, load_config, parse_config
from tablectl.games.poker.spec import settings_of
from tablectl.games.registry import spec_of
from tablectl.games.table_rules import Rules
from tablectl.rules.poker_fees import PokerSchedule, hand_fee, time_fee
from tests.helpers import as_plugged_in

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "config"

# name: (game id, site/table, seats, the collection check-config names)
SHIPPED: dict[str, tuple[str, str, int, str]] = {
    "texas-holdem-003.toml": ("texas-holdem", "cardroom-1/holdem-03", 10, "option 1"),
    "texas-holdem-004.toml": ("texas-holdem", "cardroom-1/holdem-04", 9, "options 1 and 2"),
    "omaha-003.toml": ("omaha", "cardroom-1/omaha-03", 10, "option 2"),
    "omaha-hi-lo-003.toml": ("omaha-hi-lo", "cardroom-1/omaha8-03", 10, "option 3"),
    "omaha-hi-lo-004.toml": ("omaha-hi-lo", "cardroom-1/omaha8-04", 8, "options 1 and 2"),
    "crazy-pineapple-hi-lo-003.toml": (
        "crazy-pineapple-hi-lo",
        "cardroom-1/pineapple-03",
        10,
        "option 2",
    ),
    "seven-card-stud-003.toml": ("seven-card-stud", "cardroom-1/stud-01", 7, "option 1"),
    "seven-card-stud-hi-lo-003.toml": (
        "seven-card-stud-hi-lo",
        "cardroom-1/stud8-01",
        7,
        "option 1",
    ),
    "razz-003.toml": ("razz", "cardroom-1/razz-01", 7, "option 1"),
    "five-card-stud-003.toml": ("five-card-stud", "cardroom-1/stud5-01", 10, "option 1"),
    "option-alley-003.toml": ("option-alley", "cardroom-1/alley-01", 8, "option 1"),
    "five-card-draw-003.toml": ("five-card-draw", "cardroom-1/draw-01", 8, "option 1"),
    "five-card-draw-hi-lo-003.toml": (
        "five-card-draw-hi-lo",
        "cardroom-1/draw8-01",
        8,
        "option 1",
    ),
    "lowball-003.toml": ("lowball", "cardroom-1/lowball-01", 8, "option 1"),
    "dealers-choice-003.toml": ("dealers-choice", "cardroom-1/choice-01", 7, "option 1"),
    "chinese-poker-003.toml": ("chinese-poker", "cardroom-1/chinese-01", 5, "option 2"),
}
DEVICES = {"chinese-poker-003.toml": 0}
"""Shipped poker configs without the card-reading table (one everywhere else)."""

FIVE_RATES = [
    {"from": 2, "to": 3, "fee": "1"},
    {"from": 4, "to": 5, "fee": "2"},
    {"from": 6, "to": 7, "fee": "3"},
    {"from": 8, "to": 9, "fee": "4"},
    {"from": 10, "fee": "5"},
]
SIX_RATES = [*FIVE_RATES[:-1], {"from": 10, "to": 10, "fee": "5"}, {"from": 11, "fee": "6"}]


def D(text: str) -> Decimal:
    """Shorthand for an exact amount."""
    return Decimal(text)


def raw(name: str) -> dict[str, Any]:
    """A shipped config as decoded TOML, to change and validate."""
    with (CONFIG / name).open("rb") as f:
        return tomllib.load(f)


def edited(name: str, game: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    """A shipped config with `[game]` keys replaced (None: removed) and top-level keys set
    (None: removed)."""
    data = copy.deepcopy(raw(name))
    for key, value in (game or {}).items():
        if value is None:
            data["game"].pop(key, None)
        else:
            data["game"][key] = value
    for key, value in top.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def loaded(data: dict[str, Any], name: str = "texas-holdem-004.toml") -> LoadedConfig:
    """`data` validated as if it were config/`name` (relative paths resolve beside it)."""
    return parse_config(data, CONFIG / name)


def problems(data: dict[str, Any], name: str = "texas-holdem-004.toml") -> list[tuple[str, str]]:
    """Every (key, reason) `data` is refused with; fails if it is accepted."""
    with pytest.raises(ConfigError) as err:
        loaded(data, name)
    return [(p.key, p.reason) for p in err.value.problems]


def schedule_of(name: str) -> PokerSchedule:
    """The schedule a shipped config's table charges by."""
    return load_config(CONFIG / name).rules.poker_schedule()


def check_config(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`tablectl check-config PATH`: exit code, stdout, stderr."""
    code = main(["check-config", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


# --- the shipped configs ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_poker_config_passes_check_config_contract4(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    game, table, seats, label = SHIPPED[name]
    path = CONFIG / name
    code, out, err = check_config(path, capsys)
    out, err = as_plugged_in(out, err)
    assert (code, err) == (0, "")
    devices = DEVICES.get(name, 1)
    document = name.removesuffix(".toml")[-3:]  # each file is named for its document
    assert out == (
        f"{path}: ok: {game} (document {document}) table {table}, {seats} seats, "
        f"collection {label}, {devices} device(s)\n"
    )


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_poker_config_has_no_banked_sections_R4_R44(name: str) -> None:
    """A poker table has no [limits] and no banked [collection]: its rules carry an R44
    schedule and no limits."""
    cfg = load_config(CONFIG / name)
    assert cfg.table.limits is None and cfg.table.collection is None
    assert cfg.rules.limits is None
    assert cfg.rules.poker_schedule() is cfg.schedule
    with pytest.raises(ValueError, match="not a banked game"):
        cfg.rules.banked()


def test_every_shipped_poker_config_is_tested_here() -> None:
    """A new poker config in config/ is added to SHIPPED (and so checked above)."""
    poker = {
        p.name
        for p in CONFIG.glob("*.toml")
        if spec_of(tomllib.loads(p.read_text(encoding="utf-8"))["game"]["id"]).kind == "poker"
    }
    assert poker == set(SHIPPED)


def test_004_holdem_options_1_and_2_read_together_charge_4_for_6_to_9_players() -> None:
    """004 "Texas Hold'em: Collection Fee Schedule", Limit: option 1 "$4 - $8 | 6-9 | $4" and
    option 2 "$4 - $8 | 5 or less | $3", read together at config/texas-holdem-004.toml's $4-$8
    table; 004 prints no modified fee, so a hand that ends before the flop pays nothing (R44)."""
    schedule = schedule_of("texas-holdem-004.toml")
    assert schedule.options == (1, 2) and schedule.per == "hand"
    assert [schedule.rate_for(n) for n in range(2, 10)] == [D("3")] * 4 + [D("4")] * 4
    assert schedule.rate_for(6) == 4 and schedule.rate_for(5) == 3
    assert schedule.modified_fee is None
    assert hand_fee(schedule, 6, reached_flop=True) == 4
    assert hand_fee(schedule, 6, reached_flop=False) == 0
    assert [limit.text for limit in schedule.table_limits] == ["$4.00-$8.00"]


def test_004_omaha_hi_lo_options_1_and_2_charge_5_for_5_to_8_players_and_4_for_4_or_less() -> None:
    """004 "Omaha High/Low Split: Collection Fee Schedule": option 1 "$4 - $8 | 5-8 | $5",
    option 2 "$4 - $8 | 4 or less | $4"; no modified fee."""
    schedule = schedule_of("omaha-hi-lo-004.toml")
    assert schedule.options == (1, 2)
    assert [schedule.rate_for(n) for n in range(2, 9)] == [D("4")] * 3 + [D("5")] * 4
    assert hand_fee(schedule, 3, reached_flop=False) == 0


def test_003_crazy_pineapple_option_2_charges_2_3_4_and_a_1_modified_fee() -> None:
    """003 "Crazy Pineapple High-Low Split: Collection Fee Schedule" option 2: "2-4 $2, 5-6 $3,
    7-10 $4", modified fee $1; R44's example: six dealt in pay $3 after the flop, $1 if the hand
    ends before it."""
    schedule = schedule_of("crazy-pineapple-hi-lo-003.toml")
    assert schedule.options == (2,) and schedule.per == "hand"
    assert [schedule.rate_for(n) for n in range(2, 11)] == (
        [D("2")] * 3 + [D("3")] * 2 + [D("4")] * 4
    )
    assert schedule.modified_fee == 1
    assert hand_fee(schedule, 6, reached_flop=True) == 3
    assert hand_fee(schedule, 6, reached_flop=False) == 1


@pytest.mark.parametrize(
    ("name", "fees"),
    [
        # 003 "Poker Games Collection Rates", "Limit Games": option 1 "2-4 $1, 5-6 $2, 7+ $3"
        ("texas-holdem-003.toml", ("1", "2", "3")),
        # option 2 "2-4 $2, 5-6 $3, 7+ $4"
        ("omaha-003.toml", ("2", "3", "4")),
        # option 3 "2-4 $3, 5-6 $4, 7+ $5"
        ("omaha-hi-lo-003.toml", ("3", "4", "5")),
    ],
)
def test_003_inline_schedules_charge_what_the_config_writes_R44(
    name: str, fees: tuple[str, str, str]
) -> None:
    """003 posts no Hold'em or Omaha schedule the code reads (R44): the config's own is charged,
    "7+" covering every larger table, with its $1 modified fee."""
    schedule = schedule_of(name)
    low, mid, high = (D(f) for f in fees)
    assert [schedule.rate_for(n) for n in range(2, 11)] == [low] * 3 + [mid] * 2 + [high] * 4
    assert schedule.rate_for(14) == high
    assert hand_fee(schedule, 2, reached_flop=False) == 1


def test_004_holdem_options_3_and_4_at_a_3_6_table_charge_4_for_6_to_9_players() -> None:
    """004 "Texas Hold'em: Collection Fee Schedule": options 3 "$3 - $6 | 6-9 | $4" and 4
    "$3 - $6 | 5 or less | $3" are the ones of a $3-$6 table."""
    data = edited(
        "texas-holdem-004.toml",
        {"stakes": ["3", "6"], "blinds": ["1", "3"], "collection": {"options": [3, 4]}},
    )
    schedule = loaded(data).rules.poker_schedule()
    assert schedule.rate_for(6) == 4 and schedule.rate_for(5) == 3


def test_004_holdem_spread_limit_options_7_and_8_at_a_4_200_table() -> None:
    """004 "Texas Hold'em: Collection Fee Schedule", Spread Limit: option 7 "$4 - $200 | 7-9 |
    $5" and 8 "$4 - $200 | 6 or Less | $4"."""
    data = edited(
        "texas-holdem-004.toml",
        {"structure": "spread-limit", "stakes": ["4", "200"], "collection": {"options": [7, 8]}},
    )
    schedule = loaded(data).rules.poker_schedule()
    assert [schedule.rate_for(n) for n in range(2, 10)] == [D("4")] * 5 + [D("5")] * 3


def test_004_holdem_option_9_any_covers_a_ten_seat_table() -> None:
    """004 option 9 "$3 - $200 | Any | $4": every count, so ten seats are covered (R44)."""
    data = edited(
        "texas-holdem-004.toml",
        {"structure": "spread-limit", "stakes": ["3", "200"], "collection": {"options": [9]}},
        seats={"count": 10},
    )
    schedule = loaded(data).rules.poker_schedule()
    assert schedule.rate_for(2) == schedule.rate_for(10) == 4


def test_003_crazy_pineapple_option_4_is_a_time_collection_per_seated_player() -> None:
    """003 Crazy Pineapple option 4 "Time Collection Per 1/2 Hour": 5-6 players $8 each; R44's
    example: six seated pay $8 each every half hour, nothing from a pot."""
    data = edited("crazy-pineapple-hi-lo-003.toml", {"collection": {"options": [4]}})
    schedule = loaded(data, "crazy-pineapple-hi-lo-003.toml").rules.poker_schedule()
    assert schedule.per == "half-hour" and schedule.modified_fee is None
    assert time_fee(schedule, 6, 1) == 48
    assert hand_fee(schedule, 6, reached_flop=True) == 0


# --- [game]: structure, stakes, blinds, chip (R41, R43) ----------------------------------------


def test_003_crazy_pineapple_fixed_limit_table_without_stakes_is_refused() -> None:
    """003 "Crazy Pineapple High-Low Split: Description of Table Used ...": "the table limit
    establishes what the lower and higher betting increments shall be": a fixed-limit table
    posts them."""
    data = edited("crazy-pineapple-hi-lo-003.toml", {"stakes": None})
    assert problems(data, "crazy-pineapple-hi-lo-003.toml") == [
        ("game", "a fixed-limit table posts its stakes: stakes = [low, high]")
    ]


def test_a_no_limit_table_with_stakes_is_refused_003_betting_limits() -> None:
    """003 "Betting Limits" lists No Limit beside the limit games: no posted stakes; the big
    blind opens the betting."""
    data = edited("texas-holdem-003.toml", {"structure": "no-limit"})
    assert problems(data, "texas-holdem-003.toml") == [
        ("game", "a no-limit table has no stakes: the big blind sets them")
    ]


def test_late_stakes_on_a_fixed_limit_table_is_refused_R43() -> None:
    """R43: the small bet is the first two rounds' and the big bet the last two's; a later spread
    is a spread-limit table's only."""
    data = edited("texas-holdem-004.toml", {"late_stakes": ["4", "8"]})
    assert problems(data) == [
        ("game", "late_stakes is the later spread of a spread-limit table only")
    ]


def test_small_blind_above_big_blind_is_refused_004_holdem_round_of_play() -> None:
    """004 "Texas Hold'em: Dealing Procedures and Round of Play": a small and a big blind."""
    data = edited("texas-holdem-004.toml", {"blinds": ["4", "2"]})
    assert problems(data) == [
        ("game", "blinds: the small blind is above 0 and at most the big blind")
    ]


def test_blinds_not_payable_in_the_smallest_chip_are_refused_R41() -> None:
    """R41: pots are split in the table's smallest chip; $1 and $2 blinds cannot be paid in $5
    chips."""
    data = edited(
        "crazy-pineapple-hi-lo-003.toml",
        {"chip": "5", "blinds": ["1", "2"], "stakes": ["5", "10"]},
    )
    assert problems(data, "crazy-pineapple-hi-lo-003.toml") == [
        (
            "game",
            "1.00, 2.00 cannot be paid in chips of 5.00 (R41: pots are split in the smallest chip)",
        )
    ]


# --- [game.collection]: posted options (R44) ----------------------------------------------------


def test_004_holdem_table_naming_no_options_is_refused_R44() -> None:
    """004 posts Texas Hold'em's schedules: the table names the options it charges by."""
    data = edited("texas-holdem-004.toml", {"collection": None})
    assert problems(data) == [
        (
            "game.collection.options",
            "missing; name the posted schedule options, e.g. options = [2]",
        )
    ]


def test_004_holdem_option_15_does_not_exist_R44() -> None:
    """004 "Texas Hold'em: Collection Fee Schedule" posts options 1 to 14."""
    data = edited("texas-holdem-004.toml", {"collection": {"options": [1, 15]}})
    assert problems(data) == [
        (
            "game.collection.options",
            f"no option 15; the posted ones are {list(range(1, 15))}",
        )
    ]


def test_004_holdem_options_1_and_4_of_two_table_limits_are_not_read_together_R44() -> None:
    """004: option 1 is "$4 - $8", option 4 "$3 - $6"; "Only one collection schedule option, which
    utilizes one table limit ... shall be used at a table at any one time" (003 "Collection Rates
    for Poker Games")."""
    data = edited("texas-holdem-004.toml", {"collection": {"options": [1, 4]}})
    assert problems(data) == [
        (
            "game.collection.options",
            "option 1 and option 4 are not one schedule: table limit $4.00-$8.00 and table limit "
            "$3.00-$6.00; only options of one kind, modified fee and table limit are read "
            "together (R44)",
        )
    ]


def test_003_crazy_pineapple_options_2_and_4_per_hand_and_per_half_hour_are_not_one() -> None:
    """003 Crazy Pineapple: option 2 is taken from the pot with a $1 modified fee, option 4 is a
    time collection per half hour."""
    data = edited("crazy-pineapple-hi-lo-003.toml", {"collection": {"options": [2, 4]}})
    found = problems(data, "crazy-pineapple-hi-lo-003.toml")
    assert {key for key, _ in found} == {"game.collection.options"}
    assert any("per hand and per half-hour" in reason for _, reason in found)


def test_004_holdem_3_6_stakes_are_not_the_4_8_table_limit_of_options_1_and_2_R44() -> None:
    """004 options 1 and 2 are posted for "$4 - $8"; a $3-$6 table picks options 3 and 4."""
    data = edited("texas-holdem-004.toml", {"stakes": ["3", "6"], "blinds": ["1", "3"]})
    assert problems(data) == [
        (
            "game.stakes",
            "$3.00-$6.00 is not the table limit of options 1 and 2 ($4.00-$8.00): pick the "
            "options posted for this table's stakes (R44)",
        )
    ]


def test_003_crazy_pineapple_option_5_is_for_2_4_and_2_8_games_not_3_6() -> None:
    """003 Crazy Pineapple option 5: "For 2-4 and 2-8 Limit Games"; the $3-$6 table's is 6."""
    data = edited("crazy-pineapple-hi-lo-003.toml", {"collection": {"options": [5]}})
    assert problems(data, "crazy-pineapple-hi-lo-003.toml") == [
        (
            "game.stakes",
            "$3.00-$6.00 is not the table limit of option 5 ($2.00-$4.00 or $2.00-$8.00): pick "
            "the options posted for this table's stakes (R44)",
        )
    ]
    data = edited("crazy-pineapple-hi-lo-003.toml", {"collection": {"options": [6]}})
    assert loaded(data, "crazy-pineapple-hi-lo-003.toml").rules.poker_schedule().options == (6,)


def test_004_holdem_option_1_alone_leaves_5_or_fewer_players_without_a_fee_R44() -> None:
    """004 option 1 covers "6-9" only; option 2 ("5 or less") is its partner."""
    data = edited("texas-holdem-004.toml", {"collection": {"options": [1]}})
    assert problems(data) == [
        (
            "game.collection.options",
            "option 1 has no rate for 2-5 players (its rates cover 6-9), so a hand with fewer "
            "players would have no fee; name with it the option of the same table limit that "
            "covers them (R44)",
        )
    ]


def test_004_holdem_table_with_an_inline_schedule_is_refused_R44() -> None:
    """004 posts Texas Hold'em's schedules: the table charges one of them, not its own."""
    inline = {"option": 1, "per": "hand", "rates": [{"from": 2, "fee": "1"}]}
    data = edited("texas-holdem-004.toml", {"collection": {"options": [1, 2], "schedule": inline}})
    [(key, reason)] = problems(data)
    assert key == "game.collection.schedule"
    assert reason.startswith("document 004 posts texas-holdem's schedules; name them with ")


# --- [game.collection]: an inline schedule where no document posts one (R44) --------------------


def test_003_holdem_table_without_an_inline_schedule_is_refused_R44() -> None:
    """R44: "Games with no posted schedule take one from the table's config"; 003 posts none for
    Texas Hold'em."""
    data = edited("texas-holdem-003.toml", {"collection": None})
    [(key, reason)] = problems(data, "texas-holdem-003.toml")
    assert key == "game.collection.schedule"
    assert reason.startswith(
        "missing; document 003 posts no collection schedule for texas-holdem, so the table's "
        "config must supply one"
    )
    assert reason.endswith("(R44)")


def test_003_holdem_table_naming_posted_options_is_refused_R44() -> None:
    """003 posts no Texas Hold'em schedule to name an option of."""
    data = edited("texas-holdem-003.toml", {"collection": {"options": [1]}})
    assert problems(data, "texas-holdem-003.toml") == [
        (
            "game.collection.options",
            "document 003 texas-holdem has no posted schedule to pick options from",
        )
    ]


@pytest.mark.parametrize(
    ("name", "collection", "section"),
    [
        ("texas-holdem-003.toml", None, "[game.collection.schedule]"),
        (
            "texas-holdem-004.toml",
            {"options": [1, 2], "schedule": {"option": 1, "per": "hand", "rates": []}},
            "game.collection.options",
        ),
    ],
)
def test_a_collection_refusal_names_the_section_the_poker_config_writes_R44(
    name: str, collection: dict[str, Any] | None, section: str
) -> None:
    """A reason that says what to write names the section the table's config has: under [game]."""
    data = edited(name, {"collection": collection})
    [(_key, reason)] = problems(data, name)
    assert section in reason


def test_an_inline_schedule_with_a_percentage_fee_is_refused_R44_R4() -> None:
    """003 "Collection Rates for Poker Games": "Rates may not be calculated as a fraction or
    percentage of wagers made or winnings earned"."""
    data = edited("texas-holdem-003.toml")
    data["game"]["collection"]["schedule"]["rates"][0]["fee"] = "2%"
    assert problems(data, "texas-holdem-003.toml") == [
        (
            "game.collection.schedule.rates[0].fee",
            "percentages are not allowed ('2%'): the documents require flat fees, written as an "
            'amount like "5.00" (R4)',
        )
    ]


def test_an_inline_schedule_with_six_rates_is_refused_five_allowed_R44_R4() -> None:
    """003 "Collection Rates for Poker Games": "no more than five collection rates may be
    established per table limit"."""
    data = edited("texas-holdem-003.toml")
    data["game"]["collection"]["schedule"]["rates"] = SIX_RATES
    assert problems(data, "texas-holdem-003.toml") == [
        (
            "game.collection.schedule.rates",
            "6 collection rates; at most 5 are allowed per table limit (R4, R44)",
        )
    ]
    data["game"]["collection"]["schedule"]["rates"] = FIVE_RATES
    schedule = loaded(data, "texas-holdem-003.toml").rules.poker_schedule()
    assert len(schedule.rates) == 5 and schedule.rate_for(10) == 5


def test_an_inline_schedule_beginning_above_two_players_is_refused_R44() -> None:
    """R44: a hand is dealt to two players at least and every count needs a fee."""
    data = edited("texas-holdem-003.toml")
    data["game"]["collection"]["schedule"]["rates"] = [{"from": 3, "fee": "1"}]
    assert problems(data, "texas-holdem-003.toml") == [
        (
            "game.collection.schedule.rates",
            "option 1 has no rate for 2 players (its rates cover 3 or more), so a hand with "
            "fewer players would have no fee; begin the rates at 2 players (R44)",
        )
    ]


# --- [seats] against the schedule (R44) -----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "seats", "label", "last"),
    [
        # 004 Texas Hold'em options 1 and 2: "6-9" and "5 or less"
        ("texas-holdem-004.toml", 10, "options 1 and 2", 9),
        # 004 Omaha High/Low Split options 1 and 2: "5-8" and "4 or less"
        ("omaha-hi-lo-004.toml", 9, "options 1 and 2", 8),
        # 003 Crazy Pineapple option 2: "7-10"
        ("crazy-pineapple-hi-lo-003.toml", 11, "option 2", 10),
    ],
)
def test_more_seats_than_the_schedule_covers_is_a_seats_count_problem_R44(
    name: str, seats: int, label: str, last: int
) -> None:
    data = edited(name, seats={"count": seats})
    assert problems(data, name) == [
        (
            "seats.count",
            f"{seats} seats, but {label}'s rates stop at {last} players (R44: a table with more "
            "seats than its schedule covers is a config problem)",
        )
    ]


def test_more_seats_than_an_inline_schedule_covers_is_a_seats_count_problem_R44() -> None:
    data = edited("texas-holdem-003.toml")
    data["game"]["collection"]["schedule"]["rates"] = [{"from": 2, "to": 9, "fee": "1"}]
    assert problems(data, "texas-holdem-003.toml") == [
        (
            "seats.count",
            "10 seats, but option 1's rates stop at 9 players (R44: a table with more seats "
            "than its schedule covers is a config problem)",
        )
    ]


# --- banked sections at a poker table, and the reverse (R4, R44) -------------------------------


def test_limits_at_a_poker_table_are_refused_pointing_to_game() -> None:
    data = edited("texas-holdem-004.toml", limits={"min": "4", "max": "8"})
    assert problems(data) == [
        (
            "limits",
            "a poker table has no [limits]: its stakes are game.structure, game.stakes and "
            "game.blinds",
        )
    ]


def test_collection_at_a_poker_table_is_refused_pointing_to_game_collection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A banked [collection] (a real schedules file and option) at a poker table: check-config
    exits 2 and points to [game.collection]."""
    schedules = CONFIG / "schedules" / "ez-baccarat-panda8.toml"
    text = (CONFIG / "texas-holdem-004.toml").read_text(encoding="utf-8")
    text = text.replace("[seats]", f'[collection]\nfile = "{schedules}"\noption = 3\n\n[seats]', 1)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    code, out, err = check_config(path, capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"{path}: collection: a poker table's collection is [game.collection]: the posted "
        "options, or a schedule where no document posts one (R44)\n"
    )


def test_a_banked_table_without_limits_says_limits_required_R4() -> None:
    data = edited("three-card-poker-6cb-004.toml", limits=None)
    assert problems(data, "three-card-poker-6cb-004.toml") == [
        ("limits", "required key is missing")
    ]


def test_a_banked_table_has_no_game_collection() -> None:
    data = edited("three-card-poker-6cb-004.toml", {"collection": {"options": [1]}})
    assert problems(data, "three-card-poker-6cb-004.toml") == [
        ("game.collection", "unknown key (check the spelling; unknown keys are not ignored)")
    ]


# --- the documents' headings and games the code does not check yet (bugs) ---------------------


@pytest.mark.parametrize("structure", ["no-limit", "pot-limit"])
def test_004_holdem_limit_options_are_refused_at_a_table_without_that_limit_R44(
    structure: str,
) -> None:
    """004 "Texas Hold'em: Collection Fee Schedule" posts options 1 and 2 for a "$4 - $8" Limit
    table; "Only one collection schedule option, which utilizes one table limit ..."."""
    data = edited("texas-holdem-004.toml", {"structure": structure, "stakes": None})
    found = problems(data)
    assert any(key.startswith("game.") for key, _ in found)


@pytest.mark.parametrize(
    ("structure", "stakes", "options"),
    [("spread-limit", ["4", "8"], [1, 2]), ("fixed-limit", ["4", "200"], [7, 8])],
)
def test_004_holdem_options_of_the_other_heading_are_refused_R44(
    structure: str, stakes: list[str], options: list[int]
) -> None:
    """004 "Texas Hold'em: Collection Fee Schedule": options 1-6 under "Limit", 7-14 under
    "Spread Limit"."""
    game = {"structure": structure, "stakes": stakes, "collection": {"options": options}}
    found = problems(edited("texas-holdem-004.toml", game))
    assert any(key.startswith("game.") for key, _ in found)


@pytest.mark.parametrize("name", ["omaha-003.toml", "crazy-pineapple-hi-lo-003.toml"])
def test_document_004_is_refused_for_a_game_004_does_not_approve(name: str) -> None:
    """004 holds Omaha High/Low Split and Texas Hold'em, no Omaha (High), no Crazy Pineapple
    (seeds/README.md; 004's table of contents)."""
    inline = {"option": 1, "per": "hand", "rates": [{"from": 2, "fee": "1"}]}
    data = edited(name, {"document": "004", "collection": {"schedule": inline}})
    found = problems(data, name)
    assert any(key == "game.document" for key, _ in found)


# --- Rules through the journal's JSON -------------------------------------------------------


def _round_trip(rules: Rules) -> Rules:
    """Rules as the journal stores them (JSON text) and reads them back."""
    return Rules.model_validate(json.loads(json.dumps(rules.to_json())))


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_poker_rules_round_trip_through_json(name: str) -> None:
    rules = load_config(CONFIG / name).rules
    assert Rules.model_validate(rules.to_json()) == rules
    back = _round_trip(rules)
    assert back == rules
    assert isinstance(back.schedule, PokerSchedule) and back.limits is None
    assert back.poker_schedule().rate_for(5) == rules.poker_schedule().rate_for(5)
    if name != "chinese-poker-003.toml":  # Chinese Poker is played for points, not bets
        assert settings_of(back.game).betting() == settings_of(rules.game).betting()


@pytest.mark.parametrize(
    ("name", "game"),
    [
        # an inline half-hour schedule with a fee of cents
        (
            "texas-holdem-003.toml",
            {
                "collection": {
                    "schedule": {
                        "option": 7,
                        "per": "half-hour",
                        "rates": [{"from": 2, "to": 4, "fee": "6.50"}, {"from": 5, "fee": "8"}],
                    }
                }
            },
        ),
        # five inline rates, a no-limit table with a buy-in minimum
        (
            "omaha-003.toml",
            {
                "structure": "no-limit",
                "stakes": None,
                "buy_in_min": "40",
                "collection": {
                    "schedule": {
                        "option": 1,
                        "per": "hand",
                        "modified_fee": "1",
                        "rates": FIVE_RATES,
                    }
                },
            },
        ),
        # 003 Crazy Pineapple's time collection, option 4
        ("crazy-pineapple-hi-lo-003.toml", {"collection": {"options": [4]}}),
        # 004's spread limit with a later spread, options 7 and 8
        (
            "texas-holdem-004.toml",
            {
                "structure": "spread-limit",
                "stakes": ["4", "200"],
                "late_stakes": ["8", "200"],
                "collection": {"options": [7, 8]},
            },
        ),
    ],
)
def test_poker_rules_of_other_configs_round_trip_through_json(
    name: str, game: dict[str, Any]
) -> None:
    rules = loaded(edited(name, game), name).rules
    assert Rules.model_validate(rules.to_json()) == rules
    assert _round_trip(rules) == rules


def test_003_crazy_pineapple_option_5_posts_a_20_buy_in_R44() -> None:
    """003 "Crazy Pineapple High-Low Split: Collection Fee Schedule": options 5-6 are "For 2-4 and
    2-8 Limit Games with a $20 Buy-in" and "For 3-6 and 6-12 Limit Games with a $40 Buy-in". A
    table under option 5 may ask more than $20 of a new player, never less."""
    game = {"stakes": ["2", "4"], "blinds": ["1", "2"], "collection": {"options": [5]}}
    data = edited("crazy-pineapple-hi-lo-003.toml", {**game, "buy_in_min": "10"})
    assert problems(data, "crazy-pineapple-hi-lo-003.toml") == [
        (
            "game.buy_in_min",
            "10.00 is below the $20.00 buy-in the document posts with option 5",
        )
    ]
    data = edited("crazy-pineapple-hi-lo-003.toml", game)
    cfg = loaded(data, "crazy-pineapple-hi-lo-003.toml")
    assert cfg.rules.poker_schedule().buy_in == Decimal(20)


@pytest.mark.parametrize(
    ("name", "game", "reason"),
    [
        (
            "texas-holdem-003.toml",
            {"structure": "no-limit", "stakes": None, "kill": "half"},
            'kill: "With the exception of Pot Limit and No Limit, any and all games played at '
            'the other betting limits can be played with a half kill or full kill" (003 '
            '"Betting Limits")',
        ),
        (
            "texas-holdem-004.toml",
            {"kill": "full"},
            'kill: the kill rules are document 003\'s ("Betting Limits")',
        ),
        (
            "texas-holdem-003.toml",
            # $5-$10, blinds $2/$5: a $7.50 kill blind, $7.50-$15 kill stakes
            {"stakes": ["5", "10"], "blinds": ["2", "5"], "kill": "half"},
            "kill: the half kill's blind and stakes 7.50 cannot be paid in chips of 1.00 (R41: "
            "pots are split in the smallest chip)",
        ),
    ],
)
def test_003_kill_games_where_the_betting_limits_allow_them(
    name: str, game: dict[str, Any], reason: str
) -> None:
    """003 "Betting Limits": half or full kill for every limit but pot and no limit; the kill
    stakes (one and a half, or twice the stakes) are paid in the table's chips."""
    assert problems(edited(name, game), name) == [("game", reason)]


def test_003_half_kill_at_2_4_is_accepted() -> None:
    """003's own example: a $2 big blind becomes a $3 kill blind ($2-$4 kill stakes $3-$6)."""
    game = {"stakes": ["2", "4"], "blinds": ["1", "2"], "kill": "half"}
    cfg = loaded(edited("texas-holdem-003.toml", game), "texas-holdem-003.toml")
    assert cfg.table.game.kill == "half"  # type: ignore[attr-defined]


def test_003_a_limit_its_betting_limits_do_not_list_is_a_warning() -> None:
    """003 "Betting Limits" lists the limits a table may post ($2-$4, $5-$10, ..., no $3-$6);
    its own Crazy Pineapple section describes "a $3-$6 game", so the list is not all 003
    approves: a 003 Hold'em table at $3-$6 loads, with a warning naming the list; a Crazy
    Pineapple table at $3-$6 has none."""
    data = edited("texas-holdem-003.toml", {"stakes": ["3", "6"], "blinds": ["1", "3"]})
    (warning,) = loaded(data, "texas-holdem-003.toml").warnings
    assert warning.endswith(
        "game.stakes: $3.00-$6.00 is not a betting limit document 003 posts for texas-holdem "
        "(spread $1.00-$3.00/$1.00-$6.00, $2.00-$4.00, spread $2.00-$4.00/$2.00-$8.00, "
        '$5.00-$10.00, $6.00-$12.00, $10.00-$20.00, pot limit, no limit; 003 "Betting Limits")'
    )
    shipped = [load_config(CONFIG / name) for name in SHIPPED]
    assert all(cfg.warnings == () for cfg in shipped)  # every shipped poker config: a listed limit
    pineapple = load_config(CONFIG / "crazy-pineapple-hi-lo-003.toml")
    assert pineapple.table.game.stakes == (Decimal(3), Decimal(6))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "most"),
    [
        ("seven-card-stud-003.toml", 7),
        ("razz-003.toml", 7),
        ("five-card-stud-003.toml", 10),
        ("option-alley-003.toml", 8),  # six cards each: the five dealt and the one bought
    ],
)
def test_a_stud_table_seats_no_more_than_one_deck_deals_every_card_to(name: str, most: int) -> None:
    """Seven cards each: 7 x 7 = 49 of 52, an eighth player would need 56; Five Card Stud:
    10 x 5 = 50 (docs/games/stud.md: no document says what happens when the deck runs out)."""
    data = edited(name, seats={"count": most + 1})
    found = problems(data, name)
    assert (
        "seats.count",
        f"{most + 1} seats: a {raw(name)['game']['id']} table seats at most "
        f"{most} ({52 // most} cards each from one 52-card deck)",
    ) in found


def test_a_draw_table_plays_the_small_bet_before_the_draw_and_the_big_after() -> None:
    """A $2-$4 draw table (docs/games/draw.md): one round at $2, the round after the draw at $4
    (the flop games' and stud's first two rounds are the small ones)."""
    draw = settings_of(load_config(CONFIG / "lowball-003.toml").rules.game).betting()
    assert (draw.opening(0), draw.opening(1)) == (D("2"), D("4"))
    flop = settings_of(load_config(CONFIG / "texas-holdem-003.toml").rules.game).betting()
    assert (flop.opening(1), flop.opening(2)) == (D("2"), D("4"))


def test_dealers_choice_offers_only_games_it_plays_with_limits_for_those_it_offers() -> None:
    name = "dealers-choice-003.toml"
    base = raw(name)["game"]
    found = problems(edited(name, {"games": [*base["games"], "pai-gow"]}), name)
    assert found[0][0] == "game" and "pai-gow cannot be offered" in found[0][1]
    found = problems(edited(name, {"games": ["texas-holdem", "texas-holdem"]}), name)
    assert "each game is offered once" in found[0][1]
    found = problems(edited(name, {"limits": {"omaha": {"stakes": ["3", "6"]}}}), name)
    assert "limits: omaha is not offered" in found[0][1]
    bad = {"omaha-hi-lo": {"stakes": ["5", "10"], "blinds": ["2", "5.50"]}}
    found = problems(edited(name, {"limits": bad}), name)
    assert "limits.omaha-hi-lo:" in found[0][1] and "5.50" in found[0][1]  # not in $1 chips
    found = problems(edited(name, seats={"count": 8}), name)
    assert found[0][0] == "seats.count" and "offers seven-card-stud" in found[0][1]
