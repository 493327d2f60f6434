"""The stud games (issue 13 item 1) as the daemon plays them: the shipped configs built into a
`Table`, fed console inputs, checked on what is published. Every amount and every first bettor
worked by hand from document 003 in the test's comments."""

from __future__ import annotations

from typing import Any

from tablectl.table import Table
from tests.helpers import feed
from tests.test_poker_hands import act, alerts, play, rows_by, table_of


def seats_1_3_5(table: Table, stack: str = "100") -> None:
    """Seats 1, 3 and 5; the first hand's button on seat 1: dealt 3, 5, 1; seat 3 posts the $1
    small blind, seat 5 the $2 big blind, seat 1 (left of the big blind) acts first."""
    for seat in (1, 3, 5):
        play(table, {"type": "seat.take", "seat": seat, "stack": stack})
    play(table, {"type": "hand.start", "button": 1})


def up(**cards: str) -> dict[str, Any]:
    """`up.cards` for seats given as s3="9c"."""
    return {
        "type": "up.cards",
        "cards": [{"seat": int(k[1:]), "card": v} for k, v in cards.items()],
    }


def hole(seat: int, *cards: str) -> dict[str, Any]:
    return {"type": "hole.cards", "seat": seat, "cards": list(cards)}


def state(table: Table) -> dict[str, Any]:
    return dict(table.state_payload())


def turn(table: Table) -> int | None:
    hand = state(table)["hand"]
    assert hand is not None
    return int(hand["turn"]) if hand["turn"] is not None else None


def test_the_first_bettor_changes_each_street_and_a_tie_goes_nearest_the_dealers_left() -> None:
    """003 "Seven Card Stud (High)": the first round "started by the player to the left of the big
    blind"; then "the player with the highest card or the highest Poker combination showing. If
    two or more players are tied for highest, the one nearest the dealer's left (that is, the
    one dealt first) is the first bettor"."""
    table = table_of("seven-card-stud-003.toml")
    seats_1_3_5(table)
    assert state(table)["hand"]["phase"] == "deal"  # the door cards come before any action
    refused = feed(table, act(1, "call"))
    assert alerts(refused)[0]["rule"] == '003 "Basic Seven Card Stud Rules" rule 1'
    play(table, up(s3="9c", s5="Kd", s1="Kh"))
    assert turn(table) == 1  # third street: left of the big blind (seat 5)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))  # $2 each: a $6 pot
    # Fourth street: seat 5 K-7 and seat 1 K-7 tie above seat 3's 9-4: seat 5 was dealt before
    # seat 1 (dealt 3, 5, 1 from the dealer's left), so seat 5 bets first.
    play(table, up(s3="4d", s5="7c", s1="7h"))
    assert turn(table) == 5
    play(table, act(5, "check"), act(1, "check"), act(3, "check"))
    # Fifth street: seat 3 shows a pair of nines (9-4-9), the only pair: seat 3 first.
    play(table, up(s3="9d", s5="5h", s1="2s"))
    assert turn(table) == 3
    play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    # Sixth street: seat 1 shows a pair of kings (K-7-2-K), above seat 3's nines.
    play(table, up(s3="3s", s5="6h", s1="Ks"))
    assert turn(table) == 1
    play(table, act(1, "check"), act(3, "check"), act(5, "check"))
    # Seventh street, face down: the boards are as they were, seat 1 first again.
    out = play(table, {"type": "down.cards"})
    assert turn(table) == 1
    assert rows_by(out, "event")[0]["street"] == "seventh"
    play(table, act(1, "check"), act(3, "check"), act(5, "check"))
    assert state(table)["hand"]["phase"] == "showdown"
    # The down cards: seat 1 Kc 8s 8d (kings full of eights), seat 3 Ah Ac 2c (aces and nines),
    # seat 5 Qd Jd Td (king high: K-Q-J-T-7, no straight).
    play(table, hole(3, "Ah", "Ac", "2c"), hole(5, "Qd", "Jd", "Td"))
    out = play(table, hole(1, "Kc", "8s", "8d"))
    (result,) = rows_by(out, "round/result")
    # $6 pot; R44 with three dealt in past third street: the $1 rate (2-4 players); $5 to seat 1.
    assert result["fee"] == {"amount": "1.00", "players": 3, "modified": False}
    assert [(p["amount"], p["high"]) for p in result["pots"]] == [("5.00", [1])]
    assert result["shown"][0]["high"]["name"] == "full-house"
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    assert stacks == {1: "103.00", 3: "98.00", 5: "98.00"}
