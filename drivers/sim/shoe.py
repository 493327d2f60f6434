"""A simulated card-reading shoe speaking docs/protocols/shoe.md, with or without a real pty.

`ShoeModel` is the shoe without I/O (it hands frame bytes to a callback), for null-modem tests;
`SimulatedShoe` is the same shoe on a pseudo-terminal that the real ShoeDriver opens like any
serial device. Run `python -m drivers.sim.shoe --decks 8 --seed 1` for an interactive shoe.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable

from drivers.messages import Message
from drivers.shoe.frames import CardBurned, CardDrawn, NewShoe, ShoeEmpty
from drivers.sim.device import (
    COMMON_HELP,
    DeviceModel,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)
from tablectl.cards import Card, parse_card, standard_deck

__all__ = ["ShoeExhausted", "ShoeModel", "SimulatedShoe", "main"]


class ShoeExhausted(IndexError):
    """draw() or burn() on a shoe with no cards left."""


class ShoeModel(DeviceModel):
    """The shoe's side of the protocol without I/O: the cards in the shoe, and shoe frames out."""

    def __init__(self, send: Callable[[bytes], None], *, seq: int = 0) -> None:
        self._cards: list[Card] = []  # next card last, so draw is a pop()
        super().__init__(send, seq=seq)

    @property
    def remaining(self) -> int:
        """Cards left in the shoe."""
        return len(self._cards)

    def new_shoe(self, decks: int = 8, seed: int | None = None) -> None:
        """Shuffle `decks` 52-card decks with random.Random(seed), insert them, send NEW."""
        if decks < 1:
            raise ValueError("a shoe holds at least one deck")
        cards = list(standard_deck()) * decks
        random.Random(seed).shuffle(cards)
        with self._lock:
            self._cards = cards[::-1]
            self.transmit(NewShoe)

    def load(self, cards: Iterable[str], *, announce: bool = True) -> None:
        """Insert a shoe holding exactly `cards` in draw order; send NEW unless `announce=False`."""
        parsed = [parse_card(c) for c in cards]
        with self._lock:
            self._cards = parsed[::-1]
            if announce:
                self.transmit(NewShoe)

    def _deal(self, make: Callable[[int, Card], Message]) -> str:
        """Take the next card and transmit `make(seq, card)`; if sending fails (unplugged) the
        card stays in the shoe, so nothing is lost or invented."""
        with self._lock:
            if not self._cards:
                raise ShoeExhausted("the shoe is empty: load() or new_shoe() first")
            card = self._cards[-1]
            self.transmit(lambda seq: make(seq, card))
            self._cards.pop()
        return str(card)

    def draw(self) -> str:
        """Draw the next card and send CRD; return its code."""
        return self._deal(CardDrawn)

    def burn(self) -> str:
        """Draw the next card as a burn and send BRN; return its code."""
        return self._deal(CardBurned)

    def empty(self) -> None:
        """Send EMP: cut card reached or no cards left."""
        self.transmit(ShoeEmpty)


class SimulatedShoe(SimulatedDevice, ShoeModel):
    """A ShoeModel on a real pty: `.port` is the slave's path; `unplug()`, `replug()`.

    Takes SimulatedDevice's keyword arguments (`fragment`, `max_chunk`, `chunk_delay`, `seed`,
    `seq`, `link`).
    """


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = f"""commands:
  draw [N]            draw N cards (default 1)       burn            burn a card
  new [DECKS]         shuffle and insert a new shoe  empty           send EMP (cut card)
  status              cards left and next SEQ
{COMMON_HELP}
fault codes: JAM MISREAD COVER DOUBLE SENSOR (default JAM)"""


def _command(shoe: SimulatedShoe, line: str, decks: int, seed: int | None) -> str | None:
    """Run one command line; return the text to print, or None to quit."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("quit", "exit", "q"):
        return None
    if word == "draw":
        n = int(rest or "1")
        return " ".join(shoe.draw() for _ in range(n))
    if word == "burn":
        return f"burned {shoe.burn()}"
    if word == "new":
        shoe.new_shoe(int(rest) if rest else decks, seed)
        return f"new shoe: {shoe.remaining} cards"
    if word == "empty":
        shoe.empty()
        return "ok"
    if word == "status":
        return f"{shoe.remaining} cards left, next SEQ {shoe.next_seq}, port {shoe.port}"
    out = common_command(shoe, word, rest, default_fault="JAM")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive shoe: print the port path, then obey commands read from stdin."""
    parser = sim_argument_parser(
        "python -m drivers.sim.shoe", "Simulated card-reading shoe on a pty.", _HELP
    )
    parser.add_argument("--decks", type=int, default=8, help="decks per shoe (default 8)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (default random)")
    args = parser.parse_args(argv)
    with SimulatedShoe(fragment=args.fragment, seed=args.seed, link=args.link) as shoe:
        shoe.new_shoe(args.decks, args.seed)
        run_interactive(
            shoe,
            lambda line: _command(shoe, line, args.decks, args.seed),
            heartbeat=args.heartbeat,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
