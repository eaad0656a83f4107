"""The ``clubrating`` command: ``replay`` a history through a rating system, ``run`` the bot."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import logging
import sys
import time
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bot.history import (
    CsvError,
    History,
    Roster,
    cell_error,
    read_event_columns,
    read_events,
    read_players,
    where,
    write_events,
)
from bot.history.problems import ProblemRow, read_problems, write_players, write_problems
from bot.history.steps import engine_steps, rows_of
from bot.ops.backup import add_backup_parsers, backup_command
from bot.ops.migrate_db import MoveError, add_migrate_db_parser, migrate_db_command
from bot.ops.redaction import scrub
from ratings_core.columns import check_columns, replay_columns
from ratings_core.evaluation import Tuning, evaluate, tune
from ratings_core.model import (
    SIDE_A,
    SIDE_B,
    Event,
    Game,
    RatingPeriod,
    SeasonStart,
    Step,
    TeamGame,
    events_of,
    games_of,
)
from ratings_core.parameters import describe
from ratings_core.replay import ReplayError, ReplayResult, replay
from ratings_core.rows import EventColumns
from ratings_core.system import RatingSystem
from ratings_core.systems import (
    DEFAULT_SYSTEM,
    GAME_SYSTEMS,
    MAIN_PARAMETERS,
    PRESETS,
    make_system,
    preset_params,
    system_names,
)

from .errors import EXIT_CONFIG, ConfigError, StartupError
from .service.errors import Refusal
from .service.parsing import system_params
from .service.team_rule import TeamRule
from .settings import WEB_LISTEN, data_folder_named, database_from_environment, listen_address
from .storage.backends import is_postgres
from .storage.errors import DatabaseUnavailable
from .storage.sqlite_backup import BackupError

if TYPE_CHECKING:
    from .service.club import ClubService
    from .storage.repository import Repository

# The chat's presenter and the bot's service are imported by the commands that use them:
# `clubrating replay` of a large file should not spend a fifth of its time starting the bot.

log = logging.getLogger(__name__)


class UsageError(Exception):
    """A problem with the command line or its files, shown to the user as one line."""


#: what ``clubrating --help`` says above the commands: plain words (the module's docstring is
#: for readers of the code, in reStructuredText, which a terminal would show as written)
DESCRIPTION = ("Keep a club's rating list: run the bot, or replay, evaluate, export and import "
               "a history, schedule posts, back up the database.")


def _version() -> str:
    """The installed package's version (pyproject.toml's), as ``clubrating --version`` says."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("clubrating")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="clubrating", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"clubrating {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    rerun = commands.add_parser(
        "replay",
        help="rate a history (EVENTS.csv) and print every player's rating as JSON",
        description="Replay EVENTS.csv through a rating system and print the ratings as JSON.",
    )
    rerun.add_argument(
        "--system", default=DEFAULT_SYSTEM,
        help=f"rating system: {', '.join(system_names())} (default {DEFAULT_SYSTEM})",
    )
    rerun.add_argument("--players", type=Path, help="PLAYERS.csv: states before the first event")
    rerun.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="override a parameter of the system, e.g. --set k=24 (repeatable)",
    )
    rerun.add_argument("events", type=Path, metavar="EVENTS.csv")

    judge = commands.add_parser(
        "evaluate",
        help="which rating system predicts a history's games best",
        description="Predict every game of EVENTS.csv from the earlier rating periods and "
                    "score each system on the last part of the history.",
    )
    judge.add_argument("--systems", default=",".join(GAME_SYSTEMS),
                       help=f"comma-separated systems (default {','.join(GAME_SYSTEMS)})")
    judge.add_argument("--test-fraction", type=float, default=0.3,
                       help="share of the history's time span scored (default 0.3)")
    judge.add_argument("--format", choices=("table", "json"), default="table")
    judge.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="set a parameter in every compared system that has it, e.g. "
             "--set first_move_advantage=60 (repeatable)",
    )
    judge.add_argument("--tune", action="store_true",
                       help="first choose each system's main parameter (K, c, tau, ...) on the "
                            "stretch of history just before the scored part")
    judge.add_argument("events", type=Path, metavar="EVENTS.csv")

    start = commands.add_parser(
        "run", help="start the bot (a console chat when no tokens are set)",
        description="Start the bot: Telegram and/or Discord when their tokens are set, the "
                    "console chat otherwise. A failure at start-up is one line on stderr.",
    )
    start.add_argument("--verbose", action="store_true",
                       help="on a failure, also log its traceback (tokens and passwords masked)")
    commands.add_parser(
        "check-config", help="check every setting offline; exit 0, or 78 naming what is wrong",
        description="Check every setting clubrating run reads (environment variables, secret "
                    "files, systemd credentials, folders) without contacting any platform or "
                    "database server. Exit status 0, or 78 with one line per problem.",
    )
    commands.add_parser(
        "healthcheck", help="exit 0 while the running bot's platforms answer it, 1 otherwise",
        description="Read the heartbeat the running bot keeps in its data folder "
                    "(CLUBRATING_DATA_DIR): exit 0 while every platform it serves answered "
                    "within 90 seconds, 1 otherwise, saying which is stale or 'not running'.",
    )

    commands.add_parser(
        "sync-commands", help="write the Discord bot's slash commands to Discord now",
        description="Sync the Discord bot's slash commands (globally, or to DISCORD_GUILD_ID) "
                    "whether or not they changed, and keep their hash in the database: "
                    "clubrating run syncs them only when that hash changes.",
    )

    export = commands.add_parser(
        "export", help="write a ladder's effective history as EVENTS.csv",
        description="Write a ladder's effective history in the EVENTS.csv format of replay.",
    )
    export.add_argument("--chat", required=True, metavar="PLATFORM:CHAT_ID")
    export.add_argument("--ladder", default=None)
    export.add_argument("--output", type=Path, default=None, help="file (default stdout)")
    export.add_argument("--players", type=Path, default=None, metavar="FILE",
                        help="also write PLAYERS.csv: a puzzle ladder's problems and their "
                             "starting ratings (for clubrating replay --players)")

    load = commands.add_parser(
        "import", help="append a history from EVENTS.csv to a ladder",
        description="Append a history in the EVENTS.csv format, by the chat's rules (names, "
                    "handicaps, dates); any bad row refuses the file, and so does a file "
                    "whose rows the ladder has imported before, unless --allow-duplicates.",
    )
    load.add_argument("--chat", required=True, metavar="PLATFORM:CHAT_ID")
    load.add_argument("--ladder", default=None)
    load.add_argument("--allow-duplicates", action="store_true",
                      help="import the file even if the ladder has these rows from an "
                           "earlier import")
    load.add_argument("file", type=Path, metavar="FILE")
    site = commands.add_parser(
        "web", help="serve the public web leaderboard (reads only)",
        description="Serve the ladders the clubs made public (/set public on) as web pages, "
                    "JSON and CSV, reading the database CLUBRATING_DB names; never writes its "
                    "log. Stops on SIGTERM or SIGINT.")
    site.add_argument("--listen", default=WEB_LISTEN, metavar="HOST:PORT",
                      help=f"address to listen on (default {WEB_LISTEN})")
    _puzzles_parser(commands)
    _night_parser(commands)
    _schedule_parser(commands)
    add_backup_parsers(commands)
    add_migrate_db_parser(commands)
    return parser


