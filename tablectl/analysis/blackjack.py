"""Pure 21.5 and Pure Spanish 21.5 side bets counted exactly: Match the Dealer, Red Flex, Buster,
insurance; and what the 21.5 analyses share (the games, their shoes and deck ranges, the wagers
analysed and their default pay tables).

- Match the Dealer (R21) is settled on three cards, the player's two and the player-dealer's up
  card, so it is counted exactly: every up card of the shoe and every pair of the rest.
- Insurance (R17) is counted exactly over the hole card given an ace up.
- Red Flex (R18) and Buster (R19) are settled on the player-dealer's whole hand, which draws by
  Chart 1B after the players have drawn. Their headline is exact, for the player-dealer's hand
  dealt from the top of a full shoe (`exact_full_shoe`, `dealer_distribution`): a forward
  recursion over the multisets of card values the hand can hold (its total, softness and size
  are functions of the multiset, and drawing without replacement makes every ordering of one
  multiset equally likely), in Fractions. A seeded simulation of a full table
  (tablectl/analysis/blackjack_sim.py) is its cross-check.

The players' draws cannot move the exact figure: whether a player draws depends only on cards
already seen, and the unseen remainder of a shuffled shoe stays exchangeable at such a stopping
time, so the player-dealer's later cards are distributed as the next cards of the shoe. The tests
check the argument exactly (every deal of a small shoe, a player drawing first by a rule that
reads the up card) and the simulation, which does deal the players, checks it by sampling.

Every decision is read from `tablectl.rules.blackjack` (the same functions the engine uses), on
representative cards, so analysis and play cannot disagree. `tablectl analyze` reaches these
figures through tablectl/analysis/blackjack_wagers.py; the base game wager is computed exactly
for a stated strategy (tablectl/analysis/blackjack_exact.py) and simulated through the table's own
engine as the cross-check (tablectl/analysis/blackjack_base.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb
from types import MappingProxyType
from typing import Any

from tablectl.rules.blackjack import (
    INSURANCE_ODDS,
    buster_cards,
    buster_category,
    card_value,
    dealer_must_hit,
    is_bonus,
    is_pure,
    match_dealer,
    match_dealer_category,
    red_flex_category,
)
from tablectl.rules.paytables import PayTable, payout
from tablectl_base.cards import Card, DeckKind, deck_of

PURE_GAME = "pure-21.5-blackjack"
SPANISH_GAME = "pure-spanish-21.5"

# Decks: Pure 21.5 "a minimum of a single deck to a maximum of eight decks" (000 "Pure 21.5
# Blackjack: Description of the Deck and Number of Decks Used", 003 "Pure 21.5 Blackjack 3 to 2:
# Value of the Cards"); Pure Spanish 21.5 "a minimum of four decks ... to a maximum of eight" (003
# "Pure Spanish 21.5: Description of the Deck and Number of Decks Used").
DECK_RANGE: Mapping[str, tuple[int, int]] = MappingProxyType(
    {PURE_GAME: (1, 8), SPANISH_GAME: (4, 8)}
)
DECK_KIND: Mapping[str, DeckKind] = MappingProxyType(
    {PURE_GAME: DeckKind.PURE_21_5, SPANISH_GAME: DeckKind.SPANISH_48}
)
# DESIGN contract 4 wager ids analyzed by `analyze`; "base" (the game wager) needs a player
# strategy and is analysed by `blackjack_base.analyze_base` (exact, its simulation the cross-check).
WAGERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {PURE_GAME: ("red-flex", "buster", "insurance"), SPANISH_GAME: ("match-dealer",)}
)
BASE_WAGER = "base"
# Every wager `tablectl analyze` takes for the game (contract 4 ids): the base game (simulated by
# blackjack_base) and this module's side bets; a refusal names them all.
ANALYZED: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {game: (BASE_WAGER, *side) for game, side in WAGERS.items()}
)
# Default tables: 000's (the Bureau's Pure 21.5 approval with both side bets: RFB-02 in
# 000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table Options", Buster "Payout Option 5" in
# 000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet Pay Table"); 003's Match the Dealer table
# (003 "Pure Spanish 21.5: Match the Dealer Card Bonus Bet Pay Tables").
DEFAULT_PAYTABLES: Mapping[str, str] = MappingProxyType(
    {"red-flex": "RFB-02", "buster": "option-5", "match-dealer": "MATCH-003"}
)

EXACT_FOR = "the player-dealer's hand from a full shoe"
"""What an exact Red Flex or Buster figure is the figure of (`blackjack_wagers.analyze`'s
"exact_for")."""
EXACT_ASSUMES = (
    "the player-dealer's cards are the first cards of a freshly shuffled full shoe of the "
    "configured decks (no player cards removed), completed by Chart 1B unless a Pure 21.5 "
    "(R14); players' draws depend only on cards already seen, so this is also the per-round "
    "figure of a table dealt from a freshly shuffled shoe, the simulation's"
)
MATCH_ASSUMES = (
    "the player's two initial cards and the player-dealer's up card are three cards of a freshly "
    "shuffled shoe of the configured decks; every choice of three is equally likely"
)
INSURANCE_ASSUMES = (
    "the player-dealer's up card is an ace and the hole card is any other card of the shoe "
    "(the player's own cards not removed); insurance pays 2 to 1 when it is a bonus card (R17)"
)


def check_side_bet(game: str, wager: str, decks: int) -> None:
    """Refuse a game, wager or deck count the documents do not have, naming what they allow."""
    if game not in WAGERS:
        raise ValueError(f"{game!r} is not a 21.5 game: expected one of {', '.join(WAGERS)}")
    if wager == BASE_WAGER:
        raise ValueError(
            f"'base' is not an analyzed {game} side bet: blackjack_base.analyze_base analyses it"
        )
    if wager not in WAGERS[game]:
        raise ValueError(
            f"{wager!r} is not an analyzed {game} wager: expected one of "
            + ", ".join(ANALYZED[game])
        )
    check_decks(game, decks)


def check_decks(game: str, decks: int) -> None:
    """Refuse a deck count the game's document does not allow (DECK_RANGE)."""
    lo, hi = DECK_RANGE[game]
    if isinstance(decks, bool) or not isinstance(decks, int) or not lo <= decks <= hi:
        raise ValueError(f"{game} is played with {lo} to {hi} decks, not {decks!r}")


