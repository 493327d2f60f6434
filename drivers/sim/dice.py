"""A simulated dice-cup sensor speaking docs/protocols/dice.md, with or without a real pty.

`DiceModel` is the cup without I/O (it hands frame bytes to a callback), for null-modem tests;
`SimulatedDice` is the same cup on a pseudo-terminal that the real DiceCupDriver opens like any
serial device. Run `python -m drivers.sim.dice --dice 3 --seed 1` for an interactive cup.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence

from drivers.dice.messages import FACES, CupMoved, DiceReading
from drivers.sim.device import (
    COMMON_HELP,
    DeviceModel,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)

__all__ = ["DiceModel", "SimulatedDice", "main"]


class DiceModel(DeviceModel):
    """The cup's side of the protocol without I/O: shakes (random or given), the cup, misreads.

    `dice` is how many dice the cup holds; rolls come from random.Random(`roll_seed`).
    """

    def __init__(
        self,
        send: Callable[[bytes], None],
        *,
        seq: int = 0,
        dice: int = 3,
        roll_seed: int | None = None,
    ) -> None:
        if dice < 1:
            raise ValueError("a dice cup holds at least one die")
        self.dice = dice
        """How many dice a shake reads unless told otherwise."""
        self._dice_rng = random.Random(roll_seed)
        super().__init__(send, seq=seq)

    def _roll(self) -> list[int]:
        return [self._dice_rng.choice(FACES) for _ in range(self.dice)]

    def shake(self, values: Sequence[int] | None = None) -> tuple[int, ...]:
        """Shake and send DIC: `values` as given (any number of dice, each 1..6) or a random roll.

        Returns the dice sent; ValueError (nothing sent) for a value no die can show.
        """
        with self._lock:
            dice = tuple(self._roll() if values is None else values)
            if not dice or any(isinstance(d, bool) or d not in FACES for d in dice):
                raise ValueError(f"a shake reads one or more dice of 1..6, not {list(dice)}")
            self.transmit(lambda seq: DiceReading(seq, dice))
        return dice

    def unreadable(self, values: Sequence[int | None] | None = None) -> tuple[int | None, ...]:
        """Shake and send DIC with unreadable dice: None in `values`, or one random die unread.

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
            self.transmit(lambda seq: DiceReading(seq, dice))
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
    the fragmenting, `seq`, `link`) and the model's (`dice`, `roll_seed`).
    """


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = f"""commands:
  shake [D ...]       shake: random, or these dice   unreadable      shake, one die unread
  lift                cup lifted                     close           cup closed
  status              dice, next SEQ, port
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
    if word == "status":
        return f"{cup.dice} dice, next SEQ {cup.next_seq}, port {cup.port}"
    out = common_command(cup, word, rest, default_fault="TILT")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive dice cup: print the port path, then obey commands read from stdin."""
    parser = sim_argument_parser(
        "python -m drivers.sim.dice", "Simulated dice-cup sensor on a pty.", _HELP
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
