"""One configured table's rules (`Policy`): its game's variant (variant_rules.py) and its
approval's options, chosen once from the config. Every other module of the game is functions of
a policy and a state."""

from __future__ import annotations

from dataclasses import dataclass

from tablectl.games.blackjack.spec import Pure215Game, PureSpanish215Game
from tablectl.games.blackjack.variant_rules import Variant
from tablectl.games.table_rules import Limits, Rules
from tablectl.rules.fees import CollectionSchedule
from tablectl.rules.paytables import PayTable
from tablectl_base.cards import ShoeComposition


def variant_of(game: Pure215Game | PureSpanish215Game) -> Variant:
    """The game's variant with what its approval chose (the settings say it: `variant()`)."""
    return game.variant()


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
