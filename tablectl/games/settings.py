"""What every game's `[game]` section is: a strict model whose `id` names the game, with the
pay tables it names and any check it makes against the rest of the config. Each game's own
model lives in its package and is found through the game registry (tablectl/games/registry.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Strict

if TYPE_CHECKING:
    from tablectl.config import TableConfig
    from tablectl.games.table_rules import Rules
    from tablectl.rules.poker_fees import PokerSchedule

StrictInt = Annotated[int, Strict()]
"""An integer written as one: `decks = "6"` (text), `decks = 6.0` or `true` is refused, not
converted (a quoted or fractional number is a typo, not a value). Every whole-number option of
a game, and of the rest of the config."""
StrictBool = Annotated[bool, Strict()]
"""true or false: `insurance = "true"`, `"yes"` or `1` is refused, not converted."""


@dataclass(frozen=True)
class FixedPay:
    """A pay the game's rules fix rather than a pay table: a winning `wager` on `hand` is paid
    `odds` to 1. What `info` posts beside the pay tables, so a page shows every pay."""

    wager: str
    hand: str
    odds: Fraction


class GameSettings(BaseModel):
    """A game's `[game]` section. Subclasses declare `id: Literal["<game id>"]` and their options;
    unknown keys are errors, as everywhere in the config.

    Nothing is converted: a whole number is a `StrictInt`, true/false a `StrictBool`, money is
    `tablectl_base.money.Money` (text like "12.50" or an integer, never a float), text is `str`
    (which takes no number). The model itself is not `strict=True`: a TOML (or journaled JSON)
    list must still become a tuple. tests/config/test_config_mistakes.py walks every game's fields.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {}
    """Each option naming a pay table -> (its file in config/paytables, the wager it settles)."""
    DOCUMENTS: ClassVar[tuple[str, ...]] = ()
    """The rule documents that approve the game (shared seeds/): a game's `document` key, where
    it has one, names one of them; check-config holds the game's data files to it."""

    id: str

    def bet_timer(self) -> int:
        """R28: seconds after the round's first wager at which betting closes by itself (0: the
        game has no bet timer, or it is off)."""
        return 0

    def fixed_pays(self) -> tuple[FixedPay, ...]:
        """The pays the rules fix for this game's options (each from the one constant its
        settlement pays by); () where every pay is a pay table's or even money."""
        return ()

    def posted_terms(self, rules: Rules) -> dict[str, Any]:
        """What the table posts of the game's own terms under `rules`, beside its limits, pays
        and collection (`info`'s `posted`, tablectl/table_info.py): e.g. a poker room's betting,
        by key; {} where the game posts nothing of its own. Money is text with two places."""
        return {}

    def hand_history_terms(self) -> dict[str, Any] | None:
        """What a hand history needs of the game's terms as a hand begins (`at_start` of the
        `hand.start` recall lists, tablectl/history/rounds.py), beginning with the game id;
        None (the default) where the game keeps no hand history."""
        return None

    def own_schedule(self, seats: int) -> PokerSchedule | None:
        """The collection schedule the game's own section gives (a poker game's, R44), for a
        table of `seats`; None: the table's `[collection]` gives it (R4). Called only once
        `cross_check` found no problem."""
        return None

    def advice(self, table: TableConfig) -> list[tuple[str, str]]:
        """What this game finds worth a technician's look but does not refuse (key, reason):
        `check-config` says "ok, with warnings". Called only once `cross_check` passed."""
        return []

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """Problems (key, reason) this game finds in the other sections, e.g. its seat count."""
        return []
