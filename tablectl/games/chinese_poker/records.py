"""What a Chinese Poker round's end publishes (`round/result`): its own record, which builds its
payload itself (`OwnRoundResult`): the fees, every hand as exposed, the points of each pair, each
payment of the settlement walk and the stacks after; a misdeal's returned fees."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from tablectl.game_records import NO_NOTES, JsonValue, OwnRoundResult, TableNotes
from tablectl_base.frozen import quick_init
from tablectl_base.money import fmt


@quick_init
@dataclass(frozen=True)
class ChinesePayment:
    """One payment of a Chinese Poker round's settlement walk: `amount` of the `owed` (less
    when a stack ran out), for a clean sweep or the segments (003 "Chinese Poker")."""

    payer: int
    payee: int
    owed: Decimal
    amount: Decimal
    reason: str


@quick_init
@dataclass(frozen=True)
class ChineseHandShown:
    """A Chinese Poker hand at the showdown (every hand is exposed: 003 "Chinese Poker"):
    its setting, or its clean sweep, or that it is fouled; its segments' names."""

    seat: int
    cards: tuple[str, ...]
    front: tuple[str, ...]
    middle: tuple[str, ...]
    back: tuple[str, ...]
    names: tuple[str, ...]
    sweep: str | None
    fouled: bool


@quick_init
@dataclass(frozen=True)
class ChineseRoundSettled(OwnRoundResult):
    """A Chinese Poker round's end (`round/result`): the fees taken before the deal, every hand
    shown, the points each pair settled, each payment of the walk and the stacks after; a misdeal
    (`void`) returns the fees."""

    round: int
    game: str
    button: int
    fees: tuple[tuple[int, Decimal], ...]
    hands: tuple[ChineseHandShown, ...]
    points: tuple[tuple[int, int, int], ...]  # (first, second, points the second pays the first)
    payments: tuple[ChinesePayment, ...]
    stacks: tuple[tuple[int, Decimal], ...]
    point: Decimal
    void: bool = False
    reason: str | None = None
    table: TableNotes = NO_NOTES

    def payload(self) -> dict[str, JsonValue]:
        """The round's `round/result` (docs/games/chinese-poker.md), less the table's notes."""
        payload: dict[str, JsonValue] = {
            "round": self.round,
            "game": self.game,
            "button": self.button,
        }
        if self.void:
            payload["void"] = True
            payload["reason"] = self.reason
        payload["point"] = fmt(self.point)
        payload["fees"] = [{"seat": s, "amount": fmt(a)} for s, a in self.fees]
        payload["hands"] = [
            {
                "seat": h.seat,
                "cards": list(h.cards),
                "front": list(h.front),
                "middle": list(h.middle),
                "back": list(h.back),
                "names": list(h.names),
                "sweep": h.sweep,
                "fouled": h.fouled,
            }
            for h in self.hands
        ]
        payload["points"] = [{"seats": [a, b], "points": n} for a, b, n in self.points]
        payload["payments"] = [
            {
                "from": p.payer,
                "to": p.payee,
                "owed": fmt(p.owed),
                "amount": fmt(p.amount),
                "for": p.reason,
            }
            for p in self.payments
        ]
        payload["stacks"] = [{"seat": s, "stack": fmt(a)} for s, a in self.stacks]
        return payload
