"""The mistakes a technician makes writing a table config by hand, each through
the real command line: `tablectl check-config --config FILE` exits 2 and prints one
`FILE: key.path: reason` line per problem, at the exact key, echoing the value it saw, with no
traceback; what only surprises at the table is a warning (exit 0). Every shipped table config
passes with neither."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import pytest
from pydantic import BaseModel, BeforeValidator, Strict

from tablectl.cli import main
from tablectl.config import ConfigError, load_config, parse_config
from tablectl.games.registry import settings_models
from tablectl_base.money import parse_money

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config"

Edit = Callable[[str], str]


def replace(old: str, new: str) -> Edit:
    """An edit of the config text that fails loudly if the shipped file no longer has `old`."""

    def edit(text: str) -> str:
        assert old in text, f"the shipped config no longer contains {old!r}"
        return text.replace(old, new, 1)

    return edit


def add_device(name: str, driver: str, port: str, extra: str = "") -> Edit:
    """One more [[devices]] entry, after the shipped ones (before [mqtt])."""
    block = f'[[devices]]\nname = "{name}"\ndriver = "{driver}"\nport = "{port}"\n{extra}\n'
    return replace("[mqtt]", f"{block}[mqtt]")


def drop_devices(text: str) -> str:
    """The config with every [[devices]] entry (and its options) taken out."""
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        header = line.strip()
        if header.startswith("["):
            skipping = header.startswith(("[[devices]]", "[devices."))
        if not skipping:
            out.append(line)
    assert len(out) < len(text.splitlines()), "the shipped config has no devices"
    return "".join(out)


def write(tmp_path: Path, shipped: str, *edits: Edit) -> Path:
    """A shipped config as a technician edits it: schedules found, the journal in tmp_path.

    The shipped ports are the udev names (/dev/tablectl-shoe ...), not there on a test machine:
    once the edits are made, /dev/null (a character device, as a serial port is) stands in for
    each, so that a test sees the absent-port warning only where it adds such a port itself."""
    text = (CONFIG / shipped).read_text(encoding="utf-8")
    text = text.replace('file = "schedules/', f'file = "{CONFIG}/schedules/')
    text = re.sub(r'path = "/var/lib/tablectl/[^"]+"', f'path = "{tmp_path}/table.db"', text)
    for edit in edits:
        text = edit(text)
    text = re.sub(r'port = "/dev/tablectl-[^"]+"', 'port = "/dev/null"', text)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def check_config(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["check-config", "--config", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def lines(err: str, path: Path, prefix: str = "") -> list[tuple[str, str]]:
    """Every stderr line as (key, reason); each names the file first."""
    found = []
    for line in err.strip().splitlines():
        m = re.match(rf"^{prefix}{re.escape(str(path))}: (?P<key>[^:]+): (?P<reason>.+)$", line)
        assert m, f"not a '{prefix}FILE: key.path: reason' line: {line!r}"
        found.append((m["key"], m["reason"]))
    return found


def refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shipped: str, *edits: Edit
) -> list[tuple[str, str]]:
    """check-config's problems with the edited config: exit 2, nothing on stdout."""
    path = write(tmp_path, shipped, *edits)
    code, out, err = check_config(path, capsys)
    assert code == 2, (out, err)
    assert out == ""
    return lines(err, path)


def only(problems: list[tuple[str, str]], key: str, *said: str) -> None:
    """Exactly one problem, at `key`, saying each of `said` (the value seen among them)."""
    assert len(problems) == 1, problems
    (got_key, reason), *_ = problems
    assert got_key == key, problems
    for text in said:
        assert text in reason, (text, reason)


BJ = "pure-21.5-blackjack-000.toml"
PGP = "fortune-pai-gow-003.toml"
BAC = "ez-baccarat-panda8.toml"


# -- device roles: which devices a game takes ---------------------------------------------------


def test_a_card_reading_shoe_at_pai_gow_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, PGP, add_device("shoe", "shoe", "/dev/tablectl-shoe"))
    only(problems, "devices[2].driver", 'driver "shoe"', "fortune-pai-gow", "hand-dispenser")


def test_a_shuffler_at_blackjack_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, BJ, add_device("shuffler", "shuffler", "/dev/x"))
    only(problems, "devices[1].driver", 'driver "shuffler"', "pure-21.5-blackjack", "shoe")


