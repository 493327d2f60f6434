"""A poker room pot game's hand as `tablectl recall` prints it (the flop, stud and draw games,
Dealer's Choice's hands among them): the blinds, each seat's stack and cards, every action and
card by betting round, the hands shown, each pot and who took it, the fee and the stacks after.
It reads the hand as tablectl/games/poker/hand_rebuild.py rebuilds it from the journal."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from tablectl.games.poker.flop import STREETS
from tablectl.games.poker.hand import PhhError, PokerHand, Step
from tablectl.games.poker.hand_rebuild import poker_hand
from tablectl.games.recall_lines import describe_input
from tablectl.games.stud.family import STREET_NAMES as STUD_STREETS
from tablectl.games.stud.family import STUD_GAMES
from tablectl_base.money import ZERO, fmt


def format_poker_hand(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished poker hand as the floor reads it: the button and blinds (Lowball's straddles),
    each seat's stack and cards (from the journal: recall is the floor's and the regulator's
    tool; never published, R46), every action by betting round with its amount, the cards as
    the game deals them (the board; stud's streets, down cards in parentheses, and Option
    Alley's buy; a draw game's draws, discards, burns, flashed cards), a hand declared dead,
    the hands shown, each pot and who took it, chips returned, the fee and the stacks after. A
    Dealer's Choice hand names the game chosen. Without its `hand.start` (a journal read from a
    later point) only the result is shown."""
    game, button = r.get("game", "?"), r.get("button")
    try:
        hand: PokerHand | None = poker_hand(r, inputs)
    except PhhError:
        hand = None
    chosen = any(i.get("type") == "hand.start" and i.get("game") for i in inputs)
    if chosen or (hand is not None and hand.chosen is not None):
        game = f"dealer's choice: {game}"
    head = f"Hand {r['round']}  ({game}, button seat {button}, finished {ts})"
    lines = [head]
    if r.get("void"):
        lines.append(f"  void:      {r.get('reason') or 'misdeal'} (every chip put in returned)")
    if hand is not None:
        lines += _poker_seats(hand)
        lines += _poker_play(hand)
    for i in inputs:
        if i.get("type") == "showdown":
            lines.append(f"  declared:  #{i['seq']} {describe_input(i)} (no hand read)")
    if not r.get("void"):
        lines += _poker_outcome(r, hand)
    if r.get("returned"):
        back = ", ".join(f"seat {x['seat']} {x['amount']}" for x in r["returned"])
        lines.append(f"  returned:  {back}{_seven_rule(r, hand)}")
    fee = r.get("fee") or {}
    if not r.get("void"):
        note = f"{fee.get('players')} players dealt in" + (
            ", the modified fee" if fee.get("modified") else ""
        )
        lines.append(f"  fee:       {fee.get('amount', '0.00')} ({note})")
    lines.append("  stacks:    " + _stacks_after(r, hand))
    return "\n".join(lines)


def _poker_seats(hand: PokerHand) -> list[str]:
    """The blinds (and straddles), then each seat dealt in with its stack and cards: a flop
    game's hole cards, stud's down and up cards as dealt, a draw game's five as dealt."""
    lines = []
    # 003 "Betting Limits", Kill Rules: what the holder added for the kill blind
    kills = {int(k["seat"]): Decimal(k["amount"]) for k in hand.start.get("kill") or ()}
    blinds = [s for s in hand.seats[:2] if s.posted > 0]
    names = ("small", "big")
    lines.append(
        "  blinds:    "
        + ", ".join(
            f"seat {s.seat} {names[k]} {fmt(s.posted - kills.get(s.seat, ZERO))}"
            for k, s in enumerate(blinds)
        )
    )
    straddles = [s for s in hand.seats if s.straddle > 0]
    if straddles:  # Lowball (003 "Lowball" rule 5)
        lines.append(
            "  straddles: " + ", ".join(f"seat {s.seat} {fmt(s.straddle)}" for s in straddles)
        )
    for s in hand.seats:
        if s.seat in kills:
            lines.append(f"  kill pot:  seat {s.seat} posted the kill blind, {fmt(s.posted)}")
    owed = [
        s
        for s in hand.seats[2:]
        if (s.posted > 0 or s.dead > 0) and s.seat not in kills and s.straddle == 0
    ]
    if owed:  # missed blinds, or new to the game (docs/games/poker-room.md)
        lines.append(
            "  posted:    "
            + ", ".join(
                f"seat {s.seat} {fmt(s.posted)} live" + (f" + {fmt(s.dead)} dead" if s.dead else "")
                for s in owed
            )
        )
    for s in hand.seats:
        button = "  button" if s.seat == hand.button else ""
        lines.append(
            f"  seat {s.seat:>2}   {s.player:<10} {fmt(s.stack):>9}  {_seat_cards(hand, s.seat)}"
            f"{button}"
        )
    return lines


