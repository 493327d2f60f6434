"""Bonus pay tables, loaded from TOML data by the names the rule documents give them.

Pay tables are data (config/paytables/<game>.toml) so a new approval is a file edit, not a code
change. Pays are odds to one, written as a whole number (`25` for 25 to 1) or as text `"3 to 2"`
for the fractional pays some tables print (the Ultimate Texas Hold'em Blind pays a flush 3 to 2).
Validation refuses unknown keys, categories the wager cannot produce and non-positive pays, naming
the table and key at fault. Fortune Pai Gow tables also carry the Envy Bonus's fixed dollar
amounts (003 "Fortune Pai Gow Poker: Bonus Bet Paytable", R32).
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Mapping
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    model_validator,
)

from tablectl.rules.approval import KEY as APPROVAL
from tablectl.rules.approval import Approval, parse_approval
from tablectl.rules.poker import FIVE_CARD_CATEGORIES, ROYAL_FLUSH, THREE_CARD_CATEGORIES
from tablectl_base.money import Money


def _shipped_dir() -> Path:
    """The pay tables that come with tablectl: config/paytables in a source checkout, otherwise
    where installing the package put them (pyproject.toml data-files: share/tablectl/paytables)."""
    source = Path(__file__).resolve().parents[2] / "config" / "paytables"
    return source if source.is_dir() else Path(sys.prefix) / "share" / "tablectl" / "paytables"


PAYTABLE_DIR = _shipped_dir()
DEFAULT_PATH = PAYTABLE_DIR / "three-card-poker.toml"

Wager = Literal[
    "six-card-bonus",
    "pair-plus",
    "fortune",
    "trips",
    "blind",
    "bad-beat",
    "red-flex",
    "buster",
    "match-dealer",
]

# The Fortune Bonus's seven-card hands (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings"
# and the pay table at line 1519), best first; the five-card names are tablectl.rules.poker's.
FORTUNE_CATEGORIES = (
    "seven-card-straight-flush",  # no joker
    "royal-flush-royal-match",  # A-K-Q-J-T suited plus a suited K-Q
    "seven-card-straight-flush-joker",
    "five-aces",
    ROYAL_FLUSH,
    "straight-flush",
    "four-of-a-kind",
    "full-house",
    "flush",
    "three-of-a-kind",
    "straight",
)

_FIVE = frozenset((*FIVE_CARD_CATEGORIES, ROYAL_FLUSH))

# What each wager can be paid on (a table listing anything else is a typo, not a losing hand).
CATEGORIES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "six-card-bonus": _FIVE,
        "pair-plus": frozenset(THREE_CARD_CATEGORIES),
        "fortune": frozenset(FORTUNE_CATEGORIES),
        "trips": _FIVE,
        "blind": _FIVE,
        # the rank of the beaten hand
        # (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet Payout Table")
        "bad-beat": _FIVE,
        # Pure 21.5 and Spanish 21.5 (tablectl.rules.blackjack): "red-N" is a run of exactly N
        # consecutive red cards (R18, 000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table Options",
        # 003 "Pure 21.5 Blackjack 3 to 2: Red Flex Bet"); "cards-N" a busted player-dealer hand of
        # exactly N cards (R19, 000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet Pay Table",
        # 003 "Pure 21.5 Blackjack 3 to 2: Buster Blackjack Bonus Bet Pay Table"); "-or-more" the
        # tables' top rows ("Seven Red Cards or more", "8 or more").
        "red-flex": frozenset(
            (*(f"red-{n}" for n in range(2, 9)), "red-7-or-more", "red-8-or-more")
        ),
        "buster": frozenset(
            (*(f"cards-{n}" for n in range(3, 9)), "cards-7-or-more", "cards-8-or-more")
        ),
        # the player's two initial cards against the up card (R21,
        # 003 "Pure Spanish 21.5: Table Layout")
        "match-dealer": frozenset(
            ("2-suited", "1-suited-1-unsuited", "1-suited", "2-unsuited", "1-unsuited")
        ),
    }
)

_ODDS = re.compile(r"^\s*([0-9][0-9,]*)\s*(?:to|:)\s*([0-9][0-9,]*)\s*$")


class PayTableError(ValueError):
    """A pay table file or name that cannot be used, with the reason."""


def parse_odds(value: object) -> Fraction:
    """Odds to one from `25`, `"25"`, `"25 to 1"`, `"3 to 2"` or `"3:2"`."""
    if isinstance(value, bool):
        raise ValueError(f'a pay is odds like 25 or "3 to 2", not {value!r}')
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return Fraction(int(text))
        m = _ODDS.match(text)
        if m:
            num, den = (int(g.replace(",", "")) for g in m.groups())
            if den == 0:
                raise ValueError(f"odds {value!r} divide by zero")
            return Fraction(num, den)
    raise ValueError(f'a pay is odds like 25 or "3 to 2", not {value!r}')


def odds_text(odds: Fraction) -> str:
    """A pay as a person reads it (`tablectl analyze`, `info`): "300 to 1", "3 to 2"."""
    return f"{odds.numerator} to {odds.denominator}"


def _odds_text(odds: Fraction) -> str | int:
    return int(odds) if odds.denominator == 1 else odds_text(odds)


Odds = Annotated[Fraction, BeforeValidator(parse_odds), PlainSerializer(_odds_text)]


class PayTable(BaseModel):
    """One pay table: the wager it settles and the odds-to-1 pay of each winning category."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    name: str
    wager: Wager
    source: str = ""
    pays: dict[str, Odds] = Field(min_length=1)
    envy: dict[str, Money] = Field(default_factory=dict)
    stated_house_advantage: str | None = None
    stated_hit_frequency: str | None = None

    @model_validator(mode="after")
    def _known_categories(self) -> PayTable:
        allowed = CATEGORIES[self.wager]
        for key, table in (("pays", self.pays), ("envy", self.envy)):
            for category, pay in table.items():
                if category not in allowed:
                    raise ValueError(
                        f"{key}.{category}: not a {self.wager} category "
                        f"(expected one of {', '.join(sorted(allowed))})"
                    )
                if pay <= 0:
                    raise ValueError(
                        f"{key}.{category}: a pay must be positive (above zero), not {pay}"
                    )
        if self.envy and self.wager != "fortune":
            raise ValueError("envy: only a Fortune Bonus table has Envy amounts (R32)")
        overlap = _count_rows_overlap(self.wager, self.pays)
        if overlap:
            raise ValueError(overlap)
        return self


