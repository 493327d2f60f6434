"""The surveillance feed: from the table's accepted inputs, the shoe's exact remaining composition,
the live figures of every wager after each card (`surveillance/odds`) and the alerts surveillance
asks for (`surveillance/alert`): a wager whose expectation rises past its threshold, a seat whose
stakes follow a wager's expectation (a counter), a card the shoe cannot hold.

Pure and deterministic, modelled on the delayed broadcast feed (tablectl/broadcast.py): it is
given each journal record's number and time with the echoes of the inputs the table played with
it, every field included (`Table.take_unhidden`: a burn's card, the hole card) and the rounds
it voided (`feed_inputs`), and the rules in force, and returns the messages. The daemon calls
it off the hot path (tablectl/surveillance/worker.py); `tablectl replay --surveillance` calls it
in line, and gives the same bytes.

What leaves the shoe is what the table played: a card read twice is not dealt twice, a card past
a gap counts when the table deals it, a card the console keyed and the table refused never left
the shoe. `shoe.new` puts in a full shoe of the rules' decks (`live.full_shoe`); before the first
`shoe.new` the feed has seen (a journal's start, or after a restart of the daemon) nothing is
known and nothing is published. A card the composition cannot hold (a ninth 8 of spades in an
8-deck shoe, a misread) is an alert, and the figures stop until the next `shoe.new`.

Nothing here names a game: the wagers and their figures are the live figures' own
(tablectl/protection/, docs/protection.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from tablectl.outputs import PAYLOAD_VERSION, OutboxRow
from tablectl.surveillance.counter import CounterAlert, CounterWatch
from tablectl.surveillance.payloads import DIGITS, RHO_DIGITS, decimal_text, encode, figure
from tablectl_base.cards import RANKS, parse_card

if TYPE_CHECKING:
    from tablectl.config.sections import Protection
    from tablectl.games.table_rules import Rules
    from tablectl.protection.live import LiveFigures
    from tablectl.protection.shoe import ShoeLeft

ODDS = "surveillance/odds"
ALERT = "surveillance/alert"
TOPICS = (ODDS, ALERT)
"""The feed's topics, below the table's base (only the surveillance role reads them)."""
CARDS = ("shoe.card", "shoe.burn")


class Message(NamedTuple):
    """One surveillance message: its topic below the table's base, and its payload."""

    suffix: str
    payload: bytes


@dataclass(slots=True)
class SeatRound:
    """One seat's wagers of the round being bet: stake per wager, and each wager's expectation
    when the seat bet on it (else when it first bet this round)."""

    stakes: dict[str, Decimal] = field(default_factory=dict)
    expectations: dict[str, Fraction] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WagerNote:
    """A wager as the shoe stood when it was placed (`tablectl recall --shoe`)."""

    record: int
    round: int | None
    seat: int
    spot: str
    amount: str
    figures: LiveFigures | None