def test_a_blackjack_table_without_a_card_device_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, BJ, drop_devices)
    only(problems, "devices", "needs a device for the cards", "shoe or line", "none is configured")


def test_a_blackjack_config_built_in_memory_without_a_card_device_is_refused_too(
    tmp_path: Path,
) -> None:
    """The needed-device check is parse_config's, not only load_config's: a config a test or a
    tool builds in memory is refused for the same missing shoe, at the same key."""
    path = write(tmp_path, BJ, drop_devices)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError) as from_memory:
        parse_config(data, path)
    with pytest.raises(ConfigError) as from_file:
        load_config(path)
    assert from_memory.value.problems == from_file.value.problems
    (problem,) = from_memory.value.problems
    assert problem.key == "devices"
    assert "pure-21.5-blackjack needs a device for the cards: shoe or line" in problem.reason
    assert "none is configured" in problem.reason


def test_a_second_shoe_at_blackjack_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, BJ, add_device("shoe2", "shoe", "/dev/tablectl-shoe2"))
    only(problems, "devices[1].driver", "at most 1 device for the cards", "devices[0], devices[1]")


def test_a_poker_table_reader_at_baccarat_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, BAC, add_device("reader", "poker-table", "/dev/x"))
    only(problems, "devices[2].driver", 'driver "poker-table"', "ez-baccarat-panda8")


def test_a_reader_at_chinese_poker_which_takes_no_device_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = add_device("reader", "poker-table", "/dev/tablectl-poker-table")
    problems = refused(tmp_path, capsys, "chinese-poker-003.toml", edit)
    only(problems, "devices[0].driver", 'driver "poker-table"', "it takes no devices")


# -- stack sizes and dice ---------------------------------------------------------------------


def test_stack_size_5_at_pai_gow_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace("stack_size = 7 ", "stack_size = 5 ")
    problems = refused(tmp_path, capsys, PGP, edit)
    only(problems, "devices[1].options.stack_size", "stack_size must be 7, not 5")


def test_a_shuffler_left_at_its_default_stack_of_3_at_pai_gow_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edits = (
        replace('driver = "hand-dispenser"', 'driver = "shuffler"'),
        replace("stack_size = 7 ", "# stack_size = 7 "),
    )
    problems = refused(tmp_path, capsys, PGP, *edits)
    only(problems, "devices[1].options.stack_size", "must be 7", "unset, so shuffler's default 3")


def test_a_pai_gow_stack_of_7_at_three_card_poker_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace("stack_size = 3 ", "stack_size = 7 ")
    problems = refused(tmp_path, capsys, "three-card-poker-6cb-003.toml", edit)
    only(problems, "devices[0].options.stack_size", "stack_size must be 3, not 7")


def test_ultimate_with_board_stacks_only_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace("stack_size = [2, 5]", "stack_size = 5")
    problems = refused(tmp_path, capsys, "ultimate-texas-holdem-003.toml", edit)
    only(problems, "devices[0].options.stack_size", "stack_size must be [2, 5], not 5")


def test_two_dice_at_pai_gow_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, PGP, replace("dice = 3 ", "dice = 2 "))
    only(problems, "devices[0].options.dice", "dice must be 3, not 2")


# -- empty text and wrong types (nothing converted) -------------------------------------------


@pytest.mark.parametrize(
    ("edit", "key", "said"),
    [
        (replace('port = "/dev/tablectl-shoe"', 'port = ""'), "devices[0].port", 'empty ("")'),
        (
            lambda text: re.sub(r'^path = ".*"', 'path = ""', text, count=1, flags=re.M),
            "journal.path",
            'empty ("")',
        ),
        (replace('driver = "shoe"', 'driver = ""'), "devices[0].driver", 'empty ("")'),
        (replace('host = "127.0.0.1"', 'host = ""'), "mqtt.host", 'empty ("")'),
    ],
    ids=["device port", "journal path", "driver", "broker host"],
)
def test_empty_text_is_refused_at_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit, key: str, said: str
) -> None:
    only(refused(tmp_path, capsys, BJ, edit), key, said)