def _seat_cards(hand: PokerHand, seat: int) -> str:
    """A seat's cards as dealt, as its seat line shows them."""
    holes = " ".join(hand.holes.get(seat, ()))
    if hand.family == "stud":
        up = " ".join(hand.up.get(seat, ())) or "-"
        return f"down {holes or '(not entered)'}  up {up}"
    if hand.family == "draw":
        return holes or "(dealt cards not entered)"
    return holes or "(no hole cards entered)"


def _describe_step(step: Step) -> str:
    """One action of the betting: who, what, how much."""
    what = {
        "check": "checks",
        "fold": "folds",
        "call": f"calls {fmt(step.added)}",
        "bet": f"bets {fmt(step.to)}",
        "raise": f"raises to {fmt(step.to)}",
    }.get(step.action)
    if step.action == "all-in":
        if step.raise_:
            what = f"all-in, {'raises to' if step.facing > 0 else 'bets'} {fmt(step.to)}"
        else:
            what = f"all-in, calls {fmt(step.added)}"
    elif step.all_in:
        what = f"{what} (all-in)"
    return f"seat {step.seat} {what or step.action}"


def _poker_play(hand: PokerHand) -> list[str]:
    """Every action by betting round, and the cards as the game deals them."""
    if hand.family == "stud":
        return _stud_play(hand)
    if hand.family == "draw":
        return _draw_play(hand)
    lines = [f"  {STREETS[0]}:"] if hand.steps else []
    for step in hand.steps:
        by_hand = "  (entered by hand, R39)" if step.by_hand else ""
        if step.kind == "board":
            board = " ".join(hand.board[: _board_len(step.street)])
            lines.append(
                f"  {STREETS[step.street]}:{' ' * (9 - len(STREETS[step.street]))}"
                f"{' '.join(step.cards)}  (board {board}; {_seqs(step)}){by_hand}"
            )
        else:
            lines.append(_step_line(step))
    return lines


def _seqs(step: Step) -> str:
    """The journal records of a board or street: one, or the first to the last read."""
    if step.first_seq and step.first_seq != step.seq:  # read card by card
        return f"#{step.first_seq}-{step.seq}"
    return f"#{step.seq}"


def _step_line(step: Step) -> str:
    """A step that is not a board or a street, on its own line under its betting round."""
    by_hand = "  (entered by hand, R39)" if step.by_hand else ""
    cards = " ".join(step.cards)
    now = f" (now {' '.join(step.now)})" if step.now else ""
    seat = f"seat {step.seat}"
    if step.kind == "action":
        text = _describe_step(step)
    elif step.kind == "discard":
        text = f"{seat} discards {cards or 'a card, face down (not read)'}{now}"
    elif step.kind == "muck":
        text = f"to the muck: {cards}"
    elif step.kind == "burn":
        text = f"burn {cards}"
    elif step.kind == "draw":
        text = _describe_draw(step)
    elif step.kind == "drawn":
        text = f"{seat} is given {cards}{now}"
    elif step.kind == "five":
        text = f"{seat}'s five after the draw: {cards}"
    elif step.kind == "sixth":
        text = f"{seat} dealt a sixth card, {cards}: taken back, dead (rule 13)"
    elif step.kind == "flashed":
        text = _describe_flashed(step)
    elif step.kind == "dead":
        text = f"{seat}'s hand declared dead: {step.note}"
    elif step.kind == "buy":
        text = _describe_buy(step)
    else:
        text = f"{step.kind} {cards}"
    return f"    #{step.seq} {text}{by_hand}"


