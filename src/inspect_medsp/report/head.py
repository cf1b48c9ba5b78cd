"""The report's head: its title, what was read, the warnings a reader must see before trusting
a number (worked out here, with the notes the leaderboard shows under its table) and the
inputs that could not be read."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_medsp.data import sets_named
from inspect_medsp.record import MedspRun, self_preference
from inspect_medsp.report.analysis import RunHealth
from inspect_medsp.report.groups import GroupSummary, by_set
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc

SCRIPTED_CLINICIAN = "medsp/scripted"
"""The package's scripted demo provider: a replay of hand-written turns, not a model."""


def warnings_and_notes(
    runs: Sequence[MedspRun],
    groups: Sequence[GroupSummary],
    health: Sequence[RunHealth],
    shared: Sequence[str],
    left_out: Sequence[str] = (),
) -> tuple[list[str], list[str]]:
    """The report's warnings (what makes a number not mean what it seems) and notes (how a
    number was made), in the order the report lists them."""
    flags = _set_flags(groups, left_out) + _run_flags(runs) + _comparable_flags(groups, left_out)
    health_flags, notes = _health_lines(groups, health)
    flags += health_flags
    for g in groups:
        if g.pool_warning:
            flags.append(g.pool_warning)
        for line in g.incomplete:
            flags.append(f"{g.label} is an incomplete run ({g.parts}): {line}.")
    return flags, notes + _group_notes(groups)


def _set_flags(groups: Sequence[GroupSummary], left_out: Sequence[str]) -> list[str]:
    """Mixed judges, case sets that differ, your own or draft cases, scenarios the groups of
    one set did not share, and groups with nothing scored."""
    flags: list[str] = []
    judges = sorted({g.judge for g in groups})
    if len(judges) > 1:
        flags.append(
            f"Mixed judges: these runs were scored by {len(judges)} different grader models "
            f"({', '.join(judges)}); scores from different judges are not directly comparable."
        )
    case_sets = by_set(groups)
    if len(case_sets) > 1:
        named = "; ".join(
            f"{members[0].case_set.label}: {', '.join(g.label for g in members)}"
            for members in case_sets.values()
        )
        flags.append(
            f"Different case sets ({named}): each set has its own rows, and no group is "
            "compared with a group of another set (a scenario id of one set is not the same "
            "case in another)."
        )
    for members in case_sets.values():
        case_set = members[0].case_set
        if case_set.custom:
            flags.append(
                f"These are your own cases ({case_set.label}), not the MedSP benchmark: the "
                "numbers of their rows say how the clinician did on these cases only."
            )
        if case_set.drafts:
            n = len(case_set.drafts)
            flags.append(
                f"{case_set.label}: {n} case{' is a draft' if n == 1 else 's are drafts'}, "
                f"not yet reviewed by a clinician: {', '.join(case_set.drafts)}; treat their "
                "results as provisional."
            )
    for members in case_sets.values():
        flags += _scenario_flags([g for g in members if g.label not in left_out])
    if left_out:
        flags.append(
            f"Nothing was scored in {len(left_out)} group{'' if len(left_out) == 1 else 's'} "
            f"({'; '.join(left_out)}): left out of the comparison on shared scenarios (see "
            "the health of the runs for why)."
        )
    return flags


def _run_flags(runs: Sequence[MedspRun]) -> list[str]:
    """Data or rubric revisions that differ, a grader of the clinician's own kind, and the
    scripted demo as the clinician."""
    flags: list[str] = []
    revisions = {
        (r.task_metadata.data_revision, r.task_metadata.rubric_revision)
        for r in runs
        if not r.case_set.custom
    }
    if len(revisions) > 1:
        shown = "; ".join(
            f"data {d or '-'}, rubrics {r or '-'}" for d, r in sorted(revisions, key=str)
        )
        flags.append(f"Different data or rubric revisions ({shown}): the same scenario may differ.")
    for run in runs:
        for grader in run.graders:
            if (risk := self_preference(run.model, grader)) is not None:
                flags.append(f"Run {run.name}: {risk}")
    scripted = [r for r in runs if r.model == SCRIPTED_CLINICIAN]
    if scripted:
        names = ", ".join(r.name for r in scripted)
        flags.append(
            f"The clinician of {names} is {scripted[0].model}, the package's scripted demo "
            "provider: it replays hand-written turns, so its score shows how the benchmark "
            "works, not what any model can do."
        )
    return flags


def _comparable_flags(groups: Sequence[GroupSummary], left_out: Sequence[str]) -> list[str]:
    """A group of the benchmark not comparable with the published numbers: other rubrics, or
    not every published scenario scored."""
    flags: list[str] = []
    for g in groups:
        if g.case_set.custom or g.label in left_out:
            continue
        if g.rubrics_differ:
            flags.append(
                f"{g.label} was graded against rubrics that are not the published ones "
                f"({'; '.join(g.rubrics_differ)}): not comparable with the published numbers."
            )
        elif not g.comparable:
            flags.append(
                f"{g.label} scored {g.coverage} published scenarios: not comparable with the "
                "published numbers, which cover every one."
            )
    return flags