@pytest.mark.parametrize(
    ("edit", "key", "said"),
    [
        (
            replace('port = "/dev/tablectl-shoe"', "port = 18870"),
            "devices[0].port",
            "must be text in quotes, not 18870",
        ),
        (
            replace("port = 1883", 'port = "18870"'),
            "mqtt.port",
            'must be a whole number written without quotes, not "18870"',
        ),
        (
            replace("baud = 9600", 'baud = "9600"'),
            "devices[0].baud",
            'must be a whole number written without quotes, not "9600"',
        ),
        (
            replace("count = 8 ", "count = 8.0 "),
            "seats.count",
            "must be a whole number written without quotes, not 8.0",
        ),
        (
            replace("option = 1 ", 'option = "1" '),
            "collection.option",
            'must be a whole number written without quotes, not "1"',
        ),
        (
            replace('host = "127.0.0.1"', 'host = "127.0.0.1"\nenabled = "yes"'),
            "mqtt.enabled",
            'must be true or false, without quotes, not "yes"',
        ),
    ],
    ids=[
        "number for a port path",
        "text for the broker port",
        "text baud",
        "float seats",
        "text option",
        "text bool",
    ],
)
def test_a_wrong_type_is_refused_not_converted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit, key: str, said: str
) -> None:
    only(refused(tmp_path, capsys, BJ, edit), key, said)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("-1", "greater than or equal to 0"),
        ("3601", "less than or equal to 3600"),
        ('"5"', 'must be a whole number written without quotes, not "5"'),
        ("2.5", "must be a whole number written without quotes, not 2.5"),
    ],
    ids=["negative", "over an hour", "text", "fraction"],
)
def test_the_heartbeat_is_off_or_whole_seconds_up_to_an_hour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, said: str
) -> None:
    """`[mqtt] heartbeat_seconds`: 0 (off) or 1..3600, a whole number."""
    edit = replace('host = "127.0.0.1"', f'host = "127.0.0.1"\nheartbeat_seconds = {value}')
    only(refused(tmp_path, capsys, BJ, edit), "mqtt.heartbeat_seconds", said)


def test_the_heartbeat_and_keepalive_defaults(tmp_path: Path) -> None:
    """A status every 5 s, and a keepalive of 8 s: Mosquitto 2.0.11 publishes the Will 12-19 s
    after the link falls silent (1.5 keepalives, looked at every 6 s; docs/config.md), after a
    page has marked the table stale (10 s: two heartbeats)."""
    mqtt = load_config(write(tmp_path, BJ)).table.mqtt
    assert (mqtt.heartbeat_seconds, mqtt.keepalive) == (5, 8)
    off = replace('host = "127.0.0.1"', 'host = "127.0.0.1"\nheartbeat_seconds = 0')
    assert load_config(write(tmp_path, BJ, off)).table.mqtt.heartbeat_seconds == 0


# -- [game] options: nothing converted there either --------------------------------------------

SP = "pure-spanish-21.5-003.toml"
CP = "chinese-poker-003.toml"


@pytest.mark.parametrize(
    ("shipped", "edit", "key", "said"),
    [
        (
            BJ,
            replace("decks = 6 ", 'decks = "6" '),
            "game.decks",
            'must be a whole number written without quotes, not "6"',
        ),
        (
            BJ,
            replace("decks = 6 ", "decks = 6.0 "),
            "game.decks",
            "must be a whole number written without quotes, not 6.0",
        ),
        (
            BAC,
            replace("decks = 8 ", "decks = true "),
            "game.decks",
            "must be a whole number written without quotes, not true",
        ),
        (
            BAC,
            replace("bet_timer_seconds = 0 ", 'bet_timer_seconds = "30" '),
            "game.bet_timer_seconds",
            'must be a whole number written without quotes, not "30"',
        ),
        (
            BJ,
            replace("insurance = true ", 'insurance = "true" '),
            "game.insurance",
            'must be true or false, without quotes, not "true"',
        ),
        (
            BAC,
            replace("banker_push_on_dragon7 = false", "banker_push_on_dragon7 = 0"),
            "game.banker_push_on_dragon7",
            "must be true or false, without quotes, not 0",
        ),
        (
            SP,
            replace("double_double = true", 'double_double = "yes"'),
            "game.double_double",
            'must be true or false, without quotes, not "yes"',
        ),
        (
            CP,
            replace("options = [2] ", 'options = ["2"] '),
            "game.collection.options[0]",
            'must be a whole number written without quotes, not "2"',
        ),
    ],
    ids=[
        "text decks",
        "float decks",
        "bool decks",
        "text bet timer",
        "text insurance",
        "number for a bool",
        "text double-double",
        "text collection option",
    ],
)
def test_a_game_option_of_the_wrong_type_is_refused_not_converted(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shipped: str,
    edit: Edit,
    key: str,
    said: str,
) -> None:
    only(refused(tmp_path, capsys, shipped, edit), key, said)


