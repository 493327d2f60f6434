"""One poker betting round, pure: the players, whose turn it is, the actions and when the round
ends; the betting structures are in `tablectl.rules.betting_structures`, the posts that open a
hand's first round in `tablectl.rules.betting_posts`.

A round is a frozen `BettingRound`. Each action has a `verify_x` that raises
`BettingError(reason, rule)` naming the rule it enforces, a `can_x`, and an `x` that returns the
next state, as in pokerkit: `check`, `call`, `fold`, `bet`, `raise_to` and `all_in`, each by the
player whose turn it is (`verify_turn(seat)` refuses anyone else). How much a bet or raise may
be is the structure's, a small policy object (`Structure`); everything else (whose turn, what is
owed, when the round ends) is the round's and the same under every structure.

Players are listed clockwise from the first seat left of the dealer button, so the button is
last. Later rounds open from a finished one (`BettingRound.next_round`). Who holds the button
and who owes which blind (its movement, dead and missed blinds, the kill) is the engine's; with
two players the documents' words put the small blind left of the button and the big blind on it
(R53).

Rules and where they come from:
- the first round starts left of the last blind, which acts last; later rounds start with the
  first player still in left of the button (004 "Texas Hold'em: Action and Distribution of
  Cards"; 003 "Texas Hold-Em (High)");
- a call matches the bet, the big blind in the first round (R51); a check is allowed only with
  nothing to call, which gives the big blind its option when everyone has called; the round ends
  when everyone still in has acted and matched the bet or is all-in, or all but one have folded
  (004 "Texas Hold'em: Dealing Procedures and Round of Play");
- a raise adds at least the previous bet or raise (R49): 004 "Texas Hold'em: Dealing Procedures
  and Round of Play" says only that a re-raise is "a wager larger than the raise", and measuring
  it by the last raise's size is the card rooms' usual reading (fixed limit adds exactly one bet);
- a short all-in (less than a full bet or raise) raises the amount to call but does not count
  toward the cap and does not reopen the raising to players who already acted, unless the
  all-ins since they acted add up to a full raise; a full one does both (R50; its refusals cite
  `SHORT_ALL_IN`, the reading first written under R43);
- no one bets or raises when no other player still in could put in more than the bet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Literal, Protocol

from tablectl_base.money import ZERO, MoneyError, fmt, parse_money

ACTION_ORDER = '004 "Texas Hold\'em: Action and Distribution of Cards"'
ROUND_OF_PLAY = '004 "Texas Hold\'em: Dealing Procedures and Round of Play"'
RAISE_CAP = "R43"
FIXED_LIMIT_RULE = (
    '003 "Crazy Pineapple High-Low Split: Description of Table Used and Total Number of Seated '
    'Positions"'
)
SPREAD_LIMIT_RULE = "R43"
SPREAD_ROUND_CAP = 'R43; 004 "Collection Procedures" ("Poker Games")'
BETTING_LIMITS = '003 "Betting Limits"'
STRADDLE_RULE = '003 "Lowball" (Lowball Rules, rule 5)'
KILL_RULE = '003 "Betting Limits" (Kill Rules)'
SHORT_ALL_IN = "R43"  # R50, the short all-in rule, first written down as a reading under R43
TABLE_STAKES = "table stakes"  # a player bets only the chips in front of them
MONEY = "money"

Verb = Literal[
    "ante",
    "blind",
    "dead",
    "kill",
    "straddle",
    "check",
    "call",
    "bet",
    "raise",
    "fold",
    "dead-hand",
]


class BettingError(ValueError):
    """An action or a round the rules do not allow; `rule` names the rule that refused it."""

    def __init__(self, reason: str, rule: str) -> None:
        super().__init__(f"{reason} ({rule})")
        self.reason = reason
        self.rule = rule


def usd(amount: Decimal) -> str:
    """An amount as a floor person says it: "$4.00"."""
    return f"${fmt(amount)}"


def as_money(value: Decimal, what: str, *, positive: bool = False) -> Decimal:
    """`value` as money (whole cents, not negative, more than zero if `positive`), else say why."""
    try:
        return parse_money(value, allow_zero=not positive)
    except MoneyError as e:
        raise BettingError(f"{what}: {e}", MONEY) from None


@dataclass(frozen=True)
class Player:
    """One player in the hand: chips behind, chips put in this round and this hand."""

    seat: int
    stack: Decimal
    in_round: Decimal = ZERO  # blinds, straddles, bets, calls and raises of this round
    in_hand: Decimal = ZERO  # everything put in this hand: antes, earlier rounds, this round
    dead: Decimal = ZERO  # of `in_hand`, a dead blind: the pot's, matching no one's bet
    folded: bool = False
    acted: bool = False  # acted since the raising was last opened to them (a full bet or raise)

    @property
    def all_in(self) -> bool:
        """Still in with no chips behind: bets no more, but plays for the pots."""
        return not self.folded and self.stack == 0

    @property
    def can_act(self) -> bool:
        """Still in with chips behind."""
        return not self.folded and self.stack > 0


@dataclass(frozen=True)
class Action:
    """One thing done in the round, for the hand history."""

    seat: int
    verb: Verb
    added: Decimal  # chips moved from the stack by this action
    to: Decimal  # the seat's chips in this round after it
    all_in: bool = False


def _answerable(players: Sequence[Player], i: int, bet: Decimal) -> bool:
    """Whether anyone but player `i` could answer a raise: still in with more than `bet` in all."""
    return any(not q.folded and q.in_round + q.stack > bet for j, q in enumerate(players) if j != i)


def _owes_action(players: Sequence[Player], i: int, bet: Decimal) -> bool:
    """Whether player `i` must still act: short of the bet, or not yet acted with someone left
    who could answer a raise (a player alone with chips among all-ins is not asked again)."""
    p = players[i]
    if not p.can_act or sum(not q.folded for q in players) < 2:
        return False
    if p.in_round < bet:
        return True
    return not p.acted and _answerable(players, i, bet)


def next_actor(players: Sequence[Player], start: int, bet: Decimal) -> int | None:
    """The first player clockwise from index `start` who must act, or None: the round is over."""
    n = len(players)
    for k in range(n):
        i = (start + k) % n
        if _owes_action(players, i, bet):
            return i
    return None


@dataclass(frozen=True)
class BettingRound:
    """One betting round: the players, whose turn it is and the bet they must match.

    `current_bet` is what every player still in must have in this round; `full_bet` is the bet as
    the last full bet or raise left it (a short all-in may stand above it); `last_raise` is the
    size of the largest full bet or raise, the least the next raise adds; `raises` counts full
    raises (and straddles) for the fixed-limit cap.
    """

    structure: Structure
    street: int
    players: tuple[Player, ...]
    actor: int | None
    current_bet: Decimal
    full_bet: Decimal
    last_raise: Decimal
    raises: int = 0
    actions: tuple[Action, ...] = ()

    # ------------------------------------------------------------------ views

    @property
    def complete(self) -> bool:
        """No one owes an action: the round is over."""
        return self.actor is None

    @property
    def hand_over(self) -> bool:
        """All but one have folded: that player takes the pot unshown."""
        return self.players_in <= 1

    @property
    def turn(self) -> int | None:
        """The seat whose turn it is, or None when the round is over."""
        return None if self.actor is None else self.players[self.actor].seat

    @property
    def players_in(self) -> int:
        """Players who have not folded (all-in players included)."""
        return sum(not p.folded for p in self.players)

    @property
    def pot(self) -> Decimal:
        """Every chip put in this hand, this round's bets included."""
        return sum((p.in_hand for p in self.players), ZERO)

    @property
    def folded_seats(self) -> tuple[int, ...]:
        """Seats that have folded, in table order."""
        return tuple(p.seat for p in self.players if p.folded)

    @property
    def all_in_seats(self) -> tuple[int, ...]:
        """Seats all-in, in table order."""
        return tuple(p.seat for p in self.players if p.all_in)

    def player(self, seat: int) -> Player:
        """The player in `seat`."""
        for p in self.players:
            if p.seat == seat:
                return p
        raise BettingError(f"seat {seat} is not in this hand", ACTION_ORDER)

    @property
    def to_call(self) -> Decimal:
        """What the player to act adds to call: the bet less their chips in, at most the stack."""
        if self.actor is None:
            return ZERO
        p = self.players[self.actor]
        return min(self.current_bet - p.in_round, p.stack)

    @property
    def min_bet_or_raise_to(self) -> Decimal | None:
        """The least total a bet or raise brings the player to act to (their whole stack when
        that is short of a full one), or None if they may not bet or raise."""
        span = self._span()
        return None if span is None else span[0]

    @property
    def max_bet_or_raise_to(self) -> Decimal | None:
        """The greatest total a bet or raise may bring the player to act to, or None."""
        span = self._span()
        return None if span is None else span[1]

    def _span(self) -> tuple[Decimal, Decimal] | None:
        """The legal bet-or-raise totals of the player to act, if any."""
        try:
            return self._wager_span()
        except BettingError:
            return None

    # ------------------------------------------------------------------ checks shared by actions

    def verify_turn(self, seat: int) -> None:
        """Refuse an action by `seat` out of turn (004 "Texas Hold'em: Action and Distribution
        of Cards": the action goes clockwise)."""
        p = self._acting()
        if p.seat != seat:
            self.player(seat)
            raise BettingError(f"it is seat {p.seat}'s turn, not seat {seat}'s", ACTION_ORDER)

    def _acting(self) -> Player:
        """The player to act; refused when the round is over."""
        if self.actor is None:
            why = "all but one have folded" if self.hand_over else "every bet is matched"
            raise BettingError(f"the betting round is over: {why}", ROUND_OF_PLAY)
        return self.players[self.actor]

    def _wager_span(self) -> tuple[Decimal, Decimal]:
        """The totals the player to act may bet or raise to: the structure's, cut by the stack
        (an all-in below the least is a short all-in); refused when raising is not open."""
        p = self._acting()
        if not _answerable(self.players, self._acting_index(), self.current_bet):
            raise BettingError(
                "no other player still in has chips over the bet: no one could call a raise",
                ROUND_OF_PLAY,
            )
        if self.current_bet > 0:
            capped = self.structure.closed(self)
            if capped is not None:
                raise capped
            if p.acted and self.current_bet - p.in_round < self.last_raise:
                raise BettingError(
                    f"seat {p.seat} already acted and faces only "
                    f"{usd(self.current_bet - p.in_round)} of all-ins since, less than a full "
                    f"raise of {usd(self.last_raise)}: call or fold",
                    SHORT_ALL_IN,
                )
        everything = p.in_round + p.stack
        if everything <= self.current_bet:
            raise BettingError(
                f"seat {p.seat} has {usd(p.stack)} behind, not more than the call: call or fold",
                TABLE_STAKES,
            )
        least, most = self.structure.bounds(self, p)
        low, high = min(least, everything), min(most, everything)
        if low > high:
            raise BettingError(
                f"no raise fits: the least is {usd(least)} and the most {usd(most)}",
                self.structure.rule,
            )
        return low, high

    def _verify_wager(self, to: Decimal, verb: Verb) -> Player:
        """Refuse a bet or raise to `to` that the round or the structure does not allow."""
        p = self._acting()
        if verb == "bet" and self.current_bet > 0:
            raise BettingError(
                f"there is already a bet of {usd(self.current_bet)}: call, raise or fold",
                ROUND_OF_PLAY,
            )
        if verb == "raise" and self.current_bet == 0:
            raise BettingError("there is no bet to raise: check or bet", ROUND_OF_PLAY)
        if to > p.in_round + p.stack:
            raise BettingError(
                f"seat {p.seat} has only {usd(p.stack)} behind, {usd(p.in_round + p.stack)} "
                f"in all, not {usd(to)}",
                TABLE_STAKES,
            )
        low, high = self._wager_span()
        if not low <= to <= high:
            span = usd(low) if low == high else f"{usd(low)} to {usd(high)}"
            raise BettingError(
                f"a {verb} to {usd(to)} is not allowed: {span} is", self.structure.rule
            )
        return p

    # ------------------------------------------------------------------ check

    def verify_check(self) -> None:
        """Refuse a check with a bet to call ("When a raise or re-raise occurs, checking is not
        permitted", 004 "Texas Hold'em: Dealing Procedures and Round of Play")."""
        p = self._acting()
        if p.in_round < self.current_bet:
            raise BettingError(
                f"seat {p.seat} cannot check: {usd(self.current_bet - p.in_round)} to call",
                ROUND_OF_PLAY,
            )

    def can_check(self) -> bool:
        """Whether the player to act may check."""
        return _allowed(self.verify_check)

    def check(self) -> BettingRound:
        """Check: nothing added."""
        self.verify_check()
        return self._act(self._acting().in_round, "check")

    # ------------------------------------------------------------------ call

    def verify_call(self) -> None:
        """Refuse a call with nothing to call (then it is a check)."""
        p = self._acting()
        if p.in_round >= self.current_bet:
            raise BettingError(f"seat {p.seat} has nothing to call: check", ROUND_OF_PLAY)

    def can_call(self) -> bool:
        """Whether the player to act may call."""
        return _allowed(self.verify_call)

    def call(self) -> BettingRound:
        """Call: match the bet, or put in the whole stack if it is less (all-in)."""
        self.verify_call()
        p = self._acting()
        return self._act(min(self.current_bet, p.in_round + p.stack), "call")

    # ------------------------------------------------------------------ fold

    def verify_fold(self) -> None:
        """A fold is refused only when the round is over: the documents list folding among the
        options of every round, with or without a bet to call."""
        self._acting()

    def can_fold(self) -> bool:
        """Whether the player to act may fold."""
        return _allowed(self.verify_fold)

    def fold(self) -> BettingRound:
        """Fold: out of the hand; the chips already in stay in the pot."""
        self.verify_fold()
        return self._act(self._acting().in_round, "fold")

    def dead_hand(self, seat: int) -> BettingRound:
        """A hand the floor declares dead (a hand of more or fewer than five cards, a card
        dropped after the draw, a fouled hand: 003 "Lowball" rules 4, 12, 15, 17): out of the
        hand wherever the action is, its chips staying in the pot; the action goes on."""
        i = next((k for k, p in enumerate(self.players) if p.seat == seat), None)
        if i is None:
            raise BettingError(f"seat {seat} is not in this hand", ACTION_ORDER)
        p = self.players[i]
        if p.folded:
            raise BettingError(f"seat {seat} is out of the hand already", ACTION_ORDER)
        players = tuple(
            replace(q, folded=True) if k == i else q for k, q in enumerate(self.players)
        )
        start = i + 1 if self.actor is None or self.actor == i else self.actor
        actor = None if self.actor is None else next_actor(players, start, self.current_bet)
        return replace(
            self,
            players=players,
            actions=(*self.actions, Action(seat, "dead-hand", ZERO, p.in_round)),
            actor=actor,
        )

    # ------------------------------------------------------------------ bet

    def verify_bet(self, amount: Decimal) -> None:
        """Refuse a first bet of the round the structure or the stack does not allow."""
        self._verify_wager(as_money(amount, "the bet"), "bet")

    def can_bet(self, amount: Decimal) -> bool:
        """Whether the player to act may bet `amount`."""
        return _allowed(lambda: self.verify_bet(amount))

    def bet(self, amount: Decimal) -> BettingRound:
        """Bet `amount`, the first bet of the round."""
        self.verify_bet(amount)
        return self._act(as_money(amount, "the bet"), "bet")

    # ------------------------------------------------------------------ raise

    def verify_raise_to(self, to: Decimal) -> None:
        """Refuse a raise to `to` that the cap, structure, stack or a short all-in forbid."""
        self._verify_wager(as_money(to, "the raise"), "raise")

    def can_raise_to(self, to: Decimal) -> bool:
        """Whether the player to act may raise to `to`."""
        return _allowed(lambda: self.verify_raise_to(to))

    def raise_to(self, to: Decimal) -> BettingRound:
        """Raise so that the player has `to` in this round."""
        self.verify_raise_to(to)
        return self._act(as_money(to, "the raise"), "raise")

    # ------------------------------------------------------------------ all-in

    def verify_all_in(self) -> None:
        """Refuse an all-in larger than a bet or raise may be (004: never over $200 in a round)."""
        p = self._acting()
        everything = p.in_round + p.stack
        if everything > self.current_bet:
            self._verify_wager(everything, "raise" if self.current_bet > 0 else "bet")

    def can_all_in(self) -> bool:
        """Whether the player to act may put in the whole stack."""
        return _allowed(self.verify_all_in)

    def all_in(self) -> BettingRound:
        """Put in the whole stack: a call, a bet or a raise, short or full."""
        self.verify_all_in()
        p = self._acting()
        everything = p.in_round + p.stack
        if everything <= self.current_bet:
            return self._act(everything, "call")
        return self._act(everything, "raise" if self.current_bet > 0 else "bet")

    # ------------------------------------------------------------------ moving on

    def _act(self, to: Decimal, verb: Verb) -> BettingRound:
        """The state after the player to act brings their chips in this round to `to`."""
        i = self._acting_index()
        p = self.players[i]
        added = to - p.in_round
        moved = replace(
            p,
            stack=p.stack - added,
            in_round=to,
            in_hand=p.in_hand + added,
            folded=verb == "fold",
            acted=True,
        )
        state = replace(
            self,
            players=tuple(moved if j == i else q for j, q in enumerate(self.players)),
            actions=(*self.actions, Action(p.seat, verb, added, to, all_in=moved.all_in)),
        )
        if to > self.current_bet:
            least, _ = self.structure.bounds(self, p)
            state = state._raised(to, full=to >= least, by=i)
        return replace(state, actor=next_actor(state.players, i + 1, state.current_bet))

    def _raised(self, to: Decimal, *, full: bool, by: int) -> BettingRound:
        """The bet after a bet or raise to `to`. A full one counts toward the cap (a first bet
        does not), sets the least next raise and reopens the raising to everyone else; a short
        all-in only raises what is owed."""
        if not full:
            return replace(self, current_bet=to)
        return replace(
            self,
            current_bet=to,
            full_bet=to,
            last_raise=max(self.last_raise, to - self.current_bet),
            raises=self.raises + (1 if self.full_bet > 0 else 0),
            players=tuple(
                q if j == by else replace(q, acted=False) for j, q in enumerate(self.players)
            ),
        )

    def _acting_index(self) -> int:
        """The index of the player to act (the round is not over)."""
        self._acting()
        assert self.actor is not None
        return self.actor

    def next_round(self, first: int | None = None) -> BettingRound:
        """The next street's round: bets reset, first to act left of the button, or from seat
        `first` on (stud: the best board showing bets first)."""
        if not self.complete:
            raise BettingError(
                f"the betting round is not over: seat {self.turn} is to act", ROUND_OF_PLAY
            )
        if self.hand_over:
            raise BettingError("all but one have folded: the hand is over", ROUND_OF_PLAY)
        street = self.street + 1
        players = tuple(replace(p, in_round=ZERO, acted=False) for p in self.players)
        start = 0
        if first is not None:
            start = next((i for i, p in enumerate(players) if p.seat == first), -1)
            if start < 0 or players[start].folded:
                raise BettingError(f"seat {first} is not in the hand to act first", ACTION_ORDER)
        return BettingRound(
            structure=self.structure,
            street=street,
            players=players,
            actor=next_actor(players, start, ZERO),
            current_bet=ZERO,
            full_bet=ZERO,
            last_raise=self.structure.opening(street),
        )


def _allowed(verify: Callable[[], object]) -> bool:
    """Whether `verify()` passes: each `can_x` is its `verify_x` that does not raise."""
    try:
        verify()
    except BettingError:
        return False
    return True


class Structure(Protocol):
    """How much a bet or raise may be: the one thing the betting structures differ in."""

    @property
    def rule(self) -> str:
        """The rule that sets the amounts, for the refusals."""
        ...

    def opening(self, street: int) -> Decimal:
        """The least first bet of a round (0-based street), which a first raise must match."""
        ...

    def bounds(self, rnd: BettingRound, player: Player) -> tuple[Decimal, Decimal]:
        """Least and greatest total in the round a full bet or raise brings `player` to."""
        ...

    def closed(self, rnd: BettingRound) -> BettingError | None:
        """Why this round allows no more raises (a cap), or None."""
        ...
