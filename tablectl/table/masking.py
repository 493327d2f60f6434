"""Card masking: what an alert may show of a refused input or a reason, since a refused card may be
someone's hole card."""

from __future__ import annotations

import re
from typing import Any

from tablectl.commands import CARD_COMMANDS

CARD_FIELDS = ("card", "cards", "low", "discard", "front", "middle", "back")
"""The input fields that hold cards (a draw's discards, a hand's setting too): withheld."""
# A card as our own messages write it (canonical: "Ah", "Td", "JKR"), and as raw input may quote
# it in any case ("ah"); the raw form is matched only inside quotes so English words survive.
_CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK][shdc]|JKR)(?![A-Za-z0-9])")
_QUOTED_CARD = re.compile(r"([\"'])(?:[A2-9TJQK][SHDC]|JKR)\1", re.IGNORECASE)


def mask_cards(text: str) -> str:
    """`text` with every card name replaced by "??": for alerts of games with hidden cards."""
    return _CARD_TOKEN.sub("??", _QUOTED_CARD.sub(r"\1??\1", text))


def public_input(body: dict[str, Any]) -> dict[str, Any]:
    """A refused input as an alert may show it: its cards withheld (named, not shown), because
    a refused card or stack is not thereby exposed at the table and may be someone's hole card.
    The journal keeps the input whole."""
    hidden = [k for k in CARD_FIELDS if k in body]
    out = {k: v for k, v in body.items() if k not in hidden}
    if hidden:
        out["withheld"] = hidden
    return out


def public_text(text: str, shows_every_card: bool, source: str | None = None) -> str:
    """An alert's text as it may be published: card names masked, since a refused card may be a
    hole card nobody has seen; not at a game that shows every card face up (its spec's
    `shows_every_card`), unless the input came from a command that can carry a card the table
    does not show (a burn: `commands.CARD_COMMANDS`, which only the table may read)."""
    verb = source.removeprefix("cmd/") if source and source.startswith("cmd/") else None
    if shows_every_card and verb not in CARD_COMMANDS:
        return text
    return mask_cards(text)