def _overrides(pairs: Sequence[str]) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set takes KEY=VALUE, not {pair!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def _typed_system(name: str, overrides: dict[str, str]) -> RatingSystem:
    """The preset ``name`` with the parameters given by --set: a value outside its parameter's
    bounds is refused with the chat's sentence (issue 15); other problems as make_system says."""
    if name in PRESETS:
        try:
            system_params(name, overrides)
        except Refusal as refusal:
            if refusal.key.startswith("parameter_out_of_range"):
                from bot.chat.presenter import render
                raise UsageError(render(refusal)) from None
    try:
        return make_system(name, overrides)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _check_fits(system: RatingSystem, history: History, file: str) -> None:
    """Refuse games the chosen system cannot rate (team games too: ``tactics`` rates none),
    naming the row and the column."""
    for position, step in enumerate(history.steps):
        for k, event in enumerate(rows_of(step)):
            if isinstance(event, Game | TeamGame):
                try:
                    system.check(event)
                except ValueError as error:
                    row = history.row_of(position, k)
                    cell = cell_error(str(error))
                    if cell is None:
                        raise CsvError(file, row, str(error)) from None
                    raise CsvError(file, row, cell.problem, cell.column) from None


def replay_command(args: argparse.Namespace) -> dict[str, object]:
    overrides = _overrides(args.overrides)
    try:  # a ladder's team settings (issue 37) among the system's parameters
        teams = TeamRule.taken_from(overrides)
    except Refusal as refusal:
        from bot.chat.presenter import render
        raise UsageError(render(refusal)) from None
    system = _typed_system(args.system, overrides)
    roster = read_players(args.players) if args.players else None
    result = _replay_columns(system, roster, args.events, teams)
    if result is None:  # a problem: the history path names its row and column
        result = _replay_history(system, roster, args.events, teams)
    return standings_json(system, result)


def _replay_columns(system: RatingSystem, roster: Roster | None, events: Path,
                    teams: TeamRule | None = None) -> ReplayResult | None:
    """The replay of a file read column by column (no object per row but a game of sides'),
    its team games by the ladder's ``teams`` rule (issue 37); None when the file or its
    replay has a problem: the history path then replays it, naming a problem's row and
    column."""
    try:
        columns = _columns_with_team_rule(read_event_columns(events), teams or TeamRule())
        if columns is None:
            return None
        check_columns(system, columns)
        return replay_columns(system, columns, players=roster.players if roster else None,
                              birth_dates=roster.birth_dates if roster else None)
    except (ValueError, csv.Error):  # CsvError, CellError, ReplayError and the system's own
        return None


def _columns_with_team_rule(columns: EventColumns, rule: TeamRule) -> EventColumns | None:
    """The columns with their team games as the ladder's team settings rate them (as
    :func:`_with_team_rule` does for steps), or None when the rule refuses one (the history
    path names its row). The rule reads only a game's side sizes, so it is asked once per
    pair of sizes."""
    if not columns.teams:
        return columns
    sizes = zip(map(len, map(SIDE_A, columns.teams)), map(len, map(SIDE_B, columns.teams)),
                strict=True)
    examples = dict(zip(sizes, columns.teams, strict=True)).values()
    if any(rule.problem(game) is not None for game in examples):
        return None
    if all(rule.applied(game) == game for game in examples):
        return columns
    return dataclasses.replace(columns, teams=list(map(rule.applied, columns.teams)))


def _replay_history(system: RatingSystem, roster: Roster | None, events: Path,
                    teams: TeamRule | None = None) -> ReplayResult:
    """The replay of a file read as steps: every problem named with its row and column; its
    team games by the ladder's ``teams`` rule (issue 37)."""
    history = read_events(events)
    _check_fits(system, history, events.name)
    steps = _with_team_rule(history, teams or TeamRule(), events.name)
    try:
        return replay(
            system,
            steps,
            players=roster.players if roster else None,
            birth_dates=roster.birth_dates if roster else None,
        )
    except ReplayError as error:
        raise _row_error(history, events.name, error) from None
    except ValueError as error:
        raise UsageError(f"{events.name}: {error}") from None


def _with_team_rule(history: History, rule: TeamRule, file: str) -> list[Step]:
    """The history's steps, each team game checked against the ladder's team settings (as the
    chat checks a report: a refusal names the row) and rated with its size handicap."""
    steps = engine_steps(history.steps)
    if not any(isinstance(event, TeamGame) for step in steps for event in events_of(step)):
        return steps

    def ruled(event: Event, position: int, k: int) -> Event:
        if not isinstance(event, TeamGame):
            return event
        problem = rule.problem(event)
        if problem is not None:
            from bot.chat.presenter import render
            raise CsvError(file, history.row_of(position, k), render(problem), "player_b")
        return rule.applied(event)

    return [RatingPeriod(tuple(ruled(e, position, k) for k, e in enumerate(step.events)))
            if isinstance(step, RatingPeriod)
            else step if isinstance(step, SeasonStart) else ruled(step, position, 0)
            for position, step in enumerate(steps)]


def _row_error(history: History, file: str, error: ReplayError) -> CsvError:
    """A replay's refusal of a step as the row and column of the file it stands in."""
    row = history.row_of(error.position, error.event_index)
    column = history.column_of(error.position, error.event_index, error.message)
    return CsvError(file, row, error.message, column)


def standings_json(system: RatingSystem, result: ReplayResult) -> dict[str, object]:
    """The ``replay`` JSON: players by rating, best first (ties by name)."""
    league = result.league  # a newcomer who has not played: the deviation they would start with
    ordered = sorted(((name, system.as_rated(league, state))
                      for name, state in result.players.items()),
                     key=lambda item: (-item[1].rating, item[0]))
    return {
        "system": system.name,
        "players": [
            {
                "player": name,
                "rating": state.rating,
                "games": state.games,
                "provisional": system.is_provisional(state),
                "deviation": state.deviation,
                "volatility": state.volatility,
                "status": state.status.value,
            }
            for name, state in ordered
        ],
        "pool": result.pool,
    }


def evaluate_command(args: argparse.Namespace) -> tuple[dict[str, object], str]:
    """The JSON contract and the table of ``clubrating evaluate``."""
    if not 0 < args.test_fraction <= 1:
        raise UsageError(f"--test-fraction must be in (0, 1], not {args.test_fraction}")
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    overrides = _overrides(args.overrides)
    systems = [_typed_system(name, _known(name, overrides)) for name in names]
    if not systems:
        raise UsageError("--systems names no system")
    unused = set(overrides) - {key for name in names for key in _known(name, overrides)}
    if unused:
        raise UsageError(f"no compared system has the parameter {', '.join(sorted(unused))}")
    history = read_events(args.events)
    for system in systems:
        _check_fits(system, history, args.events.name)
    notes = []
    if args.tune:
        tuned = []
        for system in systems:
            tuning = _tune(system.name, history, args.test_fraction,
                           _known(system.name, overrides))
            chosen = {**_known(system.name, overrides), tuning.parameter: str(tuning.value)}
            tuned.append(make_system(system.name, chosen))
            notes.append(f"tuned {system.name}: {tuning.parameter}={tuning.value:g} "
                         f"(validation log-loss {tuning.validation.logloss:.4f} on "
                         f"{tuning.validation.games} games)")
        systems = tuned
    rows = []
    for system in systems:
        bar = _ProgressBar(system.name, len(history.steps))
        began = time.perf_counter()
        try:
            scores = evaluate(system, engine_steps(history.steps), args.test_fraction, bar)
        except ReplayError as error:
            # a retired player's game (of one against one or of sides)
            bar.close()
            raise _row_error(history, args.events.name, error) from None
        elapsed = time.perf_counter() - began
        bar.close()
        games = sum(len(games_of(step)) for step in engine_steps(history.steps))
        rows.append((system, scores, games / elapsed if elapsed > 0 else 0.0))
    # As /evaluate in chat: a few scored games tell nothing about which system is better, so
    # no system is recommended from them; the command refuses, naming how many it needs.
    counted = max(scores.games for _, scores, _ in rows)
    from .service.evaluating import MIN_GAMES  # with the service's results: 20 ms to import
    if counted < MIN_GAMES:
        from bot.chat.messages import text
        raise UsageError(text("evaluate_too_few", file=args.events.name, games=counted,
                              needed=MIN_GAMES))
    best = min(rows, key=lambda r: r[1].logloss)[0].name
    output: dict[str, object] = {
        "systems": [
            {
                "system": system.name,
                "params": dataclasses.asdict(preset_params(system)),
                "logloss": scores.logloss,
                "brier": scores.brier,
                "accuracy": scores.accuracy,
                "test_games": scores.games,
                "games_per_second": speed,
            }
            for system, scores, speed in rows
        ],
        "recommended": best,
    }
    lines = [f"{'system':<12}{'log-loss':>10}{'Brier':>9}{'accuracy':>10}{'games':>8}"
             f"{'games/s':>11}"]
    for system, scores, speed in rows:
        lines.append(f"{system.name:<12}{scores.logloss:>10.4f}{scores.brier:>9.4f}"
                     f"{scores.accuracy:>10.3f}{scores.games:>8}{speed:>11,.0f}")
    for system, scores, _ in rows:
        lines.append(f"calibration of {system.name}: " + "  ".join(
            f"{b.low:.1f}-{b.high:.1f}: {b.predicted:.2f}/{b.scored:.2f} ({b.games})"
            for b in scores.calibration))
    lines.extend(notes)
    lines.append(f"recommended: {best} (lowest log-loss on the last "
                 f"{args.test_fraction * 100:g} % of the history's time)")
    return output, "\n".join(lines) + "\n"


def _known(name: str, overrides: dict[str, str]) -> dict[str, str]:
    """The overrides that ``name``'s parameters include (an unknown system has none)."""
    if name not in PRESETS:
        return {}
    names = describe(preset_params(make_system(name)))
    return {key: value for key, value in overrides.items() if key in names}


def _tune(name: str, history: History, test_fraction: float,
          overrides: dict[str, str]) -> Tuning:
    parameter, candidates = MAIN_PARAMETERS[name]
    try:
        return tune(lambda value: make_system(name, {**overrides, parameter: str(value)}),
                    parameter, candidates, engine_steps(history.steps), test_fraction)
    except ValueError as error:
        raise UsageError(f"cannot tune {name}: {error}") from None


class _ProgressBar:
    """A progress bar on stderr for long runs (only when stderr is a terminal)."""

    def __init__(self, label: str, total: int) -> None:
        self.label = label
        self.total = total
        self.shown = -1
        self.live = sys.stderr.isatty() and total >= 100

    def __call__(self, done: int, total: int) -> None:
        percent = done * 100 // max(total, 1)
        if self.live and percent != self.shown:
            self.shown = percent
            filled = percent // 4
            sys.stderr.write(f"\r{self.label:<10} [{'#' * filled:<25}] {percent:3d}%")
            sys.stderr.flush()

    def close(self) -> None:
        if self.live:
            sys.stderr.write("\n")


def _chat(text: str) -> tuple[str, str]:
    platform, sep, chat_id = text.partition(":")
    if not sep or not platform or not chat_id:
        raise UsageError(f"--chat takes PLATFORM:CHAT_ID (e.g. telegram:-1001234), not {text!r}")
    return platform, chat_id


def _no_club(platform: str, chat_id: str) -> UsageError:
    return UsageError(f"no club {platform}:{chat_id} in DB")


async def _reader(platform: str, chat_id: str) -> tuple[ClubService, Repository]:
    """The service for a command that only reads the chat's club (``export``,
    ``schedule show``): a chat without a club is :func:`_no_club`, and nothing is created for
    it, neither its club nor the SQLite file itself."""
    from .app import open_service
    database = database_from_environment()
    if not is_postgres(database) and "://" not in database and not Path(database).exists():
        raise UsageError(f"no club {platform}:{chat_id} in DB (there is no database file "
                         f"{database}; CLUBRATING_DB names it)")
    # a reader leaves the database as it was: no snapshot of what it read either
    service, repository = await open_service(database, keep_snapshots=False)
    try:
        found = await repository.find_club(platform, chat_id)
    except BaseException:
        await repository.close()
        raise
    if found is None:
        await repository.close()
        raise _no_club(platform, chat_id)
    return service, repository


def _check_output(output: Path | None, example: str = "EVENTS.csv",
                  option: str = "--output") -> None:
    """``export --output`` (and the like): a file in a folder that exists (checked before the
    database is opened, so that a typing mistake costs nothing)."""
    if output is None:
        return
    if output.is_dir():
        raise UsageError(f"{option} {output} is a folder; name a file in it, e.g. "
                         f"{output / example}")
    if not output.parent.is_dir():
        raise UsageError(f"{option} {output}: there is no folder {output.parent}")


def _emit(text: str, output: Path | None) -> None:
    """A file's text to ``--output``, else to standard output."""
    if output is None:
        sys.stdout.write(text)
    else:
        _write_output(output, text)


def _write_output(output: Path, text: str) -> None:
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"--output {output}: cannot write the file "
                         f"({error.strerror or error})") from None


