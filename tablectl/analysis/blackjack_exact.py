"""The blackjack base game computed exactly for the stated strategy
(tablectl/analysis/blackjack_strategy.py): every round a fresh shoe can deal, enumerated.

Composition-dependent, as Wizard-of-Odds-style analyzers do: for every player's two cards and
up card, the player's hand is played by the stated strategy card by card, each card drawn with
its chance from the exact cards left, and at each completed hand the player-dealer's final hand
is distributed as from the cards left after the player's (tablectl/analysis/blackjack_dealer.py,
with the peek's condition, R12). Each decision is the simulation's own: the engine's legal
actions (`decisions.actions`) and `base_strategy` on them; each card's effect is the engine's
`deal.receive` and each settlement the engine's `settlement.base_verdict`, on representative
cards, so the model cannot rule differently from the table.

A round without a split is exact (in float64: the falling-factorial products and sums of a few
hundred thousand terms, error far below 1e-12 per unit). A split is where analyzers approximate,
and so does this one (`_split_round`): every hand of a split is dealt from the cards left at the
split (the pair and the up card out, not the other split hands' cards), resplit when the
strategy and R16 allow, a resplit hand from those cards less the pair cards the resplits took;
the player-dealer's final hand is distributed as from the cards left at the split less the
resplits' pair cards; and given the player-dealer's final hand the split hands are independent,
each keeping the composition-dependent chances of its own cards against the player-dealer's.
For the expectation of a split that is not resplit this is exact: each hand's cards start at a
stopping time, after which the rest of the shoe is as likely as from the top of the cards at the
split (the tests check it against the engine). What is approximate: a resplit (the other cards
the earlier hands drew are not taken out; 0.3% of Pure 21.5 rounds and 0.4% of Spanish ones
have one), and, in rounds with a split (2.5% and 2.8%), the shares of won, pushed and lost
rounds and the spread, which depend on how the hands move together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from tablectl.analysis.blackjack import shoe as game_shoe
from tablectl.analysis.blackjack_dealer import (
    DEALER_HANDS,
    OUTCOMES,
    VALUES,
    card_of,
    dealer_masses,
    pure_holes,
)
from tablectl.analysis.blackjack_strategy import base_strategy
from tablectl.games.blackjack import deal, decisions
from tablectl.games.blackjack.settlement import base_verdict
from tablectl.games.blackjack.state import MAX_HANDS, BlackjackState, Hand
from tablectl.games.blackjack.variant import Policy
from tablectl.rules.blackjack import card_value, is_pure
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import Decision

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# A single hand's net on a one-unit wager: the unit, doubled up to three times (R16, R20), won,
# lost or rescued (R20: the last doubled portion back). A Pure 21.5 is settled apart.
NETS = (-8.0, -4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0, 8.0)
UNIT = Decimal(1)
SEAT = 1
PLAYER = "1"
EXACT_FOR = "the stated strategy from a full shoe"
APPROXIMATION = (
    "a round without a split is exact; a split's hands are each dealt from the cards left at the "
    "split (the pair and the up card out, not the other split hands' cards), the player-dealer's "
    "hand is distributed as from those cards, and the split hands are independent given the "
    "player-dealer's final hand (a resplit's pair cards are taken out): exact for the "
    "expectation of a split without a resplit; a resplit's chance and hands are approximate, "
    "and so are the won, pushed and lost shares and sd of rounds with a split"
)

Counts = tuple[int, ...]  # cards of each value 1..10
Dist = dict[float, float]  # a round's net on one unit: its chance


def _dealer_cards(index: int) -> tuple[Card, ...]:
    return tuple(parse_card(c) for c in DEALER_HANDS[index])


class Model:
    """The base game of one configured table (`policy`, the engine's) from one composition of
    cards: the chances of a round's net on a one-unit base wager (`round_distribution`)."""

    def __init__(self, policy: Policy, game: str) -> None:
        self.policy = policy
        self.game = game
        self._play: dict[tuple[object, ...], npt.NDArray[np.float64]] = {}
        self._masses: dict[tuple[int, Counts], npt.NDArray[np.float64]] = {}
        self._nets: dict[tuple[object, ...], tuple[int, ...]] = {}

    # -- the engine's rules on representative cards ------------------------------------------

    def legal(self, hand: Hand, hands: int) -> tuple[str, ...]:
        """The engine's legal actions for `hand` with `hands` hands at the seat."""
        others = tuple(replace(hand, end="stand") for _ in range(hands - 1))
        state = BlackjackState(phase="playing", hands=(hand, *others))
        return decisions.actions(self.policy, state, hand)

    def move(self, hand: Hand, up: int, hands: int) -> str:
        """The stated strategy's move, as the simulation picks it."""
        return base_strategy(hand.cards, card_of(up), self.legal(hand, hands), game=self.game)

    def nets(self, hand: Hand) -> tuple[int, ...]:
        """For each OUTCOMES final hand of the player-dealer, the index in NETS of a completed
        hand's net, by the engine's settlement (`base_verdict`, R11, R13, R20)."""
        key = _key(hand)
        found = self._nets.get(key)
        if found is not None:
            return found
        found = tuple(
            NETS.index(self._net(hand, _dealer_cards(o), dealer_pure=False))
            for o in range(len(OUTCOMES))
        )
        self._nets[key] = found
        return found

    def masses(self, up: int, left: Counts) -> npt.NDArray[np.float64]:
        key = (up, left)
        found = self._masses.get(key)
        if found is None:
            found = self._masses[key] = dealer_masses(up, left)
        return found

    # -- a hand played out ----------------------------------------------------------------------

    def play(self, hand: Hand, up: int, left: Counts, hands: int) -> npt.NDArray[np.float64]:
        """The joint chances (OUTCOMES x NETS) of the player-dealer's final hand and this hand's
        net, the hand played from here by the strategy with `left` unseen (the peek's condition
        in the player-dealer's masses, so they sum to the chance of no Pure 21.5)."""
        key = (_key(hand), up, left, hands)
        found = self._play.get(key)
        if found is not None:
            return found
        import numpy as np

        if hand.end is None and not hand.owed:
            move = self.move(hand, up, hands)
            if move == "split":
                raise ValueError("a split is played by _split_round, not as one hand")
            if move == "stand":
                hand = replace(hand, end="stand")
            elif move == "rescue":
                hand = replace(hand, end="rescue")
            elif move == "double":
                hand = decisions.play(_state(hand), hand, _double(hand))[0].hands[0]
        if hand.end is not None:
            joint = np.zeros((len(OUTCOMES), len(NETS)))
            joint[np.arange(len(OUTCOMES)), self.nets(_settled(hand))] = self.masses(up, left)
        else:
            joint = np.zeros((len(OUTCOMES), len(NETS)))
            total = sum(left)
            for v in range(1, VALUES + 1):
                k = left[v - 1]
                if k == 0:
                    continue
                after = deal.receive(self.policy, hand, card_of(v))
                joint += (k / total) * self.play(after, up, _less(left, v), hands)
        self._play[key] = joint
        return joint

    # -- rounds ----------------------------------------------------------------------------------

    def round_distribution(self, shoe: Counts) -> Dist:
        """The chances of the round's net on a one-unit base wager, every deal of `shoe`
        enumerated: the player's first card, the up card, the player's second card (000 "Pure
        21.5 Blackjack: Dealing Procedures and Round of Play")."""
        dist: Dist = {}
        total = sum(shoe)
        for up in range(1, VALUES + 1):
            for first in range(1, VALUES + 1):
                for second in range(1, VALUES + 1):
                    chance = _draws(shoe, (first, up, second), total)
                    if chance == 0:
                        continue
                    left = _less(_less(_less(shoe, first), up), second)
                    for net, p in self.deal(first, second, up, left).items():
                        _add(dist, net, chance * p)
            # no hand or composition is met again under another up card: free the memos
            self._play.clear()
            self._masses.clear()
        return dist

    def deal(self, first: int, second: int, up: int, left: Counts) -> Dist:
        """The round's net after this deal, its chances given the deal. A shoe that could run
        out before the round ends is refused (the chances would not add up to one)."""
        dist = self._deal(first, second, up, left)
        if abs(sum(dist.values()) - 1) > 1e-9:
            raise ValueError(
                f"the cards left ({sum(left)}) can run out before the round ends: no exact "
                "figure for a shoe that small"
            )
        return dist

    def _deal(self, first: int, second: int, up: int, left: Counts) -> Dist:
        """`deal` before its check."""
        cards = (card_of(first), card_of(second))
        hand = Hand(SEAT, PLAYER, UNIT, cards)
        if is_pure(cards, split=False):  # R10: put away at once
            hand = replace(hand, end="pure")
        pure_hole = sum(left[v - 1] for v in pure_holes(up)) / sum(left)
        dist: Dist = {}
        if pure_hole:  # R12: the peek finds the player-dealer's Pure 21.5, the round ends
            dealer = (card_of(up), card_of(10 if up == 1 else 1))
            _add(dist, self._net(hand, dealer, dealer_pure=True), pure_hole)
        if hand.end == "pure":  # paid at once (R11), whatever the player-dealer draws
            _add(dist, self._net(hand, _dealer_cards(0), dealer_pure=False), 1 - pure_hole)
        elif self.move(hand, up, 1) == "split":
            for net, p in self._split_round(first, up, left).items():
                _add(dist, net, p)
        else:
            joint = self.play(hand, up, left, 1)
            for i, net in enumerate(NETS):
                _add(dist, net, float(joint[:, i].sum()))
        return dist

    def _net(self, hand: Hand, dealer: Sequence[Card], *, dealer_pure: bool) -> float:
        """A completed hand's net on its whole stake against the player-dealer's `dealer`, by
        the engine's settlement (`base_verdict`)."""
        verdict, at_risk, owed, _ = base_verdict(
            self.policy, hand, hand.staked, True, dealer, dealer_pure
        )
        return float(owed if verdict == "win" else -at_risk if verdict == "lose" else Decimal(0))

    def _split_round(self, pair: int, up: int, left: Counts) -> Dist:
        """A split pair's hands (R16, R20), by the approximation the module states. A hand of
        the split gets its second card from `left` (the cards at the split) less the pair cards
        that resplits took before it; one that draws the pair's value again is split again
        while the seat has fewer than MAX_HANDS hands and the strategy splits it. The
        player-dealer's final hand has the chances of `left` less every resplit's pair card
        (given no Pure 21.5, whose chance the peek took from `left`), and given it the hands
        are independent."""
        import numpy as np

        start = Hand(SEAT, PLAYER, UNIT, (card_of(pair),), split=True, owed=True)
        # per seat's count of hands: the joint of a hand that is not split again, and the
        # chance that a hand's second card splits it again
        kept: dict[int, npt.NDArray[np.float64]] = {}
        again: dict[int, float] = {}
        for hands in range(2, MAX_HANDS + 1):
            if left[pair - 1] < hands - 2:
                break  # not enough pair cards for this many hands: never reached
            cards = _less(left, pair, hands - 2)
            total = sum(cards)
            joint = np.zeros((len(OUTCOMES), len(NETS)))
            resplit = 0.0
            for v in range(1, VALUES + 1):
                k = cards[v - 1]
                if k == 0:
                    continue
                after = deal.receive(self.policy, start, card_of(v))
                if after.end is None and self.move(after, up, hands) == "split":
                    resplit += k / total
                    continue
                joint += (k / total) * self.play(after, up, _less(cards, v), hands)
            kept[hands], again[hands] = joint, resplit
        dist: Dist = {}
        no_pure = float(self.masses(up, left).sum())  # the peek was at the deal (R12)
        for counts, p in _split_hands(again).items():
            dealer = self.masses(up, _less(left, pair, len(counts) - 2))
            dealer = dealer * (no_pure / float(dealer.sum()))
            for o in range(len(OUTCOMES)):
                if dealer[o] == 0:
                    continue
                hand_dists = [_given(kept[h], o) for h in counts]
                for net, q in _convolve(hand_dists).items():
                    _add(dist, net, p * dealer[o] * q)
        return dist


def _given(joint: npt.NDArray[np.float64], o: int) -> Dist:
    """A kept split hand's net given the player-dealer's final hand `o`."""
    row = joint[o]
    share = float(row.sum())
    if share == 0:
        raise ValueError(
            "this shoe is too small for the split approximation: a split hand can never meet "
            f"the player-dealer's {OUTCOMES[o]}"
        )
    return {NETS[i]: float(row[i]) / share for i in range(len(NETS)) if row[i] > 0}


def _split_hands(again: Mapping[int, float]) -> dict[tuple[int, ...], float]:
    """The chances of the seat's hands after a split: for each hand kept (not split again), the
    seat's count of hands when it took its second card. Hands take their cards in turn, each
    split again with chance `again[count]` while the count is under MAX_HANDS (R16)."""
    out: dict[tuple[int, ...], float] = {}

    def walk(pending: int, hands: int, kept: tuple[int, ...], p: float) -> None:
        if pending == 0:
            key = tuple(sorted(kept))
            out[key] = out.get(key, 0.0) + p
            return
        q = again[hands] if hands < MAX_HANDS else 0.0
        if q > 0:
            walk(pending + 1, hands + 1, kept, p * q)  # one hand becomes two, both owed a card
        walk(pending - 1, hands, (*kept, hands), p * (1 - q))

    walk(2, 2, (), 1.0)
    return out


def _convolve(dists: Sequence[Dist]) -> Dist:
    """The distribution of the sum of independent nets."""
    out: Dist = {0.0: 1.0}
    for d in dists:
        nxt: Dist = {}
        for a, p in out.items():
            for b, q in d.items():
                _add(nxt, a + b, p * q)
        out = nxt
    return out


def _add(dist: Dist, net: float, p: float) -> None:
    """Add chance `p` (a Python float, whatever numpy handed over) to `net`."""
    if p:
        dist[net] = dist.get(net, 0.0) + float(p)


def _key(hand: Hand) -> tuple[object, ...]:
    """A hand's memo key: its first two cards in order, the rest as a multiset (no rule reads
    their order: R10, R13), and what the rules read besides."""
    rest = tuple(sorted(c.rank for c in hand.cards[2:]))
    first = tuple(c.rank for c in hand.cards[:2])
    return (first, rest, len(hand.doubles), hand.split, hand.owed, hand.end)


def _state(hand: Hand) -> BlackjackState:
    return BlackjackState(phase="playing", hands=(hand,))


def _double(hand: Hand) -> Decision:
    return Decision(seat=hand.seat, action="double")


def _settled(hand: Hand) -> Hand:
    """A completed hand as settlement sees it: standing unless the engine ended it otherwise."""
    return hand if hand.end is not None else replace(hand, end="stand")


def _less(left: Counts, value: int, times: int = 1) -> Counts:
    """The cards left less `times` cards of `value`."""
    i = value - 1
    return (*left[:i], left[i] - times, *left[i + 1 :])


def _draws(shoe: Counts, values: Sequence[int], total: int) -> float:
    """The chance that the next cards of `shoe` are `values`, in order."""
    chance = 1.0
    have = list(shoe)
    for i, v in enumerate(values):
        if have[v - 1] == 0:
            return 0.0
        chance *= have[v - 1] / (total - i)
        have[v - 1] -= 1
    return chance


@dataclass(frozen=True)
class ExactBase:
    """The exact figures of one game's base wager: the chances of a round's net on one unit."""

    distribution: Mapping[float, float]

    @property
    def expectation(self) -> float:
        return sum(net * p for net, p in self.distribution.items())

    @property
    def house_edge(self) -> float:
        return -self.expectation

    @property
    def sd(self) -> float:
        mean = self.expectation
        second = sum(net * net * p for net, p in self.distribution.items())
        return float(max(second - mean * mean, 0.0) ** 0.5)

    def share(self, sign: int) -> float:
        """The chance the round's net is above (1), at (0) or below (-1) zero."""
        return sum(p for net, p in self.distribution.items() if (net > 0) - (net < 0) == sign)


def shoe_counts(game: str, decks: int) -> Counts:
    """The cards of each value 1..10 in the game's shoe of `decks` decks (R10; Spanish: no pip
    tens, 003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used")."""
    counts = [0] * VALUES
    for card in game_shoe(game, decks):
        counts[card_value(card) - 1] += 1
    return tuple(counts)


def exact_base(policy: Policy, game: str, shoe: Counts) -> ExactBase:
    """The base game's exact figures for this table (`policy`) dealt from `shoe`."""
    return ExactBase(Model(policy, game).round_distribution(shoe))
