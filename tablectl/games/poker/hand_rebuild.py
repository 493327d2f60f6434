"""A poker hand rebuilt from the journal: `poker_hand` walks the `round/result` payload and the
accepted inputs that dealt and played the hand (as tablectl/history/rounds.py collects them, the
`hand.start` one carrying `at_start`: the seats, stacks and stakes as the hand began) and follows
the cards as the game's engine does: the board; stud's streets, down and up, and Option Alley's
buy; a draw game's five, each seat's draw (from the console, or the reader's discards, burns and
cards), Lowball's straddles and flashed cards; a hand declared dead."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from tablectl.games.poker.flop import BOARD_AFTER
from tablectl.games.poker.hand import (
    Family,
    PhhError,
    PokerHand,
    SeatStart,
    Step,
    game_family,
    is_chinese_result,
)
from tablectl.games.stud.family import STUD_GAMES
from tablectl.rules.draw import HAND_SIZE
from tablectl_base.cards import JOKER, CardError, parse_card
from tablectl_base.money import ZERO


def _dealt_in(start: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The seats dealt in, clockwise from the button's left, the button last, as the table's
    `hand.start` echo said (`dealt_in`)."""
    seats = {int(s["seat"]): s for s in start["seats"]}
    return [seats[int(seat)] for seat in start["dealt_in"]]


def _card(text: object) -> str:
    """A card as tablectl writes it ("ah" -> "Ah", "jkr" -> "JKR"): the console may enter
    either case."""
    try:
        return str(parse_card(text))
    except CardError:
        return str(text)


def _cards_of(texts: Iterable[object] | None) -> list[str]:
    """Cards as tablectl writes them."""
    return [_card(t) for t in texts or ()]


def _kept_on_deal(card: str) -> bool:
    """003 "Lowball" rule 6: a card flashed on the deal is kept if it is a five or lower (the
    joker, the lowest card there is, too)."""
    return card == JOKER or card[:1] in "A2345"


def poker_hand(result: Mapping[str, Any], inputs: Sequence[Mapping[str, Any]]) -> PokerHand:
    """The hand `result` ended, rebuilt from its journaled inputs (each with its `seq`): a flop,
    stud or draw game's. PhhError if its `hand.start` (with the seats as the hand began) is not
    among them, or for a Chinese Poker round (no pot, no betting: not a hand PHH or this
    rebuild knows)."""
    game = str(result.get("game", "?"))
    if is_chinese_result(result) or game_family(game) is None:
        raise PhhError(
            f"PHH has no variant code for {game}: it is not a pot game of the flop, stud or "
            "draw families"
        )
    starts = [i for i in inputs if i.get("type") == "hand.start" and "at_start" in i]
    if not starts:
        raise PhhError(f"hand {result.get('round')}: its hand.start is not in the journal read")
    return _Rebuild(result, starts[-1], inputs).hand()


