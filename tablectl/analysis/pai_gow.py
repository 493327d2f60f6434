"""Exact Fortune Bonus analysis over all C(53,7) = 154,143,080 seven-card hands of the joker deck.

The Fortune Bonus is settled on the player's first seven cards (003 "Fortune Pai Gow Poker: Fortune
Bonus Bet"), so every seven cards of the 53-card deck (003 "Fortune Pai Gow Poker: Description of
the Deck and Number of Decks Used") are counted, in two parts: without the joker (seven of the 52
cards) and with it (the joker and six of the 52). Each part is grouped into classes the rules cannot
tell apart, as `tablectl.analysis.three_card_poker` does: a rank multiset, plus, when one suit can
make a flush (five cards of it, or four and the joker), which ranks hold a card of that suit, plus,
for the Royal Match (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings"), whether the king
and queen outside that suit share a suit. At most one suit can be the flush suit (5 + 5 > 7 and 4 +
4 > 6), so the classes are disjoint. Each class is weighted by its exact number of suit assignments
and ranked once by `tablectl.rules.pai_gow.fortune_category` on a representative hand, so the
analysis and the engine share one evaluator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb, prod
from types import MappingProxyType
from typing import TypedDict

from tablectl.analysis import in_steps, wager_paytable
from tablectl.games.spec import Analysis, AnalyzeRequest
from tablectl.rules.pai_gow import DEFAULT_PAYTABLE as DEFAULT_PAYTABLE  # the CLI's default
from tablectl.rules.pai_gow import PAYTABLE_PATH, fortune_category_unchecked
from tablectl.rules.paytables import FORTUNE_CATEGORIES, PayTable, payout
from tablectl_base.cards import JOKER, RANKS, SUITS, Card

GAME = "fortune-pai-gow"  # DESIGN contract 4 game id
WAGERS = ("fortune",)
NONE = "none"  # seven cards that make less than a straight: the Fortune Bonus loses

_JOKER = Card(JOKER, "")
_FLUSH_SUIT = "s"
_OTHER_SUITS = "hdc"
_COMB3 = (1, 3, 3, 1, 0)  # comb(3, n): the other suits a rank's cards outside the flush suit take
_COMB4 = (1, 4, 6, 4, 1)
_CARD = {(r, s): Card(r, s) for r in RANKS for s in SUITS}
_OFF = {
    (r, order): [_CARD[r, s] for s in order]
    for r in RANKS
    for order in (
        _OTHER_SUITS,
        _OTHER_SUITS[1:] + _OTHER_SUITS[:1],
        _OTHER_SUITS[2:] + _OTHER_SUITS[:2],
    )
}


def _multisets(n: int, ranks: int, first: int = 0) -> Iterator[tuple[int, ...]]:
    """Every way to hold n cards as counts (0..4) over `ranks` ranks, from rank `first` on."""
    if first == ranks - 1:
        if n <= 4:
            yield (n,)
        return
    for k in range(min(n, 4) + 1):
        for rest in _multisets(n - k, ranks, first + 1):
            yield (k, *rest)


def _plain_hand(ranks: str, counts: tuple[int, ...]) -> list[Card]:
    """Cards with these rank counts and at most two of any suit (suits dealt round robin)."""
    cards: list[Card] = []
    for r, k in enumerate(counts):
        for _ in range(k):
            cards.append(_CARD[ranks[r], "shdc"[len(cards) % 4]])
    return cards


def _flush_hand(
    ranks: str, present: list[tuple[int, int]], suited: frozenset[int], off: dict[int, str]
) -> list[Card]:
    """Cards with these (rank, count) pairs whose flush suit holds exactly the ranks in `suited`;
    rank r's other cards take the suits `off[r]` (the king and queen may share one or not)."""
    cards: list[Card] = []
    for r, k in present:
        if r in suited:
            cards.append(_CARD[ranks[r], _FLUSH_SUIT])
            k -= 1
        if k:
            cards.extend(_OFF[ranks[r], off.get(r, _OTHER_SUITS)][:k])
    return cards


def _royal_match_split(
    ranks: str, offs: dict[int, int]
) -> Iterator[tuple[bool | None, dict[int, str], int, int]]:
    """Ways the off-suit king and queen can be placed, as (matched, suits for them, ways, of all
    ways): sharing a suit (a Royal Match, 003 "Fortune Pai Gow Poker: Card Values and Hand
    Rankings") or not; one part, matched None, when either is missing."""
    k, q = ranks.find("K"), ranks.find("Q")
    a, b = offs.get(k, 0), offs.get(q, 0)
    if k < 0 or q < 0 or not a or not b:
        yield None, {}, 1, 1
        return
    both = comb(3, a) * comb(3, b)
    apart = comb(3, a) * comb(3 - a, b)
    if both - apart:
        yield True, {k: _OTHER_SUITS, q: _OTHER_SUITS}, both - apart, both
    if apart:
        yield False, {k: _OTHER_SUITS, q: _OTHER_SUITS[a:] + _OTHER_SUITS[:a]}, apart, both


def _name(cards: list[Card]) -> str:
    return fortune_category_unchecked(cards) or NONE


