"""The showdown of a Fortune Pai Gow Poker round: the player-dealer's hand set by the house way
(R31), every hand in play against it, the Fortune and Envy categories (R32), the verdicts for the
one settlement walk (R1, R4) and the outcome the round publishes
(003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play" to "How Winners are Determined
and Paid")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tablectl.game_records import JsonObject, JsonValue
from tablectl.games.common import PlacedWager
from tablectl.games.pai_gow.state import PaiGowState, Setting, button_seat
from tablectl.rules import pai_gow as hands
from tablectl.rules.paytables import PayTable, payout, winnings
from tablectl.rules.settlement import Verdict, WagerVerdict
from tablectl_base.cards import Card
from tablectl_base.money import ZERO


@dataclass(frozen=True)
class ShownHand:
    """A hand as the showdown exposes it: its seven cards, its setting, the rank names of its
    high and low hands, and the house-way chart row (R31) when the house way set it."""

    setting: Setting
    cards: tuple[Card, ...]
    high_rank: str
    low_rank: str
    house_way_row: str | None

    def payload(self) -> dict[str, JsonValue]:
        shown: dict[str, JsonValue] = {
            "seat": self.setting.seat,
            "cards": [str(c) for c in self.cards],
            "high": {"cards": [str(c) for c in self.setting.high], "rank": self.high_rank},
            "low": {"cards": [str(c) for c in self.setting.low], "rank": self.low_rank},
            "set_by": self.setting.by,
        }
        if self.setting.by == "house-way":
            shown["house_way_row"] = self.house_way_row
        return shown


@dataclass(frozen=True)
class PlayedHand:
    """A hand in play at the showdown: as shown, its game result against the player-dealer's
    (003 "Fortune Pai Gow Poker: How Winners are Determined and Paid"), its Fortune category
    (003 "Fortune Pai Gow Poker: Fortune Bonus Bet") and whether it pays the Envy (R32)."""

    shown: ShownHand
    result: Verdict
    fortune: str | None
    envy: bool

    def payload(self) -> dict[str, JsonValue]:
        return {
            **self.shown.payload(),
            "result": self.result,
            "fortune": self.fortune,
            "envy": self.envy,
        }


@dataclass(frozen=True)
class PaiGowOutcome:
    """The showdown: the dice and the positions they named (R30), the player-dealer's hand as the
    house way set it (R31), the hands in play clockwise from the Action button and the hands that
    pay the Envy (R32)."""

    dice: tuple[int, ...]
    first_seat: int
    button_seat: int
    player_dealer: ShownHand
    hands: tuple[PlayedHand, ...]
    envy_hands: tuple[int, ...]

    def payload(self) -> JsonObject:
        return {
            "dice": list(self.dice),
            "total": sum(self.dice),
            "first_seat": self.first_seat,
            "button_seat": self.button_seat,
            "player_dealer": self.player_dealer.payload(),
            "hands": [h.payload() for h in self.hands],
            "envy_hands": list(self.envy_hands),
        }


def settle(
    state: PaiGowState,
    in_play: Sequence[int],
    envy_buttons: Sequence[PlacedWager],
    paytable: PayTable,
    way: hands.HouseWay,
) -> tuple[list[WagerVerdict], PaiGowOutcome]:
    """The showdown (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play" to "How
    Winners are Determined and Paid"; R31, R32): the verdicts on the round's wagers and the Envy
    buttons it pays, and the outcome, the hands `in_play` in settlement order."""
    assert state.bank_seat is not None and state.bank is not None
    assert state.first_seat is not None
    bank_seat = state.bank_seat
    button = button_seat(state.first_seat, bank_seat)
    dealer_seven = state.hand(bank_seat)
    d_high, d_low = hands.house_way(dealer_seven, way=way)  # R31
    results: dict[int, Verdict] = {}
    categories: dict[int, str | None] = {}
    for seat in in_play:
        setting = state.setting(seat)
        assert setting is not None
        results[seat] = hands.compare((setting.high, setting.low), (d_high, d_low))
        categories[seat] = hands.fortune_category(state.hand(seat))
    # R32: hands that pay the Envy: a seat with a Fortune wager whose seven cards qualify.
    fortune_seats = {w.seat for w in state.wagers if w.spot == "fortune"}
    envy_hands = [
        s for s in in_play if s in fortune_seats and hands.envy_qualifies(categories[s], paytable)
    ]
    verdicts: list[WagerVerdict] = []
    for w in state.wagers:
        if w.spot == "base":
            verdict = results[w.seat]
            owed = w.amount if verdict == "win" else ZERO
        else:
            cat = categories[w.seat]
            odds = payout(paytable, cat) if cat is not None else Fraction(0)
            owed = winnings(w.amount, odds) if odds else ZERO
            verdict = "win" if odds else "lose"
        verdicts.append(WagerVerdict(w.seat, w.player, w.spot, w.amount, verdict, owed))
    for holder in envy_buttons:
        for other in envy_hands:
            if other == holder.seat:
                continue  # R32: never for the holder's own hand
            cat = categories[other]
            assert cat is not None
            verdicts.append(
                WagerVerdict(
                    holder.seat,
                    holder.player,
                    "envy",
                    ZERO,
                    "win",
                    paytable.envy[cat],
                    notes={"for_seat": other},  # the hand this Envy pays for
                )
            )
    outcome = PaiGowOutcome(
        dice=state.dice,
        first_seat=state.first_seat,
        button_seat=button,
        player_dealer=shown_hand(Setting(bank_seat, d_high, d_low, "house-way"), dealer_seven, way),
        hands=tuple(
            PlayedHand(
                shown_hand(_setting(state, seat), state.hand(seat), way),
                results[seat],
                categories[seat],
                seat in envy_hands,
            )
            for seat in in_play
        ),
        envy_hands=tuple(envy_hands),
    )
    return verdicts, outcome


def shown_hand(setting: Setting, seven: Sequence[Card], way: hands.HouseWay) -> ShownHand:
    """A hand as the showdown exposes it (003 "Fortune Pai Gow Poker: Dealing Procedures and
    Round of Play", "Fortune Pai Gow Poker House Way"): its seven cards, how it was set, and the
    rank names; a house-way setting names the chart row that set it (R31)."""
    return ShownHand(
        setting,
        tuple(seven),
        hands.high_hand_name(setting.high),
        hands.low_hand_name(setting.low),
        hands.house_way_row(seven, way=way) if setting.by == "house-way" else None,
    )


def _setting(state: PaiGowState, seat: int) -> Setting:
    setting = state.setting(seat)
    assert setting is not None
    return setting
