"""Three Card Poker bonus pay tables, loaded from TOML data by their document names.

Pay tables are data (config/paytables/three-card-poker.toml) so a new approval is a file edit,
not a code change. Validation refuses unknown keys, categories the wager cannot produce and
non-positive pays, naming the table and key at fault.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tablectl.rules.poker import FIVE_CARD_CATEGORIES, ROYAL_FLUSH, THREE_CARD_CATEGORIES

DEFAULT_PATH = (
    Path(__file__).resolve().parents[2] / "config" / "paytables" / "three-card-poker.toml"
)

Wager = Literal["six-card-bonus", "pair-plus"]

# What each wager can be paid on (a table listing anything else is a typo, not a losing hand).
CATEGORIES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "six-card-bonus": frozenset((*FIVE_CARD_CATEGORIES, ROYAL_FLUSH)),
        "pair-plus": frozenset(THREE_CARD_CATEGORIES),
    }
)


class PayTableError(ValueError):
    """A pay table file or name that cannot be used, with the reason."""


class PayTable(BaseModel):
    """One pay table: the wager it settles and the odds-to-1 pay of each winning category."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    wager: Wager
    source: str = ""
    pays: dict[str, int] = Field(min_length=1)
    stated_house_advantage: str | None = None
    stated_hit_frequency: str | None = None

    @model_validator(mode="after")
    def _known_categories(self) -> PayTable:
        allowed = CATEGORIES[self.wager]
        for category, pay in self.pays.items():
            if category not in allowed:
                raise ValueError(
                    f"pays.{category}: not a {self.wager} category "
                    f"(expected one of {', '.join(sorted(allowed))})"
                )
            if pay <= 0:
                raise ValueError(
                    f"pays.{category}: a pay is a positive odds-to-1 number, not {pay}"
                )
        return self


def load_paytables(path: Path = DEFAULT_PATH) -> dict[str, PayTable]:
    """Every table in a pay-table file, by name; PayTableError names the file, table and key."""
    try:
        with path.open("rb") as f:
            raw = tomllib.load(f)
    except OSError as e:
        raise PayTableError(f"{path}: cannot read: {e.strerror or e}") from e
    except tomllib.TOMLDecodeError as e:
        raise PayTableError(f"{path}: not valid TOML: {e}") from e
    tables: dict[str, PayTable] = {}
    for name, body in raw.items():
        if not isinstance(body, dict):
            raise PayTableError(f"{path}: {name}: expected a table like [{name}], not a value")
        try:
            tables[name] = PayTable.model_validate({"name": name, **body})
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(map(str, err['loc'])) or name}: {err['msg']}" for err in e.errors()
            )
            raise PayTableError(f"{path}: {name}: {problems}") from e
    return tables


def get_paytable(name: str, path: Path = DEFAULT_PATH) -> PayTable:
    """The named table (e.g. "TCB-6B2"); PayTableError lists the names the file holds."""
    tables = load_paytables(path)
    if name not in tables:
        raise PayTableError(f"no pay table {name!r} in {path}: have {', '.join(tables)}")
    return tables[name]


def payout(table: PayTable, category: str) -> int:
    """Odds-to-1 pay of `category` on `table`; 0 means the wager loses."""
    if category not in CATEGORIES[table.wager]:
        raise PayTableError(f"{category!r} is not a {table.wager} category")
    return table.pays.get(category, 0)
