"""The inbound command verbs (`<base>/cmd/<verb>`, DESIGN contract 3) and which of them carry a
card the table has not shown.

`COMMAND_VERBS` is what the daemon accepts (daemon/commands.py). `CARD_COMMANDS` is what the
broker's ACL lets the table alone read (tablectl/broker.py, `tablectl broker-acl`): a command
whose payload can name a card nobody at the table sees when it is keyed, so that no other
console of the table (they share one broker user) and no pit console reads it live. Its reply
(`cmd/<verb>/reply`) stays readable: a reply carries `id`, `ok` and a reason, and a reason names
no hidden card (`tablectl.table.mask_cards`). The table's own messages about the input follow
the card-exposure rule (docs/mqtt.md) as before.

This module imports nothing from tablectl: the ACL generator reads it without loading the daemon.
"""

from __future__ import annotations

COMMAND_VERBS = {
    "wager": "wager",
    "bank": "bank",
    "bets.close": "bets.close",
    "shoe.new": "shoe.new",
    "decision": "decision",
    "round.resume": "round.resume",
    "round.void": "round.void",
    "alert.ack": "alert.ack",  # a person closes an open alert (who and why)
    # R39: the dealer enters a card a device could not resend, with its position (at.pos)
    "shoe.card": "shoe.card",
    "shoe.burn": "shoe.burn",
    "shuffler.stack": "shuffler.stack",
    "dice.roll": "dice.roll",
    "table.card": "table.card",
    # the poker room: seats, the hand, and what a table without a reader is told
    "seat.take": "seat.take",
    "seat.leave": "seat.leave",
    "seat.away": "seat.away",
    "seat.back": "seat.back",
    "hand.start": "hand.start",
    "hole.cards": "hole.cards",
    "up.cards": "up.cards",
    "down.cards": "down.cards",
    "option.buy": "option.buy",
    "draw": "draw",
    "chinese.set": "chinese.set",
    "chinese.sweep": "chinese.sweep",
    "hand.dead": "hand.dead",
    "card.flashed": "card.flashed",
    "hole.discard": "hole.discard",
    "board.cards": "board.cards",
    "showdown": "showdown",
    "time.collect": "time.collect",
}
"""Inbound command verbs and the input event type each becomes."""

CARD_COMMANDS = frozenset(
    {
        # a Pai Gow `set` names the player's low hand, face down until the showdown
        "decision",
        # a card entered into a gap (R39): a blackjack hole card, a Three Card Poker, Pai Gow
        # or Ultimate hand's card, all dealt face down
        "shoe.card",
        "shoe.burn",  # a burned card goes face down: no topic ever shows it
        "shuffler.stack",  # a stack: face-down hands, and the order of cards not yet dealt
        "table.card",  # a poker reader's card: a hole card, a down card, the muck
        "hole.cards",  # hole cards: never published live (R46)
        "down.cards",  # stud down cards: never published
        "option.buy",  # Option Alley: a new hole card (journal only) and the hole card it replaces
        "draw",  # the draw games: the discards and the cards drawn, never published
        "chinese.set",  # thirteen cards, face down until every hand is in
        "chinese.sweep",  # likewise, declared as a clean sweep
        "hole.discard",  # Crazy Pineapple's discard, face down
    }
)
"""The verbs whose payload can carry a card the table has not shown when it is keyed.

The others carry no card (wagers, seats, the hand's start, a showdown's order, a void, an
acknowledgment, `time.collect`, `hand.dead`, the dice of `dice.roll`, shown at once), or only
cards that lie face up on the table when the dealer keys them (`FACE_UP_COMMANDS`)."""

FACE_UP_COMMANDS = frozenset(
    {
        "up.cards",  # stud up cards, dealt face up
        "board.cards",  # the flop, the turn and the river, keyed as they are turned up
        "card.flashed",  # a card the dealer exposed to everyone (Lowball)
    }
)
"""The verbs that carry cards, but only ones every player sees as the dealer keys them."""

OPEN_COMMANDS = tuple(verb for verb in COMMAND_VERBS if verb not in CARD_COMMANDS)
"""The verbs a table's consoles and the pit may read: every verb but `CARD_COMMANDS`."""
