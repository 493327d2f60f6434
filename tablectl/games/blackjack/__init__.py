"""Pure 21.5 Blackjack and Pure Spanish 21.5 (documents 000, 002, 003, 004) as one unit.

`spec` (the `[game]` options of both games and their GameSpec), `variant` (what differs between the
two games; the configured table's `Policy`), `state` (the state and its hands), `deal` (betting
closes, the deal, the peek, the draws), `decisions` (Chart 1A and the player's choices), `insurance`
(R17), `settlement` (the verdicts for the one settlement walk, the outcome, `BlackjackRoundEnd`: the
round-end hooks), `views` (what the table shows) and `engine` (`BlackjackEngine`, composing
them).

Every name other code imports from `tablectl.games.blackjack` is reachable here, imported on
first use: the game's spec names "tablectl.games.blackjack.engine:BlackjackEngine", and journal
snapshots name the state's classes "tablectl.games.blackjack:BlackjackState" and ":Hand"
(tablectl/snapshot.py).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablectl.games.blackjack.decisions import CHART_1A as CHART_1A
    from tablectl.games.blackjack.decisions import DECISIONS as DECISIONS
    from tablectl.games.blackjack.engine import BURN_HIDDEN as BURN_HIDDEN
    from tablectl.games.blackjack.engine import BlackjackEngine as BlackjackEngine
    from tablectl.games.blackjack.settlement import BlackjackOutcome as BlackjackOutcome
    from tablectl.games.blackjack.settlement import BusterResult as BusterResult
    from tablectl.games.blackjack.settlement import MatchResult as MatchResult
    from tablectl.games.blackjack.settlement import RedFlexResult as RedFlexResult
    from tablectl.games.blackjack.state import MAX_DOUBLES as MAX_DOUBLES
    from tablectl.games.blackjack.state import MAX_HANDS as MAX_HANDS
    from tablectl.games.blackjack.state import Action as Action
    from tablectl.games.blackjack.state import BlackjackState as BlackjackState
    from tablectl.games.blackjack.state import End as End
    from tablectl.games.blackjack.state import Hand as Hand
    from tablectl.games.blackjack.state import Phase as Phase
    from tablectl.games.blackjack.state import hand_numbers as hand_numbers
    from tablectl.games.blackjack.variant import PURE as PURE
    from tablectl.games.blackjack.variant import SPANISH as SPANISH
    from tablectl.games.blackjack.variant import Policy as Policy
    from tablectl.games.blackjack.variant import Variant as Variant
    from tablectl.games.blackjack.variant import policy_of as policy_of
    from tablectl.games.blackjack.variant import variant_of as variant_of
    from tablectl.games.blackjack.views import rank_view as rank_view

_WHERE = {
    "BlackjackEngine": "engine",
    "BURN_HIDDEN": "engine",
    "BlackjackState": "state",
    "Hand": "state",
    "Phase": "state",
    "End": "state",
    "Action": "state",
    "MAX_HANDS": "state",
    "MAX_DOUBLES": "state",
    "hand_numbers": "state",
    "Variant": "variant",
    "PURE": "variant",
    "SPANISH": "variant",
    "variant_of": "variant",
    "Policy": "variant",
    "policy_of": "variant",
    "DECISIONS": "decisions",
    "CHART_1A": "decisions",
    "BlackjackOutcome": "settlement",
    "RedFlexResult": "settlement",
    "BusterResult": "settlement",
    "MatchResult": "settlement",
    "rank_view": "views",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{where}"), name)