@pytest.mark.parametrize("point", ['"5"', '"5.0"', '"5.00"', "5"])
def test_game_money_written_as_the_docs_say_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], point: str
) -> None:
    """docs/config.md: money is text of ASCII digits with up to two decimals, or an integer."""
    path = write(tmp_path, CP, replace('point = "5" ', f"point = {point} "))
    code, out, err = check_config(path, capsys)
    assert (code, err) == (0, ""), err
    assert out.startswith(f"{path}: ok: ")


@pytest.mark.parametrize(
    ("edit", "key", "said"),
    [
        (replace('point = "5" ', "point = 5.0 "), "game.point", "not 5.0"),
        (replace('point = "5" ', "point = true "), "game.point", "not true"),
        (replace('point = "5" ', 'point = "$5" '), "game.point", '"$5" has a currency sign'),
        (replace('point = "5" ', 'point = "5,00" '), "game.point", '"5,00" has a comma'),
        (replace('point = "5" ', 'point = "5E0" '), "game.point", '"5E0" has an exponent'),
        (replace('chip = "1"', 'chip = "0.333"'), "game.chip", '"0.333" has fractions of a cent'),
    ],
    ids=["float", "bool", "currency sign", "comma", "exponent", "fraction of a cent"],
)
def test_game_money_not_written_as_the_docs_say_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit, key: str, said: str
) -> None:
    only(refused(tmp_path, capsys, CP, edit), key, said)


def test_poker_blinds_as_a_float_are_refused_at_the_blind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace('blinds = ["1", "2"]', 'blinds = ["1", 2.0]')
    problems = refused(tmp_path, capsys, "texas-holdem-003.toml", edit)
    only(problems, "game.blinds[1]", "not 2.0")


def _lax_fields(model: type[BaseModel], seen: set[type[BaseModel]]) -> list[str]:
    """Every field of `model` (and the models in it) that pydantic would convert into: an int,
    bool, float or Decimal without Strict(), money excepted (parse_money has its own rule)."""
    if model in seen:
        return []
    seen.add(model)
    found = []

    def lax(annotation: Any, metadata: tuple[Any, ...] | list[Any]) -> bool:
        if get_origin(annotation) is Annotated:
            base, *more = get_args(annotation)
            return lax(base, [*metadata, *more])
        if annotation in (int, bool, float):
            return not any(isinstance(m, Strict) and m.strict for m in metadata)
        if annotation is Decimal:
            return not any(
                isinstance(m, BeforeValidator) and m.func is parse_money for m in metadata
            )
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found.extend(_lax_fields(annotation, seen))
            return False
        return any(lax(arg, ()) for arg in get_args(annotation) if arg is not Ellipsis)

    for name, info in model.model_fields.items():
        if lax(info.annotation, info.metadata):
            found.append(f"{model.__name__}.{name}: {info.annotation}")
    return found


def test_every_game_option_is_strict() -> None:
    """No game's [game] option converts text, floats or numbers into another type: the rule is
    in the types (tablectl/games/settings.py StrictInt, StrictBool; Money), checked here for every
    registered game, so a new option of a lax type fails this test."""
    seen: set[type[BaseModel]] = set()
    lax = [f for model in settings_models().values() for f in _lax_fields(model, seen)]
    assert lax == []
    assert len(seen) > len(settings_models())  # nested models (collection, limits) walked too


# -- each problem once, at its key, with the value seen ----------------------------------------


def test_a_float_money_value_is_reported_once_at_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(
        tmp_path, capsys, BAC, replace('min = "5"\nmax = "500"', 'min = 5.5\nmax = "500"')
    )
    only(problems, "limits.min", "5.5")


def test_a_duplicate_device_name_is_reported_at_the_second_device(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace('name = "dispenser"', 'name = "dice"')
    problems = refused(tmp_path, capsys, PGP, edit)
    only(problems, "devices[1].name", '"dice" is already the name of devices[0]')


def test_a_wrong_game_id_is_echoed_at_game_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace('id = "fortune-pai-gow"', 'id = "fortune-pai-gow-poker"')
    problems = refused(tmp_path, capsys, PGP, edit)
    only(problems, "game.id", 'unknown game id "fortune-pai-gow-poker"', "fortune-pai-gow,")


def test_a_missing_game_id_is_reported_at_game_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, PGP, replace('id = "fortune-pai-gow"', ""))
    only(problems, "game.id", "required key is missing")


