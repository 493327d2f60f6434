"""The player-dealer's final hand, exactly, from any composition of the cards left: the base
game's exact analysis (tablectl/analysis/blackjack_exact.py) asks it once for every set of cards
the player's hand can have taken out.

Drawing without replacement makes the chance of one ordered sequence of values depend only on
its multiset: a sequence taking k_v cards of value v from n_v (N cards in all, K drawn) has chance
prod_v n_v (n_v - 1) ... (n_v - k_v + 1) / (N (N - 1) ... (N - K + 1)). So the sequences the
player-dealer can draw after its up card (the hole card, then its hits by Chart 1B, R14) are
enumerated once per up card, grouped by (multiset, final hand) with the number of orderings,
and any composition is then a product of falling factorials per group (numpy, float64).

The hole card is drawn as the first card after the player's: every card the player's hand draws
is chosen by cards already seen, so the unseen rest of the shoe stays exchangeable and the
hole card dealt before them is distributed as the next card after them. With an ace or a bonus
card up, the hole card was checked (R12) and the round goes on only when it makes no Pure 21.5;
those sequences are left out, so the masses here sum to the chance of no Pure 21.5 and a
player's path weighted by its own unconditioned chance times these masses is the joint chance.

Every stop and every final hand is read from `tablectl.rules.blackjack` on representative
cards (`dealer_must_hit`, `is_pure`, `is_888`, `is_bust`, `hand_total`), the engine's own rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from tablectl.rules.blackjack import dealer_must_hit, hand_total, is_888, is_bust, is_pure
from tablectl_base.cards import Card

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# The player-dealer's final hands that settle a base wager differently: its total 17 to 21, a
# bust, and 888, a bust that pushes a busted player (R13). A Pure 21.5 ends the round at the
# peek (R12) and is never one of these.
OUTCOMES = ("17", "18", "19", "20", "21", "bust", "888")
# A representative final hand of each outcome, for the engine's settlement
# (tablectl/games/blackjack/settlement.py base_verdict): the 21 is a three-card 21, never pure.
DEALER_HANDS: tuple[tuple[str, ...], ...] = (
    ("Kc", "7c"),
    ("Kc", "8c"),
    ("Kc", "9c"),
    ("Kc", "Qc"),
    ("7c", "7d", "7h"),
    ("Kc", "6c", "Qc"),
    ("8c", "8d", "8h"),
)
VALUES = 10  # card values 1 (ace) to 10 (bonus cards), R10
_REP = "A23456789K"  # a representative rank of each value


def card_of(value: int) -> Card:
    """A representative card of a value 1..10 (the hand rules look only at values, R10; K is a
    bonus card in both decks)."""
    return Card(_REP[value - 1], "s")


def outcome_of(cards: Sequence[Card]) -> int:
    """The index in OUTCOMES of a completed player-dealer hand."""
    if is_888(cards):
        return OUTCOMES.index("888")
    if is_bust(cards):
        return OUTCOMES.index("bust")
    return OUTCOMES.index(str(hand_total(cards).value))


@dataclass(frozen=True)
class Sequences:
    """The player-dealer's drawing sequences after one up card, grouped: per group the count of
    each value drawn (the hole card and the hits), how many cards, its outcome and its number of
    orderings."""

    counts: npt.NDArray[np.int64]  # (groups, VALUES)
    length: npt.NDArray[np.int64]
    outcome: npt.NDArray[np.int64]
    ways: npt.NDArray[np.float64]
    longest: int


def pure_holes(up: int) -> frozenset[int]:
    """The hole card values that give the player-dealer a Pure 21.5 with this up card (R10)."""
    return frozenset(v for v in range(1, 11) if is_pure([card_of(up), card_of(v)], split=False))


@cache
def sequences(up: int) -> Sequences:
    """Every sequence the player-dealer can draw after the up card `up` (its value), by Chart 1B
    (R14), leaving out the hole cards the peek would have found pure (R12)."""
    import numpy as np

    groups: dict[tuple[tuple[int, ...], int], int] = {}
    skip = pure_holes(up)

    def walk(cards: list[Card], counts: list[int]) -> None:
        for v in range(1, 11):
            if len(cards) == 1 and v in skip:
                continue
            cards.append(card_of(v))
            counts[v - 1] += 1
            if dealer_must_hit(cards):
                walk(cards, counts)
            else:
                key = (tuple(counts), outcome_of(cards))
                groups[key] = groups.get(key, 0) + 1
            cards.pop()
            counts[v - 1] -= 1

    walk([card_of(up)], [0] * VALUES)
    keys = list(groups)
    counts = np.array([k[0] for k in keys], dtype=np.int64)
    length = counts.sum(axis=1)
    return Sequences(
        counts=counts,
        length=length,
        outcome=np.array([k[1] for k in keys], dtype=np.int64),
        ways=np.array([groups[k] for k in keys], dtype=np.float64),
        longest=int(length.max()),
    )


def dealer_masses(up: int, left: Sequence[int]) -> npt.NDArray[np.float64]:
    """The chance of each OUTCOMES final hand of the player-dealer with `up` showing, its hole
    card and hits drawn from `left` (cards of each value 1..10 still unseen), the hole cards the
    peek finds pure left out (R12): the masses sum to the chance of no Pure 21.5."""
    import numpy as np

    seq = sequences(up)
    have = np.asarray(left, dtype=np.float64)
    total = float(have.sum())
    steps = np.arange(seq.longest, dtype=np.float64)
    falling = np.ones((VALUES, seq.longest + 1))
    falling[:, 1:] = np.cumprod(np.maximum(have[:, None] - steps[None, :], 0.0), axis=1)
    below = np.ones(seq.longest + 1)
    below[1:] = np.cumprod(np.maximum(total - steps, 0.0))
    numerator = falling[np.arange(VALUES)[None, :], seq.counts].prod(axis=1)
    denominator = below[seq.length]
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(denominator > 0, seq.ways * numerator / denominator, 0.0)
    masses = np.bincount(seq.outcome, weights=weight, minlength=len(OUTCOMES))
    return masses.astype(np.float64)
