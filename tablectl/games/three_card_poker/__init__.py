"""Three Card Poker 6 Card Bonus (documents 000, 001, 003, 004): `spec` (its `[game]` options
and GameSpec), `state` (the round's state), `settlement` (the verdicts and the outcome) and
`engine` (the round's inputs, pure).

The engine's classes are also reachable as `tablectl.games.three_card_poker.<Class>`, imported
on first use: journal snapshots written before the game became a package name its state classes
so.
"""

from __future__ import annotations

from tablectl.games.spec import moved_to

__getattr__ = moved_to(
    __name__,
    {
        "ThreeCardPokerState": "state",
        **dict.fromkeys(
            {"SixCardBonusShown", "PlayedHand", "HandOutcome", "ThreeCardPokerOutcome"},
            "settlement",
        ),
        "ThreeCardPokerEngine": "engine",
    },
)
