"""The brute-force reference for the live figures: every ordered deal, card by card.

Nothing here is shared with tablectl/protection/ but the rules (the engine's own functions): a
deal is a sequence of cards taken one at a time from the composition; a kind of card with k left
is one branch of weight k (the k physical cards give the same deal), so a complete deal of j cards
has weight = the number of ordered deals of physical cards it stands for, out of N (N - 1) ...
(N - j + 1). Each complete round is settled by the engine's functions; the figure is the sum of
weight x net over every deal, as a Fraction. Slow on purpose: no grouping by points or values, no
multisets, no memo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Literal

from tablectl.protection.shoe import ShoeLeft
from tablectl.rules import baccarat as bac
from tablectl.rules import blackjack as bj
from tablectl.rules.paytables import PayTable, payout
from tablectl_base.cards import RANKS, SUITS, Card

KINDS = tuple(Card(r, s) for r in RANKS for s in SUITS)  # ShoeLeft.by_card's order

Done = Callable[[list[Card]], bool]
Settle = Callable[[list[Card]], Fraction]
Branch = Literal["card", "colour", "rank"]


def _deal(
    kinds: Sequence[Card],
    left: list[int],
    dealt: list[Card],
    weight: int,
    done: Done,
    settle: Settle,
    ways: dict[tuple[int, Fraction], int],
) -> None:
    """Add every complete deal that goes on from `dealt` to `ways`, by (cards, net)."""
    if done(dealt):
        key = (len(dealt), settle(dealt))
        ways[key] = ways.get(key, 0) + weight
        return
    if not any(left):
        raise ValueError(f"the shoe ran out after {' '.join(map(str, dealt))}")
    for i, card in enumerate(kinds):
        k = left[i]
        if not k:
            continue
        left[i] -= 1
        dealt.append(card)
        _deal(kinds, left, dealt, weight * k, done, settle, ways)
        dealt.pop()
        left[i] += 1


def _falling(n: int, j: int) -> int:
    out = 1
    for i in range(j):
        out *= n - i
    return out


def _kinds(shoe: ShoeLeft, branch: Branch) -> tuple[list[Card], list[int]]:
    """The kinds of card to branch on and how many of each are left: every card (52 kinds),
    rank and colour (26: a heart and a spade of each rank stand for their colour) or rank (13:
    a spade of each)."""
    if branch == "rank":
        return [Card(r, "s") for r in RANKS], list(shoe.counts)
    assert shoe.by_card is not None
    if branch == "card":
        return list(KINDS), list(shoe.by_card)
    kinds: list[Card] = []
    left: list[int] = []
    for r, rank in enumerate(RANKS):
        per_suit = dict(
            zip(SUITS, shoe.by_card[r * len(SUITS) : (r + 1) * len(SUITS)], strict=True)
        )
        kinds += [Card(rank, "h"), Card(rank, "s")]
        left += [per_suit["h"] + per_suit["d"], per_suit["s"] + per_suit["c"]]
    return kinds, left


def expectation(shoe: ShoeLeft, branch: Branch, done: Done, settle: Settle) -> Fraction:
    """The expected net of a round dealt card by card from `shoe` until `done`, settled by
    `settle`, branching on the kinds `branch` names (what the wager reads: `_kinds`)."""
    kinds, left = _kinds(shoe, branch)
    ways: dict[tuple[int, Fraction], int] = {}
    _deal(kinds, left, [], 1, done, settle, ways)
    n = shoe.cards
    total = sum((Fraction(w, _falling(n, j)) for (j, _), w in ways.items()), Fraction(0))
    if total != 1:
        raise AssertionError(f"the deals' chances add up to {total}")
    return sum((net * Fraction(w, _falling(n, j)) for (j, net), w in ways.items()), Fraction(0))


# ------------------------------------------------------------------------------- baccarat


def _coups(
    kinds: Sequence[Card],
    left: list[int],
    player: list[Card],
    banker: list[Card],
    weight: int,
    ways: dict[tuple[int, bac.CoupOutcome], int],
) -> None:
    """Add every complete coup that goes on from these hands to `ways`, by (cards, outcome):
    the next card goes where `next_to_draw` sends it (R25)."""
    side = bac.next_to_draw(player, banker)
    if side is None:
        key = (len(player) + len(banker), bac.outcome(player, banker))
        ways[key] = ways.get(key, 0) + weight
        return
    hand = player if side == "player" else banker
    for i, card in enumerate(kinds):
        k = left[i]
        if not k:
            continue
        left[i] -= 1
        hand.append(card)
        _coups(kinds, left, player, banker, weight * k, ways)
        hand.pop()
        left[i] += 1


def baccarat(shoe: ShoeLeft, *, banker_push_on_dragon7: bool) -> dict[str, Fraction]:
    """Every baccarat spot's expected net per unit on the next coup dealt from `shoe`."""
    ways: dict[tuple[int, bac.CoupOutcome], int] = {}
    _coups([Card(r, "s") for r in RANKS], list(shoe.counts), [], [], 1, ways)
    n = shoe.cards
    chances = [(o, Fraction(w, _falling(n, j))) for (j, o), w in ways.items()]
    if sum(p for _, p in chances) != 1:
        raise AssertionError("the coups' chances do not add up to 1")
    out = {}
    for spot in bac.SPOTS:
        net = Fraction(0)
        for o, p in chances:
            result = bac.wager_result(spot, o, banker_push_on_dragon7=banker_push_on_dragon7)
            net += p * {"win": bac.PAYOUTS[spot], "push": 0, "lose": -1}[result]
        out[spot] = net
    return out


# ------------------------------------------------------------------------------- blackjack


def _dealer_done(cards: list[Card]) -> bool:
    """The player-dealer's hand is complete (R14, Chart 1B; a Pure 21.5 stands)."""
    return len(cards) >= 2 and (bj.is_pure(cards, split=False) or not bj.dealer_must_hit(cards))


def _net(table: PayTable, row: str | None) -> Fraction:
    return Fraction(-1) if row is None else payout(table, row)


def buster(shoe: ShoeLeft, table: PayTable) -> Fraction:
    """Buster's expected net per unit on the player-dealer's next hand (R19)."""
    return expectation(
        shoe,
        "rank",
        _dealer_done,
        lambda cards: _net(table, bj.buster_category(bj.buster_cards(cards), table)),
    )


def red_flex(shoe: ShoeLeft, table: PayTable) -> Fraction:
    """Red Flex's expected net per unit on the player-dealer's next hand (R18)."""
    return expectation(
        shoe,
        "colour",
        _dealer_done,
        lambda cards: _net(table, bj.red_flex_category(bj.red_flex_count(cards), table)),
    )


def match_dealer(shoe: ShoeLeft, table: PayTable) -> Fraction:
    """Match the Dealer's expected net per unit: the up card, then the player's two cards (R21)."""
    return expectation(
        shoe,
        "card",
        lambda cards: len(cards) == 3,
        lambda cards: _net(
            table, bj.match_dealer_category(bj.match_dealer(cards[1:], cards[0]), table)
        ),
    )
