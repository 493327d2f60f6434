"""Poker hands in the Poker Hand History format (PHH): `to_phh` writes one hand, `to_phhs` several
as one `.phhs` file, and `PhhWriter` is the `phh` writer of `tablectl export`.

PHH (https://phh.readthedocs.io, the format pokerkit reads and writes) is TOML: one hand per
document, several in one `.phhs` file as numbered sections `[1]`, `[2]`, ... (`to_phhs`). Players
are listed by position: the seat on the button's left (the small blind) first, the button last.
PHH has variant codes for fixed-limit and no-limit Texas Hold'em (FT, NT), pot-limit Omaha (PO)
and fixed-limit Omaha high-low eight or better (FO/8) (tablectl/games/poker/hand.py
VARIANT_CODES); any other game or structure (Crazy Pineapple, fixed-limit Omaha high, spread
limit, every stud and draw game, Chinese Poker, ...) is refused with `PhhError`, and so is a
Dealer's Choice hand: the journal's `hand.start` carries the table's limits, not the chosen
game's own (`[game.limits]`), so its stakes cannot be written.

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

Pure but for the writer's stream: no pokerkit (a dev dependency, used by the tests to replay
what this writes).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Final, TextIO

from tablectl.games.poker.flop import FLOP_GAMES
from tablectl.games.poker.hand import VARIANT_CODES, PhhError, PokerHand, is_poker_result
from tablectl.games.poker.hand_rebuild import poker_hand
from tablectl_base.money import ZERO

if TYPE_CHECKING:
    from tablectl.history.generic import FinishedRound

HOLE_CARDS: Final[Mapping[str, int]] = {gid: game.hole_cards for gid, game in FLOP_GAMES.items()}
"""Each flop game's hole cards, as its engine deals them."""


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
    which PHH could only call a straddle, and a straddle changes who acts first. None too for a
    hand of a game PHH has no code for (or a Dealer's Choice hand): `to_phh` refuses it."""
    if hand.void:
        return "a misdeal (void)"
    if (hand.game, hand.start.get("structure") or "?") not in VARIANT_CODES or hand.chosen:
        return None  # not a hand PHH has a code for: to_phh refuses it, naming why
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
    if hand.chosen is not None:
        raise PhhError(
            f"a Dealer's Choice hand ({hand.chosen}): the journal keeps the table's limits, not "
            "the chosen game's own ([game.limits]), so PHH cannot write its stakes"
        )
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


class PhhWriter:
    """`phh`: every finished poker hand as PHH, one `[N]` section a hand (a `.phhs` file),
    written when finished: first a TOML comment for each hand left out (a misdeal, a post past
    the blinds: `left_out`), then the hands. A round of a banked game is passed over; a hand PHH
    cannot write raises PhhError naming the hand, before anything is written.

    A writer of rounds (tablectl/history/generic.py `RoundWriter`, whose members it has: the
    history registers it as one, from the poker spec's `round_formats`)."""

    def __init__(self, out: TextIO, *, table: str | None = None) -> None:
        self.out = out
        self.table = table
        self.written = 0
        self.documents: list[str] = []
        self.skipped: list[str] = []

    def write_round(self, finished: FinishedRound) -> None:
        """Keep one finished round's hand (or the note of its leaving out)."""
        result = finished.result
        if not is_poker_result(result):
            return
        try:
            hand = poker_hand(result, finished.inputs)
            why = left_out(hand)
            if why is not None:
                self.skipped.append(f"# hand {result['round']}: {why}, not written")
            else:
                self.documents.append(to_phh(hand, table=self.table))
        except PhhError as exc:
            raise PhhError(f"hand {result['round']}: {exc}") from exc
        self.written += 1

    def finish(self) -> None:
        """Write the notes, then the hands."""
        for note in self.skipped:
            self.out.write(note + "\n")
        if self.documents:
            self.out.write(to_phhs(self.documents))
