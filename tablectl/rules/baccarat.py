"""EZ Baccarat Panda 8 rules: card points, the drawing rules, the coup's outcome and wager results.

The one home of these rules (R25, R26, R27): the engine deals by `next_to_draw` and settles by
`outcome`/`wager_result`, and `tablectl.analysis.baccarat` derives its enumeration from the same
functions, so play and analysis cannot disagree. Pure: no I/O, no state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from tablectl_base.cards import Card
from tablectl_base.frozen import quick_init  # frozen at a plain class's cost: a replay builds many

Side = Literal["player", "banker"]
Winner = Literal["player", "banker", "tie"]
Result = Literal["win", "lose", "push"]

SPOTS: tuple[str, ...] = ("player", "banker", "tie", "dragon7", "panda8")

_FACE_POINTS: Mapping[str, int] = MappingProxyType(
    {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9}
    | {"T": 0, "J": 0, "Q": 0, "K": 0}
)


def point(card: Card) -> int:
    """A card's baccarat point: ace 1, 2-9 face value, tens and pictures 0 (Card Values)."""
    try:
        return _FACE_POINTS[card.rank]
    except KeyError:
        raise ValueError(f"{card} has no baccarat point: the game uses no jokers") from None


def hand_total(cards: Sequence[Card]) -> int:
    """A hand's value: the right-hand digit of the sum of its points."""
    try:
        return sum([_FACE_POINTS[c.rank] for c in cards]) % 10  # `point`, inlined: the hot path
    except KeyError:
        for c in cards:
            point(c)  # raises, naming the card
        raise


def is_natural(cards: Sequence[Card]) -> bool:
    """A natural is exactly the first two cards totalling 8 or 9; three-card 8s and 9s are not."""
    return len(cards) == 2 and hand_total(cards) >= 8


# The document's chart, row by row as printed ("Banker's Score" 7 down to 0, "Player's Third
# Card" 0..9 across; H = banker hits, S = banker stands). Banker 8 and 9 are naturals: no row.
_CHART_AS_PRINTED: Mapping[int, str] = MappingProxyType(
    {
        7: "SSSSSSSSSS",
        6: "SSSSSSHHSS",
        5: "SSSSHHHHSS",
        4: "SSHHHHHHSS",
        3: "HHHHHHHHSH",
        2: "HHHHHHHHHH",
        1: "HHHHHHHHHH",
        0: "HHHHHHHHHH",
    }
)

BANKER_CHART: Mapping[int, Mapping[int, bool]] = MappingProxyType(
    {
        score: MappingProxyType({third: letter == "H" for third, letter in enumerate(row)})
        for score, row in sorted(_CHART_AS_PRINTED.items())
    }
)
"""Banker score 0..7 -> player's third-card point 0..9 -> True if the banker hits (R25)."""


def _two(cards: Sequence[Card], whose: str) -> None:
    """Refuse anything but a two-card starting hand, naming whose it is."""
    if len(cards) != 2:
        raise ValueError(f"the {whose}'s first two cards are needed, got {len(cards)}")


def player_draws(player_two: Sequence[Card], *, banker_two: Sequence[Card] | None = None) -> bool:
    """Whether the player takes a third card: hits on 0-5, stands on 6-9 and on any natural.

    With `banker_two` given, a banker natural also stops the player (nobody draws on a natural).
    """
    _two(player_two, "player")
    if banker_two is not None:
        _two(banker_two, "banker")
        if is_natural(banker_two):
            return False
    return not is_natural(player_two) and hand_total(player_two) <= 5


def banker_draws(banker_two: Sequence[Card], player_cards: Sequence[Card]) -> bool:
    """Whether the banker takes a third card, by the document's rules and BANKER_CHART.

    `player_cards` is the player's completed hand: two cards if the player stood (banker then
    hits on 0-5), three if the player drew (the chart by the third card's point). Nobody draws on
    a natural. Raises ValueError when the player's hand is not complete per the drawing rules.
    """
    _two(banker_two, "banker")
    if len(player_cards) not in (2, 3):
        raise ValueError(f"the player's hand has 2 or 3 cards, not {len(player_cards)}")
    player_two = player_cards[:2]
    if is_natural(banker_two) or is_natural(player_two):
        return False
    player_hit = player_draws(player_two)
    if player_hit and len(player_cards) == 2:
        raise ValueError("the player draws a third card before the banker's hand is resolved")
    if not player_hit and len(player_cards) == 3:
        raise ValueError(f"the player stands on {hand_total(player_two)}: no third card")
    score = hand_total(banker_two)
    if len(player_cards) == 2:
        return score <= 5
    return BANKER_CHART[score][point(player_cards[2])]


