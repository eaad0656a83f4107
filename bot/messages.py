"""Every sentence the bot says, in one catalogue keyed by message id (ready for translation).

Front-ends never write user-facing prose of their own: they pick a key and fill its fields.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

MESSAGES: dict[str, str] = {
    # -- refusals (nothing changed) --------------------------------------------------------------
    "not_registered": "You are not a member yet. Send /register to join.",
    "already_registered": "You are already registered as {name}.",
    "name_taken": "The name {name} is taken in this club. Try /register with another name.",
    "bad_name": "A name needs letters, at most {limit} characters, and may not start with @.",
    "name_too_long": "That name is too long: {limit} characters at most.",
    "bad_date": "Give a birth date as YYYY-MM-DD (not {text}).",
    "name_a_member": "Name a member, e.g. @bob.",
    "unknown_member": "There is no member called {name}. /top lists everyone.",
    "unknown_ladder": "There is no ladder {ladder}. Ladders: {ladders}.",
    "unknown_game": "There is no game #{game}.",
    "unknown_challenge": "There is no challenge #{challenge}.",
    "moderators_only": "Only moderators can do that.",
    "platform_moderators_only": "Only the group's administrators can name moderators.",
    "already_moderator": "{name} is already a moderator.",
    "not_moderator": "{name} is not a moderator of the club.",
    "too_long": "That text is too long: {limit} characters at most.",
    "not_yourself": "A game needs two different players.",
    "same_member": "Name two different members, not {name} twice.",
    "bad_result": "The result must be win, loss or draw (not {text}).",
    "bad_handicap": "A handicap is a number up to {limit} (not {text}).",
    "bad_colour": "The colour must be white or black (not {text}).",
    "system_cannot_rate": "This ladder's system ({system}) cannot rate a game reported this way.",
    "no_open_event": "There is no open event called {event}.",
    "event_exists": "There is already an event called {event}.",
    "bad_event_name": "An event name has letters, digits, - or _, at most {limit} characters.",
    "challenge_exists": "You already have an open challenge (#{challenge}) with {opponent}.",
    "no_challenge": "Nobody has challenged you.",
    "which_challenge": "You have several challenges ({ids}); say which, e.g. /accept {ids}.",
    "not_your_challenge": "Challenge #{challenge} is not addressed to you.",
    "challenge_expired": "Challenge #{challenge} has expired.",
    "challenge_answered": "Challenge #{challenge} was already {status}.",
    "nothing_pending": "You have no report waiting for you.",
    "which_game": "Several games are waiting ({ids}); say which, e.g. /confirm {ids}.",
    "not_your_game": "You did not play game #{game}.",
    "not_yours_to_answer": "Game #{game} is for your opponent to confirm or dispute.",
    "not_your_report": "Only the member who reported game #{game} can withdraw it.",
    "already_confirmed": "Game #{game} is already confirmed.",
    "game_withdrawn": "Game #{game} was withdrawn.",
    "game_disputed": "Game #{game} is disputed; a moderator will settle it.",
    "game_voided": "Game #{game} is void.",
    "game_not_voided": "Game #{game} is not void.",
    "nothing_to_correct": "Say what to correct: a result, a player or a handicap.",
    "nothing_to_undo": "There is no moderator action to undo.",
    "ladder_in_use": "Ladder {ladder} has been played on since; its creation cannot be undone.",
    "not_in_ladder": "{name} has not played in the {ladder} ladder.",
    "already_retired": "{name} is already retired.",
    "not_retired": "{name} is not retired.",
    "bad_ladder_name": "A ladder name has lowercase letters, digits, - or _, at most {limit}.",
    "ladder_exists": "There is already a ladder called {ladder}.",
    "unknown_system": "There is no rating system {system}. Systems: {systems}.",
    "bad_parameter": "Bad parameter: {problem}.",
    "unknown_setting": "There is no setting {setting}. Settings: {settings}.",
    "bad_setting": "That is not a valid value for {setting}: {text}.",
    "import_row": "Row {row} of the file: {problem}. Nothing was imported.",
    "bad_command": "Unknown command {command}. Send /help for the list.",
    "usage": "Usage: {usage}",
    "bad_number": "{text} is not a game or challenge number.",
    "input_too_long": "That message is too long ({limit} characters at most).",
    # -- outcomes -------------------------------------------------------------------------------
    "ok": "Done.",
    "registered": "Welcome, {name}! You are on the {ladder} ladder.",
    "challenge": "#{challenge}: {challenger} challenges {opponent} ({ladder}), open until "
                 "{expires_at}.",
    "challenge_issued": "{challenger} challenges {opponent} (challenge #{challenge}, "
                        "{ladder}). {opponent}: /accept or /decline before {expires_at}.",
    "challenge_accepted": "{opponent} accepts {challenger}'s challenge #{challenge}. "
                          "Play, then /report the result.",
    "challenge_declined": "{opponent} declines {challenger}'s challenge #{challenge}.",
    "reported": "Game #{id}: {result}. {opponent}, please /confirm or /dispute.",
    "recorded": "Game #{id} recorded: {result}.",
    "confirmed": "Game #{id} confirmed: {result}.",
    "disputed": "Game #{id} is disputed: {result}. A moderator will settle it.",
    "withdrawn": "Game #{id} withdrawn: {result}.",
    "voided": "Game #{id} is now void: {result}.",
    "restored": "Game #{id} counts again: {result}.",
    "merged": "{from} is merged into {into}: their games are {into}'s now.",
    "retired": "{name} is retired from {ladder}.",
    "returned": "{name} is back on {ladder}.",
    "event_opened": "Event {event} is open: report its games with event={event}.",
    "event_closed": "Event {event} is closed; its {games} games are rated together.",
    "ladder_created": "Ladder {ladder} created with the {system} system.",
    "system_set": "Ladder {ladder} now uses {system} ({params}); every game was re-rated.",
    "setting_set": "{setting} of {ladder} is now {value}.",
    "settings": "Ladder {ladder}: system {system} ({params}); auto-confirm after "
                "{auto_confirm_hours} h; challenges open {challenge_hours} h; days without a game "
                "before retirement: {inactivity_days}; hide provisional: {hide_provisional}. "
                "Ladders: {ladders}.",
    "undone": "Undone: {action} #{id} ({summary}).",
    "moderator_named": "{name} is now a moderator of the club.",
    "moderator_removed": "{name} is no longer a moderator of the club.",
    "imported": "Imported {games} games ({steps} entries) into {ladder}.",
    "preview": "Correcting game #{game} would change:",
    "applied": "Game #{game} corrected. Ratings changed:",
    "no_change": "No rating changes.",
    "change_line": "{name}: {before} -> {after}",
    "leaderboard_title": "{ladder} ladder",
    "leaderboard_empty": "Nobody is rated on {ladder} yet.",
    "leaderboard_hidden": "({count} provisional players not shown)",
    "profile": "{name} ({ladder}): {rating}, rank {rank}, {games} games "
               "({wins}W {draws}D {losses}L), peak {peak}, recent {recent}",
    "profile_unrated": "{name} ({ladder}): no games yet.",
    "history_title": "{name}'s games on {ladder}:",
    "history_empty": "{name} has no games on {ladder} yet.",
    "game_line": "#{id} {date} {result}{extra}",
    "h2h": "{name} vs {other} ({ladder}): {wins}W {draws}D {losses}L",
    "audit_line": "#{id} {at} {actor}: {kind} {summary}{reason}",
    "pending_confirm": "To confirm or dispute: {games}",
    "pending_waiting": "Your reports waiting: {games}",
    "pending_none": "Nothing waiting for you.",
    "result_win": "{a} beat {b}",
    "result_draw": "{a} drew with {b}",
    "retired_mark": " (retired)",
    # -- the console --------------------------------------------------------------------------
    "console_welcome": "Console chat for club {club}. You are {user}. /as NAME speaks as NAME, "
                       "/as NAME! as a moderator; /help lists the commands; /quit ends.",
    "console_as": "You are now {user}{role}.",
    "console_moderator": " (moderator)",
    "no_preview": "There is no correction to apply. Start one with /correct.",
    "correction_cancelled": "Correction of game #{game} cancelled; nothing changed.",
    "apply_hint": "Send /apply to make this correction, or /cancel.",
    "internal_error": "Something went wrong on our side; it has been logged. Nothing changed.",
    "help_title": "Commands:",
    "help_moderator_title": "Moderator commands:",
    "help_register": "/register [name] [birth=YYYY-MM-DD] - join the club",
    "help_rating": "/rating [@member] [ladder=NAME] - rating, rank and record",
    "help_top": "/top [ladder] - the leaderboard",
    "help_challenge": "/challenge @member [ladder=NAME] - challenge a member",
    "help_accept": "/accept [number] - accept a challenge",
    "help_decline": "/decline [number] - decline a challenge",
    "help_report": "/report @member win|loss|draw [handicap=N] [colour=white|black] "
                   "[event=NAME] [ladder=NAME] - report your game",
    "help_confirm": "/confirm [number] - confirm a result reported against you",
    "help_dispute": "/dispute [number] [reason] - dispute a result reported against you",
    "help_withdraw": "/withdraw [number] - take back your own unconfirmed report",
    "help_history": "/history [@member] [ladder=NAME] - latest games",
    "help_h2h": "/h2h @member [ladder=NAME] - your record against a member",
    "help_pending": "/pending - what waits for you",
    "help_help": "/help - this list",
    "help_as": "/as NAME[!] - speak as NAME in the console (! for a moderator)",
    "help_mod_report": "/report @a @b win|loss|draw ... - record a game at once",
    "help_correct": "/correct number [win|loss|draw] [a=@member] [b=@member] [handicap=N] "
                    "- preview a correction; then /apply or /cancel",
    "help_void": "/void number [reason] - take a game out of the ratings",
    "help_restore": "/restore number - count a void game again",
    "help_merge": "/merge @duplicate @member - merge two records of one person",
    "help_retire": "/retire @member [ladder=NAME] - retire a player",
    "help_return": "/return @member [ladder=NAME] - bring a retired player back",
    "help_event": "/event open|close NAME [ladder=NAME] - games of an event are rated together",
    "help_ladder": "/ladder create NAME [system] [key=value ...] - add a ladder",
    "help_system": "/system NAME [key=value ...] [ladder=NAME] - change the rating system",
    "help_set": "/set auto_confirm_hours|challenge_hours|inactivity_days|hide_provisional "
                "VALUE [ladder=NAME] - change a setting",
    "help_settings": "/settings [ladder] - a ladder's system and settings",
    "help_audit": "/audit [n] - the latest entries of the club's log",
    "help_undo": "/undo - take back the latest moderator action",
    "help_moderator": "/moderator add|remove @member - name a member moderator of the club "
                      "(group administrators only)",
    # -- Telegram -------------------------------------------------------------------------------
    "telegram_private": "Add me to your club's group and use the commands there; /help there "
                        "lists them. Here, /rating and /history show your standing in each of "
                        "your clubs.",
    "private_none": "You are not a member of any club yet: send /register in your club's group.",
    "private_club": "{club}: {profile}",
    # (notification settings join the private chat with the announcements of issue 6)
    "menu_register": "Join the club",
    "menu_rating": "Rating, rank and record",
    "menu_top": "The leaderboard",
    "menu_challenge": "Challenge a member",
    "menu_report": "Report a game: @member win|loss|draw",
    "menu_confirm": "Confirm a result reported against you",
    "menu_dispute": "Dispute a result reported against you",
    "menu_withdraw": "Take back your own report",
    "menu_history": "Latest games",
    "menu_h2h": "Your record against a member",
    "menu_pending": "What waits for you",
    "menu_help": "All commands",
    "button_confirm": "Confirm",
    "button_dispute": "Dispute",
    "button_accept": "Accept",
    "button_decline": "Decline",
    "button_apply": "Apply",
    "button_cancel": "Cancel",
    "button_previous": "« Previous",
    "button_next": "Next »",
}

_FORMATTER = string.Formatter()


def text(key: str, params: Mapping[str, object] | None = None, **more: object) -> str:
    """The message ``key`` with its fields filled in."""
    values = {**(params or {}), **more}
    template = MESSAGES[key]
    return _FORMATTER.vformat(template, (), values)


def fields(key: str) -> set[str]:
    """The fields a message needs (used by tests to keep callers and catalogue in step)."""
    return {name for _, name, _, _ in _FORMATTER.parse(MESSAGES[key]) if name}
