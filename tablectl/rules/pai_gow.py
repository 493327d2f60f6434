"""Fortune Pai Gow Poker rules: hands with the joker, fouls, the house way, copies, Fortune, Envy.

The game is document 003 "Fortune Pai Gow Poker" (and 004 "Fortune Pai Gow Poker"); rulings R30-R32.
Ranks are tuples that compare with `<`, built on `tablectl.rules.poker` (categories 0..8) with one
category above them: five aces (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings", ranked
above the royal flush at line 1382). A two-card rank uses the same category numbers (pair or high
card), so a low hand compares directly against a high hand: the foul test of
003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play" is one tuple comparison.

The joker (003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used", R31) is an
ace, or stands for a card the hand lacks to complete a straight, a flush or a straight flush. It is
never a second copy of a card in the hand, except as the fifth ace of five aces, which the documents
name (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings"). In a flush that already holds the
ace it therefore becomes the highest card of the suit the hand lacks (the documents are silent;
a single deck has one ace of each suit).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Literal

from tablectl.rules.paytables import PAYTABLE_DIR, PayTable, get_paytable
from tablectl.rules.poker import (
    ACE,
    FIVE_CARD_CATEGORIES,
    FLUSH,
    HIGH_CARD,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    HandError,
    card_value,
    rank_category,
    rank_unchecked,
)
from tablectl_base.cards import JOKER, RANKS, SUITS, Card

Rank = tuple[int, ...]
HouseWay = Literal["003", "004"]
HOUSE_WAYS: tuple[HouseWay, ...] = ("003", "004")

# 003 "Fortune Pai Gow Poker: Card Values and Hand Rankings": four aces and the joker, the best
# five-card hand (listed above the royal flush).
FIVE_ACES = STRAIGHT_FLUSH + 1
FIVE_ACES_RANK: Rank = (FIVE_ACES, ACE, ACE, ACE, ACE, ACE)

_ACES = {suit: Card("A", suit) for suit in SUITS}
# Each rank's poker value, as `tablectl.rules.poker.card_value` gives it, looked up without a call.
_RANK_VALUE = {rank: card_value(Card(rank, SUITS[0])) for rank in RANKS}
# 003 "Fortune Pai Gow Poker House Way": "A complete hand is considered a straight or better."
_COMPLETE = STRAIGHT
_STRAIGHT_OR_FLUSH = (STRAIGHT, FLUSH, STRAIGHT_FLUSH)


# The Fortune Bonus pay tables (003 "Fortune Pai Gow Poker: Bonus Bet Paytable",
# 004 "Fortune Pai Gow Poker: Fortune and Envy Bonus Bet Paytable"); the documents name none, so the
# one table they print is "FORTUNE-003" (config/paytables/fortune-pai-gow.toml).
PAYTABLE_PATH = PAYTABLE_DIR / "fortune-pai-gow.toml"
DEFAULT_PAYTABLE = "FORTUNE-003"


def fortune_paytable(name: str = DEFAULT_PAYTABLE) -> PayTable:
    """A Fortune Bonus pay table by name from config/paytables/fortune-pai-gow.toml."""
    return get_paytable(name, PAYTABLE_PATH)


class SettingError(ValueError):
    """A setting of seven cards into a high and a low hand that is not legal, with the reason."""


# ---------------------------------------------------------------- cards and checks


def _value(card: Card) -> int:
    """Value for pairs and high cards: the joker counts as an ace
    (003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used", R31)."""
    return ACE if card.is_joker else card_value(card)


def _check(cards: Sequence[Card], low: int, high: int | None = None) -> None:
    """Refuse a hand of the wrong size or with a card twice (one 53-card deck,
    003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used")."""
    high = low if high is None else high
    if not low <= len(cards) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        raise HandError(f"expected {want} cards, got {len(cards)}")
    for card in cards:
        if not isinstance(card, Card):
            raise HandError(f"{card!r} is not a Card")
    if len(set(cards)) != len(cards):
        raise HandError(f"a card appears twice in {_text(cards)}")


def _text(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards))


