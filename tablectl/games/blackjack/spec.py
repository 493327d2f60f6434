"""Pure 21.5 Blackjack and Pure Spanish 21.5 (documents 000, 002, 003, 004) as one unit: their
`[game]` options and their GameSpec."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, model_validator

from tablectl.games.settings import FixedPay, GameSettings, StrictBool, StrictInt
from tablectl.games.spec import AnalyzeOption, GameSpec

if TYPE_CHECKING:
    from tablectl.config import TableConfig
    from tablectl.games.blackjack.variant_rules import Variant


def _backline_problems(spots: tuple[str, ...], allowed: tuple[str, ...]) -> None:
    """Each backline spot is one of the game's pre-deal wagers, named once."""
    for spot in spots:
        if spot not in allowed:
            raise ValueError(f"backline_spots: {spot!r} is not one of {', '.join(allowed)}")
    if len(set(spots)) != len(spots):
        raise ValueError("backline_spots: a spot is named twice")


class Pure215Game(GameSettings):
    """Pure 21.5 Blackjack (documents 000, 002, 003, 004; R10-R19) and its approval options.

    Defaults follow document 000's approval, except that a side bet is offered only when its pay
    table is named (TOML has no null); docs/games/blackjack.md lists each document's values.
    """

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "red_flex_table": ("blackjack.toml", "red-flex"),
        "buster_table": ("blackjack.toml", "buster"),
    }
    # 000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play" /
    # 004 "Pure 21.5 Blackjack: Description of Table Used and Total Number of Seated Positions":
    # "The table seats eight players"
    MAX_SEATS: ClassVar[int] = 8

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("000", "002", "003", "004")
    id: Literal["pure-21.5-blackjack"]
    # The rule document this table is approved under (docs/config.md): check-config holds the
    # collection schedule file and the pay tables to it. Unset: the one the data files name
    # (they must agree on one).
    document: Literal["000", "002", "003", "004"] | None = None
    # 000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used": "a single deck to
    # a maximum of eight decks"
    decks: StrictInt = Field(6, ge=1, le=8)
    # R11: 000 "Pure 21.5 Blackjack: Card Values and Hand Rankings" and
    # 003 "Pure 21.5 Blackjack 6 to 5: Value of the Cards" pay 6 to 5;
    # 003 "Pure 21.5 Blackjack 3 to 2: Value of the Cards" (the 3 to 2 approval) pays 3 to 2.
    pure_pays: Literal["6 to 5", "3 to 2"] = "6 to 5"
    # R18: RFB-02 (000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table Options"), RFB-12
    # (003 "Pure 21.5 Blackjack 3 to 2: Red Flex Bet"); left out: no Red Flex wager (004).
    red_flex_table: str | None = None
    # R19: option-5 (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet Pay Table"), option-1
    # (003 "Pure 21.5 Blackjack 3 to 2: Buster Blackjack Bonus Bet Pay Table",
    # 004 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet Pay Table"); left out: no Buster.
    buster_table: str | None = None
    # R17: 000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes", 003 "Pure 21.5
    # Blackjack 3 to 2: Insurance and Even Money", 004 "Pure 21.5 Blackjack: How Winners are
    # Determined and Paid" offer insurance with an ace up; even money (a pure hand's insurance of
    # exactly half) is written in 003 "Pure 21.5 Blackjack 3 to 2: Insurance and Even Money" and 004
    # "Pure 21.5 Blackjack: Double-Down, Split, Surrender, Insurance, and Even Money" only.
    insurance: StrictBool = True
    even_money: StrictBool = False
    # R2: 000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play" counts the action button
    # from the hole card; 003 "Pure 21.5 Blackjack 3 to 2: Round of Play" "The action on payouts
    # will always begin with the player to the left of the player-dealer position".
    action_start: Literal["action-button", "player-dealer-left"] = "action-button"
    # R3: 000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender" "from seat to seat: game
    # wager, Red Flex Bet, Buster Bet" (by-seat);
    # 003 "Pure 21.5 Blackjack 3 to 2: Round of Play" "all game wagers followed by all Red Flex
    # wagers and then all Buster" (by-spot).
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"
    # Which wagers a backline bettor may place:
    # 000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes" base, Red Flex and Buster;
    # 003 "Pure 21.5 Blackjack 3 to 2: Game Rules" "on the base game wager only";
    # 004 "Pure 21.5 Blackjack: How Winners are Determined and Paid" base and Buster.
    backline_spots: tuple[str, ...] = ("base", "red-flex", "buster")

    @model_validator(mode="after")
    def _backline_known(self) -> Pure215Game:
        """Backline is for the pre-deal wagers only (insurance is placed after the deal, R17)."""
        _backline_problems(self.backline_spots, ("base", "red-flex", "buster"))
        if self.even_money and not self.insurance:
            raise ValueError("even_money is an insurance wager (R17): it needs insurance = true")
        return self

    def fixed_pays(self) -> tuple[FixedPay, ...]:
        """A pure 21.5 (R11: 6 to 5 or 3 to 2) and, where offered, insurance (R17: 2 to 1)."""
        return _pays_of(self)

    def variant(self) -> Variant:
        """Pure 21.5 with what this table's approval chose: a pure 21.5's odds (R11), insurance
        and even money (R17)."""
        from tablectl.games.blackjack.variant_rules import PURE
        from tablectl.games.common import replace
        from tablectl.rules.blackjack import PURE_ODDS

        return replace(
            PURE,
            pure_odds=PURE_ODDS[self.pure_pays],
            insurance=self.insurance,
            even_money=self.even_money,
        )

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """At most eight places, the player-dealer's included (000 "Pure 21.5 Blackjack: Dealing
        Procedures and Round of Play", 004 "Pure 21.5 Blackjack: Description of Table Used and Total
        Number of Seated Positions")."""
        if table.seats.count > self.MAX_SEATS:
            return [
                (
                    "seats.count",
                    f"Pure 21.5 Blackjack seats at most {self.MAX_SEATS} players, the "
                    'player-dealer included (000 "Pure 21.5 Blackjack: Dealing Procedures and '
                    'Round of Play", 004 "Pure 21.5 Blackjack: Description of Table Used and '
                    'Total Number of Seated Positions")',
                )
            ]
        return []