async def export_command(args: argparse.Namespace) -> str:
    from bot.chat.presenter import render
    platform, chat_id = _chat(args.chat)
    _check_output(args.output)
    _check_output(args.players, "PLAYERS.csv", "--players")
    service, repository = await _reader(platform, chat_id)
    try:
        steps, names, labels = await service.export_history(platform, chat_id, args.ladder)
        started = await service.export_players(platform, chat_id, args.ladder)
    except Refusal as refusal:
        raise UsageError(render(refusal)) from None
    finally:
        await repository.close()
    if args.players is not None:
        _write_output(args.players, write_players(started))
    return write_events(steps, names, labels)


def _night_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    night = commands.add_parser(
        "night", help="write a club night as a FIDE TRF16 file",
        description="A club night's players, rounds and results as FIDE TRF16, which "
                    "federations' tools and pairing programs read.")
    actions = night.add_subparsers(dest="night_action", required=True)
    write = actions.add_parser("export", help="write the night (the latest, open or closed, "
                                              "unless --night names one)")
    write.add_argument("--chat", required=True, metavar="PLATFORM:CHAT_ID")
    write.add_argument("--ladder", default=None)
    write.add_argument("--night", type=int, default=None, metavar="N",
                       help="the ladder's Nth night (default: the latest)")
    write.add_argument("--output", type=Path, default=None, help="file (default stdout)")


