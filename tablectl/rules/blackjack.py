"""Pure 21.5 Blackjack and Pure Spanish 21.5 hand rules, and their side bets' categories.

The one home of these rules (R10-R21): card values and totals, the Pure 21.5, the two charts, 888,
Red Flex runs, Buster card counts and Match the Dealer matches. The engine
(`tablectl.games.blackjack`) deals and settles with these functions and
`tablectl.analysis.blackjack` counts with them, so play and analysis cannot disagree. Pure: no
I/O, no state. The side bets' odds are data in config/paytables/blackjack.toml; these functions
only name the category a hand is paid on.

Documents: 000 "Pure 21.5 Blackjack" (Pure 21.5 6 to 5, RFB-02, Buster option 5; 002 is a near
copy), 003 "Pure 21.5 Blackjack 3 to 2", "Pure 21.5 Blackjack 6 to 5" (Pure 21.5 3 to 2 and 6 to 5,
RFB-12, Buster option 1), 003 "Pure Spanish 21.5" (Pure Spanish 21.5, Match the Dealer),
004 "Pure 21.5 Blackjack" (Pure 21.5, Buster option 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from tablectl.rules.paytables import PAYTABLE_DIR, PayTable, PayTableError, get_paytable
from tablectl_base.cards import Card

Variant = Literal["pure-21.5", "spanish-21.5"]
ChartForce = Literal["must-hit", "must-stand"]

VARIANTS: tuple[Variant, ...] = ("pure-21.5", "spanish-21.5")
PAYTABLE_PATH = PAYTABLE_DIR / "blackjack.toml"

# "King, queen, jack or ten bonus card" (000 "Pure 21.5 Blackjack: Card Values and Hand Rankings");
# Spanish decks hold no tens (003 "Pure Spanish 21.5: Description of the Deck and Number of Decks
# Used"), so there a bonus card is K, Q or J, which this set covers as well.
BONUS_RANKS = frozenset("TJQK")

# The Pure 21.5 pays 6 to 5 (000 "Pure 21.5 Blackjack: Card Values and Hand Rankings", 003 "Pure
# 21.5 Blackjack 6 to 5: Value of the Cards", 004 "Pure 21.5 Blackjack: Card Values and Hand
# Rankings"; Spanish: 003 "Pure Spanish 21.5: Card Values and Hand Rankings") or 3 to 2 (003 "Pure
# 21.5 Blackjack 3 to 2: Value of the Cards"); R11: a config option, default 6 to 5.
PURE_ODDS: Mapping[str, Fraction] = MappingProxyType(
    {"6 to 5": Fraction(6, 5), "3 to 2": Fraction(3, 2)}
)
DEFAULT_PURE_ODDS = "6 to 5"  # R11
# "Winning insurance wagers will pay 2 to 1"
# (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes", R17)
INSURANCE_ODDS = Fraction(2)

_VALUES: Mapping[str, int] = MappingProxyType(
    {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9}
    | {r: 10 for r in BONUS_RANKS}
)


@dataclass(frozen=True)
class Total:
    """A hand's blackjack total; `soft` when an ace in it is counted as 11
    (000 "Pure 21.5 Blackjack: Chart 1A")."""

    value: int
    soft: bool


def card_value(card: Card) -> int:
    """A card's value 1..10: ace 1, 2-9 face, bonus cards 10
    (000 "Pure 21.5 Blackjack: Card Values and Hand Rankings", R10).

    The value an ace takes as 11 is `hand_total`'s; this is the "equal value" of a Spanish split
    (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender", R20)
    and the count the totals add up.
    """
    try:
        return _VALUES[card.rank]
    except KeyError:
        raise ValueError(f"{card} has no blackjack value: the 21.5 decks hold no joker") from None


def is_bonus(card: Card) -> bool:
    """A king, queen, jack or ten "Bonus" card
    (000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used",
    003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used")."""
    return card.rank in BONUS_RANKS


def hand_total(cards: Sequence[Card]) -> Total:
    """The best total of the cards: one ace counts 11 when that keeps the hand at 21 or less.

    R10: A 1 or 11, 2-9 face value, T J Q K 10
    (000 "Pure 21.5 Blackjack: Card Values and Hand Rankings"). A hand worth more than 21 with every
    ace at 1 is bust and hard. A Pure 21.5 is soft 21 here; `is_pure` says it is the 21.5.
    """
    hard = sum(card_value(c) for c in cards)
    if hard <= 11 and any(c.rank == "A" for c in cards):
        return Total(hard + 10, soft=True)
    return Total(hard, soft=False)


def is_pure(cards: Sequence[Card], *, split: bool) -> bool:
    """Exactly an ace and a bonus card as the hand's two initial cards, never after a split (R10).

    "A king, queen, jack or ten bonus card and an ace, on the initial deal" (000 "Pure 21.5
    Blackjack: Card Values and Hand Rankings", 003 "Pure 21.5 Blackjack 3 to 2: Value of the Cards",
    "Pure 21.5 Blackjack 6 to 5: Value of the Cards", Spanish: 003 "Pure Spanish 21.5: Card Values
    and Hand Rankings"): a split hand's ace and bonus card are 21.
    """
    if split or len(cards) != 2:
        return False
    ranks = {c.rank for c in cards}
    return "A" in ranks and bool(ranks & BONUS_RANKS)


def is_bust(cards: Sequence[Card]) -> bool:
    """Over 21 with every ace at 1 (R10; "more than a Pure 21.5",
    000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes")."""
    return hand_total(cards).value > 21


def is_888(cards: Sequence[Card]) -> bool:
    """The hand is exactly three eights (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or
    Pushes", 003 "Pure 21.5 Blackjack 3 to 2: Game Rules", R13); always a bust (24)."""
    return len(cards) == 3 and all(c.rank == "8" for c in cards)


def dealer_must_hit(cards: Sequence[Card]) -> bool:
    """Chart 1B (000 "Pure 21.5 Blackjack: Chart 1B", 003 "Pure 21.5 Blackjack 3 to 2: Chart 1B",
    Spanish 003 "Pure Spanish 21.5: Chart 1B"; R14) for the player-dealer.

    "Must Stand on Hard 17 or more / Must Hit on Soft 17 or less / No Options": hit every total
    of 16 or less and soft 17; stand on hard 17 or more (two cards included, R14) and on soft 18
    or more (R14; the chart prints no soft 18 row). A Pure 21.5 is never completed (R14): it is
    soft 21 here, so it stands anyway. A busted hand draws nothing.
    """
    total = hand_total(cards)
    if total.value < 17:
        return True
    return total.value == 17 and total.soft


def chart_1a(cards: Sequence[Card], variant: Variant) -> ChartForce | None:
    """What Chart 1A forces a player's hand to do, or None where the player has the option (R15).

    Pure 21.5 (000 "Pure 21.5 Blackjack: Chart 1A", 003 "Pure 21.5 Blackjack 3 to 2: Chart 1A",
    "Pure 21.5 Blackjack 6 to 5: Chart 1A", 004 "Pure 21.5 Blackjack: Chart 1A"): "Must Stand on
    Hard 19 or more / Must Hit on Hard 11 or less / Have Option on All other counts".
    Spanish 21.5 (003 "Pure Spanish 21.5: Chart 1A"): "Must Stand on Hard 17 or more / Must Hit on
    Players Option / Have Option on All other counts". The charts force nothing on a soft hand (an
    ace counted as 11, 000 "Pure 21.5 Blackjack: Chart 1A"): every soft total is one of "all other
    counts". A hard hand is one whose aces all count 1 (000 "Pure 21.5 Blackjack: Chart 1A"), which
    is `hand_total`'s `soft=False`; so a busted hand is a hard 22 or more: must stand.
    """
    total = hand_total(cards)
    if total.soft:
        return None
    if variant == "pure-21.5":
        if total.value >= 19:
            return "must-stand"
        if total.value <= 11:
            return "must-hit"
        return None
    if variant == "spanish-21.5":
        return "must-stand" if total.value >= 17 else None
    raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(VARIANTS)}")


def red_flex_count(dealer_cards_in_order: Sequence[Card]) -> int:
    """The Red Flex count: 0 unless the first two cards are both red, else the red run (R18).

    The player-dealer's cards in the order received (up card, hole card, then each hit:
    000 "Pure 21.5 Blackjack: Red Flex Bet"); red is hearts or diamonds
    (000 "Pure 21.5 Blackjack: Red Flex Bet"). The run of consecutive red cards from the first card;
    the first black card ends it (000 "Pure 21.5 Blackjack: Red Flex Bet" "once the player-dealer's
    hand is complete or a black card is drawn"). Fewer than two cards: 0 (not a winner yet).
    """
    cards = dealer_cards_in_order
    if len(cards) < 2 or not (cards[0].is_red and cards[1].is_red):
        return 0
    run = 0
    for card in cards:
        if not card.is_red:
            break
        run += 1
    return run


def buster_cards(dealer_cards: Sequence[Card]) -> int | None:
    """The number of cards of a busted player-dealer hand, else None (R19).

    "The payoff odds vary with the number of cards in the player-dealer's busted hand" (000 "Pure
    21.5 Blackjack: Buster Blackjack Bonus Bet", 003 "Pure 21.5 Blackjack 3 to 2: Buster Blackjack
    Bonus Bet"); 888 counts as a bust for this bet (R19; it is 24).
    """
    if is_bust(dealer_cards) or is_888(dealer_cards):
        return len(dealer_cards)
    return None


MatchCategory = Literal["2-suited", "1-suited-1-unsuited", "1-suited", "2-unsuited", "1-unsuited"]


def match_dealer(player_two: Sequence[Card], dealer_up: Card) -> MatchCategory | None:
    """The Match the Dealer category of the player's two initial cards against the up card (R21).

    A match is the same rank (003 "Pure Spanish 21.5: Match the Dealer Up Card Bonus Bet"); a suited
    match the same rank and suit, an unsuited one the same rank in another suit
    (003 "Pure Spanish 21.5: Match the Dealer Up Card Bonus Bet"). Categories as printed at
    003 "Pure Spanish 21.5: Table Layout" (pays 18, 13, 9, 8, 4); no match loses (line 1980): None.
    """
    if len(player_two) != 2:
        raise ValueError(
            f"Match the Dealer is settled on the player's two initial cards, got {len(player_two)}"
        )
    suited = sum(c == dealer_up for c in player_two)
    unsuited = sum(c.rank == dealer_up.rank and c.suit != dealer_up.suit for c in player_two)
    return _MATCHES.get((suited, unsuited))


_MATCHES: Mapping[tuple[int, int], MatchCategory] = MappingProxyType(
    {
        (2, 0): "2-suited",
        (1, 1): "1-suited-1-unsuited",
        (1, 0): "1-suited",
        (0, 2): "2-unsuited",
        (0, 1): "1-unsuited",
    }
)


def _counts(table: PayTable, prefix: str) -> tuple[list[int], list[int]]:
    """The counts of a table's exact rows ("red-5") and of its "or more" rows ("red-7-or-more")."""
    exact: list[int] = []
    or_more: list[int] = []
    for category in table.pays:
        body = category.removeprefix(f"{prefix}-")
        if body.isdigit():
            exact.append(int(body))
        elif body.endswith("-or-more"):
            or_more.append(int(body.removesuffix("-or-more")))
    return exact, or_more


def _run_category(n: int, table: PayTable, prefix: str) -> str | None:
    """The row of a count table paying `n`: the exact "prefix-n", else its "or more" row."""
    exact, or_more = _counts(table, prefix)
    if n in exact:
        return f"{prefix}-{n}"
    tops = [k for k in or_more if k <= n]
    return f"{prefix}-{max(tops)}-or-more" if tops else None


def _require(table: PayTable, wager: str) -> None:
    if table.wager != wager:
        raise PayTableError(f"{table.name} is a {table.wager} table, not a {wager} table")


def red_flex_category(count: int, table: PayTable) -> str | None:
    """The row of a Red Flex table (RFB-02, RFB-12) paying a `red_flex_count`, None: loses (R18).

    RFB-02 tops out at "Seven Red Cards or more" (000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table
    Options"); RFB-12 at "Eight Red Cards" (003 "Pure 21.5 Blackjack 3 to 2: Red Flex Bet"), which
    R18 reads as 8 or more. A count under 2 never wins.
    """
    _require(table, "red-flex")
    return _run_category(count, table, "red") if count >= 2 else None


def buster_category(cards: int | None, table: PayTable) -> str | None:
    """The row of a Buster table (option-1, option-5) paying a `buster_cards`, None: loses (R19).

    Both tables run 3 to 7 cards and "8 or more" (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus
    Bet Pay Table", 003 "Pure 21.5 Blackjack 3 to 2: Buster Blackjack Bonus Bet Pay Table").
    """
    _require(table, "buster")
    return None if cards is None else _run_category(cards, table, "cards")


def match_dealer_category(category: str | None, table: PayTable) -> str | None:
    """The row of a Match the Dealer table paying a `match_dealer` category (R21)."""
    _require(table, "match-dealer")
    return category if category is not None and category in table.pays else None


def paytable(name: str) -> PayTable:
    """A named blackjack side-bet table ("RFB-02", "RFB-12", "option-1", "option-5", ...)."""
    table = get_paytable(name, PAYTABLE_PATH)
    return table