class _Rebuild:
    """`poker_hand`'s walk through a hand's inputs: the chips of each action, and the cards as
    each family deals them, tracked as the game's engine tracks them (tablectl/games/poker,
    stud and draw engines) so that each step says what the table made of the input."""

    def __init__(
        self,
        result: Mapping[str, Any],
        started: Mapping[str, Any],
        inputs: Sequence[Mapping[str, Any]],
    ) -> None:
        self.result = result
        self.inputs = inputs
        start: Mapping[str, Any] = started["at_start"]
        self.start = start
        self.game = str(result.get("game", start.get("game", "?")))
        family = game_family(self.game)
        assert family is not None
        self.family: Family = family
        chosen = started.get("game")
        self.chosen = str(chosen) if chosen is not None else None
        if self.chosen is None and start.get("game") == "dealers-choice":
            self.chosen = self.game
        order = _dealt_in(start)
        self.stack = {int(s["seat"]): Decimal(s["stack"]) for s in order}
        self.in_round = dict.fromkeys(self.stack, ZERO)
        live = {int(p["seat"]): Decimal(p["amount"]) for p in start["posted"]}
        dead = {int(p["seat"]): Decimal(p["amount"]) for p in start.get("dead") or ()}
        # Lowball's straddles, posted in turn by the seats after the big blind (003 "Lowball"
        # rule 5; rules/betting.py open_round), each what it names or the seat's whole stack
        straddled: dict[int, Decimal] = {}
        for k, amount in enumerate(started.get("straddles") or ()):
            if 2 + k < len(order):
                seat = int(order[2 + k]["seat"])
                # (the table's echo may carry it among the posts already: counted once)
                put = min(Decimal(str(amount)), self.stack[seat])
                straddled[seat] = live.get(seat, put)
        seats: list[SeatStart] = []
        for s in order:
            seat = int(s["seat"])
            posted = live.get(seat, straddled.get(seat, ZERO))
            gone = dead.get(seat, ZERO)
            name = str(s.get("player") or f"p{seat}")
            seats.append(
                SeatStart(seat, name, self.stack[seat], posted, gone, straddled.get(seat, ZERO))
            )
            self.stack[seat] -= posted + gone
            self.in_round[seat] = posted
        self.seats = seats
        self.order = [s.seat for s in seats]
        # The bet to call is the big blind even when it was posted short (rules/betting.py
        # open_round), or the last straddle or a kill blind. A Dealer's Choice hand's big blind
        # may be its game's own, not the table's: the posts say it.
        big = ZERO if self.chosen is not None else Decimal(start["blinds"][1])
        posts = max(self.in_round.values(), default=ZERO)
        self.current = max(big, posts) if len(seats) > 1 else posts
        self.bet_street = 0
        self.steps: list[Step] = []
        self.out: set[int] = set()  # folded, or declared dead
        self.holes: dict[int, list[str]] = {}  # the engine's hole cards (stud: down cards)
        # the flop games' board
        self.board: list[str] = []
        self.pending: list[tuple[str, int, bool]] = []  # board cards of a street not complete
        self.street = 0
        # stud
        self.stud = STUD_GAMES.get(self.game)
        self.up: dict[int, list[str]] = {}  # the up cards each seat shows now
        # each seat's down cards by their place in the deal (0, 1: third street; 2: seventh),
        # as the journal came to know them (the buy's new hole card left out)
        self.slots: dict[int, dict[int, str]] = {}
        self.dealt_up: dict[int, list[str]] = {}
        self.streets = 0  # streets dealt
        self.reading: list[tuple[int, bool]] = []  # a street's reads so far: (seq, by hand)
        self.refs: list[tuple[int, list[tuple[int, str, int]]]] = []  # street steps' cards
        self.bought: set[int] = set()
        self.bought_hole: set[int] = set()
        # the draw games
        self.drawn: dict[int, int] = {}
        self.as_dealt: dict[int, list[str]] = {}  # each seat's five when it asked for cards
        self.before: dict[int, list[str]] = {}  # a seat drawing from the reader: its five then
        self.given: dict[int, list[str]] = {}
        self.thrown: dict[int, list[str]] = {}
        self.dead_cards: set[str] = set()
        self.on_draw_from = self._draw_begins()

    # ---------------------------------------------------------------- the walk

    def hand(self) -> PokerHand:
        """Every input in order, then the hand."""
        for k, i in enumerate(self.inputs):
            kind = i.get("type")
            if kind == "decision":
                self._decision(i)
            elif kind == "hand.dead" and i.get("seat") is not None:
                self._dead(i)
            elif self.family == "flop":
                self._flop(i)
            elif self.family == "stud":
                self._stud(i)
            else:
                self._draw(i, k)
        return self._done()

    def _live(self) -> list[int]:
        """The seats still in, in the order dealt."""
        return [s for s in self.order if s not in self.out]

    def _betting_round(self) -> int:
        """The betting round a decision now belongs to: the flop games' by the board; stud's
        by the streets dealt (Option Alley's buy is one more); a draw game's second once any
        seat has drawn (no action is taken while a draw is due)."""
        if self.family == "flop":
            return self.street
        if self.family == "stud":
            return max(0, self.streets - 1)
        return 1 if self.drawn else 0

    def _decision(self, i: Mapping[str, Any]) -> None:
        """What the action put in and brought the seat's round to: the table's echo says."""
        if int(i["seat"]) not in self.stack or "added" not in i:
            return
        street = self._betting_round()
        if street != self.bet_street:  # a new betting round: nothing in it yet
            self.bet_street = street
            self.in_round = dict.fromkeys(self.in_round, ZERO)
            self.current = ZERO
        seat, action = int(i["seat"]), str(i["action"])
        added, to = Decimal(i["added"]), Decimal(i["to"])
        self.stack[seat] -= added
        self.in_round[seat] = to
        raised, current_before = to > self.current, self.current
        self.current = max(self.current, to)
        if action == "fold":
            self.out.add(seat)
        self.steps.append(
            Step(
                int(i.get("seq", 0)),
                street,
                "action",
                seat=seat,
                action=action,
                added=added,
                to=to,
                all_in=action != "fold" and self.stack[seat] == 0 and added > 0,
                raise_=raised,
                facing=current_before,
            )
        )

    def _dead(self, i: Mapping[str, Any]) -> None:
        """The floor declared a hand dead: it is out, its chips stay in the pot; a dead hand
        that was the last due to buy opens Option Alley's buy round (the engines' `_went_on`)."""
        seat = int(i["seat"])
        self.out.add(seat)
        reason = str(i.get("reason") or "dead hand")
        street = self._betting_round()
        self.steps.append(Step(int(i.get("seq", 0)), street, "dead", seat=seat, note=reason))
        if self.stud is not None and self.stud.buy:
            self._buy_round()

    # ---------------------------------------------------------------- the flop games

    def _flop(self, i: Mapping[str, Any]) -> None:
        """Hole cards, the board street by street, Crazy Pineapple's discards, the muck."""
        kind, seq = i.get("type"), int(i.get("seq", 0))
        by_hand = bool(i.get("by_hand"))
        if kind == "hole.cards":
            self.holes.setdefault(int(i["seat"]), []).extend(map(str, i["cards"]))
        elif kind == "table.card" and i.get("zone") == "seat" and i.get("seat") is not None:
            self.holes.setdefault(int(i["seat"]), []).append(str(i["card"]))
        elif kind == "table.card" and i.get("zone") == "muck":
            self.steps.append(
                Step(seq, self.street, "muck", cards=(str(i["card"]),), by_hand=by_hand)
            )
        elif kind == "hole.discard":
            seat = int(i["seat"])
            # no card at a table without a reader: nobody saw it
            thrown: tuple[str, ...] = () if i.get("card") is None else (str(i["card"]),)
            self.steps.append(Step(seq, self.street, "discard", seat=seat, cards=thrown))
        elif kind in ("board.cards", "table.card"):
            cards = i["cards"] if kind == "board.cards" else [i["card"]]
            self.pending += [(str(c), seq, by_hand) for c in cards]
            street = self.street
            if (
                street < len(BOARD_AFTER)
                and len(self.board) + len(self.pending) >= BOARD_AFTER[street]
            ):
                pending, self.pending = self.pending, []
                self.board += [c for c, _, _ in pending]
                self.steps.append(
                    Step(
                        pending[-1][1],
                        street + 1,
                        "board",
                        cards=tuple(c for c, _, _ in pending),
                        by_hand=any(h for _, _, h in pending),
                        first_seq=pending[0][1],
                    )
                )
                self.street += 1

    # ---------------------------------------------------------------- stud

    def _stud(self, i: Mapping[str, Any]) -> None:
        """Down cards, each street's cards (the console's `up.cards` and `down.cards`, or the
        reader's card by card), Option Alley's buy, the muck."""
        assert self.stud is not None
        kind, seq = i.get("type"), int(i.get("seq", 0))
        if kind == "hole.cards":
            seat = int(i["seat"])
            slots = self.slots.setdefault(seat, {})
            for c in _cards_of(i["cards"]):
                self.holes.setdefault(seat, []).append(c)
                if seat not in self.bought_hole:  # (after a buy of the hole card: the new one)
                    # in the order dealt, into the places not yet known (a seventh card may
                    # have come with `down.cards`)
                    slots[next(k for k in range(len(slots) + 1) if k not in slots)] = c
        elif kind == "up.cards":
            given = [(int(x["seat"]), _card(x["card"])) for x in i["cards"]]
            for seat, c in given:
                self.up.setdefault(seat, []).append(c)
                self.dealt_up.setdefault(seat, []).append(c)
            self._street_dealt(seq, [s for s, _ in given], seq, by_hand=False)
        elif kind == "down.cards":
            known = [(int(x["seat"]), _card(x["card"])) for x in i.get("cards") or ()]
            place = self._downs_before(self.streets)
            for seat, c in known:
                self.holes.setdefault(seat, []).append(c)
                self.slots.setdefault(seat, {})[place] = c
            seats = [s for s, _ in known] or self._live()
            self._street_dealt(seq, seats, seq, by_hand=False)
        elif kind == "table.card" and i.get("zone") == "seat" and i.get("seat") is not None:
            self._stud_read(int(i["seat"]), _card(i["card"]), seq, bool(i.get("by_hand")))
        elif kind == "table.card":
            cards = (_card(i["card"]),)
            street = self._betting_round()
            self.steps.append(
                Step(seq, street, "muck", cards=cards, by_hand=bool(i.get("by_hand")))
            )
        elif kind == "option.buy":
            self._buy(i, seq)

    def _stud_read(self, seat: int, card: str, seq: int, by_hand: bool) -> None:
        """A card the reader placed at a seat: down or up by the deal (its k-th card's face);
        the street is dealt once every seat still in has its cards."""
        assert self.stud is not None
        faces = self.stud.faces()
        have = len(self.holes.get(seat, ())) + len(self.up.get(seat, ()))
        if have >= len(faces):
            return
        if faces[have] == "up":
            self.up.setdefault(seat, []).append(card)
            self.dealt_up.setdefault(seat, []).append(card)
        else:
            self.holes.setdefault(seat, []).append(card)
            self.slots.setdefault(seat, {})[faces[:have].count("down")] = card
        self.reading.append((seq, by_hand))
        if self.streets >= len(self.stud.streets):
            return
        want = sum(len(st) for st in self.stud.streets[: self.streets + 1])
        live = self._live()
        if all(len(self.holes.get(s, ())) + len(self.up.get(s, ())) >= want for s in live):
            reads, self.reading = self.reading, []
            self._street_dealt(seq, live, reads[0][0], by_hand=any(h for _, h in reads))

    def _street_dealt(self, seq: int, seats: Sequence[int], first: int, *, by_hand: bool) -> None:
        """A street is out: its step (each seat's cards of the street, resolved at the end,
        when every down card the journal holds is known) and its betting round."""
        assert self.stud is not None
        s = self.streets
        if s >= len(self.stud.streets):
            return
        faces = self.stud.streets[s]
        downs_before = self._downs_before(s)
        ups_before = sum(f == "up" for st in self.stud.streets[:s] for f in st)
        cards: list[tuple[int, str, int]] = []
        for seat in seats:
            d = u = 0
            for face in faces:
                if face == "down":
                    cards.append((seat, "down", downs_before + d))
                    d += 1
                else:
                    cards.append((seat, "up", ups_before + u))
                    u += 1
        self.refs.append((len(self.steps), cards))
        self.steps.append(Step(seq, s, "street", by_hand=by_hand, first_seq=first))
        self.streets += 1

    def _downs_before(self, street: int) -> int:
        """How many down cards a seat is dealt before `street` (0: the first)."""
        assert self.stud is not None
        return sum(f == "down" for st in self.stud.streets[:street] for f in st)

    def _buy(self, i: Mapping[str, Any], seq: int) -> None:
        """Option Alley: a seat stands pat, or throws an up card (its new card up) or its
        hole card (the new one down); after the last seat's buy, the buy's betting round."""
        assert self.stud is not None
        seat = int(i["seat"])
        discard, new = i.get("discard"), i.get("card")
        card = () if new is None else (_card(new),)
        street = len(self.stud.streets)
        if discard is None:
            step = Step(seq, street, "buy", seat=seat, note="")
        elif discard == "hole":
            gone = tuple(self.holes.get(seat, ()))
            self.holes[seat] = list(card)
            self.bought_hole.add(seat)
            step = Step(seq, street, "buy", seat=seat, note="hole", thrown=gone, cards=card)
        else:
            out = _card(discard)
            self.up[seat] = [c for c in self.up.get(seat, ()) if c != out] + list(card)
            step = Step(seq, street, "buy", seat=seat, note="up", thrown=(out,), cards=card)
        self.steps.append(step)
        self.bought.add(seat)
        self._buy_round()

    def _buy_round(self) -> None:
        """Option Alley: once every seat still in has had its buy, the buy's betting round."""
        assert self.stud is not None
        all_bought = bool(self.bought) and set(self._live()) <= self.bought
        if all_bought and self.streets == len(self.stud.streets):
            self.streets += 1

    # ---------------------------------------------------------------- the draw games

    def _draw_begins(self) -> int:
        """The input from which a card in the muck is read on the draw (a discard or a burn),
        not a folded hand's: after the first round's last action, in a hand that drew."""
        first = next((k for k, i in enumerate(self.inputs) if i.get("type") == "draw"), None)
        if first is None:
            return len(self.inputs)
        acted = [k for k, i in enumerate(self.inputs[:first]) if i.get("type") == "decision"]
        return acted[-1] + 1 if acted else 0

    def _draw(self, i: Mapping[str, Any], k: int) -> None:
        """The five dealt, each seat's draw (the console's, or the reader's discards, burns and
        cards), a five entered after the draw, Lowball's flashed cards, a sixth card dealt."""
        kind, seq = i.get("type"), int(i.get("seq", 0))
        by_hand = bool(i.get("by_hand"))
        if kind == "hole.cards":
            seat, cards = int(i["seat"]), _cards_of(i["cards"])
            self.holes[seat] = cards
            if seat in self.drawn:  # its hand after the draw
                self.before.pop(seat, None)
                self.thrown.pop(seat, None)
                self.steps.append(Step(seq, 1, "five", seat=seat, cards=tuple(cards)))
        elif kind == "draw":
            self._drew(i, seq)
        elif kind == "card.flashed":
            self._flashed(i, seq)
        elif kind == "table.card" and i.get("zone") == "seat" and i.get("seat") is not None:
            seat, card = int(i["seat"]), _card(i["card"])
            if seat in self.drawn:  # a card it asked for (or a replacement), on the draw
                if seat in self.before:
                    self.given.setdefault(seat, []).append(card)
                    now = self._completed(seat)
                else:
                    self.holes.setdefault(seat, []).append(card)
                    whole = self.holes[seat]
                    now = tuple(whole) if len(whole) == HAND_SIZE else ()
                step = Step(seq, 1, "drawn", seat=seat, cards=(card,), now=now, by_hand=by_hand)
                self.steps.append(step)
            elif len(self.holes.get(seat, ())) >= HAND_SIZE:  # taken back, dead (rule 13)
                self.dead_cards.add(card)
                self.steps.append(Step(seq, 0, "sixth", seat=seat, cards=(card,), by_hand=by_hand))
            else:
                self.holes.setdefault(seat, []).append(card)
        elif kind == "table.card":
            self._draw_muck(_card(i["card"]), seq, by_hand, on_draw=k >= self.on_draw_from)

    def _drew(self, i: Mapping[str, Any], seq: int) -> None:
        """A seat's draw: its count; its new five where the console gives the discards and
        the cards; else, from the reader, once its discards and cards are read."""
        seat, count = int(i["seat"]), int(i["count"])
        discard, given = _cards_of(i.get("discard")), _cards_of(i.get("cards"))
        held = list(self.holes.get(seat, ()))
        self.as_dealt[seat] = held
        self.drawn[seat] = count
        now: tuple[str, ...] = ()
        if count == 0:
            now = tuple(held) if len(held) == HAND_SIZE else ()
        elif given:
            if len(held) == HAND_SIZE and len(discard) == count:
                self.holes[seat] = [c for c in held if c not in discard] + given
                now = tuple(self.holes[seat])
            else:
                self.holes.pop(seat, None)
        else:
            thrown = discard or self.thrown.get(seat, [])
            self.holes.pop(seat, None)
            self.before[seat] = held
            self.thrown[seat] = list(thrown)
            now = self._completed(seat)
        self.steps.append(
            Step(
                seq,
                1,
                "draw",
                seat=seat,
                count=count,
                thrown=tuple(discard),
                cards=tuple(given),
                now=now,
            )
        )

    def _completed(self, seat: int) -> tuple[str, ...]:
        """The seat's new five once every card it asked for and its discards are known (the
        engine's `_completed`), else nothing."""
        if seat not in self.before:
            return ()
        before, given = self.before[seat], self.given.get(seat, [])
        thrown, count = self.thrown.get(seat, []), self.drawn[seat]
        if len(before) != HAND_SIZE or len(given) != count or len(thrown) != count:
            return ()
        self.holes[seat] = [c for c in before if c not in thrown] + given
        del self.before[seat]
        self.thrown.pop(seat, None)
        return tuple(self.holes[seat])

    def _draw_muck(self, card: str, seq: int, by_hand: bool, *, on_draw: bool) -> None:
        """A card read in the muck: on the draw a discard of a seat whose draw is not yet
        filled, or a burn when it is no seat's; otherwise (a fold) a card to the muck."""
        street = self._betting_round()
        if not on_draw or card in self.dead_cards:
            self.steps.append(Step(seq, street, "muck", cards=(card,), by_hand=by_hand))
            return
        for seat in self._live():
            pending = seat not in self.drawn or seat in self.before
            held = self.before[seat] if seat in self.before else self.holes.get(seat, [])
            if card in held:
                if not pending or card in self.thrown.get(seat, ()):
                    break
                self.thrown.setdefault(seat, []).append(card)
                now = self._completed(seat)
                self.steps.append(
                    Step(seq, 1, "discard", seat=seat, cards=(card,), now=now, by_hand=by_hand)
                )
                return
        else:
            in_play = {c for cards in (*self.holes.values(), *self.given.values()) for c in cards}
            if card not in in_play:
                self.steps.append(Step(seq, 1, "burn", cards=(card,), by_hand=by_hand))
                return
        self.steps.append(Step(seq, street, "muck", cards=(card,), by_hand=by_hand))

    def _flashed(self, i: Mapping[str, Any], seq: int) -> None:
        """Lowball: a card the dealer exposed (or found boxed): kept on the deal if five or
        lower and not boxed (rule 6), otherwise dead, out of the seat's cards (rules 6-9)."""
        seat, card = int(i["seat"]), _card(i["card"])
        when, boxed = str(i.get("when") or "deal"), bool(i.get("boxed"))
        kept = when == "deal" and _kept_on_deal(card) and not boxed
        if not kept:
            self.dead_cards.add(card)
            if card in self.given.get(seat, ()):
                self.given[seat].remove(card)
            elif card in self.holes.get(seat, ()):
                self.holes[seat].remove(card)
        street = self._betting_round()
        step = Step(
            seq, street, "flashed", seat=seat, cards=(card,), note=when, kept=kept, boxed=boxed
        )
        self.steps.append(step)

    # ---------------------------------------------------------------- the hand

    def _done(self) -> PokerHand:
        """The hand: stud's streets with every down card the journal came to hold."""
        steps = self.steps
        for at, cards in self.refs:
            dealt = []
            for seat, face, k in cards:
                if face == "down":
                    card = self.slots.get(seat, {}).get(k, "")
                else:
                    ups = self.dealt_up.get(seat, [])
                    card = ups[k] if k < len(ups) else ""
                dealt.append((seat, face, card))
            steps[at] = replace(steps[at], dealt=tuple(dealt))
        holes: Mapping[int, Sequence[str]]
        if self.family == "stud":
            holes = {  # (a place not known: ??)
                seat: [slots.get(k, "??") for k in range(max(slots) + 1)]
                for seat, slots in self.slots.items()
                if slots
            }
            final = {
                s: (*self.holes.get(s, ()), *self.up.get(s, ()))
                for s in self.order
                if s in self.holes or s in self.up
            }
        elif self.family == "draw":
            holes = {s: self.as_dealt.get(s, self.holes.get(s, [])) for s in self.order}
            final = {s: tuple(c) for s, c in self.holes.items() if len(c) == HAND_SIZE}
        else:
            holes, final = self.holes, {}
        return PokerHand(
            number=int(self.result["round"]),
            game=self.game,
            button=int(self.result["button"]),
            result=self.result,
            seats=tuple(self.seats),
            holes={seat: tuple(cards) for seat, cards in holes.items() if cards},
            steps=tuple(steps),
            board=tuple(self.board),
            start=self.start,
            family=self.family,
            up={seat: tuple(cards) for seat, cards in self.dealt_up.items()},
            final=final,
            chosen=self.chosen,
        )
