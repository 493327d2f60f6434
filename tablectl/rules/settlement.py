"""Player-dealer settlement (R1): every wager against one bank that may not win or lose more than B.

Games decide what each wager did (win with its payout, lose, push); this module decides what the
bank can actually cover, walking the wagers in the action order the game gives (R2, R3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from tablectl.money import ZERO, fmt

Verdict = Literal["win", "lose", "push"]
Status = Literal["win", "lose", "push", "returned", "partial"]


@dataclass(frozen=True)
class WagerVerdict:
    """What the rules say one wager did: `owed` is the payout (not counting the stake) on a win."""

    seat: int
    player: str
    spot: str
    amount: Decimal
    verdict: Verdict
    owed: Decimal = ZERO


@dataclass(frozen=True)
class Settlement:
    """What actually happened to one wager. `net` is the player's gain, fees excluded."""

    seat: int
    player: str
    spot: str
    amount: Decimal
    status: Status
    net: Decimal

    def payload(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "player": self.player,
            "spot": self.spot,
            "amount": fmt(self.amount),
            "status": self.status,
            "net": fmt(self.net),
        }


@dataclass(frozen=True)
class BankResult:
    """The bank after settlement: `end` is what the player-dealer takes back."""

    start: Decimal
    end: Decimal
    settlements: tuple[Settlement, ...]

    @property
    def change(self) -> Decimal:
        return self.end - self.start


def settle(bank: Decimal, verdicts: Sequence[WagerVerdict]) -> BankResult:
    """Walk `verdicts` in action order against `bank` as R1 prescribes."""
    if bank < 0:
        raise ValueError("a bank cannot be negative")
    funds = bank
    won = ZERO  # the bank's net so far; it may never exceed the bank itself
    out: list[Settlement] = []
    for v in verdicts:
        if v.verdict == "push":
            out.append(_row(v, "push", ZERO))
        elif v.verdict == "lose":
            collected = min(v.amount, bank - won)
            funds += collected
            won += collected
            if collected == v.amount:
                status: Status = "lose"
            elif collected == 0:
                status = "returned"
            else:
                status = "partial"
            out.append(_row(v, status, -collected))
        else:
            paid = min(v.owed, funds)
            funds -= paid
            won -= paid
            if paid == v.owed:
                status = "win"
            elif paid == 0:
                status = "returned"
            else:
                status = "partial"
            out.append(_row(v, status, paid))
    return BankResult(start=bank, end=funds, settlements=tuple(out))


def _row(v: WagerVerdict, status: Status, net: Decimal) -> Settlement:
    return Settlement(v.seat, v.player, v.spot, v.amount, status, net)
