"""What `tablectl analyze` runs for a wager of Pure 21.5 Blackjack or Pure Spanish 21.5: a side
bet's figures (`analyze`: every headline exact, Red Flex and Buster with their simulation as the
cross-check) and `analyze_request`, the games' analyzer (their GameSpec names it), which sends the
base game wager to tablectl/analysis/blackjack_base.py."""

from __future__ import annotations

from typing import Any

from tablectl.analysis import blackjack_base, blackjack_sim, wager_paytable
from tablectl.analysis.blackjack import (
    DEFAULT_PAYTABLES,
    EXACT_FOR,
    check_side_bet,
    exact_full_shoe,
    insurance_figures,
    match_dealer_figures,
)
from tablectl.analysis.blackjack_sim import SIM_HANDS, SIM_PLAYERS, SIM_SEED
from tablectl.games.spec import Analysis, AnalyzeRequest
from tablectl.rules.blackjack import PAYTABLE_PATH
from tablectl.rules.paytables import odds_text


def analyze(
    game: str,
    wager: str,
    paytable: str | None,
    decks: int,
    *,
    hands: int = SIM_HANDS,
    seed: int = SIM_SEED,
    players: int = SIM_PLAYERS,
) -> dict[str, Any]:
    """Hit frequency and house edge of a 21.5 side bet; every headline figure is exact.

    Match the Dealer and insurance are exact. Red Flex and Buster lead with the exact figure of
    the player-dealer's hand from a full shoe ("method": "exact", "exact_for" saying so) and
    carry their seeded simulation (`hands` rounds dealt to `players` players) as the cross-check
    under "simulation": its own figures, "ci95" and "hit_frequency_ci95" (95% intervals), and
    `cross_check`'s fields: "exact_inside_ci95", whether the house edge's interval holds the
    exact one, "z" and "p_value", how far apart the two are, and a "note" saying what that means.
    """
    check_side_bet(game, wager, decks)
    result: dict[str, Any] = {"game": game, "wager": wager, "decks": decks}
    if wager == "insurance":
        if paytable is not None:
            raise ValueError(
                'insurance has no pay table: it pays 2 to 1 (000 "Pure 21.5 Blackjack: How Each '
                'Wager Wins, Loses, or Pushes", R17)'
            )
        return result | {"pays": "2 to 1"} | insurance_figures(game, decks)
    table = wager_paytable(paytable or DEFAULT_PAYTABLES[wager], wager, PAYTABLE_PATH)
    result |= {
        "paytable": table.name,
        "source": table.source,
        "pays": {c: odds_text(p) for c, p in table.pays.items()},
    }
    if wager == "match-dealer":
        return result | match_dealer_figures(game, decks, table)
    sim = blackjack_sim.simulate(game, decks, hands, seed=seed, players=players)
    exact = exact_full_shoe(game, wager, decks, table)
    check = blackjack_sim.simulated_figures(sim, wager, table, players=players, seed=seed)
    check |= blackjack_sim.cross_check(exact, check, wager)
    return result | exact | {"exact_for": EXACT_FOR, "simulation": check}


def analyze_request(request: AnalyzeRequest) -> Analysis:
    """The base wager under a stated strategy (exact, with its engine simulation as the
    cross-check), or a side bet's figures (`analyze`)."""
    decks = request.decks or 8
    if request.wager == "base":
        # exact, and BASE_HANDS seeded rounds as the cross-check; --pure-pays "6 to 5"
        # (default, R11) or "3 to 2"
        result = blackjack_base.analyze_base(
            request.game, decks, pure_pays=request.pure_pays, paytable=request.paytable
        )
        table = f"pure pays {result['pure_pays']}"
    else:
        # --paytable defaults per wager (DEFAULT_PAYTABLES); Red Flex and Buster lead with the
        # exact figure and carry their simulation (1,000,000 seeded rounds) as the cross-check
        # under "simulation"
        if request.pure_pays is not None:
            raise ValueError("--pure-pays is for the base wager (R11)")
        result = analyze(request.game, request.wager, request.paytable, decks)
        table = str(result.get("paytable", result.get("pays")))
    return Analysis(f"{request.game} {request.wager} ({table}, {decks} decks)", result)
