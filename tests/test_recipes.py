"""The recipes of docs/architecture.md, followed step by step.

"Add a figure to the report": a section defined here, registered beside the shipped ones,
shows in report.md with its caption, is named in the Files list and writes its figure, and
the core names nothing of it.

"Add a scorer over the record": a scorer defined here reads the stored Trajectory through
``record``, stores its typed result, runs with ``inspect_ai.score`` on a scripted demo log,
and a section defined here reads that result back through ``read_log`` (nothing of
``record``, the report's core, the tasks or the scripted provider learns of it) and shows it
in report.md, with the samples it could not score and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from inspect_ai import eval, score
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from inspect_medsp import medsp_demo
from inspect_medsp.full_report import SECTIONS, write_report
from inspect_medsp.measure import unscored_score
from inspect_medsp.record import read_log
from inspect_medsp.record.result import ScorerResult
from inspect_medsp.record.trajectory import Trajectory
from inspect_medsp.report import Page, ReportFile, Section
from inspect_medsp.report.findings import Analysis

SCRIPTED = "medsp/scripted"
CHART = "turns.png"


# step 1: the figure, drawn with matplotlib's object API and saved through charts.save
def turns_chart(analysis: Analysis, path: Path) -> Path:
    from matplotlib.figure import Figure

    from inspect_medsp.report.charts import save, styles

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


# The recipe "Add a scorer over the record".


# step 1: the stored result type: what the scorer keeps in its score's metadata, and its name
class ActionTally(ScorerResult):
    """The clinician's non-verbal actions over the recorded encounter."""

    scorer: ClassVar[str] = "action_tally"

    turns: int
    """Turns the encounter played."""
    actions: int
    """Actions the clinician ordered or did, over every turn."""
    silent_turns: int
    """Turns the clinician said nothing aloud."""


# step 2: the scorer: reads the Trajectory from the sample store, returns its result (or
# Inspect's unscored score with why, never a made-up zero)
@scorer(metrics=[mean()], name=ActionTally.scorer)
def action_tally() -> Scorer:
    async def tally(state: TaskState, target: Target) -> Score:
        traj = Trajectory(store=state.store)
        if not traj.turns:
            why = "the encounter has no recorded turns"
            return unscored_score("no_turns", why, {"turns": 0}, "tallied")
        result = ActionTally(
            turns=traj.turn_count,
            actions=sum(len(t.clinician.actions) for t in traj.turns),
            silent_turns=sum(not t.clinician.speak.strip() for t in traj.turns),
        )
        return Score(value=result.actions / result.turns, metadata=result.model_dump())

    return tally


# step 3: the section: reads each sample's typed result (and why a sample has none)
def tally_text(page: Page) -> list[str]:
    out = ["## Clinician actions", ""]
    for run in page.analysis.runs:
        for sample in run.samples:
            found = sample.result(ActionTally)
            if found is not None:
                out.append(
                    f"- {sample.id}: {found.actions} actions over {found.turns} turns "
                    f"({found.silent_turns} silent)"
                )
            elif (why := sample.result_unscored(ActionTally)) is not None:
                out.append(f"- {sample.id}: not tallied ({why})")
    return [*out, ""]


TALLY = Section(
    name="action_tally",
    shows=lambda analysis: any(
        s.result(ActionTally) is not None or s.result_unscored(ActionTally) is not None
        for run in analysis.runs
        for s in run.samples
    ),
    text=tally_text,
)

# step 4: register it, in full_report.SECTIONS (the scorer itself in _registry.py, for
# `inspect score LOG --scorer inspect_medsp/action_tally`)
WITH_TALLY = (*SECTIONS[:HEALTH], TALLY, *SECTIONS[HEALTH:])


def _scored(log_dir: Path, out: Path, emptied: bool = False) -> Path:
    """The demo log scored again by the tally (appended beside the rubric's score), written
    into ``out`` under its own name; ``emptied``: its sample's stored encounter dropped."""
    [info] = list_eval_logs(str(log_dir))
    log = read_eval_log(info.name)
    if emptied:
        assert log.samples
        for sample in log.samples:
            sample.store = {}
    scored = score(log, action_tally(), action="append", display="none")
    out.mkdir()
    write_eval_log(scored, str(out / Path(info.name).name))
    return out


def test_a_plug_in_scorer_stores_its_result_and_its_section_shows_it(
    log_dir: Path, tmp_path: Path
) -> None:
    scored = _scored(log_dir, tmp_path / "scored")
    [sample] = read_log(next(scored.iterdir())).samples
    # the tally, read back typed from the log without record knowing of it
    traj = sample.trajectory
    assert traj is not None and traj.turns
    expected = ActionTally(
        turns=len(traj.turns),
        actions=sum(len(t.clinician.actions) for t in traj.turns),
        silent_turns=sum(not t.clinician.speak.strip() for t in traj.turns),
    )
    assert expected.actions > 0
    assert sample.result(ActionTally) == expected
    assert sample.result_unscored(ActionTally) is None
    # the rubric's score is untouched
    assert sample.scored and sample.values["overall"] > 0
    result = write_report([scored], tmp_path / "with", sections=WITH_TALLY)
    assert result.analysis is not None
    text = (tmp_path / "with" / "report.md").read_text(encoding="utf-8")
    section = text.split("## Clinician actions\n")[1].split("\n## ")[0]
    [line] = [line for line in section.splitlines() if line.startswith("- ")]
    assert line == (
        f"- {sample.id}: {expected.actions} actions over {expected.turns} turns "
        f"({expected.silent_turns} silent)"
    )
    assert text.index("## Clinician actions") < text.index("## Health of the runs")
    # nothing else of the report moved: the shipped report of the scored log is the same
    # as that of the log before, and is this one without the section
    write_report([scored], tmp_path / "plain")
    write_report([log_dir], tmp_path / "before")
    plain = (tmp_path / "plain" / "report.md").read_text(encoding="utf-8")
    assert plain == (tmp_path / "before" / "report.md").read_text(encoding="utf-8")
    assert text.replace(f"\n## Clinician actions\n{section}", "") == plain
    # a log the tally never scored shows no section
    write_report([log_dir], tmp_path / "never", sections=WITH_TALLY)
    assert (tmp_path / "never" / "report.md").read_text(encoding="utf-8") == plain


def test_a_sample_the_plug_in_scorer_could_not_score_is_named_with_why(
    log_dir: Path, tmp_path: Path
) -> None:
    scored = _scored(log_dir, tmp_path / "scored", emptied=True)
    [sample] = read_log(next(scored.iterdir())).samples
    assert sample.result(ActionTally) is None
    why = "no_turns: the encounter has no recorded turns"
    assert sample.result_unscored(ActionTally) == why
    write_report([scored], tmp_path / "out", sections=WITH_TALLY)
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert f"- {sample.id}: not tallied ({why})" in text