_OPENING: Mapping[tuple[int, int], Side] = MappingProxyType(
    {(0, 0): "player", (1, 0): "banker", (1, 1): "player", (2, 1): "banker"}
)


def next_to_draw(player: Sequence[Card], banker: Sequence[Card]) -> Side | None:
    """Which hand the next card from the shoe goes to (R25), or None when the coup is complete.

    Order: player, banker, player, banker, then the player's third card if it draws, then the
    banker's if it draws. Raises ValueError for hands that this order could not have produced.
    """
    p, b = len(player), len(banker)
    if p < 2 or b < 2:
        if (p, b) not in _OPENING:
            raise ValueError(f"{p} player and {b} banker cards is not a point in the deal order")
        return _OPENING[(p, b)]
    if p > 3 or b > 3:
        raise ValueError("a baccarat hand has at most three cards")
    # `player_draws` and `banker_draws` with each two-card total worked out once (this is asked
    # after every card dealt): nobody draws on a natural, the player hits on 0-5.
    banker_score = hand_total(banker[:2])
    player_score = None if banker_score >= 8 else hand_total(player[:2])
    player_hits = player_score is not None and player_score <= 5
    if p == 2 and player_hits:
        if b == 3:
            raise ValueError("the banker drew before the player's third card")
        return "player"
    if p == 3 and not player_hits:
        raise ValueError(
            f"the player stands on {hand_total(player[:2])} "
            f"(banker {hand_total(banker[:2])}): no third card"
        )
    if player_score is None or player_score >= 8:
        banker_hits = False
    elif p == 2:
        banker_hits = banker_score <= 5
    else:
        banker_hits = BANKER_CHART[banker_score][point(player[2])]
    if b == 2:
        return "banker" if banker_hits else None
    if not banker_hits:
        raise ValueError(f"the banker stands on {hand_total(banker[:2])} here: no third card")
    return None


@quick_init
@dataclass(frozen=True)
class CoupOutcome:
    """The result of a complete coup, with everything the five wagers settle on (R26, R27)."""

    winner: Winner
    player_total: int
    banker_total: int
    player_natural: bool
    banker_natural: bool
    dragon7: bool  # banker wins with a three-card 7 against a player 6 or less (R27)
    panda8: bool  # player wins with a three-card 8 against a banker 7 or less (R27)


def outcome(player: Sequence[Card], banker: Sequence[Card]) -> CoupOutcome:
    """Settle a complete coup; raises ValueError if the drawing rules still call for a card."""
    nxt = next_to_draw(player, banker)
    if nxt is not None:
        raise ValueError(f"the coup is not complete: the {nxt} draws next")
    pt, bt = hand_total(player), hand_total(banker)
    winner: Winner = "player" if pt > bt else "banker" if bt > pt else "tie"
    return CoupOutcome(
        winner=winner,
        player_total=pt,
        banker_total=bt,
        player_natural=len(player) == 2 and pt >= 8,  # `is_natural`, its total known
        banker_natural=len(banker) == 2 and bt >= 8,
        dragon7=len(banker) == 3 and bt == 7 and pt <= 6,
        panda8=len(player) == 3 and pt == 8 and bt <= 7,
    )


PAYOUTS: Mapping[str, int] = MappingProxyType(
    {"player": 1, "banker": 1, "tie": 8, "dragon7": 40, "panda8": 25}
)
"""Each spot's winning payout, odds to 1 (R26: banker 1:1 with no commission; R27 side bets)."""


def wager_result(spot: str, o: CoupOutcome, *, banker_push_on_dragon7: bool = False) -> Result:
    """What one wager on `spot` did in coup `o` (R26, R27); unknown spots raise ValueError.

    Ties push the player and banker lines. The banker line wins 1:1 on a Dragon 7 unless the
    `banker_push_on_dragon7` option is on, when it pushes. Side bets lose on every other outcome.
    """
    if spot == "player" or spot == "banker":
        if o.winner == "tie":
            return "push"
        if o.winner != spot:
            return "lose"
        if spot == "banker" and o.dragon7 and banker_push_on_dragon7:
            return "push"
        return "win"
    if spot == "tie":
        return "win" if o.winner == "tie" else "lose"
    if spot == "dragon7":
        return "win" if o.dragon7 else "lose"
    if spot == "panda8":
        return "win" if o.panda8 else "lose"
    raise ValueError(f"{spot!r} is not a baccarat wager: expected one of {', '.join(SPOTS)}")