class SurveillanceFeed:
    """The shoe, its figures and the alerts, one journal record at a time (`add`)."""

    def __init__(self, settings: Protection, table: str, *, notes: bool = False) -> None:
        self.settings = settings
        self.table = table
        self.shoe: ShoeLeft | None = None  # None: not known (no shoe.new yet, or a bad card)
        self.shoe_record: int | None = None  # the record that put the shoe in
        self.figures: LiveFigures | None = None
        self.above: set[str] = set()  # wagers above their threshold now (told once a rise)
        wagers = settings.counter_wagers
        self.counter = CounterWatch(
            Fraction(settings.counter_threshold),
            settings.counter_min_rounds,
            None if wagers is None else frozenset(wagers),
        )
        self.betting: dict[int, SeatRound] = {}  # this round's wagers by seat
        self.betting_round: int | None = None
        self.players: dict[int, str] = {}  # the player id each seat last bet under
        self.notes: list[WagerNote] | None = [] if notes else None  # for recall

    # -- the one entry point ---------------------------------------------------------------

    def add(
        self, record: int, ts: str, echoes: Sequence[dict[str, Any]], rules: Rules
    ) -> list[Message]:
        """The messages after journal record `record` (journaled at `ts`), whose played
        inputs' whole echoes are `echoes`, under `rules`. Nothing for a game without live
        figures (`live.live_game`)."""
        from tablectl.protection.live import live_game

        if not echoes or not live_game(rules):
            return []
        out: list[dict[str, Any]] = []
        for echo in echoes:
            kind = echo.get("type")
            if kind == "shoe.new":
                out += self._new_shoe(record, echo, rules)
            elif kind in CARDS:
                out += self._dealt(record, echo, rules)
            elif kind == "wager":
                out += self._wagered(record, echo)
            elif kind == "round.void":
                self._voided(echo)
        head = {"table": self.table, "ts": ts, "v": PAYLOAD_VERSION, "record": record}
        return [
            Message(fields.pop("topic"), encode({**head, "part": part, **fields}))
            for part, fields in enumerate(out, start=1)
        ]

    # -- the shoe ----------------------------------------------------------------------------

    def _new_shoe(self, record: int, echo: dict[str, Any], rules: Rules) -> list[dict[str, Any]]:
        """A full shoe of the rules' decks (`live.full_shoe`): the last shoe's samples done
        with."""
        from tablectl.protection.live import full_shoe

        out = self._close_betting()
        self.shoe, self.shoe_record = full_shoe(rules), record
        self.counter.new_shoe()
        self.above.clear()
        return out + self._figures_after(echo, rules)

    def _dealt(self, record: int, echo: dict[str, Any], rules: Rules) -> list[dict[str, Any]]:
        """A card out of the shoe: the round's wagers are in (the counter's samples taken),
        the figures worked out again; a card the shoe cannot hold loses the composition."""
        out = self._close_betting()
        if self.shoe is None:
            return out
        try:
            self.shoe = self.shoe.without(parse_card(echo.get("card")))
        except ValueError as exc:
            self.shoe, self.figures = None, None
            self.above.clear()
            return [
                *out,
                {
                    "topic": ALERT,
                    "kind": "composition-lost",
                    "reason": f"{exc}: the composition is not known until the next shoe.new",
                    "round": echo.get("round"),
                    "after": _after(echo),
                },
            ]
        return out + self._figures_after(echo, rules)

    def _figures_after(self, echo: dict[str, Any], rules: Rules) -> list[dict[str, Any]]:
        """The live figures of the shoe as it is now, and the alerts of wagers that rose past
        their threshold with this card."""
        from tablectl.protection.live import live_figures

        assert self.shoe is not None
        figures = self.figures = live_figures(rules, self.shoe)
        after = _after(echo)
        odds: dict[str, Any] = {
            "topic": ODDS,
            "shoe_record": self.shoe_record,
            "round": echo.get("round"),
            "after": after,
            "cards_left": figures.cards_left,
            "counts": dict(zip(RANKS, self.shoe.counts, strict=True)),
            "digits": DIGITS,
            "wagers": [
                {
                    "wager": w.wager,
                    "expectation": figure(w.expectation),
                    "full_shoe": figure(w.full_shoe),
                }
                for w in figures.wagers
            ],
            "running_count": figures.running_count,
            "true_count": None if figures.true_count is None else figure(figures.true_count),
        }
        return [odds, *self._threshold_alerts(echo, figures)]

    def _threshold_alerts(self, echo: dict[str, Any], figures: LiveFigures) -> list[dict[str, Any]]:
        """A wager whose expectation is now above its threshold and was not after the card
        before: told once a rise (docs/surveillance.md, "Alerts")."""
        out: list[dict[str, Any]] = []
        for w in figures.wagers:
            threshold = threshold_of(self.settings, w.wager, w.full_shoe)
            if w.expectation <= threshold:
                self.above.discard(w.wager)
                continue
            if w.wager in self.above:
                continue
            self.above.add(w.wager)
            out.append(
                {
                    "topic": ALERT,
                    "kind": "wager-favourable",
                    "wager": w.wager,
                    "expectation": figure(w.expectation),
                    "threshold": figure(threshold),
                    "full_shoe": figure(w.full_shoe),
                    "cards_left": figures.cards_left,
                    "digits": DIGITS,
                    "round": echo.get("round"),
                    "after": _after(echo),
                }
            )
        return out

    # -- wagers and the counter --------------------------------------------------------------

    def _wagered(self, record: int, echo: dict[str, Any]) -> list[dict[str, Any]]:
        """A wager the table took: its stake, with the figures of the shoe as it stands."""
        seat, spot, round_no = echo.get("seat"), echo.get("spot"), echo.get("round")
        try:
            amount = Decimal(str(echo.get("amount")))
        except InvalidOperation:
            return []
        if not isinstance(seat, int) or not isinstance(spot, str):
            return []
        out: list[dict[str, Any]] = []
        if isinstance(round_no, int) and round_no != self.betting_round:
            out = self._close_betting()  # a round that ended before any card: its samples
            self.betting_round = round_no
        if isinstance(echo.get("player"), str):
            self.players[seat] = echo["player"]
        if self.notes is not None:
            self.notes.append(
                WagerNote(record, round_no, seat, spot, str(echo.get("amount")), self.figures)
            )
        if self.figures is None:
            return out
        bets = self.betting.setdefault(seat, SeatRound())
        bets.stakes[spot] = bets.stakes.get(spot, Decimal(0)) + amount
        for w in self.figures.wagers:  # when it bet on the wager, else when it first bet
            if w.wager == spot or w.wager not in bets.expectations:
                bets.expectations[w.wager] = w.expectation
        return out

    def _close_betting(self) -> list[dict[str, Any]]:
        """The round's wagers are all in: each seat's round is a sample of the counter watch,
        and a seat whose stakes now follow a wager's expectation is an alert."""
        betting, round_no = self.betting, self.betting_round
        self.betting, self.betting_round = {}, None
        if round_no is None:
            return []
        found: list[CounterAlert] = []
        for seat in sorted(betting):
            bets = betting[seat]
            found += self.counter.add_round(round_no, seat, bets.stakes, bets.expectations)
        return [self._counter_alert(a, round_no) for a in found]

    def _counter_alert(self, alert: CounterAlert, round_no: int) -> dict[str, Any]:
        corr = alert.correlation
        return {
            "topic": ALERT,
            "kind": "counter",
            "seat": alert.seat,
            "player": self.players.get(alert.seat),
            "wager": alert.wager,
            "rho": decimal_text(Fraction(corr.rho), RHO_DIGITS),
            "rounds": corr.n,
            "threshold": decimal_text(Fraction(self.settings.counter_threshold), RHO_DIGITS),
            "min_rounds": self.settings.counter_min_rounds,
            "shoe_record": self.shoe_record,
            "round": round_no,
        }

    def _voided(self, echo: dict[str, Any]) -> None:
        """A voided round returns every wager: none of its stakes is a sample (`feed_inputs`)."""
        round_no = echo.get("round")
        if round_no == self.betting_round:
            self.betting, self.betting_round = {}, None
        if isinstance(round_no, int):
            self.counter.void_round(round_no)


