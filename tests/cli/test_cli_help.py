"""A command line that explains itself: `--version`; every subcommand of the real
parser with a description, an example and help on every option; choices listed; `--config`
everywhere with the default path; the exit codes documented and kept."""

from __future__ import annotations

import argparse
import functools
import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tablectl
import tablectl.cli.analyze
import tablectl.cli.app
import tablectl.cli.common
from tablectl.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE, main
from tablectl.cli.app import build_parser
from tablectl.cli.common import DEFAULT_CONFIG

REPO = Path(__file__).resolve().parents[2]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand of the parser `tablectl` runs, by name."""
    parser = build_parser()
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


COMMANDS = sorted(subcommands())


def test_every_command_is_walked() -> None:
    assert {"run", "check-config", "analyze", "devices", "verify-journal", "recall"} <= set(
        COMMANDS
    )


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == EXIT_OK
    assert capsys.readouterr().out == f"tablectl {tablectl.__version__}\n"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_subcommand_has_a_description_and_an_example(name: str) -> None:
    sub = subcommands()[name]
    assert sub.description and len(sub.description.strip()) > 20, name
    assert sub.epilog is not None
    examples = [ln.strip() for ln in sub.epilog.splitlines() if ln.strip().startswith("tablectl ")]
    assert examples, f"{name}: no example line starting with 'tablectl '"
    assert any(e.split()[1] == name for e in examples), examples
    # the examples are shown as written (not re-wrapped)
    assert sub.formatter_class is argparse.RawDescriptionHelpFormatter
    assert examples[0] in sub.format_help()


INTERNAL_NUMBERS = re.compile(r"\bR\d+|\bissue \d+|\bcontract \d+", re.IGNORECASE)
"""How the code and the docs cite a ruling (R26), an issue or the design
(DESIGN contract 4): words for the team, not for a technician reading --help."""


@pytest.mark.parametrize("name", [None, *COMMANDS])
def test_no_help_text_cites_a_ruling_an_issue_or_a_design_contract(name: str | None) -> None:
    """`tablectl --help` and each `tablectl COMMAND --help` say what things do in a technician's
    words; the rulings behind them are in the docs."""
    parser = build_parser() if name is None else subcommands()[name]
    text = parser.format_help()
    assert INTERNAL_NUMBERS.findall(text) == [], text


def test_the_internal_numbers_pattern_finds_what_it_is_for() -> None:
    """The three forms the issue found in the help texts, and none of the look-alikes."""
    found = INTERNAL_NUMBERS.findall(
        'DESIGN contract 4; the R26 option; (default 6 to 5, R11); issue 15 item 4; "(R44)"'
    )
    assert found == ["contract 4", "R26", "R11", "issue 15", "R44"]
    assert INTERNAL_NUMBERS.findall("RFB-02, TCB-6B4, 3 to 2, /dev/ttyUSB0, --round 12") == []


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_has_help_text(name: str) -> None:
    for action in subcommands()[name]._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        what = action.option_strings or [action.dest]
        assert action.help and action.help != argparse.SUPPRESS, f"{name} {what}: no help"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_example_parses(name: str) -> None:
    """An example that the parser refuses would teach the wrong thing."""
    sub = subcommands()[name]
    assert sub.epilog is not None
    for line in sub.epilog.splitlines():
        if line.strip().startswith("tablectl "):
            command = line.split("#")[0].split("|")[0].split(">")[0]  # less comment, pipe
            build_parser().parse_args(command.split()[1:])


def test_analyze_lists_games_and_wagers_from_the_registry_and_analyses() -> None:
    from tablectl.analysis import blackjack, pai_gow, three_card_poker, ultimate
    from tablectl.games.registry import game_ids, spec_of, spots_of

    analyze = subcommands()["analyze"]
    options = {o: a for a in analyze._actions for o in a.option_strings}
    analyzed = [g for g in game_ids() if spec_of(g).analyzer is not None]
    assert options["--game"].choices == analyzed
    wagers = {
        *spots_of("ez-baccarat-panda8"),
        *(w for ws in blackjack.ANALYZED.values() for w in ws),
        *pai_gow.WAGERS,
        *three_card_poker.WAGERS,
        *ultimate.WAGERS,
    }
    text = analyze.format_help()
    listed = {
        w
        for line in text.split("wagers by game:\n")[1].split("\n\n")[0].splitlines()
        for w in line.split(":")[1].split()
    }
    assert listed == wagers
    assert "pure-21.5-blackjack: base red-flex buster insurance" in text
    assert "ez-baccarat-panda8: player banker tie dragon7 panda8" in text
    # the game's own refusal, naming its wagers (not one list of every game's)
    assert main(["analyze", "--game", "three-card-poker-6cb", "--wager", "play"]) == EXIT_USAGE
    decks = options["--decks"].help or ""
    assert "pure-21.5-blackjack 6" in decks and "ez-baccarat-panda8 8" in decks
    assert "{6 to 5,3 to 2}" in text  # --pure-pays


@pytest.mark.parametrize("name", ["run", "replay", "collect-heads", "archive", "import"])
def test_config_defaults_to_the_etc_path_and_says_so(name: str) -> None:
    options = {o: a for a in subcommands()[name]._actions for o in a.option_strings}
    assert options["--config"].default == DEFAULT_CONFIG == Path("/etc/tablectl/table.toml")
    assert "/etc/tablectl/table.toml" in (options["--config"].help or "")


@pytest.mark.parametrize(
    "name", ["check-config", "recall", "verify-journal", "export", "devices", "broker-acl"]
)
def test_config_is_taken_as_config_everywhere(name: str) -> None:
    options = {o: a for a in subcommands()[name]._actions for o in a.option_strings}
    assert "/etc/tablectl/table.toml" in (options["--config"].help or "")


def test_a_missing_default_config_is_a_config_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "etc" / "table.toml"
    monkeypatch.setattr(tablectl.cli.common, "DEFAULT_CONFIG", absent)
    for argv in (["check-config"], ["recall"], ["verify-journal"], ["archive"]):
        assert main(argv) == EXIT_USAGE, argv
        err = capsys.readouterr().err
        assert str(absent) in err and "cannot read" in err and "Traceback" not in err


SHIPPED = REPO / "config" / "ez-baccarat-panda8.toml"


def test_check_config_takes_config_and_the_positional_form(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-config", "--config", str(SHIPPED)]) == EXIT_OK
    assert capsys.readouterr().out.startswith(f"{SHIPPED}: ok")
    assert main(["check-config", str(SHIPPED)]) == EXIT_OK  # kept for compatibility
    assert capsys.readouterr().out.startswith(f"{SHIPPED}: ok")
    monkeypatch.setattr(tablectl.cli.common, "DEFAULT_CONFIG", SHIPPED)
    assert main(["check-config"]) == EXIT_OK
    assert capsys.readouterr().out.startswith(f"{SHIPPED}: ok")


def test_check_config_given_twice_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", "--config", str(SHIPPED), str(SHIPPED)]) == EXIT_USAGE
    assert "give the config once" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["no-such-command"],
        ["analyze", "--game", "ez-baccarat-panda8"],
        ["analyze", "--game", "ez-baccarat-panda8", "--wager", "tie", "--decks", "eight"],
        ["devices", "--no-such-option"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and "usage: tablectl" in err


def test_exit_codes_are_documented_in_one_place() -> None:
    doc = tablectl.cli.app.__doc__ or ""
    assert (EXIT_OK, EXIT_FAIL, EXIT_USAGE) == (0, 1, 2)
    for line in ("0  ok", "1  a check failed", "2  usage or config error"):
        assert line in doc
    ops = (REPO / "docs" / "operations.md").read_text()
    assert "## Exit codes" in ops


# -- analyze: per-game defaults, the exact headline, intervals, progress ---------------------


class Terminal(io.StringIO):
    """Standard error as a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def small_simulations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red Flex, Buster and the base game simulated with a few rounds, in this process, in
    chunks (so that progress has parts to count)."""
    from tablectl.analysis import blackjack_base, blackjack_sim

    real = blackjack_sim.simulate

    def simulate(game: str, decks: int, hands: int, **kw: Any) -> Any:
        return real(game, decks, 4_000, **{**kw, "workers": 1})

    monkeypatch.setattr(blackjack_sim, "simulate", simulate)
    monkeypatch.setattr(blackjack_sim, "SIM_CHUNK", 1_000)
    monkeypatch.setattr(blackjack_base, "BASE_HANDS", 60)
    monkeypatch.setattr(blackjack_base, "BASE_CHUNK", 30)
    monkeypatch.setattr(blackjack_base, "workers_available", lambda: 1)


def analyze(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["analyze", *argv]) == EXIT_OK
    out, err = capsys.readouterr()
    assert err == ""  # no progress when stderr is not a terminal
    return out.splitlines()


@pytest.mark.parametrize(
    ("game", "wager", "decks"),
    [
        ("pure-21.5-blackjack", "insurance", 6),
        ("pure-spanish-21.5", "match-dealer", 6),
        ("ez-baccarat-panda8", "tie", 8),
    ],
)
def test_decks_default_to_the_games_own(
    game: str, wager: str, decks: int, capsys: pytest.CaptureFixture[str]
) -> None:
    from tablectl.games.registry import spec_of

    assert spec_of(game).settings[game].model_fields["decks"].default == decks
    (line,) = analyze(["--game", game, "--wager", wager], capsys)
    assert f"{decks} decks)" in line and line.endswith("(exact)")
    assert main(["analyze", "--game", game, "--wager", wager, "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["decks"] == decks


@pytest.mark.usefixtures("small_simulations")
def test_the_exact_figure_is_the_headline_and_the_simulation_its_cross_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--game", "pure-21.5-blackjack", "--wager", "buster"]
    headline, check, note = analyze(argv, capsys)
    assert main(["analyze", *argv, "--json"]) == EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert result["method"] == "exact"  # the JSON's headline is the exact figure too
    sim = result["simulation"]
    assert sim["method"] == "simulation"
    assert headline.startswith("pure-21.5-blackjack buster (option-5, 6 decks): ")
    assert f"house edge {100 * result['house_edge']:.4f}% (exact" in headline
    assert f"hit frequency {100 * result['hit_frequency']:.4f}%" in headline  # percent
    assert "simulation" not in headline
    low, high = sim["ci95"]
    hit_low, hit_high = sim["hit_frequency_ci95"]
    assert check.startswith("  cross-check: ")
    assert f"house edge {100 * sim['house_edge']:.4f}%" in check
    assert f"(95% interval {100 * low:.4f}% to {100 * high:.4f}%)" in check
    assert f"(95% interval {100 * hit_low:.4f}% to {100 * hit_high:.4f}%)" in check
    assert "simulation, 4,000 rounds" in check
    inside = "inside" if low <= result["house_edge"] <= high else "outside"
    assert sim["exact_inside_ci95"] is (inside == "inside")
    assert check.endswith(f"the exact house edge is {inside} the interval")
    assert note == f"  {sim['note']}"  # which figure is the headline, what a difference means
    assert note.startswith("  The exact figure is the headline.")


@pytest.mark.usefixtures("small_simulations")
def test_a_simulated_figure_is_printed_with_its_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The base game: its exact figure first, its simulation (the cross-check) with the 95%
    interval of each of its figures."""
    headline, check, note = analyze(["--game", "pure-21.5-blackjack", "--wager", "base"], capsys)
    assert headline.startswith(
        "pure-21.5-blackjack base (pure pays 6 to 5, 6 decks): hit frequency "
    )
    assert headline.endswith("(exact: the stated strategy from a full shoe)")
    assert check.count("(95% interval ") == 2
    assert "(simulation, 60 rounds" in check
    assert note.startswith("  The exact figure is the headline.")


