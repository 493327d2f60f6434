"""A poker table as the daemon plays it: the shipped configs built into a `Table`, fed journal
records, checked on what is published. Amounts worked by hand from the
documents in each test's comments."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import LoadedConfig, load_config
from tablectl.outputs import OutboxRow
from tablectl.table import Table
from tests.helpers import feed

CONFIG = Path(__file__).resolve().parents[3] / "config"


def table_of(name: str) -> Table:
    """A table built from a shipped config, its rules journaled first (as the daemon does)."""
    cfg: LoadedConfig = load_config(CONFIG / name)
    table = Table(cfg)
    feed(table, {"type": "config", "rules": cfg.rules.to_json()}, source="config")
    return table


def rows_by(rows: list[OutboxRow], suffix: str) -> list[dict[str, Any]]:
    """Decoded payloads of the rows on `<base>/<suffix>`."""
    return [json.loads(r.payload) for r in rows if r.topic.endswith("/" + suffix)]


def alerts(rows: list[OutboxRow]) -> list[dict[str, Any]]:
    return rows_by(rows, "alert")


def seat_three(table: Table, stacks: tuple[str, str, str] = ("100", "100", "100")) -> None:
    """Seats 1, 3 and 5 with these stacks; the first hand's button on seat 1."""
    for seat, stack in zip((1, 3, 5), stacks, strict=True):
        assert not alerts(feed(table, {"type": "seat.take", "seat": seat, "stack": stack}))
    assert not alerts(feed(table, {"type": "hand.start", "button": 1}))


def play(table: Table, *events: dict[str, Any]) -> list[OutboxRow]:
    """Feed console inputs, each one accepted; every row published."""
    out: list[OutboxRow] = []
    for event in events:
        rows = feed(table, event)
        assert not alerts(rows), (event, alerts(rows))
        out += rows
    return out


def act(seat: int, action: str) -> dict[str, Any]:
    return {"type": "decision", "seat": seat, "action": action}


def board(*cards: str) -> dict[str, Any]:
    return {"type": "board.cards", "cards": list(cards)}


def checks(*seats: int) -> list[dict[str, Any]]:
    return [act(s, "check") for s in seats]


def read(zone: str, card: str, pos: int, seat: int | None = None) -> dict[str, Any]:
    """A placement the card-reading table reports (docs/protocols/poker-table.md)."""
    event: dict[str, Any] = {"type": "table.card", "zone": zone, "card": card}
    if seat is not None:
        event["seat"] = seat
    event["at"] = {"run": "1", "pos": pos}
    return event


def to_river_checked(table: Table) -> list[OutboxRow]:
    """Button 1, blinds from seats 3 and 5: seat 1 calls, seat 3 completes, seat 5 checks;
    then the flop, turn and river checked around (seat 3 first after the flop)."""
    return play(
        table,
        act(1, "call"),
        act(3, "call"),
        act(5, "check"),
        board("Ac", "Qh", "3s"),
        *checks(3, 5, 1),
        board("9h"),
        *checks(3, 5, 1),
        board("2h"),
        *checks(3, 5, 1),
    )


def stacks(result: dict[str, Any]) -> dict[int, str]:
    return {s["seat"]: s["stack"] for s in result["stacks"]}


def test_004_declared_tie_gives_the_odd_chip_left_of_the_button_R41() -> None:
    """004 Texas Hold'em, $4-$8 (blinds $2/$4), no reader: the dealer declares seats 3 and 5
    tied for high over seat 1. Pot: 3 x $4 = $12; options 1-2 with three players dealt in charge
    $3 after the flop (004 "Texas Hold'em: Collection Fee Schedule", 5 or less: $3) -> $9. Split
    two ways in $1 chips: $4 each and one odd chip, which 004 gives to the player closest to the
    left of the button (seat 1's left: seat 3): seat 3 $5, seat 5 $4."""
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    to_river_checked(table)
    rows = play(table, {"type": "showdown", "high": [[3, 5], [1]]})
    (result,) = rows_by(rows, "round/result")
    assert result["declared"] is True and result["shown"] == []
    assert result["fee"] == {"amount": "3.00", "players": 3, "modified": False}
    assert result["pots"][0]["paid"] == [
        {"seat": 3, "amount": "5.00"},
        {"seat": 5, "amount": "4.00"},
    ]
    assert stacks(result) == {1: "96.00", 3: "101.00", 5: "100.00"}


