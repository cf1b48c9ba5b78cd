"""The simulator audit: ``medsp_simulation_audit`` reviews the patient and the environment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import eval, score
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput
from inspect_ai.util import Store

from inspect_medsp import medsp_demo
from inspect_medsp.audit import medsp_simulation_audit
from inspect_medsp.audit.capability import unaudited_line
from inspect_medsp.audit.result import SimulationAudit
from inspect_medsp.audit.review import harness_counts
from inspect_medsp.params import TaskParameters
from inspect_medsp.record import (
    ClinicianReply,
    EnvironmentReply,
    PatientReply,
    ReplyHealth,
    Trajectory,
    TurnRecord,
)
from inspect_medsp.scripted.recognise import fold
from inspect_medsp.tasks import medsp_task
from tests.support.metrics import scored as scored_as
from tests.support.offline_tokens import inspect_cli
from tests.support.scripts import Script, clinician, environment, executed, patient
from tests.support.tree import MARKERS, write_marked_scenario

SCRIPTED = "medsp/scripted"
ANAPHYLAXIS = "demo_anaphylaxis/scenario1"
VOLUNTEERED = "And by the way, I take lisinopril for my blood pressure."
INVENTED = "CT pulmonary angiogram: no pulmonary embolism."
AUDIT = "medsp_simulation_audit"


def scripted_demo(log_dir: str, **task_args: Any) -> EvalLog:
    [log] = eval(
        medsp_demo(judge=SCRIPTED, **task_args),
        model=SCRIPTED,
        log_dir=log_dir,
        display="none",
    )
    assert log.status == "success", log.error
    return log


def plant_slips(log: EvalLog) -> None:
    """The anaphylaxis patient volunteers its medicine in turn 1 (the demo script plants that
    one itself); the controller reports a CT that the materials do not have in turn 3."""
    assert log.samples is not None
    sample = next(s for s in log.samples if s.id == ANAPHYLAXIS)
    turns = sample.store["Trajectory:turns"]
    assert any(fold(VOLUNTEERED[4:]) in fold(line) for line in turns[0]["patient"]["speak"])
    turns[2]["environment"]["feedback"].append(INVENTED)


def audits(log: EvalLog) -> dict[str, SimulationAudit]:
    assert log.samples is not None
    return {
        str(s.id): SimulationAudit.model_validate(s.scores[AUDIT].metadata)
        for s in log.samples
        if s.scores and AUDIT in s.scores
    }


def test_scripted_auditor_finds_the_planted_slips_from_the_cli(tmp_path: Path) -> None:
    """Planted in a recorded log, found by ``inspect score --scorer`` with the right turns,
    roles and kinds; the untouched encounters are faithful."""
    log = scripted_demo(str(tmp_path / "logs"))
    plant_slips(log)
    planted = tmp_path / "planted.eval"
    write_eval_log(log, str(planted))
    audited = tmp_path / "audited.eval"
    done = inspect_cli(
        "score",
        str(planted),
        "--scorer",
        f"inspect_medsp/{AUDIT}",
        "--action",
        "append",
        "--output-file",
        str(audited),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    scored = read_eval_log(str(audited))
    found = audits(scored)
    assert {k: a.verdict for k, a in found.items()} == {
        ANAPHYLAXIS: "invalidating",
        "demo_bad_news/scenario1": "faithful",
        "demo_peds_asthma/scenario1": "faithful",
    }
    where = [(f.turn, f.role, f.kind, f.severity) for f in found[ANAPHYLAXIS].findings]
    assert where == [
        (1, "patient", "volunteered", "invalidating"),
        (3, "environment", "result_not_in_materials", "minor"),
    ]
    volunteered = found[ANAPHYLAXIS].findings[0]
    assert "Do not volunteer" in volunteered.contradicts
    assert found[ANAPHYLAXIS].findings[1].contradicts == "not in the materials"
    assert scored.results is not None
    metrics = next(s for s in scored.results.scores if s.name == AUDIT).metrics
    assert metrics["invalidating_share"].value == 1 / 3
    assert metrics["findings"].value == 2
    assert scored.samples is not None
    shown = scored_as(next(s for s in scored.samples if s.id == ANAPHYLAXIS), AUDIT)
    assert shown.answer == "invalidating"
    assert "**invalidating** · turn 1, patient, `volunteered`" in str(shown.explanation)
    # the Scoring tab says what an invalidating audit does to the macro: nothing by itself
    assert "still counts in the run's macro" in str(shown.explanation)
    faithful = scored_as(next(s for s in scored.samples if s.id != ANAPHYLAXIS), AUDIT)
    assert "still counts in the run's macro" not in str(faithful.explanation)


def test_audit_true_adds_the_second_scorer_at_eval_time(log_dir: str) -> None:
    log = scripted_demo(log_dir, audit=True)
    assert log.results is not None
    # the work-up, on in every task, follows the switched-on capabilities
    assert [s.name for s in log.results.scores] == ["medsp_rubric", AUDIT, "medsp_workup"]
    # the slip the demo script plants is found; the other encounters are faithful
    found = audits(log)
    assert {k: a.verdict for k, a in found.items()} == {
        ANAPHYLAXIS: "invalidating",
        "demo_bad_news/scenario1": "faithful",
        "demo_peds_asthma/scenario1": "faithful",
    }
    [slip] = found[ANAPHYLAXIS].findings
    assert (slip.turn, slip.role, slip.kind) == (1, "patient", "volunteered")
    # the rubric score is unchanged by the audit: the README's 12/17, 11/17 and 13/17
    assert log.samples is not None
    assert sorted(str(scored_as(s).answer) for s in log.samples) == [
        "11/17 items",
        "12/17 items",
        "13/17 items",
    ]


def _marked_task(tmp_path: Path) -> Any:
    data, upstream = write_marked_scenario(tmp_path)
    audited = TaskParameters(max_turns=3, judge="mockllm/model", switches={"audit": True})
    return medsp_task("marked", data, upstream, audited)


def _run_marked(tmp_path: Path, auditor: Script, log_dir: str) -> tuple[EvalLog, list[Script]]:
    clin = Script(
        [clinician("Hello.", ["ECG", "MRI of the knee"]), clinician("Aspirin.", eos=True)]
    )
    pat = Script([patient("It hurts here.")])
    env = Script(
        [
            environment(
                0,
                "initial_assessment",
                feedback=["ECG: ST elevation"],
                assessments=[executed("ECG")],
            ),
            environment(1, "ecg_reviewed", end=True, reason="done"),
        ]
    )
    grader = Script([{"PC": {"[1]": {"met": True, "evidence": "Aspirin."}}}])
    [log] = eval(
        _marked_task(tmp_path),
        model=clin.model(),
        model_roles={
            "patient": pat.model(),
            "environment": env.model(),
            "grader": grader.model(),
            "auditor": auditor.model(),
        },
        log_dir=log_dir,
        display="none",
    )
    assert log.status == "success", log.error
    return log, [clin, pat, env, grader]


def test_auditor_sees_both_packets_never_the_rubric(tmp_path: Path, log_dir: str) -> None:
    auditor = Script(
        [
            {
                "findings": [
                    {
                        "turn": 1,
                        "role": "patient",
                        "kind": "volunteered",
                        "quote": "It hurts here",
                        "severity": "minor",
                    }
                ]
            }
        ]
    )
    log, (clin, *_) = _run_marked(tmp_path, auditor, log_dir)
    seen = "\n".join(auditor.texts())
    assert MARKERS["sp_actor"] in seen and MARKERS["environment_controller"] in seen
    assert MARKERS["rubric"] not in seen and MARKERS["evaluator"] not in seen
    assert "Obtains an ECG" not in seen  # no rubric item text either
    assert "Door note" not in seen  # nor the clinician's materials
    clinician_seen = "\n".join(clin.texts())
    for marker in MARKERS.values():
        assert marker not in clinician_seen
    assert "auditor" not in clinician_seen.lower()
    [audit] = audits(log).values()
    assert audit.verdict == "minor"
    # what the harness knows: the MRI was not assessed, so it counts as unsupported
    assert audit.harness.unsupported_actions == 1
    assert audit.harness.degraded == {"clinician": 0, "patient": 0, "environment": 0}


def test_malformed_auditor_reply_is_retried_then_unscored(tmp_path: Path, log_dir: str) -> None:
    auditor = Script(["I think it went fine."])
    log, _ = _run_marked(tmp_path, auditor, log_dir)
    assert len(auditor.calls) == 3  # the first ask and two corrective re-asks
    assert log.samples is not None
    [sample] = log.samples
    audit = scored_as(sample, AUDIT)
    assert audit.metadata is not None and audit.metadata["unscored"] == "auditor_failed"
    assert "not usable JSON after 2 retries" in str(audit.explanation)
    assert scored_as(sample).answer == "1/4 items"
    assert log.results is not None
    audit_result = next(s for s in log.results.scores if s.name == AUDIT)
    assert audit_result.unscored_samples == 1
    line = unaudited_line(log)
    assert line is not None
    assert line.startswith(
        "MedSP: 1 sample(s) were not audited: mededportal_4242/scenario1 [auditor_failed]; "
        "re-audit: inspect score "
    )


def test_findings_not_in_the_record_are_listed_not_counted(tmp_path: Path, log_dir: str) -> None:
    auditor = Script(
        [
            {
                "findings": [
                    {
                        "turn": 1,
                        "role": "environment",
                        "kind": "hint",
                        "quote": "Go give aspirin",
                        "severity": "invalidating",
                    },
                    {
                        "turn": 9,
                        "role": "patient",
                        "kind": "volunteered",
                        "quote": "x",
                        "severity": "minor",
                    },
                    {
                        "turn": 1,
                        "role": "patient",
                        "kind": "hint",
                        "quote": "It hurts",
                        "severity": "minor",
                    },
                    {
                        "turn": 1,
                        "role": "environment",
                        "kind": "result not in materials",
                        "quote": "ST elevation",
                        "severity": "invalidating",
                    },
                ]
            }
        ]
    )
    log, _ = _run_marked(tmp_path, auditor, log_dir)
    [audit] = audits(log).values()
    assert [(f.kind, f.quote) for f in audit.findings] == [
        ("result_not_in_materials", "ST elevation")
    ]
    assert audit.verdict == "invalidating"
    reasons = [r.reason for r in audit.rejected]
    assert reasons == [
        "the quote is not words of the environment in turn 1",
        "turn 9 is not one of 1-2",
        "kind 'hint' is not one of volunteered, not_in_script, meta_talk, broke_character, "
        "beyond_character, persona_not_played for patient",
    ]


def test_harness_counts_corrections_and_degraded_replies() -> None:
    turn = TurnRecord(
        index=1,
        state_label="initial_assessment",
        progress_index=0,
        clinician=ClinicianReply(speak="hi", actions=["x"]),
        patient=PatientReply(speak=["hello"]),
        environment=EnvironmentReply(progress_index=2),
        corrections=["stage 2 without eos: kept at 0"],
        degraded=["environment"],
    )
    traj = Trajectory(store=Store())
    traj.turns = [turn]
    traj.health = {
        "clinician": ReplyHealth(),
        "patient": ReplyHealth(),
        "environment": ReplyHealth(degraded=1),
    }
    counts = harness_counts(traj)
    assert counts.corrections == 1
    assert counts.unsupported_actions == 1
    assert counts.degraded == {"clinician": 0, "patient": 0, "environment": 1}


def test_an_encounter_without_turns_is_unscored_not_faithful(log_dir: str) -> None:
    log = scripted_demo(log_dir, scenarios=ANAPHYLAXIS)
    assert log.samples is not None
    log.samples[0].store["Trajectory:turns"] = []
    rescored = score(log, medsp_simulation_audit(judge=SCRIPTED), action="append")
    assert rescored.samples is not None
    audit = scored_as(rescored.samples[0], AUDIT)
    assert audit.metadata is not None and audit.metadata["unscored"] == "no_turns"


def test_a_refusing_auditor_leaves_the_encounter_unaudited_with_why(
    tmp_path: Path, log_dir: str
) -> None:
    refusal = ModelOutput.from_content(
        model="mockllm", content="I can't help with that.", stop_reason="content_filter"
    )
    auditor = Script([refusal])
    log, _ = _run_marked(tmp_path, auditor, log_dir)
    assert len(auditor.calls) == 1  # a refusal is not re-asked
    assert log.samples is not None
    audit = log.samples[0].scores[AUDIT]  # type: ignore[index]
    assert audit.metadata is not None and audit.metadata["unscored"] == "auditor_failed"
    assert "provider refused (content filter)" in str(audit.explanation)
    assert audit.metadata["provider_message"] == "I can't help with that."


def test_the_auditor_is_a_role_in_the_log_header(log_dir: str) -> None:
    """Loaded by name (as ``inspect eval`` loads it), a task with ``-T audit=true`` records the
    auditor among the log's roles (the viewer's Models tab): the grader it follows when no
    auditor is bound, including a grader bound with ``--model-role``, else the auditor bound."""

    def run(**roles: str) -> tuple[dict[str, str], str]:
        [log] = eval(
            "inspect_medsp/medsp_demo",
            model=SCRIPTED,
            task_args={"judge": SCRIPTED, "audit": True, "scenarios": "demo_anaphylaxis/*"},
            model_roles=dict(roles) or None,
            log_dir=log_dir,
            display="none",
        )
        assert log.samples is not None
        [sample] = log.samples
        audited = str(((sample.scores or {})[AUDIT].metadata or {})["auditor"])
        bound = {
            r: str(m.model)
            for r, m in (log.eval.model_roles or {}).items()
            if not isinstance(m, list)
        }
        return bound, audited

    bound, audited = run()
    assert bound["auditor"] == bound["grader"] == audited == SCRIPTED
    # a grader bound on the eval is the auditor too, as the audit always took it
    bound, audited = run(grader="mockllm/model")
    assert bound["grader"] == bound["auditor"] == audited == "mockllm/model"
    # an auditor of its own wins
    bound, audited = run(auditor="mockllm/model")
    assert bound["grader"] == SCRIPTED
    assert bound["auditor"] == audited == "mockllm/model"
