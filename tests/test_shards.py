"""A run in parts (``-T shard=K/N``): the parts cover the selection once, Inspect reads their
logs as one shard set, and ``medsp-report`` reads them as one run with the numbers of the
same run made in one process; a missing part is named with its scenarios, and parts of
different runs are refused.

The offline runs are the scripted demo (``medsp/scripted``); the server run plays the same
scripts through Inspect's OpenAI provider and ``bench.cache_bench``'s local server.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log

from inspect_medsp import medsp_demo
from inspect_medsp.cli import main as report_main
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.estimate.selection import from_rubrics
from inspect_medsp.full_report import write_report
from inspect_medsp.hooks.coverage import RunCoverage
from inspect_medsp.record import Shard, TaskMetadata, shard_folder
from inspect_medsp.report import analyse, collect, shard_sets
from inspect_medsp.workload.shards import RunShape, deal, take_part, weigh

SCRIPTED = "medsp/scripted"
DEMO_IDS = ["demo_anaphylaxis/scenario1", "demo_bad_news/scenario1", "demo_peds_asthma/scenario1"]
REPO = Path(__file__).resolve().parents[1]


def run_part(folder: Path, shard: str | None, **eval_args: object) -> EvalLog:
    """The scripted demo (or part ``shard`` of it) with its log in ``folder``."""
    part: dict[str, Any] = {"shard": shard} if shard else {}
    task = medsp_demo(judge=SCRIPTED, **part)
    args: dict[str, object] = {"model": SCRIPTED, "display": "none", **eval_args}
    log = eval(task, log_dir=str(folder), **args)[0]  # type: ignore[arg-type]
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo in one process (``one/``) and in 1, 2 and 3 parts (``parts<N>/demo.shards``)."""
    root = tmp_path_factory.mktemp("shard-runs")
    run_part(root / "one", None)
    for n in (1, 2, 3):
        for k in range(1, n + 1):
            run_part(root / f"parts{n}" / "demo.shards" / str(k), f"{k}/{n}")
    return root


# -- the split ---------------------------------------------------------------------------------


def test_every_scenario_is_in_exactly_one_part_whatever_n_is() -> None:
    records = list(from_rubrics("medsp_demo", {}).records)
    shape = RunShape(max_turns=12)
    for n in (1, 2, 3):
        parts = [take_part(records, Shard(index=k, count=n), shape) for k in range(1, n + 1)]
        ids = [r.scenario.id for kept, _ in parts for r in kept]
        assert sorted(ids) == DEMO_IDS
        stored = {info.model_dump_json() for _, info in parts}
        sizes = {tuple(json.loads(s)["sizes"]) for s in stored}
        assert sizes == {tuple(len(kept) for kept, _ in parts)}  # every part knows every size
        # the same parts again, and in another order of the input: nothing depends on either
        again = [take_part(records[::-1], Shard(index=k, count=n), shape) for k in range(1, n + 1)]
        assert [sorted(r.scenario.id for r in kept) for kept, _ in again] == [
            sorted(r.scenario.id for r in kept) for kept, _ in parts
        ]
        assert {info.selection for _, info in parts + again} == {parts[0][1].selection}


def test_the_full_benchmark_splits_into_parts_of_equal_calls_and_close_tokens(
    upstream: Path,
) -> None:
    records = list(from_rubrics("medsp1000", {"upstream_dir": str(upstream)}).records)
    shape = RunShape(max_turns=12)
    ids = [r.scenario.id for r in records]
    weights = [weigh(r, shape) for r in records]
    parts = deal(ids, weights, 4)
    assert len(records) == 1548 and sorted(set(parts)) == [1, 2, 3, 4]
    by_part = [[w for w, p in zip(weights, parts, strict=True) if p == k] for k in (1, 2, 3, 4)]
    calls = [sum(w.calls for w in part) for part in by_part]
    tokens = [sum(w.tokens for w in part) for part in by_part]
    assert max(calls) - min(calls) <= max(w.calls for w in weights)
    assert max(tokens) - min(tokens) <= max(w.tokens for w in weights), tokens
    assert max(tokens) - min(tokens) < 0.001 * min(tokens), tokens  # within a tenth of 1%
    # the task's part is this split's
    kept, stored = take_part(records, Shard(index=3, count=4), shape)
    assert [r.scenario.id for r in kept] == [i for i, p in zip(ids, parts, strict=True) if p == 3]
    assert stored.sizes == [parts.count(k) for k in (1, 2, 3, 4)]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("2/5", "the selection has 3 scenarios, so it splits into at most 3 parts"),
        ("4/3", "shard takes K/N"),
        ("0/3", "shard takes K/N"),
        ("two of three", "shard takes K/N"),
    ],
)
def test_a_bad_shard_is_one_line_naming_it(given: str, said: str) -> None:
    with pytest.raises(MedSPParameterError) as caught:
        medsp_demo(judge=SCRIPTED, shard=given)
    line = str(caught.value)
    assert "\n" not in line and f"shard='{given}'" in line and said in line