@cache
def category_counts(joker: bool, ranks: str = RANKS) -> Mapping[str, int]:
    """How many seven-card hands of a deck of `ranks` in four suits (plus the joker when `joker`)
    fall in each Fortune category ("none" below a straight), exactly.

    `joker=False` counts the hands without the joker, `joker=True` those holding it; the full
    53-card deck is both with `ranks=RANKS`. A smaller `ranks` gives a deck small enough to check
    the counting against a hand-by-hand pass.

    A flush class depends on its ranks only through the category they make without a flush:
    whatever the flush suit makes is a flush or better, which only a full house, four of a kind
    or five aces (rank-only hands) can beat. So flush classes that share that category, the
    flush suit's ranks and the Royal Match split share one evaluation (`memo`).
    """
    reals = 6 if joker else 7
    flush_min = 4 if joker else 5  # a flush is five of a suit, the joker standing for one
    extra = [_JOKER] if joker else []
    counts: Counter[str] = Counter()
    memo: dict[tuple[str, frozenset[int], bool | None], str] = {}
    # the Fortune count's two parts: without the joker (0 of 2), then with it (1 of 2)
    for ms in in_steps(list(_multisets(reals, len(ranks))), part=int(joker), parts=2):
        total = prod(_COMB4[k] for k in ms)
        held = [(r, k) for r, k in enumerate(ms) if k]
        present = [r for r, _ in held]
        plain = _name([*_plain_hand(ranks, ms), *extra])
        flushes = 0
        for size in range(flush_min, len(present) + 1):
            for subset in combinations(present, size):
                suited = frozenset(subset)
                offs = {r: k - (r in suited) for r, k in held}
                ways = 4 * prod(_COMB3[n] for n in offs.values())
                if not ways:
                    continue
                flushes += ways
                for matched, off, part, whole in _royal_match_split(ranks, offs):
                    key = (plain, suited, matched)
                    name = memo.get(key)
                    if name is None:
                        name = memo[key] = _name([*_flush_hand(ranks, held, suited, off), *extra])
                    counts[name] += ways * part // whole
        counts[plain] += total - flushes
    expected = comb(4 * len(ranks), reals)
    if sum(counts.values()) != expected:
        raise AssertionError(f"the classes cover {sum(counts.values())} hands, not {expected}")
    return MappingProxyType(dict(counts))


@cache
def fortune_counts() -> Mapping[str, int]:
    """Exact Fortune category counts over all C(53,7) seven-card hands of the joker deck."""
    both: Counter[str] = Counter(category_counts(False))
    both.update(category_counts(True))
    return MappingProxyType(dict(both))


def exact_figures(table: PayTable) -> tuple[Fraction, Fraction]:
    """Exact hit frequency and house edge (the player's expected loss per unit wagered) of the
    Fortune Bonus on `table`, its own hand only (Envy buttons are paid on other hands, R32)."""
    if table.wager != "fortune":
        raise ValueError(f"pay table {table.name} is for {table.wager}, not fortune")
    counts = fortune_counts()
    hands = sum(counts.values())
    won = {c: k for c, k in counts.items() if c != NONE and payout(table, c)}
    hits = sum(won.values())
    paid = sum(k * payout(table, c) for c, k in won.items())
    return Fraction(hits, hands), Fraction(hands - hits - paid, hands)


def envy_per_other_hand(table: PayTable) -> Fraction:
    """Dollars one Envy button wins on average from one other player's Fortune hand (R32).

    Exact by linearity: the other hand's seven cards are any seven of the deck, whatever this
    player holds, so its chance of each category is the deck's.
    """
    counts = fortune_counts()
    hands = sum(counts.values())
    return sum(
        (
            Fraction(k, hands) * Fraction(table.envy[c])
            for c, k in counts.items()
            if c in table.envy
        ),
        Fraction(0),
    )


class EnvyFigures(TypedDict):
    """The Envy Bonus's fixed amounts (R32) and what one button wins per other hand."""

    amounts: dict[str, str]
    per_other_hand: float


class FortuneAnalysis(TypedDict):
    """`analyze`'s answer, printed as JSON by `tablectl analyze` in this key order."""

    game: str
    wager: str
    paytable: str
    pays: dict[str, str]
    hit_frequency: float
    house_edge: float
    method: str
    hands: int
    counts: dict[str, int]
    counts_without_joker: dict[str, int]
    counts_with_joker: dict[str, int]
    probabilities: dict[str, float]
    envy: EnvyFigures


def analyze(wager: str, paytable: PayTable | str = DEFAULT_PAYTABLE) -> FortuneAnalysis:
    """Hit frequency, house edge and category counts of the Fortune Bonus, exact (C(53,7))."""
    if wager not in WAGERS:
        raise ValueError(
            f"{wager!r} is not a Fortune Pai Gow wager analyze knows: expected one of {WAGERS} "
            "(the Envy Bonus pays fixed amounts on other players' hands; see envy_per_other_hand)"
        )
    table = (
        wager_paytable(paytable, wager, PAYTABLE_PATH) if isinstance(paytable, str) else paytable
    )
    hit, edge = exact_figures(table)
    counts = fortune_counts()
    hands = sum(counts.values())
    ordered = {c: counts.get(c, 0) for c in (*FORTUNE_CATEGORIES, NONE)}
    return {
        "game": GAME,
        "wager": wager,
        "paytable": table.name,
        "pays": {c: f"{p} to 1" for c, p in table.pays.items()},
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "method": "exact",
        "hands": hands,
        "counts": ordered,
        "counts_without_joker": {c: category_counts(False).get(c, 0) for c in ordered},
        "counts_with_joker": {c: category_counts(True).get(c, 0) for c in ordered},
        "probabilities": {c: k / hands for c, k in ordered.items()},
        "envy": {
            "amounts": {c: str(a) for c, a in table.envy.items()},
            "per_other_hand": float(envy_per_other_hand(table)),
        },
    }


def analyze_request(request: AnalyzeRequest) -> Analysis:
    """Exact odds of the Fortune wager over C(53,7): the game's analyzer (its GameSpec names
    it)."""
    # --paytable defaults to FORTUNE-003 (003 "Fortune Pai Gow Poker: Bonus Bet Paytable")
    table = request.paytable or DEFAULT_PAYTABLE
    result = analyze(request.wager, table)
    return Analysis(f"{request.game} {request.wager} ({table})", result)
