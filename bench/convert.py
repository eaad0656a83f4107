"""Real histories from ../shared/data as EVENTS.csv (for `clubrating evaluate` and `replay`).

    .venv/bin/python bench/convert.py chess > /tmp/chess.csv
    .venv/bin/python bench/convert.py football > /tmp/football.csv
    .venv/bin/python bench/convert.py tennis > /tmp/tennis.csv

The data stays in ../shared/data; these files are written wherever you send them.
- chess (kaggle-chess-elo-vs-rest, training_data.csv): a month is one rating period; month m is
  dated 2000-01-01 plus m - 1 months (the real years were not disclosed); player_a is White.
- football (international-football-results, results.csv): one rating period per match date;
  player_a is the home team, with colour "white" (the home side) unless the ground was neutral;
  its score is 1, 0.5 or 0 by goals.
- tennis (tennis-atp, ATP tour-level singles 2000-2024): each match a step of its own, no
  colour, no draw; dated by its tournament's start plus 10 minutes per round (ER, R128, R64,
  R32, R16, RR, QF, SF, BR, F: round-robin groups before the semi-finals, the bronze match
  before the final), so a later round is never dated before an earlier one; player_a is the
  winner when match_num is even, else the loser; walkovers (no tennis played) are left out;
  players are p<player_id> (names repeat).
"""

from __future__ import annotations

import csv
import sys
from datetime import datetime, timedelta
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
HEADER = ["played_at", "event", "player_a", "player_b", "score_a", "colour"]


def chess(out: csv.writer) -> None:  # type: ignore[valid-type]
    with (DATA / "kaggle-chess-elo-vs-rest" / "training_data.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            month = int(row["Month #"])
            year, index = divmod(month - 1, 12)
            out.writerow([f"{2000 + year:04d}-{index + 1:02d}-01", f"month-{month}",
                          f"w{row['White Player #']}", f"w{row['Black Player #']}",
                          row["Score"], "white"])


def football(out: csv.writer) -> None:  # type: ignore[valid-type]
    with (DATA / "international-football-results" / "results.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            if row["home_score"] in ("", "NA") or row["home_team"] == row["away_team"]:
                continue
            home, away = int(row["home_score"]), int(row["away_score"])
            score = "1" if home > away else "0" if home < away else "0.5"
            home_ground = "" if row["neutral"].strip().upper() == "TRUE" else "white"
            out.writerow([row["date"], row["date"], row["home_team"], row["away_team"], score,
                          home_ground])


#: tennis rounds in the order they are played
ROUNDS = ("ER", "R128", "R64", "R32", "R16", "RR", "QF", "SF", "BR", "F")


def tennis(out: csv.writer) -> None:  # type: ignore[valid-type]
    matches = []
    for path in sorted((DATA / "tennis-atp").glob("atp_matches_*.csv")):
        with path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if "W/O" in row["score"].upper():
                    continue
                start = datetime.strptime(row["tourney_date"], "%Y%m%d")
                matches.append((start, ROUNDS.index(row["round"]), row["tourney_id"],
                                int(row["match_num"]), f"p{row['winner_id']}",
                                f"p{row['loser_id']}"))
    matches.sort(key=lambda match: match[:4])
    for start, round_, _, number, winner, loser in matches:
        when = (start + timedelta(minutes=10 * round_)).isoformat(timespec="minutes")
        first, second, score = (winner, loser, "1") if number % 2 == 0 else (loser, winner, "0")
        out.writerow([when, "", first, second, score, ""])


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    converters = {"chess": chess, "football": football, "tennis": tennis}
    if which not in converters:
        sys.exit(f"usage: convert.py {'|'.join(converters)} > EVENTS.csv")
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(HEADER)
    converters[which](out)


if __name__ == "__main__":
    main()
