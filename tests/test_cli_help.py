"""A command line that explains itself (issue 15 item 2): `--version`; every subcommand of the real
parser with a description, an example and help on every option; choices listed; `--config`
everywhere with the default path; the exit codes documented and kept."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import tablectl
import tablectl.cli
from tablectl.cli import DEFAULT_CONFIG, EXIT_FAIL, EXIT_OK, EXIT_USAGE, _parser, main

REPO = Path(__file__).resolve().parent.parent


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand of the parser `tablectl` runs, by name."""
    parser = _parser()
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
            _parser().parse_args(command.split()[1:])


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
    assert set(options["--wager"].choices or ()) == wagers
    text = analyze.format_help()
    assert "pure-21.5-blackjack: base red-flex buster insurance" in text
    assert "ez-baccarat-panda8: player banker tie dragon7 panda8" in text
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
    monkeypatch.setattr(tablectl.cli, "DEFAULT_CONFIG", absent)
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
    monkeypatch.setattr(tablectl.cli, "DEFAULT_CONFIG", SHIPPED)
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
    doc = tablectl.cli.__doc__ or ""
    assert (EXIT_OK, EXIT_FAIL, EXIT_USAGE) == (0, 1, 2)
    for line in ("0  ok", "1  a check failed", "2  usage or config error"):
        assert line in doc
    ops = (REPO / "docs" / "operations.md").read_text()
    assert "## Exit codes" in ops
