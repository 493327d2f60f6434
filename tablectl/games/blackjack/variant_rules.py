"""What differs between Pure 21.5 Blackjack and Pure Spanish 21.5 (`Variant`), each game's with
its approval's defaults (`PURE`, `SPANISH`). A leaf of the game: the `[game]` settings say their
table's variant from these without importing the engine (tablectl/games/blackjack/spec.py)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from tablectl.rules import blackjack as bj
from tablectl_base.cards import Card, DeckKind


@dataclass(frozen=True)
class Variant:
    """What differs between Pure 21.5 Blackjack and Pure Spanish 21.5, each with its rule; chosen
    once from the config (`variant_of`). Everything else the two games play alike."""

    name: str  # the game's name in refusals
    chart: bj.Variant  # which Chart 1A the player's hands keep to (R15)
    chart_text: str  # how a refusal names that chart
    # contract 1, 000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used",
    # 003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used"
    deck: DeckKind
    # a side bet needs the same player's base wager at the seat first (000 "Pure 21.5 Blackjack:
    # Dealing Procedures and Round of Play"; 003 "Pure Spanish 21.5: Match the Dealer Up Card
    # Bonus Bet"): the rule id the refusal publishes
    side_bet_rule: str
    # R11: a Pure 21.5 pays the approval's `pure_pays`; a Pure Spanish 21.5 pays 6 to 5
    # (003 "Pure Spanish 21.5: Card Values and Hand Rankings": "pays 6 to 5")
    pure_odds: Fraction
    # R17: Pure 21.5 insures after the deal (a pre-deal "insurance" wager is refused as that
    # decision); the Spanish approval has no insurance and no even money at all
    insurance_decision: bool
    insurance: bool  # offered at this table (R17: the approval's `insurance`)
    even_money: bool  # offered at this table (R17: the approval's `even_money`)
    # "only one additional card" after a double, one card per split ace and no resplit of aces
    # (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"); Spanish: neither (R20)
    one_card_after_double: bool
    split_aces_one_card: bool
    # R16: 21.5 splits "any pair or two ... bonus cards" (000 "Pure 21.5 Blackjack: Double-Down,
    # Split, and Surrender"); Spanish "any pair or two cards of the equal value, including aces and
    # Bonus cards" (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and
    # Surrender")
    split_by_value: bool
    # R20: double-double down (the approval's `double_double`) and rescue, Spanish only
    double_double: bool
    rescue: bool
    # A player's Pure 21.5 against the player-dealer's: 000 "Pure 21.5 Blackjack: How Each Wager
    # Wins, Loses, or Pushes" (R11) pushes; 003 "Pure Spanish 21.5: Dealing Procedures and Round of
    # Play": "both ... Pure Spanish 21.5 ... the player wins"
    pure_beats_pure: bool
    # R20: a Spanish player's 21 beats the player-dealer's 21
    twenty_one_wins: bool

    def is_pair(self, a: Card, b: Card) -> bool:
        """Whether two cards are a pair this game lets the player split (R16, R20)."""
        if self.split_by_value:
            return bj.card_value(a) == bj.card_value(b)
        return a.rank == b.rank or (bj.is_bonus(a) and bj.is_bonus(b))


PURE = Variant(
    name="Pure 21.5 Blackjack",
    chart="pure-21.5",
    chart_text="Chart 1A (Pure 21.5: stand on hard 19 or more, hit hard 11 or less)",
    deck=DeckKind.PURE_21_5,
    side_bet_rule="000 line 129",
    pure_odds=bj.PURE_ODDS[bj.DEFAULT_PURE_ODDS],
    insurance_decision=True,
    insurance=True,
    even_money=False,
    one_card_after_double=True,
    split_aces_one_card=True,
    split_by_value=False,
    double_double=False,
    rescue=False,
    pure_beats_pure=False,
    twenty_one_wins=False,
)
"""Pure 21.5 Blackjack (documents 000, 002, 003, 004) with its approval's defaults."""

SPANISH = Variant(
    name="Pure Spanish 21.5",
    chart="spanish-21.5",
    chart_text="Chart 1A (Spanish 21.5: stand on hard 17 or more)",
    deck=DeckKind.SPANISH_48,
    side_bet_rule="003 line 1944",
    pure_odds=Fraction(6, 5),
    insurance_decision=False,
    insurance=False,
    even_money=False,
    one_card_after_double=False,
    split_aces_one_card=False,
    split_by_value=True,
    double_double=False,
    rescue=True,
    pure_beats_pure=True,
    twenty_one_wins=True,
)
"""Pure Spanish 21.5 (document 003) with its approval's defaults."""
