"""A simulated shuffler / hand dispenser speaking docs/protocols/dispenser.md, on a pty or not.

`DispenserModel` is the device without I/O (it hands frame bytes to a callback), for null-modem
tests; `SimulatedDispenser` is the same device on a pseudo-terminal that the real ShufflerDriver
or HandDispenserDriver opens like any serial device. It holds one deck (52 cards, or 53 with the
joker) and dispenses it in stacks. Run `python -m drivers.sim.dispenser --stack-size 3 --seed 1`
for an interactive one.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable

from drivers.dispenser.messages import (
    DECK_COLOUR,
    FAULT_CODES,
    MAX_STACK_CARDS,
    CardCount,
    ShuffleDone,
    Stack,
)
from drivers.sim.device import (
    COMMON_HELP,
    DeviceModel,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)
from tablectl.cards import Card, DeckKind, deck_of, parse_card

__all__ = ["DispenserModel", "HopperEmpty", "SimulatedDispenser", "main"]


class HopperEmpty(IndexError):
    """dispense(n) with fewer than n cards left: nothing is sent."""


class DispenserModel(DeviceModel):
    """The device's side of the protocol without I/O: one deck in a hopper, dispensed in stacks.

    `stack_size` is what `dispense()` forms unless told otherwise; `joker` puts JKR in the deck
    that `shuffle()` makes; shuffles come from random.Random(`shuffle_seed`).
    """

    def __init__(
        self,
        send: Callable[[bytes], None],
        *,
        seq: int = 0,
        stack_size: int = 3,
        joker: bool = False,
        shuffle_seed: int | None = None,
    ) -> None:
        if not 1 <= stack_size <= MAX_STACK_CARDS:
            raise ValueError(f"a stack holds 1..{MAX_STACK_CARDS} cards, not {stack_size}")
        self.stack_size = stack_size
        """Cards per stack unless `dispense` is told otherwise."""
        self.joker = joker
        """Whether the deck `shuffle()` makes holds the joker."""
        self._shuffle_rng = random.Random(shuffle_seed)
        self._hopper: list[Card] = []  # next card last, so dispensing pops
        super().__init__(send, seq=seq)

    @property
    def remaining(self) -> int:
        """Cards left to dispense."""
        return len(self._hopper)

    def full_deck(self) -> list[Card]:
        """One deck as this device holds it: 52 cards, or 53 with JKR if `joker`."""
        return list(deck_of(DeckKind.JOKER_53 if self.joker else DeckKind.STANDARD_52))

    def shuffle(self, deck_colour: str | None = "red", *, announce: bool = True) -> None:
        """Shuffle one full deck into the hopper, then send SHF unless `announce=False`."""
        _check_colour(deck_colour)
        cards = self.full_deck()
        with self._lock:
            self._shuffle_rng.shuffle(cards)
            self._hopper = cards[::-1]
            if announce:
                self.shuffle_done(deck_colour)

    def load(
        self, cards: Iterable[str], deck_colour: str | None = "red", *, announce: bool = True
    ) -> None:
        """Put exactly `cards` in the hopper in dispense order; send SHF unless `announce=False`."""
        _check_colour(deck_colour)
        parsed = [parse_card(c) for c in cards]
        with self._lock:
            self._hopper = parsed[::-1]
            if announce:
                self.shuffle_done(deck_colour)

    def shuffle_done(self, deck_colour: str | None = "red") -> None:
        """Send SHF: a shuffle finished with a deck of these backs (None: colour unknown)."""
        _check_colour(deck_colour)
        self.transmit(lambda seq: ShuffleDone(seq, deck_colour))

    def dispense(self, n: int | None = None) -> list[str]:
        """Form a stack of `n` cards (default `stack_size`) and send STK; return its cards.

        HopperEmpty, with nothing sent, if fewer than `n` cards are left.
        """
        size = self.stack_size if n is None else n
        if not 1 <= size <= MAX_STACK_CARDS:
            raise ValueError(f"a stack holds 1..{MAX_STACK_CARDS} cards, not {size}")
        with self._lock:
            if len(self._hopper) < size:
                raise HopperEmpty(f"{len(self._hopper)} cards left, a stack of {size} asked for")
            cards = tuple(self._hopper[-1 : -size - 1 : -1])
            self.transmit(lambda seq: Stack(seq, cards))  # unplugged: raises, cards stay
            del self._hopper[-size:]
        return [str(c) for c in cards]

    def count(self) -> int:
        """Send CNT with the cards left; return that number."""
        with self._lock:
            remaining = self.remaining
            self.transmit(lambda seq: CardCount(seq, remaining))
        return remaining


def _check_colour(deck_colour: str | None) -> None:
    if deck_colour is not None and not DECK_COLOUR.fullmatch(deck_colour):
        raise ValueError(f"a deck colour is 1-16 lowercase letters, not {deck_colour!r}")


class SimulatedDispenser(SimulatedDevice, DispenserModel):
    """A DispenserModel on a real pty: `.port` is the slave's path; `unplug()`, `replug()`.

    Takes SimulatedDevice's keyword arguments (`fragment`, `max_chunk`, `chunk_delay`, `seed` for
    the fragmenting, `seq`, `link`) and the model's (`stack_size`, `joker`, `shuffle_seed`).
    """


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = f"""commands:
  dispense [N]        dispense a stack (default size)   count           send CNT
  shuffle [COLOUR]    shuffle a full deck, send SHF      status          cards left, next SEQ
{COMMON_HELP}
fault codes: {" ".join(FAULT_CODES)} (default JAM)"""


def _command(device: SimulatedDispenser, line: str, colour: str) -> str | None:
    """Run one command line; return the text to print, or None to quit."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("quit", "exit", "q"):
        return None
    if word == "dispense":
        return " ".join(device.dispense(int(rest) if rest else None))
    if word == "shuffle":
        device.shuffle(rest or colour)
        return f"shuffled: {device.remaining} cards, deck {rest or colour}"
    if word == "count":
        return f"{device.count()} cards left"
    if word == "status":
        return (
            f"{device.remaining} cards left, stack of {device.stack_size}, "
            f"next SEQ {device.next_seq}, port {device.port}"
        )
    out = common_command(device, word, rest, default_fault="JAM")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive shuffler / hand dispenser: print the port path, then obey stdin commands."""
    parser = sim_argument_parser(
        "python -m drivers.sim.dispenser",
        "Simulated hand-forming shuffler or hand dispenser.",
        _HELP,
    )
    parser.add_argument(
        "--stack-size", type=int, default=3, help="cards per stack (default 3; Pai Gow 7)"
    )
    parser.add_argument("--joker", action="store_true", help="53-card deck with JKR (Pai Gow)")
    parser.add_argument("--deck", default="red", help="deck colour of each shuffle (default red)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (default random)")
    args = parser.parse_args(argv)
    with SimulatedDispenser(
        fragment=args.fragment,
        link=args.link,
        stack_size=args.stack_size,
        joker=args.joker,
        shuffle_seed=args.seed,
    ) as device:
        device.shuffle(args.deck)
        run_interactive(
            device,
            lambda line: _command(device, line, args.deck),
            heartbeat=args.heartbeat,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
