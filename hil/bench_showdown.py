"""Benchmark: the showdown of a full Omaha hi-lo table, tablectl against pokerkit, same run.

A full table is ten players: 004 "Omaha High/Low Split: Description of Table Used and Total
Number of Seated Positions" ("a standard poker table which shall accommodate up to ten seated
positions"; 003 "Omaha (High-Low Split)" gives no seat count), the poker engine's default
(`PokerSettings.seats`). Each hand deals every player four hole cards and a five-card board from
a seeded shuffled 52-card deck (004 "Description of the Deck and Number of Decks Used": one deck,
no joker). Timed in this process, on the same hands, each side on its own prebuilt cards
(conversion is not timed):

* tablectl's showdown: every player's high (`flop_hands.omaha_high`: two hole cards and three
  board cards) and 8-or-better low (`flop_hands.omaha_low`), then who wins high and who wins low;
  our rank caches are cleared first, so the figure includes warming them;
* the award of the pot, on its own: `pots.build_pots` and `pots.award` (Split.HIGH_LOW, the 004
  odd-chip rule, a $1 chip) of a $105 pot, every player in for $10.50, so every split pot leaves
  an odd chip to place;
* pokerkit's showdown: `OmahaHoldemHand.from_game` and `OmahaEightOrBetterLowHand.from_game_or_none`
  for every player (pokerkit's `EightOrBetterLowHand` would take any five of the nine cards: not
  Omaha), then who wins high and who wins low.

Every hand is also a cross-check: our winners of high and of low (none when no hand qualifies)
must be pokerkit's, and the award must give the halves to those seats and pay out the whole pot;
the first hand where they differ is printed and the benchmark exits with status 1.

usage: .venv/bin/python hil/bench_showdown.py [--hands 20000] [--seed 41] [--json]
(pokerkit's side is most of the run: about seven minutes for 20,000 hands on a 2-core machine)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Final, cast

from pokerkit import Card as PkCard
from pokerkit import Hand, OmahaEightOrBetterLowHand, OmahaHoldemHand

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hil.bench_evaluators import _rate
from tablectl.rules import low, poker
from tablectl.rules.flop_hands import BOARD_CARDS, OMAHA_HOLE_CARDS, omaha_high, omaha_low
from tablectl.rules.pots import Contribution, PotAward, Split, Strength, award, build_pots
from tablectl_base.cards import Card, standard_deck

SEATS: Final = 10  # 004 "Omaha High/Low Split": "up to ten seated positions"
IN_FOR: Final = Decimal("10.50")  # each player's chips in the pot: $105 in all
CHIP: Final = Decimal("1")  # the table's smallest chip (R41)
POT: Final = IN_FOR * SEATS
# Seats 1..10 clockwise from the button's left, the button (seat 10) last.
BUTTON_ORDER: Final = tuple(range(1, SEATS + 1))
CONTRIBUTIONS: Final = tuple(Contribution(seat, IN_FOR) for seat in BUTTON_ORDER)

Seats = tuple[int, ...]
Winners = tuple[Seats, Seats]  # (high, low) seats in button order; low () when none qualifies


@dataclass(frozen=True)
class Deal:
    """One hand's cards: each seat's four hole cards (seat 1 first) and the board."""

    holes: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...]

    def show(self) -> str:
        """The hand as text: the board and each seat's hole cards."""
        seats = "  ".join(
            f"seat {s}: {' '.join(map(str, h))}" for s, h in enumerate(self.holes, start=1)
        )
        return f"board {' '.join(map(str, self.board))}; {seats}"


@dataclass(frozen=True)
class PkDeal:
    """The same hand in pokerkit's cards."""

    holes: tuple[tuple[PkCard, ...], ...]
    board: tuple[PkCard, ...]


@dataclass(frozen=True)
class Showdown:
    """tablectl's showdown of one hand: every seat's keys (what `award` is given) and winners."""

    ranking: Mapping[int, Strength]
    winners: Winners


def deal(rng: random.Random, deck: Sequence[Card]) -> Deal:
    """A full table's hand from a freshly shuffled deck."""
    cards = rng.sample(deck, SEATS * OMAHA_HOLE_CARDS + BOARD_CARDS)
    holes = tuple(
        tuple(cards[i * OMAHA_HOLE_CARDS : (i + 1) * OMAHA_HOLE_CARDS]) for i in range(SEATS)
    )
    return Deal(holes, tuple(cards[SEATS * OMAHA_HOLE_CARDS :]))


def to_pokerkit(d: Deal) -> PkDeal:
    """`d` in pokerkit's cards."""
    return PkDeal(
        tuple(PkCard.clean("".join(map(str, h))) for h in d.holes),
        PkCard.clean("".join(map(str, d.board))),
    )


def ours(d: Deal) -> Showdown:
    """tablectl's showdown: each seat's Omaha high and 8-or-better low, and the winners."""
    ranking: dict[int, Strength] = {}
    for seat, hole in enumerate(d.holes, start=1):
        lo = omaha_low(hole, d.board)
        ranking[seat] = Strength(omaha_high(hole, d.board)[0], None if lo is None else lo[0])
    best = max(s.high for s in ranking.values())
    high = tuple(seat for seat, s in ranking.items() if s.high == best)
    lows = [s.low for s in ranking.values() if s.low is not None]
    best_low = min(lows) if lows else None
    low_seats = tuple(seat for seat, s in ranking.items() if lows and s.low == best_low)
    return Showdown(ranking, (high, low_seats))


def award_pot(ranking: Mapping[int, Strength]) -> tuple[PotAward, ...]:
    """The full award: the pot built from every player's chips and split high-low (004)."""
    pots = build_pots(CONTRIBUTIONS)
    return award(
        pots.pots,
        ranking,
        split=Split.HIGH_LOW,
        odd_chip_rule="004",
        chip=CHIP,
        button_order=BUTTON_ORDER,
    )


