"""A simulated card-reading poker table speaking docs/protocols/poker-table.md, on a pty or not.

`PokerTableModel` is the table without I/O (it hands frame bytes to a callback), for null-modem
tests; `SimulatedPokerTable` is the same table on a pseudo-terminal that the real
PokerTableDriver opens like any serial device. It knows where every card it read lies (a seat's
antenna, the board, the muck), numbers each first placement of a card in a zone since the hand
began, keeps the history of the last hands and answers a resend (RSN). A deck shuffled for
every hand from `deck_seed` gives `deal` its cards. Run `python -m tablectl_drivers.sim.poker_table
--seats 6 --seed 1` for an interactive one.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

from tablectl_base.cards import Card, parse_card, standard_deck
from tablectl_drivers.messages import Message
from tablectl_drivers.poker_table.frames import (
    BOARD,
    FAULT_CODES,
    MAX_SEATS,
    MUCK,
    CardPlaced,
    CardRemoved,
    CardReturned,
    NewHand,
    Zone,
    seat_zone,
)
from tablectl_drivers.sim.device import (
    COMMON_HELP,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)
from tablectl_drivers.sim.history import HistoryModel

__all__ = ["DeckEmpty", "PokerTableModel", "SimulatedPokerTable", "main", "parse_zone"]


class DeckEmpty(IndexError):
    """deal() with fewer cards left in the hand's deck than asked for: nothing is sent."""


def parse_zone(text: str) -> Zone:
    """A zone as a person types it: `s3` (or `3`), `board`, `muck`; ValueError otherwise."""
    t = text.strip().lower()
    if t == "board":
        return BOARD
    if t == "muck":
        return MUCK
    digits = t.removeprefix("s")
    if not digits.isdigit():
        raise ValueError(f"a zone is s1..s{MAX_SEATS}, board or muck, not {text!r}")
    return seat_zone(int(digits))


