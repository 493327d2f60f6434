"""A poker hand from the journal, and that hand in the Poker Hand History format (PHH).

`poker_hand` rebuilds one finished hand from what `tablectl recall` collects for it: the
`round/result` payload and the accepted inputs that dealt and played it, the `hand.start` one
carrying `at_start` (the seats, stacks and stakes as the hand began; tablectl/cli.py). It is what
`recall` prints (tablectl/round_text.py) and what `to_phh` writes.

PHH (https://phh.readthedocs.io, the format pokerkit reads and writes) is TOML: one hand per
document, several in one `.phhs` file as numbered sections `[1]`, `[2]`, ... (`to_phhs`). Players
are listed by position: the seat on the button's left (the small blind) first, the button last.
PHH has variant codes for fixed-limit and no-limit Texas Hold'em (FT, NT), pot-limit Omaha (PO)
and fixed-limit Omaha high-low eight or better (FO/8); any other game or structure (Crazy
Pineapple, fixed-limit Omaha high, spread limit, ...) is refused with `PhhError`.

What PHH does not carry is written as user-defined fields (an underscore first, as the spec asks):
`_fee`, the collection taken from the main pot (R44; `winnings` and `finishing_stacks` are after
it, as the spec says), `_game` and `_document`, the table's game and the document it is played
under, and `_button_seat`. Every hole card the journal holds is dealt in `d dh` (the journal is
the regulator's record: it keeps folded hands' cards too); unknown ones are `??`. At a showdown
every hand still in is shown (`sm`): the table ranks them all, as hands speak for themselves.

Where the table's rules and PHH's reading of a hand differ, the hand is written as played: heads
up the table's small blind is left of the button and acts first on every street, so the blind
amounts are written swapped (PHH reverses them heads up); a big blind posted short is still called
in full at the table (rules/betting.py open_round), which PHH cannot say, so such a call carries a
commentary and pokerkit does not replay that hand to the table's stacks.

Pure: no I/O, no pokerkit (a dev dependency, used by the tests to replay what this writes).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final, Literal

from tablectl.games.poker.engine import BOARD_AFTER, GAMES, STREETS
from tablectl_base.money import ZERO

__all__ = ["STREETS", "PhhError", "PokerHand", "Step", "poker_hand", "to_phh", "to_phhs"]

HOLE_CARDS: Final[Mapping[str, int]] = {gid: game.hole_cards for gid, game in GAMES.items()}
"""Each flop game's hole cards, as its engine deals them."""
VARIANT_CODES: Final[Mapping[tuple[str, str], str]] = {
    ("texas-holdem", "fixed-limit"): "FT",
    ("texas-holdem", "no-limit"): "NT",
    ("omaha", "pot-limit"): "PO",
    ("omaha-hi-lo", "fixed-limit"): "FO/8",
}
"""(game, betting structure) -> PHH variant code: every flop game PHH has a code for."""


class PhhError(ValueError):
    """A hand that cannot be written as PHH (a game or structure PHH has no code for), or
    whose journal lacks what a hand history needs."""


@dataclass(frozen=True)
class SeatStart:
    """A player dealt in: seat, name, chips before the blinds, the blind posted (live, toward the
    call) and any dead blind (missed blinds: the pot's, like an ante)."""

    seat: int
    player: str
    stack: Decimal
    posted: Decimal
    dead: Decimal = ZERO


@dataclass(frozen=True)
class Step:
    """One thing that happened in the hand, in order: an action of the betting (`seat`,
    `action` as the dealer entered it, chips `added`, the seat's chips in this round after it
    `to`, `all_in` when nothing is left behind, `raise_` when it raised the bet, `facing` the
    bet it faced: none, a bet; some, a raise), the board
    turned up (`cards`, when a street is complete), a Crazy Pineapple discard, or a card the
    reader saw go to the muck."""

    seq: int
    street: int
    kind: Literal["action", "board", "discard", "muck"]
    seat: int | None = None
    action: str = ""
    added: Decimal = ZERO
    to: Decimal = ZERO
    all_in: bool = False
    raise_: bool = False
    facing: Decimal = ZERO
    cards: tuple[str, ...] = ()
    by_hand: bool = False
    first_seq: int = 0  # a board read card by card: the record of its first card