def shoe(game: str, decks: int) -> list[Card]:
    """Every card of the game's shoe of `decks` decks, in a fixed order."""
    return list(deck_of(DECK_KIND[game])) * decks


def _figures(probabilities: Mapping[str, Fraction], table: PayTable) -> tuple[Fraction, Fraction]:
    """(hit frequency, house edge) of a wager paying `table` on categories of these chances."""
    hit = sum(probabilities.values(), Fraction(0))
    ev = sum((p * payout(table, c) for c, p in probabilities.items()), Fraction(0)) - (1 - hit)
    return hit, -ev


# ---------------------------------------------------------------- Match the Dealer (exact)


def match_dealer_counts(game: str, decks: int) -> dict[str, int]:
    """Ordered (up card, unordered player pair) choices by R21 category, over the whole shoe.

    For an up card u held `m` times, the other N - 1 cards hold m - 1 suited matches (same
    rank and suit), r unsuited ones (same rank, other suits) and o = N - 1 - (m - 1) - r others;
    each category is a product of binomials. The total is N * C(N - 1, 2).
    """
    cards = Counter(shoe(game, decks))
    n = sum(cards.values())
    per_rank = Counter(c.rank for c in cards.elements())
    counts: Counter[str] = Counter()
    for up, m in cards.items():
        s = m - 1
        r = per_rank[up.rank] - m
        o = n - 1 - s - r
        ways = {
            (2, 0): comb(s, 2),
            (1, 1): s * r,
            (1, 0): s * o,
            (0, 2): comb(r, 2),
            (0, 1): r * o,
        }
        for (suited, unsuited), k in ways.items():
            category = match_dealer(_match_pair(up, suited, unsuited), up)
            if category is None:
                raise RuntimeError(f"{suited} suited + {unsuited} unsuited is not a match (R21)")
            counts[category] += m * k
    counts["no-match"] = n * comb(n - 1, 2) - sum(counts.values())
    return dict(counts)


def _match_pair(up: Card, suited: int, unsuited: int) -> list[Card]:
    """Two representative player cards with that many suited and unsuited matches of `up`."""
    other_suit = "s" if up.suit != "s" else "h"
    other_rank = "2" if up.rank != "2" else "3"
    pair = [up] * suited + [Card(up.rank, other_suit)] * unsuited
    return pair + [Card(other_rank, up.suit)] * (2 - len(pair))


def match_dealer_figures(game: str, decks: int, table: PayTable) -> dict[str, Any]:
    """Exact Match the Dealer figures: probabilities by category, hit frequency and house edge."""
    counts = match_dealer_counts(game, decks)
    total = sum(counts.values())
    probs = {
        c: Fraction(k, total)
        for c, k in counts.items()
        if match_dealer_category(c if c != "no-match" else None, table)
    }
    hit, edge = _figures(probs, table)
    return {
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "exact": {"hit_frequency": str(hit), "house_edge": str(edge)},
        "method": "exact",
        "deals": total,
        "counts": counts,
        "probabilities": {c: k / total for c, k in counts.items()},
        "assumes": MATCH_ASSUMES,
    }


# ---------------------------------------------------------------- insurance (exact)


def insurance_figures(game: str, decks: int) -> dict[str, Any]:
    """Exact insurance figures: the hole card is a bonus card given an ace up (R17,
    000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes")."""
    cards = shoe(game, decks)
    bonus = sum(is_bonus(c) for c in cards)
    hit = Fraction(bonus, len(cards) - 1)
    edge = -(hit * INSURANCE_ODDS - (1 - hit))
    return {
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "exact": {"hit_frequency": str(hit), "house_edge": str(edge)},
        "method": "exact",
        "assumes": INSURANCE_ASSUMES,
    }


# ---------------------------------------------------------------- the player-dealer's hand (exact)