class PokerTableModel(HistoryModel):
    """The table's side of the protocol without I/O: where each card lies, the hand's count,
    the history of the last `runs_kept` hands, and frames out.

    Each hand (`new_hand`) gets a new id, `first_hand` then counting up, and numbers its
    placements from 1 again. A card put where it already lies is refused; a card put in another
    zone first leaves the one it is in (RMV). Its first arrival in a zone this hand is a PLC with
    the next position, a later one (back from a look) an RTN without.
    """

    runs_kept = 10
    """Hands kept in the history: the one in play and the nine before (hands are short, and a
    reconnect after a long outage should still find what it missed)."""

    def __init__(
        self,
        send: Callable[[bytes], None],
        *,
        seq: int = 0,
        seats: int = MAX_SEATS,
        deck_seed: int | None = None,
        first_hand: int = 1,
    ) -> None:
        if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= MAX_SEATS:
            raise ValueError(f"a table has 1..{MAX_SEATS} seats, not {seats!r}")
        self.seats = seats
        """Seat antennas this table has."""
        self._deck_rng = random.Random(deck_seed)
        self._deck: list[Card] = []  # the hand's undealt cards, next last
        self._hand_no = first_hand - 1
        self._hand: str | None = None
        self._pos = 0
        self._where: dict[Card, Zone] = {}  # where each card read on the table lies now
        self._placed: set[tuple[Card, Zone]] = set()  # first arrivals reported this hand
        super().__init__(send, seq=seq)

    @property
    def hand(self) -> str | None:
        """The id of the hand in play (None before the first HND)."""
        return self._hand

    @property
    def position(self) -> int:
        """The last position used in this hand (0 right after HND)."""
        return self._pos

    @property
    def remaining(self) -> int:
        """Cards left in the hand's deck for `deal`."""
        return len(self._deck)

    @property
    def on_table(self) -> int:
        """Cards lying on an antenna now."""
        return len(self._where)

    def cards_in(self, zone: Zone) -> list[str]:
        """The cards lying in `zone` now, in the order they came."""
        return [str(c) for c, z in self._where.items() if z == zone]

    def run_of(self, message: Message) -> str | None:
        return message.hand if isinstance(message, NewHand) else None

    def pos_of(self, message: Message) -> int | None:
        return message.pos if isinstance(message, CardPlaced) else None

    def place(self) -> tuple[str | None, int]:
        return self._hand, self._pos

    # -- the hand ---------------------------------------------------------------------------

    def new_hand(self, *, announce: bool = True) -> str:
        """A new hand: HND with the next id (unless `announce=False`: then only a resend's RSE
        tells where the table is), positions from 1 again, the table cleared and a freshly
        shuffled deck for `deal`. If HND cannot be sent (unplugged) nothing changes."""
        with self._lock:
            hand = str(self._hand_no + 1)
            if announce:
                self.transmit(lambda seq: NewHand(seq, hand))
            self._hand_no += 1
            self._hand, self._pos = hand, 0
            self._where, self._placed = {}, set()
            deck = list(standard_deck())
            self._deck_rng.shuffle(deck)
            self._deck = deck[::-1]
            return hand

    def _check_zone(self, zone: Zone) -> None:
        if self._hand is None:
            raise RuntimeError("no hand yet: new_hand() first")
        if zone.seat is not None and zone.seat > self.seats:
            raise ValueError(f"this table has seats 1..{self.seats}, not {zone.seat}")

    def put(self, zone: Zone, card: str | Card) -> int | None:
        """A card comes to rest in `zone`: RMV from the zone it lay in, if any, then PLC with
        the next position (its first arrival there this hand; returned) or RTN (None).

        ValueError if it lies there already or the seat is not this table's; if sending fails
        (unplugged) nothing changes.
        """
        found = card if isinstance(card, Card) else parse_card(card)
        with self._lock:
            self._check_zone(zone)
            old = self._where.get(found)
            if old == zone:
                raise ValueError(f"{found} already lies in {zone}")
            if old is not None:
                self.transmit(lambda seq: CardRemoved(seq, old, found))
                del self._where[found]
            if (found, zone) in self._placed:
                self.transmit(lambda seq: CardReturned(seq, zone, found))
                self._where[found] = zone
                return None
            pos = self._pos + 1
            self.transmit(lambda seq: CardPlaced(seq, pos, zone, found))
            self._pos = pos
            self._placed.add((found, zone))
            self._where[found] = zone
            if found in self._deck:
                self._deck.remove(found)
            return pos

    def remove(self, card: str | Card) -> None:
        """A card is lifted from where it lies: RMV. ValueError if it is on no antenna."""
        found = card if isinstance(card, Card) else parse_card(card)
        with self._lock:
            zone = self._where.get(found)
            if zone is None:
                raise ValueError(f"{found} lies in no zone")
            self.transmit(lambda seq: CardRemoved(seq, zone, found))
            del self._where[found]

    def _next_cards(self, n: int) -> list[Card]:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"a number of cards is a whole number >= 1, not {n!r}")
        if len(self._deck) < n:
            raise DeckEmpty(f"{len(self._deck)} cards left, {n} asked for")
        return self._deck[-1 : -n - 1 : -1]

    def deal(self, zone: Zone, n: int = 1) -> list[str]:
        """Place the next `n` cards of the hand's deck in `zone`, one PLC each; return them."""
        with self._lock:
            self._check_zone(zone)
            cards = self._next_cards(n)
            for card in cards:
                self.put(zone, card)
            return [str(c) for c in cards]

    def fold(self, seat: int) -> list[str]:
        """A seat's cards go to the muck (RMV from the seat, PLC in the muck, each); return them."""
        with self._lock:
            cards = [c for c, z in self._where.items() if z == seat_zone(seat)]
            for card in cards:
                self.put(MUCK, card)
            return [str(c) for c in cards]

    def peek(self, seat: int) -> list[str]:
        """The player looks at the hole cards: each lifted (RMV) and put back (RTN)."""
        with self._lock:
            zone = seat_zone(seat)
            cards = [c for c, z in self._where.items() if z == zone]
            for card in cards:
                self.remove(card)
                self.put(zone, card)
            return [str(c) for c in cards]

    def collect(self) -> int:
        """Every card is taken off the table at the hand's end: one RMV each; how many."""
        with self._lock:
            cards = list(self._where)
            for card in cards:
                self.remove(card)
            return len(cards)

    def misread(self, zone: Zone, *, announce: bool = False) -> str:
        """A card of the deck comes to rest in `zone` but its tag cannot be read: its position
        is used and nothing tells of it (the history has nothing to resend); with `announce`,
        FLT MISREAD says so. Returns the card, which only the dealer now knows."""
        with self._lock:
            self._check_zone(zone)
            [card] = self._next_cards(1)
            if announce:
                self.fault("MISREAD", f"placement {self._pos + 1} in {zone} not read")
            self._deck.pop()
            self._pos += 1
            return str(card)