class PureSpanish215Game(GameSettings):
    """Pure Spanish 21.5 with Match the Dealer (document 003; R10-R16, R20, R21)."""

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "match_dealer_table": ("blackjack.toml", "match-dealer"),
    }
    # 003 "Pure Spanish 21.5: Description of the Table Used and Total Number of Seated Positions":
    # "The table seats up to seven players"
    MAX_SEATS: ClassVar[int] = 7

    DOCUMENTS: ClassVar[tuple[str, ...]] = ("003",)
    id: Literal["pure-spanish-21.5"]
    # The rule document this table is approved under (docs/config.md): check-config holds the
    # collection schedule file and the pay tables to it. Unset: the one document that approves
    # the game.
    document: Literal["003"] | None = None
    # 003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used": "a minimum of four
    # decks ... eight decks"
    decks: StrictInt = Field(6, ge=4, le=8)
    # R20 / 003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender":
    # double-double down "If the player-dealer hits on a soft 17, the casino may allow"; tablectl's
    # player-dealer always hits soft 17 (Chart 1B, R14), so it may be on.
    double_double: StrictBool = False
    # R21: the Match the Dealer pay table (003 "Pure Spanish 21.5: Match the Dealer Card Bonus Bet
    # Pay Tables": "MATCH-003" in blackjack.toml); left out: no Match the Dealer wager (003 "Pure
    # Spanish 21.5: Match the Dealer Up Card Bonus Bet": "casinos may offer").
    match_dealer_table: str | None = None
    # R2: 003 "Pure Spanish 21.5: Dealing Procedures and Round of Play" "the payoff ... will begin
    # to the left of the player-dealer".
    action_start: Literal["action-button", "player-dealer-left"] = "player-dealer-left"
    # R3: 003 "Pure Spanish 21.5: Match the Dealer Up Card Bonus Bet" "from seat to seat: base game
    # wager, Match the Dealer Bonus Bet Wager".
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"
    # 003 "Pure Spanish 21.5: How Winners Are Determined and Paid": "Backline betting is permitted
    # on all wagers."
    backline_spots: tuple[str, ...] = ("base", "match-dealer")

    def fixed_pays(self) -> tuple[FixedPay, ...]:
        """A pure 21.5 (R11: 6 to 5 at a Spanish table); Pure Spanish 21.5 offers no insurance
        (R17)."""
        return _pays_of(self)

    def variant(self) -> Variant:
        """Pure Spanish 21.5 with what this table's approval chose: double-double down (R20)."""
        from tablectl.games.blackjack.variant_rules import SPANISH
        from tablectl.games.common import replace

        return replace(SPANISH, double_double=self.double_double)

    @model_validator(mode="after")
    def _backline_known(self) -> PureSpanish215Game:
        """Backline is for the game's own wagers only."""
        _backline_problems(self.backline_spots, ("base", "match-dealer"))
        return self

    def cross_check(self, table: TableConfig) -> list[tuple[str, str]]:
        """At most seven places, the player-dealer's included (003 "Pure Spanish 21.5: Description
        of the Table Used and Total Number of Seated Positions")."""
        if table.seats.count > self.MAX_SEATS:
            return [
                (
                    "seats.count",
                    f"Pure Spanish 21.5 seats up to {self.MAX_SEATS} players, the player-dealer "
                    'included (003 "Pure Spanish 21.5: Description of the Table Used and Total '
                    'Number of Seated Positions")',
                )
            ]
        return []