def feed_inputs(whole: list[dict[str, Any]], rows: Sequence[OutboxRow]) -> list[dict[str, Any]]:
    """What the feed reads of a record: its played inputs' whole echoes (`Table.take_unhidden`),
    and a `round.void` for each round its messages void. A void is no input the table echoes
    (its `round/result`, `void: true`, says it), and the stakes of a voided round were returned,
    so the counter must not count them. Cheap: only a `round/result` row is looked into."""
    out = whole
    for row in rows:
        if row.topic.endswith("/round/result") and b'"void":true' in row.payload:
            voided = json.loads(row.payload)
            if voided.get("void") is True:
                out = [*out, {"type": "round.void", "round": voided.get("round")}]
    return out


def threshold_of(settings: Protection, wager: str, full_shoe: Fraction) -> Fraction:
    """The expectation above which `wager` is an alert: the config's own figure for it, else
    zero for a wager that favours the player-dealer off the top (`full_shoe` below zero: above
    it, the bank that pays the wager is the one at a disadvantage), else `margin` above its
    full-shoe figure (a wager the player holds an edge on from the first card, as a banker line
    paid 1 to 1 with no commission: only a composition better than the usual is news)."""
    given = settings.thresholds.get(wager)
    if given is not None:
        return Fraction(given)
    if full_shoe < 0:
        return Fraction(0)
    return full_shoe + Fraction(settings.margin)


def _after(echo: dict[str, Any]) -> dict[str, Any]:
    """The input the figures follow: its type, its card, and its echo's `seq` on `event`."""
    out: dict[str, Any] = {"type": echo.get("type"), "seq": echo.get("seq")}
    if "card" in echo:
        out["card"] = echo["card"]
    return out
