"""The recipes of docs/architecture.md, followed step by step.

"Add a figure to the report": a section defined here, registered beside the shipped ones,
shows in report.md with its caption, is named in the Files list and writes its figure, and
the core names nothing of it.

"Add a measurement": a model-free scorer in three files of one slice
(``tests/support/orders/``) and one registry line, walked through the real commands in a
process whose registry holds it (``tests/support/registered.py``): ``inspect eval
inspect_medsp/medsp_demo -T orders=true`` runs it under the switch its capability declares
and says its line at the end of the run; the eval's viewer configuration labels its columns;
``inspect score --scorer clinician_orders --action append --overwrite`` twice numbers the
second score's keys; ``medsp-report`` shows its section; ``MedspColumns`` has its columns; a
bad switch value is one line; a log of another task is refused in one line. Nothing of
``record``, ``params.py``, the report's core, the tasks, the hooks or the viewer names it.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.viewer import ScoreColorScale, TaskSamplesView, ViewerConfig

from inspect_medsp import measures, medsp_demo
from inspect_medsp.analysis import medsp_columns
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.full_report import SECTIONS, write_report
from inspect_medsp.record import read_log
from inspect_medsp.report import Analysis, Page, ReportFile, Section
from tests.support.cli import inspect_in
from tests.support.orders import CLINICIAN_ORDERS, ClinicianOrders, clinician_orders
from tests.support.registered import run_registered

SCRIPTED = "medsp/scripted"
CHART = "turns.png"


# step 1: the figure, drawn with matplotlib's object API and saved through report.save
def turns_chart(analysis: Analysis, path: Path) -> Path:
    from matplotlib.figure import Figure

    from inspect_medsp.report import save, styles

    look = styles(analysis.groups)
    fig = Figure(figsize=(6.0, 3.0), layout="constrained")
    ax = fig.add_subplot()
    for i, group in enumerate(analysis.groups):
        turns = [s.turns for s in group.samples if s.turns is not None]
        ax.barh(i, sum(turns) / len(turns) if turns else 0.0, color=look[group.label].colour)
    ax.set_yticks(range(len(analysis.groups)), [g.label for g in analysis.groups])
    ax.set_xlabel("mean turns per encounter")
    return save(fig, path)


# step 2: the section: whether it shows, its text with the caption, its files
def turns_text(page: Page) -> list[str]:
    out = ["## Turns per encounter", ""]
    if page.charts:
        out += [f"![Mean turns per encounter per clinician]({CHART})", ""]
    for group in page.analysis.groups:
        turns = [s.turns for s in group.samples if s.turns is not None]
        out.append(f"- {group.label}: {sum(turns)} turns over {len(turns)} encounters")
    return [*out, ""]


TURNS = Section(
    name="turns",
    shows=lambda analysis: any(s.turns for g in analysis.groups for s in g.samples),
    text=turns_text,
    files=lambda analysis: [
        ReportFile(name=CHART, kind="chart", write=lambda path: turns_chart(analysis, path))
    ],
)

# step 3: register it, in full_report.SECTIONS, where report.md should show it
HEALTH = next(i for i, s in enumerate(SECTIONS) if s.name == "health")
WITH_TURNS = (*SECTIONS[:HEALTH], TURNS, *SECTIONS[HEALTH:])


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    [log] = eval(
        medsp_demo(scenarios="demo_bad_news/*", judge=SCRIPTED),
        model=SCRIPTED,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return folder


def test_a_plug_in_figure_shows_in_the_report_and_writes_its_file(
    log_dir: Path, tmp_path: Path
) -> None:
    result = write_report([log_dir], tmp_path / "with", sections=WITH_TURNS)
    plain = write_report([log_dir], tmp_path / "plain")
    assert result.analysis is not None and plain.analysis is not None
    chart = tmp_path / "with" / CHART
    assert str(chart) in result.files and chart.read_bytes().startswith(b"\x89PNG")
    assert len(result.files) == len(plain.files) + 1
    text = (tmp_path / "with" / "report.md").read_text(encoding="utf-8")
    section = text.split("## Turns per encounter\n")[1].split("\n## ")[0]
    assert f"![Mean turns per encounter per clinician]({CHART})" in section
    [line] = [line for line in section.splitlines() if line.startswith("- ")]
    assert line.startswith(f"- {SCRIPTED}: ") and "over 1 encounters" in line
    # placed where it was registered, named in the Files list after the core's charts
    assert text.index("## Turns per encounter") < text.index("## Health of the runs")
    files = text.split("## Files\n")[1].split("\nRuns read:")[0].splitlines()
    charts = [f for f in files if ".png" in f]
    assert charts[-1] == f"- [{CHART}]({CHART})"
    # and nothing else of the report moved
    without = text.replace(f"\n## Turns per encounter\n{section}", "").replace(
        f"- [{CHART}]({CHART})\n", ""
    )
    assert without == (tmp_path / "plain" / "report.md").read_text(encoding="utf-8")


def test_a_section_with_nothing_to_show_adds_no_text(log_dir: Path, tmp_path: Path) -> None:
    silent = TURNS.model_copy(update={"shows": lambda analysis: False})
    sections = (*SECTIONS[:HEALTH], silent, *SECTIONS[HEALTH:])
    write_report([log_dir], tmp_path / "silent", sections=sections)
    text = (tmp_path / "silent" / "report.md").read_text(encoding="utf-8")
    assert "## Turns per encounter" not in text and (tmp_path / "silent" / CHART).is_file()


# The recipe "Add a measurement": tests/support/orders/ is the slice (three files); the one
# registry line is the entry tests/support/registered.py makes in measures.CAPABILITIES in the
# process that runs the real command (inspect eval, inspect score, medsp-report).

SCORER_SPEC = ClinicianOrders.scorer
"""Its scorer as ``inspect score --scorer`` finds it by name (a slice of ``src/`` is
``inspect_medsp/<name>``; the test's scorer is registered under its bare name)."""
SWITCH = "orders"
OTHER_TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match


@task
def arithmetic():
    return Task(dataset=[Sample(input="1+1?", target="2")], scorer=match())
"""


def switched(value: object) -> dict[str, Any]:
    """The switch given ``value``, as ``-T`` hands it to the task (in its ``**kwargs``)."""
    return {SWITCH: value}


@pytest.fixture
def registered() -> Iterator[None]:
    """The registry entry, made in this process for as long as one test needs it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(measures, "CAPABILITIES", (*measures.CAPABILITIES, CLINICIAN_ORDERS))
        yield


@dataclass(frozen=True)
class Walked:
    """The recipe's measurement through the real commands, in a folder of its own."""

    log: EvalLog
    said: str
    """What ``inspect eval`` said (stdout and stderr)."""
    report: str
    """``medsp-report``'s report.md."""


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Walked:
    """``inspect eval inspect_medsp/medsp_demo -T orders=true`` on the scripted demo, then
    ``inspect score --scorer clinician_orders --action append --overwrite`` twice, then
    ``medsp-report``: each the real command, in a process whose registry holds the
    measurement (``tests/support/registered.py``)."""
    folder = tmp_path_factory.mktemp("walked")
    ran = run_registered(
        folder, "inspect", "eval", "inspect_medsp/medsp_demo", "-T", f"{SWITCH}=true",
        "-T", "scenarios=demo_bad_news/*", "-T", f"judge={SCRIPTED}", "--model", SCRIPTED,
        "--display", "plain",
    )  # fmt: skip
    said = ran.stdout + ran.stderr
    assert ran.returncode == 0, said
    [path] = list((folder / "logs").glob("*.eval"))
    for _ in range(2):
        done = run_registered(
            folder, "inspect", "score", str(path), "--scorer", SCORER_SPEC,
            "--action", "append", "--overwrite", "--display", "none",
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    reported = run_registered(folder, "medsp-report", str(path), "--out", str(folder / "out"))
    assert reported.returncode == 0, reported.stdout + reported.stderr
    report = (folder / "out" / "report.md").read_text(encoding="utf-8")
    return Walked(read_eval_log(str(path)), said, report)


def test_a_measurement_runs_in_the_eval_under_its_own_switch(walked: Walked) -> None:
    log = walked.log
    assert log.status == "success", log.error
    # in the eval after the shipped ones, then the two counts inspect score appended
    assert [s.name for s in log.eval.scorers or []] == [
        "medsp_rubric", "medsp_workup", *[ClinicianOrders.scorer] * 3
    ]  # fmt: skip
    # the switch is a -T value of the task as given, recorded in the log
    assert (log.eval.task_args_passed or {})[SWITCH] is True
    # and its line is said at the end of the run (the task registered it with the hook)
    assert log.samples is not None
    [sample] = log.samples
    unsupported = (sample.scores or {})[ClinicianOrders.scorer].metadata or {}
    said = f"MedSP: {unsupported['unsupported']} order(s) the environment could not carry out"
    assert said in " ".join(walked.said.split()), walked.said


def test_a_switch_is_the_registrys_checked_by_its_declaration(registered: None) -> None:
    """Its switch is taken by every task while it is registered, and a bad value is one line
    naming it, the value and what it takes; unregistered, the name is no parameter."""
    with pytest.raises(MedSPParameterError) as error:
        medsp_demo(judge=SCRIPTED, **switched("maybe"))
    assert str(error.value) == (
        f"task parameter {SWITCH}='maybe' is not accepted: {SWITCH} takes true or false"
    )
    doc = inspect.getdoc(medsp_demo) or ""
    assert "    audit: " in doc  # the docstring's switches are the registry's at import


def test_an_unregistered_switch_is_no_parameter() -> None:
    with pytest.raises(TypeError, match=SWITCH):
        medsp_demo(judge=SCRIPTED, **switched(True))


def test_a_measurement_gets_labelled_columns_and_numbered_keys(walked: Walked) -> None:
    counted = walked.log
    viewer = counted.eval.viewer
    assert isinstance(viewer, ViewerConfig)
    view = viewer.task_samples_view
    assert isinstance(view, TaskSamplesView)
    shown = {c.id: c.visible for c in view.columns or []}
    name = ClinicianOrders.scorer
    # its headline shows after the shipped ones, its re-counts' are listed
    assert shown[f"score__{name}__unsupported"] is True
    assert f"score__{name}__orders" not in shown
    assert shown[f"score__{name}1__unsupported_1"] is False
    labels = view.score_labels or {}
    # headed by the value key the sample's header shows, then what it counts
    assert labels["unsupported"] == "unsupported (Orders not carried out)"
    assert labels["unsupported_1"] == "unsupported_1 (Re-count 1: Orders not carried out)"
    scale = (view.score_color_scales or {})["unsupported"]
    assert isinstance(scale, ScoreColorScale) and scale.palette == "good-low"
    # the second append is <name>1, with numbered keys holding the same counts
    assert counted.samples is not None
    [sample] = counted.samples
    scores = sample.scores or {}
    first, second = scores[name].value, scores[f"{name}1"].value
    assert isinstance(first, dict) and isinstance(second, dict)
    assert set(first) == {"unsupported"}  # the headline; every figure is in the metadata
    assert second == {f"{k}_1": v for k, v in first.items()}
    figures = (scores[f"{name}1"].metadata or {})["figures"]
    assert figures == {f"{k}_1": v for k, v in (scores[name].metadata or {})["figures"].items()}
    assert set(figures) == {"orders_1", "unsupported_1"}
    # and every key of every score is a column the configuration lists
    for scorer, score in scores.items():
        assert isinstance(score.value, dict)
        assert all(f"score__{scorer}__{key}" in shown for key in score.value)


def test_a_measurement_shows_in_the_report_and_the_columns(
    registered: None, walked: Walked
) -> None:
    counted = walked.log
    [sample] = read_log(str(counted.location)).samples
    traj = sample.trajectory
    assert traj is not None and traj.turns
    expected = ClinicianOrders(
        orders=len(traj.action_log),
        unsupported=sum(a.status == "unsupported" for a in traj.action_log),
        turns=traj.turn_count,
    )
    assert expected.orders > 0
    assert sample.result(ClinicianOrders) == expected
    assert sample.scored and sample.values["overall"] > 0  # the rubric's score is untouched
    # medsp-report's sections are the registry's: its section follows the shipped ones
    section = walked.report.split("## Clinician orders\n")[1]
    assert (
        f"- {sample.id}: {expected.orders} orders, {expected.unsupported} the environment "
        "could not carry out"
    ) in section
    # MedspColumns made now has its columns, read from the newest count
    pytest.importorskip("pandas", reason="needs the analysis extra")
    from inspect_ai.analysis import SampleSummary, samples_df

    df = samples_df(str(counted.location), columns=SampleSummary + medsp_columns())
    [row] = df.to_dict("records")
    assert row["medsp_clinician_orders_orders"] == expected.orders
    assert row["medsp_clinician_orders_unsupported"] == expected.unsupported


def test_a_scorer_with_no_parameters_says_so_for_a_typo() -> None:
    """``KIT.check_none``: a ``-S`` typo is one whole line, ending in what the scorer takes."""
    with pytest.raises(MedSPDataError) as error:
        clinician_orders(classfy=True)
    assert str(error.value) == (
        "scorer clinician_orders: -S classfy is not a parameter of clinician_orders; it takes "
        "no parameters"
    )


def test_a_registered_capability_needs_no_import_in_the_registry_module() -> None:
    """Step 3 is one entry in ``measures.CAPABILITIES``: importing ``tasks.py`` (as Inspect's
    entry point, ``_registry.py``, does) registers every capability's scorer by name, and the
    contamination probe's task, before ``_registry.py`` names any of them."""
    code = (
        "import sys\n"
        "import inspect_medsp.tasks\n"
        "from inspect_ai._util.registry import registry_lookup\n"
        "from inspect_medsp.measures import CAPABILITIES\n"
        "assert 'inspect_medsp._registry' not in sys.modules\n"
        "missing = [c.name for c in CAPABILITIES\n"
        "           if registry_lookup('scorer', f'inspect_medsp/{c.name}') is None]\n"
        "if registry_lookup('task', 'inspect_medsp/medsp_contamination') is None:\n"
        "    missing.append('medsp_contamination')\n"
        "print(missing)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", f"not registered by the task's imports: {run.stdout}"


def test_a_measurement_refuses_another_tasks_log_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "arithmetic.py").write_text(OTHER_TASK)
    made = inspect_in(tmp_path, "eval", "arithmetic.py", "--model", "mockllm/model")
    assert made.returncode == 0, made.stderr
    [other] = list((tmp_path / "logs").glob("*.eval"))
    result = run_registered(tmp_path, "inspect", "score", str(other), "--scorer", SCORER_SPEC)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in output, output
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 3, output  # one line, wrapped at most by the console
    message = " ".join(lines)
    assert "is a log of task arithmetic, not of a MedSP task" in message, message
    assert ClinicianOrders.scorer in message