def test_003_declared_tie_odd_chip_to_the_winner_nearest_the_buttons_left_R41() -> None:
    """003 Texas Hold'em, $2-$4 (blinds $1/$2), its inline schedule ($1 for 2-4 dealt in). Seat 1
    folds, seat 3 completes to $2, seat 5 checks: pot $4, fee $1 after the flop -> $3. Seats 5
    and 3 tie: $1 each, the odd chip to the tied winner nearest the button's left (seat 3):
    seat 3 $98 + 2 = $100, seat 5 $98 + 1 = $99."""
    table = table_of("texas-holdem-003.toml")
    seat_three(table)
    play(
        table,
        act(1, "fold"),
        act(3, "call"),
        act(5, "check"),
        board("Ac", "Qh", "3s"),
        *checks(3, 5),
        board("9h"),
        *checks(3, 5),
        board("2h"),
        *checks(3, 5),
    )
    (result,) = rows_by(play(table, {"type": "showdown", "high": [[5, 3]]}), "round/result")
    assert result["fee"]["amount"] == "1.00"
    assert stacks(result) == {1: "100.00", 3: "100.00", 5: "99.00"}


def test_declared_showdown_must_rank_every_hand_still_in() -> None:
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    to_river_checked(table)
    (alert,) = alerts(feed(table, {"type": "showdown", "high": [[3]]}))
    assert "rank every hand still in once" in alert["reason"] and alert["rule"].startswith(
        "a table"
    )
    (alert,) = alerts(feed(table, {"type": "showdown", "high": [[3], [5], [1]], "low": [[5]]}))
    assert "texas-holdem has no low hand" in alert["reason"]


def test_declared_showdown_waits_for_the_river_and_defers_to_cards_that_speak() -> None:
    """003 "Texas Hold-Em (High)" rule 5: hands speak for themselves, so with every hand's cards
    in, no declaration is taken; before the river's betting is over, none either."""
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    (alert,) = alerts(feed(table, {"type": "showdown", "high": [[3], [5], [1]]}))
    assert "after the river" in alert["reason"]
    for seat, cards in ((1, ["Qs", "Qd"]), (3, ["Ah", "Kh"]), (5, ["7c", "7d"])):
        play(table, {"type": "hole.cards", "seat": seat, "cards": cards})
    play(table, act(1, "call"), act(3, "call"), act(5, "check"), board("Ac", "Qh", "3s"))
    play(table, *checks(3, 5, 1), board("9h"), *checks(3, 5, 1), board("2h"), *checks(3, 5))
    rows = play(table, act(1, "check"))  # the river's last check: the cards speak at once
    (result,) = rows_by(rows, "round/result")
    assert result["declared"] is False and result["pots"][0]["high"] == [3]  # the heart flush


def test_reader_deals_hole_cards_one_by_one_and_never_publishes_them_R46() -> None:
    """A card-reading table: each placement at a seat is journaled; `cards_in` turns true only
    with the game's two hole cards (003 "Texas Hold-Em (High)" rule 1), and no topic shows them."""
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    rows = play(table, read("seat", "Ah", 1, seat=3))
    (state,) = rows_by(rows, "state")
    assert [s["cards_in"] for s in state["seats"]] == [False, False, False]
    hole = [("Kh", 3), ("Qs", 1), ("Qd", 1), ("7c", 5), ("7d", 5)]
    for pos, (card, seat) in enumerate(hole, start=2):
        rows += play(table, read("seat", card, pos, seat=seat))
    (state,) = rows_by(rows[-2:], "state")
    assert [s["cards_in"] for s in state["seats"]] == [True, True, True]
    (alert,) = alerts(feed(table, read("seat", "2c", 7, seat=3)))
    assert "already has its 2 hole cards" in alert["reason"]
    assert "2c" not in alert["reason"]  # a refused card may be a hole card: masked
    for row in rows:
        text = row.payload.decode()
        assert not any(c in text for c in ("Ah", "Kh", "Qs", "Qd", "7c", "7d")), text


