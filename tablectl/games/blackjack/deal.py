"""Cards from the reading shoe: betting closes and the hands are fixed, the initial deal (one card
to each seat with a base wager clockwise from the player-dealer's left and the player-dealer last,
twice, the hole card face down), the peek (R12), each hand's draws (R15, R16), the player-dealer's
hand by Chart 1B (R14), and the burns and new shoes between rounds.

000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"; R12, R14, R16, R17. No refusal
quotes a card: it may be the hole card.
"""

from __future__ import annotations

from tablectl.game_records import GameRecord, JsonValue
from tablectl.games.base import DEALER_ERROR, Rejected
from tablectl.games.blackjack.decisions import actions, hit_rule, why_no_hit
from tablectl.games.blackjack.settlement import finish
from tablectl.games.blackjack.state import BlackjackState, Hand, replace_hand
from tablectl.games.blackjack.variant import Policy
from tablectl.games.common import default_player, replace, verify_bets_open
from tablectl.games.seating import seats_from_left
from tablectl.rules import blackjack as bj
from tablectl_base.cards import Card
from tablectl_base.money import ZERO

Step = tuple[BlackjackState, list[GameRecord]]
"""A state reached and the records on the way (a settled round's)."""


# -- closing bets --------------------------------------------------------------------------------


def verify_bets_close(state: BlackjackState) -> None:
    """Betting closes against a posted bank with at least one base wager to deal to; with an
    ace up it closes the insurance offer instead (R17)."""
    if state.phase == "insurance":
        return
    verify_bets_open(state.phase == "betting", state.bank_seat, "000 line 130")
    if not any(w.spot == "base" for w in state.wagers):
        raise Rejected(
            "no base wager: there is no hand to deal to (void the round to end it)",
            rule="000 line 53",
        )


def closed(policy: Policy, state: BlackjackState) -> BlackjackState:
    """Betting closed: a hand for each seat with a base wager, clockwise from the
    player-dealer's left (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"),
    played by the seated player when that player has a base wager there: a backline wager rides
    behind the seated player's (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or
    Pushes", 004 "Pure 21.5 Blackjack: How Winners are Determined and Paid"), whichever was
    placed first. A circle with only other players' wagers (000 "Pure 21.5 Blackjack: Dealing
    Procedures and Round of Play": "other unoccupied betting circles") is played by its first
    base bettor."""
    assert state.bank_seat is not None
    hands: list[Hand] = []
    for seat in seats_from_left(state.bank_seat, policy.seats)[:-1]:
        bases = [w for w in state.wagers if w.seat == seat and w.spot == "base"]
        if not bases:
            continue
        seated = default_player(seat)
        player = seated if any(w.player == seated for w in bases) else bases[0].player
        stake = sum((w.amount for w in bases if w.player == player), ZERO)
        hands.append(Hand(seat=seat, player=player, stake=stake))
    return replace(state, phase="dealing", order=tuple(h.seat for h in hands), hands=tuple(hands))


# -- cards ---------------------------------------------------------------------------------------


def verify_card(policy: Policy, state: BlackjackState, card: Card) -> str:
    """Where `card` goes ("deal", "hand" or "player-dealer"), or why it cannot be drawn now.

    A card drawn when no hand may draw it is a dealer error (R15: the dealer drew a card the
    rules give to no hand): kind "dealer-error". A card the shoe cannot hold stays "rejected"
    (contract 1). No reason quotes the card: it may be the hole card.
    """
    if state.phase == "betting":
        _verify_first_card(state)  # the first card closes betting (contract 2)
    verify_in_shoe(policy, state, card)
    if state.phase in ("betting", "dealing"):
        return "deal"
    if state.phase == "insurance":
        raise Rejected(
            "dealer error: no hand may draw while insurance is offered: close it with "
            "bets.close so the hole card is checked first",
            rule="R12",
            kind=DEALER_ERROR,
        )
    if state.phase == "player-dealer":
        return "player-dealer"
    hand = state.current
    assert hand is not None  # the playing phase always has a hand in turn
    if hand.owed:
        return "hand"
    if "hit" not in actions(policy, state, hand):
        raise Rejected(why_no_hit(state, hand), rule=hit_rule(hand), kind=DEALER_ERROR)
    return "hand"


def _verify_first_card(state: BlackjackState) -> None:
    """A card before betting has closed closes it (contract 2), so it needs what
    `bets.close` needs (a bank, a base wager: 000 "Pure 21.5 Blackjack: Dealing Procedures and
    Round of Play"); without them no hand may draw it, a dealer error."""
    try:
        verify_bets_close(state)
    except Rejected as rej:
        raise Rejected(
            f"dealer error: a card drawn with no hand to deal to: {rej.reason}",
            rule=rej.rule,
            kind=DEALER_ERROR,
        ) from rej


