"""Every sentence the bot says, in English, keyed by message id: the source of every language's
catalogue (:mod:`bot.chat.language`).

Front-ends never write user-facing prose of their own: they pick a key and fill its fields. A
count shown with its noun is written ``{games:game|games}`` (the English singular and plural):
each language gives the phrase its own plural forms.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from babel.numbers import format_decimal

from bot.service.results import Notice

from .language import RIGHT_TO_LEFT, catalogue, current, right_to_left

#: what /settings says of a ladder after its system (both forms of "settings" below)
_LADDER_SETTINGS = ("auto-confirm after {auto_confirm_hours} h; challenges open {challenge_hours} "
                    "h; days without a game before retirement: {inactivity_days}; hide "
                    "provisional: {hide_provisional}; announce results: {announce}; time zone: "
                    "{timezone}; reports waiting per member: {open_reports}, against one "
                    "opponent: {open_reports_per_opponent}; the club's language: {language}. "
                    "Ladders: {ladders}.")

MESSAGES: dict[str, str] = {
    # -- refusals (nothing changed) --------------------------------------------------------------
    "not_registered": "You are not a member yet. Send /register to join.",
    "already_registered": "You are already registered as {name}.",
    "name_taken": "The name {name} is taken in this club. Try /register with another name.",
    # issue 31: the imported player's real person is told how to become them
    "name_taken_imported": "{name} is an imported player of this club's history. If that is "
                           "you, /register with another name, then send /claim {name}: a "
                           "moderator approves, and {name}'s games become yours.",
    "name_like": "The name {name} looks too much like {member}, who is in this club already. "
                 "Try /register with another name.",
    "name_is_username": "{name} is the username of {member}, who is in this club already: "
                        "@{name} means them. Try /register with another name.",
    "bad_name": "A name needs letters, at most {limit} characters, and may not start with @.",
    "name_too_long": "That name is too long: {limit} characters at most.",
    # issue 37: "&" joins the members of a side in a history file
    "name_ampersand": "A name cannot contain &: it joins the members of a side (alice & bob). "
                      "Try /register with another name.",
    "bad_date": "Give a birth date as YYYY-MM-DD, from 1900-01-01 to yesterday (not {text}).",
    "birth_date_future": "A birth date cannot be today or later ({text}); give it as "
                         "YYYY-MM-DD, up to yesterday.",
    "name_invisible": "That name holds {char}, a character nobody sees (an invisible letter, a "
                      "filler, or a mark that changes no letter). Try /register with the name "
                      "as it reads.",
    "name_a_member": "Name a member, e.g. @bob.",
    "unknown_member": "There is no member called {name}. /top lists everyone.",
    # issue 31: "@Zoë Smith" typed unquoted reads as @Zoë, then the word Smith
    "name_in_quotes": "A name with a space goes in double quotes: @\"{name}\".",
    "ambiguous_member": "{name} could be {first} or {second}. Name the one you mean another "
                        "way: reply to their message, pick them from the list, or type their "
                        "name as /top shows it.",
    "unknown_ladder": "There is no ladder {ladder}. Ladders: {ladders}.",
    "unknown_game": "There is no game #{game}.",
    "unknown_challenge": "There is no challenge #{challenge}.",
    "moderators_only": "Only moderators can do that.",
    "platform_moderators_only": "Only the group's administrators can change who is a "
                                "moderator.",
    "server_managers_only": "Only the server's managers (Manage Server) can change who is a "
                            "moderator: name or remove moderators, or set the moderator role.",
    "already_moderator": "{name} is already a moderator.",
    "not_moderator": "{name} is not a moderator of the club.",
    "claim_not_imported": "{name} is no imported player: only a player of an imported history "
                          "can be claimed.",
    "claim_taken": "{name} is claimed already.",
    "claim_waiting": "{member}'s claim to be {name} waits for a moderator already.",
    "claim_has_games": "You have games as {member}: only a member without games can claim an "
                       "imported player. A moderator can /merge {member} into {name} instead.",
    "no_claim": "No claim to be {name} waits for an answer.",
    "too_long": "That text is too long: {limit} characters at most.",
    "rate_limited": "Easy there! That is a lot of commands at once; try again in {seconds} s.",
    "too_many_challenges": "You have {count:open challenge|open challenges} already; wait for "
                           "answers first.",
    # a member's reports that wait are capped (ladder settings open_reports and
    # open_reports_per_opponent); the refusal names the waiting games
    "open_reports_full": "You have {count:report|reports} waiting for confirmation ({games}): "
                         "wait for them or /withdraw one.",
    "open_reports_full_one": "Your report {games} is still waiting for confirmation: wait for "
                             "it or /withdraw {first}.",
    "open_reports_against": "You have {count:report|reports} against {opponent} waiting for "
                            "confirmation ({games}): wait for them or /withdraw one.",
    "open_reports_against_one": "Your report {games} against {opponent} is still waiting for "
                                "confirmation: wait for it or /withdraw {first}.",
    # issue 31: a moderator who played the same opponent again while a report waits
    "repeat_moderators_only": "Only moderators can report a repeated game (repeat=yes): "
                              "your report against them waits; /withdraw it if it was wrong.",
    "bad_repeat": "repeat= takes yes or no (not {value}).",
    "not_yourself": "A game needs two different players.",
    # issue 37: team games
    "team_member_twice": "{name} is named twice on one side.",
    "team_member_both_sides": "{name} cannot play on both sides.",
    "team_too_large": "A side has {count} members; ladder {ladder} allows at most {limit} "
                      "(/set max_side).",
    "team_uneven": "Sides of {a} and {b} members: ladder {ladder} rates only even sides "
                   "(/set uneven_teams on).",
    "team_member_retired": "{name} is retired on ladder {ladder}: /return them first.",
    "singles_on_team_ladder": "Ladder {ladder} rates the team games of {parent}: report a game "
                              "of one against one on {parent}.",
    "team_ladder_taken": "Team games of {parent} go to ladder {ladder}, but a ladder of that "
                         "name rates other games: /set team_ladder shared ladder={parent}.",
    "system_cannot_rate_teams": "This ladder's system ({system}) rates one member at a time, "
                                "not sides.",
    "team_setting_on_parent": "{setting} of this ladder's team games is set on ladder "
                              "{ladder}: /set {setting} VALUE ladder={ladder}.",
    "bad_sides": "Name the sides as sides=@a @b vs @c @d.",
    "correct_sides_ladder": "Game #{game} stays on ladder {ladder}, which does not rate games "
                            "of these sides: /void it and report it again.",
    "challenge_yourself": "You cannot challenge yourself: name another member.",
    "h2h_yourself": "You cannot compare yourself with yourself: name another member.",
    "same_member": "Name two different members, not {name} twice.",
    "bad_result": "The result must be win, loss or draw (not {text}).",
    "bad_handicap": "A handicap is a number from -{limit} to {limit} (not {text}).",
    "bad_handicap_stones": "A handicap on ladder {ladder} ({system}) is in stones, from -{limit} "
                           "to {limit} (not {text}).",
    "bad_colour": "The colour must be white or black (not {text}).",
    "system_cannot_rate": "This ladder's system ({system}) cannot rate a game reported this way.",
    "no_open_event": "There is no open event called {event}.",
    "event_on_ladders": "Event {event} is open on several ladders ({ladders}): say which, e.g. "
                        "ladder={first}.",
    # issue 31: an event closes once its reports are settled, so they are rated together
    "event_has_pending": "Event {event} still has games waiting for confirmation ({games}): "
                         "close it once they are confirmed, withdrawn, voided or settled, so "
                         "that its games are rated together.",
    "event_exists": "There is already an event called {event}.",
    "bad_event_name": "An event name has letters, digits, - or _, at most {limit} characters.",
    "challenge_exists": "You already have an open challenge (#{challenge}) with {opponent}.",
    "no_challenge": "Nobody has challenged you.",
    "which_challenge": "You have several challenges ({ids}); say which, e.g. /{command} "
                       "{first}.",
    "not_your_challenge": "Challenge #{challenge} is not addressed to you.",
    "challenge_expired": "Challenge #{challenge} has expired.",
    "challenge_was_accepted": "Challenge #{challenge} was already accepted.",
    "challenge_was_declined": "Challenge #{challenge} was already declined.",
    "challenge_was_withdrawn": "Challenge #{challenge} was already withdrawn.",
    "not_your_challenge_to_withdraw": "Only the member who issued challenge #{challenge} can "
                                      "withdraw it.",
    "no_challenge_to_withdraw": "You have no open challenge to withdraw.",
    # games and challenges are numbered apart: /withdraw N when both #N are the caller's
    "which_withdraw": "Your report #{number} and your challenge #{number} are both open: "
                      "/withdraw game {number} or /withdraw challenge {number}.",
    "nothing_pending": "You have no report waiting for you.",
    "which_game": "Several games are waiting ({ids}); say which, e.g. /{command} {first}.",
    "not_your_game": "You did not play game #{game}.",
    "not_yours_to_answer": "Game #{game} is for your opponent to confirm or dispute.",
    "own_report": "Game #{game} is your own report: {opponent} confirms or disputes it, not "
                  "you.",
    "not_your_report": "Only the member who reported game #{game} can withdraw it.",
    "already_confirmed": "Game #{game} is already confirmed.",
    "game_withdrawn": "Game #{game} was withdrawn.",
    "game_disputed": "Game #{game} is disputed; a moderator will settle it.",
    "game_voided": "Game #{game} is void.",
    "game_not_voided": "Game #{game} is not void.",
    "nothing_to_correct": "Say what to correct: a result, a player or a handicap.",
    # /correct N win|loss|draw: the result of the player shown first in the game's line
    # (issue 31); a result already recorded changes nothing
    "correction_no_change": "Game #{game} already says {a} beat {b}: no change. The result "
                            "you give is {a}'s, shown first (/correct {game} loss: {b} won).",
    "correction_no_change_draw": "Game #{game} already says {a} drew with {b}: no change.",
    "correction_no_change_attempt": "Game #{game} already says that: no change. The result you "
                                    "give is {member}'s against the problem {problem} (win: "
                                    "solved, loss: not solved).",
    "nothing_to_undo": "There is no moderator action to undo.",
    "ladder_in_use": "Ladder {ladder} has been played on since; its creation cannot be undone.",
    "not_in_ladder": "{name} has not played in the {ladder} ladder.",
    "already_retired": "{name} is already retired.",
    "not_retired": "{name} is not retired.",
    "bad_ladder_name": "A ladder name has lowercase letters, digits, - or _, at most {limit}.",
    "ladder_exists": "There is already a ladder called {ladder}.",
    "too_many_ladders": "A club has at most {limit} ladders; this one has {limit} already.",
    "unknown_system": "There is no rating system {system}. Systems: {systems}.",
    "bad_parameter": "Bad parameter: {problem}.",
    # a parameter typed wrong (ratings_core.parameters.ParameterError's problems)
    "parameter_unknown": "There is no parameter {parameter}; parameters: {expected}.",
    "parameter_choice": "{parameter} is one of {expected} (not {text}).",
    "parameter_boolean": "{parameter} is true or false (not {text}).",
    "parameter_whole": "{parameter} is a whole number (not {text}).",
    "parameter_number": "{parameter} is a number (not {text}).",
    # a rating system's parameter typed outside its bounds (ratings_core's, issue 15)
    "parameter_out_of_range": "{parameter} is a number from {low} to {high} (not {text}).",
    "parameter_out_of_range_whole": "{parameter} is a whole number from {low} to {high} "
                                    "(not {text}).",
    "parameter_out_of_range_or_none": "{parameter} is a number from {low} to {high}, or none "
                                      "(not {text}).",
    "parameter_out_of_range_whole_or_none": "{parameter} is a whole number from {low} to "
                                            "{high}, or none (not {text}).",
    "unknown_setting": "There is no setting {setting}: /help set names each one.",
    "bad_setting": "That is not a valid value for {setting}: {text}.",
    "bad_setting_yes_no": "{setting} takes yes or no (not {text}).",
    "bad_language": "The bot speaks {languages} (not {text}).",
    "bad_setting_number": "{setting} takes a number above 0 and at most {limit} (not {text}).",
    "bad_setting_number_or_off": "{setting} takes a number above 0 and at most {limit}, or off "
                                 "(not {text}).",
    "bad_setting_count": "{setting} takes a whole number from 1 to {limit} (not {text}).",
    "bad_setting_points": "{setting} takes rating points from 0 to {limit} (not {text}).",
    "setting_above": "{setting} may not be above {bound}, which is {limit} (not {text}).",
    # clubrating import: a refused row names the file, the row and the column
    "import_row": "{file} row {row}, column {column}: {problem}. Nothing was imported.",
    # issue 37: a file's row of sides the ladder's team settings refuse
    "team_row_too_large": "a side has {count} members, more than max_side {limit}",
    "team_row_uneven": "sides of {a} and {b} members need uneven_teams=on",
    "import_team_row_too_large": "{file} row {row}, column {column}: a side has {count} "
                                 "members, more than the ladder's max_side {limit}. Nothing was "
                                 "imported.",
    "import_team_row_uneven": "{file} row {row}, column {column}: sides of {a} and {b} members "
                              "need /set uneven_teams on. Nothing was imported.",
    "import_team_row_in_event": "{file} row {row}, column {column}: a team game inside an event "
                                "would be rated apart from it, on the ladder's companion: /set "
                                "team_ladder shared, or import the team games on their own. "
                                "Nothing was imported.",
    "import_team_row_singles": "{file} row {row}, column {column}: this ladder rates team games "
                               "only; import the games of one against one on its parent. "
                               "Nothing was imported.",
    "import_bad_handicap_stones": "{file} row {row}, column handicap: {system} counts a handicap "
                                  "in stones, from -{limit} to {limit} (not {text}). Nothing "
                                  "was imported.",
    "import_bad_date": "{file} row {row}, column {column}: must be a day from {first} to {last} "
                       "(tomorrow in the ladder's time zone, {zone}), not {text!r}. Nothing was "
                       "imported.",
    "import_like_member": "{file} row {row}, column {column}: {name!r} looks too much like the "
                          "member {member!r}. Nothing was imported.",
    "import_like_row": "{file} row {row}, column {column}: {name!r} looks too much like "
                       "{other!r} of row {other_row}. Nothing was imported.",
    "import_bad_name": "{file} row {row}, column {column}: {name!r} is no member's name and "
                       "cannot be a new one: a name needs letters, only printable characters, "
                       "and may not start with @. Nothing was imported.",
    "import_name_too_long": "{file} row {row}, column {column}: {name!r} is no member's name "
                            "and cannot be a new one: a name has {limit} characters at most. "
                            "Nothing was imported.",
    "import_name_invisible": "{file} row {row}, column {column}: {name!r} is no member's name "
                             "and cannot be a new one: it holds {char}, a character nobody "
                             "sees. Nothing was imported.",
    "import_name_ampersand": "{file} row {row}, column {column}: {name!r} is no member's name "
                             "and cannot be a new one: a name cannot contain &, which joins "
                             "the members of a side. Nothing was imported.",
    "import_unknown_problem": "{file} row {row}, column {column}: {ladder} has no problem "
                              "{name} (import its problems first: clubrating puzzles import).",
    "import_not_a_problem": "{file} row {row}, column player_b: an attempt on the puzzle ladder "
                            "{ladder} names one of its problems as @ID, not {name}.",
    "import_problem_first": "{file} row {row}, column player_a: {name} is a problem; an "
                            "attempt names the member first, then the problem.",
    "import_name_taken": "{file} row {row}, column {column}: {name!r} was imported before and "
                         "is now {member!r}; write {member!r} instead. Nothing was imported.",
    "import_duplicate": "{file} has the same rows as {earlier}, imported into {ladder} on "
                        "{day}. Nothing was imported; to import them again, add "
                        "--allow-duplicates.",
    "bad_command": "Unknown command {command}. Send /help for the list.",
    "usage": "Usage: {usage}",
    "unknown_option": "Unknown option {option}; {command} takes {options}",
    "unknown_option_none": "Unknown option {option}; {command} takes no options",
    "option_twice": "{option} is given twice; give it once.",
    "extra_word": "Extra word {word}. Usage: {usage}",
    "bad_number": "{text} is not a game or challenge number.",
    "input_too_long": "That message is too long ({limit} characters at most).",
    "bad_theme": "The theme must be dark or light (not {text}).",
    "chart_empty": "{name} has no games on {ladder} yet, so there is nothing to chart.",
    # -- heavy work stopped at its time cap (bot/service/heavy.py) ------------------------------
    "rating_too_slow": "The rating's record was not ready within {seconds} s, so it was "
                       "stopped; please try again later.",
    "chart_too_slow": "The chart was not ready within {seconds} s, so it was stopped; "
                      "please try again later.",
    "card_too_slow": "The leaderboard card was not ready within {seconds} s, so it was "
                     "stopped; please try again later.",
    "evaluation_too_slow": "Evaluating {ladder} takes longer than {seconds} s, so it was "
                           "stopped: run clubrating evaluate on an export of the ladder instead.",
    "import_too_slow": "Checking the file took longer than {seconds} s, so it was stopped and "
                       "nothing was imported; import it in smaller parts.",
    "switch_too_slow": "Re-rating {ladder} took longer than {seconds} s, so it was stopped; "
                       "nothing changed.",
    "preview_too_slow": "Working out the preview took longer than {seconds} s, so it was "
                        "stopped; nothing changed.",
    # -- outcomes -------------------------------------------------------------------------------
    "ok": "Done.",
    "request_recorded": "Done: this was recorded.",
    "registered": "Welcome, {name}! You are on the {ladder} ladder.",
    "challenge": "#{challenge}: {challenger} challenges {opponent} ({ladder}), open until "
                 "{expires_at}.",
    "challenge_issued": "{challenger} challenges {opponent} (challenge #{challenge}, "
                        "{ladder}). {opponent}: /accept or /decline before {expires_at}.",
    "challenge_accepted": "{opponent} accepts {challenger}'s challenge #{challenge}. "
                          "Play, then /report the result.",
    "challenge_declined": "{opponent} declines {challenger}'s challenge #{challenge}.",
    "challenge_withdrawn": "{challenger} withdraws challenge #{challenge} to {opponent}.",
    "reported": "Game #{id}: {result}. {opponent}, please /confirm or /dispute.",
    # the report's second line: everything confirmed beside the result, and its deadline
    "report_terms": "Ladder {ladder}, {handicap}, {colour}, {event}; counts on {deadline} "
                    "unless disputed.",
    "terms_no_handicap": "no handicap",
    "terms_handicap": "handicap {handicap} given by {name}",
    "terms_no_colour": "colours not given",
    "terms_colour": "{name} played {colour}",
    "terms_no_event": "no event",
    "terms_event": "event {event}",
    "recorded": "Game #{id} recorded: {result}.",
    "never_counted": "Game #{game} never counted (it was voided before anyone confirmed it): "
                     "there is nothing to restore.",
    "restore_event_closed": "Game #{game} was voided before it counted and its event {event} "
                            "has closed since: report it again instead.",
    "held_for_event": "It counts when event {event} closes: its games are rated together.",
    "confirmed": "Game #{id} confirmed: {result}.",
    "disputed": "Game #{id} is disputed: {result}. A moderator will settle it; it waits in "
                "their /pending.",
    "disputed_moderators": "The club's moderators: {names}.",
    "withdrawn": "Game #{id} withdrawn: {result}.",
    "voided": "Game #{id} is now void: {result}.",
    "restored": "Game #{id} counts again: {result}.",
    "restored_pending": "Game #{id} is no longer void and waits for confirmation again: "
                        "{result}. {opponent}, please /confirm or /dispute.",
    "merged": "{from} is merged into {into}: their games are {into}'s now.",
    # /merge is previewed: the games between the two records stop counting
    "merge_preview": "Merging {from} into {into} would drop games {games} (played between the "
                     "two records) and change:",
    "merge_preview_one": "Merging {from} into {into} would drop game {games} (played between "
                         "the two records) and change:",
    "merge_preview_none": "Merging {from} into {into} drops no game and would change:",
    "merge_dropped": "Games {games} between them no longer count.",
    "merge_dropped_one": "Game {games} between them no longer counts.",
    "merge_ratings_changed": "Ratings changed:",
    "merge_cancelled": "Merge of {from} into {into} cancelled; nothing changed.",
    "claim_requested": "{member} asks to be {name}, the imported player ({games:game|games}). "
                       "A moderator: Approve or Decline, or /claim approve {name}.",
    "claim_approved": "{member} is {name} now: the imported player's games and ratings are "
                      "theirs.",
    "claim_declined": "{member}'s claim to be {name} is declined.",
    "retired": "{name} is retired from {ladder}.",
    "returned": "{name} is back on {ladder}.",
    "event_opened": "Event {event} is open: report its games with event={event}.",
    "event_closed": "Event {event} is closed; its {games:game is|games are} rated together.",
    "ladder_created": "Ladder {ladder} created with the {system} system.",
    "ladder_created_params": "Ladder {ladder} created with the {system} system ({params}).",
    "system_set": "Ladder {ladder} now uses {system} ({params}); every game was re-rated.",
    "system_preview": "Setting ladder {ladder} to {system} ({params}) re-rates every game and "
                      "would change:",
    "system_applied": "Ladder {ladder} now uses {system} ({params}); every game was re-rated. "
                      "Ratings changed:",
    "system_cancelled": "Switching the system to {system} cancelled; nothing changed.",
    "setting_set": "{setting} of {ladder} is now {value}.",
    "my_language_set": "You read what only you see in {language} now.",
    "my_language_off": "You read what only you see in your app's language again.",
    # the club's own settings (language, moderator_role), whichever ladder was named
    "club_setting_set": "The club's {setting} is now {value}.",
    "settings": "Ladder {ladder}: system {system} ({params}); " + _LADDER_SETTINGS,
    # a puzzle ladder's: how its answers are compared too (issue 34)
    "settings_puzzles": "Ladder {ladder}: system {system} ({params}); answers compared: "
                        "{normalise}; " + _LADDER_SETTINGS,
    "settings_past_edition": "Ladder {ladder}: system {system} ({params}), with the defaults "
                             "it was set up with (edition {edition}; /system {system} gives it "
                             "today's and re-rates every game); " + _LADDER_SETTINGS,
    "undone": "Undone: {action} #{id} ({summary}).",
    # /undo: the action taken back is said as /audit says it (a said_* sentence below)
    "undo_done": "Undone #{id}: {what}.",
    "undo_preview": "Undoing #{id} ({what}) would change:",
    "undo_applied": "Undone #{id}: {what}. Ratings changed:",
    "undo_cancelled": "Undo of #{id} cancelled; nothing changed.",
    "undo_moved": "#{id} is no longer the latest action; nothing was undone. Send /undo again.",
    "moderator_named": "{name} is now a moderator of the club.",
    "moderator_removed": "{name} is no longer a moderator of the club.",
    "imported": "Imported {games:game|games} ({steps:entry|entries}) into {ladder}.",
    "preview": "Correcting game #{game} would change:",
    "applied": "Game #{game} corrected. Ratings changed:",
    # a correction's result in words, before and after (issue 31)
    "correction_result": "Result: {before} -> {after}",
    "correction_replaces": "This replaces your earlier preview of game #{game}.",
    "correction_outdated": "Nothing was applied: the club's log changed since your preview of "
                           "game #{game}, so that preview is out of date. Here is the new one.",
    "no_change": "No rating changes.",
    "change_line": "{name}: {before} -> {after}",
    "leaderboard_title": "{ladder} ladder",
    "leaderboard_empty": "Nobody is rated on {ladder} yet.",
    "leaderboard_hidden": "({count:provisional player|provisional players} not shown: "
                          "/rating @member shows anyone's rating, and a moderator's /set "
                          "hide_provisional no lists everyone.)",
    # a leaderboard row's games column
    "leaderboard_games": "{games:game|games}",
    # {peak}: profile_peak, or profile_no_peak while the member was never established
    "profile": "{name} ({ladder}): {rating}, rank {rank}, {games:game|games} "
               "({wins}W {draws}D {losses}L), {peak}, recent {recent}",
    "profile_peak": "peak {peak}",
    "profile_no_peak": "no peak yet",
    # a member without games has no rank and no peak
    "profile_no_games": "{name} ({ladder}): {rating}, no games yet.",
    "profile_team": "Team games ({ladder}): {rating}, {games:game|games}",
    "profile_team_last": "Latest: {game}",
    "profile_unrated": "{name} ({ladder}): no games yet.",
    "history_title": "{name}'s games on {ladder}:",
    "history_empty": "{name} has no games on {ladder} yet.",
    "game_line": "#{id} {date} {result}{extra}",
    "h2h": "{name} vs {other} ({ladder}): {wins}W {draws}D {losses}L",
    "h2h_partners": "{name} with {other} ({ladder}): {wins}W {draws}D {losses}L",
    "audit_line": "#{id} {at} {actor}: {kind} {summary}{reason}",
    "audit_said": "#{id} {at} {what}{reason}{undone}",
    "audit_because": ", because: {reason}",
    "audit_undone": " (undone)",
    # what each kind of log entry says ({who}: who did it), in /audit and /undo
    # the bot's own reasons in the log (bot/service/reasons.py)
    "reason_unanswered": "unanswered for {hours} h",
    "reason_inactive": "no game for {days} days",
    "reason_post_refused": "the platform refused the post: {refusal}",
    "reason_first_administrator": "the language of the first administrator heard in the chat",
    # parts of the log's sentences (each a notice of its own, in the reader's language)
    "part_defaults": "defaults",
    "part_setting_to": "{setting} to {value}",
    "part_settings_separator": "; ",
    "list_separator": ", ",
    "part_handicap": ", handicap {handicap} given by {member}",
    "part_colour": ", {member} played {colour}",
    "part_event": ", event {event}",
    "part_handicap_to": ", the handicap to {handicap}",
    "part_change_result": "the first player's result to {result}",
    "part_change_handicap": "the handicap to {handicap}",
    "part_change_first": "the first player to {member}",
    "part_change_second": "the second player to {member}",
    "part_nothing": "nothing",
    "part_ladder_time_zone": "the ladder's time zone",
    "part_into_channel": " into {channel}",
    "said_ladder_created": "{who} created the {ladder} ladder, rated by {system} ({params})",
    "said_system_changed": "{who} changed the {ladder} ladder's rating system to {system} "
                           "({params}); every game was re-rated",
    "said_settings_changed": "{who} set the {ladder} ladder's {settings}",
    "said_member_registered": "{name} joined the club",
    "said_member_added": "{who} added {name} to the club",
    "said_player_joined": "{member} joined the {ladder} ladder",
    "said_player_retired": "{who} retired {member} from the {ladder} ladder",
    "said_player_returned": "{who} brought {member} back to the {ladder} ladder",
    "said_players_merged": "{who} merged the duplicate record {duplicate} into {into}",
    "said_moderator_named": "{who} named {member} a moderator of the club",
    "said_moderator_removed": "{who} removed {member} as a moderator of the club",
    "said_language_chosen": "{member} reads in {language}",
    "part_app_language": "their app's language",
    "said_handle_changed": "{member}'s username is {handle} now",
    "said_claim_requested": "{claimant} claimed the imported player {member}",
    "said_claim_approved": "{who} approved the claim #{claim}",
    "said_claim_declined": "{who} declined the claim #{claim}",
    "said_challenge_issued": "{who} challenged {opponent} on the {ladder} ladder",
    "said_challenge_accepted": "{who} accepted challenge #{challenge}",
    "said_challenge_declined": "{who} declined challenge #{challenge}",
    "said_challenge_withdrawn": "{who} withdrew challenge #{challenge}",
    "said_game_reported": "{who} reported game #{game} on {ladder}: {a} beat {b}{extra}",
    "said_game_reported_draw": "{who} reported game #{game} on {ladder}: {a} drew with "
                               "{b}{extra}",
    "said_game_recorded": "{who} recorded game #{game} on {ladder}: {a} beat {b}{extra}",
    "said_game_recorded_draw": "{who} recorded game #{game} on {ladder}: {a} drew with "
                               "{b}{extra}",
    "said_game_confirmed": "{who} confirmed game #{game}",
    "said_attempt_solved": "{member} solved {problem} on {ladder} in {seconds} s (game #{game})",
    "said_attempt_failed": "{member} did not solve {problem} on {ladder} ({seconds} s, game "
                           "#{game})",
    "said_problem_added": "{who} added the problem {problem} to {ladder}",
    "said_attempt_started": "{problem} of {ladder} was sent to {member}",
    "said_puzzle_posted": "the {ladder} post showed {what}",
    "part_puzzle_shown": "the problem {problem}",
    "part_solution_shown": "the solution of {problem}",
    "said_game_auto_confirmed": "game #{game} counted by itself",
    "said_game_disputed": "{who} disputed game #{game}",
    "said_game_withdrawn": "{who} withdrew game #{game}",
    "said_game_corrected": "{who} corrected game #{game}: {changes}",
    # a corrected result or players, in words before and after (issue 31)
    "said_game_corrected_ww": "{who} corrected game #{game}: {a} beat {b} -> {c} beat "
                              "{d}{changes}",
    "said_game_corrected_wd": "{who} corrected game #{game}: {a} beat {b} -> {c} drew with "
                              "{d}{changes}",
    "said_game_corrected_dw": "{who} corrected game #{game}: {a} drew with {b} -> {c} beat "
                              "{d}{changes}",
    "said_game_corrected_dd": "{who} corrected game #{game}: {a} drew with {b} -> {c} drew "
                              "with {d}{changes}",
    "said_game_voided": "{who} voided game #{game}",
    "said_game_restored": "{who} restored game #{game}",
    "said_event_opened": "{who} opened event {event} on the {ladder} ladder",
    "said_event_closed": "{who} closed event {event} on the {ladder} ladder; its games were "
                         "rated together",
    "said_action_undone": "{who} undid #{target}",
    "said_schedule_set": "{who} set the {ladder} ladder's posts: top {size} at \"{cron}\" "
                         "({timezone}){channel}",
    "said_schedule_paused": "{who} paused the {ladder} ladder's posts",
    "said_schedule_resumed": "{who} resumed the {ladder} ladder's posts",
    "said_history_imported": "{who} imported {file} into the {ladder} ladder",
    "evaluation_head": "Which system predicts {ladder}'s games best (the last 30 % of its "
                       "history's time, {games:game|games}, each predicted from the games before "
                       "it; lower is better):",
    "evaluation_line": "{rank}. {system}: log-loss {logloss:.3f}, Brier {brier:.3f}{current}",
    "evaluation_current": " (this ladder's system)",
    "evaluation_advice": "Best: {best}. Switch with /system {best} (moderators) if you like; "
                         "clubrating evaluate on an export gives the full report.",
    "evaluation_keep": "The ladder's system, {current}, is already the best predictor.",
    # clubrating evaluate FILE refuses alike (its threshold is /evaluate's, evaluating.MIN_GAMES)
    "evaluate_too_few": "{file}: too few games to compare rating systems ({games:game|games} "
                        "scored; at least {needed:is|are} needed)",
    "evaluation_too_few": "{ladder} has too few games to compare rating systems yet "
                          "({games:game|games} scored; at least {needed:is|are} needed).",
    "pending_confirm": "To confirm or dispute: {games}",
    "pending_waiting": "Your reports waiting: {games}",
    "pending_none": "Nothing waiting for you.",
    "pending_disputes": "Disputes to settle:",
    "pending_dispute": "{game}, because: {reason}. Settle: /correct {id} win|loss|draw, or "
                       "/void {id}",
    "pending_dispute_no_reason": "{game}, no reason given. Settle: /correct {id} "
                                 "win|loss|draw, or /void {id}",
    "pending_claim": "Claim: {member} asks to be the imported player {name}. Answer: /claim "
                     "approve {name}, or /claim decline {name}",
    "result_win": "{a} beat {b}",
    "result_draw": "{a} drew with {b}",
    # a profile's latest games, a letter each (a win, a draw, a loss)
    "recent_win": "W",
    "recent_draw": "D",
    "recent_loss": "L",
    "retired_mark": " (retired)",
    # -- scheduled posts, digests and announcements ---------------------------------------------
    "bad_cron": "That is not a cron expression: {text}. Five fields, e.g. cron=\"0 9 * * MON\" "
                "(minute hour day month weekday).",
    "cron_never_fires": "The schedule {text} never comes round. Check the day and month.",
    "cron_too_often": "The schedule {text} posts more than once an hour; choose a calmer one.",
    "bad_timezone": "There is no time zone {text}. Use an IANA name, e.g. Europe/Berlin or UTC.",
    "bad_channel": "{text} is not a chat or channel id; give its number, or channel=here.",
    "bad_size": "The number of rows must be 1 to {limit} (not {text}).",
    "schedule_nothing": "Say what to change: cron=\"0 9 * * MON\", tz=ZONE, channel=ID or "
                        "size=N.",
    "schedule_already_paused": "The scheduled posts of {ladder} are already paused.",
    "schedule_not_paused": "The scheduled posts of {ladder} are not paused.",
    "schedule_set": "Schedule of {ladder} set.",
    "schedule_shown": "Schedule of {ladder}:",
    "schedule_paused": "Scheduled posts of {ladder} paused; /schedule resume starts them again.",
    "schedule_paused_shell": "Scheduled posts of {ladder} paused; clubrating schedule resume "
                             "--chat {chat} starts them again.",
    "schedule_resumed": "Scheduled posts of {ladder} resumed.",
    "channel_unknown": "I cannot see the chat {channel}: add me to it first (in a channel, as an "
                       "administrator who may post).",
    "channel_not_yours": "Only those who run {channel} may have the leaderboard posted there.",
    "channel_bot_cannot_post": "I may not post in {channel}: give me the right to send "
                               "messages there, then try again.",
    "channel_not_in_server": "{channel} is not a text channel of this server.",
    "channel_elsewhere": "Posts from here go into this chat only.",
    "schedule_refused": "Scheduled posts of {ladder} are paused: {platform} refused the post to "
                        "{channel} ({reason}). Give the bot back its right to post there (or "
                        "choose another channel), then /schedule resume.",
    "schedule_line": "top {size} at \"{cron}\" ({timezone}) into {where}; next post: {next}.",
    "schedule_here": "this chat",
    # the shell's `clubrating schedule` names the club's chat it was given (it is no chat)
    "schedule_club_chat": "the club's chat {chat}",
    "schedule_channel": "chat {channel}",
    "schedule_is_paused": "none (paused)",
    "digest_title": "{ladder} ladder, changes since {since}",
    "digest_title_first": "{ladder} ladder",
    "digest_title_began": "{ladder} ladder, changes since it began on {began} (nothing posted "
                          "yet)",
    "digest_new": "new",
    "digest_climbers": "Climbers: {names}",
    "digest_fallers": "Fallers: {names}",
    "digest_established": "No longer provisional: {names}",
    "digest_newcomers": "New: {names}",
    "digest_retiring": "Retired soon without a game: {names}",
    "digest_days": "{name} ({days} d)",
    "digest_games": "Games played: {games}",
    "digest_team_game": "- {result}",
    "digest_late": "Also counted since, played earlier (imported or recorded late): "
                   "{games:game|games}, played {first} to {last}",
    "announce_upset": "Upset on {ladder}: {winner} beat {loser}, rated {gap} higher!",
    "announce_best": "New personal best on {ladder}: {name} reaches {rating}!",
    "console_picture": "(picture saved to {path})",
    # -- pictures (leaderboard card, rating chart) ----------------------------------------------
    "card_title": "{ladder} ladder",
    "card_caption": "Leaderboard of {ladder}",
    "card_player": "Player",
    "card_rating": "Rating",
    "card_change": "Change",
    "card_games": "Games",
    "card_note": "Change over the last {days:day|days} · ? provisional",
    "chart_title": "{name} · {ladder}",
    "chart_title_two": "{name} and {other} · {ladder}",
    "chart_caption": "{name} ({ladder}): {rating} now, peak {peak}",
    "chart_caption_unestablished": "{name} ({ladder}): {rating} now, still provisional, so no "
                                   "peak yet",
    "chart_peak": "peak {rating}",
    "chart_provisional": "provisional",
    "chart_deviation": "± deviation",
    "chart_rating_axis": "Rating",
    # -- the console --------------------------------------------------------------------------
    "console_welcome": "Console chat for club {club}. You are {user}. /as NAME speaks as NAME, "
                       "/as NAME! as a moderator; /help lists the commands; /quit ends.",
    "console_as": "You are now {user}{role}.",
    "console_moderator": " (moderator)",
    "no_preview": "Nothing previewed waits for /apply. /correct, /merge, /undo and /system "
                  "preview first.",
    "no_preview_to_cancel": "Nothing previewed waits to be cancelled.",
    "bad_audit_size": "/audit shows 1 to {limit} entries, not {text}.",
    "correction_cancelled": "Correction of game #{game} cancelled; nothing changed.",
    "apply_hint": "Send /apply to make this correction, or /cancel.",
    "apply_hint_undo": "Send /apply to undo it, or /cancel.",
    "apply_hint_merge": "Send /apply to merge them, or /cancel.",
    "apply_hint_system": "Send /apply to switch, or /cancel.",
    "apply_hint_link": "Send /apply to do it, or /cancel.",
    "internal_error": "Something went wrong on our side; it has been logged. Nothing changed.",
    "help_title": "Commands:",
    "help_moderator_title": "Moderator commands:",
    "help_register": "/register [name] [birth=YYYY-MM-DD] - join the club",
    "help_rating": "/rating [@member] [ladder=NAME] - rating, rank and record",
    # issue 31: what the marks beside a rating mean
    "help_rating_marks": "1480? - the ? means we do not know this rating yet: a new member's "
                         "first games (24 in the default club system), and until their games "
                         "have settled it. 1480 ±45 - where the ladder's system keeps a "
                         "deviation (glicko, glicko2, rs-go): the player's strength is likely "
                         "(about two times in three) within 45 points of the rating.",
    "help_top": "/top [ladder] [problems] - the leaderboard (a puzzle ladder's problems, "
                "hardest first)",
    "help_challenge": "/challenge @member [ladder=NAME] - challenge a member",
    "help_accept": "/accept [number] - accept a challenge",
    "help_decline": "/decline [number] - decline a challenge",
    "help_report": "/report @member win|loss|draw [handicap=N] [colour=white|black] "
                   "[event=NAME] [ladder=NAME] - report your game",
    "help_report_team": "/report @opp1 @opp2 with @mate win|loss|draw - a team game",
    "help_confirm": "/confirm [number] - confirm a result reported against you",
    "help_dispute": "/dispute [number] [reason] - dispute a result reported against you",
    "help_withdraw": "/withdraw [game|challenge] [number] - take back your own unconfirmed "
                     "report, or your open challenge (a number names your report or your "
                     "challenge with it; with neither number nor word: your only report, or "
                     "with none your only challenge)",
    "help_history": "/history [@member] [ladder=NAME] - latest games",
    "help_h2h": "/h2h @member [with] [ladder=NAME] - your record against a member (with: "
                "beside them)",
    "help_pending": "/pending - what waits for you",
    "help_digest": "/digest [ladder] - what changed since the last scheduled post",
    "help_puzzle": "/puzzle [ladder=NAME] - a problem to solve privately, against the clock",
    "help_puzzle_add": "/puzzle add ID [rating=N] answers=A|B TEXT - add a problem, privately "
                       "(moderators; a picture sent with it goes with it)",
    "help_answer": "/answer TEXT - answer your open problem, privately",
    "help_claim": "/claim NAME - ask to be the imported player NAME (a moderator approves)",
    "help_claim_answer": "/claim approve|decline NAME - answer a member's claim of an imported "
                         "player",
    "help_chart": "/chart [@member] [@member2] [ladder=NAME] [theme=dark|light] - rating over "
                  "time as a picture (two members overlaid)",
    "help_card": "/card [ladder] [theme=dark|light] - the leaderboard as a picture",
    "help_help": "/help [command] - this list, or one command's options and an example",
    "help_as": "/as NAME[!] - speak as NAME in the console (! for a moderator)",
    # issue 31: how a name with a space is typed, and that apostrophes are only letters
    "help_names": "A name with a space goes in double quotes: /rating @\"Zoë Smith\". "
                  "Apostrophes are letters like any other: /register O'Brien.",
    "help_mod_report": "/report @a @b win|loss|draw ... - record a game at once (sides: "
                       "/report @a @b vs @c @d win)",
    "help_mod_report_repeat": "/report @member win|loss|draw repeat=yes - your own game against "
                              "the same opponent again while your first report waits (also "
                              "/report @member win repeat)",
    "help_correct": "/correct number [win|loss|draw] [a=@member] [b=@member] [handicap=N] "
                    "[sides=@a @b vs @c @d] - preview a correction; then /apply or /cancel. "
                    "win|loss|draw is the result of the player shown first in the game's line "
                    "(its winner; of a draw, the first named): /correct 3 loss on \"frank beat "
                    "erin\" makes erin "
                    "win",
    "help_void": "/void number [reason] - take a game out of the ratings",
    "help_restore": "/restore number - count a void game again",
    "help_merge": "/merge @duplicate @member - preview merging two records of one person (the "
                  "games between them no longer count); then /apply or /cancel",
    "help_retire": "/retire @member [ladder=NAME] - retire a player",
    "help_return": "/return @member [ladder=NAME] - bring a retired player back",
    "help_event": "/event open|close NAME [ladder=NAME] - games of an event are rated together",
    "help_ladder": "/ladder create NAME [system] [key=value ...] - add a ladder",
    "help_system": "/system NAME [key=value ...] [ladder=NAME] - change the rating system",
    # the settings by name in /help set, each with what it does: /help lists as many commands
    # as fit one Telegram message
    "help_set": "/set SETTING VALUE [ladder=NAME] - change a setting (/help set names them)",
    "help_schedule": "/schedule [ladder] [cron=\"0 9 * * MON\"] [tz=ZONE] [channel=ID|here] "
                     "[size=N], /schedule show|pause|resume [ladder] - the ladder's posts",
    "help_settings": "/settings [ladder] - a ladder's system and settings",
    "help_audit": "/audit [n] - the latest entries of the club's log",
    "help_evaluate": "/evaluate [ladder] - which rating system predicts this ladder's games best",
    "help_undo": "/undo - take back the latest moderator action",
    "help_moderator": "/moderator add|remove @member - name a member moderator of the club "
                      "(group administrators only)",
    # a setting only one platform has (``ladder_settings.Setting.platform``), listed there only
    "help_set_platform": "/set {setting} VALUE - {about}",
    # /help set: every setting /set takes
    "help_settings_list": "Settings:",
    "help_setting_line": "  {setting} - {about}",
    # /help NAME: the usage line(s), then the options (``bot.chat.commands.COMMANDS``), then:
    "help_options": "Options: {options}",
    "help_options_none": "Options: none",
    "help_params_system": "the rating system's parameters as key=value",
    "help_params_setting": "SETTING=VALUE for SETTING VALUE",
    "help_example": "Example: {example}",
    "example_register": "/register Ada Lovelace birth=1990-12-10",
    "example_rating": "/rating @bob ladder=blitz",
    "example_top": "/top blitz",
    "example_challenge": "/challenge @bob",
    "example_accept": "/accept 2",
    "example_decline": "/decline 2",
    "example_report": "/report @bob win colour=white",
    "example_confirm": "/confirm 6",
    "example_dispute": "/dispute 6 bob won that game, not me",
    "example_withdraw": "/withdraw 6",
    "example_history": "/history @bob",
    "example_h2h": "/h2h @bob ladder=blitz",
    "example_pending": "/pending",
    "example_chart": "/chart @alice @bob theme=light",
    "example_card": "/card blitz theme=light",
    "example_help": "/help report",
    "example_start": "/start",
    "example_as": "/as alice!",
    "example_correct": "/correct 7 loss handicap=2",
    "example_apply": "/apply",
    "example_cancel": "/cancel",
    "example_void": "/void 7 wrong pairing",
    "example_restore": "/restore 7",
    "example_merge": "/merge @bob2 @bob",
    "example_retire": "/retire @bob",
    "example_return": "/return @bob",
    "example_event": "/event open spring-cup",
    "example_ladder": "/ladder create blitz elo k=24",
    "example_system": "/system club k=24",
    "example_set": "/set auto_confirm_hours 48",
    "example_settings": "/settings blitz",
    "example_audit": "/audit 50",
    "example_evaluate": "/evaluate blitz",
    "example_undo": "/undo",
    "example_moderator": "/moderator add @bob",
    "example_schedule": "/schedule cron=\"0 9 * * MON\" tz=Europe/Berlin",
    "example_digest": "/digest blitz",
    "example_puzzle": "/puzzle",
    "example_answer": "/answer Qh7",
    "example_claim": "/claim Ann",
    # -- Telegram -------------------------------------------------------------------------------
    "telegram_sender_chat": "Commands work from your own account only: send this as yourself, "
                            "not as a channel or anonymously as the group.",
    "telegram_private": "Add me to your club's group and use the commands there; /help there "
                        "lists them. Here, /rating and /history show your standing in each of "
                        "your clubs, and /puzzle and /answer solve their problems.",
    "private_not_member": "You are not a member of that club: send /register in its group "
                          "first.",
    "private_none": "You are not a member of any club yet: send /register in your club's group.",
    "telegram_button_private": "Buttons work in your club's group only.",
    "private_club": "{club}: {profile}",
    # (notification settings join the private chat with the announcements of issue 6)
    "menu_register": "Join the club",
    "menu_rating": "Rating, rank and record",
    "menu_top": "The leaderboard",
    "menu_challenge": "Challenge a member",
    "menu_report": "Report a game: @member win|loss|draw",
    "menu_confirm": "Confirm a result reported against you",
    "menu_dispute": "Dispute a result reported against you",
    "menu_withdraw": "Take back your own report or challenge",
    "menu_history": "Latest games",
    "menu_h2h": "Your record against a member",
    "menu_pending": "What waits for you",
    "menu_help": "All commands",
    "button_confirm": "Confirm",
    "button_dispute": "Dispute",
    "button_accept": "Accept",
    "button_decline": "Decline",
    "button_approve": "Approve",
    "button_apply": "Apply",
    "button_cancel": "Cancel",
    "button_previous": "« Previous",
    "button_next": "Next »",
    # -- Discord: slash command and parameter descriptions (100 characters at most) ---------
    "discord_guild_only": "Use the club's commands in its server, not in a private message.",
    "menu_accept": "Accept a challenge",
    "menu_decline": "Decline a challenge",
    "menu_correct": "Preview a correction of a game (moderators)",
    "menu_apply": "Apply what you previewed: a correction, merge, undo or system (moderators)",
    "menu_cancel": "Cancel what you previewed (moderators)",
    "menu_void": "Take a game out of the ratings (moderators)",
    "menu_restore": "Count a void game again (moderators)",
    "menu_merge": "Preview merging two records of one person (moderators)",
    "menu_retire": "Retire a player (moderators)",
    "menu_return": "Bring a retired player back (moderators)",
    "menu_event": "Events whose games are rated together (moderators)",
    "menu_event_open": "Open an event: report its games with event=NAME",
    "menu_event_close": "Close an event and rate its games together",
    "menu_ladder": "Ladders (moderators)",
    "menu_ladder_create": "Add a ladder with its rating system",
    "menu_system": "Change a ladder's rating system (moderators)",
    "menu_set": "Change a setting (moderators)",
    "menu_settings": "A ladder's system and settings",
    "menu_audit": "The latest entries of the club's log (moderators)",
    "menu_evaluate": "Which rating system predicts this ladder best (moderators)",
    "menu_undo": "Take back the latest moderator action (moderators)",
    "menu_moderator": "Name moderators of the club (server managers)",
    "menu_moderator_add": "Name a member moderator of the club",
    "menu_moderator_remove": "Take a member's moderator role back",
    "param_name": "Your name in the club (default: your display name)",
    "param_birth": "Birth date YYYY-MM-DD (elo's junior start)",
    "param_member": "The member",
    "param_help_command": "A command to explain, with its options and an example (report)",
    "param_member_optional": "The member (default: you)",
    "param_ladder": "The ladder (default: main)",
    "param_challenge": "The challenge's number (needed when several wait)",
    "param_opponent": "Your opponent (or player's opponent, for a moderator)",
    "param_result": "Your result (or player's, for a moderator)",
    "param_handicap": "Handicap in the system's unit, positive when the first player gives it",
    "param_colour": "Your colour (or player's)",
    "param_event": "The open event the game belongs to",
    "param_opponent_name": "Or your opponent's name in the club, when they are not on this "
                           "server",
    "param_sides": "A team game's sides: @opp2 with @mate, or @a @b vs @c @d",
    "param_partners": "Your record beside the member, not against them",
    "param_corrected_sides": "New sides: @a @b vs @c @d",
    "param_player": "Moderators: the first player, to record a game between two members",
    "param_game": "The game's number",
    "param_game_optional": "The game's number (needed when several wait)",
    "param_repeat": "Moderators: your own game against the same opponent again while one waits",
    "param_withdraw_number": "Your report's or challenge's number (needed when several wait)",
    "param_withdraw_what": "game or challenge, when your report and challenge share the number",
    "param_reason": "Why (shown in the audit log)",
    "param_corrected_result": "The result of the player shown first in the game's line (its "
                              "winner; of a draw, the first named)",
    "param_a": "The game's first player after the correction",
    "param_b": "The game's second player after the correction",
    "param_duplicate": "The record to merge away",
    "param_event_name": "The event's name: letters, digits, - or _",
    "param_ladder_name": "The new ladder's name: lowercase letters, digits, - or _",
    "param_system": "The rating system (club, elo, glicko2, ...)",
    "param_params": "The system's parameters as key=value, separated by spaces",
    "param_setting": "The setting (moderator_role: the role whose members moderate the club)",
    "param_value": "The new value (a number, yes/no, or off)",
    "param_role": "For moderator_role: the role",
    "param_entries": "How many entries (default 20)",
    "param_arguments": "The command's words, as in /help (members as @mentions)",
    # -- what each ladder setting does (``bot.service.ladder_settings``; 100 characters at most,
    # like Discord's descriptions) -----------------------------------------------------------
    "about_auto_confirm_hours": "Hours after which an unanswered report counts as confirmed",
    "about_challenge_hours": "Hours a challenge stays open",
    "about_inactivity_days": "Days without a game after which a player is retired (or off)",
    "about_hide_provisional": "Leaderboards leave provisional players out (yes/no)",
    "about_announce": "Results are announced: new personal bests, upsets (yes/no)",
    "about_timezone": "The IANA time zone of the ladder's posts when its schedule names none",
    "about_open_reports": "Reports a member may have waiting for confirmation at once (1-20)",
    "about_open_reports_per_opponent": "Of those, reports against one opponent (1-20, at most "
                                       "open_reports)",
    "about_language": "The club's language: en, he, ru, ja or fr",
    "about_moderator_role": "Discord: the role whose members moderate the club (or off)",
    "about_public": "The ladder's board is on the public web leaderboard (yes/no)",
    "about_public_slug": "The ladder's web address, /l/NAME (lower-case letters, digits, _, -)",
    # -- the public web leaderboard (issue 35) -------------------------------------------------
    "bad_public_slug": "A web address is 1 to 32 lower-case letters, digits, _ or -, starting "
                       "with a letter or digit (not {text}).",
    "public_slug_taken": "The web address /l/{slug} is taken by another ladder. Choose another "
                         "with /set public_slug NAME.",
    "public_name_taken": "The web address /l/{slug} is taken by another ladder: choose one for "
                         "{ladder} with /set public_slug NAME ladder={ladder}, then /set public "
                         "on.",
    "public_on": "Ladder {ladder} is public at {path}.",
    "public_off": "Ladder {ladder} is private again: {path} shows nothing.",
    "public_slug_set_private": "Ladder {ladder} will be at {path} once it is public (/set "
                               "public on).",
    "web_home_title": "Public ladders",
    "web_none": "No ladder is public yet.",
    "web_ladder": "Ladder",
    "web_players": "Players",
    "web_board_title": "{ladder} ladder",
    "web_rank": "Rank",
    "web_player": "Player",
    "web_rating": "Rating",
    "web_deviation": "Deviation",
    "web_games": "Games",
    "web_record": "W–D–L",
    "web_change": "7 days",
    "web_profile_title": "{player} on {ladder}",
    "web_profile_summary": "Rating {rating}, {games:game|games}: {wins} won, {draws} drawn, "
                           "{losses} lost.",
    "web_recent": "Latest games",
    # the rating chart's name, read out by a screen reader
    "web_chart": "{player}'s rating, game by game",
    "web_when": "Date",
    "web_opponent": "Opponent",
    "web_result": "Result",
    "web_won": "won",
    "web_drew": "drew",
    "web_lost": "lost",
    "web_missing_title": "Not found",
    "web_missing": "No public ladder or player is at this address.",
    # -- one club on several chats (issue 35) ---------------------------------------------------
    "link_code_chat": "Your link code: {code} (good for {minutes} minutes, once). A moderator "
                      "of the other chat sends /link {code} there, and that chat joins this "
                      "club.",
    "link_code_member": "Your link code: {code} (good for {minutes} minutes, once). Send /link "
                        "me {code} as your other account, in a chat of this club, and the two "
                        "are one member.",
    "link_code_sent": "I sent you the code in our private chat.",
    "link_open_private": "Open a private chat with me first (press Start there), then send "
                         "/link again: the code is shown to you alone.",
    "link_code_unknown": "That code is unknown, used or expired. Ask for a new one with /link.",
    "link_has_games": "This chat has {games:game|games} of its own: /link CODE merge shows "
                      "what merging its history into the club would change.",
    "link_has_chats": "This chat's club spans several chats: send /unlink in a chat that "
                      "joined it first.",
    "link_merge_puzzles": "The ladder {ladder} rates problems: a chat with a puzzle ladder "
                          "cannot merge its history into another club.",
    "link_merge_bad": "The games of {ladder} cannot be rated by the club's ladder of that name: "
                      "{problem}",
    "link_merge_preview": "Merging this chat into the club (preview): {games:game|games} on "
                          "{ladders}, rated among the club's by date, and "
                          "{members:new member|new members}. Ratings that change:",
    "chat_merged": "This chat is now part of the club: {games:game|games} merged, "
                   "{members:member|members} joined from here. Ratings that changed:",
    "link_merge_cancelled": "Cancelled: this chat stays a club of its own.",
    "link_too_slow": "Merging took longer than {seconds} seconds and was stopped; nothing "
                     "changed.",
    "night_opened": "Club night open on {ladder} ({mode}, {rounds:round|rounds}): check in "
                    "with /in.",
    "night_opened_everyone": "Club night open on {ladder} ({mode}: everyone plays everyone "
                             "once): check in with /in.",
    "night_open_already": "A club night is open on {ladder} already: /night close it first.",
    "night_rounds_needed": "Say how many rounds: /night open {mode} rounds=N.",
    "night_bad_rounds": "A night has 1 to {limit} rounds.",
    "night_bad_mode": "There is no pairing mode {mode}: choose one of {modes}.",
    "night_fide_missing": "The FIDE Dutch system needs an extra: pip install "
                          "'clubrating[fide]', then start the bot again.",
    "night_none": "No club night is open on {ladder}: /night open starts one.",
    "night_in": "{name} is in tonight.",
    "night_out": "{name} has left tonight's night: their games stay in the standings.",
    "night_paused": "{name} sits the next round out.",
    "night_in_already": "{name} is in tonight already.",
    "night_left": "{name} has left tonight's night and is not paired again.",
    "night_not_in": "{name} is not in tonight's night.",
    "night_roundrobin_late": "A round robin takes nobody once its first round is paired.",
    "night_too_late": "Too late to join: {rounds:round has|rounds have} started, half the "
                      "night or more.",
    "night_over": "Every round of the night has been paired.",
    "night_paired_already": "Round {round} is paired already: /publish it.",
    "night_boards_playing": "Not yet: {count:board is|boards are} still playing ({boards}).",
    "night_too_few": "Two players at least must be in to pair a round.",
    "night_no_pairing": "No pairing of the next round keeps tonight's rules (pairs that must "
                        "not meet, byes).",
    "night_nothing_paired": "No round is paired yet: /pair first.",
    "night_nothing_published": "No round is being played yet.",
    "night_no_board": "There is no board {board}: the round has {boards:board|boards}.",
    "night_bad_result": "A result is 1-0, 0-1, ½-½ (or 1/2-1/2, =), +- or -+, not {text}.",
    "night_board_has_result": "Board {board} has its result already: /correct its game to "
                              "change it.",
    "night_result": "Board {board}: {first} {result} {second}.",
    "night_forbidden": "{first} and {second} are never paired tonight.",
    "night_not_in_round": "{name} is not in the paired round.",
    "night_no_bye": "The paired round has no bye: every player has a board.",
    "said_pair_forbidden": "{who} forbade pairing {first} with {second} on {ladder}",
    "night_closed": "That club night is closed.",
    "night_no_such": "There is no night {number}: the ladder has had {nights:night|nights}.",
    "button_in": "I'm in",
    # a board's buttons under a published round: its number, then the result each records
    "button_first_wins": "{board}: 1-0",
    "button_draw": "{board}: ½-½",
    "button_second_wins": "{board}: 0-1",
    "night_round_over": "Round {round} is over: its buttons count no more.",
    "night_round_preview": "Round {round} (preview)",
    "night_round": "Round {round}",
    "night_board": "Board {board}: {first} – {second}",
    "night_board_handicap": "(handicap {stones})",
    "night_board_result_game": "{result} (game #{game})",
    "night_reason": "({why})",
    "night_reason_rematch_avoided": "rematch avoided",
    "night_reason_rematch": "a rematch: no other pairing",
    "night_reason_score_group": "across score groups",
    "night_reason_colour": "for colours",
    "night_bye": "Bye: {name}",
    "night_rules": "Paired by {rules}.",
    "night_standings": "Standings on {ladder} after {rounds:round|rounds}",
    "night_standings_final": "Final standings on {ladder} after {rounds:round|rounds}",
    "night_standing": "{place}. {name} {points}  {tiebreaks}",
    "tiebreak_buchholz_cut1": "Buchholz Cut-1",
    "tiebreak_buchholz": "Buchholz",
    "tiebreak_sonneborn_berger": "Sonneborn-Berger",
    "tiebreak_direct_encounter": "direct encounter",
    "tiebreak_wins": "wins",
    "tiebreak_sos": "SOS",
    "tiebreak_sosos": "SOSOS",
    "said_night_opened": "{who} opened a club night on {ladder} ({mode}, {rounds} rounds)",
    "said_night_entered": "{member} checked in to the night on {ladder}",
    "said_night_left": "{member} left the night on {ladder}",
    "said_night_paused": "{member} sits the next round on {ladder} out",
    "said_round_paired": "{who} paired round {round} on {ladder}",
    "said_round_published": "{who} published round {round} on {ladder}",
    "said_board_forfeited": "{who} recorded board {board} of round {round} on {ladder} as a "
                            "forfeit ({result})",
    "said_night_closed": "{who} closed the night on {ladder}",
    "unlink_home": "This chat holds the club's history, so it cannot leave: send /unlink in "
                   "the chat that should leave.",
    "unlink_alone": "This chat is not linked to another chat.",
    "unlink_preview": "Unlinking this chat (preview): the club keeps its "
                      "{games:game|games} and {members:member|members}, and its other chats. "
                      "This chat starts as an empty club of its own: /export first what you "
                      "want to keep.",
    "chat_unlinked": "This chat has left the club and starts empty. The club keeps its "
                     "{games:game|games} and {members:member|members}.",
    "unlink_cancelled": "Cancelled: this chat stays in the club.",
    "link_same_club": "This chat belongs to that club already.",
    "link_me_same": "Those are one member already.",
    "link_me_register": "Neither account is a member yet: /register with one of them first.",
    "link_me_both_played": "{first} and {second} both have games: only an account without "
                           "games can join another. A moderator's /merge joins two records.",
    "chat_linked": "This chat is now part of the club: one ladder, one log. "
                   "{members:member|members} joined from here.",
    "member_linked": "Linked: both accounts are {name} now.",
    # /set timezone|language in a chat that joined the club: that chat's own, not the club's
    "chat_timezone_set": "This chat's own time zone is now {value}: its scheduled posts come "
                         "and are dated in it. The club's ladders keep theirs.",
    "chat_language_set": "This chat's own language is now {value}: what I say and post here "
                         "is in it. The club keeps its language.",
    "chat_setting_off": "This chat has no {setting} of its own now: it uses the club's again.",
    "help_link": "/link [CODE [merge]] - link another chat to this club, or this one to the "
                 "club of the code (moderators)",
    "help_link_me": "/link me [CODE] - make your accounts on several platforms one member",
    "example_link": "/link me",
    "help_night": "/night open [swiss|nearest|roundrobin|mcmahon|fide-dutch] [rounds=N] - open "
                  "a club night on a ladder; /night close - its final standings (moderators)",
    "example_night": "/night open swiss rounds=4",
    "help_in": "/in - check in to tonight's club night (a moderator: /in @member); /out "
               "leaves it, /pause sits the next round out",
    "example_in": "/in",
    "help_out": "/out - leave tonight's club night (a moderator: /out @member)",
    "example_out": "/out",
    "help_pause": "/pause - sit the next round of tonight's club night out",
    "example_pause": "/pause",
    "help_pair": "/pair - preview the pairing of the next round (moderators)",
    "example_pair": "/pair",
    "help_publish": "/publish - post the paired round: its boards are played (moderators)",
    "example_publish": "/publish",
    "help_result": "/result BOARD 1-0|0-1|½-½|+-|-+ - a board's result, counted at once "
                   "(moderators; +- a forfeit win)",
    "example_result": "/result 2 1-0",
    "help_nights_member": "/in, /out, /pause, /standings - a club night: check in, leave, sit a "
                          "round out, the standings",
    "help_nights_moderator": "/night open|close, /pair, /swap, /forbid, /bye, /publish, "
                             "/result - run a club night (/help night tells more)",
    "help_swap": "/swap @a @b - two players change places in the paired round (moderators)",
    "example_swap": "/swap @alice @bob",
    "help_forbid": "/forbid @a @b - the two are never paired tonight (moderators)",
    "example_forbid": "/forbid @alice @bob",
    "help_bye": "/bye @member - the paired round's bye goes to them (moderators)",
    "example_bye": "/bye @carol",
    "help_standings": "/standings - tonight's standings (or the last night's)",
    "example_standings": "/standings",
    "help_unlink": "/unlink - this chat leaves the club it joined, after a preview "
                   "(moderators)",
    "example_unlink": "/unlink",
    "said_link_code_issued": "{who} asked for a code to link another chat",
    "said_link_code_member": "{member} asked for a code to link another account",
    "said_chat_linked": "{who} linked the {platform} chat {chat} to the club",
    "said_chat_moved": "this chat joined the club #{club}",
    "said_chat_merging": "{who} linked the {platform} chat {chat} to the club with its games",
    "said_history_merged": "{games:game|games} of the {platform} chat {chat} merged by date",
    "said_chat_unlinked": "{who} unlinked the {platform} chat {chat} from the club",
    "said_chat_returned": "this chat left the club #{club} and started empty",
    "said_member_linked": "the account {identity} is {member} now",
    "said_chat_setting_set": "{who} set the {platform} chat {chat}'s own {setting} to {value}",
    "said_chat_setting_off": "{who} gave the {platform} chat {chat} the club's {setting} again",
    "param_puzzle_ladder": "The puzzle ladder (default: puzzles)",
    "param_problem_id": "Moderators: add a problem with this id",
    "param_answers": "The accepted answers, separated by |",
    "param_problem_rating": "The problem's starting rating (default: the ladder's)",
    "param_prompt": "The problem's text",
    "param_image": "The problem's picture: PNG, JPEG, GIF or WebP, at most 5 MB",
    "param_answer": "Your answer",
    "param_problems": "A puzzle ladder's problems, hardest first",
    "about_night_bye_points": "Club nights: what a pairing bye scores: 1, 0.5 or 0",
    "about_team_ladder": "Team games: rated on the ladder's companion NAME-teams (companion) "
                         "or on the ladder itself (shared)",
    "about_uneven_teams": "Team games: sides of different sizes may play",
    "about_team_size_handicap": "Team games: rating points per missing member the smaller "
                                "side plays above its mean",
    "about_max_side": "Team games: the most members a side may have",
    "about_night_tiebreaks": "Club nights: the tie-breaks in order, e.g. buchholz,wins (off: "
                             "the mode's)",
    "bad_setting_choices": "{setting} takes some of {choices}, comma-separated, each once "
                           "(not {text}).",
    "about_normalise": "Puzzle ladders: how answers are compared: exact, case (any case) or "
                       "san (chess moves)",
    # -- rated puzzles (issue 34) ------------------------------------------------------------
    "not_puzzle_ladder": "{ladder} is no puzzle ladder: its system is not tactics.",
    "no_puzzle_ladder": "This club has no puzzle ladder yet. A moderator creates one: "
                        "/ladder create {ladder} tactics",
    "which_puzzle_ladder": "This club has several puzzle ladders ({ladders}): name one with "
                           "ladder=NAME.",
    "bad_problem_id": "A problem's id is 1 to 32 letters, digits, _ or - (not {text}).",
    "problem_exists": "{ladder} has a problem {problem} already.",
    "problem_prompt_missing": "A problem needs its text: /puzzle add ID answers=A|B TEXT",
    "problem_prompt_too_long": "A problem's text is at most {limit} characters.",
    "problem_answers_missing": "A problem needs at least one accepted answer: answers=A|B",
    "problem_answers_too_long": "A problem takes at most {count} answers, each of at most "
                                "{limit} characters.",
    "bad_problem_rating": "A problem's rating is a number from {low} to {high} (not {text}).",
    "bad_picture": "A problem's picture is a PNG, JPEG, GIF or WebP of at most {limit} MB.",
    "unknown_problem": "There is no such problem on {ladder}.",
    "problem_attempted": "You have tried {problem} already: each problem is tried once. "
                         "/puzzle gives you another.",
    "problem_revealed": "The solution of {problem} has been posted: it takes no more attempts. "
                        "/puzzle gives you another.",
    "no_problems_left": "You have tried every problem of {ladder}. New ones come as the "
                        "moderators add them.",
    "attempt_timed_out": "Time is up: your {minutes} minutes for {problem} ran out, and it "
                         "counts as not solved. /puzzle gives you another.",
    "no_open_attempt": "You have no problem to answer. Send /puzzle to get one.",
    "attempt_revealed": "The solution of {problem} was posted before your answer came: it "
                        "counts as not solved. /puzzle gives you another.",
    "puzzle_add_private": "Add problems in your private chat with me (on Discord: /puzzle, "
                          "which only you see), so that nobody sees their answers.",
    "answer_private": "Answer in your private chat with me, where your problem is: here "
                      "everyone would see your answer.",
    "setting_for_system": "{setting} is a setting of {system} ladders only.",
    "bad_setting_choice": "{setting} takes {choices} (not {text}).",
    "problem_added": "Problem {problem} added to {ladder}: {answers:answer|answers} accepted, "
                     "starting rating {rating}.",
    "problem_added_picture": "Problem {problem} added to {ladder} with its picture: "
                             "{answers:answer|answers} accepted, starting rating {rating}.",
    "problems_imported": "Added {problems:problem|problems} to {ladder}.",
    # clubrating puzzles import: a bad row of the file, then why
    "problem_file_row": "{file}, row {row}: {reason}",
    "puzzle_invite": "Problems of {ladder} are solved privately: press the button, and I send "
                     "you one in our private chat. You then have {minutes} minutes to answer.",
    "puzzle_shown": "Problem {problem} ({ladder}, rating {rating}):\n{prompt}",
    "puzzle_deadline": "Answer with /answer TEXT within {minutes:minute|minutes}. The clock "
                       "started when I sent it.",
    "puzzle_again": "Your problem is still open: {minutes:minute|minutes} left to answer with "
                    "/answer TEXT.",
    # an attempt as a game's line shows it (/history, a correction)
    "result_solved": "{member} solved {problem} ({seconds:.1f} s)",
    "result_not_solved": "{member} did not solve {problem} ({seconds:.1f} s)",
    "attempt_solved": "Solved! {problem} in {seconds:.1f} s.",
    "attempt_failed": "Not solved: {problem} ({seconds:.1f} s).",
    "attempt_answers": "Accepted answers: {answers}",
    "problems_title": "Problems of {ladder}, hardest first:",
    "problems_empty": "{ladder} has no problems yet.",
    "problem_row": "{rank}. {problem}  {rating}  {solved} of {attempts:attempt|attempts} "
                   "solved",
    "puzzle_post_solution": "Solution of {problem}: {answers}",
    "puzzle_post_fastest": "Fastest: {solvers}",
    "puzzle_post_nobody": "Nobody solved it ({attempts:attempt|attempts}).",
    "puzzle_solver": "{name} {seconds:.1f} s",
    "puzzle_post_problem": "Puzzle {problem} ({ladder}, rating {rating}):\n{prompt}",
    "puzzle_post_how": "Press the button to solve it privately: your clock starts when I send "
                       "it to you.",
    "button_solve": "Solve privately",
    "button_answer": "Answer",
    "answer_form_title": "Your answer to {problem}",
    "answer_form_label": "Answer",
    "reason_time_up": "no answer within {minutes} min",
    "reason_solution_shown": "its solution was posted",
    # a private chat acting for a club: which one
    "private_which_club": "You are in several clubs ({chats}): add chat=ID to say which.",
    "private_not_moderator": "You are no moderator of the chat {chat}: its moderators add its "
                             "problems.",
    "private_no_puzzles": "None of your clubs has a puzzle ladder: send /register in your "
                          "club's group first.",
    # -- the points at stake (issue 38) -------------------------------------------------------
    "stake_yourself": "A stake needs an opponent: name another member, not yourself.",
    "stake_title": "At stake on {ladder} (win / draw / loss):",
    "stake_line": "{name}: {win} / {draw} / {loss} (win {percent}%)",
    "stake_estimate": "An estimate: {ladder} rates an event's games together when it closes.",
    "help_stake_member": "/stake @member - the points at stake",
    "help_stake": "/stake @opp [@opp2] [with @mate] [handicap=N] [colour=white|black] "
                  "[ladder=NAME] - what a win, a draw and a loss would change, and the chance "
                  "to win",
    "example_stake": "/stake @bob",
    "menu_stake": "The points at stake in a game against a member",
    "about_show_stake": "Reports and challenges show each member's points at stake",
    "param_stake_opponent": "The member you would play",
    "param_stake_sides": "A team game: more opponents, then with and your partners "
                         "(@carol with @dan)",
    # -- rating bands and Discord roles (issue 38) ------------------------------------------
    "said_band_added": "{who} added the band {band} (from {minimum}) to {ladder}",
    "said_band_removed": "{who} removed the band {band} from {ladder}",
    "said_band_roles_paused": "the band roles of {ladder} paused: Discord refused a change",
    "said_band_roles_resumed": "{who} resumed the band roles of {ladder}",
    "about_band_hysteresis": "Rating bands: points a rating may fall below a band's minimum "
                             "before the band is lost",
    "help_band": "/band add NAME MIN_RATING [@role] | remove NAME | list - a ladder's rating "
                 "bands (moderators add and remove)",
    "help_band_roles": "/band preview | sync - Discord: who would gain and lose which band "
                       "role; sync gives and takes them (moderators)",
    "help_bands": "/band add|remove|list - rating bands",
    "example_band": "/band add Gold 1400",
    "band_bad_name": "A band's name is 1 to {limit} characters.",
    "band_bad_minimum": "A band's minimum rating is a whole number from {low} to {high} (not "
                        "{text}).",
    "band_role_discord": "Bands carry roles on Discord only: add the band without a role here.",
    "band_exists": "{ladder} has a band {band} already.",
    "band_same_minimum": "The band {band} starts at {minimum} already: two bands cannot start "
                         "at the same rating.",
    "band_too_many": "A ladder has at most {limit} bands.",
    "band_checked": "The band can be added.",
    "band_added": "Band {band} added to {ladder}: from a rating of {minimum}.",
    "band_added_role": "Band {band} added to {ladder}: from a rating of {minimum}, with the "
                       "role <@&{role}>.",
    "band_removed": "Band {band} removed from {ladder}.",
    "band_unknown": "{ladder} has no band {band} (its bands: {bands}).",
    "band_none": "{ladder} has no rating bands yet. A moderator adds one: /band add NAME "
                 "MIN_RATING",
    "band_list": "Rating bands of {ladder}, each kept until the rating is {hysteresis} points "
                 "below its minimum:{bands}",
    "band_line": "\n{band}: from {minimum}, {members:member|members}",
    "band_line_role": "\n{band}: from {minimum}, role <@&{role}>, {members:member|members}",
    "band_tag": "[{band}]",
    "profile_band": "Band: {band}",
    "band_roles_discord": "Band roles are Discord's: here a band shows beside the rating.",
    "band_no_roles": "No band of {ladder} carries a role: /band add NAME MIN_RATING @role",
    "band_roles_paused": "The band roles of {ladder} are paused: Discord refused to change the "
                         "role <@&{role}>. Check that I have Manage Roles and that my highest "
                         "role is above the band roles, then send /band sync.",
    "band_roles_running": "The band roles of {ladder} follow the ratings.",
    "band_role_manage": "I cannot give roles: I need the Manage Roles permission. Nothing "
                        "changed.",
    "band_role_above": "I cannot give the role {role}: it is not below my highest role "
                       "({top}). Nothing changed.",
    "band_role_yours": "You cannot give the role {role} yourself (it needs Manage Roles and a "
                       "role below your highest), so a band cannot give it. Nothing changed.",
    "band_role_unknown": "This server has no role {role}. Nothing changed.",
    "band_preview_title": "Band roles of {ladder} (preview; /band sync applies it):",
    "band_preview_gain": "{name} gains {role}",
    "band_preview_lose": "{name} loses {role}",
    "band_preview_none": "Band roles of {ladder}: every member holds the right roles already.",
    "band_preview_more": "... and {members:member|members} more",
    "band_synced": "Band roles of {ladder}: {members:member|members} changed.",
    "band_sync_stopped": "Discord refused to change the roles of {name} ({role}): the band "
                         "roles of {ladder} are paused after {members:member|members} changed. "
                         "Check that I have Manage Roles and that my highest role is above "
                         "the band roles, then send /band sync.",
    # -- the live leaderboard (issue 38) ------------------------------------------------------
    "board_started": "The live leaderboard of {ladder} is kept in this chat from now on; "
                     "/board off ends it.",
    "board_stopped": "The live leaderboard of {ladder} is no longer kept.",
    "board_none": "{ladder} has no live leaderboard: /board here starts one.",
    "board_bot_cannot_post": "I may not post in this chat: give me the right to send "
                             "messages here, then /board here again.",
    # told in the board's chat, once, when its message failed three times in a row
    "board_failed": "The live leaderboard of {ladder} has stopped: its message could not be "
                    "posted or edited three times in a row. /board here starts it again.",
    "help_board": "/board here|off [ladder=NAME] - keep the ladder's table in one message of "
                  "this chat, edited as ratings change (pinned where I may pin), or end it "
                  "(moderators)",
    "example_board": "/board here ladder=blitz",
    # the one line of the main /help (at most 40 characters)
    "help_board_short": "/board here|off - a live leaderboard",
    "said_live_board_started": "{who} started the live leaderboard of {ladder} in {platform} "
                               "chat {chat}",
    "said_live_board_moved": "{who} posted the live leaderboard of {ladder} as message "
                             "{message}",
    "said_live_board_stopped": "{who} stopped the live leaderboard of {ladder}",
    "said_live_board_failed": "{who} stopped the live leaderboard of {ladder}: its message "
                              "failed three times",
    # -- seasons (issue 38) ------------------------------------------------------------------
    "season_no_games": "The season on {ladder} has no games yet: there is nothing to close.",
    "season_bad_number": "season= takes a season's number, e.g. season=1 (not {text}).",
    "season_none_closed": "No season of {ladder} is closed yet.",
    "season_unknown": "{ladder} has {seasons:closed season|closed seasons}: there is no "
                      "season {number}.",
    "season_bad_name": "A season's name is one word of at most 32 characters, without = (not "
                       "{text}).",
    "season_name_taken": "{ladder} has a season called {name} already: give another name.",
    "season_closed_already": "Season {number} of {ladder} is closed already.",
    "season_correction_closed": "Game #{game} is in season {season}, which is closed. To "
                                "correct it all the same, end the command with force "
                                "(/correct {game} loss force).",
    "bad_setting_fraction": "{setting} takes a number from 0 to 1 (not {text}).",
    "season_title_preview": "Season {season} on {ladder} ({start} – {end}, "
                            "{games:game|games}). Closing it keeps this table:",
    "season_title_closed": "Season {season} on {ladder} is closed ({start} – {end}, "
                           "{games:game|games}). Its final table:",
    "season_title_archived": "Season {number}, {season}, on {ladder} ({start} – {end}, "
                             "{games:game|games}):",
    "season_row": "{place}. {name} {rating} ({change}), peak {peak}, {games:game|games}",
    "season_improved": "Most improved: {name} ({change})",
    "season_table_empty": "Nobody has {least:game|games} in this season (season_min_games).",
    "season_confirm": "To close it, press Confirm or send /season close {season} confirm.",
    "season_confirm_named": "To close it, send /season close {season} confirm.",
    "button_close_season": "Confirm",
    "season_list_title": "Seasons of {ladder}:",
    "season_list_line": "{number}. {season} ({start} – {end}): {games:game|games}, "
                        "{players:player|players}, champion {champion}",
    "season_list_line_no_champion": "{number}. {season} ({start} – {end}): "
                                    "{games:game|games}, {players:player|players}, no "
                                    "champion",
    "season_list_empty": "No season of {ladder} is closed yet.",
    "season_member": "{name} in season {season} on {ladder}: {rating} ({change}), peak {peak}, "
                     "{games:game|games}, place {place}",
    "season_member_unplaced": "{name} in season {season} on {ladder}: {rating} ({change}), "
                              "peak {peak}, {games:game|games}; a place takes {least}",
    "season_member_none": "{name} played no game in season {season} on {ladder}.",
    "season_post": "Season {season} on {ladder} is closed after {games:game|games}. Final "
                   "table:{rows}",
    "season_post_row": "\n{place}. {name} {rating} ({change})",
    "season_table_changed": "A correction changed the table of season {season} on {ladder}: "
                            "/top season={number} shows it.",
    "season_reminder": "Season {season} on {ladder} closes tomorrow at 00:00.",
    "season_skipped": "Season {season} on {ladder} has no games: it was not closed, and runs "
                      "on.",
    "said_season_closed": "{who} closed season {season} on {ladder}",
    "help_seasons": "/season list|close - seasons",
    "help_season": "/season list [ladder=NAME] - every closed season: its dates, games and "
                   "champion",
    "help_season_close": "/season close [NAME] [confirm] - end the season: its final table, "
                         "then Confirm (moderators)",
    "help_season_views": "/top season=N, /rating @member season=N - a closed season's table, "
                         "a member's line in it",
    "example_season": "/season close Autumn",
    "menu_season": "Seasons: the list, or close the season (moderators)",
    "param_season": "A closed season's number (/season list)",
    "param_season_action": "list: the closed seasons; close: end the season",
    "param_season_name": "The closing season's name (default: S1, S2, ...)",
    "param_season_confirm": "Close at once, without the table to confirm first",
    "param_force": "Correct a game inside a closed season all the same",
    "about_season_min_games": "Seasons: the games a member needs in a season to be in its "
                              "table",
    "about_season_reset": "Seasons: what a close does to ratings: none, soft (toward the "
                          "start) or hard (all start again)",
    "about_season_soft_factor": "Seasons: the share of each rating's distance from the start "
                                "that a soft reset keeps (0 to 1)",
    "about_season_schedule": "Seasons: closed by hand (manual), or at 00:00 on the first of "
                             "each month or quarter",
}


@dataclass(frozen=True, slots=True)
class Template:
    """A message as the catalogues hold it: its sentence, where a count with its noun is a
    plain field, and for each such count the English singular and plural of the phrase
    (``{games:game|games}`` becomes ``{games}`` in the sentence and the phrase ``{games} game``
    / ``{games} games``, which each language words with its own plural forms)."""

    sentence: str
    counts: tuple[tuple[str, str, str], ...]

    def count_key(self, key: str, field: str) -> str:
        """The catalogues' key (``msgctxt``) of a count's phrase."""
        return f"{key}:{field}"


@cache
def template(key: str) -> Template:
    """The message ``key`` as the catalogues hold it."""
    sentence: list[str] = []
    counts = []
    for literal, field, spec, conversion in _FORMATTER.parse(MESSAGES[key]):
        sentence.append(literal.replace("{", "{{").replace("}", "}}"))
        if field is None:
            continue
        if spec and "|" in spec:
            one, other = spec.split("|", 1)
            counts.append((field, f"{{{field}}} {one}", f"{{{field}}} {other}"))
            spec = ""
        sentence.append("{" + field + (f"!{conversion}" if conversion else "")
                        + (f":{spec}" if spec else "") + "}")
    return Template("".join(sentence), tuple(counts))


_FORMATTER = string.Formatter()


class _InLocale(string.Formatter):
    """Fills a field as the language writes numbers: a decimal with its own decimal sign
    (``0,693`` in French and Russian, by Babel's CLDR data) for a field formatted ``.Nf``;
    everything else as given (a rating is a plain integer, a game's number is its number)."""

    def __init__(self, language: str) -> None:
        self.language = language

    def format_field(self, value: object, format_spec: str) -> str:
        if (isinstance(value, float) and format_spec.startswith(".")
                and format_spec.endswith("f") and format_spec[1:-1].isdigit()):
            digits = int(format_spec[1:-1])
            pattern = "0." + "0" * digits if digits else "0"
            return format_decimal(value, format=pattern, locale=self.language)
        return str(super().format_field(value, format_spec))


@lru_cache(maxsize=4096)
def _count(count: int, language: str) -> str:
    """A count as the language writes numbers (1,000 in English, 1 000 in French); Babel's
    locale lookup costs some 20 us, and a board repeats the same few counts."""
    return format_decimal(count, locale=language)


def text(key: str, params: Mapping[str, object] | None = None, **more: object) -> str:
    """The message ``key`` with its fields filled in, in the language being written
    (:func:`bot.chat.language.current`): each count with its noun in that language's plural
    form (gettext's ``npgettext``), then the sentence (``pgettext``)."""
    values = {name: _part(value) for name, value in {**(params or {}), **more}.items()}
    shape = template(key)
    language = current()
    books = catalogue(language)
    for field, one, other in shape.counts:
        count = values[field]
        if not isinstance(count, int) or isinstance(count, bool):
            raise TypeError(f"{key}: {field} is a count, not {count!r}")
        phrase = books.npgettext(shape.count_key(key, field), one, other, count)
        values[field] = _FORMATTER.vformat(phrase, (), {field: _count(count, language)})
    shown = _InLocale(language).vformat(books.pgettext(key, shape.sentence), (), values)
    return right_to_left(shown) if language in RIGHT_TO_LEFT else shown


def _part(value: object) -> object:
    """A value to show: a part of the sentence that is a notice of its own as its sentence,
    and a sequence of such parts as theirs one after the other (a stored answer's parts come
    back as a list)."""
    if isinstance(value, Notice):
        return text(value.key, value.params)
    if isinstance(value, tuple | list) and all(isinstance(v, Notice) for v in value):
        return "".join(text(part.key, part.params) for part in value)
    return value


def fields(key: str) -> set[str]:
    """The fields a message needs (used by tests to keep callers and catalogue in step)."""
    return {name for _, name, _, _ in _FORMATTER.parse(MESSAGES[key]) if name}
