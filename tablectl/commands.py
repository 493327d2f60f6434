"""The inbound command verbs (`<base>/cmd/<verb>`, DESIGN contract 3) and which of them carry a
card the table has not shown.

`COMMAND_VERBS` is what the daemon accepts (daemon/commands.py). `CARD_COMMANDS` is what the
broker's ACL lets the table alone read (tablectl/broker.py, `tablectl broker-acl`): a command
whose payload can name a card nobody at the table sees when it is keyed, so that no other
console of the table (they share one broker user) and no pit console reads it live. Its reply
(`cmd/<verb>/reply`) stays readable: a reply carries `id`, `ok` and a reason, and a reason names
no hidden card (`tablectl.table.mask_cards`). The table's own messages about the input follow
the card-exposure rule (docs/mqtt.md) as before.

This module imports nothing from tablectl but the input models (tablectl_base.events): the ACL
generator reads it without loading the daemon.
"""

from __future__ import annotations

import typing

from pydantic import BaseModel

from tablectl_base.events import CardText, InputEvent

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
    # the pot games: seats, the hand, and what a table without a reader is told
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

FACE_UP_COMMANDS = frozenset(
    {
        "up.cards",  # a street's up cards, dealt face up
        "board.cards",  # the community cards, keyed as they are turned up
        "card.flashed",  # a card the dealer exposed to everyone
    }
)
"""The verbs that carry cards, but only ones every player sees as the dealer keys them."""


def _holds_a_card(tp: object) -> bool:
    """Whether a value of type `tp` (an input model, a field's annotation) can hold a card
    (`CardText`), at any depth."""
    if tp == CardText:
        return True
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return any(_holds_a_card(f.rebuild_annotation()) for f in tp.model_fields.values())
    return any(_holds_a_card(arg) for arg in typing.get_args(tp))


_INPUT_MODELS: dict[str, type[BaseModel]] = {
    model.model_fields["type"].default: model
    for model in typing.get_args(typing.get_args(InputEvent)[0])
}
"""Each input model (`InputEvent` is their union, annotated with its discriminator) by its
journaled `type`."""

CARD_INPUTS = frozenset(kind for kind, model in _INPUT_MODELS.items() if _holds_a_card(model))
"""The input types whose model has a card field (found from the models, so a new input with a
card is in it without a line here)."""

CARD_COMMANDS = frozenset(
    verb
    for verb, kind in COMMAND_VERBS.items()
    if verb not in FACE_UP_COMMANDS and kind in CARD_INPUTS
)
"""The verbs whose payload can carry a card the table has not shown when it is keyed: every
verb whose input model has a card field (a card dealt face down, a burn, a stack, a setting
held until the showdown, a discard, a card entered into a gap: R39), but those of
`FACE_UP_COMMANDS`.

The others carry no card (wagers, seats, the hand's start, a showdown's order, a void, an
acknowledgment, `time.collect`, `hand.dead`, the dice of `dice.roll`, shown at once), or only
cards that lie face up on the table when the dealer keys them (`FACE_UP_COMMANDS`)."""

OPEN_COMMANDS = tuple(verb for verb in COMMAND_VERBS if verb not in CARD_COMMANDS)
"""The verbs a table's consoles and the pit may read: every verb but `CARD_COMMANDS`."""
