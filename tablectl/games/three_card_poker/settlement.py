"""The end of a Three Card Poker 6 Card Bonus round: what each wager did against the
player-dealer's hand (R1, R29; lines 559-575 and the pay tables) and the outcome the round
publishes, for the one settlement walk (R1, R4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from tablectl.game_records import JsonObject, JsonValue
from tablectl.games.common import PlacedWager
from tablectl.games.three_card_poker.state import Action, ThreeCardPokerState
from tablectl.rules.paytables import PayTable, payout, winnings
from tablectl.rules.poker import (
    Rank,
    Showdown,
    best_five,
    rank_category,
    showdown,
    three_card_category,
    three_card_rank,
)
from tablectl.rules.settlement import Verdict, WagerVerdict
from tablectl_base.cards import Card
from tablectl_base.money import ZERO

# -- the outcome (R29; lines 557-570) -------------------------------------------------------------

ShowdownShown = Literal["win", "lose", "tie"]
SHOWDOWN_SHOWN: Mapping[Showdown, ShowdownShown] = MappingProxyType(
    {"win": "win", "lose": "lose", "push": "tie"}
)


@dataclass(frozen=True)
class SixCardBonusShown:
    """A 6 Card Bonus hand as the result names it: its rank, and its five cards unless the hand
    folded (a folded hand's paying 6 Card Bonus names only its rank, line 557)."""

    rank: str
    cards: tuple[Card, ...] | None = None

    def payload(self) -> JsonObject:
        if self.cards is None:
            return {"rank": self.rank}
        return {"rank": self.rank, "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True)
class PlayedHand:
    """A hand that played, revealed (line 559): its cards, their rank, the showdown against the
    player-dealer's (None when the player-dealer did not qualify, lines 564-565)."""

    cards: tuple[Card, ...]
    rank: str
    showdown: Showdown | None


@dataclass(frozen=True)
class HandOutcome:
    """One seat's hand at the end of the round: its decision, its cards if it played (a folded
    hand shows none, line 558), its 6 Card Bonus hand if one is shown."""

    seat: int
    decision: Action
    played: PlayedHand | None
    six_card_bonus: SixCardBonusShown | None

    def payload(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"seat": self.seat, "decision": self.decision}
        if self.played is not None:
            p = self.played
            out["cards"] = [str(c) for c in p.cards]
            out["rank"] = p.rank
            out["showdown"] = None if p.showdown is None else SHOWDOWN_SHOWN[p.showdown]
        if self.six_card_bonus is not None:
            out["six_card_bonus"] = self.six_card_bonus.payload()
        return out


@dataclass(frozen=True)
class ThreeCardPokerOutcome:
    """The round's hands: the player-dealer's, revealed with its rank and whether it qualified
    (R29, line 559), and every seat's in delivery order."""

    bank_seat: int
    player_dealer: tuple[Card, ...]
    rank: str
    qualified: bool
    hands: tuple[HandOutcome, ...]

    def payload(self) -> JsonObject:
        return {
            "player_dealer": {
                "seat": self.bank_seat,
                "cards": [str(c) for c in self.player_dealer],
                "face_up": str(self.player_dealer[0]),
                "rank": self.rank,
                "qualified": self.qualified,
            },
            "hands": [h.payload() for h in self.hands],
        }


@dataclass(frozen=True)
class PayTables:
    """The pay tables a table settles its bonus wagers by, as journaled with the rules."""

    pair_plus: PayTable
    six_card: PayTable


def verdict(
    state: ThreeCardPokerState,
    w: PlacedWager,
    dealer: Rank,
    qualified: bool,
    tables: PayTables,
) -> WagerVerdict:
    """What one wager did, by the document's rules for its spot."""
    hand = state.hand_of(w.seat)
    assert hand is not None and state.player_dealer_hand is not None
    folded = state.decision_of(w.seat) == "fold"
    verdict: Verdict
    owed = ZERO
    if w.spot in ("ante", "play"):
        if folded:  # line 550: the fold forfeits the Ante
            verdict = "lose"
        elif not qualified:  # lines 564-565: Play no action, Ante paid even money
            verdict = "push" if w.spot == "play" else "win"
        else:  # lines 567-569
            verdict = showdown(three_card_rank(hand), dealer)
        if verdict == "win":
            owed = w.amount
    else:
        if w.spot == "pair-plus":
            # line 583: the player's three cards only; line 556: forfeited on a fold
            odds = Fraction(0) if folded else payout(tables.pair_plus, three_card_category(hand))
        else:
            # line 609: best five of the six; line 557: stays in action on a fold
            rank, _ = best_five((*hand, *state.player_dealer_hand))
            odds = payout(tables.six_card, rank_category(rank))
        verdict = "win" if odds > 0 else "lose"
        if odds > 0:
            owed = winnings(w.amount, odds)
    return WagerVerdict(w.seat, w.player, w.spot, w.amount, verdict, owed)


def outcome(
    state: ThreeCardPokerState, dealer: Rank, qualified: bool, tables: PayTables
) -> ThreeCardPokerOutcome:
    """Every revealed hand with its rank name; a folded hand shows no card (line 558)."""
    assert state.bank_seat is not None
    dealer_hand = state.player_dealer_hand
    assert dealer_hand is not None
    hands: list[HandOutcome] = []
    for seat in state.player_seats:
        hand = state.hand_of(seat)
        decision = state.decision_of(seat)
        assert hand is not None and decision is not None
        six_bets = any(w.seat == seat and w.spot == "six-card-bonus" for w in state.wagers)
        rank, five = best_five((*hand, *dealer_hand))
        six_rank = rank_category(rank)
        six: SixCardBonusShown | None = None
        if decision == "fold":
            # the cards stay hidden; a paying 6 Card Bonus names only its rank (line 557)
            if six_bets and payout(tables.six_card, six_rank) > 0:
                six = SixCardBonusShown(six_rank)
            hands.append(HandOutcome(seat, decision, None, six))
        else:
            if six_bets:
                six = SixCardBonusShown(six_rank, five)
            shown = PlayedHand(
                hand,
                three_card_category(hand),
                showdown(three_card_rank(hand), dealer) if qualified else None,
            )
            hands.append(HandOutcome(seat, decision, shown, six))
    return ThreeCardPokerOutcome(
        state.bank_seat,
        dealer_hand,
        three_card_category(dealer_hand),
        qualified,
        tuple(hands),
    )