def _health_lines(
    groups: Sequence[GroupSummary], health: Sequence[RunHealth]
) -> tuple[list[str], list[str]]:
    """Each run's health as warnings (unhealthy, or a person's incomplete run) and notes
    (encounters re-run and scored in another log of the group)."""
    flags: list[str] = []
    notes: list[str] = []
    people = {g.label for g in groups if g.human}
    for h in health:
        if h.flags and h.group in people:
            flags.append(
                f"Run {h.run} ({h.group}) is incomplete: {'; '.join(h.flags)}. Its score covers "
                "only the encounters the person finished and that were graded."
            )
        elif h.flags:
            flags.append(
                f"Run {h.run} ({h.group}) is unhealthy: {'; '.join(h.flags)}. "
                "Do not read its score as the model's."
            )
        if h.replaced:
            notes.append(
                f"Run {h.run} ({h.group}): {len(h.replaced)} encounter(s) not scored there "
                f"were re-run and scored in another log of the group: {', '.join(h.replaced)}."
            )
    return flags, notes


def _group_notes(groups: Sequence[GroupSummary]) -> list[str]:
    """How each group's numbers were made (a part of a run, logs pooled, counts read from the
    samples), where its logs disagree or overlap, and which log supplied which scenarios."""
    notes: list[str] = []
    for g in groups:
        if g.shard_set is not None:
            notes.append(
                f"{g.label}: one run in {g.parts} ({g.shard_set}); "
                + (
                    "its numbers are computed from the per-sample rubric counts with the "
                    "scorer's own macro, micro and intervals."
                    if g.source == "pooled"
                    else "its numbers are the part's own."
                )
            )
        elif g.source == "pooled":
            notes.append(
                f"{g.label}: {len(g.runs)} logs pooled; its numbers are computed from the "
                "per-sample rubric counts with the scorer's own macro, micro and intervals."
            )
        elif g.source == "samples":
            notes.append(
                f"{g.label}: the log has no metrics ({_why_no_metrics(g)}); its numbers are "
                "computed from the per-sample rubric counts with the scorer's own formulas."
            )
        if g.disagreement:
            notes.append(f"{g.label}: {g.disagreement}.")
        if g.duplicates:
            notes.append(
                f"{g.label}: {len(g.duplicates)} scenarios appear in more than one log; each "
                "takes all of its epochs from the newest log that scored it (epochs of "
                "different logs are never mixed)."
                + (
                    f" For {', '.join(g.kept)} the newer attempt was not scored (stopped, cut "
                    "short or errored), so the scored earlier one is kept."
                    if g.kept
                    else ""
                )
            )
        if len(g.supplied) > 1 or (g.source == "pooled" and g.supplied):
            parts = "; ".join(f"{name} supplied {_scenarios(n)}" for name, n in g.supplied.items())
            notes.append(f"{g.label}: {parts}.")
    return notes


def _scenario_flags(compared: Sequence[GroupSummary]) -> list[str]:
    """Whether the groups of one case set ran and scored the same scenarios."""
    shared = set.intersection(*(g.scored_ids for g in compared)) if compared else set()
    sets = {frozenset(g.attempted_ids) for g in compared}
    scored_sets = {frozenset(g.scored_ids) for g in compared}
    if len(sets) > 1:
        everyone = frozenset.intersection(*sets)
        odd = "; ".join(
            f"{g.label} ran {_scenarios(len(g.attempted_ids))}, {extra} of them not run by "
            "every group"
            for g in compared
            if (extra := len(set(g.attempted_ids) - everyone))
        )
        return [
            f"Different scenario sets: the groups did not all run the same scenarios ({odd}; "
            f"{len(everyone)} were run by every group). The comparison uses only the "
            f"{_scenarios(len(shared))} every run scored."
        ]
    if len(scored_sets) > 1:
        return [
            "The runs attempted the same scenarios but some failed to score; the comparison "
            f"uses only the {_scenarios(len(shared))} every run scored."
        ]
    return []


def _scenarios(n: int) -> str:
    return f"{n} scenario{'' if n == 1 else 's'}"


def _why_no_metrics(group: GroupSummary) -> str:
    """Why a single log holds no metrics, from what it holds."""
    failed = [status for status in group.statuses if status != "success"]
    if failed:
        return f"its status is {failed[0]}"
    if not group.scored_ids:
        return "no sample was scored"
    return "its status is success, but it has none"


def head(page: Page) -> list[str]:
    """The title, what was read, the warnings and the inputs that could not be read."""
    analysis = page.analysis
    sets = sets_named([g.case_set for g in analysis.groups])
    title = f"Competency-gap report: {sets}" if sets else "MedSP competency-gap report"
    out: list[str] = [f"# {esc(title)}", ""]
    n_logs = len(analysis.runs)
    out.append(
        f"{n_logs} MedSP log{'s' if n_logs != 1 else ''} in {len(analysis.groups)} "
        f"group{'s' if len(analysis.groups) != 1 else ''} (clinician model, plus strategy, "
        "protocol, judge and case set where the runs differ in them)."
    )
    out.append("")
    if analysis.flags:
        out += ["## Warnings", ""]
        out += [f"- ⚠ {esc(f)}" for f in analysis.flags]
        out.append("")
    if analysis.problems:
        out += ["## Inputs that could not be reported", ""]
        out += [f"- {esc(p.line())}" for p in analysis.problems]
        out.append("")
    return out


HEAD = Section(name="head", text=head)