async def night_command(args: argparse.Namespace) -> str:
    """``clubrating night export``: the night as TRF16 text."""
    from bot.chat.presenter import render
    from bot.pairing import trf
    platform, chat_id = _chat(args.chat)
    _check_output(args.output, "NIGHT.trf")
    service, repository = await _reader(platform, chat_id)
    try:
        night, title, day = await service.night_export(platform, chat_id, args.ladder,
                                                       args.night)
    except Refusal as refusal:
        raise UsageError(render(refusal)) from None
    finally:
        await repository.close()
    return trf.write(night, title, day)


def _puzzles_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    puzzles = commands.add_parser(
        "puzzles", help="import or export a puzzle ladder's problems (PROBLEMS.csv)",
        description="A puzzle ladder's problems as CSV: columns id, prompt, answers (separated "
                    "by |), and optional image (a picture's path, from the file's folder) and "
                    "rating.")
    actions = puzzles.add_subparsers(dest="puzzles_action", required=True)
    load = actions.add_parser("import", help="add the problems of a CSV file to the ladder "
                                             "(all or none)")
    load.add_argument("--chat", required=True, metavar="PLATFORM:CHAT_ID")
    load.add_argument("--ladder", default=None, help="the tactics ladder (default puzzles; "
                                                     "created if the club has none)")
    load.add_argument("file", type=Path, metavar="FILE")
    write = actions.add_parser("export", help="write the ladder's problems, answers included")
    write.add_argument("--chat", required=True, metavar="PLATFORM:CHAT_ID")
    write.add_argument("--ladder", default=None)
    write.add_argument("--output", type=Path, default=None, help="file (default stdout)")


