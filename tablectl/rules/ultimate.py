"""Ultimate Texas Hold'em hand rules: the qualifier, the showdown, the Blind, Trips and Bad Beat.

Pure functions over `tablectl.rules.poker` ranks (the best five of seven cards: two hole cards and
the five community cards, 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play" item
14). They decide which pay-table category, if any, a wager is paid on; the odds are data in
config/paytables/ultimate-texas-holdem.toml and the money is `tablectl.rules.paytables.winnings`.
Folds are the engine's: a fold loses the Ante, Blind and Bad Beat, and the Trips still pays on three
of a kind or better (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play",
"How Winners are Determined and Paid"; R35).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Literal

from tablectl.rules.paytables import PAYTABLE_DIR, PayTable, get_paytable
from tablectl.rules.poker import (
    PAIR,
    STRAIGHT,
    TRIPS,
    HandError,
    Rank,
    best_rank,
    rank_category,
)
from tablectl.rules.poker import Showdown as Showdown  # re-exported: one home for the showdown
from tablectl.rules.poker import showdown as showdown
from tablectl_base.cards import Card

GAME = "ultimate-texas-holdem"  # DESIGN contract 4 game id
PAYTABLE_PATH = PAYTABLE_DIR / "ultimate-texas-holdem.toml"

# The tables of document 003 (the only one with a Bad Beat) are the defaults; 004's Blind and
# Trips tables are there for a card room that runs 004.
DEFAULT_PAYTABLES: Mapping[str, str] = MappingProxyType(
    {"blind": "BLIND-003", "trips": "TRIPS-003", "bad-beat": "BADBEAT-003"}
)

BlindResult = Literal["win", "push", "lose"]


def paytable(name: str) -> PayTable:
    """The named Ultimate Texas Hold'em table ("BLIND-003", "TRIPS-004", "BADBEAT-003", ...)."""
    return get_paytable(name, PAYTABLE_PATH)


def dealer_qualifies(rank: Rank) -> bool:
    """The player-dealer qualifies with a pair or better
    (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"; R35)."""
    return rank[0] >= PAIR


def three_or_better(rank: Rank) -> str | None:
    """The hand's category if it is three of a kind or better, else None
    (003 "Ultimate Texas Hold'em: Trips Bonus Bet", "Bad Beat Bonus Bet")."""
    return rank_category(rank) if rank[0] >= TRIPS else None


def trips_category(seven: Sequence[Card]) -> str | None:
    """The category the Trips pays on for the player's seven cards, or None when it loses.

    Three of a kind or better wins whatever the showdown, even after a fold
    (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid", R35).
    """
    if len(seven) != 7:
        raise HandError(f"the Trips is settled on 7 cards (2 hole, 5 board), got {len(seven)}")
    return three_or_better(best_rank(seven))


def blind_result(player_rank: Rank, dealer_rank: Rank) -> tuple[BlindResult, str | None]:
    """The Blind of a player who did not fold, and the category it is paid on when it wins.

    It pays by its table when the player wins with a straight or better, pushes on any other win
    and on a tie, and loses when the player loses (003 "Ultimate Texas Hold'em: How Winners are
    Determined and Paid"; R35). It does not care whether the player-dealer qualifies: 003 "Ultimate
    Texas Hold'em: How Winners are Determined and Paid" resolves it "normally" either way.
    """
    outcome = showdown(player_rank, dealer_rank)
    if outcome == "win":
        return ("win", rank_category(player_rank)) if player_rank[0] >= STRAIGHT else ("push", None)
    return ("push", None) if outcome == "push" else ("lose", None)


def bad_beat_category(player_rank: Rank, dealer_rank: Rank) -> str | None:
    """The category the Bad Beat pays on (the beaten hand's), or None when it loses.

    It wins when the losing hand, the player's or the player-dealer's, is three of a kind or
    better and the other hand beats it; ties never pay ("There is no opportunity for the Bad Beat
    Bonus Bet to push")
    (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet", "Bad Beat Bonus Bet Payout Table" "Hand
    Beaten"; R35). A player-dealer who does not qualify holds less than a pair, so its Bad Beat
    collection (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid") agrees.
    """
    if player_rank == dealer_rank:
        return None
    return three_or_better(min(player_rank, dealer_rank))