def _window_high(values: set[int], length: int, need: int) -> int | None:
    """Top of the highest run of `length` consecutive values holding at least `need` of `values`.

    The ace counts high and low (A-2-3-4-5 is the lowest straight,
    003 "Fortune Pai Gow Poker: Card Values and Hand Rankings").
    """
    mask = 0
    for v in values:
        mask |= 1 << v
    return _mask_window_high(mask, length, need)


@cache
def _mask_window_high(mask: int, length: int, need: int) -> int | None:
    """`_window_high` of the values whose bits `mask` sets (cached: there are few masks)."""
    if mask >> ACE & 1:
        mask |= 2  # the ace as 1
    full = (1 << length) - 1
    for top in range(ACE, length - 1, -1):
        if (mask >> (top - length + 1) & full).bit_count() >= need:
            return top
    return None


def _run(top: int) -> tuple[int, ...]:
    """The five values of the straight topped by `top`; the wheel ends with the ace as 1."""
    return tuple(range(top, top - 5, -1))


# ---------------------------------------------------------------- five-card (high) hands


def _joker_rank(reals: Sequence[Card]) -> Rank:
    """Best five-card rank of 4 to 6 real cards and the joker (R31: an ace, or completes a
    straight or flush; 003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks
    Used", "Fortune Bonus Bet")."""
    values = [_RANK_VALUE[c.rank] for c in reals]
    if values.count(ACE) == 4:
        return FIVE_ACES_RANK  # 003 "Fortune Pai Gow Poker: Card Values and Hand Rankings"
    by_suit: dict[str, set[int]] = {suit: set() for suit in SUITS}
    for card, value in zip(reals, values, strict=True):
        by_suit[card.suit].add(value)
    # As an ace: given the suit the real cards hold least, so it makes no flush of its own.
    spare = min(SUITS, key=lambda suit: len(by_suit[suit]))
    best = rank_unchecked([*reals, _ACES[spare]])
    top = _window_high(set(values), 5, 4)
    if top is not None:  # completes (or joins) a straight
        best = max(best, (STRAIGHT, *_run(top)))
    for suited in by_suit.values():
        if len(suited) < 4:
            continue
        sf_top = _window_high(suited, 5, 4)
        if sf_top is not None:
            best = max(best, (STRAIGHT_FLUSH, *_run(sf_top)))
        lacking = max(v for v in range(ACE, 1, -1) if v not in suited)
        best = max(best, (FLUSH, *sorted(suited | {lacking}, reverse=True)[:5]))
    return best


def best_high_rank(cards: Sequence[Card]) -> Rank:
    """Rank of the best five-card pai gow hand among 5 to 7 cards, the joker allowed (R31)."""
    _check(cards, 5, 7)
    reals = [c for c in cards if not c.is_joker]
    if len(reals) == len(cards):
        return rank_unchecked(cards)
    return _joker_rank(reals)


def high_hand_rank(cards: Sequence[Card]) -> Rank:
    """Comparable rank of a five-card (high) hand, joker allowed
    (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings", R31).

    Five aces > royal flush > straight flush (K-high down to A-2-3-4-5, 003 "Fortune Pai Gow Poker:
    Card Values and Hand Rankings") > four of a kind > full house > flush > straight (A-K-Q-J-T down
    to A-2-3-4-5, line 1391) > three of a kind > two pairs > one pair > high card.
    """
    _check(cards, 5)
    return best_high_rank(cards)


def high_hand_category(rank: Rank) -> str:
    """Name of a five-card rank: "five-aces", "royal-flush", or a `FIVE_CARD_CATEGORIES` name."""
    if rank[0] == FIVE_ACES:
        return "five-aces"
    return rank_category(rank)


def high_hand_name(cards: Sequence[Card]) -> str:
    """Category name of a five-card (high) hand, e.g. "five-aces", "straight", "two-pair"."""
    return high_hand_category(high_hand_rank(cards))


def low_hand_name(cards: Sequence[Card]) -> str:
    """Category name of a two-card (low) hand: "pair" or "high-card"
    (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings")."""
    return FIVE_CARD_CATEGORIES[low_hand_rank(cards)[0]]


def low_hand_rank(cards: Sequence[Card]) -> Rank:
    """Comparable rank of the two-card (low) hand: a pair, else high cards; the joker is an ace
    (003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used", "Card Values and
    Hand Rankings"). Uses the five-card category numbers, so it compares with them."""
    _check(cards, 2)
    a, b = sorted((_value(c) for c in cards), reverse=True)
    return (PAIR, a, b) if a == b else (HIGH_CARD, a, b)