async def puzzles_command(args: argparse.Namespace) -> str:
    """``clubrating puzzles import|export``: import answers with the service's sentence,
    export with the CSV text."""
    from bot.chat.messages import text
    from bot.chat.presenter import render
    from bot.service.puzzles import NewProblem
    from bot.storage.pictures import PictureError, PictureStore

    from .app import open_service
    platform, chat_id = _chat(args.chat)
    if args.puzzles_action == "export":
        _check_output(args.output, "PROBLEMS.csv")
        service, repository = await _reader(platform, chat_id)
        try:
            problems = await service.export_problems(platform, chat_id, args.ladder)
        except Refusal as refusal:
            raise UsageError(render(refusal)) from None
        finally:
            await repository.close()
        store = PictureStore(data_folder_named())
        return write_problems([ProblemRow(
            n, p.code, p.prompt, list(p.answers),
            None if p.image is None else store.folder.resolve() / p.image, p.rating)
            for n, p in enumerate(problems, start=1)])
    rows = read_problems(args.file)
    store = PictureStore(data_folder_named())
    problems = []
    for row in rows:
        image = None
        if row.image is not None:
            try:
                image = store.put(row.image.read_bytes())
            except (OSError, PictureError) as error:
                reason = getattr(error, "strerror", None) or str(error)
                raise UsageError(f"{where(args.file.name, row.row, 'image')}: {row.image}: "
                                 f"{reason}") from None
        problems.append(NewProblem(row.id, row.prompt, row.answers, image, row.rating))
    service, repository = await open_service(database_from_environment())
    try:
        answer = await service.import_problems(platform, chat_id, problems, args.ladder,
                                               OPERATOR)
    except Refusal as refusal:
        row_number = refusal.params.pop("row", None)
        shown = render(refusal)
        if isinstance(row_number, int):  # the service counts the header as row 1
            shown = text("problem_file_row", file=args.file.name, row=row_number - 1,
                         reason=shown)
        raise UsageError(shown) from None
    finally:
        await repository.close()
    return render(answer)


