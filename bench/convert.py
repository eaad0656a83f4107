"""Real histories from ../shared/data as EVENTS.csv (for `clubrating evaluate` and `replay`).

    .venv/bin/python bench/convert.py chess > /tmp/chess.csv
    .venv/bin/python bench/convert.py football > /tmp/football.csv

The data stays in ../shared/data; these files are written wherever you send them.
- chess (kaggle-chess-elo-vs-rest, training_data.csv): a month is one rating period; month m is
  dated 2000-01-01 plus m - 1 months (the real years were not disclosed); player_a is White.
- football (international-football-results, results.csv): one rating period per match date;
  player_a is the home team, with colour "white" (the home side) unless the ground was neutral;
  its score is 1, 0.5 or 0 by goals.
"""

from __future__ import annotations

import csv
import sys
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


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    converters = {"chess": chess, "football": football}
    if which not in converters:
        sys.exit(f"usage: convert.py {'|'.join(converters)} > EVENTS.csv")
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(HEADER)
    converters[which](out)


if __name__ == "__main__":
    main()
