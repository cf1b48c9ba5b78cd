"""What a run writes is the record's models, and every log this package wrote reads back typed:
a log of schema version 1 (written before the record seam) reads as a fresh one does, and
Inspect's ``samples_df`` gets one column per score key, equal to the score values."""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_medsp import medsp_demo
from inspect_medsp.audit.result import SimulationAudit
from inspect_medsp.record import (
    TASK_SCHEMA,
    MedspRun,
    MedspSample,
    ScoreMetadata,
    ScoreValue,
    TaskMetadata,
    read_log,
)
from inspect_medsp.record.grader import default_grader, graders_named
from inspect_medsp.record.score import KEYS, LEGACY_SCHEMA, SCORE_SCHEMA

SCRIPTED = "medsp/scripted"
SCENARIO = "demo_anaphylaxis/*"
LEGACY_LOG = Path(__file__).parent / "fixtures" / "schema1_demo_repeats.eval"
"""A scripted demo run of the anaphylaxis scenario with two grading repeats
(``grader_samples=2``), written by the package before the record seam (schema version 1)."""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """The run the legacy log recorded, made again by this version (and audited)."""
    [log] = eval(
        medsp_demo(scenarios=SCENARIO, judge=SCRIPTED, grader_samples=2, audit=True),
        model=SCRIPTED,
        log_dir=str(tmp_path_factory.mktemp("fresh")),
        display="none",
    )
    assert log.status == "success"
    return log