async def import_command(args: argparse.Namespace) -> str:
    from bot.chat.presenter import render

    from .app import open_service
    platform, chat_id = _chat(args.chat)
    history = read_events(args.file)
    service, repository = await open_service(database_from_environment())
    try:
        answer = await service.import_history(platform, chat_id, history, history.labels,
                                              args.ladder, allow_duplicates=args.allow_duplicates)
    except Refusal as refusal:
        # A refused row names the file itself (and its row and column); the file as a whole
        # is named here.
        shown = render(refusal)
        raise UsageError(shown if "file" in refusal.params
                         else f"{args.file.name}: {shown}") from None
    finally:
        await repository.close()
    return render(answer)


#: who the shell's changes are recorded as in the club's log
OPERATOR = "operator"


def _schedule_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schedule = commands.add_parser(
        "schedule", help="a ladder's scheduled leaderboard posts: set, show, pause, resume",
        description="Set, show, pause or resume a ladder's scheduled posts, on the database "
                    "the bot uses (a running bot picks a change up within a minute).",
    )
    actions = schedule.add_subparsers(dest="action", required=True)
    for name, what in (("set", "set when and where the ladder posts"),
                       ("show", "when and where the ladder posts next"),
                       ("pause", "stop the ladder's posts"),
                       ("resume", "start the ladder's posts again")):
        action = actions.add_parser(name, help=what, description=what[0].upper() + what[1:])
        action.add_argument("--chat", required=True, metavar="PLATFORM:CHAT_ID")
        action.add_argument("--ladder", default=None)
        if name == "set":
            action.add_argument("--cron", default=None,
                                help='five-field crontab expression, e.g. "0 9 * * MON"')
            action.add_argument("--tz", default=None, help="IANA time zone, e.g. Europe/Berlin")
            action.add_argument("--channel", default=None,
                                help="post into this chat or channel id ('here': the club's)")
            action.add_argument("--size", default=None, help="rows of the leaderboard posted")


