"""The report's lean read of a log gives the report the same samples as a full read: the same
rubric items (without the grader's evidence), turns, refusals, times and end."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_medsp import medsp_demo
from inspect_medsp.record import parse_log, parsed_run, read_log

SCRIPTED = "medsp/scripted"


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    logs = tmp_path_factory.mktemp("logs")
    [log] = eval(medsp_demo(judge=SCRIPTED), model=SCRIPTED, log_dir=str(logs), display="none")
    assert log.status == "success"
    return log


def test_a_lean_read_gives_the_report_what_a_full_read_gives(demo_log: EvalLog) -> None:
    path = str(demo_log.location)
    full, lean = read_log(path).samples, read_log(path, lean=True).samples
    assert [s.id for s in lean] == [s.id for s in full]
    assert sum(len(s.items) for s in lean) > 0
    for a, b in zip(full, lean, strict=True):
        assert [i.model_copy(update={"evidence": ""}) for i in a.items] == b.items, a.id
        assert [list(i.model_dump()) for i in a.items] == [list(i.model_dump()) for i in b.items]
        assert b.item_count == len(b.items) == len(a.items)
        assert (a.recorded_turns, a.refused_turns, a.turn_seconds, a.end, a.health) == (
            b.recorded_turns, b.refused_turns, b.turn_seconds, b.end, b.health
        )  # fmt: skip
        assert (a.values, a.counts, a.unjudged, a.tokens) == (
            b.values,
            b.counts,
            b.unjudged,
            b.tokens,
        )
        assert b.turn_seconds and b.recorded_turns == len(b.turn_seconds)


def test_the_same_item_text_read_twice_is_kept_once(demo_log: EvalLog) -> None:
    path = str(demo_log.location)
    one, two = read_log(path, lean=True).samples, read_log(path, lean=True).samples
    texts = [(a.text, b.text) for x, y in zip(one, two, strict=True)
             for a, b in zip(x.items, y.items, strict=True)]  # fmt: skip
    assert texts and all(a is b for a, b in texts)


def test_a_lean_read_leaves_out_the_rubric_score_explanation(demo_log: EvalLog) -> None:
    """The grader's prose, which the report never shows, is kept by a full read only (on a
    full-set log it was a fifth of what a lean read held)."""
    path = str(demo_log.location)
    full, lean = read_log(path).samples, read_log(path, lean=True).samples
    assert all(s.scores["medsp_rubric"].explanation for s in full)
    assert not any(s.scores["medsp_rubric"].explanation for s in lean)
    assert [s.scores["medsp_rubric"].value for s in lean] == [
        s.scores["medsp_rubric"].value for s in full
    ]


def test_typing_a_parsed_log_lets_go_of_its_json_and_types_every_sample(
    demo_log: EvalLog,
) -> None:
    path = str(demo_log.location)
    parsed = parse_log(path, lean=True)
    assert parsed.samples is not None
    count = len(parsed.samples)
    run = parsed_run(parsed)
    assert parsed.samples == []
    read = read_log(path, lean=True).samples
    assert count == len(read) == len(run.samples) > 0
    assert [(s.id, s.epoch, s.values, s.counts, s.turns) for s in run.samples] == [
        (s.id, s.epoch, s.values, s.counts, s.turns) for s in read
    ]