@pytest.fixture(scope="module")
def cut_short(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """A run whose encounter hits a message limit, so its sample is unscored."""
    [log] = eval(
        medsp_demo(scenarios="demo_bad_news/*", judge=SCRIPTED),
        model=SCRIPTED,
        log_dir=str(tmp_path_factory.mktemp("short")),
        display="none",
        message_limit=4,
    )
    return log


def test_a_log_of_schema_version_1_reads_as_this_versions_log(fresh: EvalLog) -> None:
    old, new = read_log(LEGACY_LOG), read_log(str(fresh.location))
    assert old.task_metadata.schema_version == LEGACY_SCHEMA
    assert new.task_metadata.schema_version == TASK_SCHEMA
    [was], [now] = old.samples, new.samples
    assert was.score is not None and now.score is not None
    assert was.score.metadata.schema_version == LEGACY_SCHEMA
    assert now.score.metadata.schema_version == SCORE_SCHEMA
    # the same numbers, the same verdicts with every repeat's vote, the same grader and end
    # (the provider figures are new: an older value lacks them; here nothing stopped)
    stops = {"context_exhausted": None, "refused_turns": None}
    assert was.score.value is not None and now.score.value is not None
    assert now.score.value.context_exhausted == 0 and now.score.value.refused_turns == 0
    # version 3 stores completions to three decimals; read from the counts they are the same
    assert was.score.value.rounded() == now.score.value.model_copy(update=stops)
    assert [was.score.value.completion(k) for k in KEYS] == [
        now.score.value.completion(k) for k in KEYS
    ]
    assert was.score.value.completion("overall") == was.score.value.overall
    # the same verdicts; an action's evidence line now also carries the controller's reading
    # of it (the record gives each action once, with its status), and the scripted grader's
    # evidence cites its turn ("T1 action: ...") cut at a word boundary with "…": the old line
    # (cut mid-word) and the new one begin the same
    assert [i.model_dump(exclude={"evidence"}) for i in was.score.metadata.items] == [
        i.model_dump(exclude={"evidence"}) for i in now.score.metadata.items
    ]
    for before, after in zip(was.score.metadata.items, now.score.metadata.items, strict=True):
        quoted = before.evidence.removeprefix("Clinician ")
        cited = re.sub(r"^T\d+ ", "", after.evidence).removesuffix("…")
        assert quoted.startswith(cited) or cited.startswith(quoted)
    assert [i.votes for i in now.score.metadata.items] == [
        [i.met] * 2 for i in was.score.metadata.items
    ]
    assert was.score.metadata.repeats == now.score.metadata.repeats
    assert was.score.metadata.counts == now.score.metadata.counts
    assert old.grader == new.grader
    assert new.metrics is not None and new.metrics.pop("published_scenarios") == 3  # new in 2
    # the intervals are computed anew: one case is too few for one (the legacy log's
    # bootstrap gave a zero-width interval there); every other metric is the same
    assert old.metrics is not None
    intervals = {k for k in new.metrics if "_ci_" in k}
    assert intervals and all(math.isnan(new.metrics[k]) for k in intervals)
    assert {k: v for k, v in old.metrics.items() if k not in intervals} == {
        k: v for k, v in new.metrics.items() if k not in intervals
    }
    assert was.trajectory is not None and now.trajectory is not None
    # how long each reply took differs between runs; the stop reasons are new
    timing = {"clinician_seconds", "stop_reasons"}
    # the demo script now plants a slip for the audit to find: the patient's turn-1 line
    planted = " By the way, I take lisinopril for my blood pressure."
    played = [t.model_dump(exclude=timing) for t in now.trajectory.turns]
    assert planted in played[0]["patient"]["speak"][1]
    played[0]["patient"]["speak"][1] = played[0]["patient"]["speak"][1].replace(planted, "")
    assert [t.model_dump(exclude=timing) for t in was.trajectory.turns] == played
    # the simulator audit, a second score, reads typed too
    assert was.result(SimulationAudit) is None
    audit = now.result(SimulationAudit)
    assert audit is not None and now.result_unscored(SimulationAudit) is None
    assert audit.auditor == SCRIPTED and audit.turns == now.trajectory.turn_count
    # and the report reads both the same
    report_old, report_new = old, new
    [row_old], [row_new] = report_old.samples, report_new.samples
    # (the prompts were laid out for the provider's cache since the legacy log, and the demo
    # script plants a slip for the audit to find, so the tokens a role read differ; the
    # verdicts' evidence is compared above)
    changed = {"items", "clinician_input_tokens"}
    assert {k: v for k, v in reading(row_old).items() if k not in changed} == {
        k: v for k, v in reading(row_new).items() if k not in changed
    }
    assert row_old.turn_seconds == [] and len(row_new.turn_seconds) == row_new.turns
    assert set(row_old.tokens) == set(row_new.tokens) - {"auditor"}
    assert all(n > 0 for n in row_new.tokens.values())
    assert 0 < (row_new.clinician_input_tokens or 0) <= (row_old.clinician_input_tokens or 0)
    assert report_old.label == report_new.label


REPORT_READS = ("id", "epoch", "case_id", "specialty", "specialty_source", "case_meta", "error",
                "scored", "unscored", "values", "counts", "items", "unjudged", "grader", "end",
                "turns", "refused_turns", "health", "clinician_input_tokens")  # fmt: skip
"""What the report reads of a sample (``MedspSample``'s derived properties among them)."""


def reading(sample: MedspSample) -> dict[str, object]:
    return {name: getattr(sample, name) for name in REPORT_READS}


def test_a_run_writes_exactly_what_the_models_declare(fresh: EvalLog, cut_short: EvalLog) -> None:
    for log in (fresh, cut_short):
        task = TaskMetadata.read(log.eval.metadata)
        assert task is not None and not task.model_extra
        assert task.stored() == log.eval.metadata
        for sample in log.samples or []:
            score = (sample.scores or {})["medsp_rubric"]
            meta = ScoreMetadata.read(score.metadata)
            assert not meta.model_extra
            assert meta.stored() == score.metadata
            value = ScoreValue.in_score(score.value, score.metadata)
            if value is not None:  # every figure in the metadata, the headline as the value
                assert not value.model_extra
                assert value.stored() == meta.figures
                assert value.headline() == score.value


def test_an_unscored_sample_reads_with_its_reason(cut_short: EvalLog) -> None:
    run = read_log(str(cut_short.location))
    [sample] = run.samples
    assert sample.score is not None and sample.score.value is None
    assert sample.score.reason == "encounter_incomplete"
    assert sample.score.metadata.end == "limit"
    assert sample.trajectory is not None and sample.trajectory.end == "limit"


def medsp_columns_equal_scores(run: MedspRun, rows: Sequence[Mapping[Hashable, Any]]) -> int:
    """Check each row's ``medsp_*`` columns against the sample's score; count the cells."""
    checked = 0
    by_key = {(s.id, s.epoch): s for s in run.samples}
    for row in rows:
        sample = by_key[(str(row["id"]), int(str(row["epoch"])))]
        score = sample.score
        assert score is not None
        expected: dict[str, object] = {
            "medsp_unscored": score.reason or "",
            "medsp_end": score.metadata.end,
            "medsp_turns": score.metadata.turns,
            "medsp_grader": score.metadata.grader,
            "medsp_specialty": sample.metadata.specialty,
            "medsp_variant": sample.metadata.variant,
        }
        for key in KEYS:
            value = score.value
            counts = value.counts(key) if value is not None else None
            expected[f"medsp_{key}"] = value.completion(key) if value is not None else None
            expected[f"medsp_{key}_completed"] = counts[0] if counts else None
            expected[f"medsp_{key}_total"] = counts[1] if counts else None
        for column, want in expected.items():
            got = row[column]
            got = None if got is None or got != got else got  # NA and NaN read as None
            assert got == want, (sample.id, column, got, want)
            checked += 1
    return checked


def test_samples_df_gives_one_column_per_score_key(fresh: EvalLog, cut_short: EvalLog) -> None:
    pytest.importorskip("pandas", reason="needs the analysis extra: pip install -e '.[analysis]'")
    from inspect_ai.analysis import SampleSummary, samples_df

    from inspect_medsp.analysis import MedspColumns, measured_columns
    from inspect_medsp.measures import CAPABILITIES

    paths = [str(LEGACY_LOG), str(fresh.location), str(cut_short.location)]
    df = samples_df(paths, columns=SampleSummary + MedspColumns)
    assert len(df) == 3
    # every other registered capability's value keys are columns too: the audit's as the
    # fresh run's audit stored them, empty in logs it never scored; no log was probed
    measured = [c.name for c in measured_columns(CAPABILITIES)]
    probed = [c for c in measured if c.startswith("medsp_grader_probe_")]
    audited = [c for c in measured if c.startswith("medsp_simulation_audit_")]
    assert len(probed) == 12 and len(audited) == 9
    assert df[probed].isna().all().all()
    assert fresh.samples is not None
    [row] = df[df["log"] == str(fresh.location)].to_dict("records")
    audit = ((fresh.samples[0].scores or {})["medsp_simulation_audit"].metadata or {})["figures"]
    assert isinstance(audit, dict)
    assert {c: row[c] for c in audited} == {
        f"medsp_simulation_audit_{k}": float(v) for k, v in audit.items()
    }
    others = df[df["log"] != str(fresh.location)]
    assert others[audited].isna().all().all()
    medsp = [c for c in df.columns if c.startswith("medsp_") and c not in measured]
    assert len(medsp) == len(KEYS) * 3 + 6
    checked = 0
    for path in paths:
        run = read_log(path)
        rows = df[df["log"] == path].to_dict("records")
        checked += medsp_columns_equal_scores(run, rows)
    assert checked == 3 * len(medsp)
    # the columns are typed: completion is a float column, the counts are numbers
    assert str(df["medsp_overall"].dtype).startswith("double")
    assert df.loc[df["medsp_unscored"] == "", "medsp_overall"].notna().all()
    assert list(df.loc[df["medsp_unscored"] != "", "medsp_unscored"]) == ["encounter_incomplete"]


def test_one_rule_names_the_grader() -> None:
    # while running: the recorded grader, else the judge (a bound grader role wins over both)
    assert default_grader("judge/x", {"grader": "played/y"}) == "played/y"
    assert default_grader("judge/x", {"patient": "p/z"}) == "judge/x"
    assert default_grader("judge/x", None) == "judge/x"
    # reading: what the scores name, else the role bound in the log, else the judge
    assert graders_named([None, "b/2", "a/1", "a/1"], "role/r", "judge/x") == ["a/1", "b/2"]
    assert graders_named([None], "role/r", "judge/x") == ["role/r"]
    assert graders_named([], None, "judge/x") == ["judge/x"]