async def schedule_command(args: argparse.Namespace) -> str:
    """``clubrating schedule set|show|pause|resume``: the chat's use cases, as an operator."""
    from bot.chat.presenter import render, schedule_text

    from .app import open_service
    from .service.club import Caller
    platform, chat_id = _chat(args.chat)
    caller = Caller(platform, chat_id, OPERATOR, OPERATOR, moderator=True)
    if args.action == "show":  # a reader: it creates no club for a chat that has none
        service, repository = await _reader(platform, chat_id)
    else:
        service, repository = await open_service(database_from_environment())
    try:
        if args.action == "set":
            answer = await service.set_schedule(caller, args.ladder, cron=args.cron,
                                                timezone=args.tz, channel=args.channel,
                                                size=args.size)
        elif args.action == "show":
            answer = await service.show_schedule(caller, args.ladder)
        else:
            answer = await service.pause_schedule(caller, args.action == "pause", args.ladder)
    except Refusal as refusal:
        raise UsageError(render(refusal)) from None
    finally:
        await repository.close()
    return schedule_text(answer, f"{platform}:{chat_id}")


_T = TypeVar("_T")


def _run_async(work: Coroutine[object, object, _T]) -> _T:
    """``asyncio.run``, imported here: replay and evaluate start without loading asyncio."""
    import asyncio

    return asyncio.run(work)


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # matplotlib says at INFO that it built its font cache (once per data folder): not news
    logging.getLogger("matplotlib").setLevel(logging.WARNING)
    args = _parser().parse_args(argv)
    try:
        if args.command == "replay":
            output = replay_command(args)
            sys.stdout.write(json.dumps(output, indent=2, ensure_ascii=False) + "\n")
        elif args.command == "evaluate":
            output, table = evaluate_command(args)
            sys.stdout.write(json.dumps(output, indent=2) + "\n" if args.format == "json"
                             else table)
        elif args.command == "export":
            _emit(_run_async(export_command(args)), args.output)
        elif args.command == "import":
            sys.stdout.write(_run_async(import_command(args)) + "\n")
        elif args.command == "web":
            return web_command(args.listen)
        elif args.command == "puzzles":
            written = _run_async(puzzles_command(args))
            if args.puzzles_action == "export" and args.output is not None:
                _write_output(args.output, written)
            else:
                sys.stdout.write(written if args.puzzles_action == "export"
                                 else written + "\n")
        elif args.command == "night":
            _emit(_run_async(night_command(args)), args.output)
        elif args.command == "schedule":
            sys.stdout.write(_run_async(schedule_command(args)) + "\n")
        elif args.command in ("backup", "restore"):
            sys.stdout.write(backup_command(args, database_from_environment()) + "\n")
        elif args.command == "migrate-db":
            sys.stdout.write(_run_async(migrate_db_command(args)) + "\n")
        elif args.command == "check-config":
            return check_config_command()
        elif args.command == "healthcheck":
            return healthcheck_command()
        elif args.command == "sync-commands":
            sys.stdout.write(_run_async(sync_commands_command()) + "\n")
        else:
            return run_command(verbose=args.verbose)
    except (UsageError, CsvError, BackupError, MoveError) as error:
        _one_line(str(error))
        return 2
    except ConfigError as error:
        _one_line(str(error))
        return EXIT_CONFIG
    except (StartupError, DatabaseUnavailable) as error:
        _one_line(str(error))
        return 1
    return 0


