"""What differs between Pure 21.5 Blackjack and Pure Spanish 21.5 (`Variant`: `PURE`, `SPANISH`),
and one configured table's rules (`Policy`), both chosen once from the config. Every other module
of the game is functions of a policy and a state."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from tablectl.games.blackjack.spec import Pure215Game, PureSpanish215Game
from tablectl.games.common import replace
from tablectl.games.table_rules import Limits, Rules
from tablectl.rules import blackjack as bj
from tablectl.rules.fees import CollectionSchedule
from tablectl.rules.paytables import PayTable
from tablectl_base.cards import Card, DeckKind, ShoeComposition


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


def variant_of(game: Pure215Game | PureSpanish215Game) -> Variant:
    """The game's variant with what its approval chose: a Pure 21.5's odds (R11), insurance and
    even money (R17); a Spanish table's double-double down (R20)."""
    if isinstance(game, Pure215Game):
        return replace(
            PURE,
            pure_odds=bj.PURE_ODDS[game.pure_pays],
            insurance=game.insurance,
            even_money=game.even_money,
        )
    return replace(SPANISH, double_double=game.double_double)


@dataclass(frozen=True)
class Policy:
    """One configured table: its game's variant and the approval's options (`game`: action
    start R2, settlement order R3, backline spots), its seats, shoe, limits and fees (R4), and the
    side bets it offers with their pay tables (None: not offered)."""

    game: Pure215Game | PureSpanish215Game
    variant: Variant
    seats: int
    shoe: ShoeComposition
    limits: Limits
    schedule: CollectionSchedule
    red_flex: PayTable | None
    buster: PayTable | None
    match: PayTable | None
    # The pre-deal spots this table takes, in R3's seat-by-seat order (000 "Pure 21.5 Blackjack:
    # Double-Down, Split, and Surrender": "game wager, Red Flex Bet, Buster Bet"; 003 "Pure
    # Spanish 21.5: Match the Dealer Up Card Bonus Bet": "base game wager, Match the Dealer").
    spots: tuple[str, ...]

    @property
    def game_id(self) -> str:
        return self.game.id


def policy_of(rules: Rules) -> Policy:
    """The configured table's policy. The side bets it offers are those its game has whose pay
    table the config names (000 "Pure 21.5 Blackjack: Red Flex Bet", "Buster Blackjack Bonus Bet";
    003 "Pure Spanish 21.5: Match the Dealer Up Card Bonus Bet": "casinos may offer")."""
    game = rules.game
    assert isinstance(game, (Pure215Game, PureSpanish215Game))
    variant = variant_of(game)
    red_flex = buster = match = None
    if isinstance(game, Pure215Game):
        if game.red_flex_table is not None:
            red_flex = rules.paytable(game.red_flex_table)
        if game.buster_table is not None:
            buster = rules.paytable(game.buster_table)
    elif game.match_dealer_table is not None:
        match = rules.paytable(game.match_dealer_table)
    side = (("red-flex", red_flex), ("buster", buster), ("match-dealer", match))
    limits, schedule = rules.banked()
    return Policy(
        game=game,
        variant=variant,
        seats=rules.seats.count,
        shoe=ShoeComposition(variant.deck, game.decks),  # contract 1
        limits=limits,
        schedule=schedule,
        red_flex=red_flex,
        buster=buster,
        match=match,
        spots=("base", *(s for s, t in side if t is not None)),
    )