def test_a_site_that_cannot_be_a_topic_is_explained_not_shown_as_a_regex(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = refused(tmp_path, capsys, BJ, replace('site = "cardroom-1"', 'site = "card room 1"'))
    only(problems, "site", '"card room 1" is not usable', "letters, digits")
    assert "^" not in problems[0][1] and "[A-Za-z" not in problems[0][1]


def test_a_character_that_would_not_show_is_written_as_its_escape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A no-break space pasted into an id (it printed as a plain space, "card room 1", where
    the file has no space at all to find) and a DEL are shown as TOML escapes them."""
    edit = replace('site = "cardroom-1"', 'site = "card\\u00a0room\\u007f1"')  # TOML escapes
    problems = refused(tmp_path, capsys, BJ, edit)
    only(problems, "site", '"card\\u00A0room\\u007F1" is not usable')


# -- warned of, not refused ---------------------------------------------------------------------


def test_silence_timeout_on_a_shoe_is_a_warning_not_a_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace("baud = 9600", "baud = 9600\noptions = { silence_timeout = 10 }")
    path = write(tmp_path, BJ, edit)
    code, out, err = check_config(path, capsys)
    assert code == 0 and "ok, with warnings" in out
    (key, reason), *more = lines(err, path, prefix="warning: ")
    assert not more
    assert key == "devices[0].options.silence_timeout"
    assert "10 seconds" in reason and "optional" in reason and "SILENT" in reason


PLUGIN = """
class VendorReader:
    def __init__(self, name, port, baud, options):
        self.name = name

    async def run(self, sink):
        pass
"""


def test_a_vendor_plugin_device_is_allowed_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin (a real distribution on sys.path) whose role check-config cannot tell: allowed,
    with a warning, even where the game needs a device only it may be filling."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "vendor_reader_pkg.py").write_text(PLUGIN)
    info = site / "vendor_reader-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vendor-reader\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[tablectl.drivers]\nvendor-reader = vendor_reader_pkg:VendorReader\n"
    )
    monkeypatch.syspath_prepend(str(site))
    path = write(tmp_path, BJ, drop_devices, add_device("reader", "vendor-reader", "/dev/x"))
    code, _, err = check_config(path, capsys)
    assert code == 0, err
    warned = dict(lines(err, path, prefix="warning: "))
    assert 'driver "vendor-reader" is a vendor plugin' in warned["devices[0].driver"]
    assert "unless a plugin's device is it" in warned["devices"]
    monkeypatch.delitem(__import__("sys").modules, "vendor_reader_pkg", raising=False)


# -- every shipped table config passes ------------------------------------------------------------


def _table_configs() -> list[Path]:
    found = []
    for path in sorted(CONFIG.rglob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if {"site", "table", "game", "journal"} <= data.keys():
            found.append(path)
    return found


SHIPPED = _table_configs()


def test_the_shipped_table_configs_are_found() -> None:
    assert len(SHIPPED) >= 20
    assert CONFIG / BJ in SHIPPED and CONFIG / PGP in SHIPPED


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_table_config_passes_warning_only_of_ports_not_plugged_here(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The only warning is the one a table PC without its devices plugged in gets: each
    /dev/tablectl-* port (the udev names) that is not on this machine."""
    code, out, err = check_config(path, capsys)
    assert code == 0, err
    absent = [
        (f"devices[{i}].port", f'"{d["port"]}" is not there (yet)')
        for i, d in enumerate(tomllib.loads(path.read_text(encoding="utf-8")).get("devices", []))
        if not Path(d["port"]).exists()
    ]
    warned = lines(err, path, prefix="warning: ")
    assert len(warned) == len(absent), warned
    starts = [(key, reason[: len(s)]) for (key, reason), (_, s) in zip(warned, absent, strict=True)]
    assert starts == absent
    assert out.startswith(f"{path}: {'ok, with warnings' if absent else 'ok'}: ")
    # the ok line is a technician's: no ruling (R44) or issue numbers, which are the docs'
    assert re.search(r"\bR\d+|\bissue \d+|\bcontract \d+", out) is None, out