def _best(hands: Sequence[Hand | None]) -> Seats:
    """The seats holding the strongest of `hands` (None: no hand), or () if there is none."""
    held = [h for h in hands if h is not None]
    if not held:
        return ()
    top = max(held)
    return tuple(seat for seat, h in enumerate(hands, start=1) if h is not None and h == top)


def theirs(d: PkDeal) -> Winners:
    """pokerkit's showdown of the same hand: the winners of high and of low."""
    highs = [OmahaHoldemHand.from_game(h, d.board) for h in d.holes]
    lows = [OmahaEightOrBetterLowHand.from_game_or_none(h, d.board) for h in d.holes]
    return _best(highs), _best(lows)


def disagreement(
    d: Deal, pk: PkDeal, mine: Showdown, awarded: tuple[PotAward, ...], their: Winners
) -> str | None:
    """Why tablectl and pokerkit (or our award and our winners) differ on this hand, or None."""
    problems = []
    if mine.winners != their:
        problems.append(f"winners (high, low): tablectl {mine.winners}, pokerkit {their}")
    if len(awarded) != 1:
        problems.append(f"the award has {len(awarded)} pots, not 1")
    else:
        a = awarded[0]
        if (a.high, a.low) != their:
            problems.append(f"award: high {a.high} low {a.low}, pokerkit {their}")
        paid = sum((p.amount for p in a.paid), Decimal(0))
        if paid != POT:
            problems.append(f"award pays {paid} of the {POT} pot")
    if not problems:
        return None
    hands = "; ".join(
        f"seat {s}: tablectl high {mine.ranking[s].high} low {mine.ranking[s].low}, pokerkit "
        f"high {OmahaHoldemHand.from_game(h, pk.board)} "
        f"low {OmahaEightOrBetterLowHand.from_game_or_none(h, pk.board)}"
        for s, h in enumerate(pk.holes, start=1)
    )
    return f"{'; '.join(problems)}\nhand: {d.show()}\nhands: {hands}"


def measure(n: int, seed: int) -> dict[str, Any]:
    """Deal `n` hands, time each side on them, cross-check every hand; the figures.

    Raises SystemExit (status 1) with the first hand on which tablectl and pokerkit differ."""
    rng = random.Random(seed)
    deck = list(standard_deck())
    deals = [deal(rng, deck) for _ in range(n)]
    pk_deals = [to_pokerkit(d) for d in deals]

    poker._best_plain.cache_clear()
    poker._best_flush.cache_clear()
    low._key_of.cache_clear()
    ours_rate, ours_out = _rate(ours, deals)
    mine = cast(list[Showdown], ours_out)
    award_rate, award_out = _rate(award_pot, [m.ranking for m in mine])
    awarded = cast(list[tuple[PotAward, ...]], award_out)
    pk_rate, pk_out = _rate(theirs, pk_deals)
    their = cast(list[Winners], pk_out)

    for i in range(n):
        why = disagreement(deals[i], pk_deals[i], mine[i], awarded[i], their[i])
        if why is not None:
            raise SystemExit(f"hand {i} (seed {seed}): tablectl and pokerkit disagree: {why}")

    total_rate = 1 / (1 / ours_rate + 1 / award_rate)
    return {
        "hands": n,
        "seed": seed,
        "seats": SEATS,
        "agree": True,
        "hands_with_low": sum(1 for w in their if w[1]),
        "high_ties": sum(1 for w in their if len(w[0]) > 1),
        "low_ties": sum(1 for w in their if len(w[1]) > 1),
        "tablectl_hands_per_s": round(ours_rate, 1),
        "award_hands_per_s": round(award_rate, 1),
        "tablectl_with_award_hands_per_s": round(total_rate, 1),
        "pokerkit_hands_per_s": round(pk_rate, 1),
        "ratio_tablectl_to_pokerkit": round(ours_rate / pk_rate, 3),
        "ratio_tablectl_with_award_to_pokerkit": round(total_rate / pk_rate, 3),
    }


def report(f: Mapping[str, Any]) -> str:
    """The figures as a block a person reads (the --json line has them all)."""
    rates = [
        ("tablectl omaha_high + omaha_low, every seat", "tablectl_hands_per_s"),
        ("tablectl build_pots + award (004 odd chip)", "award_hands_per_s"),
        ("tablectl showdown and award together", "tablectl_with_award_hands_per_s"),
        ("pokerkit OmahaHoldemHand + Omaha 8-low", "pokerkit_hands_per_s"),
    ]
    ratios = [
        ("ratio tablectl / pokerkit (showdown)", "ratio_tablectl_to_pokerkit"),
        ("ratio tablectl with award / pokerkit", "ratio_tablectl_with_award_to_pokerkit"),
    ]
    return "\n".join(
        [
            f"Omaha hi-lo showdowns: {f['hands']} hands of {f['seats']} players "
            f"(seed {f['seed']}); high and low winners agree with pokerkit on every hand",
            f"  {f['hands_with_low']} hands with a qualifying low, {f['high_ties']} with a split "
            f"high, {f['low_ties']} with a split low",
            *(f"{label + ':':46}{f[key]:10,.0f} hands/s" for label, key in rates),
            *(f"{label + ':':46}{f[key]:10.2f}x" for label, key in ratios),
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20_000, help="hands of a full table to show down")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--json", action="store_true", help="also print every figure as JSON")
    a = ap.parse_args(argv)
    if a.hands < 1:
        ap.error("--hands must be at least 1")
    figures = measure(a.hands, a.seed)
    print(report(figures))
    if a.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
