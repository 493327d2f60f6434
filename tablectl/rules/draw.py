"""The draw games' hands, pure: Five Card Draw high and high-low eight or better, and Lowball
with the bug (document 003 "Five Card Draw", "Five Card Draw (High-Low Split)", "Lowball").

A draw hand is exactly five cards ("Five cards constitute a hand. A hand more or less than five
cards is dead", 003 "Lowball" rule 4). Lowball is ace-to-five: the ace is low, straights and
flushes do not count, the best hand is A-2-3-4-5 (rules/low.py ranks it), and the joker, the
"bug", "represents the lowest card not actually held in the hand" ("the lowest card in your
hand without pairing", rule 3). The seven rule (R45) asks whether a hand is a seven or better.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tablectl.rules.flop_hands import HighHand, LowHand
from tablectl.rules.low import EIGHT_OR_BETTER, NO_PAIR, LowKey, best_low_five, low_key, low_value
from tablectl.rules.poker import HandError, best_five, check_cards
from tablectl_base.cards import RANKS, Card

HAND_SIZE: Final = 5
SEVEN: Final = 7
"""R45: a Lowball hand "seven or better" is unpaired with its highest card a seven or lower."""


def _five(cards: Sequence[Card]) -> None:
    """Refuse anything but five distinct cards (at most one joker)."""
    if len(cards) != HAND_SIZE:
        raise HandError(f'a draw hand is five cards, not {len(cards)} (003 "Lowball" rule 4)')
    check_cards(cards, HAND_SIZE, HAND_SIZE, needs="a draw hand is made from")


def draw_high(cards: Sequence[Card]) -> HighHand:
    """Five Card Draw's hand for high: the five cards as they are (no joker in its deck)."""
    _five(cards)
    return best_five(cards)


def draw_low_eight(cards: Sequence[Card]) -> LowHand | None:
    """Five Card Draw high-low's low: five cards 8 or below without pairing, or None (003 "Five
    Card Draw (High-Low Split)": "a player must have five cards 8 or below without pairing")."""
    _five(cards)
    return best_low_five(cards, EIGHT_OR_BETTER)


def bug_card(cards: Sequence[Card]) -> Card:
    """What Lowball's joker stands for among `cards`: the lowest rank none of the others holds
    (003 "Lowball": "the lowest card not actually held in the hand"), in a suit no one counts
    (suits are nothing in a low hand)."""
    held = {low_value(c) for c in cards if not c.is_joker}
    value = next(v for v in range(1, len(RANKS) + 1) if v not in held)
    return Card(RANKS[value - 1], "s")


def lowball_low(cards: Sequence[Card]) -> LowHand:
    """A Lowball hand's key (smaller is better; the joker counted as the card it stands for)
    and its five cards as dealt: ace to five, pairs counting against it, no qualifier (003
    "Lowball")."""
    _five(cards)
    jokers = [c for c in cards if c.is_joker]
    if len(jokers) > 1:
        raise HandError("Lowball's pack has one joker")
    plain = [c for c in cards if not c.is_joker]
    shown = (*plain, bug_card(plain)) if jokers else tuple(plain)
    return low_key(shown), tuple(cards)


def seven_or_better(key: LowKey) -> bool:
    """R45: an unpaired low whose highest card is a seven or lower."""
    return key[0] == NO_PAIR and key[1] <= SEVEN