_REP = "A23456789K"  # a representative rank of each value 1..10


def hand_of_values(values: Sequence[int]) -> list[Card]:
    """Representative cards of these values 1..10 (the hand rules look only at values)."""
    return [Card(_REP[v - 1], "s") for v in values]


def _multiset_hand(counts: tuple[int, ...]) -> list[Card]:
    return hand_of_values([v + 1 for v, k in enumerate(counts) for _ in range(k)])


@dataclass(frozen=True)
class DealerDistribution:
    """Exact chances of the player-dealer's final hand from the top of a full shoe.

    `bust_cards[n]`: busted with n cards (888 included, R19); `red_run[n]`: Red Flex count n >= 2
    (R18); `pure`: a Pure 21.5.
    """

    bust_cards: Mapping[int, Fraction]
    red_run: Mapping[int, Fraction]
    pure: Fraction


def _composition(game: str, decks: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cards of each value 1..10 in the shoe, and red cards of each value."""
    total = [0] * 10
    red = [0] * 10
    for c in shoe(game, decks):
        total[card_value(c) - 1] += 1
        red[card_value(c) - 1] += c.is_red
    return tuple(total), tuple(red)


def _stops(counts: tuple[int, ...]) -> bool:
    """Whether the player-dealer's hand of these values is complete (R14: pure, or Chart 1B)."""
    cards = _multiset_hand(counts)
    if len(cards) < 2:
        return False
    return is_pure(cards, split=False) or not dealer_must_hit(cards)


@cache
def dealer_distribution(game: str, decks: int) -> DealerDistribution:
    """The exact distribution of the player-dealer's hand dealt from the top of a full shoe."""
    have, red_have = _composition(game, decks)
    n = sum(have)
    bust: dict[int, Fraction] = {}
    pure = Fraction(0)
    # Buster: every multiset of values still drawing, with its chance.
    layer: dict[tuple[int, ...], Fraction] = {(0,) * 10: Fraction(1)}
    size = 0
    while layer:
        nxt: dict[tuple[int, ...], Fraction] = {}
        for counts, p in layer.items():
            for v in range(10):
                left = have[v] - counts[v]
                if left <= 0:
                    continue
                grown = (*counts[:v], counts[v] + 1, *counts[v + 1 :])
                q = p * Fraction(left, n - size)
                if not _stops(grown):
                    nxt[grown] = nxt.get(grown, Fraction(0)) + q
                    continue
                cards = _multiset_hand(grown)
                if is_pure(cards, split=False):
                    pure += q
                busted = buster_cards(cards)
                if busted is not None:
                    bust[busted] = bust.get(busted, Fraction(0)) + q
        layer = nxt
        size += 1
    return DealerDistribution(
        bust_cards=MappingProxyType(bust),
        red_run=MappingProxyType(_red_runs(have, red_have)),
        pure=pure,
    )


def _red_runs(have: tuple[int, ...], red_have: tuple[int, ...]) -> dict[int, Fraction]:
    """Chances of each Red Flex count >= 2: runs of red cards from the top of the shoe (R18).

    A state is the multiset of values of an all-red hand still drawing; the run ends at the
    first black card (black cards are all still in the shoe) or when the hand is complete.
    """
    n = sum(have)
    black = n - sum(red_have)
    runs: dict[int, Fraction] = {}
    layer: dict[tuple[int, ...], Fraction] = {(0,) * 10: Fraction(1)}
    size = 0
    while layer:
        nxt: dict[tuple[int, ...], Fraction] = {}
        for counts, p in layer.items():
            if size >= 2:  # a black card now ends a run of `size` reds
                runs[size] = runs.get(size, Fraction(0)) + p * Fraction(black, n - size)
            for v in range(10):
                left = red_have[v] - counts[v]
                if left <= 0:
                    continue
                grown = (*counts[:v], counts[v] + 1, *counts[v + 1 :])
                q = p * Fraction(left, n - size)
                if _stops(grown):
                    runs[size + 1] = runs.get(size + 1, Fraction(0)) + q
                else:
                    nxt[grown] = nxt.get(grown, Fraction(0)) + q
        layer = nxt
        size += 1
    return runs


def exact_full_shoe(game: str, wager: str, decks: int, table: PayTable) -> dict[str, Any]:
    """Exact Red Flex or Buster figures for the player-dealer's hand from a full shoe."""
    dist = dealer_distribution(game, decks)
    counts = dist.red_run if wager == "red-flex" else dist.bust_cards
    probs: dict[str, Fraction] = {}
    for k, p in counts.items():
        row = wager_row(wager, k, table)
        if row is not None:
            probs[row] = probs.get(row, Fraction(0)) + p
    hit, edge = _figures(probs, table)
    return {
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "exact": {"hit_frequency": str(hit), "house_edge": str(edge)},
        "method": "exact",
        "probabilities": {row: float(p) for row, p in sorted(probs.items())},
        "assumes": EXACT_ASSUMES,
    }


def wager_row(wager: str, k: int | None, table: PayTable) -> str | None:
    if wager == "red-flex":
        return red_flex_category(k or 0, table)
    return buster_category(k, table)
