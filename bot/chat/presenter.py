"""Answers as plain text, from the message catalogue: what the console prints and the base of
what chat front-ends send."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from functools import singledispatch
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_date, format_skeleton

from bot.chat.language import RIGHT_TO_LEFT, current, right_to_left
from bot.chat.messages import text
from bot.service import evaluating
from bot.service.errors import Refusal
from bot.service.results import (
    AttemptResult,
    Audit,
    AuditLine,
    Digest,
    Evaluation,
    GameLine,
    GameResult,
    HeadToHead,
    History,
    Leaderboard,
    NightRoundShown,
    NightStandings,
    Notice,
    Pending,
    Preview,
    ProblemBoard,
    ProblemCard,
    Profile,
    PuzzleInvite,
    PuzzlePost,
    PuzzleShown,
    RatingChange,
    ScheduleInfo,
    SeasonList,
    SeasonTable,
    Stake,
    TeamStanding,
)
from bot.service.stakes import STAKE
from bot.service.team_rule import SIDE_JOINER


def cut(shown: str, limit: int) -> list[str]:
    """Pieces of at most ``limit`` characters, cut at line ends where a line allows (for
    platforms' message size limits)."""
    pieces: list[str] = []
    current = ""
    for line in shown.split("\n"):
        while len(line) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            current = line
        else:
            current = candidate
    if current or not pieces:
        pieces.append(current)
    return pieces


def _local(instant: str, zone: str) -> datetime | None:
    """An ISO instant (naive: UTC) on the zone's wall clock; None for text that is not one
    (what answers stored before carried)."""
    try:
        moment = datetime.fromisoformat(instant)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        return moment.astimezone(UTC)


def when(instant: str, zone: str) -> str:
    """Every time people read, in one format: the day as the reader's language writes a
    weekday with its date (CLDR's ``MMMEd``: ``Tue, Nov 24``, ``вт, 24 нояб.``), then the
    zone's wall clock on 24 hours and the zone (``22:26 CET``)."""
    local = _local(instant, zone)
    if local is None:
        return instant
    return (f"{format_skeleton('MMMEd', local, locale=current())} {local:%H:%M} "
            f"{local.tzname()}")


def day(instant: str, zone: str) -> str:
    """The date of an instant in the zone, in the reader's language's medium format
    (``Nov 23, 2026``, ``23 нояб. 2026 г.``); text that is no date as it is."""
    if "T" in instant:
        local = _local(instant, zone)
        found = None if local is None else local.date()
    else:
        try:
            found = date.fromisoformat(instant)
        except ValueError:
            found = None
    return instant if found is None else format_date(found, "medium", locale=current())


def _params(params: Mapping[str, object]) -> Mapping[str, object]:
    """A notice's parameters to show: its instants (``*_at``) in its ``zone``, when it names
    one."""
    zone = params.get("zone")
    if not isinstance(zone, str):
        return params
    return {k: when(v, zone) if k.endswith("_at") and isinstance(v, str) else v
            for k, v in params.items()}


def rating_text(rating: float | None, provisional: bool, deviation: float | None = None) -> str:
    """1480, 1480? while provisional, or 1480 ±45 where the system keeps a deviation."""
    if rating is None:
        return "-"
    shown = f"{rating:.0f}"
    if deviation is not None:
        shown += f" ±{deviation:.0f}"
    return shown + ("?" if provisional else "")


def side_a(game: GameLine) -> str:
    """The first side as people read it: its members joined by ``&``."""
    return SIDE_JOINER.join((game.player_a, *game.partners_a))


def side_b(game: GameLine) -> str:
    return SIDE_JOINER.join((game.player_b, *game.partners_b))


def result_text(game: GameLine) -> str:
    """``alice beat bob``, ``alice & bob drew with carol & dan``: the winning side first."""
    if game.seconds is not None:  # an attempt: the member first, then the problem
        return text("result_solved" if game.score_a == 1.0 else "result_not_solved",
                    member=game.player_a, problem=game.player_b, seconds=game.seconds)
    first, second = side_a(game), side_b(game)
    if game.score_a == 0.5:
        return text("result_draw", a=first, b=second)
    winner, loser = (first, second) if game.score_a == 1.0 else (second, first)
    return text("result_win", a=winner, b=loser)


def _game_line(game: GameLine) -> str:
    extra = ""
    if game.handicap:
        extra += f", handicap {game.handicap:g}"
    if game.event:
        extra += f", {game.event}"
    if game.status != "confirmed":
        extra += f" [{game.status}]"
    if game.voided:
        extra += " [void]"
    return text("game_line", id=game.id, date=day(game.played_at, game.zone),
                result=result_text(game), extra=extra)


def _terms(game: GameLine, counts_at: str) -> str:
    """Everything a report's opponent confirms beside the result, and when it counts by
    itself."""
    if game.handicap:
        giver = side_a(game) if game.handicap > 0 else side_b(game)
        handicap = text("terms_handicap", handicap=f"{abs(game.handicap):g}", name=giver)
    else:
        handicap = text("terms_no_handicap")
    colour = (text("terms_colour", name=side_a(game), colour=game.colour) if game.colour
              else text("terms_no_colour"))
    event = text("terms_event", event=game.event) if game.event else text("terms_no_event")
    return text("report_terms", ladder=game.ladder, handicap=handicap, colour=colour,
                event=event, deadline=when(counts_at, game.zone))


def _change(change: RatingChange) -> str:
    return text("change_line", name=change.name,
                before=rating_text(change.before, change.was_provisional),
                after=rating_text(change.after, change.provisional))


#: a latest game's letter in a profile, by the member's score
_RECENT = {1.0: "recent_win", 0.0: "recent_loss"}


def render(answer: object) -> str:
    """An answer as its reader reads it, in the language being written; a right-to-left
    language's lines laid out from the right whatever name or number leads them
    (:func:`bot.chat.language.right_to_left`)."""
    shown = _render(answer)
    return right_to_left(shown) if current() in RIGHT_TO_LEFT else shown


@singledispatch
def _render(answer: object) -> str:
    raise TypeError(f"no text for {type(answer).__name__}")


@_render.register
def _(answer: Refusal) -> str:
    return text(answer.key, answer.params)


@_render.register
def _(answer: Notice) -> str:
    return "\n".join([text(answer.key, _params(answer.params)), *_stake_lines(answer)])


def _stake_lines(answer: Notice) -> list[str]:
    """A challenge's points at stake (issue 38): its ``stake`` parameter's lines, one each."""
    stake = answer.params.get(STAKE)
    if not isinstance(stake, tuple | list):
        return []
    return [text(part.key, _params(part.params)) for part in stake if isinstance(part, Notice)]


@_render.register
def _(answer: Stake) -> str:
    """``/stake`` (issue 38): its ladder, then a line per member and an estimate's line."""
    return "\n".join([text("stake_title", ladder=answer.ladder),
                      *(text(n.key, _params(n.params)) for n in answer.lines)])


@_render.register
def _(answer: GameResult) -> str:
    game = answer.game
    lines = [text(answer.key, id=game.id, result=result_text(game), opponent=side_b(game))]
    if answer.counts_at:
        lines.append(_terms(game, answer.counts_at))
    if answer.moderators:
        lines.append(text("disputed_moderators", names=", ".join(answer.moderators)))
    if answer.held:
        lines.append(text("held_for_event", event=answer.held))
    lines.extend(text(n.key, _params(n.params)) for n in answer.stake)
    lines.extend(_change(c) for c in answer.changes)
    lines.extend(text("returned", name=name, ladder=game.ladder) for name in answer.back)
    lines.extend(text(n.key, _params(n.params)) for n in answer.announcements)
    return "\n".join(lines)


@_render.register
def _(answer: Leaderboard) -> str:
    if not answer.rows and not answer.hidden_provisional:
        return text("leaderboard_empty", ladder=answer.ladder)
    width = max((len(row.name) for row in answer.rows), default=0)
    lines = [text("leaderboard_title", ladder=answer.ladder)]
    for row in answer.rows:
        rating = rating_text(row.rating, row.provisional, row.deviation)
        games = text("leaderboard_games", games=row.games)
        lines.append(f"{row.rank:>3}. {row.name:<{width}}  {rating:>9}  {games}"
                     + _band_tag(row.band))
    if answer.hidden_provisional:
        lines.append(text("leaderboard_hidden", count=answer.hidden_provisional))
    return "\n".join(lines)


@_render.register
def _(answer: Profile) -> str:
    return _profile(answer) + _team_lines(answer.team) + (
        "\n" + text("profile_band", band=answer.band) if answer.band else "")


def _band_tag(band: str | None) -> str:
    """A board row's rating band (issue 38), after two spaces; nothing without one."""
    return "" if band is None else "  " + text("band_tag", band=band)


def _profile(answer: Profile) -> str:
    if answer.rating is None:
        return text("profile_unrated", name=answer.name, ladder=answer.ladder)
    rating = rating_text(answer.rating, answer.provisional, answer.deviation)
    if not answer.games:  # no rank, no peak: nothing to count them from
        line = text("profile_no_games", name=answer.name, ladder=answer.ladder, rating=rating)
        return line + (text("retired_mark") if answer.retired else "")
    peak = (text("profile_no_peak") if answer.peak is None
            else text("profile_peak", peak=rating_text(answer.peak, False)))
    line = text(
        "profile", name=answer.name, ladder=answer.ladder, rating=rating,
        rank="-" if answer.rank is None else answer.rank, games=answer.games, wins=answer.wins,
        draws=answer.draws, losses=answer.losses, peak=peak,
        recent=" ".join(text(_RECENT.get(score, "recent_draw")) for score in answer.recent)
        or "-",
    )
    return line + (text("retired_mark") if answer.retired else "")


def _team_lines(team: TeamStanding | None) -> str:
    """A profile's lines of the member's team games (issue 37), each after a line break."""
    if team is None:
        return ""
    lines = [text("profile_team", ladder=team.ladder, games=team.games,
                  rating=rating_text(team.rating, team.provisional, team.deviation))]
    if team.last is not None:
        lines.append(text("profile_team_last", game=_game_line(team.last)))
    return "".join("\n" + line for line in lines)


@_render.register
def _(answer: History) -> str:
    if not answer.games:
        return text("history_empty", name=answer.name, ladder=answer.ladder)
    lines = [text("history_title", name=answer.name, ladder=answer.ladder)]
    lines.extend(_game_line(g) for g in answer.games)
    return "\n".join(lines)


@_render.register
def _(answer: HeadToHead) -> str:
    lines = [text("h2h_partners" if answer.partners else "h2h", name=answer.name,
                  other=answer.other, ladder=answer.ladder,
                  wins=answer.wins, draws=answer.draws, losses=answer.losses)]
    lines.extend(_game_line(g) for g in answer.games)
    return "\n".join(lines)


@_render.register
def _(answer: Preview) -> str:
    if answer.merge is not None:
        return _merge(answer, answer.merge)
    if answer.link is not None:  # a chat joining with its games, or leaving: no game numbers
        lines = [text(answer.link.key, answer.link.params)]
        lines.extend(_change(c) for c in answer.changes)
        return "\n".join(lines)
    if answer.system is not None:
        if answer.applied and not answer.changes:  # a ladder without games: made at once
            return text(answer.system.key, answer.system.params)
        lines = [text("system_applied" if answer.applied else "system_preview",
                      answer.system.params)]
    elif answer.undo is not None:
        what = text(answer.undo.key, answer.undo.params)
        if not answer.rates:  # applied at once: it moved no rating
            return text("undo_done", id=answer.game_id, what=what)
        lines = [text("undo_applied" if answer.applied else "undo_preview", id=answer.game_id,
                      what=what)]
    else:
        lines = _correction(answer)
    lines.extend(_change(c) for c in answer.changes)
    if not answer.changes:
        lines.append(text("no_change"))
    return "\n".join(lines)


def _correction(answer: Preview) -> list[str]:
    """A correction's first lines: whether an /apply found its preview out of date, what it
    does, the result in words before and after, and whether it replaces an earlier preview
    (issue 31)."""
    lines = [text("correction_outdated", game=answer.game_id)] if answer.outdated else []
    lines.append(text("applied" if answer.applied else "preview", game=answer.game_id))
    if answer.was is not None and answer.becomes is not None:
        lines.append(text("correction_result", before=result_text(answer.was),
                          after=result_text(answer.becomes)))
    if answer.replaces:
        lines.append(text("correction_replaces", game=answer.game_id))
    return lines


def _merge(answer: Preview, merge: Notice) -> str:
    """A /merge's preview (the games it drops, every rating it would change) or what it did."""
    dropped = merge.params.get("dropped")
    if answer.applied:
        first = [text("merged", merge.params)]
        if dropped:
            first.append(text("merge_dropped_one" if dropped == 1 else "merge_dropped",
                              merge.params))
        if answer.changes:
            first.append(text("merge_ratings_changed"))
        lines = [" ".join(first)]
    else:
        key = ("merge_preview_none" if not dropped
               else "merge_preview_one" if dropped == 1 else "merge_preview")
        lines = [text(key, merge.params)]
    lines.extend(_change(c) for c in answer.changes)
    if not answer.changes:
        lines.append(text("no_change"))
    return "\n".join(lines)


@_render.register
def _(answer: NightRoundShown) -> str:
    """A round of a club night: ``Round 2 (preview)``, then ``Board 1: alice – bob`` a line
    (with its handicap, its result and game, or why it is paired so), then ``Bye: carol``."""
    lines = [text("night_round_preview" if answer.preview else "night_round",
                  round=answer.round, ladder=answer.ladder)]
    for board in answer.boards:
        line = text("night_board", board=board.number, first=board.first, second=board.second)
        if board.handicap:
            line += " " + text("night_board_handicap", stones=board.handicap)
        if board.result is not None:
            line += " " + (text("night_board_result_game", result=board.result,
                                game=board.game) if board.game is not None
                           else board.result)
        if board.reason:
            line += " " + text("night_reason", why=text(f"night_reason_{board.reason}"))
        lines.append(line)
    if answer.bye is not None:
        lines.append(text("night_bye", name=answer.bye))
    if answer.rules:
        lines.append(text("night_rules", rules=answer.rules))
    return "\n".join(lines)


def points(value: float) -> str:
    """A night's points as players write them: ``4½``, ``½``, ``3``; other fractions (a
    Sonneborn-Berger's quarters) as decimals."""
    whole, rest = divmod(value, 1.0)
    if rest == 0.0:
        return f"{int(whole)}"
    if rest == 0.5:
        return f"{int(whole)}½" if whole else "½"
    return f"{value:.2f}".rstrip("0")


@_render.register
def _(answer: NightStandings) -> str:
    """A night's standings: place, name, points right after the name, then the tie-breaks."""
    lines = [text("night_standings_final" if answer.final else "night_standings",
                  rounds=answer.rounds, ladder=answer.ladder)]
    labels = [text(f"tiebreak_{key}") for key in answer.tiebreaks]
    for row in answer.rows:
        breaks = ", ".join(f"{label} {points(value)}"
                           for label, value in zip(labels, row.tiebreaks, strict=True))
        lines.append(text("night_standing", place=row.place, name=row.name,
                          points=points(row.points), tiebreaks=breaks))
    return "\n".join(lines)


@_render.register
def _(answer: Audit) -> str:
    return "\n".join(_audit_line(line) for line in answer.lines)


def _audit_line(line: AuditLine) -> str:
    at = when(line.at, line.zone)
    if line.what is None:  # an answer stored before entries were said as sentences
        return text("audit_line", id=line.id, at=at, actor=line.actor, kind=line.kind,
                    summary=line.summary, reason=f" ({line.reason})" if line.reason else "")
    return text("audit_said", id=line.id, at=at, what=text(line.what.key, line.what.params),
                reason=text("audit_because", reason=line.reason) if line.reason else "",
                undone=text("audit_undone") if line.undone else "")


@_render.register
def _(answer: Evaluation) -> str:
    if not answer.scores:
        return text("evaluation_too_few", ladder=answer.ladder, games=answer.games,
                    needed=evaluating.MIN_GAMES)
    lines = [text("evaluation_head", ladder=answer.ladder, games=answer.games)]
    for rank, score in enumerate(answer.scores[:5], start=1):
        current = text("evaluation_current") if score.system == answer.current else ""
        lines.append(text("evaluation_line", rank=rank, system=score.system,
                          logloss=score.logloss, brier=score.brier, current=current))
    best = answer.scores[0].system
    lines.append(text("evaluation_keep", current=best) if best == answer.current
                 else text("evaluation_advice", best=best))
    return "\n".join(lines)


@_render.register
def _(answer: Pending) -> str:
    lines = []
    if answer.to_confirm:
        lines.append(text("pending_confirm",
                          games="; ".join(_game_line(g) for g in answer.to_confirm)))
    if answer.waiting:
        lines.append(text("pending_waiting",
                          games="; ".join(_game_line(g) for g in answer.waiting)))
    lines.extend(text(n.key, _params(n.params)) for n in answer.challenges)
    if answer.disputes:
        lines.append(text("pending_disputes"))
        for dispute in answer.disputes:
            game = dispute.game
            lines.append(text("pending_dispute", game=_game_line(game), reason=dispute.reason,
                              id=game.id) if dispute.reason else
                         text("pending_dispute_no_reason", game=_game_line(game), id=game.id))
    lines.extend(text(n.key, _params(n.params)) for n in answer.claims)
    return "\n".join(lines) or text("pending_none")


@_render.register
def _(answer: ScheduleInfo) -> str:
    return schedule_text(answer)


#: the schedule answers the shell words its own way (a pause there is resumed from the shell)
_SHELL_KEYS = {"schedule_paused": "schedule_paused_shell"}


def schedule_text(answer: ScheduleInfo, chat: str | None = None) -> str:
    """A ladder's schedule; ``chat``: the club's chat as the shell's ``clubrating schedule``
    was given it (``telegram:-1001234``), which it names instead of "this chat" (the shell is
    no chat)."""
    where = (text("schedule_channel", channel=answer.channel) if answer.channel
             else text("schedule_here") if chat is None
             else text("schedule_club_chat", chat=chat))
    upcoming = (when(answer.next_post, answer.timezone) if answer.next_post
                else text("schedule_is_paused"))
    key = answer.key if chat is None else _SHELL_KEYS.get(answer.key, answer.key)
    return "\n".join([
        text(key, ladder=answer.ladder, chat=chat),
        text("schedule_line", size=answer.size, cron=answer.cron, timezone=answer.timezone,
             where=where, next=upcoming),
    ])


def _signed(change: float) -> str:
    return f"{change:+.0f}" if round(change) else "0"


def _moved(change: RatingChange) -> str:
    assert change.before is not None and change.after is not None
    return f"{change.name} {_signed(change.after - change.before)}"


@_render.register
def _(answer: Digest) -> str:
    if answer.since:
        title = text("digest_title", ladder=answer.ladder, since=when(answer.since, answer.zone))
    elif answer.began:
        title = text("digest_title_began", ladder=answer.ladder,
                     began=when(answer.began, answer.zone))
    else:
        title = text("digest_title_first", ladder=answer.ladder)
    lines = [title]
    width = max((len(row.standing.name) for row in answer.rows), default=0)
    for row in answer.rows:
        at = row.standing
        rating = rating_text(at.rating, at.provisional, at.deviation)
        change = text("digest_new") if row.change is None else _signed(row.change)
        games = text("leaderboard_games", games=at.games)
        lines.append(f"{at.rank:>3}. {at.name:<{width}}  {rating:>9}  {change:>5}  {games}"
                     + _band_tag(at.band))
    if not answer.rows:
        lines.append(text("leaderboard_empty", ladder=answer.ladder))
    if answer.hidden_provisional:
        lines.append(text("leaderboard_hidden", count=answer.hidden_provisional))
    sections = [
        ("digest_climbers", [_moved(c) for c in answer.climbers]),
        ("digest_fallers", [_moved(c) for c in answer.fallers]),
        ("digest_established", answer.established),
        ("digest_newcomers", answer.newcomers),
        ("digest_retiring", [text("digest_days", name=r.name, days=r.days)
                             for r in answer.retiring]),
    ]
    lines.extend(text(key, names=", ".join(names)) for key, names in sections if names)
    lines.append(text("digest_games", games=answer.games))
    lines.extend(text("digest_team_game", result=result_text(g)) for g in answer.team_games)
    if answer.late:
        lines.append(text("digest_late", games=answer.late,
                          first=day(answer.late_from, answer.zone),
                          last=day(answer.late_to, answer.zone)))
    return "\n".join(lines)


# -- rated puzzles ---------------------------------------------------------------------------------


def _card(card: ProblemCard, key: str) -> str:
    return text(key, problem=card.problem, ladder=card.ladder, rating=f"{card.rating:.0f}",
                prompt=card.prompt)


@_render.register
def _(answer: PuzzleShown) -> str:
    lines = [_card(answer.card, "puzzle_shown")]
    lines.append(text("puzzle_again" if answer.again else "puzzle_deadline",
                      minutes=answer.minutes))
    return "\n".join(lines)


@_render.register
def _(answer: PuzzleInvite) -> str:
    from bot.service.puzzles import ATTEMPT_MINUTES
    return text("puzzle_invite", ladder=answer.ladder, minutes=ATTEMPT_MINUTES)


@_render.register
def _(answer: AttemptResult) -> str:
    lines = [text("attempt_solved" if answer.solved else "attempt_failed",
                  problem=answer.problem, seconds=answer.seconds),
             text("attempt_answers", answers=" | ".join(answer.answers))]
    lines.extend(_change(c) for c in answer.changes)
    return "\n".join(lines)


@_render.register
def _(answer: ProblemBoard) -> str:
    if not answer.rows:
        return text("problems_empty", ladder=answer.ladder)
    lines = [text("problems_title", ladder=answer.ladder)]
    lines.extend(text("problem_row", rank=rank, problem=row.problem,
                      rating=f"{row.rating:.0f}", solved=row.solved, attempts=row.attempts)
                 for rank, row in enumerate(answer.rows, start=1))
    return "\n".join(lines)


@_render.register
def _(answer: PuzzlePost) -> str:
    lines = []
    if answer.revealed is not None:
        lines.append(text("puzzle_post_solution", problem=answer.revealed,
                          answers=" | ".join(answer.answers)))
        if answer.solvers:
            lines.append(text("puzzle_post_fastest", solvers=", ".join(
                text("puzzle_solver", name=s.name, seconds=s.seconds) for s in answer.solvers)))
        else:
            lines.append(text("puzzle_post_nobody", attempts=answer.attempts))
    if answer.card is not None:
        lines.append(_card(answer.card, "puzzle_post_problem"))
        lines.append(text("puzzle_post_how"))
    return "\n".join(lines)


@_render.register
def _(answer: SeasonTable) -> str:
    """A season's table (issue 38): its title, a line per member with ``season_min_games``
    games, the most improved, and how to confirm a preview."""
    dates = {"season": answer.name, "ladder": answer.ladder, "start": answer.start,
             "end": answer.end, "games": answer.games}
    if answer.state == "archived":
        lines = [text("season_title_archived", dates, number=answer.number)]
    else:
        lines = [text(f"season_title_{answer.state}", dates)]
    lines += [text("season_row", place=row.place, name=row.name,
                   rating=rating_text(row.rating, row.provisional), change=f"{row.change:+d}",
                   peak=f"{row.peak:.0f}", games=row.games) for row in answer.rows]
    if not answer.rows:
        lines.append(text("season_table_empty", least=answer.min_games))
    if answer.improved is not None:
        lines.append(text("season_improved", name=answer.improved,
                          change=f"{answer.improvement:+d}"))
    if answer.state == "preview":
        lines.append(text("season_confirm_named" if answer.named else "season_confirm",
                          season=answer.name))
    return "\n".join(lines)


@_render.register
def _(answer: SeasonList) -> str:
    """``/season list``: a line per closed season (issue 38)."""
    if not answer.seasons:
        return text("season_list_empty", ladder=answer.ladder)
    lines = [text("season_list_title", ladder=answer.ladder)]
    for season in answer.seasons:
        shown = {"number": season.number, "season": season.name, "start": season.start,
                 "end": season.end, "games": season.games, "players": season.players}
        lines.append(text("season_list_line_no_champion", shown) if season.champion is None
                     else text("season_list_line", shown, champion=season.champion))
    return "\n".join(lines)
