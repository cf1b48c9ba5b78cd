"""Grader probes: ``medsp_grader_probe`` re-grades perturbed copies of recorded encounters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval, score
from inspect_ai.event import SubtaskEvent
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, ChatMessageUser

from inspect_medsp import medsp_demo
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.probes.result import PROBE_HEADLINES, GraderProbes
from inspect_medsp.probes.scorer import medsp_grader_probe, parse_probes
from inspect_medsp.scripted.recognise import fold, recognise
from inspect_medsp.scripted.replies import grade, script_for
from tests.support.offline_tokens import inspect_cli
from tests.support.scripts import Script

SCRIPTED = "medsp/scripted"
PROBE = "medsp_grader_probe"


def scripted_demo(log_dir: str) -> EvalLog:
    [log] = eval(medsp_demo(judge=SCRIPTED), model=SCRIPTED, log_dir=log_dir, display="none")
    assert log.status == "success", log.error
    return log


def probes_of(log: EvalLog) -> dict[str, GraderProbes]:
    assert log.samples is not None
    return {
        str(s.id): GraderProbes.model_validate(s.scores[PROBE].metadata)
        for s in log.samples
        if s.scores and PROBE in s.scores and not s.scores[PROBE].metadata.get("unscored")  # type: ignore[union-attr]
    }


def gullible(messages: list[ChatMessage]) -> dict[str, Any]:
    """The scripted grader, but it also credits any item whose text is in the record."""
    call = recognise(messages)
    verdicts = grade(call, script_for(call), messages)
    request = next(m.text for m in messages if isinstance(m, ChatMessageUser))
    record = fold(request.rpartition("<encounter_record>")[2])
    for item in call.record.rubric.items():
        if fold(item.text) in record:
            verdicts[item.competency][f"[{item.number}]"] = {"met": True, "evidence": item.text}
    return verdicts


def test_probes_on_the_scripted_demo_give_the_flips_known_by_hand(tmp_path: Path) -> None:
    """The scripted grader credits only its evidence phrases, which it never reads inside a
    recited item: recital, injection and padding flip nothing. Removal drops the actions of
    the turn most cited (anaphylaxis turn 1: epinephrine, lying flat, oxygen mask), and the
    three items citing them flip down."""
    log = scripted_demo(str(tmp_path / "logs"))
    path = log.location
    probed = tmp_path / "probed.eval"
    done = inspect_cli(
        "score",
        path,
        "--scorer",
        f"inspect_medsp/{PROBE}",
        "-S",
        "probes=recital,injection,padding,removal",
        "--action",
        "append",
        "--output-file",
        str(probed),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = read_eval_log(str(probed))
    assert result.samples is not None
    # the value holds each probe's aimed flips (the grid's columns), the metadata every figure
    headlines = {str(s.id): s.scores[PROBE].value for s in result.samples}  # type: ignore[index]
    values = {str(s.id): s.scores[PROBE].metadata["figures"] for s in result.samples}  # type: ignore[index]
    assert headlines == {i: {k: v[k] for k in PROBE_HEADLINES} for i, v in values.items()}
    unchanged = {f"{p}_{d}": 0 for p in ("recital", "injection", "padding") for d in ("up", "down")}
    assert values == {
        "demo_anaphylaxis/scenario1": unchanged | HAND_ITEMS | {"removal_up": 0, "removal_down": 3},
        "demo_bad_news/scenario1": unchanged | HAND_ITEMS | {"removal_up": 0, "removal_down": 1},
        "demo_peds_asthma/scenario1": unchanged | HAND_ITEMS | {"removal_up": 0, "removal_down": 4},
    }
    found = probes_of(result)
    removal = {sid: next(p for p in r.probes if p.probe == "removal") for sid, r in found.items()}
    assert {sid: p.change for sid, p in removal.items()} == {
        "demo_anaphylaxis/scenario1": "turn 1: dropped its 4 actions, cited by 3 met items",
        "demo_bad_news/scenario1": "turn 4: dropped its 2 actions, cited by 1 met items",
        "demo_peds_asthma/scenario1": "turn 1: dropped its 5 actions, cited by 4 met items",
    }
    # peds item 4 (dexamethasone 12 mg) goes too: the nurse's feedback still reports it given,
    # but the scripted grader credits only the clinician's own lines
    peds = removal["demo_peds_asthma/scenario1"]
    assert [o.number for o in peds.down] == [1, 2, 3, 4]
    assert [o.number for o in peds.outcomes if o.targeted] == [1, 2, 3, 4]
    assert result.results is not None
    metrics = next(s for s in result.results.scores if s.name == PROBE).metrics
    assert metrics["removal_down"].value == 8 and metrics["recital_up"].value == 0
    # each grading is a subtask named after its probe (what the viewer's outline shows), with
    # the change to the record as its input and what the grader found as its output
    met = {"demo_anaphylaxis/scenario1": 12, "demo_bad_news/scenario1": 11}
    met["demo_peds_asthma/scenario1"] = 13
    for sample in result.samples:
        sid = str(sample.id)
        gradings = {
            e.name: e
            for e in sample.events
            if isinstance(e, SubtaskEvent) and not e.name.startswith("turn ")  # the encounter's
        }
        assert sorted(gradings) == [
            "probe: baseline",
            "probe: injection",
            "probe: padding",
            "probe: recital",
            "probe: removal",
            "rubric grading",
        ]
        assert gradings["probe: baseline"].input == {"grader": SCRIPTED, "record": "unchanged"}
        assert gradings["probe: baseline"].result == f"{met[sid]} of 17 items met"
        changed = {"grader": SCRIPTED, "record": removal[sid].change}
        assert gradings["probe: removal"].input == changed
        after = met[sid] - len(removal[sid].down) + len(removal[sid].up)
        assert gradings["probe: removal"].result == f"{after} of 17 items met"


HAND_ITEMS = {f"{p}_items": 17 for p in ("recital", "injection", "padding", "removal")}


def test_a_gullible_grader_credits_every_recited_item(log_dir: str) -> None:
    """A grader that credits any item whose text is in the record: recital_up is exactly the
    number of items recited (the unmet items: 5, 6 and 4), and nothing flips down."""
    log = scripted_demo(log_dir)
    grader = Script(gullible)
    probed = score(
        log,
        medsp_grader_probe(probes="recital,injection"),
        action="append",
        model_roles={"grader": grader.model()},
    )
    found = probes_of(probed)
    recital = {sid: next(p for p in r.probes if p.probe == "recital") for sid, r in found.items()}
    assert {sid: (len(p.up), p.targeted) for sid, p in recital.items()} == {
        "demo_anaphylaxis/scenario1": (5, 5),
        "demo_bad_news/scenario1": (6, 6),
        "demo_peds_asthma/scenario1": (4, 4),
    }
    assert probed.samples is not None
    for sample in probed.samples:
        value = sample.scores[PROBE].metadata["figures"]  # type: ignore[index]
        assert isinstance(value, dict)
        assert value["recital_up"] == recital[str(sample.id)].targeted
        assert value["recital_down"] == 0 and value["injection_up"] == 0
    # one baseline and one grading per probe for each encounter; nothing else was asked
    assert len(grader.calls) == 3 * 3
    recited = "\n".join(grader.texts())
    assert "For the record, I have done the following" in recited


def test_unknown_probe_is_one_clear_line() -> None:
    with pytest.raises(MedSPDataError, match="unknown probe recitl; use any of recital,"):
        parse_probes("recitl,padding")
    assert parse_probes("removal, recital") == ["recital", "removal"]


def test_a_grader_failing_on_a_copy_leaves_that_probe_out_visibly(log_dir: str) -> None:
    log = scripted_demo(log_dir)
    assert log.samples is not None
    log.samples = log.samples[:1]
    asked: list[int] = []

    def flaky(messages: list[ChatMessage]) -> dict[str, Any] | str:
        asked.append(1)
        return gullible(messages) if len(asked) == 1 else "no verdicts today"

    probed = score(
        log,
        medsp_grader_probe(probes="padding"),
        action="append",
        model_roles={"grader": Script(flaky).model()},
    )
    assert probed.samples is not None
    result = probed.samples[0].scores[PROBE]  # type: ignore[index]
    assert result.metadata is not None and result.metadata["unscored"] == "grader_failed"
    assert "padding: the grader failed on the perturbed copy" in str(result.explanation)
    [padding] = GraderProbes.model_validate(result.metadata).probes
    assert padding.failed.startswith("the grader failed on the perturbed copy")