def test_analysis_lines_say_where_the_exact_figure_falls() -> None:
    from tablectl.cli.analyze import analysis_lines

    sim: dict[str, Any] = {
        "hit_frequency": 0.5,
        "house_edge": 0.059826,
        "method": "exact",
        "exact_for": "the player-dealer's hand from a full shoe",
        "simulation": {
            "method": "simulation",
            "hit_frequency": 0.5,
            "hit_frequency_ci95": [0.49, 0.51],
            "house_edge": 0.0542,
            "ci95": [0.0488, 0.0596],
            "hands": 1_000_000,
            "seed": 7,
            "exact_inside_ci95": False,
        },
    }
    head, check = analysis_lines("w", sim)
    assert head == "w: hit frequency 50.0000%, house edge 5.9826% " + (
        "(exact: the player-dealer's hand from a full shoe)"
    )
    assert check == (
        "  cross-check: hit frequency 50.0000% (95% interval 49.0000% to 51.0000%), house edge "
        "5.4200% (95% interval 4.8800% to 5.9600%) (simulation, 1,000,000 rounds, seed 7); the "
        "exact house edge is outside the interval"
    )
    # the cross-check's note, when it has one, is the third line
    head, check, note = analysis_lines(
        "w", {**sim, "simulation": {**sim["simulation"], "note": "N"}}
    )
    assert note == "  N"
    exact = {"method": "exact", "hit_frequency": 0.1, "house_edge": 0.02}
    assert analysis_lines("w", exact) == ["w: hit frequency 10.0000%, house edge 2.0000% (exact)"]