@dataclass(frozen=True)
class PokerHand:
    """A finished poker hand: who was dealt in (by position, the button last), the hole cards
    the journal holds, every action and board card in order, and the table's result."""

    number: int
    game: str
    button: int
    result: Mapping[str, Any]
    seats: tuple[SeatStart, ...]
    holes: Mapping[int, tuple[str, ...]]
    steps: tuple[Step, ...]
    board: tuple[str, ...]
    start: Mapping[str, Any] = field(default_factory=dict)

    @property
    def void(self) -> bool:
        """A misdeal: every chip returned."""
        return bool(self.result.get("void"))

    @property
    def showdown(self) -> bool:
        """The hand went to a showdown."""
        return bool(self.result.get("showdown"))

    def live_at_end(self) -> tuple[int, ...]:
        """The seats that had not folded when the hand ended, by position."""
        folded = {s.seat for s in self.steps if s.kind == "action" and s.action == "fold"}
        return tuple(s.seat for s in self.seats if s.seat not in folded)

    def kept(self, seat: int) -> tuple[str, ...]:
        """A seat's hole cards less any it discarded (Crazy Pineapple)."""
        gone = {c for s in self.steps if s.kind == "discard" and s.seat == seat for c in s.cards}
        return tuple(c for c in self.holes.get(seat, ()) if c not in gone)

    def stacks_after(self) -> dict[int, Decimal]:
        """Every seat's stack after the hand, as the result gives it."""
        return {int(x["seat"]): Decimal(x["stack"]) for x in self.result.get("stacks", [])}

    def winnings(self) -> dict[int, Decimal]:
        """What each seat was paid from the pots (the uncalled chips returned are not won)."""
        won: dict[int, Decimal] = {}
        for pot in self.result.get("pots", []):
            for p in pot["paid"]:
                won[int(p["seat"])] = won.get(int(p["seat"]), ZERO) + Decimal(p["amount"])
        return won


def is_poker_result(result: Mapping[str, Any]) -> bool:
    """Whether a `round/result` payload is a poker hand's (it has pots, not settlements)."""
    return "pots" in result and "settlements" not in result


