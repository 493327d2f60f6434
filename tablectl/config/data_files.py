"""The data files a config names: the collection schedule (R4) from its schedules file or
inline, the pay tables the game names, and that each file is approved for the table's game and
rule document."""

from __future__ import annotations

from pathlib import Path

from tablectl.config.loaded import resolve
from tablectl.config.problems import Problem, toml_problem
from tablectl.config.sections import Collection, TableConfig
from tablectl.games.settings import GameSettings
from tablectl.games.table_rules import Limits
from tablectl.rules.approval import Approval, documents_text, mismatch, missing
from tablectl.rules.fees import CollectionSchedule, ScheduleError, load_schedule_file
from tablectl.rules.paytables import PayTable


def limit_problems(name: str, limits: Limits, schedule: CollectionSchedule) -> list[Problem]:
    """R4: one schedule's table limit bounds every spot's limits."""
    out = []
    checks = [("limits", limits.min, limits.max)] + [
        (f"limits.spots.{spot}", lim.min, lim.max) for spot, lim in limits.spots.items()
    ]
    for key, lo, hi in checks:
        if lo < schedule.table_min or hi > schedule.table_max:
            out.append(
                Problem(
                    name,
                    key,
                    f"limits {lo}-{hi} fall outside collection schedule {schedule.option}'s "
                    f"table limit {schedule.table_min}-{schedule.table_max} (R4)",
                )
            )
    return out


def schedule_of(
    col: Collection, path: Path, problems: list[Problem]
) -> tuple[CollectionSchedule | None, Approval | None]:
    """The collection's schedule (None when it cannot be had: `problems` says why) and the
    `[approval]` of the schedules file it comes from (None for an inline schedule, or a file
    without one)."""
    if col.schedule is not None:
        return col.schedule, None
    assert col.file is not None and col.option is not None
    file = resolve(path, col.file)
    try:
        schedules, approval = load_schedule_file(file)
    except FileNotFoundError:
        problems.append(Problem(str(path), "collection.file", f"no such file: {file}"))
        return None, None
    except ScheduleError as exc:
        problems += [Problem(str(path), "collection.file", line) for line in str(exc).splitlines()]
        return None, None
    except (ValueError, RecursionError) as exc:  # e.g. a 4300-digit integer; deep nesting
        problems.append(Problem(str(path), "collection.file", f"{file}: {toml_problem(exc)}"))
        return None, None
    if col.option not in schedules:
        problems.append(
            Problem(
                str(path),
                "collection.option",
                f"{file} has no schedule option {col.option}; "
                f"it has {min(schedules)}-{max(schedules)}",
            )
        )
        return None, approval
    return schedules[col.option], approval


def data_file_problems(
    name: str,
    table: TableConfig,
    schedule_approval: Approval | None,
    schedule_read: bool,
    folder: Path,
) -> tuple[list[Problem], str | None]:
    """Each data file the config names is for the table's game and document (a file approved
    for another game or document must not settle this table's wagers), and the table's document.

    The files: the collection schedules file (`collection.file`) and every pay table a
    `[game]` key names (in `folder`). Each must carry an `[approval]` (tablectl/rules/approval.py)
    naming the game; the table's document is its `game.document`, else the one document that
    approves the game; with neither, the files themselves must agree on one (the first file
    names the candidates, each later one must share one). A file or table that cannot be read is
    reported elsewhere (`schedule_of`, `paytable_problems`) and skipped here: `schedule_read`
    says whether the schedules file was read."""
    from tablectl.rules.paytables import PayTableError, load_paytable_file

    game = table.game
    stated: str | None = getattr(game, "document", None)
    only = game.DOCUMENTS[0] if len(game.DOCUMENTS) == 1 else None
    document = stated or only
    files: list[tuple[str, str, Approval | None]] = []
    col = table.collection
    if col is not None and col.file is not None and schedule_read:
        files.append(("collection.file", col.file, schedule_approval))
    for key, (file, _wager) in game.PAYTABLES.items():
        wanted = getattr(game, key)
        if wanted is None:
            continue
        try:
            entry = load_paytable_file(folder / file).get(wanted)
        except (PayTableError, ValueError, RecursionError):
            continue  # reported by paytable_problems
        if entry is not None:
            files.append((f"game.{key}", wanted, entry[1]))
    out: list[Problem] = []
    agreed: tuple[str, tuple[str, ...]] | None = None  # the first file's key, its documents
    for key, value, approval in files:
        if approval is None:
            out.append(Problem(name, key, missing(value)))
            continue
        why = mismatch(value, approval, game.id, document)
        if why is not None:
            out.append(Problem(name, key, why))
            continue
        if document is not None:
            continue
        mine = tuple(d for d in approval.documents if d in game.DOCUMENTS or not game.DOCUMENTS)
        if not mine:  # a file whose documents do not approve the game at all
            out.append(
                Problem(
                    name,
                    key,
                    f"{value} is for {approval.label}, and {game.id} is approved by "
                    f"{documents_text(game.DOCUMENTS)} only",
                )
            )
            continue
        if agreed is None:
            agreed = (key, mine)
            continue
        shared = tuple(d for d in agreed[1] if d in mine)
        if not shared:
            out.append(
                Problem(
                    name,
                    key,
                    f"{value} is for {approval.label}, but {agreed[0]} is for "
                    f"{documents_text(agreed[1])}: name the table's document (game.document) "
                    "and use that document's files",
                )
            )
            continue
        agreed = (agreed[0], shared)
    if document is None and agreed is not None and len(agreed[1]) == 1:
        document = agreed[1][0]
    return out, document


def paytable_dir(config_path: Path, table: TableConfig) -> Path:
    """Where this table's pay table files are: its `paytables` folder, or the shipped one."""
    from tablectl.rules.paytables import PAYTABLE_DIR

    return PAYTABLE_DIR if table.paytables is None else resolve(config_path, table.paytables)


def game_paytables(game: GameSettings, folder: Path) -> dict[str, PayTable]:
    """Every pay table the game's config names, read from its data file (checked already)."""
    from tablectl.rules.paytables import load_paytables

    out: dict[str, PayTable] = {}
    for key, (file, _wager) in game.PAYTABLES.items():
        wanted = getattr(game, key)
        if wanted is not None:
            out[wanted] = load_paytables(folder / file)[wanted]
    return out


def paytable_problems(name: str, game: GameSettings, folder: Path) -> list[Problem]:
    """Every pay table the game names exists in its data file and settles the right wager."""
    from tablectl.rules.paytables import PayTableError, load_paytables

    out = []
    for key, (file, wager) in game.PAYTABLES.items():
        wanted = getattr(game, key)
        if wanted is None:
            continue
        try:
            tables = load_paytables(folder / file)
        except PayTableError as exc:
            out.append(Problem(name, f"game.{key}", str(exc)))
            continue
        except UnicodeDecodeError:
            out.append(Problem(name, f"game.{key}", f"{folder / file}: not UTF-8 text"))
            continue
        except (ValueError, RecursionError) as exc:  # e.g. a 4300-digit integer; deep nesting
            out.append(Problem(name, f"game.{key}", f"{folder / file}: {toml_problem(exc)}"))
            continue
        table = tables.get(wanted)
        if table is None:
            have = ", ".join(n for n, t in tables.items() if t.wager == wager)
            out.append(
                Problem(name, f"game.{key}", f"no {wager} pay table {wanted!r}; have {have}")
            )
        elif table.wager != wager:
            out.append(
                Problem(name, f"game.{key}", f"{wanted} is a {table.wager} table, not {wager}")
            )
    return out
