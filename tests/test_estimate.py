"""``medsp-estimate`` and the report's bill: the estimate against a run that used it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_medsp import medsp_demo
from inspect_medsp.estimate import BILL, load_prices, run_bill
from inspect_medsp.estimate.cli import main
from inspect_medsp.full_report import SECTIONS, write_report
from inspect_medsp.record import read_log
from inspect_medsp.report import collect
from inspect_medsp.report.section import digests
from inspect_medsp.scripted import demo_records
from inspect_medsp.scripted.scripts import load_scripts
from inspect_medsp.tokens import CHARS_PER_TOKEN
from inspect_medsp.workload import Assumptions, RoleEstimate, estimate_records

SCRIPTED = "medsp/scripted"
TOLERANCE = 0.15
"""The token model against the scripted run, per role: within 15% of the tokens used."""

PRICES = """\
medsp/scripted:
  input: 2.0
  output: 10.0
  input_cache_write: 2.0
  input_cache_read: 0.2
"""


@pytest.fixture(scope="module")
def scripted_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    logs = tmp_path_factory.mktemp("logs")
    [log] = eval(medsp_demo(judge=SCRIPTED), model=SCRIPTED, log_dir=str(logs), display="none")
    assert log.status == "success"
    return log


def test_estimate_matches_what_the_scripted_demo_run_used(scripted_log: EvalLog) -> None:
    bill = run_bill(read_log(str(scripted_log.location), events=True), "demo")
    assert bill is not None
    assert set(bill.roles) == {"clinician", "patient", "environment", "grader"}
    for role, b in bill.roles.items():
        est, actual = b.at_observed_turns, b.actual
        assert est.calls == actual.calls, role
        for field in ("input_tokens", "output_tokens"):
            got, want = getattr(est, field), getattr(actual, field)
            assert abs(got - want) <= TOLERANCE * want, (role, field, got, want)
        # before the run (every encounter to the 12-turn limit) it is an upper bound
        assert b.upfront.calls >= actual.calls
        assert b.upfront.input_tokens >= actual.input_tokens


def test_report_shows_the_bill_next_to_the_estimate(scripted_log: EvalLog, tmp_path: Path) -> None:
    result = write_report([scripted_log.location], tmp_path / "report")
    assert result.reported
    text = (tmp_path / "report" / "report.md").read_text()
    section = text.split("## Tokens: estimate and actual", 1)[1]
    rows = {
        line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| ")
    }
    assert {"clinician", "patient", "environment", "grader"} <= set(rows)
    bill = run_bill(read_log(str(scripted_log.location), events=True), "demo")
    assert bill is not None
    assert f"{bill.roles['environment'].actual.input_tokens:,}" in rows["environment"]


def test_the_bill_made_while_the_report_reads_is_the_bill_read_again(
    scripted_log: EvalLog, tmp_path: Path
) -> None:
    # two logs, so they are parsed in worker processes on a machine with two cores
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("a.eval", "b.eval"):
        shutil.copy(str(scripted_log.location), logs / name)
    runs, problems = collect([logs], digests(SECTIONS))
    assert len(runs) == 2 and not problems
    again = run_bill(read_log(str(scripted_log.location), events=True), "")
    assert again is not None and again.roles["clinician"].actual.calls
    for run in runs:
        assert run.digests[BILL.name] == again
        # the records and events the bill read are not kept in the report's samples
        assert all(s.metadata.record is None and s.store == {} for s in run.samples)


def test_cli_prints_calls_tokens_and_cost_per_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    code = main(
        [
            "medsp_demo",
            "--model",
            SCRIPTED,
            "-T",
            f"judge={SCRIPTED}",
            "-T",
            "max_turns=6",
            "--model-cost-config",
            str(prices),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "3 scenarios, 51 rubric items" in out and "6 turns per encounter" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()}
    for role in ("clinician", "patient", "environment", "grader"):
        calls = int(rows[role][2].replace(",", ""))
        assert calls == (3 if role == "grader" else 18)
    price = load_prices(prices)[SCRIPTED]
    total = 0.0
    cached_total = 0.0
    for role in ("clinician", "patient", "environment", "grader"):
        _, _, _, inp, cached, outp, dollars, cached_dollars = rows[role]
        n_in, n_cached, n_out = (int(v.replace(",", "")) for v in (inp, cached, outp))
        want = n_in * price.input + n_out * price.output
        assert float(dollars) == pytest.approx(want / 1e6, abs=0.006)
        # cache reads at input_cache_read, the rest of the input at input_cache_write
        want = (
            n_cached * price.input_cache_read
            + (n_in - n_cached) * price.input_cache_write
            + n_out * price.output
        )
        assert float(cached_dollars) == pytest.approx(want / 1e6, abs=0.006)
        total += float(dollars)
        cached_total += float(cached_dollars)
    assert float(rows["total"][-2]) == pytest.approx(total, abs=0.02)
    assert float(rows["total"][-1]) == pytest.approx(cached_total, abs=0.02)


def test_strategies_add_their_extra_calls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["medsp_demo", "-T", "strategy=bon", "-T", "n=3", "-T", "max_turns=4"]) == 0
    out = capsys.readouterr().out
    extras = next(line for line in out.splitlines() if line.startswith("strategy extras"))
    # n - 1 extra drafts and one selection per turn, 4 turns, 3 scenarios
    assert extras.split()[3] == f"{3 * 4 * 3}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["medsp_nope"], "task 'medsp_nope' is not a MedSP task; use one of medsp1000"),
        (["medsp_demo", "-T", "turns=3"], "-T turns: medsp_demo has no parameter 'turns'"),
        (["medsp_demo", "--model-cost-config", "missing.yaml"], "missing.yaml: no such file"),
        (["medsp_demo", "--model-cost-config", "{bad}"], "not a YAML or JSON mapping"),
        (["medsp_demo", "--model-cost-config", "{fields}"], "output: field required"),
        (["medsp_demo", "--turns", "0"], "--turns 0: use a whole number of 1 or more"),
        (["medsp_demo", "--model-role", "judge=x"], "--model-role judge: roles are patient"),
    ],
)
def test_bad_input_is_one_line_and_a_nonzero_exit(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "{bad}").write_text("openai/gpt-5.5: [input: 1\n")
    (tmp_path / "{fields}").write_text("openai/gpt-5.5: {input: 1.0}\n")
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err


def test_console_script_bad_price_file_has_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "prices.yaml").write_text("openai/gpt-5.5: 5 dollars\n")
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "medsp-estimate"),
            "medsp_demo",
            "--model-cost-config",
            "prices.yaml",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("medsp-estimate: --model-cost-config prices.yaml: openai/gpt-5.5")
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_the_cache_bench_and_the_estimate_bill_the_cache_as_providers_do() -> None:
    """One rule: a repeated prefix is served from 1,024 tokens, in steps of 128 tokens."""
    from bench.cache_bench import Ledger

    from inspect_medsp.tokens import cached_prefix_tokens
    from inspect_medsp.workload.sizes import Assumptions, _cacheable

    assert [cached_prefix_tokens(n) for n in (0, 1023, 1024, 1151, 1152, 2000)] == [
        0, 0, 1024, 1024, 1152, 1920,
    ]  # fmt: skip
    ledger = Ledger()
    shared = "x" * 4700  # with the role's mark, 1,177 tokens in common: 1,152 are served
    first = [{"role": "system", "content": shared + "first"}]
    second = [{"role": "system", "content": shared + "second"}]
    assert ledger.bill("m", first, "")[1] == 0
    in_common = len("<|system|>" + shared)
    assert ledger.bill("m", second, "")[1] == 1152 * 4 == _cacheable(in_common, Assumptions())
    # a shorter repeat (under 1,024 tokens) is not served by either
    assert _cacheable(4095, Assumptions()) == 0


def test_estimate_splits_cached_and_uncached_input_as_the_cache_bench_measures() -> None:
    """The demo played through Inspect's openai-api provider against a local server that bills
    a repeated prefix as OpenAI does (1,024 tokens or more, in steps of 128): per role, the
    estimate's cached and uncached prompt characters, by the same rule, are within 15% of
    what the server counted."""
    from bench.cache_bench import measure_parts

    measured, parts = measure_parts(audit=True)
    # the bench's split by part accounts for every character it billed
    for role, bill in measured.items():
        assert sum(p.prompt for p in parts[role].values()) == bill.prompt, role
        assert sum(p.uncached for p in parts[role].values()) == bill.uncached, role
    assert set(parts["grader"]) == {"instructions", "record"}
    scripts = load_scripts()
    total: dict[str, RoleEstimate] = {}
    for i, record in enumerate(demo_records()):
        turns = len(scripts[record.id].turns)  # each scripted encounter plays its script out
        part = estimate_records(
            [record], 12, assumptions=Assumptions(turns=turns), audit=True, warm=i > 0
        )
        total = {r: total.get(r, RoleEstimate()).plus(e) for r, e in part.roles.items()}
    for role in ("clinician", "patient", "environment", "grader", "auditor"):
        bill, est = measured[role], total[role]
        assert est.calls == bill.requests, role
        pairs = {
            "cached": (est.cached_tokens * CHARS_PER_TOKEN, bill.cached),
            "uncached": (est.uncached_tokens * CHARS_PER_TOKEN, bill.uncached),
        }
        for what, (got, want) in pairs.items():
            assert abs(got - want) <= TOLERANCE * want, (role, what, got, want)


def test_the_cached_bill_prices_cache_reads_and_batch_grading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES.replace("medsp/scripted", "openai/gpt-5.5"), encoding="utf-8")
    common = ["medsp_demo", "--model", "openai/gpt-5.5", "--model-cost-config", str(prices)]
    common += ["-T", "audit=true", "--probes", "recital,padding"]
    assert main(common) == 0
    plain = capsys.readouterr().out
    assert main([*common, "--grade-in-batch"]) == 0
    batched = capsys.readouterr().out

    def row(out: str, role: str) -> list[str]:
        return next(line for line in out.splitlines() if line.startswith(role)).split()

    for role in ("clinician", "patient", "environment", "grader", "auditor", "grader probes"):
        cells = row(plain, role)
        listed, cached = float(cells[-2]), float(cells[-1])
        assert int(cells[-4].replace(",", "")) < int(cells[-5].replace(",", "")), role
        assert cached <= listed, role
    # the encounter's history is mostly cache reads: its cached bill is well under list
    clinician = row(plain, "clinician")
    assert float(clinician[-1]) < 0.6 * float(clinician[-2])
    # batch grading halves the grading rows and leaves the encounter's alone
    for role, factor in (("grader", 0.5), ("auditor", 0.5), ("clinician", 1.0)):
        before, after = row(plain, role), row(batched, role)
        assert float(after[-2]) == pytest.approx(factor * float(before[-2]), abs=0.01), role
    assert "OpenAI caches a repeated prefix" in plain and "cache_prompt" in plain
