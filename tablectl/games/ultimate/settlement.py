"""The showdown of an Ultimate Texas Hold'em round: every seat's seven cards ranked, what each
wager did against the player-dealer's hand (R35; 003 "Ultimate Texas Hold'em: How Winners are
Determined and Paid", "Trips Bonus Bet", "Bad Beat Bonus Bet") and the outcome the round
publishes, for the one settlement walk (R1, R4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from tablectl.game_records import JsonObject
from tablectl.games.common import PlacedWager, default_player
from tablectl.games.ultimate.state import BOARD_SIZE, Play, UltimateState
from tablectl.rules.paytables import PayTable, payout, winnings
from tablectl.rules.poker import Rank, Showdown, best_five, rank_category
from tablectl.rules.settlement import Verdict, WagerVerdict
from tablectl.rules.ultimate import (
    bad_beat_category,
    blind_result,
    dealer_qualifies,
    showdown,
    trips_category,
)
from tablectl_base.cards import Card
from tablectl_base.money import ZERO


@dataclass(frozen=True)
class SeatHand:
    """One dealt seat at the showdown: its seven cards ranked, and whether it folded."""

    seat: int
    player: str
    hole: tuple[Card, ...]
    folded: bool
    rank: Rank
    five: tuple[Card, ...]


@dataclass(frozen=True)
class DealerHand:
    """The player-dealer's hand, turned over at the showdown: its two cards, best five of seven,
    rank and whether it qualifies (a pair or better; 003 "Ultimate Texas Hold'em: How Winners are
    Determined and Paid", R35)."""

    seat: int
    cards: tuple[Card, ...]
    best_five: tuple[Card, ...]
    rank: str
    qualifies: bool

    def payload(self) -> JsonObject:
        return {
            "seat": self.seat,
            "cards": [str(c) for c in self.cards],
            "best_five": [str(c) for c in self.best_five],
            "rank": self.rank,
            "qualifies": self.qualifies,
        }


@dataclass(frozen=True)
class ShownHand:
    """A hand that stayed in, turned over: its cards, best five, rank, the showdown against the
    player-dealer's (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid") and its
    Play wager, if it bet."""

    cards: tuple[Card, ...]
    best_five: tuple[Card, ...]
    rank: str
    result: Showdown
    play: Play | None


@dataclass(frozen=True)
class SeatOutcome:
    """A dealt seat at the end of the round: `shown` is None when it folded, and then no card of
    it is shown (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")."""

    seat: int
    player: str
    shown: ShownHand | None

    def payload(self) -> JsonObject:
        h = self.shown
        if h is None:
            return {"seat": self.seat, "player": self.player, "folded": True, "result": "fold"}
        return {
            "seat": self.seat,
            "player": self.player,
            "folded": False,
            "cards": [str(c) for c in h.cards],
            "best_five": [str(c) for c in h.best_five],
            "rank": h.rank,
            "result": h.result,
            "play": None if h.play is None else h.play.payload(),
        }


@dataclass(frozen=True)
class UltimateOutcome:
    """The showdown: the board, the player-dealer's hand (None when every seat folded: it is
    turned over only for the players who remain) and every dealt seat's, from the
    player-dealer's left."""

    board: tuple[Card, ...]
    player_dealer: DealerHand | None
    hands: tuple[SeatOutcome, ...]

    def payload(self) -> JsonObject:
        return {
            "board": [str(c) for c in self.board],
            "player_dealer": None if self.player_dealer is None else self.player_dealer.payload(),
            "hands": [h.payload() for h in self.hands],
        }


@dataclass(frozen=True)
class PayTables:
    """The pay tables a table settles by, as journaled with the rules: the Blind's, the Trips'
    and the Bad Beat's (None where the table offers no Bad Beat)."""

    blind: PayTable
    trips: PayTable
    bad_beat: PayTable | None


def seat_hands(state: UltimateState) -> list[SeatHand]:
    """Every dealt seat's seven cards ranked (best five of seven,
    003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")."""
    board = state.board()
    out = []
    for seat in state.hands_for:
        stack = state.stack_of("seat", seat)
        assert stack is not None
        rank, five = best_five((*stack.cards, *board))
        out.append(
            SeatHand(seat, default_player(seat), stack.cards, seat in state.folded, rank, five)
        )
    return out


def verdict(
    w: PlacedWager, hand: SeatHand, dealer_rank: Rank, board: Sequence[Card], tables: PayTables
) -> tuple[Verdict, Decimal]:
    """What one (merged) wager did and what it is owed on a win (R35, 003 "Ultimate Texas
    Hold'em: Dealing Procedures and Round of Play" to "How Winners are Determined and Paid")."""
    # wins on three of a kind or better, even folded
    # (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid")
    if w.spot == "trips":
        category = trips_category((*hand.hole, *board))
        return _by_table(w.amount, tables.trips, category)
    # a fold loses the Ante, Blind and Bad Beat
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
    if hand.folded:
        return "lose", ZERO
    # 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"
    result = showdown(hand.rank, dealer_rank)
    if w.spot == "ante" and not dealer_qualifies(dealer_rank):
        return "push", ZERO  # 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"
    # 1 to 1 (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid")
    if w.spot in ("ante", "play"):
        return result, (w.amount if result == "win" else ZERO)
    if w.spot == "blind":  # 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"
        outcome, category = blind_result(hand.rank, dealer_rank)
        if outcome != "win":
            return outcome, ZERO
        won, owed = _by_table(w.amount, tables.blind, category)
        # A win with a hand the table does not list pushes (config/paytables header).
        return (won, owed) if won == "win" else ("push", ZERO)
    assert w.spot == "bad-beat" and tables.bad_beat is not None
    # 003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet"
    category = bad_beat_category(hand.rank, dealer_rank)
    return _by_table(w.amount, tables.bad_beat, category)


def _by_table(amount: Decimal, table: PayTable, category: str | None) -> tuple[Verdict, Decimal]:
    odds = payout(table, category) if category is not None else Fraction(0)
    if odds <= 0:
        return "lose", ZERO
    return "win", winnings(amount, odds)


def settle(
    state: UltimateState,
    at_stake: Sequence[PlacedWager],
    seat_order: Sequence[int],
    tables: PayTables,
) -> tuple[list[WagerVerdict], UltimateOutcome]:
    """The round's verdicts on the wagers `at_stake` and its outcome, the hands from the
    player-dealer's left (`seat_order`)."""
    assert state.bank_seat is not None
    board = state.board()
    dealer_stack = state.stack_of("player-dealer", state.bank_seat)
    assert dealer_stack is not None and len(board) == BOARD_SIZE
    dealer_rank, dealer_five = best_five((*dealer_stack.cards, *board))
    hands = {h.seat: h for h in seat_hands(state)}
    verdicts = []
    for w in at_stake:
        won, owed = verdict(w, hands[w.seat], dealer_rank, board, tables)
        verdicts.append(WagerVerdict(w.seat, w.player, w.spot, w.amount, won, owed))
    outcome = UltimateOutcome(
        board=board,
        player_dealer=(
            DealerHand(
                state.bank_seat,
                dealer_stack.cards,
                dealer_five,
                rank_category(dealer_rank),
                dealer_qualifies(dealer_rank),
            )
            if dealer_shown(state)
            else None
        ),
        hands=tuple(_hand_outcome(state, hands[s], dealer_rank) for s in seat_order if s in hands),
    )
    return verdicts, outcome


def dealer_shown(state: UltimateState) -> bool:
    """003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play": the player-dealer's
    cards are turned over for the players who remain."""
    return any(seat not in state.folded for seat in state.hands_for)


def _hand_outcome(state: UltimateState, h: SeatHand, dealer_rank: Rank) -> SeatOutcome:
    """A seat's hand in the result: a folded hand shows no card
    (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")."""
    if h.folded:
        return SeatOutcome(h.seat, h.player, None)
    shown = ShownHand(
        h.hole,
        h.five,
        rank_category(h.rank),
        showdown(h.rank, dealer_rank),
        state.play_of(h.seat),
    )
    return SeatOutcome(h.seat, h.player, shown)
