"""The bill of each run: tokens (and cost, when Inspect recorded it) per role, next to what
``medsp-estimate`` predicts for the same scenarios."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from inspect_ai.model import ModelUsage
from inspect_ai.scorer import Score
from pydantic import BaseModel, Field

from inspect_medsp.record import (
    CLINICIAN,
    MedspRun,
    MedspSample,
    ParsedLog,
    StrategySettings,
    TaskMetadata,
    parse_log,
    read_log,
    sample_of,
    task_metadata,
)
from inspect_medsp.report import Analysis, Section
from inspect_medsp.workload import Assumptions, RoleEstimate, estimate_records

NAME = "bill"
"""The bill section's name (and its digest's, in ``MedspRun.digests``)."""
ROW_ORDER = ("clinician", "patient", "environment", "grader")
AUDITOR = "auditor"


class RoleBill(BaseModel):
    """One role's actual spend and the estimates for it."""

    actual: RoleEstimate = Field(default_factory=RoleEstimate)
    cost: float | None = None
    at_observed_turns: RoleEstimate = Field(default_factory=RoleEstimate)
    """The estimate given each encounter's actual number of turns."""
    upfront: RoleEstimate = Field(default_factory=RoleEstimate)
    """The estimate before the run: every encounter to ``max_turns``."""


class RunBill(BaseModel):
    """The bill of one log."""

    run: str
    max_turns: int
    roles: dict[str, RoleBill]


def _usage(usage: ModelUsage) -> RoleEstimate:
    """Inspect's usage as the estimate counts it: every prompt token (Inspect's
    ``input_tokens`` leaves out the cache reads and writes), of them the cache reads, and the
    cache writes when the provider reported any."""
    read = usage.input_tokens_cache_read or 0
    write = usage.input_tokens_cache_write
    return RoleEstimate(
        input_tokens=usage.input_tokens + read + (write or 0),
        output_tokens=usage.output_tokens,
        cached_tokens=read,
        cache_write_tokens=write,
    )


def actual_usage(sample: MedspSample) -> dict[str, tuple[RoleEstimate, float | None]]:
    """Calls, tokens and recorded cost per role; the clinician is what has no role."""
    out: dict[str, tuple[RoleEstimate, float | None]] = {}
    for role, usage in sample.role_usage.items():
        if role != CLINICIAN:  # the clinician is what the other roles leave (below)
            out[role] = (_usage(usage), usage.total_cost)
    total = RoleEstimate()
    total_cost: float | None = 0.0
    for usage in sample.model_usage.values():
        total = total.plus(_usage(usage))
        total_cost = (
            None
            if usage.total_cost is None or total_cost is None
            else (total_cost + usage.total_cost)
        )
    roles_cost: float | None = 0.0
    for _, c in out.values():
        roles_cost = None if c is None or roles_cost is None else roles_cost + c
    roles = RoleEstimate()
    for part, _ in out.values():
        roles = roles.plus(part)
    writes = (
        None
        if total.cache_write_tokens is None
        else max(0, total.cache_write_tokens - (roles.cache_write_tokens or 0))
    )
    out[CLINICIAN] = (
        RoleEstimate(
            input_tokens=max(0, total.input_tokens - roles.input_tokens),
            output_tokens=max(0, total.output_tokens - roles.output_tokens),
            cached_tokens=max(0, total.cached_tokens - roles.cached_tokens),
            cache_write_tokens=writes,
        ),
        None if total_cost is None or roles_cost is None else max(0.0, total_cost - roles_cost),
    )
    for role, spend in sample.rescored_usage.items():
        # re-scorings after the eval: Inspect left them out of the sample's usage
        spent, cost = out.get(role, (RoleEstimate(), 0.0))
        extra = RoleEstimate(input_tokens=spend.input_tokens, output_tokens=spend.output_tokens)
        out[role] = (spent.plus(extra), None if spend.total_tokens else cost)
    calls = sample.calls or {}
    return {
        role: (usage.model_copy(update={"calls": calls.get(role, 0)}), c)
        for role, (usage, c) in out.items()
    }


def run_bill(run: MedspRun, name: str) -> RunBill | None:
    """The bill of a MedSP run read with its model events (``None`` when it has no samples)."""
    if not run.samples:
        return None
    return _bill(run.task_metadata, run.samples, name)


def _bill(metadata: TaskMetadata, samples: Iterable[MedspSample], name: str) -> RunBill | None:
    """The bill of a run's samples, in the run's order (``None`` without a turn limit)."""
    max_turns = metadata.max_turns
    if max_turns is None:
        return None
    settings = StrategySettings.model_validate(metadata.strategy)
    roles: dict[str, RoleBill] = {}
    warm = False  # the roles' instructions are in the cache after the first scenario
    for sample in samples:
        record = sample.metadata.record
        if record is None:
            continue
        turns = sample.recorded_turns
        audited = AUDITOR in sample.role_usage
        observed = estimate_records(
            [record], max_turns, settings, Assumptions(turns=turns), audit=audited, warm=warm
        )
        upfront = estimate_records([record], max_turns, settings, audit=audited, warm=warm)
        warm = True
        for role, (usage, cost) in actual_usage(sample).items():
            bill = roles.setdefault(role, RoleBill(cost=0.0))
            bill.actual = bill.actual.plus(usage)
            bill.cost = None if cost is None or bill.cost is None else bill.cost + cost
        for role in (*ROW_ORDER, *([AUDITOR] if audited else [])):
            bill = roles.setdefault(role, RoleBill(cost=0.0))
            parts = [role, "strategy"] if role == CLINICIAN else [role]
            for part in parts:
                if turns:
                    bill.at_observed_turns = bill.at_observed_turns.plus(observed.roles[part])
                bill.upfront = bill.upfront.plus(upfront.roles[part])
    return RunBill(run=name, max_turns=max_turns, roles=roles)