def test_reader_turns_the_flop_up_card_by_card_and_opens_betting_when_whole() -> None:
    """The flop is three cards (004 "Texas Hold'em: Action and Distribution of Cards"): until the
    third is read, no one may act; a board card before the betting round is over is refused."""
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    (alert,) = alerts(feed(table, read("board", "Kd", 1)))
    assert "betting round is not over" in alert["reason"]
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    play(table, read("muck", "5d", 2))  # the burn: the muck takes it, nothing changes
    play(table, read("board", "Ac", 3), read("board", "Qh", 4))
    (alert,) = alerts(feed(table, act(3, "check")))  # two of three flop cards: no action yet
    rows = play(table, read("board", "3s", 5))
    (state,) = rows_by(rows, "state")
    assert state["hand"]["board"] == ["Ac", "Qh", "3s"] and state["hand"]["turn"] == 3
    (echo,) = rows_by(rows, "event")
    assert echo["card"] == "3s"  # board cards are public as they fall (R46)


def test_a_card_read_twice_in_one_hand_is_refused_one_deck() -> None:
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    play(table, read("seat", "Ah", 1, seat=3))
    (alert,) = alerts(feed(table, read("seat", "Ah", 2, seat=5)))
    assert "appears twice" in alert["reason"]


def test_crazy_pineapple_discard_read_in_the_muck_R46() -> None:
    """003 Crazy Pineapple: three hole cards, one discarded face down after the flop; a hole
    card of a seat that owes its discard, read in the muck, is that discard."""
    table = table_of("crazy-pineapple-hi-lo-003.toml")
    seat_three(table)
    deal = [(3, "Ah"), (3, "2h"), (3, "Kc"), (5, "9s"), (5, "9d"), (5, "4c")]
    deal += [(1, "Qs"), (1, "Jd"), (1, "Th")]
    for pos, (seat, card) in enumerate(deal, start=1):
        play(table, read("seat", card, pos, seat=seat))
    play(table, act(1, "call"), act(3, "call"), act(5, "check"), board("3c", "4d", "8s"))
    rows = play(table, read("muck", "Kc", 10))
    (state,) = rows_by(rows, "state")
    assert state["hand"]["discards_due"] == [5, 1]
    assert "Kc" not in b"".join(r.payload for r in rows).decode()


def test_buy_in_below_the_tables_minimum_is_refused() -> None:
    cfg = load_config(CONFIG / "texas-holdem-004.toml")
    game = cfg.table.game.model_copy(update={"buy_in_min": __import__("decimal").Decimal(40)})
    rules = cfg.rules.model_copy(update={"game": game})
    table = Table(cfg)
    feed(table, {"type": "config", "rules": rules.to_json()}, source="config")
    (alert,) = alerts(feed(table, {"type": "seat.take", "seat": 1, "stack": "20"}))
    assert "below the table's minimum 40.00" in alert["reason"]
    assert not alerts(feed(table, {"type": "seat.take", "seat": 1, "stack": "40"}))


@pytest.mark.parametrize(
    "name",
    [
        "texas-holdem-004.toml",
        "texas-holdem-003.toml",
        "omaha-003.toml",
        "omaha-hi-lo-004.toml",
        "omaha-hi-lo-003.toml",
        "crazy-pineapple-hi-lo-003.toml",
    ],
)
def test_every_shipped_poker_config_builds_a_table_that_starts_a_hand(name: str) -> None:
    table = table_of(name)
    seat_three(table)
    assert table.state_view().phase == "betting"


def test_003_crazy_pineapple_hand_ending_before_the_flop_pays_the_modified_fee_R44() -> None:
    """003 Crazy Pineapple option 2, blinds $1/$3 (button 1: seat 3 small, seat 5 big). Seats 1
    and 3 fold before the flop: the pot is $1 from each (seat 5's other $2 was never called and
    goes back, R41's readings), and the $1 modified fee leaves seat 5 $1 of it: 003 "If the hand
    does not reach the flop a $1 collection, referred to as the Modified fee"."""
    table = table_of("crazy-pineapple-hi-lo-003.toml")
    seat_three(table)
    rows = play(table, act(1, "fold"), act(3, "fold"))
    (result,) = rows_by(rows, "round/result")
    assert result["fee"] == {"amount": "1.00", "players": 3, "modified": True}
    assert result["returned"] == [{"seat": 5, "amount": "2.00"}]
    assert stacks(result) == {1: "100.00", 3: "99.00", 5: "100.00"}