def _count_rows_overlap(wager: str, pays: Mapping[str, Fraction]) -> str | None:
    """Why a Red Flex or Buster table (R18, R19) would match one count to two rows, if it would:
    an exact row at or above its "or more" row ("red-8" beside "red-7-or-more"), or two "or more"
    rows. Such a table makes the pay depend on which row is read first."""
    prefix = {"red-flex": "red", "buster": "cards"}.get(wager)
    if prefix is None:
        return None
    exact: list[int] = []
    or_more: list[int] = []
    for category in pays:
        body = category.removeprefix(f"{prefix}-")
        if body.isdigit():
            exact.append(int(body))
        elif body.endswith("-or-more"):
            or_more.append(int(body.removesuffix("-or-more")))
    if len(or_more) > 1:
        return f"more than one 'or more' row: {sorted(or_more)}"
    for k in or_more:
        clash = sorted(n for n in exact if n >= k)
        if clash:
            rows = ", ".join(f"{prefix}-{n}" for n in clash)
            return f"pays: {rows} overlap {prefix}-{k}-or-more (one count, one row)"
    return None


def load_paytables(path: Path = DEFAULT_PATH) -> dict[str, PayTable]:
    """Every table in a pay-table file, by name; PayTableError names the file, table and key."""
    return {name: table for name, (table, _) in load_paytable_file(path).items()}


def load_paytable_file(path: Path) -> dict[str, tuple[PayTable, Approval | None]]:
    """Every table in a pay-table file, by name, with its `[<name>.approval]` (what it is for:
    tablectl/rules/approval.py; None when it has none). The approval is kept apart from the
    `PayTable`, which the rules journal: what a table pays is the same whichever document
    prints it. PayTableError names the file, table and key."""
    try:
        with path.open("rb") as f:
            raw = tomllib.load(f)
    except OSError as e:
        raise PayTableError(f"{path}: cannot read: {e.strerror or e}") from e
    except tomllib.TOMLDecodeError as e:
        raise PayTableError(f"{path}: not valid TOML: {e}") from e
    tables: dict[str, tuple[PayTable, Approval | None]] = {}
    for name, body in raw.items():
        if not isinstance(body, dict):
            raise PayTableError(f"{path}: {name}: expected a table like [{name}], not a value")
        fields = {k: v for k, v in body.items() if k != APPROVAL}
        approval, wrong = parse_approval(body.get(APPROVAL))
        if wrong:
            raise PayTableError(f"{path}: {name}: {'; '.join(wrong)}")
        try:
            tables[name] = (PayTable.model_validate({"name": name, **fields}), approval)
        except ValidationError as e:
            problems = "; ".join(_problem(name, err) for err in e.errors())
            raise PayTableError(f"{path}: {name}: {problems}") from e
    return tables


def _problem(name: str, err: Any) -> str:
    where = ".".join(map(str, err["loc"])) or name
    return f"{where}: {str(err['msg']).removeprefix('Value error, ')}"


def get_paytable(name: str, path: Path = DEFAULT_PATH) -> PayTable:
    """The named table (e.g. "TCB-6B2"); PayTableError lists the names the file holds."""
    tables = load_paytables(path)
    if name not in tables:
        raise PayTableError(f"no pay table {name!r} in {path}: have {', '.join(tables)}")
    return tables[name]


def payout(table: PayTable, category: str) -> Fraction:
    """Odds-to-1 pay of `category` on `table`; 0 means the wager loses."""
    if category not in CATEGORIES[table.wager]:
        raise PayTableError(f"{category!r} is not a {table.wager} category")
    return table.pays.get(category, Fraction(0))


CENT = Decimal("0.01")


def winnings(amount: Decimal, odds: Fraction) -> Decimal:
    """What a winning wager of `amount` is paid at `odds` to 1, rounded down to the cent.

    The documents print no rounding rule; a fractional pay (3 to 2 on $5.25) is paid to the cent
    below, never above, what the odds give (docs/games/ultimate-texas-holdem.md).
    """
    exact = amount * odds.numerator / odds.denominator
    return exact.quantize(CENT, rounding=ROUND_DOWN)
