"""Showdown hands of the flop games: Texas Hold'em, Omaha (high and high-low), Crazy Pineapple.

Each game makes its five-card hands from hole cards and the five community cards by its own rule:

* Texas Hold'em: any five of the seven, using two, one or none of the hole cards
  (003 "Texas Hold-Em (High)" rule 3; 004 "Texas Hold'em: Object of the Game").
* Omaha: exactly two of the four hole cards and exactly three of the board
  (003 "Omaha (High)" rule 3, "Omaha (High-Low Split)" rule 3; 004 "Omaha High/Low Split: Object
  of the Game", "How The Pot Is Awarded"). The high and the low are made separately and may use
  different hole and board cards (003 "Omaha (High-Low Split)" rule 7; 004 "Omaha High/Low Split:
  How The Pot Is Awarded").
* Crazy Pineapple High-Low Split: three hole cards, one discarded after the flop, then any five of
  the seven for the high and for a 9-or-better low, each made on its own
  (003 "Crazy Pineapple High-Low Split: Object of the Game", "Dealing Procedures and Round of
  Play", "How Each Wager Wins, Loses, or Pushes").

High ranks are `tablectl.rules.poker` ranks (larger is better); lows are `tablectl.rules.low` keys
(smaller is better). Each evaluator returns the rank or key with the five cards that make it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import Final

from tablectl.rules.low import (
    EIGHT_OR_BETTER,
    NINE_OR_BETTER,
    LowKey,
    best_low_five,
    best_low_of,
    check_qualifier,
    low_value,
)
from tablectl.rules.poker import HandError, Rank, best_five, card_value, rank_unchecked
from tablectl_base.cards import Card

BOARD_CARDS: Final = 5  # "a total of five community cards" (003 "Texas Hold-Em (High)" rule 1)
HOLDEM_HOLE_CARDS: Final = 2  # 003 "Texas Hold-Em (High)" rule 1
OMAHA_HOLE_CARDS: Final = 4  # 003 "Omaha (High)" rule 1
# Crazy Pineapple deals three hole cards and each active player discards one after the flop
# (003 "Crazy Pineapple High-Low Split: Dealing Procedures and Round of Play").
CRAZY_PINEAPPLE_DEALT: Final = 3
CRAZY_PINEAPPLE_HOLE_CARDS: Final = 2
# Omaha hi-lo's low qualifier: 8 or better (003 "Omaha (High-Low Split)", 004 "Omaha High/Low
# Split: Card Values and Hand Rankings"); 003's collection rates name an "Omaha High-Low Split
# (9 Qualifier)", so the qualifier stays a parameter of `omaha_low`.
OMAHA_HI_LO_QUALIFIER: Final = EIGHT_OR_BETTER
# 9 or better (003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings").
CRAZY_PINEAPPLE_QUALIFIER: Final = NINE_OR_BETTER

HighHand = tuple[Rank, tuple[Card, ...]]
LowHand = tuple[LowKey, tuple[Card, ...]]


def _check(
    game: str, hole: Sequence[Card], board: Sequence[Card], holes: int, hint: str = ""
) -> None:
    """Refuse a showdown hand with the wrong number of hole or board cards, a card twice or a
    joker (each flop game is dealt from one 52-card deck with no joker: 004 "Omaha High/Low Split:
    Description of the Deck and Number of Decks Used", 003 "Crazy Pineapple High-Low Split:
    Description of the Deck and Number of Decks Used")."""
    if len(hole) != holes:
        raise HandError(f"{game} shows down {holes} hole cards, got {len(hole)}{hint}")
    if len(board) != BOARD_CARDS:
        raise HandError(f"the board holds {BOARD_CARDS} community cards, got {len(board)}")
    cards = [*hole, *board]
    if len(set(cards)) != len(cards):
        raise HandError(f"a card appears twice in hole {_show(hole)} and board {_show(board)}")
    for card in cards:
        card_value(card)  # raises on the joker


def _check_crazy_pineapple(hole: Sequence[Card], board: Sequence[Card]) -> None:
    """`_check` for a Crazy Pineapple hand, which shows down the two cards kept of three."""
    hint = (
        " (one of the three is discarded after the flop)"
        if len(hole) == CRAZY_PINEAPPLE_DEALT
        else ""
    )
    _check("Crazy Pineapple", hole, board, CRAZY_PINEAPPLE_HOLE_CARDS, hint)


def _show(cards: Sequence[Card]) -> str:
    """Cards as text for an error message."""
    return " ".join(map(str, cards))


# ---------------------------------------------------------------- Omaha: two and three


def _omaha_fives(hole: Sequence[Card], board: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every five-card hand of exactly two hole cards and exactly three board cards."""
    for two in combinations(hole, 2):
        for three in combinations(board, 3):
            yield (*two, *three)


def omaha_high(hole: Sequence[Card], board: Sequence[Card]) -> HighHand:
    """The best Omaha high hand: two of the four hole cards and three of the five board cards.

    Four hearts on the board and one in the hand make no flush; three of a kind in the hand plays
    as a pair at most (003 "Omaha (High)" rule 3 and its example)."""
    _check("Omaha", hole, board, OMAHA_HOLE_CARDS)
    best: HighHand | None = None
    for five in _omaha_fives(hole, board):
        rank = rank_unchecked(five)
        if best is None or rank > best[0]:
            best = (rank, five)
    assert best is not None  # 6 x 10 candidates
    return best


def omaha_low(
    hole: Sequence[Card], board: Sequence[Card], qualifier: int | None = OMAHA_HI_LO_QUALIFIER
) -> LowHand | None:
    """The best Omaha low, two hole cards and three board cards, or None when none qualifies
    (004 "Omaha High/Low Split: Card Values and Hand Rankings": the two hole cards and three
    community cards used "cannot contain a card with a value of 9 or higher")."""
    _check("Omaha", hole, board, OMAHA_HOLE_CARDS)
    check_qualifier(qualifier)
    if qualifier is not None:
        # A card above the qualifier can be in no qualifying low.
        hole = [c for c in hole if low_value(c) <= qualifier]
        board = [c for c in board if low_value(c) <= qualifier]
    return best_low_of(_omaha_fives(hole, board), qualifier)


# ---------------------------------------------------------------- any five of seven


def holdem_high(hole: Sequence[Card], board: Sequence[Card]) -> HighHand:
    """The best Texas Hold'em hand: any five of the two hole cards and the five board cards
    (003 "Texas Hold-Em (High)" rule 3: "one, two, or none of their hole cards")."""
    _check("Texas Hold'em", hole, board, HOLDEM_HOLE_CARDS)
    return best_five([*hole, *board])


def crazy_pineapple_keep(dealt: Sequence[Card], discard: Card) -> tuple[Card, Card]:
    """The two hole cards a Crazy Pineapple player keeps after discarding one of the three dealt
    (003 "Crazy Pineapple High-Low Split: Dealing Procedures and Round of Play")."""
    if len(dealt) != CRAZY_PINEAPPLE_DEALT or len(set(dealt)) != CRAZY_PINEAPPLE_DEALT:
        raise HandError(
            f"Crazy Pineapple deals {CRAZY_PINEAPPLE_DEALT} different hole cards, "
            f"got {_show(dealt)}"
        )
    if discard not in dealt:
        raise HandError(f"the discard {discard} is not one of the hole cards {_show(dealt)}")
    first, second = (c for c in dealt if c != discard)
    return first, second


def crazy_pineapple_high(hole: Sequence[Card], board: Sequence[Card]) -> HighHand:
    """The best Crazy Pineapple high hand: any five of the two kept hole cards and the board
    (003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes")."""
    _check_crazy_pineapple(hole, board)
    return best_five([*hole, *board])


def crazy_pineapple_low(hole: Sequence[Card], board: Sequence[Card]) -> LowHand | None:
    """The best Crazy Pineapple low, any five of the seven, or None when no 9-or-better low can be
    made (003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings", "How Each Wager
    Wins, Loses, or Pushes": "zero, one, or both hole cards")."""
    _check_crazy_pineapple(hole, board)
    return best_low_five([*hole, *board], CRAZY_PINEAPPLE_QUALIFIER)