def verify_in_shoe(policy: Policy, state: BlackjackState, card: Card) -> None:
    """Contract 1: refuse a card the configured shoe cannot hold (a `T` in a Spanish deck, one
    copy too many since `shoe.new`), without quoting it: it may be the hole card."""
    why = policy.shoe.why_not(card, state.shoe_seen)
    if why:
        raise Rejected(
            "a card this shoe cannot hold: " + why.replace(str(card), "the card"),
            rule="contract 1",
        )


def deal_one(state: BlackjackState, card: Card) -> tuple[BlackjackState, JsonValue]:
    """One card of the initial deal and where it went: each seat's first hand, then the
    player-dealer, twice (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play")."""
    n = len(state.order) + 1
    position = state.dealt % n
    if position == len(state.order):
        return replace(state, dealer=(*state.dealer, card), dealt=state.dealt + 1), "player-dealer"
    seat = state.order[position]
    hand = state.hands_of(seat)[0]
    new = replace(
        state,
        hands=replace_hand(state, hand, replace(hand, cards=(*hand.cards, card))),
        dealt=state.dealt + 1,
    )
    return new, {"seat": seat, "hand": 1}


def dealt_out(state: BlackjackState) -> bool:
    """Whether both rounds of the initial deal are out."""
    return state.dealt == 2 * (len(state.order) + 1)


def after_deal(policy: Policy, state: BlackjackState) -> Step:
    """Both rounds are out: pure hands are put away
    (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet"), insurance is offered with an ace up
    (R17), else the hole card is checked (R12)."""
    hands = tuple(
        replace(h, end="pure") if bj.is_pure(h.cards, split=False) else h for h in state.hands
    )
    initial = tuple((h.seat, h.cards) for h in state.hands)
    state = replace(state, hands=hands, initial=initial)
    up = state.up_card
    assert up is not None
    if policy.variant.insurance and up.rank == "A":
        return replace(state, phase="insurance"), []
    return peek(policy, state)


def peek(policy: Policy, state: BlackjackState) -> Step:
    """R12: with an ace or a bonus card up the hole card is checked before any player draws;
    a Pure 21.5 ends the round (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or
    Pushes"). Then the hands play, or the player-dealer."""
    up = state.up_card
    assert up is not None
    if up.rank == "A" or bj.is_bonus(up):
        if bj.is_pure(state.dealer, split=False):
            return _finished(policy, replace(state, hole_shown=True))
        state = replace(state, peeked=True)
    return advance(policy, replace(state, phase="playing"))


def advance(policy: Policy, state: BlackjackState) -> Step:
    """After a hand's input: the next open hand acts, or (none left) the hole card is turned
    and the player-dealer completes its hand by Chart 1B (R14;
    000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play")."""
    if state.phase == "playing" and state.current is not None:
        return state, []
    state = replace(state, phase="player-dealer", hole_shown=True)
    if bj.dealer_must_hit(state.dealer):
        return state, []
    return _finished(policy, state)


def dealer_draw(policy: Policy, state: BlackjackState, card: Card) -> Step:
    """A card for the player-dealer's hand, drawn by Chart 1B (R14); the round ends when it
    stands."""
    new = replace(state, dealer=(*state.dealer, card))
    if bj.dealer_must_hit(new.dealer):
        return new, []
    return _finished(policy, new)


def _finished(policy: Policy, state: BlackjackState) -> Step:
    new, result = finish(policy, state)
    return new, [result]


def receive(policy: Policy, hand: Hand, card: Card) -> Hand:
    """A card for the hand in turn: a hit, a split's second card or a double's card (R16)."""
    variant = policy.variant
    cards = (*hand.cards, card)
    new = replace(hand, cards=cards, owed=False)
    if bj.is_bust(cards):
        return replace(new, end="bust")
    if hand.owed and hand.doubles and variant.one_card_after_double:
        # "only one additional card"
        # (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender")
        return replace(new, end="doubled")
    if hand.owed and hand.split and hand.cards[0].rank == "A" and variant.split_aces_one_card:
        # one card per split ace (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender")
        return replace(new, end="split-aces")
    return new


# -- between rounds ------------------------------------------------------------------------------


def verify_burn(policy: Policy, state: BlackjackState, card: Card) -> None:
    """A burn only between rounds (before the round's first card), of a card the shoe holds."""
    if state.phase != "betting":
        raise Rejected("a card cannot be burned in the middle of a round", rule="000 line 53")
    verify_in_shoe(policy, state, card)


def verify_shoe_new(state: BlackjackState) -> None:
    """A new shoe goes in between rounds only."""
    if state.phase != "betting":
        raise Rejected("a new shoe cannot be put in during a round", rule="000 line 53")