class SimulatedPokerTable(SimulatedDevice, PokerTableModel):
    """A PokerTableModel on a real pty: `.port` is the slave's path; `unplug()`, `replug()`.

    Takes SimulatedDevice's keyword arguments (`fragment`, `max_chunk`, `chunk_delay`, `seed` for
    the fragmenting, `seq`, `link`) and the model's (`seats`, `deck_seed`, `first_hand`).
    """


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = f"""commands (ZONE is s1..s{MAX_SEATS}, board or muck):
  hand                a new hand: HND with the next id, positions from 1, a fresh deck
  deal ZONE [N]       place the next N cards (default 1) of the deck in ZONE
  place ZONE CARD     place CARD in ZONE (a card lying elsewhere leaves it first)
  remove CARD         lift CARD from where it lies (RMV)
  fold SEAT           the seat's cards to the muck     peek SEAT       lift and put back (RTN)
  collect             every card off the table (RMV each)
  misread ZONE        a card placed unread (its position is used, nothing is sent)
  forget              lose the history (a power cycle): a resend then says LOST
  status              hand, position, cards on the table, next SEQ
{COMMON_HELP}
fault codes: {" ".join(FAULT_CODES)} (default ANTENNA)"""


def _command(table: SimulatedPokerTable, line: str) -> str | None:
    """Run one command line; return the text to print, or None to quit."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    args = rest.split()
    if word in ("quit", "exit", "q"):
        return None
    if word == "hand":
        return f"hand {table.new_hand()}"
    if word == "deal" and args:
        return " ".join(table.deal(parse_zone(args[0]), int(args[1]) if len(args) > 1 else 1))
    if word == "place" and len(args) == 2:
        pos = table.put(parse_zone(args[0]), args[1])
        return "returned" if pos is None else f"position {pos}"
    if word == "remove" and len(args) == 1:
        table.remove(args[0])
        return "ok"
    if word in ("fold", "peek") and len(args) == 1:
        cards = table.fold(int(args[0])) if word == "fold" else table.peek(int(args[0]))
        return " ".join(cards) or "no cards there"
    if word == "collect":
        return f"collected {table.collect()}"
    if word == "misread" and len(args) == 1:
        return f"misread {table.misread(parse_zone(args[0]))} at position {table.position}"
    if word == "forget":
        table.forget()
        return "history forgotten"
    if word == "status":
        return (
            f"hand {table.hand} position {table.position}, {table.on_table} cards on the "
            f"table, {table.remaining} in the deck, next SEQ {table.next_seq}, port {table.port}"
        )
    out = common_command(table, word, rest, default_fault="ANTENNA")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive poker table: print the port path, then obey commands read from stdin."""
    parser = sim_argument_parser(
        "python -m tablectl_drivers.sim.poker_table",
        "Simulated card-reading poker table on a pty.",
        _HELP,
    )
    parser.add_argument(
        "--seats", type=int, default=MAX_SEATS, help=f"seat antennas (default {MAX_SEATS})"
    )
    parser.add_argument("--seed", type=int, default=None, help="deck seed (default random)")
    args = parser.parse_args(argv)
    with SimulatedPokerTable(
        fragment=args.fragment, link=args.link, seats=args.seats, deck_seed=args.seed
    ) as table:
        table.new_hand()
        run_interactive(table, lambda line: _command(table, line), heartbeat=args.heartbeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