def _describe_draw(step: Step) -> str:
    """A draw: the count, and the discards and cards where the console named them."""
    if step.count == 0:
        return f"seat {step.seat} stands pat" + (f" ({' '.join(step.now)})" if step.now else "")
    parts = []
    if step.thrown:
        parts.append(f"discards {' '.join(step.thrown)}")
    if step.cards:
        parts.append(f"is given {' '.join(step.cards)}")
    what = f": {', '.join(parts)}" if parts else ""
    now = f" (now {' '.join(step.now)})" if step.now else ""
    return f"seat {step.seat} draws {step.count}{what}{now}"


def _describe_flashed(step: Step) -> str:
    """Lowball: a card exposed by the dealer, or found boxed (003 "Lowball" rules 6-9)."""
    card, when = " ".join(step.cards), step.note
    if step.boxed:
        return (
            f"seat {step.seat}'s {card} boxed (faced in the deck) on the {when}: dead, replaced "
            "(rules 7, 9)"
        )
    if step.kept:
        return f"seat {step.seat}'s {card} flashed on the deal: kept, five or lower (rule 6)"
    rule = "rule 6" if when == "deal" else "rules 7, 8"
    return f"seat {step.seat}'s {card} flashed on the {when}: dead, replaced ({rule})"


def _describe_buy(step: Step) -> str:
    """Option Alley's buy: pat, an up card for a new one up, the hole card for one down."""
    seat = f"seat {step.seat}"
    if step.note == "":
        return f"{seat} stands pat"
    new = " ".join(step.cards)
    if step.note == "up":
        return f"{seat} discards {' '.join(step.thrown)} (up), is given {new} up"
    old = " ".join(step.thrown) or "(not entered)"
    return f"{seat} discards its hole card {old}, is given {new or 'a card (not entered)'} down"


def _draw_play(hand: PokerHand) -> list[str]:
    """A draw game: the betting before the draw, each seat's draw (its discards, burns and
    cards given), the betting after it; a card read late stays under the round it came in."""
    headings = ("before the draw", "the draw", "after the draw")
    lines: list[str] = []
    phase = -1
    for step in hand.steps:
        if step.kind == "action":
            want = 0 if step.street == 0 else 2
        elif step.kind in ("draw", "drawn", "burn", "five") or (
            step.kind == "discard" and step.street == 1
        ):
            want = 1
        else:
            want = max(phase, 0)
        if want > phase:
            phase = want
            lines.append(f"  {headings[phase]}:")
        lines.append(_step_line(step))
    return lines


def _stud_play(hand: PokerHand) -> list[str]:
    """A stud game: each street's cards by seat (down cards in parentheses, `??` where the
    journal has none) and its betting; Option Alley's buy and the round after it."""
    game = STUD_GAMES[hand.game]
    lines: list[str] = []
    buy = 0  # Option Alley: 1 in the buy, 2 in the betting round after it
    for step in hand.steps:
        if step.kind == "street":
            name = f"{STUD_STREETS[step.street + game.first_street - 2]} street"
            lines.append(f"  {name}:{' ' * max(1, 15 - len(name))}{_street_cards(step)}")
            continue
        if step.kind == "buy" and buy == 0:
            buy = 1
            lines.append("  the buy:")
        elif step.kind == "action" and step.street >= len(game.streets) and buy < 2:
            buy = 2
            lines.append("  after the buy:")
        lines.append(_step_line(step))
    return lines


def _street_cards(step: Step) -> str:
    """A stud street's cards, seat by seat in the order dealt: `seat 3 (Ah Ac) 9c`."""
    per_seat: dict[int, list[str]] = {}
    for seat, face, card in step.dealt:
        text = card or "??"
        per_seat.setdefault(seat, []).append(f"({text})" if face == "down" else text)
    seats = ", ".join(f"seat {seat} {_joined(cards)}" for seat, cards in per_seat.items())
    by_hand = "  (entered by hand, R39)" if step.by_hand else ""
    return f"{seats}  ({_seqs(step)}){by_hand}"


def _joined(cards: list[str]) -> str:
    """A seat's cards of one street, its down cards within one pair of parentheses."""
    downs = [c[1:-1] for c in cards if c.startswith("(")]
    ups = [c for c in cards if not c.startswith("(")]
    return " ".join(([f"({' '.join(downs)})"] if downs else []) + ups)