# ---------------------------------------------------------------- settings and fouls


def _check_seven(seven: Sequence[Card]) -> tuple[Card, ...]:
    _check(seven, 7)
    return tuple(seven)


def _fouls(high_rank: Rank, low_rank: Rank) -> bool:
    """003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play": "The five-card hand must
    rank higher than the two-card hand."

    The two-card rank is compared as the first cards of a five-card rank: a pair in front needs a
    higher hand behind, or the same pair with kickers; high cards in front need higher cards
    behind, or the same two with more cards after them. So a split four of a kind (A-A in front,
    A-A-x-y-z behind) is legal, as the house way's own "otherwise split"
    (003 "Fortune Pai Gow Poker House Way") requires.
    """
    return not high_rank > low_rank


def verify_setting(
    seven: Sequence[Card], low: Sequence[Card]
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """(high five, low two) of a player's setting; SettingError unless `low` is two of the seven
    cards and the five-card hand outranks the two-card hand
    (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play", R31)."""
    try:
        cards = _check_seven(seven)
    except HandError as exc:
        raise SettingError(f"not a pai gow hand: {exc}") from exc
    if len(low) != 2:
        raise SettingError(f"the low hand is two cards, not {len(low)}")
    if len(set(low)) != 2:
        raise SettingError(f"the low hand names {low[0]} twice")
    missing = [c for c in low if c not in cards]
    if missing:
        raise SettingError(f"{_text(missing)} not among the seven cards {_text(cards)}")
    front = tuple(c for c in cards if c in low)
    back = tuple(c for c in cards if c not in low)
    high_rank, low_rank = high_hand_rank(back), low_hand_rank(front)
    if _fouls(high_rank, low_rank):
        raise SettingError(
            f"foul: the two-card hand {_text(front)} outranks the five-card hand {_text(back)} "
            '(003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play": the five-card '
            "hand must rank higher)"
        )
    return back, front


# ---------------------------------------------------------------- the house way


@dataclass(frozen=True)
class _Setting:
    """One of the 21 ways to set seven cards, with both ranks."""

    high: tuple[Card, ...]
    low: tuple[Card, ...]
    high_rank: Rank
    low_rank: Rank

    @property
    def low_values(self) -> tuple[int, ...]:
        return tuple(sorted((_value(c) for c in self.low), reverse=True))

    @property
    def complete_behind(self) -> bool:
        return self.high_rank[0] >= _COMPLETE

    @property
    def golden(self) -> bool:
        """003 "Fortune Pai Gow Poker House Way": a pair in front with a complete hand (a straight
        or better) behind."""
        return self.low_rank[0] == PAIR and self.complete_behind


def _settings(cards: tuple[Card, ...]) -> list[_Setting]:
    """All 21 settings that do not foul, in a canonical order (so the choice among equal
    settings does not depend on the order the cards came in)."""
    canon = sorted(cards, key=lambda c: (-_value(c), c.is_joker, SUITS.find(c.suit)))
    out = []
    for low in combinations(canon, 2):
        high = tuple(c for c in canon if c not in low)
        s = _Setting(high, low, best_high_rank(high), low_hand_rank(low))
        if not _fouls(s.high_rank, s.low_rank):
            out.append(s)
    return out


def _best_behind(s: _Setting) -> tuple[Rank, Rank]:
    return (s.high_rank, s.low_rank)


def _best_in_front(s: _Setting) -> tuple[Rank, Rank]:
    return (s.low_rank, s.high_rank)


def _pick(
    settings: list[_Setting],
    keep: Callable[[_Setting], bool],
    order: Callable[[_Setting], tuple[Rank, Rank]],
) -> _Setting | None:
    """The first best setting by `order` among those `keep` accepts (None if there is none)."""
    best: _Setting | None = None
    for s in settings:
        if keep(s) and (best is None or order(s) > order(best)):
            best = s
    return best


def _front(settings: list[_Setting], values: tuple[int, ...]) -> _Setting:
    """The setting with these two values in front (the row names the values; among the cards that
    carry them, the best five-card hand behind wins)."""
    want = tuple(sorted(values, reverse=True))
    s = _pick(settings, lambda s: s.low_values == want, _best_behind)
    if s is None:
        raise AssertionError(f"house way: no legal setting with {want} in front")
    return s


def _two_pairs(
    big: int, small: int, singles: list[int], settings: list[_Setting]
) -> tuple[str, _Setting]:
    """003 "Fortune Pai Gow Poker House Way"
    (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'"): small pair in front for a big pair of
    A/K/Q; for smaller big pairs both pairs stay behind when the best single reaches the row's card
    (an ace or joker for J/10/9; a king or higher for 8/7/6; a queen or higher for 5/4/3), with the
    two highest singles in front; otherwise split: small pair in front, big pair behind."""
    need = 0 if big >= 12 else ACE if big >= 9 else 13 if big >= 6 else 12
    if need and singles[0] >= need:
        return "two-pairs", _front(settings, (singles[0], singles[1]))
    return "two-pairs", _front(settings, (small, small))


def _four_of_a_kind(
    quad: int, values: list[int], settings: list[_Setting], way: HouseWay
) -> tuple[str, _Setting]:
    """003 "Fortune Pai Gow Poker House Way"
    (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'", `way="004"`): four of a kind behind
    when the three other cards give the front the row's minimum, otherwise split it two and two.

    "At least a king up front" is met by a king-high front or better; a pair counts, as a pair
    outranks every unpaired two-card hand
    (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings").
    """
    others = list(values)
    for _ in range(4):
        others.remove(quad)
    counts = Counter(others)
    paired = sorted((v for v, k in counts.items() if k >= 2), reverse=True)
    front = (paired[0], paired[0]) if paired else tuple(sorted(others, reverse=True)[:2])
    front_rank = (PAIR if paired else HIGH_CARD, *front)
    if way == "003":
        # 1. A/K/Q: behind if a pair can go in front; 2. J/10/9: a king; 3. 8/7/6: a queen;
        # 4. 5/4/3/2: never split.
        minimum: Rank = (PAIR,) if quad >= 12 else (HIGH_CARD, 13) if quad >= 9 else (HIGH_CARD, 12)
        keep = quad <= 5 or front_rank >= minimum
    else:
        # 004: A/K/Q always split; J/10/9 behind "if the player-dealer can put an ace or joker in
        # front" (as written: an ace or the joker, which counts as one; a pair of fives is
        # neither); 8/7/6 with "a king or higher" and 5/4/3/2 with "a queen or higher" in front,
        # a pair counting as higher (it outranks every unpaired front).
        if quad >= 12:
            keep = False
        elif quad >= 9:
            keep = ACE in others
        else:
            keep = front_rank >= (HIGH_CARD, 13 if quad >= 6 else 12)
    return "four-of-a-kind", _front(settings, front if keep else (quad, quad))


def _by_table(values: list[int], settings: list[_Setting], way: HouseWay) -> tuple[str, _Setting]:
    """The house-way row for these seven values (joker as ace) and the setting it gives."""
    counts = Counter(values)

    def having(n: int) -> list[int]:
        return sorted((v for v, k in counts.items() if k == n), reverse=True)

    quads, trips, pairs, singles = having(4), having(3), having(2), having(1)
    if counts[ACE] == 5:  # 003 "Fortune Pai Gow Poker House Way": "Put pair of aces in front"
        return "five-aces", _front(settings, (ACE, ACE))
    if quads:
        return _four_of_a_kind(quads[0], values, settings, way)
    # 003 "Fortune Pai Gow Poker House Way": "Put pair from higher set in front."
    if len(trips) == 2:
        return "three-of-a-kind-x2", _front(settings, (trips[0], trips[0]))
    if trips and pairs:
        # 003 "Fortune Pai Gow Poker House Way" "Highest possible pair in front"
        # (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": "Put the pair in front and the
        # three of a kind in back"): of the pairs beside the three of a kind, the highest.
        return "full-house", _front(settings, (pairs[0], pairs[0]))
    straight_or_flush = any(s.high_rank[0] in _STRAIGHT_OR_FLUSH for s in settings)
    if straight_or_flush and len(pairs) <= 1:
        completes = [s for s in settings if s.complete_behind]
        if trips:
            # 003 "Fortune Pai Gow Poker House Way": "Pair in front with complete hand behind."
            s = _pick(completes, lambda s: s.low_rank[0] == PAIR, _best_in_front)
            if s is not None:
                return "straight-flush-trips", s
            # Only a joker-made three aces can fail it; the rows above it (lines 1439-1440) are
            # then what is left: the complete hand behind, the best two cards in front.
        # 003 "Fortune Pai Gow Poker House Way": "Two highest possible cards in front that leaves
        # any complete(d) hand behind": the best two-card hand over every setting with a straight or
        # better behind.
        row = (
            "straight-flush-trips"
            if trips
            else ("straight-flush-one-pair" if pairs else "straight-flush-no-pair")
        )
        s = _pick(completes, lambda s: True, _best_in_front)
        if s is None:
            raise AssertionError("house way: a straight or flush without a setting keeping it")
        return row, s
    # 003 "Fortune Pai Gow Poker House Way": "Put the highest pair in front with 2 pair behind."
    if len(pairs) >= 3:
        return "three-pairs", _front(settings, (pairs[0], pairs[0]))
    if trips:
        # 003 "Fortune Pai Gow Poker House Way": "1. A's: A+ next highest card in front. 2. K's and
        # below: Put three of a kind in back and the two other highest cards in front"
        if trips[0] == ACE:
            return "three-of-a-kind", _front(settings, (ACE, singles[0]))
        return "three-of-a-kind", _front(settings, (singles[0], singles[1]))
    if len(pairs) == 2:  # also line 1441: with a straight or flush, "the 2 pair strategy"
        return _two_pairs(pairs[0], pairs[1], singles, settings)
    # 003 "Fortune Pai Gow Poker House Way": "Pair behind. 2 highest unpaired cards in front."
    if pairs:
        return "one-pair", _front(settings, (singles[0], singles[1]))
    # 003 "Fortune Pai Gow Poker House Way": "Put the 2nd and 3rd highest cards in front."
    return "no-pair", _front(settings, (values[1], values[2]))


def _house_way(seven: Sequence[Card], way: HouseWay) -> tuple[str, _Setting]:
    if way not in HOUSE_WAYS:
        raise ValueError(f"house way {way!r} is not one of {HOUSE_WAYS}")
    cards = _check_seven(seven)
    settings = _settings(cards)
    values = sorted((_value(c) for c in cards), reverse=True)
    row, chosen = _by_table(values, settings, way)
    if way == "003" and not chosen.golden:
        # 003 "Fortune Pai Gow Poker House Way", the golden rule, over every row: "Always play a
        # pair in front with a complete hand behind when possible." (004 has no golden rule.)
        golden = _pick(settings, lambda s: s.golden, _best_in_front)
        if golden is not None:
            return "golden-rule", golden
    return row, chosen


def house_way(
    seven: Sequence[Card], *, way: HouseWay = "003"
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """(high five, low two) set by the house way of 003 "Fortune Pai Gow Poker House Way" (R31),
    golden rule included; `way="004"` uses 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'"
    (four of a kind differs, no golden rule).

    Never fouls. Each hand keeps the order the cards have in `seven`.
    """
    _, s = _house_way(seven, way)
    return _in_order(seven, s.high), _in_order(seven, s.low)


def house_way_row(seven: Sequence[Card], *, way: HouseWay = "003") -> str:
    """Which house-way row set these seven cards ("two-pairs", "golden-rule", ...), for display."""
    return _house_way(seven, way)[0]


def _in_order(seven: Sequence[Card], part: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(c for c in seven if c in part)


# ---------------------------------------------------------------- settling the game wager


def compare(
    player: tuple[Sequence[Card], Sequence[Card]],
    dealer: tuple[Sequence[Card], Sequence[Card]],
) -> Literal["win", "lose", "push"]:
    """The player's game wager against the player-dealer, both as (high, low)
    (003 "Fortune Pai Gow Poker: How Winners are Determined and Paid", R31): win when both hands
    outrank the player-dealer's, lose when neither does, push when one does; a copy (equal hand)
    goes to the player-dealer."""
    (p_high, p_low), (d_high, d_low) = player, dealer
    high_won = high_hand_rank(p_high) > high_hand_rank(d_high)
    low_won = low_hand_rank(p_low) > low_hand_rank(d_low)
    if high_won and low_won:
        return "win"
    if high_won or low_won:
        return "push"
    return "lose"


# ---------------------------------------------------------------- Fortune and Envy bonuses


_ROYAL = frozenset("AKQJT")
_TRIPS = FIVE_CARD_CATEGORIES.index("three-of-a-kind")


def _seven_card_straight_flush(reals: Sequence[Card]) -> bool:
    """All the real cards of one suit and, with the joker standing for the one missing if there
    are six, seven in consecutive ranking: A-K-Q-J-10-9-8 down to 7-6-5-4-3-2-A
    (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings")."""
    suit = reals[0].suit
    if any(c.suit != suit for c in reals):
        return False
    return _window_high({card_value(c) for c in reals}, 7, len(reals)) is not None


def _royal_match(reals: Sequence[Card], joker: bool) -> bool:
    """003 "Fortune Pai Gow Poker: Card Values and Hand Rankings": A-K-Q-J-10 of one suit (the joker
    may stand for one of them, line 1497) and a king and queen of another suit. The joker is no king
    or queen for the match: two suited cards are not a flush."""
    kings = {c.suit for c in reals if c.rank == "K"}
    matches = kings & {c.suit for c in reals if c.rank == "Q"}
    if not matches:
        return False
    for suit in SUITS:
        royal = sum(1 for c in reals if c.suit == suit and c.rank in _ROYAL)
        if royal + joker >= 5 and matches - {suit}:
            return True
    return False


def fortune_category(seven: Sequence[Card]) -> str | None:
    """The Fortune Bonus hand of the seven cards
    (003 "Fortune Pai Gow Poker: Fortune Bonus Bet" to "Bonus Bet Paytable", R31), a
    `FORTUNE_CATEGORIES` name, or None when they make less than a straight.

    The hands are ranked as the pay table lists them
    (003 "Fortune Pai Gow Poker: Bonus Bet Paytable"), so seven cards that hold both three of a kind
    and a straight are paid as three of a kind (3 to 1, above the straight's 2 to 1), although a
    straight outranks three of a kind in the pai gow hands.
    """
    return fortune_category_unchecked(_check_seven(seven))


def fortune_category_unchecked(seven: Sequence[Card]) -> str | None:
    """`fortune_category` of seven distinct cards without the checks (the exact analysis)."""
    reals = [c for c in seven if c.rank != JOKER]
    joker = len(reals) < len(seven)
    if not joker and _seven_card_straight_flush(reals):
        return "seven-card-straight-flush"
    if _royal_match(reals, joker):
        return "royal-flush-royal-match"
    if joker and _seven_card_straight_flush(reals):
        return "seven-card-straight-flush-joker"
    rank = _joker_rank(reals) if joker else rank_unchecked(reals)
    if rank[0] == STRAIGHT:
        values = [_value(c) for c in seven]
        if any(values.count(v) >= 3 for v in set(values)):
            return "three-of-a-kind"
    if rank[0] >= _TRIPS:
        return high_hand_category(rank)
    return None


def envy_qualifies(category: str | None, table: PayTable) -> bool:
    """Whether a Fortune hand of `category` pays every other Envy button (R32;
    003 "Fortune Pai Gow Poker: How Winners are Determined and Paid", "Bonus Bet Paytable": four of
    a kind or better, the categories with an Envy amount)."""
    if table.wager != "fortune":
        raise ValueError(f"pay table {table.name} settles {table.wager}, not fortune")
    return category is not None and category in table.envy


__all__ = [
    "DEFAULT_PAYTABLE",
    "FIVE_ACES",
    "FIVE_ACES_RANK",
    "HOUSE_WAYS",
    "PAYTABLE_PATH",
    "HouseWay",
    "Rank",
    "SettingError",
    "best_high_rank",
    "compare",
    "envy_qualifies",
    "fortune_category",
    "fortune_category_unchecked",
    "fortune_paytable",
    "high_hand_category",
    "high_hand_name",
    "high_hand_rank",
    "house_way",
    "house_way_row",
    "low_hand_name",
    "low_hand_rank",
    "verify_setting",
]
