"""The retained `<base>/info` topic: which software a table runs and under
what, so a floor of many tables can tell at a glance which run which release, game, rules and
config file, and which devices (docs/mqtt.md "info"); and what the table posts under its rules
(`posted`: limits or stakes, pay tables, the collection schedule, the bet timer), which the
scoreboard page shows at the table (docs/scoreboard.md).

Like `status` it describes the running process, not the table's play: published from memory
(`Relay.notice`, retained, no `seq`, not journaled) by the daemon at start and again whenever
the rules in force change, and by the relay again after every connect. Pure: the daemon hands
in the config, the rules in force, the time and how to find a port's serial.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from tablectl import __version__
from tablectl.config import LoadedConfig
from tablectl.games.registry import spec_of
from tablectl.games.table_rules import Limits, Rules
from tablectl.rules.fees import Bracket, CollectionSchedule
from tablectl.rules.paytables import PayTable, odds_text
from tablectl.rules.poker_fees import PokerSchedule
from tablectl_base.money import fmt

SerialOf = Callable[[str], str | None]
"""A device port -> the serial behind it, None when unknown (the daemon's `port_serial`)."""


def rules_digest(rules: Rules) -> str:
    """ "sha256:<hex>" of the rules' canonical JSON: `Rules.to_json()` with sorted keys, no
    spaces, UTF-8. The `config` record the journal holds carries the same JSON (`rules`), so
    anyone with an export can recompute it."""
    text = json.dumps(rules.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"sha256:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def devices(cfg: LoadedConfig, serial_of: SerialOf) -> list[dict[str, str]]:
    """Each configured device: its name, its driver (the device class: a built-in such as
    `shoe`, or a vendor plugin's name) and, only where it is known, the serial behind its port."""
    out: list[dict[str, str]] = []
    for dev in cfg.table.devices:
        entry = {"name": dev.name, "driver": dev.driver}
        serial = serial_of(dev.port)
        if serial is not None:
            entry["serial"] = serial
        out.append(entry)
    return out


def info_payload(
    cfg: LoadedConfig, rules: Rules, *, ts: str, serial_of: SerialOf
) -> dict[str, Any]:
    """The `info` payload without `table` (the daemon puts it first, as in every notice).

    `rules` are the rules in force (the journal's), which differ from the config file's while a
    change waits for the end of a round; `config_digest` is the file's as loaded (None for a
    config built in memory); `heartbeat_seconds` how often the table says it is online
    (`heartbeat_seconds`); `posted` is what the table posts under those rules (limits, pay
    tables, collection schedule, bet timer: `posted`); `ts` is when this info was made; `screen`
    the scoreboard view that draws the game (its spec's `screen`, web/views/)."""
    return {
        "version": __version__,
        "game": rules.game.id,
        "screen": spec_of(rules.game.id).screen,
        "rules_digest": rules_digest(rules),
        "config_digest": cfg.digest,
        "devices": devices(cfg, serial_of),
        "heartbeat_seconds": heartbeat_seconds(cfg),
        "posted": posted(rules),
        "ts": ts,
    }


def heartbeat_seconds(cfg: LoadedConfig) -> int | None:
    """How often the table says `status` "online" again (`[mqtt] heartbeat_seconds`), None when
    it says it only after each connect: a page marks the table stale after two intervals without
    word from it (docs/mqtt.md `status`, web/page.js `TablectlPage.liveness`)."""
    every = cfg.table.mqtt.heartbeat_seconds
    return every if every > 0 else None


def posted(rules: Rules) -> dict[str, Any]:
    """What a card room posts at the table, from the rules in force: the table
    limits (a banked game's, with any spot's own), the game's own terms
    (`GameSettings.posted_terms`: a poker room's stakes, say), the pays the rules fix
    (`GameSettings.fixed_pays`), each pay table the rules carry, the collection schedule (R4 or
    R44) and the bet timer where one runs. Money is text with two places and a pay is "N to D"
    odds, as `tablectl analyze` writes them; keys are the rules' own
    (the journal's `config` record), so a figure can be traced there."""
    out: dict[str, Any] = {}
    if rules.limits is not None:
        out["limits"] = _limits(rules.limits)
    game = rules.game
    out.update(game.posted_terms(rules))
    out["pays"] = [
        {"wager": p.wager, "hand": p.hand, "pays": odds_text(p.odds)} for p in game.fixed_pays()
    ]
    out["paytables"] = [_paytable(table) for table in rules.paytables.values()]
    schedule = rules.schedule
    if isinstance(schedule, CollectionSchedule):
        out["collection"] = _banked_collection(schedule)
    else:
        out["collection"] = _poker_collection(schedule)
    timer = game.bet_timer()
    if timer > 0:
        out["bet_timer"] = timer
    return out


def _limits(limits: Limits) -> dict[str, Any]:
    return {
        "min": fmt(limits.min),
        "max": fmt(limits.max),
        "spots": {s: {"min": fmt(x.min), "max": fmt(x.max)} for s, x in limits.spots.items()},
    }


def _paytable(table: PayTable) -> dict[str, Any]:
    """One pay table as the rules hold it: its name, the wager it settles, and each winning
    hand's pay in the table's order; the Envy amounts where the table has them (R32)."""
    out: dict[str, Any] = {
        "name": table.name,
        "wager": table.wager,
        "pays": [{"hand": hand, "pays": odds_text(pay)} for hand, pay in table.pays.items()],
    }
    if table.envy:
        out["envy"] = [{"hand": hand, "amount": fmt(pay)} for hand, pay in table.envy.items()]
    return out


def _brackets(brackets: tuple[Bracket, ...]) -> list[dict[str, str]]:
    return [{"min_action": fmt(b.min_action), "fee": fmt(b.fee)} for b in brackets]


def _banked_collection(schedule: CollectionSchedule) -> dict[str, Any]:
    """An R4 schedule option: its table limit, the player-dealer's fee by total table action,
    and the player's fee (flat per wager or per player, or by the wager's size, on some spots)."""
    return {
        "option": schedule.option,
        "table_min": fmt(schedule.table_min),
        "table_max": fmt(schedule.table_max),
        "brackets": _brackets(schedule.brackets),
        "player_fee": fmt(schedule.player_fee),
        "player_fee_per": schedule.player_fee_per,
        "player_fee_brackets": _brackets(schedule.player_fee_brackets),
        "player_fee_spots": list(schedule.player_fee_spots),
    }


def _poker_collection(schedule: PokerSchedule) -> dict[str, Any]:
    """An R44 schedule: per hand or per half hour, the fee by the number of players, the fee of
    a hand that ends before the flop, and what the option posts with it."""
    return {
        "options": list(schedule.options),
        "per": schedule.per,
        "rates": [
            {"min_players": r.min_players, "max_players": r.max_players, "fee": fmt(r.fee)}
            for r in schedule.rates
        ],
        "modified_fee": None if schedule.modified_fee is None else fmt(schedule.modified_fee),
        "table_limits": [
            {"lower": fmt(x.lower), "higher": fmt(x.higher)} for x in schedule.table_limits
        ],
        "structure": schedule.structure,
        "buy_in": None if schedule.buy_in is None else fmt(schedule.buy_in),
        "button_fee": None if schedule.button_fee is None else fmt(schedule.button_fee),
    }