def test_a_part_records_k_of_n_and_the_full_selections_digest() -> None:
    whole = from_rubrics("medsp_demo", {})
    parts = [medsp_demo(judge=SCRIPTED, shard=f"{k}/2") for k in (1, 2)]
    stored = [TaskMetadata.read(t.metadata).shard for t in parts]  # type: ignore[union-attr]
    assert [s.part for s in stored if s] == ["1/2", "2/2"]
    assert {s.selection for s in stored if s} == {
        take_part(whole.records, Shard(index=1, count=1), RunShape(max_turns=12))[1].selection
    }
    assert sum(len(t.dataset) for t in parts) == 3
    assert TaskMetadata.read(medsp_demo(judge=SCRIPTED).metadata).shard is None  # type: ignore[union-attr]


def test_a_parts_log_folder_is_found_in_inspects_layout() -> None:
    assert shard_folder("logs/run.shards/2/x.eval") == ("logs/run.shards", "2")
    assert shard_folder("s3://b/p/run.shards/10/x.eval") == ("s3://b/p/run.shards", "10")
    assert shard_folder("logs/run/2/x.eval") is None
    assert shard_folder("logs/.shards/2/x.eval") is None


# -- the report of the parts -------------------------------------------------------------------

PER_LOG = re.compile(
    r"^(\d+ MedSP logs? in \d+ groups?|- ⚠ The clinician of .* is medsp/scripted"
    r"|- medsp/scripted: .*supplied \d+ scenarios?)"
)
"""The lines of a report's group sections that name or count logs, not numbers of the run."""
PER_LOG_SECTIONS = ("## Health of the runs", "## Files", "## Tokens: estimate and actual")
"""Sections with a row or a table per log."""
PER_LOG_COLUMNS = {"logs", "metrics_source", "seconds_per_turn", "run"}
"""CSV columns that count or name logs, or time the clinician (a clock, not a score)."""
PER_LOG_FILES = {"health.csv"}


def group_text(report: str) -> str:
    """The report less its per-log sections and lines (:data:`PER_LOG`) and the parts note,
    with the clinician's time per turn (a clock, not a score) masked."""
    report = re.sub(r"\b\d+\.\d s\b", "<time>", report)
    kept = []
    for section in re.split(r"(?m)^(?=## )", report):
        if section.startswith(PER_LOG_SECTIONS):
            continue
        kept += [
            line
            for line in section.splitlines()
            if line.strip() and not PER_LOG.match(line) and "parts (" not in line
        ]
    return "\n".join(kept)


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        rows = [
            {k: v for k, v in row.items() if k not in PER_LOG_COLUMNS} for row in csv.DictReader(f)
        ]
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_report_of_n_parts_has_every_number_of_the_one_process_run(
    demo_runs: Path, tmp_path: Path, n: int
) -> None:
    one = write_report([demo_runs / "one"], tmp_path / "one")
    parts = write_report([demo_runs / f"parts{n}" / "demo.shards"], tmp_path / "parts")
    a = (tmp_path / "one" / "report.md").read_text(encoding="utf-8")
    b = (tmp_path / "parts" / "report.md").read_text(encoding="utf-8")
    assert group_text(a) == group_text(b)
    assert "## Leaderboard" in group_text(b) and "70.6%" in group_text(b)
    # the lines left out say how the run was logged, and only that
    assert f"one run in {n} of {n} parts" in b and "parts (" not in a
    assert parts.analysis is not None and one.analysis is not None
    assert [g.label for g in parts.analysis.groups] == [g.label for g in one.analysis.groups]
    assert parts.analysis.groups[0].metrics == one.analysis.groups[0].metrics
    assert not parts.analysis.groups[0].flagged
    files = {Path(f).name for f in one.files}
    assert files == {Path(f).name for f in parts.files}
    for name in sorted(f for f in files if f.endswith(".csv") and f not in PER_LOG_FILES):
        assert csv_rows(tmp_path / "one" / name) == csv_rows(tmp_path / "parts" / name), name


