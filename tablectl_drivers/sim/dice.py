"""A simulated dice-cup sensor speaking docs/protocols/dice.md, with or without a real pty.

`DiceModel` is the cup without I/O (it hands frame bytes to a callback), for null-modem tests;
`SimulatedDice` is the same cup on a pseudo-terminal that the real DiceCupDriver opens like any
serial device. The cup numbers every roll it reads (a counter that survives power cycles), keeps
its latest rolls and answers a resend (RSN). Run
`python -m tablectl_drivers.sim.dice --dice 3 --seed 1` for an interactive cup.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence

from tablectl_drivers.dice.messages import FACES, CupMoved, DiceReading
from tablectl_drivers.messages import Message
from tablectl_drivers.sim.device import (
    COMMON_HELP,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)
from tablectl_drivers.sim.history import HistoryModel

__all__ = ["DiceModel", "SimulatedDice", "main"]


class DiceModel(HistoryModel):
    """The cup's side of the protocol without I/O: shakes (random or given), the cup, misreads,
    the roll counter and the latest rolls (HistoryModel.positions_kept of them).

    `dice` is how many dice the cup holds; rolls come from random.Random(`roll_seed`);
    `rolls_read` is the cup's counter when the model starts (a cup in service has read many).
    """

    def __init__(
        self,
        send: Callable[[bytes], None],
        *,
        seq: int = 0,
        dice: int = 3,
        roll_seed: int | None = None,
        rolls_read: int = 0,
    ) -> None:
        if dice < 1:
            raise ValueError("a dice cup holds at least one die")
        if isinstance(rolls_read, bool) or not isinstance(rolls_read, int) or rolls_read < 0:
            raise ValueError(f"a roll counter is a whole number >= 0, not {rolls_read!r}")
        self.dice = dice
        """How many dice a shake reads unless told otherwise."""
        self._dice_rng = random.Random(roll_seed)
        self._read = rolls_read  # the rolls read since the cup was made: the last roll number
        super().__init__(send, seq=seq)

    @property
    def rolls_read(self) -> int:
        """The cup's roll counter: the number of the last roll it read."""
        return self._read

    def pos_of(self, message: Message) -> int | None:
        """A fully read roll's number (an unreadable reading holds none)."""
        if isinstance(message, DiceReading) and message.values is not None:
            return message.pos
        return None

    def place(self) -> tuple[str | None, int]:
        return None, self._read

    def _roll(self) -> list[int]:
        return [self._dice_rng.choice(FACES) for _ in range(self.dice)]

    def _read_dice(self, values: Sequence[int] | None) -> tuple[int, ...]:
        dice = tuple(self._roll() if values is None else values)
        if not dice or any(isinstance(d, bool) or d not in FACES for d in dice):
            raise ValueError(f"a shake reads one or more dice of 1..6, not {list(dice)}")
        return dice

    def shake(self, values: Sequence[int] | None = None) -> tuple[int, ...]:
        """Shake and send DIC with the next roll number: `values` as given (any number of dice,
        each 1..6) or a random roll.

        Returns the dice sent; ValueError (nothing sent) for a value no die can show. If sending
        fails (unplugged), the number is not used.
        """
        with self._lock:
            dice = self._read_dice(values)
            pos = self._read + 1
            self.transmit(lambda seq: DiceReading(seq, pos, dice))
            self._read = pos
        return dice

    def misread(self, values: Sequence[int] | None = None) -> tuple[int, ...]:
        """A roll the cup read and counted whose report never left it (lost in the sensor): its
        number is used, but nothing is sent and the history has nothing to resend. Returns the
        dice, which only the dealer now knows."""
        with self._lock:
            dice = self._read_dice(values)
            self._read += 1
        return dice

    def unreadable(self, values: Sequence[int | None] | None = None) -> tuple[int | None, ...]:
        """Shake and send DIC with unreadable dice: None in `values`, or one random die unread.
        It carries the number the next reading will take and uses none.

        Returns the reading sent (None where a die was not read).
        """
        with self._lock:
            if values is None:
                reading: list[int | None] = list(self._roll())
                reading[self._dice_rng.randrange(len(reading))] = None
            else:
                reading = list(values)
            if None not in reading or any(d is not None and d not in FACES for d in reading):
                raise ValueError(f"an unreadable shake has a None die, the rest 1..6: {reading}")
            dice = tuple(reading)
            pos = self._read + 1
            self.transmit(lambda seq: DiceReading(seq, pos, dice))
        return dice

    def lift(self) -> None:
        """Send CUP,LIFTED: the dealer lifted the cup off the dice."""
        self.transmit(lambda seq: CupMoved(seq, True))

    def close_cup(self) -> None:
        """Send CUP,CLOSED: the cup is closed over the dice, ready to shake."""
        self.transmit(lambda seq: CupMoved(seq, False))


class SimulatedDice(SimulatedDevice, DiceModel):
    """A DiceModel on a real pty: `.port` is the slave's path; `unplug()`, `replug()`.

    Takes SimulatedDevice's keyword arguments (`fragment`, `max_chunk`, `chunk_delay`, `seed` for
    the fragmenting, `seq`, `link`) and the model's (`dice`, `roll_seed`, `rolls_read`).
    """


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = f"""commands:
  shake [D ...]       shake: random, or these dice   unreadable      shake, one die unread
  lift                cup lifted                     close           cup closed
  misread [D ...]     a roll read and counted but never reported (a resend cannot bring it)
  forget              lose the history (a power cycle; the roll counter stays)
  status              dice, rolls read, next SEQ, port
{COMMON_HELP}
fault codes: TILT COVER_OPEN UNREADABLE SENSOR (default TILT)"""


def _show(dice: Sequence[int | None]) -> str:
    return " ".join("?" if d is None else str(d) for d in dice)


def _command(cup: SimulatedDice, line: str) -> str | None:
    """Run one command line; return the text to print, or None to quit."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("quit", "exit", "q"):
        return None
    if word == "shake":
        return _show(cup.shake([int(d) for d in rest.split()] if rest else None))
    if word == "unreadable":
        return _show(cup.unreadable())
    if word == "lift":
        cup.lift()
        return "lifted"
    if word == "close":
        cup.close_cup()
        return "closed"
    if word == "misread":
        dice = cup.misread([int(d) for d in rest.split()] if rest else None)
        return f"misread {_show(dice)} as roll {cup.rolls_read}"
    if word == "forget":
        cup.forget()
        return "history forgotten"
    if word == "status":
        return (
            f"{cup.dice} dice, {cup.rolls_read} rolls read, next SEQ {cup.next_seq}, "
            f"port {cup.port}"
        )
    out = common_command(cup, word, rest, default_fault="TILT")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive dice cup: print the port path, then obey commands read from stdin."""
    parser = sim_argument_parser(
        "python -m tablectl_drivers.sim.dice", "Simulated dice-cup sensor on a pty.", _HELP
    )
    parser.add_argument("--dice", type=int, default=3, help="dice in the cup (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="roll seed (default random)")
    args = parser.parse_args(argv)
    with SimulatedDice(
        fragment=args.fragment, dice=args.dice, roll_seed=args.seed, link=args.link
    ) as cup:
        run_interactive(cup, lambda line: _command(cup, line), heartbeat=args.heartbeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
