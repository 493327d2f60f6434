"""A simulated shuffler / hand dispenser speaking docs/protocols/dispenser.md, on a pty or not.

`DispenserModel` is the device without I/O (it hands frame bytes to a callback), for null-modem
tests; `SimulatedDispenser` is the same device on a pseudo-terminal that the real ShufflerDriver
or HandDispenserDriver opens like any serial device. It holds one deck (52 cards, or 53 with the
joker) and dispenses it in stacks, each numbered since the shuffle with the number of its first
card; it keeps the history of this shuffle and the last and answers a resend (RSN). Run
`python -m tablectl_drivers.sim.dispenser --stack-size 3 --seed 1` for an interactive one.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable

from tablectl_base.cards import Card, DeckKind, deck_of, parse_card
from tablectl_drivers.dispenser.messages import (
    DECK_COLOUR,
    FAULT_CODES,
    MAX_STACK_CARDS,
    CardCount,
    ShuffleDone,
    Stack,
)
from tablectl_drivers.messages import Message
from tablectl_drivers.sim.device import (
    COMMON_HELP,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)
from tablectl_drivers.sim.history import HistoryModel

__all__ = ["DispenserModel", "HopperEmpty", "SimulatedDispenser", "main"]


class HopperEmpty(IndexError):
    """dispense(n) with fewer than n cards left: nothing is sent."""


class DispenserModel(HistoryModel):
    """The device's side of the protocol without I/O: one deck in a hopper, dispensed in stacks,
    the history of this shuffle and the last.

    `stack_size` is what `dispense()` forms unless told otherwise; `joker` puts JKR in the deck
    that `shuffle()` makes; shuffles come from random.Random(`shuffle_seed`). Each shuffle
    (`shuffle`, `load`, `shuffle_done`) gets a new id, `first_shuffle` then counting up, and
    counts its stacks and cards from 1 again.
    """

    def __init__(
        self,
        send: Callable[[bytes], None],
        *,
        seq: int = 0,
        stack_size: int = 3,
        joker: bool = False,
        shuffle_seed: int | None = None,
        first_shuffle: int = 1,
    ) -> None:
        if not 1 <= stack_size <= MAX_STACK_CARDS:
            raise ValueError(f"a stack holds 1..{MAX_STACK_CARDS} cards, not {stack_size}")
        self.stack_size = stack_size
        """Cards per stack unless `dispense` is told otherwise."""
        self.joker = joker
        """Whether the deck `shuffle()` makes holds the joker."""
        self._shuffle_rng = random.Random(shuffle_seed)
        self._hopper: list[Card] = []  # next card last, so dispensing pops
        self._shuffle_no = first_shuffle - 1
        self._shuffle: str | None = None
        self._stack = 0  # the last stack number used in this shuffle
        self._card = 0  # the last card index used in this shuffle
        super().__init__(send, seq=seq)

    @property
    def remaining(self) -> int:
        """Cards left to dispense."""
        return len(self._hopper)

    @property
    def shuffle_id(self) -> str | None:
        """The id of the shuffle being dispensed (None before the first)."""
        return self._shuffle

    @property
    def position(self) -> int:
        """The last stack number used in this shuffle (0 right after it)."""
        return self._stack

    @property
    def card_index(self) -> int:
        """The number of the last card out of the hopper in this shuffle (0 right after it)."""
        return self._card

    def run_of(self, message: Message) -> str | None:
        return message.shuffle if isinstance(message, ShuffleDone) else None

    def pos_of(self, message: Message) -> int | None:
        return message.pos if isinstance(message, Stack) else None

    def place(self) -> tuple[str | None, int]:
        return self._shuffle, self._stack

    def full_deck(self) -> list[Card]:
        """One deck as this device holds it: 52 cards, or 53 with JKR if `joker`."""
        return list(deck_of(DeckKind.JOKER_53 if self.joker else DeckKind.STANDARD_52))

    def shuffle(self, deck_colour: str | None = "red", *, announce: bool = True) -> None:
        """Shuffle one full deck into the hopper: a new shuffle, announced with SHF unless
        `announce=False` (then only a resend's RSE tells where the device is)."""
        _check_colour(deck_colour)
        cards = self.full_deck()
        with self._lock:
            self._shuffle_rng.shuffle(cards)
            self._new_shuffle(cards[::-1], deck_colour, announce)

    def load(
        self, cards: Iterable[str], deck_colour: str | None = "red", *, announce: bool = True
    ) -> None:
        """Put exactly `cards` in the hopper in dispense order: a new shuffle, announced with SHF
        unless `announce=False`."""
        _check_colour(deck_colour)
        parsed = [parse_card(c) for c in cards]
        with self._lock:
            self._new_shuffle(parsed[::-1], deck_colour, announce)

    def shuffle_done(self, deck_colour: str | None = "red") -> None:
        """Send SHF: a new shuffle (a new id, stacks and cards counted from 1 again) of what is
        in the hopper, with a deck of these backs (None: colour unknown)."""
        _check_colour(deck_colour)
        with self._lock:
            self._new_shuffle(list(self._hopper), deck_colour, True)

    def _new_shuffle(self, hopper: list[Card], deck_colour: str | None, announce: bool) -> None:
        """A new shuffle id, the counts back to 0, SHF sent if `announce` (under the lock). If
        sending fails (unplugged) nothing changes."""
        shuffle = str(self._shuffle_no + 1)
        if announce:
            self.transmit(lambda seq: ShuffleDone(seq, shuffle, deck_colour))
        self._shuffle_no += 1
        self._hopper, self._shuffle, self._stack, self._card = hopper, shuffle, 0, 0

    def _take(self, n: int | None) -> tuple[Card, ...]:
        """The next stack's cards (not yet taken out; under the lock)."""
        size = self.stack_size if n is None else n
        if not 1 <= size <= MAX_STACK_CARDS:
            raise ValueError(f"a stack holds 1..{MAX_STACK_CARDS} cards, not {size}")
        if len(self._hopper) < size:
            raise HopperEmpty(f"{len(self._hopper)} cards left, a stack of {size} asked for")
        return tuple(self._hopper[-1 : -size - 1 : -1])

    def dispense(self, n: int | None = None) -> list[str]:
        """Form a stack of `n` cards (default `stack_size`) and send STK with its stack number
        and first card index; return its cards.

        HopperEmpty, with nothing sent, if fewer than `n` cards are left; if sending fails
        (unplugged) the cards stay in the hopper and no number is used.
        """
        with self._lock:
            cards = self._take(n)
            pos, first = self._stack + 1, self._card + 1
            self.transmit(lambda seq: Stack(seq, pos, first, cards))
            del self._hopper[-len(cards) :]
            self._stack, self._card = pos, self._card + len(cards)
        return [str(c) for c in cards]

    def misread(self, n: int | None = None, *, announce: bool = False) -> list[str]:
        """A stack leaves the device unreported (a card of it could not be read): its stack
        number and card indices are used, but no frame tells of it and the history has nothing
        to resend; with `announce`, FLT MISREAD says so. Returns its cards, which only the
        dealer now knows."""
        with self._lock:
            cards = self._take(n)
            if announce:
                self.fault("MISREAD", f"stack {self._stack + 1} not reported")
            del self._hopper[-len(cards) :]
            self._stack += 1
            self._card += len(cards)
        return [str(c) for c in cards]

    def lose_cards(self, n: int = 1) -> list[str]:
        """`n` cards leave the hopper without forming a stack (one dropped inside the device):
        their card indices are used, so the next stack's first card index jumps by `n`.
        Nothing is sent. Returns the cards."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"a number of cards is a whole number >= 1, not {n!r}")
        with self._lock:
            if len(self._hopper) < n:
                raise HopperEmpty(f"{len(self._hopper)} cards left, {n} asked for")
            cards = self._hopper[-1 : -n - 1 : -1]
            del self._hopper[-n:]
            self._card += n
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
    the fragmenting, `seq`, `link`) and the model's (`stack_size`, `joker`, `shuffle_seed`,
    `first_shuffle`).
    """


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = f"""commands:
  dispense [N]        dispense a stack (default size)   count           send CNT
  shuffle [COLOUR]    shuffle a full deck, send SHF (a new shuffle id)
  misread [N]         a stack leaves unreported (its stack number is used, nothing is sent)
  lose [N]            N cards (default 1) leave without a stack: the next first card index jumps
  forget              lose the history (a power cycle): a resend then says LOST
  status              cards left, shuffle, stack number, card index, next SEQ
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
    if word == "misread":
        cards = device.misread(int(rest) if rest else None)
        return f"misread {' '.join(cards)} as stack {device.position}"
    if word == "lose":
        return f"lost {' '.join(device.lose_cards(int(rest) if rest else 1))}"
    if word == "forget":
        device.forget()
        return "history forgotten"
    if word == "status":
        return (
            f"{device.remaining} cards left, stack of {device.stack_size}, shuffle "
            f"{device.shuffle_id} stack {device.position} card {device.card_index}, "
            f"next SEQ {device.next_seq}, port {device.port}"
        )
    out = common_command(device, word, rest, default_fault="JAM")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive shuffler / hand dispenser: print the port path, then obey stdin commands."""
    parser = sim_argument_parser(
        "python -m tablectl_drivers.sim.dispenser",
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