def test_inspect_lists_the_parts_as_one_shard_set(demo_runs: Path) -> None:
    found = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "ctl", "task", "list", "--json", "--log-dir",
         str(demo_runs / "parts3")],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    tasks = json.loads(found.stdout)["tasks"]
    assert len(tasks) == 1, tasks
    assert tasks[0]["shards"]["total"] == 3 and tasks[0]["shards"]["success"] == 3


def test_a_parts_end_of_run_line_counts_its_own_scenarios(demo_runs: Path) -> None:
    from inspect_ai.log import read_eval_log

    log = next((demo_runs / "parts3" / "demo.shards" / "2").glob("*.eval"))
    coverage = RunCoverage.of(read_eval_log(str(log)))
    assert coverage is not None
    assert coverage.line() == (
        "MedSP-demo part 2/3: 1 of the part's 1 scenarios scored; medsp-report reads the 3 "
        "parts as one run"
    )


def copy_part(source: Path, into: Path, k: int) -> None:
    (into / str(k)).mkdir(parents=True)
    for log in (source / str(k)).glob("*.eval"):
        shutil.copy(log, into / str(k) / log.name)


def test_parts_run_with_other_epochs_are_refused_in_one_line(
    demo_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = tmp_path / "mixed.shards"
    copy_part(demo_runs / "parts2" / "demo.shards", mixed, 1)
    run_part(mixed / "2", "2/2", epochs=2)
    code = report_main([str(mixed), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 1
    assert err.count("\n") == 0, err
    assert "part 2/2" in err and "in the epochs (2 vs 1)" in err and str(mixed) in err
    assert not (tmp_path / "out" / "report.md").exists()


def test_parts_run_with_another_model_are_refused_in_one_line(
    demo_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = tmp_path / "mixed.shards"
    copy_part(demo_runs / "parts2" / "demo.shards", mixed, 1)
    eval(
        medsp_demo(judge=SCRIPTED, shard="2/2", max_turns=1),
        model="mockllm/model",
        log_dir=str(mixed / "2"),
        display="none",
    )
    code = report_main([str(mixed), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.count("\n") == 0, err
    assert "in the model (mockllm/model vs medsp/scripted)" in err


def test_a_part_in_the_folder_of_another_part_is_refused(demo_runs: Path, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.shards"
    copy_part(demo_runs / "parts2" / "demo.shards", wrong, 1)
    (wrong / "1").rename(wrong / "2")
    runs, _ = collect([wrong])
    with pytest.raises(Exception, match=r"is part 1/2 but sits in folder 2/"):
        analyse(runs)


def test_a_failed_part_is_named_with_its_retry_and_an_older_attempt_is_superseded(
    demo_runs: Path, tmp_path: Path
) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    run = tmp_path / "run.shards"
    copy_part(demo_runs / "parts2" / "demo.shards", run, 1)
    copy_part(demo_runs / "parts2" / "demo.shards", run, 2)
    # part 2 stopped with an error after none of its encounters was logged (a newer attempt)
    source = next((run / "2").glob("*.eval"))
    stopped = read_eval_log(str(source))
    stopped.status, stopped.samples, stopped.reductions = "error", [], None
    stopped.eval.created = "2099-01-01T00:00:00+00:00"
    write_eval_log(stopped, str(run / "2" / "2099-01-01T00-00-00-00-00_stopped.eval"))
    # part 1 failed once, then its retry finished (the failed attempt is older)
    failed = read_eval_log(str(next((run / "1").glob("*.eval"))))
    failed.status, failed.eval.created = "error", "2000-01-01T00:00:00+00:00"
    write_eval_log(failed, str(run / "1" / "2000-01-01T00-00-00-00-00_failed.eval"))

    analysis = analyse(collect([run])[0])
    group = analysis.groups[0]
    size = TaskMetadata.read(stopped.eval.metadata).shard.size(2)  # type: ignore[union-attr]
    line = (
        f"{run}: part 2/2 failed (status error, 0 of its {size} scenario"
        f"{'s' if size > 1 else ''} scored): retry it with inspect eval-retry "
        f"{run / '2' / '2099-01-01T00-00-00-00-00_stopped.eval'} --log-dir {run}/2"
    )
    assert group.incomplete == [line] and group.flagged and group.flag_words == "incomplete run"
    assert any(line in f for f in analysis.flags)
    assert any("part 1/2 was logged 2 times" in n for n in analysis.notes)
    assert len(analysis.runs) == 2  # the older attempt of part 1 is not read as a run


def test_parts_gathered_in_one_flat_folder_are_still_one_run(
    demo_runs: Path, tmp_path: Path
) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    for log in (demo_runs / "parts3" / "demo.shards").glob("*/*.eval"):
        shutil.copy(log, flat / log.name)
    analysis = analyse(collect([flat])[0])
    (group,) = analysis.groups
    assert group.parts == "3 of 3 parts" and group.shard_set is not None
    assert group.shard_set.startswith("selection ") and not group.flagged
    assert sorted(s.id for s in group.samples) == DEMO_IDS


def test_two_runs_of_one_model_are_two_groups(demo_runs: Path) -> None:
    runs, _ = collect([demo_runs / "parts2", demo_runs / "parts3"])
    analysis = analyse(runs)
    assert len(analysis.groups) == 2 and len({g.label for g in analysis.groups}) == 2
    assert {g.label for g in analysis.groups} == {
        f"medsp/scripted (run {demo_runs / f'parts{n}' / 'demo.shards'})" for n in (2, 3)
    }
    assert sorted(g.parts for g in analysis.groups) == ["2 of 2 parts", "3 of 3 parts"]
    assert all(len(g.samples) == 3 and not g.flagged for g in analysis.groups)


# -- through a local OpenAI-compatible server --------------------------------------------------


@pytest.fixture
def local_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``bench.cache_bench``'s server playing the scripted demo; yields the service name."""
    from bench.cache_bench import Ledger, scripted_server

    with scripted_server(Ledger()) as url:
        service = f"shards{url.rsplit(':', 1)[1].split('/')[0]}"
        monkeypatch.setenv(f"{service.upper()}_BASE_URL", url)
        monkeypatch.setenv(f"{service.upper()}_API_KEY", "local")
        yield service


def served(service: str) -> dict[str, object]:
    roles = ("patient", "environment", "grader")
    return {
        "model": f"openai-api/{service}/clinician",
        "model_roles": {r: f"openai-api/{service}/{r}" for r in roles},
    }


def test_a_missing_part_is_named_with_its_scenarios_and_the_run_marked_incomplete(
    local_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.shards"
    for k in (1, 2):
        log = eval(
            medsp_demo(shard=f"{k}/2"),
            log_dir=str(run / str(k)),
            display="none",
            **served(local_server),  # type: ignore[arg-type]
        )[0]
        assert log.status == "success", log.error
    sizes = TaskMetadata.read(log.eval.metadata).shard.sizes  # type: ignore[union-attr]
    assert len(list((run / "1").glob("*.eval"))) == len(list((run / "2").glob("*.eval"))) == 1
    shutil.rmtree(run / "2")

    code = report_main([str(run), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 0
    missing = (
        f"{run}: part 2/2 is missing ({sizes[1]} scenario{'s' if sizes[1] > 1 else ''} not "
        f"run): run it with -T shard=2/2 --log-dir {run}/2"
    )
    assert missing in err
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert missing in report and "1 of 2 parts" in report and "⚠ incomplete run" in report


# -- an s3:// log directory --------------------------------------------------------------------


@pytest.fixture
def s3_bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A bucket on a local S3-compatible server (moto's) on 127.0.0.1; yields its name."""
    server_module = pytest.importorskip(
        "moto.server", reason="needs moto's server (pip install 'inspect-medsp[dev]')"
    )
    import s3fs  # type: ignore[import-untyped]

    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        for name, value in {
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_S3": endpoint,
            "AWS_ENDPOINT_URL": endpoint,
        }.items():
            monkeypatch.setenv(name, value)
        create = urllib.request.Request(f"{endpoint}/medsp-logs", method="PUT")
        with urllib.request.urlopen(create, timeout=30) as answer:
            assert answer.status == 200
        s3fs.S3FileSystem.clear_instance_cache()
        yield "medsp-logs"
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()


def test_parts_written_to_s3_are_reported_from_there(s3_bucket: str, tmp_path: Path) -> None:
    run = f"s3://{s3_bucket}/sweeps/demo.shards"
    for k in (1, 2):
        log = eval(
            medsp_demo(judge=SCRIPTED, shard=f"{k}/2"),
            model=SCRIPTED,
            log_dir=f"{run}/{k}",
            display="none",
        )[0]
        assert log.status == "success", log.error
        assert log.location.startswith(f"{run}/{k}/")
    result = write_report([run], tmp_path / "out")
    assert result.analysis is not None and not result.problems
    group = result.analysis.groups[0]
    assert group.parts == "2 of 2 parts" and group.shard_set == run
    assert sorted(s.id for s in group.samples) == DEMO_IDS
    assert round(group.metrics["macro"], 4) == 0.7059  # 12/17, 11/17, 13/17
    assert report_main([run, "--out", str(tmp_path / "cli")]) == 0  # the command takes the URL
    assert not any(s for s in (tmp_path / "out").glob("*.eval"))


# -- the recipe --------------------------------------------------------------------------------


def readme_command() -> str:
    """The part's command line the README gives (its shard recipe's first block)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    recipe = readme.split("### A sweep in parts", 1)[1]
    block = recipe.split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.strip() for line in block.splitlines() if line.strip().startswith("inspect eval")]
    assert len(lines) == 1, lines
    return lines[0]


def test_the_kubernetes_manifest_is_yaml_running_the_readmes_command_line() -> None:
    command = readme_command()
    docs = list(yaml.safe_load_all((REPO / "deploy" / "k8s" / "medsp-parts.yaml").read_text()))
    job = next(d for d in docs if d and d.get("kind") == "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"]
    container = spec["template"]["spec"]["containers"][0]
    script = "\n".join(container["command"] + container.get("args", []))
    assert command in script
    assert "inspect eval-retry" in script
    assert any("secretRef" in e for e in container["envFrom"])
    report = yaml.safe_load((REPO / "deploy" / "k8s" / "medsp-report.yaml").read_text())
    steps = "\n".join(report["spec"]["template"]["spec"]["containers"][0]["command"])
    assert 'medsp-report "$RUN"' in steps


def test_the_local_recipe_runs_the_same_command_line() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    recipe = readme.split("### A sweep in parts", 1)[1].split("\n## ", 1)[0]
    blocks = recipe.split("```bash")[1:]
    assert sum(readme_command() in block for block in blocks) >= 2


def test_the_pods_script_runs_its_part_skips_it_when_done_and_retries_a_failed_one(
    tmp_path: Path,
) -> None:
    docs = yaml.safe_load_all((REPO / "deploy" / "k8s" / "medsp-parts.yaml").read_text())
    job = next(d for d in docs if d and d.get("kind") == "Job")
    shell, flag, script = job["spec"]["template"]["spec"]["containers"][0]["command"]
    assert shell == "/bin/sh"
    run = tmp_path / "run.shards"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")},
        "JOB_COMPLETION_INDEX": "1",  # the second pod: part 2/2
        "RUN": str(run),
        "TASK": "medsp_demo",
        "MODEL": SCRIPTED,
        "JUDGE": SCRIPTED,
        "N": "2",
        "CONNECTIONS": "2",
    }

    def pod() -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [shell, flag, script], env=env, cwd=tmp_path, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return done

    pod()
    first = list((run / "2").glob("*.eval"))
    assert len(first) == 1 and not (run / "1").exists()
    assert "part 2/2 has finished already" in pod().stdout
    assert list((run / "2").glob("*.eval")) == first

    # the part's log stopped with an error and none of its encounters: the pod retries it
    from inspect_ai.log import read_eval_log, write_eval_log

    stopped = read_eval_log(str(first[0]))
    stopped.status, stopped.samples, stopped.reductions, stopped.results = "error", [], None, None
    write_eval_log(stopped, str(first[0]))
    pod()
    attempts = sorted((run / "2").glob("*.eval"))
    assert len(attempts) == 2
    runs, _ = collect([run])
    (found,) = shard_sets(runs)[1]
    assert found.parts[2].status == "success" and found.superseded[2] == [str(first[0])]
    assert sorted(s.id for s in found.parts[2].samples) == sorted(
        r.scenario.id
        for r in take_part(
            from_rubrics("medsp_demo", {}).records, Shard(index=2, count=2), RunShape(max_turns=12)
        )[0]
    )


# -- the merged log ----------------------------------------------------------------------------


def test_a_run_in_parts_merges_into_one_log_that_reads_as_the_parts(
    demo_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``medsp-report merge <run>.shards`` after the last part: ``<run>.eval`` next to the
    folder, every sample, the run's macro (0.706, not a part's), the parts named; Inspect
    lists it as the one run; ``medsp-report`` reads it as it reads the parts, and with both
    in the folder reads the parts and not the merged log (no sample counted twice)."""
    runs = tmp_path / "runs"
    shutil.copytree(demo_runs / "parts3" / "demo.shards", runs / "demo.shards")
    parts_before = sorted(p.name for p in (runs / "demo.shards").rglob("*.eval"))

    assert report_main(["merge", str(runs / "demo.shards")]) == 0
    said = capsys.readouterr().out
    assert f"wrote {runs / 'demo.eval'}: 3 parts, 3 scenarios, medsp_rubric macro 0.706" in said

    merged = read_eval_log(str(runs / "demo.eval"))
    assert merged.status == "success" and merged.samples is not None
    assert sorted(str(s.id) for s in merged.samples) == DEMO_IDS
    assert merged.eval.dataset.samples == 3 and "shard" not in merged.eval.task_args
    assert merged.results is not None
    rubric = next(s for s in merged.results.scores if s.name == "medsp_rubric")
    assert round(rubric.metrics["macro"].value, 3) == 0.706
    assert merged.eval.shards is not None and len(merged.eval.shards.ledger) == 3
    metadata = TaskMetadata.read(merged.eval.metadata)
    assert metadata is not None and metadata.shard is None and metadata.merged is not None
    assert metadata.merged.count == 3 and len(metadata.merged.logs) == 3
    # the parts are kept as they were
    assert sorted(p.name for p in (runs / "demo.shards").rglob("*.eval")) == parts_before

    # Inspect's own listing: one run, the merged log
    found = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "ctl", "task", "list", "--json", "--log-dir",
         str(runs)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    [task] = json.loads(found.stdout)["tasks"]
    assert task["log_location"].endswith("demo.eval") and task["samples"]["total"] == 3

    alone = write_report([runs / "demo.eval"], tmp_path / "alone")
    parts = write_report([runs / "demo.shards"], tmp_path / "parts")
    both = write_report([runs], tmp_path / "both")
    assert alone.analysis and parts.analysis and both.analysis
    assert alone.analysis.groups[0].metrics == parts.analysis.groups[0].metrics
    assert round(alone.analysis.groups[0].metrics["macro"], 3) == 0.706
    assert len(both.analysis.groups) == 1 and len(both.analysis.runs) == 3
    assert both.analysis.groups[0].metrics == parts.analysis.groups[0].metrics
    note = (tmp_path / "both" / "report.md").read_text(encoding="utf-8")
    assert "its parts are read, not the log merged from them" in note


def test_a_run_missing_a_part_is_not_merged(
    demo_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(demo_runs / "parts3" / "demo.shards", tmp_path / "demo.shards")
    shutil.rmtree(tmp_path / "demo.shards" / "2")
    assert report_main(["merge", str(tmp_path / "demo.shards")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "part 2/3 is missing" in err and "merge after the last" in err
    assert not (tmp_path / "demo.eval").exists()
