"""The one fee calculator every game calls (R4): a wager is charged once however many times chips
were added to it, and its bracket is that of its whole amount."""

from __future__ import annotations

from decimal import Decimal

from tablectl.games.common import PlacedWager
from tablectl.rules.fees import CollectionSchedule
from tablectl.rules.settlement import collection_fees

D = Decimal


def schedule(**extra: object) -> CollectionSchedule:
    return CollectionSchedule.model_validate(
        {
            "option": 1,
            "table_min": "5",
            "table_max": "500",
            "brackets": [{"from": "5", "fee": "1"}, {"from": "50", "fee": "2"}],
            **extra,
        }
    )


def test_chips_added_to_one_wager_pay_one_player_fee_R4() -> None:
    # p1 puts 10 on base, then 10 more: one $20 base wager, one $0.50 player fee; total action
    # 20 + 40 = 60 reaches the "$50" bracket: the player-dealer pays $2.
    wagers = [
        PlacedWager(1, "p1", "base", D(10)),
        PlacedWager(2, "p2", "base", D(40)),
        PlacedWager(1, "p1", "base", D(10)),
    ]
    fees = collection_fees(schedule(player_fee="0.50"), 4, wagers)
    assert [(f.payer, f.seat, f.amount) for f in fees] == [
        ("player-dealer", 4, D("2.00")),
        ("player", 1, D("0.50")),
        ("player", 2, D("0.50")),
    ]
    assert fees[0].total_action == D(60)


def test_a_bracketed_player_fee_is_priced_on_the_whole_wager_R4() -> None:
    # Player fee $1 from $5, $3 from $100: two chip placements of 60 make one $120 wager: $3.
    bracketed = schedule(
        player_fee_brackets=[{"from": "5", "fee": "1"}, {"from": "100", "fee": "3"}],
    )
    wagers = [PlacedWager(1, "p1", "ante", D(60)), PlacedWager(1, "p1", "ante", D(60))]
    fees = collection_fees(bracketed, 4, wagers)
    assert [(f.payer, f.amount) for f in fees] == [
        ("player-dealer", D("2.00")),
        ("player", D("3.00")),
    ]
