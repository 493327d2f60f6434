"""EZ Baccarat Panda 8 rules (R25, R26, R27) checked against the document by hand-worked coups.

Expected values come from the rule document (seed 003, "EZ BACCARAT PANDA 8": Card Values, the
drawing rules and the banker's chart, Tie, Dragon 7, Panda 8) and RULINGS.md, never from the code.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.rules.baccarat import (
    BANKER_CHART,
    PAYOUTS,
    CoupOutcome,
    banker_draws,
    hand_total,
    is_natural,
    next_to_draw,
    outcome,
    player_draws,
    point,
    wager_result,
)
from tablectl_base.cards import Card, parse_card, standard_deck


def cards(text: str) -> list[Card]:
    """Cards from space-separated text like "Ah Td"."""
    return [parse_card(t) for t in text.split()]


def two_card_hand(total: int) -> list[Card]:
    """Two cards with the given total that never look like anything else (a ten plus a card)."""
    return [Card("T", "h"), Card("TA23456789"[total], "d")]


# --- The banker's chart, transcribed here from the document as printed (seed lines ~1153-1163).

DOCUMENT_CHART = """
Banker's Score  0 1 2 3 4 5 6 7 8 9
7               S S S S S S S S S S
6               S S S S S S H H S S
5               S S S S H H H H S S
4               S S H H H H H H S S
3               H H H H H H H H S H
2               H H H H H H H H H H
1               H H H H H H H H H H
0               H H H H H H H H H H
"""


def _document_cells() -> list[tuple[int, int, str]]:
    """(banker score, player's third-card point, "H"/"S") for each of the chart's 80 cells."""
    lines = DOCUMENT_CHART.strip().splitlines()
    header = [int(x) for x in lines[0].split()[2:]]
    cells: list[tuple[int, int, str]] = []
    for line in lines[1:]:
        score, *letters = line.split()
        assert len(letters) == 10
        cells.extend(
            (int(score), third, letter) for third, letter in zip(header, letters, strict=True)
        )
    return cells


CELLS = _document_cells()


def test_document_chart_transcription_has_80_cells_R25() -> None:
    """The transcription covers banker 0-7 against player's third card 0-9, once each."""
    assert len(CELLS) == 80
    assert {(s, t) for s, t, _ in CELLS} == {(s, t) for s in range(8) for t in range(10)}


@pytest.mark.parametrize(
    ("score", "third", "letter"), CELLS, ids=[f"b{s}-p{t}" for s, t, _ in CELLS]
)
def test_banker_chart_cell_by_cell_R25(score: int, third: int, letter: str) -> None:
    """BANKER_CHART and banker_draws agree with the document's printed chart, cell by cell."""
    assert BANKER_CHART[score][third] is (letter == "H")
    # The same cell through banker_draws: a player 5 (drew) whose third card has point `third`.
    player = [Card("2", "c"), Card("3", "c"), Card("TA23456789"[third], "s")]
    assert banker_draws(two_card_hand(score), player) is (letter == "H")


def test_banker_chart_has_exactly_scores_0_to_7_R25() -> None:
    """The chart has no rows for 8 and 9: those are naturals and never draw."""
    assert sorted(BANKER_CHART) == list(range(8))
    assert all(sorted(row) == list(range(10)) for row in BANKER_CHART.values())


# --- Card values and naturals.


@pytest.mark.parametrize(
    ("rank", "expected"),
    [
        ("A", 1),
        *[(str(n), n) for n in range(2, 10)],
        ("T", 0),
        ("J", 0),
        ("Q", 0),
        ("K", 0),
    ],
)
def test_card_points_per_document(rank: str, expected: int) -> None:
    """Pictures and tens are 0, an ace is 1, the rest face value."""
    assert point(Card(rank, "h")) == expected


def test_joker_has_no_point() -> None:
    """The game uses no jokers: asking a joker's point is an error, not a silent 0."""
    with pytest.raises(ValueError, match="joker"):
        point(parse_card("JKR"))


def test_hand_total_keeps_right_hand_digit() -> None:
    """7 + 8 = 15 counts 5; 9 + 9 + 4 = 22 counts 2; K + Q counts 0."""
    assert hand_total(cards("7h 8d")) == 5
    assert hand_total(cards("9h 9d 4c")) == 2
    assert hand_total(cards("Kh Qd")) == 0


def test_natural_is_two_cards_of_8_or_9() -> None:
    """Two-card 8 and 9 are naturals; a three-card 8 or 9 and a two-card 7 are not."""
    assert is_natural(cards("4h 4d")) and is_natural(cards("Kh 9d"))
    assert not is_natural(cards("2h 3d 3c")) and not is_natural(cards("Ah 4d 4c"))
    assert not is_natural(cards("3h 4d"))


# --- Who draws.


@pytest.mark.parametrize("total", range(10))
def test_player_hits_0_to_5_stands_6_to_9_R25(total: int) -> None:
    """The player hits on 5 or less and stands on 6 through 9 (banker holding a plain 0)."""
    assert player_draws(two_card_hand(total), banker_two=two_card_hand(0)) is (total <= 5)
    assert player_draws(two_card_hand(total)) is (total <= 5)


@pytest.mark.parametrize("player_total", range(10))
@pytest.mark.parametrize("banker_total", [8, 9])
def test_banker_natural_stops_everyone_R25(player_total: int, banker_total: int) -> None:
    """A banker natural: the player does not draw, the banker does not draw, the coup is over."""
    player, banker = two_card_hand(player_total), two_card_hand(banker_total)
    assert player_draws(player, banker_two=banker) is False
    assert banker_draws(banker, player) is False
    assert next_to_draw(player, banker) is None


@pytest.mark.parametrize("banker_total", range(10))
@pytest.mark.parametrize("player_total", [8, 9])
def test_player_natural_stops_everyone_R25(player_total: int, banker_total: int) -> None:
    """A player natural: neither hand draws, whatever the banker holds (0 to 9)."""
    player, banker = two_card_hand(player_total), two_card_hand(banker_total)
    assert player_draws(player, banker_two=banker) is False
    assert banker_draws(banker, player) is False
    assert next_to_draw(player, banker) is None


@pytest.mark.parametrize("banker_total", range(8))
@pytest.mark.parametrize("player_total", [6, 7])
def test_banker_hits_0_to_5_when_player_stood_R25(player_total: int, banker_total: int) -> None:
    """If the player's hand stands, the banker hits on 5 or less (6 and 7 stand)."""
    player, banker = two_card_hand(player_total), two_card_hand(banker_total)
    assert banker_draws(banker, player) is (banker_total <= 5)
    assert next_to_draw(player, banker) == ("banker" if banker_total <= 5 else None)


def test_banker_draws_refuses_incomplete_player_hand_R25() -> None:
    """The banker is resolved after the player: a player 4 without its third card is an error."""
    with pytest.raises(ValueError, match="player draws"):
        banker_draws(cards("2h 3d"), cards("Ah 3c"))
    with pytest.raises(ValueError, match="stands on 7"):
        banker_draws(cards("2h 3d"), cards("4h 3c 2s"))


# --- next_to_draw over whole shoes: deal by it and record who received each card.


def deal(shoe: Sequence[Card]) -> tuple[list[Card], list[Card], str]:
    """Deal a coup from `shoe` by next_to_draw; return both hands and the recipients ("PBPB...")."""
    player: list[Card] = []
    banker: list[Card] = []
    order = ""
    it = iter(shoe)
    while (who := next_to_draw(player, banker)) is not None:
        (player if who == "player" else banker).append(next(it))
        order += "P" if who == "player" else "B"
    return player, banker, order


@pytest.mark.parametrize(
    ("shoe", "order", "player", "banker"),
    [
        # Player 4h 5d = natural 9, banker 3c 5s = natural 8: four cards only.
        ("4h 3c 5d 5s 9h 9d", "PBPB", "4h 5d", "3c 5s"),
        # Player 6 stands, banker 5 hits: the fifth card goes to the banker.
        ("6h 2c Kd 3d 2h 9d", "PBPBB", "6h Kd", "2c 3d 2h"),
        # Player 7 stands, banker 6 stands (player stood, so 6 > 5 stands).
        ("7h 6c Kd Ks 2h 9d", "PBPB", "7h Kd", "6c Ks"),
        # Player 3 hits and takes an 8; banker 3 stands against a third-card 8.
        ("Ah 3s 2d Kd 8c 9d", "PBPBP", "Ah 2d 8c", "3s Kd"),
        # Player 0 hits (takes 9); banker 3 hits against a third-card 9.
        ("Th 3s Jd Kd 9c 4d", "PBPBPB", "Th Jd 9c", "3s Kd 4d"),
        # Player 5 hits (takes 6); banker 6 hits against a third-card 6.
        ("2h 4s 3d 2d 6c 4d", "PBPBPB", "2h 3d 6c", "4s 2d 4d"),
        # Player 5 hits (takes a 7); banker 4+3 = 7 never hits.
        ("2h 4s 3d 3d 7c 4d", "PBPBP", "2h 3d 7c", "4s 3d"),
        # Player 1 hits (takes ace); banker 4 stands against a third-card 1.
        ("Ah 4s Kd Qd Ac 4d", "PBPBP", "Ah Kd Ac", "4s Qd"),
    ],
)
def test_next_to_draw_full_sequences_R25(shoe: str, order: str, player: str, banker: str) -> None:
    """Cards go P, B, P, B, then the player's third if it draws, then the banker's if it draws."""
    p, b, got = deal(cards(shoe))
    assert got == order
    assert p == cards(player)
    assert b == cards(banker)


def test_next_to_draw_opening_R25() -> None:
    """The opening four go player, banker, player, banker."""
    h = cards("2h 3h 4h")
    assert next_to_draw([], []) == "player"
    assert next_to_draw(h[:1], []) == "banker"
    assert next_to_draw(h[:1], h[1:2]) == "player"
    assert next_to_draw(h[:2], h[2:3]) == "banker"


@pytest.mark.parametrize(
    ("player", "banker"),
    [
        ("", "2h"),  # banker before player
        ("2h 3h", ""),  # player's second card before banker's first
        ("7h Kd 2c", "2s 3s"),  # player stood on 7 but has a third card
        ("2h 3d", "2s 3s 4c"),  # banker drew before the player's third card
        ("7h Kd", "6c Ks 2d"),  # banker stood on 6 but has a third card
        ("4h 5d 2c", "3c 5s"),  # a natural, yet a third card
        ("2h 3d 4c 5c", "2s 3s"),  # four cards
    ],
)
def test_next_to_draw_refuses_impossible_hands_R25(player: str, banker: str) -> None:
    """Hands the deal order cannot produce are errors, not guesses."""
    with pytest.raises(ValueError):
        next_to_draw(cards(player), cards(banker))


# --- Worked coups by hand, settled (R26, R27).


def settle(o: CoupOutcome, *, push_d7: bool = False) -> dict[str, str]:
    """Every spot's result for one outcome."""
    spots = ("player", "banker", "tie", "dragon7", "panda8")
    return {s: wager_result(s, o, banker_push_on_dragon7=push_d7) for s in spots}


def test_natural_9_beats_natural_8_R26() -> None:
    """Player 4+5 natural 9 against banker 3+5 natural 8: player wins, side bets lose."""
    o = outcome(cards("4h 5d"), cards("3c 5s"))
    assert o == CoupOutcome("player", 9, 8, True, True, dragon7=False, panda8=False)
    assert settle(o) == {
        "player": "win",
        "banker": "lose",
        "tie": "lose",
        "dragon7": "lose",
        "panda8": "lose",
    }


def test_banker_3_stands_on_player_third_8_R25() -> None:
    """Player A+2 = 3 draws an 8 (total 1); banker 3 stands on a third-card 8 and wins 3 to 1."""
    player, banker = cards("Ah 2d 8c"), cards("3s Kd")
    assert next_to_draw(player, banker) is None
    o = outcome(player, banker)
    assert (o.winner, o.player_total, o.banker_total) == ("banker", 1, 3)
    assert not o.dragon7 and not o.panda8
    with pytest.raises(ValueError, match="banker draws next"):
        outcome(cards("Ah 2d 7c"), cards("3s Kd"))  # a third-card 7: banker 3 must hit


def test_dragon7_banker_three_card_7_over_player_6_R27() -> None:
    """Player 6 stands; banker 2+3 = 5 hits a 2 for a three-card 7: Dragon 7 pays 40:1."""
    o = outcome(cards("6h Kd"), cards("2c 3d 2h"))
    assert o == CoupOutcome("banker", 6, 7, False, False, dragon7=True, panda8=False)
    assert settle(o) == {
        "player": "lose",
        "banker": "win",
        "tie": "lose",
        "dragon7": "win",
        "panda8": "lose",
    }
    assert PAYOUTS["dragon7"] == 40


def test_dragon7_after_player_draws_R27() -> None:
    """Player 2+2 draws a 2 (6); banker 4 hits on a third-card 2 and draws a 3: Dragon 7."""
    o = outcome(cards("2h 2d 2c"), cards("4s Kd 3h"))
    assert (o.winner, o.player_total, o.banker_total, o.dragon7) == ("banker", 6, 7, True)


def test_not_dragon7_when_banker_7_has_two_cards_R27() -> None:
    """Banker 4+3 = 7 in two cards beats player 6: the banker wins but it is not a Dragon 7."""
    o = outcome(cards("6h Kd"), cards("4s 3h"))
    assert (o.winner, o.banker_total, o.dragon7) == ("banker", 7, False)
    assert wager_result("dragon7", o) == "lose"
    assert wager_result("banker", o, banker_push_on_dragon7=True) == "win"


def test_not_dragon7_on_three_card_7_tie_R27() -> None:
    """Banker three-card 7 against player three-card 7 is a tie: Dragon 7 needs player 6 or less."""
    # Player A+4 = 5 draws a 2 (7); banker 4 hits on a third-card 2 and draws a 3 (7).
    o = outcome(cards("Ah 4d 2c"), cards("4s Kd 3h"))
    assert (o.winner, o.dragon7) == ("tie", False)
    assert wager_result("dragon7", o) == "lose"


def test_panda8_player_three_card_8_over_banker_7_R27() -> None:
    """Player 2+3 = 5 draws a 3 for a three-card 8; banker K+7 = 7 stands: Panda 8 pays 25:1."""
    o = outcome(cards("2c 3h 3d"), cards("Kh 7s"))
    assert o == CoupOutcome("player", 8, 7, False, False, dragon7=False, panda8=True)
    assert settle(o) == {
        "player": "win",
        "banker": "lose",
        "tie": "lose",
        "dragon7": "lose",
        "panda8": "win",
    }
    assert PAYOUTS["panda8"] == 25


def test_tie_three_card_8_is_not_panda8_and_pushes_lines_R26_R27() -> None:
    """Player 2+3+3 = 8 ties banker 4+K+4 = 8 (banker 4 hits on a third-card 3): not a Panda 8."""
    o = outcome(cards("2c 3h 3d"), cards("4s Kd 4c"))
    assert o == CoupOutcome("tie", 8, 8, False, False, dragon7=False, panda8=False)
    assert settle(o) == {
        "player": "push",
        "banker": "push",
        "tie": "win",
        "dragon7": "lose",
        "panda8": "lose",
    }
    assert PAYOUTS["tie"] == 8


def test_ties_push_player_and_banker_lines_R26() -> None:
    """Two-card 6 against two-card 6 (both stand): lines push, Tie Bet wins."""
    o = outcome(cards("6h Kd"), cards("3c 3s"))
    assert o.winner == "tie"
    assert wager_result("player", o) == "push"
    assert wager_result("banker", o) == "push"
    assert wager_result("banker", o, banker_push_on_dragon7=True) == "push"
    assert wager_result("tie", o) == "win"


def test_banker_line_on_dragon7_wins_by_default_pushes_with_option_R26() -> None:
    """The banker line pays 1:1, no commission, on a Dragon 7 unless banker_push_on_dragon7."""
    o = outcome(cards("6h Kd"), cards("2c 3d 2h"))
    assert o.dragon7
    assert wager_result("banker", o) == "win"
    assert wager_result("banker", o, banker_push_on_dragon7=True) == "push"
    assert PAYOUTS["banker"] == 1 and PAYOUTS["player"] == 1
    assert wager_result("player", o, banker_push_on_dragon7=True) == "lose"


def test_outcome_refuses_incomplete_coup_R25() -> None:
    """A player 4 with no third card is not a finished coup."""
    with pytest.raises(ValueError, match="player draws next"):
        outcome(cards("Ah 3d"), cards("Kc Ks"))


def test_unknown_spot_is_an_error_R27() -> None:
    """Only the five spots settle."""
    o = outcome(cards("4h 5d"), cards("3c 5s"))
    with pytest.raises(ValueError, match="not a baccarat wager"):
        wager_result("pair", o)


# --- A property: next_to_draw + outcome equal a plain reading of the document's prose.


def prose_coup(s: Sequence[Card]) -> tuple[list[Card], list[Card]]:
    """Complete a coup from shoe order by the document's prose, written independently here."""

    def pts(c: Card) -> int:
        return 0 if c.rank in "TJQK" else 1 if c.rank == "A" else int(c.rank)

    def tot(h: Sequence[Card]) -> int:
        return sum(pts(c) for c in h) % 10

    player, banker, rest = [s[0], s[2]], [s[1], s[3]], list(s[4:])
    if tot(player) in (8, 9) or tot(banker) in (8, 9):
        return player, banker
    if tot(player) >= 6:  # the player stands; the banker hits on 5 or less
        if tot(banker) <= 5:
            banker.append(rest.pop(0))
        return player, banker
    third = rest.pop(0)
    player.append(third)
    t, b = pts(third), tot(banker)
    hits = (
        b <= 2
        or (b == 3 and t != 8)
        or (b == 4 and t not in (0, 1, 8, 9))
        or (b == 5 and t in (4, 5, 6, 7))
        or (b == 6 and t in (6, 7))
    )
    if hits:
        banker.append(rest.pop(0))
    return player, banker


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(standard_deck()), min_size=6, max_size=6))
def test_property_coup_matches_document_prose_R25_R27(shoe: list[Card]) -> None:
    """For any six cards, the coup dealt by next_to_draw is the one the prose rules deal."""
    player, banker, _ = deal(shoe)
    want_player, want_banker = prose_coup(shoe)
    assert (player, banker) == (want_player, want_banker)
    o = outcome(player, banker)
    pt = sum(0 if c.rank in "TJQK" else 1 if c.rank == "A" else int(c.rank) for c in player) % 10
    bt = sum(0 if c.rank in "TJQK" else 1 if c.rank == "A" else int(c.rank) for c in banker) % 10
    assert (o.player_total, o.banker_total) == (pt, bt)
    assert o.winner == ("player" if pt > bt else "banker" if bt > pt else "tie")
    assert o.dragon7 == (len(banker) == 3 and bt == 7 and pt <= 6)
    assert o.panda8 == (len(player) == 3 and pt == 8 and bt <= 7)