def bill_digest(parsed: ParsedLog) -> RunBill | None:
    """The bill of a parsed log (the report's read, with its model calls per role and its
    scenarios' records; labelled ``""``): each sample typed as far as the bill reads it, one
    at a time (a record is dropped when its sample is billed). What the bill section has
    made while the report reads its logs (``report.collect.Digest``)."""
    metadata = task_metadata(parsed.header)
    if metadata is None or parsed.samples is None:
        raise ValueError(f"{parsed.path}: not a MedSP log read from its zip")
    if not parsed.samples:
        return None
    return _bill(metadata, (_billed(d) for d in parsed.samples), "")


def _billed(data: Mapping[str, Any]) -> MedspSample:
    """What the bill reads of a sample's JSON (see :func:`run_bill`): its record, usage, model
    calls per role, recorded turns and the usage of scorings made after the eval."""
    rescored = {
        name: Score.model_validate(score)
        for name, score in (data.get("scores") or {}).items()
        if (score.get("metadata") or {}).get("rescored") is True
    }
    return sample_of({**data, "scores": rescored})


def _bill_of(job: tuple[str, str]) -> RunBill | None:
    path, label = job
    parsed = parse_log(path, lean=True, events=True, records=True)
    if parsed.samples is None:  # not a local zip: Inspect's reader
        return run_bill(read_log(path, events=True), label)
    bill = bill_digest(parsed)
    return None if bill is None else bill.model_copy(update={"run": label})


def bills_of(jobs: Sequence[tuple[str, str]]) -> list[RunBill | None]:
    """:func:`run_bill` of each ``(log path, label)``, each log read again with its model
    events and records: in worker processes (one per core) when there are several logs."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = min(len(jobs), cores or 1)
    if workers < 2:
        return [_bill_of(job) for job in jobs]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(_bill_of, jobs))


def _cell(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"


def bill_markdown(runs: Sequence[MedspRun]) -> list[str]:
    """The report section: actual tokens per role next to the estimates."""
    out = [
        "",
        "## Tokens: estimate and actual",
        "",
        "Per role over the run: actual input/output tokens (and cost when Inspect recorded "
        "one, with `--model-cost-config`), the `medsp-estimate` model given each encounter's "
        "actual turns, and the estimate before the run (every encounter to the turn limit). "
        "The clinician row includes strategy extras. Input counts every prompt token; beside "
        "it, the cache reads and writes Inspect recorded (n/a: the provider reported none) "
        "and the cache reads the estimate expects (a prefix of 1,024+ tokens repeated).",
        "",
    ]
    labels = [f"{r.model}, strategy {r.strategy}, judge {r.grader} (`{r.name}`)" for r in runs]
    # made while the report read the logs (the bill section's digest); else read again here
    jobs = zip(runs, labels, strict=True)
    read = iter(bills_of([(r.path, label) for r, label in jobs if NAME not in r.digests]))
    for run, label in zip(runs, labels, strict=True):
        if NAME not in run.digests:
            bill = next(read)
        else:
            made = run.digests[NAME]
            bill = made.model_copy(update={"run": label}) if isinstance(made, RunBill) else None
        if bill is None:
            continue
        out += [
            f"### {bill.run}",
            "",
            "| role | calls | input | cache read | cache write | output | cost | "
            "est. input (turns as run) | est. cached (turns as run) | "
            f"est. output (turns as run) | est. input ({bill.max_turns} turns) | "
            f"est. output ({bill.max_turns} turns) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        order = [r for r in ROW_ORDER if r in bill.roles]
        order += sorted(r for r in bill.roles if r not in ROW_ORDER)
        for role in order:
            b = bill.roles[role]
            cost = f"${b.cost:,.2f}" if b.cost is not None and b.cost > 0 else "n/a"
            out.append(
                f"| {role} | {_cell(b.actual.calls)} | {_cell(b.actual.input_tokens)} | "
                f"{_cell(b.actual.cached_tokens or None)} | "
                f"{_cell(b.actual.cache_write_tokens)} | "
                f"{_cell(b.actual.output_tokens)} | {cost} | "
                f"{_cell(b.at_observed_turns.input_tokens)} | "
                f"{_cell(b.at_observed_turns.cached_tokens)} | "
                f"{_cell(b.at_observed_turns.output_tokens)} | "
                f"{_cell(b.upfront.input_tokens)} | {_cell(b.upfront.output_tokens)} |"
            )
        out.append("")
    return out


def _logs_on_disk(analysis: Analysis) -> bool:
    """The bill reads each run's log again, with its model events: it shows when it can."""
    return all(Path(run.path).is_file() for run in analysis.runs)


BILL = Section(
    name=NAME,
    shows=_logs_on_disk,
    text=lambda page: bill_markdown(page.analysis.runs),
    digest=bill_digest,
)