def _dealt_in(start: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The seats dealt in, clockwise from the button's left, the button last, as the table's
    `hand.start` echo said (`dealt_in`)."""
    seats = {int(s["seat"]): s for s in start["seats"]}
    return [seats[int(seat)] for seat in start["dealt_in"]]


def poker_hand(result: Mapping[str, Any], inputs: Sequence[Mapping[str, Any]]) -> PokerHand:
    """The hand `result` ended, rebuilt from its journaled inputs (each with its `seq`). PhhError
    if its `hand.start` (with the seats as the hand began) is not among them."""
    starts = [i for i in inputs if i.get("type") == "hand.start" and "at_start" in i]
    if not starts:
        raise PhhError(f"hand {result.get('round')}: its hand.start is not in the journal read")
    start: Mapping[str, Any] = starts[-1]["at_start"]
    order = _dealt_in(start)
    big = Decimal(start["blinds"][1])
    stack = {int(s["seat"]): Decimal(s["stack"]) for s in order}
    in_round = {seat: ZERO for seat in stack}
    seats: list[SeatStart] = []
    live = {int(p["seat"]): Decimal(p["amount"]) for p in start["posted"]}
    dead = {int(p["seat"]): Decimal(p["amount"]) for p in start.get("dead") or ()}
    for s in order:
        seat = int(s["seat"])
        posted, gone = live.get(seat, ZERO), dead.get(seat, ZERO)
        name = str(s.get("player") or f"p{seat}")
        seats.append(SeatStart(seat, name, stack[seat], posted, gone))
        stack[seat] -= posted + gone
        in_round[seat] = posted
    # The bet to call is the big blind even when it was posted short (rules/betting.py open_round)
    current = big if len(seats) > 1 else max(in_round.values(), default=ZERO)
    holes: dict[int, list[str]] = {}
    board: list[str] = []
    pending: list[tuple[str, int, bool]] = []  # board cards of a street not yet complete
    steps: list[Step] = []
    street = 0
    for i in inputs:
        kind, seq = i.get("type"), int(i.get("seq", 0))
        by_hand = bool(i.get("by_hand"))
        if kind == "hole.cards":
            holes.setdefault(int(i["seat"]), []).extend(i["cards"])
        elif kind == "table.card" and i.get("zone") == "seat" and i.get("seat") is not None:
            holes.setdefault(int(i["seat"]), []).append(str(i["card"]))
        elif kind == "table.card" and i.get("zone") == "muck":
            steps.append(Step(seq, street, "muck", cards=(str(i["card"]),), by_hand=by_hand))
        elif kind == "hole.discard":
            seat = int(i["seat"])
            # no card at a table without a reader: nobody saw it
            thrown: tuple[str, ...] = () if i.get("card") is None else (str(i["card"]),)
            steps.append(Step(seq, street, "discard", seat=seat, cards=thrown))
        elif kind in ("board.cards", "table.card"):
            cards = i["cards"] if kind == "board.cards" else [i["card"]]
            pending += [(str(c), seq, by_hand) for c in cards]
            if street < len(BOARD_AFTER) and len(board) + len(pending) >= BOARD_AFTER[street]:
                board += [c for c, _, _ in pending]
                steps.append(
                    Step(
                        pending[-1][1],
                        street + 1,
                        "board",
                        cards=tuple(c for c, _, _ in pending),
                        by_hand=any(h for _, _, h in pending),
                        first_seq=pending[0][1],
                    )
                )
                pending = []
                street += 1
                in_round = dict.fromkeys(in_round, ZERO)
                current = ZERO
        elif kind == "decision" and int(i["seat"]) in stack:
            # What the action put in and brought the seat's round to: the table's echo says.
            seat, action = int(i["seat"]), str(i["action"])
            added, to = Decimal(i["added"]), Decimal(i["to"])
            stack[seat] -= added
            in_round[seat] = to
            raised, current_before = to > current, current
            current = max(current, to)
            steps.append(
                Step(
                    seq,
                    street,
                    "action",
                    seat=seat,
                    action=action,
                    added=added,
                    to=to,
                    all_in=action != "fold" and stack[seat] == 0 and added > 0,
                    raise_=raised,
                    facing=current_before,
                )
            )
    return PokerHand(
        number=int(result["round"]),
        game=str(result.get("game", start.get("game", "?"))),
        button=int(result["button"]),
        result=result,
        seats=tuple(seats),
        holes={seat: tuple(cards) for seat, cards in holes.items()},
        steps=tuple(steps),
        board=tuple(board),
        start=start,
    )


# -- PHH ------------------------------------------------------------------------------------


def variant_code(game: str, structure: str | None) -> str:
    """The PHH variant code of `game` under `structure`; PhhError naming what PHH lacks."""
    code = VARIANT_CODES.get((game, structure or "?"))
    if code is None:
        have = ", ".join(f"{g} {s} ({c})" for (g, s), c in VARIANT_CODES.items())
        raise PhhError(
            f"PHH has no variant code for {game} played {structure}: it writes only {have}"
        )
    return code


def _num(amount: Decimal) -> str:
    """An amount as a PHH (TOML) number: an integer when whole, else a decimal."""
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


def _str(text: str) -> str:
    """A TOML basic string."""
    return json.dumps(text, ensure_ascii=False)


def _cards(cards: Iterable[str], count: int = 0) -> str:
    """Cards as PHH writes them, one after another ("AhKd"), unknown ones `??` up to `count`."""
    known = list(cards)
    return "".join(known + ["??"] * max(0, count - len(known)))


def phh_actions(hand: PokerHand) -> list[str]:
    """The hand's `actions`: hole cards dealt, each betting action, the board by street, and
    the hands shown at a showdown."""
    player = {s.seat: f"p{k}" for k, s in enumerate(hand.seats, start=1)}
    hole_count = HOLE_CARDS.get(hand.game, 2)
    out = [
        f"d dh {player[s.seat]} {_cards(hand.holes.get(s.seat, ()), hole_count)}"
        for s in hand.seats
    ]
    last_action = max((k for k, s in enumerate(hand.steps) if s.kind == "action"), default=-1)
    posted = max((s.posted for s in hand.seats), default=ZERO)  # the bet as PHH sees it
    shown = False
    for k, step in enumerate(hand.steps):
        if step.kind == "board":
            out.append(f"d db {_cards(step.cards)}")
            posted = ZERO
        elif step.kind == "action":
            assert step.seat is not None
            p = player[step.seat]
            if step.action == "fold":
                out.append(f"{p} f")
            elif step.raise_:
                out.append(f"{p} cbr {_num(step.to)}")
            elif step.to > posted:  # the full big blind called, though it was posted short
                out.append(
                    f"{p} cc # calls {_num(step.to)}: the full big blind, posted short "
                    "(the table's rule; PHH calls only what was posted)"
                )
            else:  # check, call, or an all-in for no more than the bet
                out.append(f"{p} cc")
            posted = max(posted, step.to)
        if k == last_action and hand.showdown and not shown:
            out += _showdown(hand, player, hole_count)
            shown = True
    if hand.showdown and not shown:
        out += _showdown(hand, player, hole_count)
    return out


def _showdown(hand: PokerHand, player: Mapping[int, str], hole_count: int) -> list[str]:
    """Every hand still in, shown (the table ranks them all). Where the dealer declared the
    order (a table without a reader: the `showdown` input), the hands were not read: they are
    shown unknown, with the order as a commentary."""
    note = ""
    if hand.result.get("declared"):
        note = " # not read: the dealer declared the order"
    return [
        f"{player[seat]} sm {_cards(hand.holes.get(seat, ()), hole_count)}{note}"
        for seat in hand.live_at_end()
    ]


def left_out(hand: PokerHand) -> str | None:
    """Why PHH cannot write `hand` faithfully (it is then left out with a note), or None: a
    misdeal, or a post past the blinds (a player new to the game or back from missed blinds),
    which PHH could only call a straddle, and a straddle changes who acts first."""
    if hand.void:
        return "a misdeal (void)"
    if hand.start.get("kill"):
        return (
            "a kill pot (003 Kill Rules), whose kill blind acts last: PHH has no kill blind, "
            "and its stakes are not the table's"
        )
    posts = [s.seat for s in hand.seats[2:] if s.posted > 0 or s.dead > 0]
    if posts:
        seats = ", ".join(str(s) for s in posts)
        return (
            f"seat {seats} posted past the blinds (missed blinds or new to the game), which PHH "
            "cannot write: it would read a straddle, which acts last"
        )
    return None


def to_phh(hand: PokerHand, *, table: str | None = None) -> str:
    """One hand as a PHH document (TOML). PhhError for a misdeal or a game PHH cannot write."""
    if hand.void:
        raise PhhError(f"hand {hand.number} was a misdeal (void): there is no hand to write")
    start = hand.start
    structure = start.get("structure")
    code = variant_code(hand.game, structure)
    small, big = (Decimal(b) for b in start["blinds"])
    n = len(hand.seats)
    # Heads up PHH reverses the forced bets "by rule" (the second player, the button, posts the
    # first amount). The table's engine reads 004 with the small blind left of the button and the
    # big blind on it, and the small blind first to act on every street (poker/engine.py): that
    # hand is written with the amounts swapped, so each player posts what they posted.
    why = left_out(hand)
    if why is not None:
        raise PhhError(f"hand {hand.number}: {why}")
    blinds = [small, big] + [ZERO] * (n - 2) if n > 2 else [big, small]
    lines = [f"variant = {_str(code)}", f"antes = [{', '.join(['0'] * n)}]"]
    lines.append(f"blinds_or_straddles = [{', '.join(_num(b) for b in blinds)}]")
    if code in ("FT", "FO/8"):
        stakes = start.get("stakes")
        if not stakes:
            raise PhhError(f"hand {hand.number}: a fixed-limit hand without its stakes")
        lines += [
            f"small_bet = {_num(Decimal(stakes[0]))}",
            f"big_bet = {_num(Decimal(stakes[1]))}",
        ]
    else:
        lines.append(f"min_bet = {_num(big)}")
    lines.append(f"starting_stacks = [{', '.join(_num(s.stack) for s in hand.seats)}]")
    actions = phh_actions(hand)
    lines.append("actions = [\n" + "".join(f"  {_str(a)},\n" for a in actions) + "]")
    lines.append(f"hand = {hand.number}")
    if table is not None:
        lines.append(f"table = {_str(table)}")
    lines.append(f"seats = [{', '.join(str(s.seat) for s in hand.seats)}]")
    if start.get("seat_count") is not None:
        lines.append(f"seat_count = {int(start['seat_count'])}")
    lines.append(f"players = [{', '.join(_str(s.player) for s in hand.seats)}]")
    after, won = hand.stacks_after(), hand.winnings()
    lines.append(
        f"finishing_stacks = [{', '.join(_num(after.get(s.seat, ZERO)) for s in hand.seats)}]"
    )
    lines.append(f"winnings = [{', '.join(_num(won.get(s.seat, ZERO)) for s in hand.seats)}]")
    ts = str(start.get("ts") or "")
    if len(ts) >= 19 and ts[4] == "-" and ts[10] == "T":  # 2026-11-26T10:00:05Z (UTC)
        lines += [
            f"time = {ts[11:19]}",
            'time_zone = "UTC"',
            f"day = {int(ts[8:10])}",
            f"month = {int(ts[5:7])}",
            f"year = {int(ts[0:4])}",
        ]
    fee = Decimal(hand.result.get("fee", {}).get("amount", "0"))
    lines.append(f"_fee = {_num(fee)}")
    lines.append(f"_game = {_str(hand.game)}")
    if start.get("document") is not None:
        lines.append(f"_document = {_str(str(start['document']))}")
    lines.append(f"_button_seat = {hand.button}")
    return "\n".join(lines) + "\n"


def to_phhs(documents: Sequence[str]) -> str:
    """Several PHH documents as one `.phhs` file: sections `[1]`, `[2]`, ... in order."""
    return "\n".join(f"[{k}]\n{doc}" for k, doc in enumerate(documents, start=1))