@pytest.mark.usefixtures("small_simulations")
def test_progress_goes_to_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["analyze", "--game", "pure-21.5-blackjack", "--wager", "red-flex"]
    terminal = Terminal()
    monkeypatch.setattr(tablectl.cli.analyze, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(argv) == EXIT_OK
    shown = terminal.getvalue()
    assert "\ranalyze: 1/4 parts done, " in shown and "\ranalyze: 4/4 parts done, " in shown
    assert shown.endswith("\n")  # the progress line ended before the result
    assert "cross-check" in capsys.readouterr().out

    pipe = io.StringIO()  # a pipe or a log: nothing
    monkeypatch.setattr(sys, "stderr", pipe)
    assert main(argv) == EXIT_OK
    assert pipe.getvalue() == ""


def _shown_progress(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """What `analyze` writes to a terminal's stderr (progress from the first second on)."""
    terminal = Terminal()
    monkeypatch.setattr(tablectl.cli.analyze, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["analyze", *argv]) == EXIT_OK
    assert "(exact)" in capsys.readouterr().out
    return terminal.getvalue()


def test_three_card_poker_progress_goes_to_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 6 Card Bonus's C(52,6) classes report through the one progress hook (in_steps)."""
    from tablectl.analysis import three_card_poker

    argv = ["--game", "three-card-poker-6cb", "--wager", "six-card-bonus"]
    three_card_poker.best_five_category_counts.cache_clear()  # counted again, not remembered
    shown = _shown_progress(argv, monkeypatch, capsys)
    assert "\ranalyze: 1/50 parts done, " in shown and "\ranalyze: 50/50 parts done, " in shown
    assert shown.endswith("\n")

    three_card_poker.best_five_category_counts.cache_clear()
    pipe = io.StringIO()  # a pipe or a log: nothing
    monkeypatch.setattr(sys, "stderr", pipe)
    assert main(["analyze", *argv]) == EXIT_OK
    assert pipe.getvalue() == ""


@pytest.fixture
def small_pai_gow_deck(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The Fortune count over a deck of 9-A and the joker (the same code, a second's work)."""
    from tablectl.analysis import pai_gow

    real = pai_gow.category_counts

    @functools.cache
    def small(joker: bool, ranks: str = "") -> Any:
        return real.__wrapped__(joker, "9TJQKA")

    pai_gow.fortune_counts.cache_clear()
    monkeypatch.setattr(pai_gow, "category_counts", small)
    yield
    pai_gow.fortune_counts.cache_clear()  # the real deck's counts again for later tests


@pytest.mark.usefixtures("small_pai_gow_deck")
def test_pai_gow_progress_goes_to_a_terminal_in_two_parts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Fortune count without the joker is the first half, with it the second."""
    shown = _shown_progress(
        ["--game", "fortune-pai-gow", "--wager", "fortune"], monkeypatch, capsys
    )
    done = [int(m) for m in re.findall(r"\ranalyze: (\d+)/100 parts done, ", shown)]
    assert done == sorted(done) and done[0] == 1 and done[-1] == 100
    assert 50 in done  # the first part ends where the second begins
    assert shown.endswith("\n")


def test_in_steps_reports_each_step_once_not_each_item() -> None:
    from tablectl.analysis import STEPS, in_steps, progress_to

    told: list[tuple[int, int]] = []
    with progress_to(lambda done, total: told.append((done, total))):
        items = [*in_steps(range(1_000), part=0, parts=2), *in_steps(range(7), part=1, parts=2)]
    assert items == [*range(1_000), *range(7)]
    assert told[:STEPS] == [(k, 2 * STEPS) for k in range(1, STEPS + 1)]
    assert told[STEPS:] == [(STEPS + k, 2 * STEPS) for k in range(1, 7)] + [(2 * STEPS, 100)]


def test_progress_waits_a_few_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    from tablectl.cli.analyze import ProgressCounter

    terminal = Terminal()
    counter = ProgressCounter(terminal)
    counter(1, 8)  # under PROGRESS_AFTER: a short analysis shows nothing
    counter.close()
    assert terminal.getvalue() == ""
    counter.started -= tablectl.cli.analyze.PROGRESS_AFTER
    counter(2, 8)
    counter.close()
    assert terminal.getvalue().startswith("\ranalyze: 2/8 parts done, 3 s")