def check_config_command() -> int:
    """``clubrating check-config``: the settings as ``clubrating run`` reads them, checked
    offline. A line on stdout saying what would run, or one line per problem on stderr and
    status 78."""
    from .settings import Settings
    try:
        settings = Settings.from_environment()
    except ConfigError as error:
        for problem in error.problems:
            _one_line(problem)
        return EXIT_CONFIG
    platforms = [name for name, token in (("Telegram", settings.telegram_token),
                                          ("Discord", settings.discord_token)) if token]
    if settings.telegram_token:
        how = "webhook" if settings.telegram_webhook_url else "long polling"
        platforms[0] += f" ({how})"
    backend = "PostgreSQL" if is_postgres(settings.database) else "SQLite"
    from .storage.backends import describe as address
    sys.stdout.write(f"configuration is fine: {', '.join(platforms) or 'the console chat'}; "
                     f"database {address(settings.database)} ({backend}); data folder "
                     f"{settings.data_dir.resolve()}\n")
    return 0


def healthcheck_command() -> int:
    """``clubrating healthcheck``: the running bot's heartbeat read (bot.ops.heartbeat), one
    line on stdout, status 0 when healthy."""
    from .ops.heartbeat import health
    healthy, line = health(data_folder_named())
    sys.stdout.write(line + "\n")
    return 0 if healthy else 1


def web_command(listen: str) -> int:
    """``clubrating web``: the public web leaderboard until stopped (exit 0)."""
    from .app import run_web
    address = listen_address(listen, "--listen", WEB_LISTEN)
    _run_async(run_web(address))
    return 0


async def run() -> None:
    """Start the bot (bot.app.run, imported only now: see the imports)."""
    from .app import run as run_bot
    await run_bot()


async def sync_commands_command() -> str:
    """``clubrating sync-commands`` (bot.app.sync_discord_commands, imported only now)."""
    from .app import sync_discord_commands
    return await sync_discord_commands()


def run_command(verbose: bool = False) -> int:
    """``clubrating run``: any failure that ends it (a bad setting, a refused token, an
    unreachable platform or database) is one line on stderr, the traceback only with
    ``--verbose`` (in the log, where tokens and passwords are masked). Exit status 0 when
    stopped on request (SIGTERM, SIGINT), 78 for a setting a person must fix
    (:class:`ConfigError`: a service manager must not start it again and again), else 1."""
    try:
        _run_async(run())
    except Exception as error:
        if isinstance(error, StartupError | DatabaseUnavailable):
            message = str(error)
        else:
            message = f"clubrating run stopped: {type(error).__name__}: {error}"
            if not verbose:
                message += " (clubrating run --verbose shows where)"
        if verbose:
            log.error("clubrating run failed", exc_info=error)
        _one_line(message)
        return EXIT_CONFIG if isinstance(error, ConfigError) else 1
    return 0


def _one_line(message: str) -> None:
    """``clubrating: message`` on stderr, on one line, without a secret."""
    sys.stderr.write("clubrating: " + " ".join(scrub(message).splitlines()) + "\n")


if __name__ == "__main__":
    sys.exit(main())
