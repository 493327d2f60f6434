"""A simulated card-reading shoe speaking docs/protocols/shoe.md, with or without a real pty.

`ShoeModel` is the shoe without I/O (it hands frame bytes to a callback), for null-modem tests;
`SimulatedShoe` is the same shoe on a pseudo-terminal that the real ShoeDriver opens like any
serial device. Run `python -m tablectl_drivers.sim.shoe --decks 8 --seed 1` for an interactive shoe.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable

from tablectl_base.cards import Card, parse_card, standard_deck
from tablectl_drivers.messages import Message
from tablectl_drivers.shoe.frames import CardBurned, CardDrawn, NewShoe, ShoeEmpty
from tablectl_drivers.sim.device import (
    COMMON_HELP,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)
from tablectl_drivers.sim.history import HistoryModel

__all__ = ["ShoeExhausted", "ShoeModel", "SimulatedShoe", "main"]


class ShoeExhausted(IndexError):
    """draw() or burn() on a shoe with no cards left."""


class ShoeModel(HistoryModel):
    """The shoe's side of the protocol without I/O: the cards in the shoe, their positions, the
    history of this shoe and the last, and shoe frames out.

    Each NEW carries a new shoe id (`first_shoe`, then counting up); each card its position, its
    number since the NEW (burns included).
    """

    def __init__(self, send: Callable[[bytes], None], *, seq: int = 0, first_shoe: int = 1) -> None:
        self._cards: list[Card] = []  # next card last, so draw is a pop()
        self._shoe_no = first_shoe - 1
        self._shoe: str | None = None
        self._pos = 0
        super().__init__(send, seq=seq)

    @property
    def shoe(self) -> str | None:
        """The id of the shoe in play (None before the first NEW)."""
        return self._shoe

    @property
    def position(self) -> int:
        """The last position used in this shoe (0 right after NEW)."""
        return self._pos

    def run_of(self, message: Message) -> str | None:
        return message.shoe if isinstance(message, NewShoe) else None

    def pos_of(self, message: Message) -> int | None:
        return message.pos if isinstance(message, CardDrawn | CardBurned) else None

    def place(self) -> tuple[str | None, int]:
        return self._shoe, self._pos

    def _announce(self) -> None:
        """NEW sent with the next shoe id, then the count back to 0 (under the lock); if the
        NEW cannot be sent (unplugged) it raises and nothing changes."""
        shoe = str(self._shoe_no + 1)
        self.transmit(lambda seq: NewShoe(seq, shoe))
        self._shoe_no += 1
        self._shoe, self._pos = shoe, 0

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
            self._announce()
            self._cards = cards[::-1]

    def load(self, cards: Iterable[str], *, announce: bool = True) -> None:
        """Insert a shoe holding exactly `cards` in draw order; send NEW unless `announce=False`."""
        parsed = [parse_card(c) for c in cards]
        with self._lock:
            if announce:
                self._announce()
            self._cards = parsed[::-1]

    def _deal(self, make: Callable[[int, Card, int], Message]) -> str:
        """Take the next card and transmit `make(seq, card, position)`; if sending fails
        (unplugged) the card stays in the shoe, so nothing is lost or invented."""
        with self._lock:
            if not self._cards:
                raise ShoeExhausted("the shoe is empty: load() or new_shoe() first")
            card, pos = self._cards[-1], self._pos + 1
            self.transmit(lambda seq: make(seq, card, pos))
            self._cards.pop()
            self._pos = pos
        return str(card)

    def misread(self, *, announce: bool = False) -> str:
        """A card leaves the shoe unread: its position is used but no frame tells of it, and
        the history has nothing to resend; with `announce`, FLT MISREAD says so. Returns the
        card, which only the dealer now knows."""
        with self._lock:
            if not self._cards:
                raise ShoeExhausted("the shoe is empty: load() or new_shoe() first")
            if announce:
                self.fault("MISREAD", f"card {self._pos + 1} not read")
            self._pos += 1
            return str(self._cards.pop())

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
  misread             a card leaves unread (its position is used, nothing is sent)
  forget              lose the history (a power cycle): a resend then says LOST
  status              cards left, shoe, position and next SEQ
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
    if word == "misread":
        return f"misread {shoe.misread()} at position {shoe.position}"
    if word == "forget":
        shoe.forget()
        return "history forgotten"
    if word == "status":
        return (
            f"{shoe.remaining} cards left, shoe {shoe.shoe} position {shoe.position}, "
            f"next SEQ {shoe.next_seq}, port {shoe.port}"
        )
    out = common_command(shoe, word, rest, default_fault="JAM")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive shoe: print the port path, then obey commands read from stdin."""
    parser = sim_argument_parser(
        "python -m tablectl_drivers.sim.shoe", "Simulated card-reading shoe on a pty.", _HELP
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
