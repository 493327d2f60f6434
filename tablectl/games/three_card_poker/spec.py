"""Three Card Poker 6 Card Bonus (documents 000, 001, 003, 004) as one unit: its `[game]` options
and its GameSpec."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import model_validator

from tablectl.games.settings import GameSettings
from tablectl.games.spec import GameSpec


class ThreeCardPokerGame(GameSettings):
    """Three Card Poker 6 Card Bonus (documents 000, 001, 003, 004; R29) and its options."""

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "six_card_bonus_table": ("three-card-poker.toml", "six-card-bonus"),
        "pair_plus_table": ("three-card-poker.toml", "pair-plus"),
    }

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("000", "001", "003", "004")
    id: Literal["three-card-poker-6cb"]
    # The rule document this table is approved under (docs/config.md): check-config holds the
    # collection schedule file and the pay tables to it. Unset: the one the data files name
    # (they must agree on one).
    document: Literal["000", "001", "003", "004"] | None = None
    six_card_bonus_table: str = "TCB-6B2"  # R29: TCB-6B2, TCB-6B4 or the 001 table
    pair_plus_table: str = "PP-MR200"
    # "two alternating decks" (000, 001, 003, 004): the deck colours the shuffler reports.
    deck_colours: tuple[str, str] = ("red", "blue")
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"
    # R2: where settlement starts. 000 "Three Card Poker 6 Card Bonus: Description of Table Used and
    # Total Number of Seated Positions" and 001 "Round of Play": the action button counted from the
    # player-dealer's face-up card; 003 "Three Card Poker 6 Card Bonus: Round of Play": "always
    # begin with the player to the left of the player-dealer position"; 004 says neither, so the
    # default is R2's action button.
    action_start: Literal["action-button", "player-dealer-left"] = "action-button"
    # R3: each seat's wagers in order. 003 "Three Card Poker 6 Card Bonus: Round of Play" and 004
    # "Three Card Poker 6 Card Bonus: Method Used to Determine Action and Distribution of Cards":
    # Ante, Play, Pair Plus, 6 Card Bonus (the default: two documents against one); 000 "Three Card
    # Poker 6 Card Bonus: Description of Table Used and Total Number of Seated Positions": the Play
    # first.
    wager_order: Literal["ante-first", "play-first"] = "ante-first"

    @model_validator(mode="after")
    def _two_deck_colours(self) -> ThreeCardPokerGame:
        """The two alternating decks have backs of different colours (004 "Three Card Poker 6 Card
        Bonus: Description of the Deck and Number of Decks Used"), each named as the shuffler
        reports it: 1-16 lowercase letters (docs/protocols/dispenser.md, SHF)."""
        for colour in self.deck_colours:
            if not (1 <= len(colour) <= 16 and colour.isascii() and colour.isalpha()):
                raise ValueError(f"deck colour {colour!r} is not 1-16 lowercase letters")
            if colour != colour.lower():
                raise ValueError(f"deck colour {colour!r} is not 1-16 lowercase letters")
        if self.deck_colours[0] == self.deck_colours[1]:
            raise ValueError(
                'the two alternating decks must have different colours (004 "Three Card Poker '
                '6 Card Bonus: Description of the Deck and Number of Decks Used")'
            )
        return self


SPEC = GameSpec(
    title="Three Card Poker 6 Card Bonus",
    settings={"three-card-poker-6cb": ThreeCardPokerGame},
    engine="tablectl.games.three_card_poker.engine:ThreeCardPokerEngine",
    spots={"three-card-poker-6cb": ("ante", "play", "pair-plus", "six-card-bonus")},
    analyzer="tablectl.analysis.three_card_poker:analyze_request",
    screen="three-card-poker",
    recall_printer="tablectl.games.three_card_poker.recall:print_round",
    analyzed_wagers="tablectl.analysis.three_card_poker:WAGERS",
    device_roles=(
        {
            "role": "the hands",
            "drivers": ("shuffler", "hand-dispenser"),
            "needed": True,
            "most": 1,
            "stack_size": (3,),
            "why": '003 line 910: "the device shall dispense cards in stacks of three"',
        },
    ),
    snapshot_classes={
        "three_card_poker.ThreeCardPokerState": (
            "tablectl.games.three_card_poker.state:ThreeCardPokerState"
        ),
    },
)