def time_table(tmp_path: Path) -> Table:
    """003 Crazy Pineapple under option 4, its time collection."""
    text = (CONFIG / "crazy-pineapple-hi-lo-003.toml").read_text(encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(text.replace("options = [2]", "options = [4]"), encoding="utf-8")
    cfg = load_config(path)
    table = Table(cfg)
    feed(table, {"type": "config", "rules": cfg.rules.to_json()}, source="config")
    return table


def test_003_time_collection_each_of_six_seated_pays_8_a_half_hour_R44(tmp_path: Path) -> None:
    """003 Crazy Pineapple option 4, "Time Collection Per 1/2 Hour": 5-6 players seated, $8 each
    (R44's own example), outside any pot: six stacks of $100 become $92, $48 collected."""
    table = time_table(tmp_path)
    for seat in range(1, 7):
        play(table, {"type": "seat.take", "seat": seat, "stack": "100"})
    rows = play(table, {"type": "time.collect"})
    (echo,) = rows_by(rows, "event")
    assert (echo["seated"], echo["rate"], echo["total"]) == (6, "8.00", "48.00")
    (state,) = rows_by(rows, "state")
    assert [s["stack"] for s in state["seats"]] == ["92.00"] * 6
    play(table, {"type": "hand.start", "button": 1}, act(4, "fold"))
    (alert,) = alerts(feed(table, {"type": "time.collect"}))
    assert alert["reason"] == "time is collected between hands"


def test_003_time_collection_is_refused_under_a_per_hand_schedule_R44() -> None:
    table = table_of("crazy-pineapple-hi-lo-003.toml")
    play(table, *({"type": "seat.take", "seat": s, "stack": "100"} for s in (1, 2)))
    (alert,) = alerts(feed(table, {"type": "time.collect"}))
    assert "taken per hand from the pot, not by time" in alert["reason"]
    assert alert["rule"].startswith("R44")


def test_003_time_collection_no_hand_pays_a_fee_from_its_pot_R44(tmp_path: Path) -> None:
    """Under a time collection a hand that reaches the flop pays nothing from its pot (option 2
    would take $2 here): three players call $3, the flop, the discards, seat 3 bets $3 and the
    others fold: seat 3 takes the $9 (its uncalled $3 back), no fee."""
    table = time_table(tmp_path)
    seat_three(table)
    holes = {3: ["Ah", "2h", "Kc"], 5: ["9s", "9d", "4c"], 1: ["Qs", "Jd", "Th"]}
    play(table, *({"type": "hole.cards", "seat": s, "cards": c} for s, c in holes.items()))
    play(table, act(1, "call"), act(3, "call"), act(5, "check"), board("3c", "4d", "8s"))
    discards = {3: "Kc", 5: "4c", 1: "Th"}
    play(table, *({"type": "hole.discard", "seat": s, "card": c} for s, c in discards.items()))
    bet = {"type": "decision", "seat": 3, "action": "bet", "amount": "3"}
    rows = play(table, bet, act(5, "fold"), act(1, "fold"))
    (result,) = rows_by(rows, "round/result")
    assert result["fee"] == {"amount": "0.00", "players": 3, "modified": False}
    assert stacks(result) == {1: "97.00", 3: "106.00", 5: "97.00"}


def fold_to_big_blind(table: Table, *seats: int) -> dict[str, Any]:
    """The seats fold in turn; the big blind takes the blinds. Returns the result."""
    rows = play(table, *(act(s, "fold") for s in seats))
    (result,) = rows_by(rows, "round/result")
    return result


def test_a_seat_passed_by_the_big_blind_while_away_posts_both_blinds_on_return() -> None:
    """No document speaks of missed blinds; the card rooms' usual rule (docs/games/poker-room.md):
    a seat sitting out that the big blind passes owes the big blind live and the small dead.
    004 $4-$8, blinds $2/$4, seats 1 3 5 7 9 with $100.
    Hand 1, button 1: 3 small, 5 big; everyone folds to 5 (+$2 from 3: 5 has $102, 3 $98).
    Seat 7 sits out. Hand 2, button 3: 5 small, 9 big: the big blind passed seat 7 (after 5, up to
    9), so 7 owes both; 1, 3, 5 fold (9 $102, 5 $100). Hand 3, button 5: 9 small, 1 big; 3, 5, 9
    fold (1 $102, 9 $100). Seat 7 comes back. Hand 4, button 7: 9 small $2, 1 big $4, and 7 posts
    $2 dead and $4 live. 3 and 5 fold; 7 checks (its live $4 is the bet); 9 completes; 1 checks.
    Pot $14. Flop: 9 bets $4, 1 and 7 fold: 9's $4 comes back and the $14 less the $3 fee (five
    dealt in: 004 options 1-2, 5 or less) goes to 9: $100 - 8 + 4 + 11 = $107; 1 $98; 7 $94."""
    table = table_of("texas-holdem-004.toml")
    for seat in (1, 3, 5, 7, 9):
        play(table, {"type": "seat.take", "seat": seat, "stack": "100"})
    play(table, {"type": "hand.start", "button": 1})
    fold_to_big_blind(table, 7, 9, 1, 3)
    play(table, {"type": "seat.away", "seat": 7})
    play(table, {"type": "hand.start"})
    result = fold_to_big_blind(table, 1, 3, 5)
    assert result["button"] == 3 and stacks(result)[9] == "102.00"
    rows = play(table, {"type": "seat.away", "seat": 5}, {"type": "seat.back", "seat": 5})
    state = rows_by(rows, "state")[-1]  # 5 sat out between hands: the blinds passed no one
    owes = {s["seat"]: (s["away"], s["owes"]) for s in state["seats"]}
    assert owes[7] == (True, "both") and owes[5] == (False, "none")
    play(table, {"type": "hand.start"})
    fold_to_big_blind(table, 3, 5, 9)
    rows = play(table, {"type": "seat.back", "seat": 7})
    (echo,) = rows_by(rows, "event")
    assert echo["owes"] == "both"
    rows = play(table, {"type": "hand.start"})
    (start,) = rows_by(rows, "event")
    assert start["button"] == 7 and start["dealt_in"] == [9, 1, 3, 5, 7]
    assert start["posted"] == [
        {"seat": 9, "post": "blind", "amount": "2.00"},
        {"seat": 1, "post": "blind", "amount": "4.00"},
        {"seat": 7, "post": "dead", "amount": "2.00"},
        {"seat": 7, "post": "blind", "amount": "4.00"},
    ]
    play(table, act(3, "fold"), act(5, "fold"), act(7, "check"), act(9, "call"), act(1, "check"))
    play(table, board("Ac", "Qh", "3s"))
    bet = {"type": "decision", "seat": 9, "action": "bet", "amount": "4"}
    rows = play(table, bet, act(1, "fold"), act(7, "fold"))
    (result,) = rows_by(rows, "round/result")
    assert result["fee"] == {"amount": "3.00", "players": 5, "modified": False}
    assert result["pots"][0]["paid"] == [{"seat": 9, "amount": "11.00"}]
    assert stacks(result) == {1: "98.00", 3: "98.00", 5: "100.00", 7: "94.00", 9: "107.00"}
    state = rows_by(rows, "state")[-1]
    assert all(s["owes"] == "none" for s in state["seats"])


def test_a_player_new_to_a_game_in_progress_posts_a_big_blind_to_be_dealt_in() -> None:
    """The card rooms' usual rule (no document): a new player posts a big blind, live, unless
    the blinds reach the seat first. 004 $4-$8: seats 1 3 5 play hand 1 (button 1; 1 and 3 fold
    to 5). Seat 2 sits down: the button moves to it (the next seat with chips), hand 2 deals
    3 5 1 2: 3 small, 5 big, and seat 2, past the blinds, posts $4 live. 1 calls; 2's $4 is the
    bet, so it may check; 3 completes, 5 checks: $16 in, every player's $4."""
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    fold_to_big_blind(table, 1, 3)
    rows = play(table, {"type": "seat.take", "seat": 2, "stack": "100"})
    (echo,) = rows_by(rows, "event")
    assert echo["owes"] == "big"
    (start,) = rows_by(play(table, {"type": "hand.start"}), "event")
    assert start["button"] == 2 and start["dealt_in"] == [3, 5, 1, 2]
    assert start["posted"] == [
        {"seat": 3, "post": "blind", "amount": "2.00"},
        {"seat": 5, "post": "blind", "amount": "4.00"},
        {"seat": 2, "post": "blind", "amount": "4.00"},
    ]
    rows = play(table, act(1, "call"), act(2, "check"), act(3, "call"), act(5, "check"))
    state = rows_by(rows, "state")[-1]
    assert state["hand"]["phase"] == "board" and state["hand"]["pot"] == "16.00"


def test_a_new_player_in_the_big_blinds_place_posts_only_the_big_blind() -> None:
    """Seat 6 sits down where the big blind comes next: 004 $4-$8, seats 1 3 5, hand 1 button 1;
    hand 2, button 3, deals 5 6 1 3: 5 small, 6 big, and nothing else is posted."""
    table = table_of("texas-holdem-004.toml")
    seat_three(table)
    fold_to_big_blind(table, 1, 3)
    play(table, {"type": "seat.take", "seat": 6, "stack": "100"})
    (start,) = rows_by(play(table, {"type": "hand.start"}), "event")
    assert start["button"] == 3 and start["dealt_in"] == [5, 6, 1, 3]
    assert start["posted"] == [
        {"seat": 5, "post": "blind", "amount": "2.00"},
        {"seat": 6, "post": "blind", "amount": "4.00"},
    ]


def test_003_crazy_pineapple_option_6_seats_no_one_below_its_40_buy_in(tmp_path: Path) -> None:
    """003 Crazy Pineapple option 6, "For 3-6 and 6-12 Limit Games with a $40 Buy-in": with no
    buy-in of its own in the config, the table takes the posted one."""
    text = (CONFIG / "crazy-pineapple-hi-lo-003.toml").read_text(encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(text.replace("options = [2]", "options = [6]"), encoding="utf-8")
    cfg = load_config(path)
    table = Table(cfg)
    feed(table, {"type": "config", "rules": cfg.rules.to_json()}, source="config")
    (alert,) = alerts(feed(table, {"type": "seat.take", "seat": 1, "stack": "39"}))
    assert "below the table's minimum 40.00" in alert["reason"]
    assert not alerts(feed(table, {"type": "seat.take", "seat": 1, "stack": "40"}))


def kill_table(tmp_path: Path, kill: str, game: str = "texas-holdem", seats: int = 9) -> Table:
    """003 Texas Hold'em (or `game`), $2-$4 fixed limit, blinds $1/$2, a `kill` game, its
    collection by time (so no pot pays a fee and the amounts below are only the betting)."""
    path = tmp_path / "kill.toml"
    path.write_text(
        f"""site = "room"
table = "kill-1"
[game]
id = "{game}"
document = "003"
structure = "fixed-limit"
stakes = ["2", "4"]
blinds = ["1", "2"]
kill = "{kill}"
[game.collection.schedule]
option = 4
per = "half-hour"
rates = [{{ from = 2, fee = "1" }}]
[seats]
count = {seats}
[journal]
path = "{tmp_path / "kill.db"}"
""",
        encoding="utf-8",
    )
    cfg = load_config(path)
    table = Table(cfg)
    feed(table, {"type": "config", "rules": cfg.rules.to_json()}, source="config")
    return table


def two_pots_to_seat_5(table: Table) -> None:
    """Hand 1 (button 1: 3 small $1, 5 big $2): 1 and 3 fold, seat 5 wins the pot and the kill
    button (003 Kill Rules 1). Hand 2 (button 3: 5 small, 1 big): 3 folds, 5 raises to $4, 1
    folds: seat 5 wins the very next pot (Kill Rules 2). Stacks 1 $98, 3 $99, 5 $103."""
    seat_three(table)
    fold_to_big_blind(table, 1, 3)
    play(table, {"type": "hand.start"}, act(3, "fold"))
    raise_to_4 = {"type": "decision", "seat": 5, "action": "raise", "amount": "4"}
    (result,) = rows_by(play(table, raise_to_4, act(1, "fold")), "round/result")
    assert stacks(result) == {1: "98.00", 3: "99.00", 5: "103.00"}


def test_003_half_kill_three_hands_the_kill_blind_and_the_button_back_to_the_pot(
    tmp_path: Path,
) -> None:
    """003 "Betting Limits", Kill Rules, half kill at $2-$4. After seat 5 wins two pots in a
    row, hand 3 (button 5: 1 small $1, 3 big $2) is a kill pot: the stakes go up by one and a
    half to $3-$6 and seat 5 posts the $3 kill blind ("In a Half Kill game with a $2 big blind,
    the big blind would be set at $3"), acting last. 1 and 3 call $3, 5 checks: $9. On the flop
    a $2 bet is refused (the bet is $3 now); 1 bets $3, 3 and 5 fold: seat 1 takes the $9 (its
    $3 back) and the kill button; 5 lost, so its button went back to the pot (Kill Rules 4) and
    the next hand is no kill pot. Stacks 1 $98 - 3 + 9 = $104, 3 $96, 5 $100."""
    table = kill_table(tmp_path, "half")
    two_pots_to_seat_5(table)
    rows = play(table, {"type": "hand.start"})
    (start,) = rows_by(rows, "event")
    assert start["posted"] == [
        {"seat": 1, "post": "blind", "amount": "1.00"},
        {"seat": 3, "post": "blind", "amount": "2.00"},
        {"seat": 5, "post": "kill", "amount": "3.00"},
    ]
    (state,) = rows_by(rows, "state")
    assert state["kill"] == {"kind": "half", "holder": 5, "next_hand": True}
    assert state["hand"]["kill_pot"] is True and state["hand"]["turn"] == 1
    assert state["hand"]["to_call"] == "2.00"  # seat 1's $1 small blind to the $3 kill blind
    play(table, act(1, "call"), act(3, "call"), act(5, "check"), board("Ac", "Qh", "3s"))
    small = {"type": "decision", "seat": 1, "action": "bet", "amount": "2"}
    (alert,) = alerts(feed(table, small))
    assert "3.00" in alert["reason"]
    bet = {"type": "decision", "seat": 1, "action": "bet", "amount": "3"}
    rows = play(table, bet, act(3, "fold"), act(5, "fold"))
    (result,) = rows_by(rows, "round/result")
    assert stacks(result) == {1: "104.00", 3: "96.00", 5: "100.00"}
    state = rows_by(rows, "state")[-1]
    assert state["kill"] == {"kind": "half", "holder": 1, "next_hand": False}


def test_003_full_kill_doubles_the_stakes_and_a_holder_who_keeps_winning_keeps_killing(
    tmp_path: Path,
) -> None:
    """003 Kill Rules 2, full kill at $2-$4: "In a Full Kill game the stakes double". Hand 3
    (button 5) is a kill pot at $4-$8 with seat 5's $4 kill blind; 1 and 3 fold to it: seat 5
    wins again (1's $1 and 3's $2 blinds: $103 + 3 = $106) and hand 4 is a kill pot too."""
    table = kill_table(tmp_path, "full")
    two_pots_to_seat_5(table)
    (start,) = rows_by(play(table, {"type": "hand.start"}), "event")
    assert start["posted"][-1] == {"seat": 5, "post": "kill", "amount": "4.00"}
    rows = play(table, act(1, "fold"), act(3, "fold"))
    (result,) = rows_by(rows, "round/result")
    assert stacks(result) == {1: "97.00", 3: "97.00", 5: "106.00"}
    state = rows_by(rows, "state")[-1]
    assert state["kill"] == {"kind": "full", "holder": 5, "next_hand": True}


def test_a_kill_pot_split_returns_the_kill_button_to_the_pot(tmp_path: Path) -> None:
    """A pot two players share has no one winner to receive the button (tablectl's reading):
    hand 3 above, everyone checks it down and the dealer declares 1 and 5 tied."""
    table = kill_table(tmp_path, "half")
    two_pots_to_seat_5(table)
    play(table, {"type": "hand.start"}, act(1, "call"), act(3, "call"), act(5, "check"))
    play(table, board("Ac", "Qh", "3s"), *checks(1, 3, 5), board("9h"), *checks(1, 3, 5))
    play(table, board("2h"), *checks(1, 3, 5))
    rows = play(table, {"type": "showdown", "high": [[1, 5], [3]]})
    state = rows_by(rows, "state")[-1]
    assert state["kill"] == {"kind": "half", "holder": None, "next_hand": False}


def test_a_kill_holder_who_leaves_returns_the_button_to_the_pot(tmp_path: Path) -> None:
    """003 Kill Rules 1 give the button to the winner of a pot: a player who takes the seat its
    holder left has won nothing, so the next hand is no kill pot and posts no kill blind."""
    table = kill_table(tmp_path, "half")
    two_pots_to_seat_5(table)
    play(table, {"type": "seat.leave", "seat": 5})
    play(table, {"type": "seat.take", "seat": 5, "stack": "50", "player": "newcomer"})
    rows = play(table, {"type": "hand.start"})
    (start,) = rows_by(rows, "event")
    assert all(p["post"] != "kill" for p in start["posted"])
    (state,) = rows_by(rows, "state")
    assert state["kill"] == {"kind": "half", "holder": None, "next_hand": False}
    assert state["hand"]["kill_pot"] is False


def test_a_kill_holder_sitting_out_keeps_the_button_for_its_return(tmp_path: Path) -> None:
    """Kill Rules 4 return the button when its holder "loses or folds": a holder sitting out
    does neither (tablectl's reading). Seat 5 wins hands 1 and 2, sits out hand 3 (no kill pot:
    it cannot pay the kill blind; seat 3 folds to seat 1), comes back: hand 4 is its kill pot."""
    table = kill_table(tmp_path, "half")
    two_pots_to_seat_5(table)
    play(table, {"type": "seat.away", "seat": 5})
    (start,) = rows_by(play(table, {"type": "hand.start"}), "event")
    assert all(p["post"] != "kill" for p in start["posted"])
    rows = play(table, act(3, "fold"))  # heads up, button 1: 3 small (first), 1 big
    state = rows_by(rows, "state")[-1]
    assert state["kill"] == {"kind": "half", "holder": 5, "next_hand": True}
    play(table, {"type": "seat.back", "seat": 5})
    (start,) = rows_by(play(table, {"type": "hand.start"}), "event")
    # button 3: seat 5 is the small blind and brings it up to the $3 kill blind
    mine = [p for p in start["posted"] if p["seat"] == 5]
    assert [p["post"] for p in mine] == ["blind", "kill"]
    assert sum(Decimal(p["amount"]) for p in mine) == Decimal(3)


def test_003_crazy_pineapple_without_a_reader_discards_unseen_and_declares_the_showdown() -> None:
    """003 Crazy Pineapple, no reader and no hole cards keyed in: after the flop each seat still
    in discards face down (`hole.discard` with no card: nobody saw it), the betting goes on, and
    at the river the dealer declares the order (review found the hand stuck at the discard).
    Option 2: three dealt in, $2 after the flop; $3 x 3 = $9 less $2 = $7 to seat 5."""
    table = table_of("crazy-pineapple-hi-lo-003.toml")
    seat_three(table)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"), board("3c", "4d", "8s"))
    (alert,) = alerts(feed(table, {"type": "hole.discard", "seat": 3, "card": "Ah"}))
    assert alert["reason"] == "seat 3's hole cards are not in yet"
    play(table, *({"type": "hole.discard", "seat": s} for s in (3, 5, 1)))
    play(table, *checks(3, 5, 1), board("9h"), *checks(3, 5, 1), board("2h"), *checks(3, 5, 1))
    rows = play(table, {"type": "showdown", "high": [[5], [1, 3]], "low": []})
    (result,) = rows_by(rows, "round/result")
    assert result["declared"] is True and result["fee"]["amount"] == "2.00"
    assert stacks(result) == {1: "97.00", 3: "97.00", 5: "104.00"}
