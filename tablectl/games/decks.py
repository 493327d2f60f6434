"""What a round's cards may be: a single deck dealt once (contract 1), two alternating decks of
different colours (004 "Three Card Poker 6 Card Bonus: Description of the Deck and Number of Decks
Used", 003 "Ultimate Texas Hold'em: Description of the Deck and Number of Decks Used"), and the
cards a shoe has given."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tablectl.games.base import Rejected
from tablectl_base.cards import Card, ShoeComposition


def seen_plus(seen: Mapping[Card, int], cards: Iterable[Card]) -> dict[Card, int]:
    """A copy of `seen` counting `cards` once more each (states are never mutated)."""
    out = dict(seen)
    for card in cards:
        out[card] = out.get(card, 0) + 1
    return out


def verify_single_deck(
    cards: Sequence[Card],
    dealt: Iterable[Card],
    deck: ShoeComposition,
    *,
    foreign_rule: str,
    twice_rule: str,
) -> None:
    """Contract 1 for a round dealt from one shuffled deck: every card of a stack is one `deck`
    holds (`foreign_rule`: no jokers, say) and none was dealt before this round or earlier in
    the stack (`twice_rule`). No reason names a card: the alert is published, and a refused
    stack is not thereby shown at the table (the card may be someone's hole card)."""
    seen = seen_plus({}, dealt)
    for i, card in enumerate(cards, start=1):
        if deck.why_not(card, {}) is not None:
            raise Rejected(
                f"card {i} of the stack is not in a {deck.kind.value} deck", rule=foreign_rule
            )
        if deck.why_not(card, seen) is not None:
            raise Rejected(
                f"card {i} of the stack appears twice in this round: a round is dealt from "
                f"a single {deck.kind.value} deck",
                rule=twice_rule,
            )
        seen = seen_plus(seen, [card])


def verify_deck_colour(
    deck: str | None,
    round_deck: str | None,
    last_deck: str | None,
    *,
    one_deck_rule: str,
    alternate_rule: str,
    colours: Sequence[str] = (),
    colours_rule: str = "config deck_colours",
) -> None:
    """Two alternating decks of different colours, each used every other round (004 "Three Card
    Poker 6 Card Bonus: Description of the Deck and Number of Decks Used", 003 "Ultimate Texas
    Hold'em: Description of the Deck and Number of Decks Used", 003 "Fortune Pai Gow Poker: How
    Winners are Determined and Paid"): a stack's colour (`deck`, None when the shuffler cannot tell,
    and then nothing is checked) must be one of `colours` when the table names them, this round's
    colour once a stack has named it, and not the last dealt round's."""
    if deck is None:
        return
    if colours and deck not in colours:
        raise Rejected(
            f"deck {deck!r} is not one of this table's two decks ({', '.join(colours)})",
            rule=colours_rule,
        )
    if round_deck is not None and deck != round_deck:
        raise Rejected(
            f"this round is dealt from the {round_deck} deck, not the {deck} deck",
            rule=one_deck_rule,
        )
    if round_deck is None and deck == last_deck:
        raise Rejected(
            f"the {deck} deck was used last round: the decks alternate every other round",
            rule=alternate_rule,
        )


def deck_after_round(round_deck: str | None, dealt: bool, last_deck: str | None) -> str | None:
    """The colour the next round may not use
    (004 "Three Card Poker 6 Card Bonus: Description of the Deck and Number of Decks Used",
    003 "Ultimate Texas Hold'em: Description of the Deck and Number of Decks Used"): a round that
    dealt used its deck, even when the shuffler never named it (then the next colour is unknown, not
    the colour of two rounds ago); a round that dealt nothing leaves the last colour as it was."""
    return round_deck if dealt else last_deck
