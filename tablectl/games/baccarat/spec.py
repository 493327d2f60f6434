"""EZ Baccarat Panda 8 (document 003) as one unit: its `[game]` options and its GameSpec."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar, Literal

from pydantic import Field

from tablectl.games.settings import FixedPay, GameSettings, StrictBool, StrictInt
from tablectl.games.spec import AnalyzeOption, GameSpec


class BaccaratGame(GameSettings):
    """EZ Baccarat Panda 8 (document 003) and its approval options."""

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["ez-baccarat-panda8"]
    # The rule document this table is approved under (docs/config.md): check-config holds the
    # collection schedule file and the pay tables to it. Unset: the one document that approves
    # the game.
    document: Literal["003"] | None = None
    decks: StrictInt = Field(8, ge=3, le=8, description="3 to 8 decks in the shoe (003)")
    settlement_order: Literal["by-spot", "by-seat"] = "by-spot"  # R3: 003 settles spot by spot
    banker_push_on_dragon7: StrictBool = False  # R26
    bet_timer_seconds: StrictInt = Field(0, ge=0, le=600)  # R28: 0 = no timer

    def bet_timer(self) -> int:
        return self.bet_timer_seconds

    def fixed_pays(self) -> tuple[FixedPay, ...]:
        """Every spot's pay (R26, R27: `rules.baccarat.PAYOUTS`, what settlement pays)."""
        from tablectl.rules.baccarat import PAYOUTS

        banker = "banker wins (a Dragon 7 pushes)" if self.banker_push_on_dragon7 else "banker wins"
        hands = {
            "player": "player wins",
            "banker": banker,
            "tie": "tie",
            "dragon7": "banker wins with three cards totalling 7 against 6 or less",
            "panda8": "player wins with three cards totalling 8 against 7 or less",
        }
        return tuple(FixedPay(spot, hands[spot], Fraction(odds)) for spot, odds in PAYOUTS.items())


SPEC = GameSpec(
    title="EZ Baccarat Panda 8",
    settings={"ez-baccarat-panda8": BaccaratGame},
    engine="tablectl.games.baccarat.engine:BaccaratEngine",
    spots={"ez-baccarat-panda8": ("player", "banker", "tie", "dragon7", "panda8")},
    shows_every_card=True,  # every card is dealt face up (003)
    dealt_from_shoe=True,
    displays=("eztrak",),  # R28
    analyzer="tablectl.analysis.baccarat:analyze_request",
    analyze_options=(
        AnalyzeOption(
            "--banker-push-on-dragon7",
            "baccarat: the banker wager pushes on a Dragon 7 (the usual EZ Baccarat rule; "
            "without it the banker wager wins on a Dragon 7, as document 003 approves it)",
        ),
    ),
    screen="baccarat",
    recall_printer="tablectl.games.baccarat.recall:print_round",
    result_summary="tablectl.games.baccarat.recall:coup_verdict",
    device_roles=(
        {
            "role": "the cards",
            "drivers": ("shoe", "line"),
            "needed": True,
            "most": 1,
            "why": "003: every card is dealt from the card-reading shoe",
        },
        {"role": "the scoreboard display", "drivers": ("eztrak",), "why": "R28"},
    ),
    snapshot_classes={
        "baccarat.BaccaratState": "tablectl.games.baccarat.engine:BaccaratState",
        "baccarat.Coup": "tablectl.games.baccarat.eztrak:Coup",
    },
)