def _board_len(street: int) -> int:
    """Board cards out once `street` (1 flop, 2 turn, 3 river) is turned up."""
    return (0, 3, 4, 5)[street]


def _shown_hand(h: dict[str, Any]) -> str:
    """A hand shown: its high (absent in a low-only game: Lowball, Razz) and its low."""
    parts = []
    if h.get("high"):
        parts.append(f"{h['high']['name']} ({' '.join(h['high']['cards'])})")
    low = h.get("low")
    if low:
        parts.append(f"low {low['name']} ({' '.join(low['cards'])})")
    return "; ".join(parts) or "-"


def _poker_outcome(r: dict[str, Any], hand: PokerHand | None) -> list[str]:
    """The showdown (the hands shown, and the other hands still in, which the table ranked but
    did not show, R46) and each pot with its winners."""
    lines = []
    if r.get("showdown"):
        shown = {int(h["seat"]) for h in r.get("shown", [])}
        for h in r.get("shown", []):
            lines.append(f"  shown:     seat {h['seat']} {' '.join(h['cards'])}: {_shown_hand(h)}")
        for seat in () if hand is None or r.get("declared") else hand.live_at_end():
            if seat not in shown:
                cards = " ".join(hand.kept(seat)) if hand is not None else ""
                cards = cards or "(cards not entered)"
                lines.append(f"  mucked:    seat {seat} {cards} (won no pot: not shown, R46)")
    else:
        lines.append("  no showdown: everyone else folded")
    for k, pot in enumerate(r.get("pots", []), start=1):
        name = "main pot" if k == 1 else f"side pot {k - 1}"
        high = " ".join(map(str, pot["high"]))
        low = " ".join(map(str, pot["low"]))
        paid = ", ".join(f"seat {p['seat']} {p['amount']}" for p in pot["paid"])
        # a low-only game's pot (Lowball, Razz) has no high winner
        who = ", ".join(
            ([f"high seat {high or '-'}"] if high or not low else [])
            + ([f"low seat {low}"] if low else [])
        )
        lines.append(
            f"  {name}:{' ' * max(1, 10 - len(name))}{pot['amount']} "
            f"(seats {' '.join(map(str, pot['eligible']))}): {who}; paid {paid}"
        )
    return lines


_LOW_RANKS = "A23456789TJQK"


def _seven_or_better(name: str) -> bool:
    """R45 read from a low's name ("7-5-4-3-2"): unpaired, its highest card a seven or lower."""
    ranks = name.split("-")
    if len(ranks) != 5 or len(set(ranks)) != 5 or any(r not in _LOW_RANKS for r in ranks):
        return False
    return max(_LOW_RANKS.index(r) for r in ranks) <= _LOW_RANKS.index("7")


def _seven_rule(r: dict[str, Any], hand: PokerHand | None) -> str:
    """Lowball's seven rule (R45), when it is why chips came back: a winner that checked a
    seven or better after the draw."""
    if hand is None or hand.game != "lowball" or not r.get("showdown") or r.get("declared"):
        return ""
    lows = {int(h["seat"]): (h.get("low") or {}).get("name", "") for h in r.get("shown", [])}
    winners = {int(s) for pot in r.get("pots", []) for s in pot["low"]}
    checked = {
        s.seat for s in hand.steps if s.kind == "action" and s.street == 1 and s.action == "check"
    }
    why = sorted(s for s in winners & checked if _seven_or_better(lows.get(s, "")))
    if not why:
        return ""
    seats = " and ".join(f"seat {s}" for s in why)
    return (
        f" (R45, the seven rule: {seats} checked a seven or better after the draw and won; "
        "every chip put in after the draw goes back)"
    )


def _stacks_after(r: dict[str, Any], hand: PokerHand | None) -> str:
    """Each seat's stack after the hand, with its change for the seats dealt in."""
    before = {} if hand is None else {s.seat: s.stack for s in hand.seats}
    parts = []
    for x in r.get("stacks", []):
        seat, after = int(x["seat"]), Decimal(x["stack"])
        change = ""
        if seat in before:
            delta = after - before[seat]
            change = f" ({'+' if delta > 0 else ''}{fmt(delta)})"
        parts.append(f"seat {seat} {x['stack']}{change}")
    return ", ".join(parts)