def _pays_of(game: Pure215Game | PureSpanish215Game) -> tuple[FixedPay, ...]:
    """What the table's variant pays (the settlement's own odds)."""
    from tablectl.rules.blackjack import INSURANCE_ODDS

    variant = game.variant()
    pays = [FixedPay("base", "a pure 21.5", variant.pure_odds)]
    if variant.insurance:
        pays.append(FixedPay("insurance", "the player-dealer has a pure 21.5", INSURANCE_ODDS))
    return tuple(pays)


SPEC = GameSpec(
    title="Pure 21.5 Blackjack and Pure Spanish 21.5",
    settings={"pure-21.5-blackjack": Pure215Game, "pure-spanish-21.5": PureSpanish215Game},
    engine="tablectl.games.blackjack.engine:BlackjackEngine",
    spots={
        "pure-21.5-blackjack": ("base", "red-flex", "buster", "insurance"),
        "pure-spanish-21.5": ("base", "match-dealer"),
    },
    dealt_from_shoe=True,
    analyzer="tablectl.analysis.blackjack_wagers:analyze_request",
    analyze_options=(
        AnalyzeOption(
            "--pure-pays",
            "blackjack base wager: what a Pure 21.5 pays (default 6 to 5)",
            choices=("6 to 5", "3 to 2"),  # 21.5 base wager (R11)
        ),
    ),
    screen="blackjack",
    recall_printer="tablectl.games.blackjack.recall:print_round",
    analyzed_wagers="tablectl.analysis.blackjack:ANALYZED",
    device_roles=(
        {
            "role": "the cards",
            "drivers": ("shoe", "line"),
            "needed": True,
            "most": 1,
            "why": '000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play": every card, '
            "hits included, comes out of the card-reading shoe as shoe.card",
        },
    ),
    snapshot_classes={
        "blackjack.BlackjackState": "tablectl.games.blackjack.state:BlackjackState",
        "blackjack.Hand": "tablectl.games.blackjack.state:Hand",
    },
)
