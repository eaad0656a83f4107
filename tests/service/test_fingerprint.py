"""A history's fingerprint (what `clubrating import` records to refuse a file twice) is written
fast but must stay the text it always was: the ladders' stored fingerprints depend on it."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.history.rows import History, _canonical
from ratings_core.model import Game, Join, RatingPeriod, Retire, Step, events_of

NAMES = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
WHEN = st.builds(lambda minutes, micro: datetime(2024, 1, 1) + timedelta(minutes=minutes,
                                                                         microseconds=micro),
                 st.integers(0, 10**6), st.sampled_from([0, 1, 999999]))


@st.composite
def events(draw: st.DrawFn) -> Game | Join | Retire:
    a, b = draw(NAMES), draw(NAMES)
    if draw(st.booleans()) and a != b:
        return Game(a, b, draw(st.sampled_from([0.0, 0.5, 1.0])), draw(WHEN),
                    draw(st.sampled_from([0.0, -0.0, 25.0, -12.5, 1e-7])),
                    None, draw(st.sampled_from([-1, 0, 1])))
    return draw(st.sampled_from([Join, Retire]))(a, draw(WHEN))


def the_first_way(steps: list[Step], labels: list[str]) -> str:
    """The fingerprint as issue 15 wrote it: json.dumps of each event's canonical list."""
    digest = hashlib.sha256()
    for step, label in zip(steps, labels, strict=True):
        for event in events_of(step):
            digest.update(json.dumps(_canonical(event, label)).encode() + b"\n")
    return digest.hexdigest()


@given(st.lists(st.tuples(st.lists(events(), min_size=1, max_size=3), NAMES), max_size=12))
def test_the_fingerprint_is_the_same_text_as_before(rows: list[tuple[list[Game], str]]) -> None:
    steps: list[Step] = [RatingPeriod(tuple(group)) if len(group) > 1 else group[0]
                         for group, _ in rows]
    labels = [label if len(group) > 1 else "" for group, label in rows]
    history = History(steps, [[1] * len(events_of(s)) for s in steps], labels)
    assert history.fingerprint() == the_first_way(steps, labels)
