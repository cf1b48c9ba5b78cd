"""``medsp-report``'s simulator-audit section and ``medsp-report probes``."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import EvalLog, write_eval_log
from inspect_ai.scorer import Score

from inspect_medsp import medsp_demo
from inspect_medsp.audit import medsp_simulation_audit
from inspect_medsp.audit.audit_report import AuditedEncounter, RunAudit, _paired
from inspect_medsp.audit.result import Finding, SimulationAudit
from inspect_medsp.cli import main
from inspect_medsp.probes import medsp_grader_probe
from inspect_medsp.record import latest

SCRIPTED = "medsp/scripted"
ANAPHYLAXIS = "demo_anaphylaxis/scenario1"
AUDIT = "medsp_simulation_audit"


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    folder = tmp_path_factory.mktemp("demo")
    [log] = eval(medsp_demo(judge=SCRIPTED), model=SCRIPTED, log_dir=str(folder), display="none")
    assert log.status == "success", log.error
    return log


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_report_lists_audit_findings_and_flagged_quotes(
    demo_log: EvalLog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the demo script's own planted slip: the anaphylaxis patient volunteers his medicine
    log = demo_log.model_copy(deep=True)
    audited = score(log, medsp_simulation_audit(judge=SCRIPTED), action="append")
    write_eval_log(audited, str(tmp_path / "logs" / "audited.eval"))
    assert main([str(tmp_path / "logs"), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    section = report[report.index("## Can the simulation be trusted?") :]
    assert "| audited.eval | 3 | 0 | 1 (33.3%) | 0 | 2 |" in section
    row = next(line for line in section.splitlines() if line.startswith("| audited.eval | 3"))
    assert row.endswith("| 0 | 0 | 0 |")  # no corrections, unsupported actions, degraded replies
    assert "turn 1, patient `volunteered` (invalidating): “by the way, I take lisinopril" in section
    found = rows(tmp_path / "report" / "simulation_findings.csv")
    assert found == [
        {
            "run": "audited.eval",
            "role": "patient",
            "kind": "volunteered",
            "severity": "invalidating",
            "findings": "1",
        }
    ]
    [flagged] = rows(tmp_path / "report" / "simulation_flagged.csv")
    assert (flagged["sample"], flagged["turn"], flagged["verdict"]) == (
        ANAPHYLAXIS,
        "1",
        "invalidating",
    )


def _encounter(case: str, completion: float, verdict: str) -> AuditedEncounter:
    findings = (
        []
        if verdict == "faithful"
        else [
            Finding(turn=1, role="patient", kind="volunteered", quote="q", severity=verdict)  # type: ignore[arg-type]
        ]
    )
    return AuditedEncounter(
        id=f"{case}/scenario1",
        epoch=1,
        case=case,
        completion=completion,
        audit=SimulationAudit(verdict=verdict, findings=findings),  # type: ignore[arg-type]
    )


def test_macro_with_and_without_invalidating_is_a_paired_difference() -> None:
    audit = RunAudit(
        run="r",
        encounters=[
            _encounter("a", 1.0, "invalidating"),
            _encounter("b", 0.5, "minor"),
            _encounter("c", 0.5, "faithful"),
            _encounter("d", 0.2, "faithful"),
        ],
    )
    _paired(audit)
    assert audit.macro_all == pytest.approx(2.2 / 4)
    assert audit.macro_without == pytest.approx(1.2 / 3)
    assert audit.difference == pytest.approx(2.2 / 4 - 1.2 / 3)
    assert audit.difference_ci is not None
    low, high = audit.difference_ci
    assert audit.difference is not None
    assert low <= audit.difference <= high and low >= -0.2 and high <= 0.6


def test_probes_command_writes_table_chart_and_csv(
    demo_log: EvalLog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    probed = score(demo_log, medsp_grader_probe(probes="padding,removal"), action="append")
    write_eval_log(probed, str(tmp_path / "probed.eval"))
    out = tmp_path / "probes"
    assert main(["probes", str(tmp_path / "probed.eval"), "--out", str(out)]) == 0
    assert "3 encounters probed" in capsys.readouterr().out
    table = {(r["probe"], r["group"]): r for r in rows(out / "probes.csv")}
    removal = table[("removal", "overall")]
    assert (removal["down"], removal["could_down"], removal["up"]) == ("8", "36", "0")
    assert (table[("removal", "PC+MK+SBP")]["down"], table[("removal", "ICS+PROF")]["down"]) == (
        "7",
        "1",
    )
    assert table[("padding", "overall")]["down"] == "0"
    assert ("recital", "overall") not in table
    worst = rows(out / "probes_worst_items.csv")
    assert {(w["scenario"], w["item"]) for w in worst} == {
        (ANAPHYLAXIS, "1"),
        (ANAPHYLAXIS, "2"),
        (ANAPHYLAXIS, "3"),
        ("demo_bad_news/scenario1", "10"),
        ("demo_peds_asthma/scenario1", "1"),
        ("demo_peds_asthma/scenario1", "2"),
        ("demo_peds_asthma/scenario1", "3"),
        ("demo_peds_asthma/scenario1", "4"),
    }
    md = (out / "probes.md").read_text(encoding="utf-8")
    assert "| **overall** | 3 | 0/15 | 0.0%" in md and "8/36 | 22.2%" in md
    assert (out / "probes.png").stat().st_size > 10_000


def test_probes_command_on_an_unprobed_log_says_how(
    demo_log: EvalLog, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo_log.location
    assert main(["probes", demo_log.location, "--out", str(tmp_path / "p")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "medsp-report: no medsp_grader_probe scores in these logs: score them first with "
        "inspect score LOG --scorer inspect_medsp/medsp_grader_probe --action append --overwrite"
    ]


def test_a_re_audit_appended_to_an_audited_log_is_the_one_read() -> None:
    old, new, newer = (Score(value={}, answer=a) for a in ("old", "new", "newer"))
    # Inspect names a re-score <scorer>1, <scorer>2 (the "-N" form is still read)
    scores = {"medsp_rubric": Score(value=1.0), AUDIT: old, f"{AUDIT}1": new, f"{AUDIT}2": newer}
    assert latest(scores, AUDIT) is newer
    assert latest({AUDIT: old, f"{AUDIT}-1": new}, AUDIT) is new
    assert latest({AUDIT: old}, AUDIT) is old
    assert latest({"medsp_rubric": old}, AUDIT) is None
