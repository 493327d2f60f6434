"""The examples `tablectl analyze --help` shows: a shoe game's side bet, a shoe game with its
deck count, and an analysis as JSON (the analyses name games; the command line does not)."""

from __future__ import annotations

ANALYZE_EXAMPLES = (
    "tablectl analyze --game ez-baccarat-panda8 --wager dragon7",
    "tablectl analyze --game pure-21.5-blackjack --wager buster --decks 6",
    "tablectl analyze --game three-card-poker-6cb --wager six-card-bonus --json",
)
"""Each a whole command line, in the order the help lists them."""
