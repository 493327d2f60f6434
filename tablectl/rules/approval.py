"""What a data file is for: the document that approves it, the game(s) it serves and which of
the document's options it is.

Every collection schedule file and betting limits file carries one `[approval]` table, and
every pay table one `[<name>.approval]`, in this one form:

    [approval]
    documents = ["003"]                    # the rule documents (shared seeds/) that print it
    games = ["ez-baccarat-panda8"]         # the game ids it is for
    option = "Collection Fee Schedule, options 1-23"   # what the document calls it

A table's `check-config` refuses a file that is not for its game and document, naming both
(`mismatch`): a Pure 21.5 table pointed at EZ Baccarat's fee schedule would otherwise charge
baccarat's fees. Nothing here reads a file: the loaders (tablectl/rules/fees.py, paytables.py,
poker_fees.py, tablectl/games/poker/spec.py) hand the decoded table to `parse_approval`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

DocumentId = Literal["000", "001", "002", "003", "004"]
"""The rule documents tablectl implements (shared seeds/README.md, docs/rulings.md)."""

KEY = "approval"
"""The key of the table that says what a data file (or one pay table) is for."""


class Approval(BaseModel):
    """What one data file (or one pay table in a file of several) is for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    documents: tuple[DocumentId, ...] = Field(min_length=1)
    """The documents that print it (a near copy, 002 of 000, prints the same)."""
    games: tuple[Annotated[str, Field(min_length=1)], ...] = Field(min_length=1)
    """The game ids it serves (tablectl/games/registry.py)."""
    option: str = Field(min_length=1)
    """Which of the document's options or lists it is, as the document names it
    ("Payout Option 5", "California Collection Rates, options 1-43")."""

    @property
    def label(self) -> str:
        """As a technician reads it: "ez-baccarat-panda8 (document 003)"."""
        return f"{', '.join(self.games)} ({documents_text(self.documents)})"


def documents_text(documents: Iterable[str]) -> str:
    """ "document 003", "documents 000, 002"."""
    docs = list(documents)
    return f"document{'s' if len(docs) > 1 else ''} {', '.join(docs)}"


def parse_approval(raw: object) -> tuple[Approval | None, list[str]]:
    """The `[approval]` table as written, and the problems of it, each "approval.<key>: reason"
    (none when it is fine). A missing table is (None, []): whether that is a problem is the
    caller's to say (`missing`)."""
    if raw is None:
        return None, []
    if not isinstance(raw, dict):
        return None, [f"{KEY}: must be a table, written [{KEY}]"]
    try:
        return Approval.model_validate(raw), []
    except ValidationError as exc:
        return None, [
            f"{KEY}.{'.'.join(str(p) for p in err['loc'])}: "
            + ("required key is missing" if err["type"] == "missing" else str(err["msg"]))
            for err in exc.errors()
        ]


def missing(value: str) -> str:
    """Why a data file without an `[approval]` table is refused."""
    return (
        f"{value} does not say which document and game it is for: it needs an [{KEY}] table "
        "with documents, games and option (docs/config.md, 'What a data file is for')"
    )


def mismatch(value: str, approval: Approval, game: str, document: str | None) -> str | None:
    """Why the file `value` (as the config names it) cannot serve a `game` table approved under
    `document` (None: the table does not say), or None when it can.

    `collection.file: schedules/ez-baccarat-panda8.toml is for ez-baccarat-panda8 (document
    003), not pure-21.5-blackjack (document 000)`."""
    wrong_game = game not in approval.games
    wrong_document = document is not None and document not in approval.documents
    if not (wrong_game or wrong_document):
        return None
    table = game if document is None else f"{game} ({documents_text([document])})"
    return f"{value} is for {approval.label}, not {table}"


def unfit(value: str, approval: Approval | None, game: str, document: str | None) -> str | None:
    """`missing` when the file names nothing, else `mismatch`: why the file `value` cannot serve
    the table, or None when it can."""
    return missing(value) if approval is None else mismatch(value, approval, game, document)
