"""The one command line: a subcommand's name always means the subcommand, even beside a folder
of that name; a misspelt one is one line naming the right one, exit 2, nothing written; the
other commands' bad input is one line and exit 2 as well."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import write_eval_log

from inspect_medsp import medsp_demo
from inspect_medsp.probes import medsp_grader_probe

SCRIPTED = "medsp/scripted"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A scripted demo run, and the same run with grader probes scored (re-graded too)."""
    folder = tmp_path_factory.mktemp("logs")
    [log] = eval(medsp_demo(judge=SCRIPTED), model=SCRIPTED, log_dir=str(folder), display="none")
    assert log.status == "success" and log.location, log.error
    probed = score(log, medsp_grader_probe(probes="removal"), action="append")
    write_eval_log(probed, str(folder / "probed.eval"))
    return Path(log.location), folder / "probed.eval"


def medsp_report(cwd: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "inspect_medsp.cli", *map(str, args)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def files_in(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*")}


@pytest.fixture
def beside(tmp_path: Path) -> Path:
    """A working folder that holds folders named ``agreement`` and ``probes``."""
    (tmp_path / "agreement").mkdir()
    (tmp_path / "probes").mkdir()
    return tmp_path


def test_subcommands_win_over_folders_of_their_name(logs: tuple[Path, Path], beside: Path) -> None:
    demo, probed = logs
    agreed = medsp_report(beside, "agreement", demo, probed, "--out", "A")
    assert agreed.returncode == 0, agreed.stderr
    assert "agreement" in agreed.stdout and "kappa" in agreed.stdout
    assert (beside / "A" / "agreement.csv").is_file() and not (beside / "A" / "report.md").exists()
    probes = medsp_report(beside, "probes", probed, "--out", "P")
    assert probes.returncode == 0, probes.stderr
    assert (beside / "P" / "probes.md").is_file() and (beside / "P" / "probes.csv").is_file()
    assert not any((beside / "agreement").iterdir()) and not any((beside / "probes").iterdir())


def test_a_folder_named_like_a_subcommand_is_reached_as_dot_slash(
    logs: tuple[Path, Path], beside: Path
) -> None:
    demo, _ = logs
    (beside / "agreement" / demo.name).write_bytes(demo.read_bytes())
    done = medsp_report(beside, "./agreement", "--out", "R")
    assert done.returncode == 0, done.stderr
    assert (beside / "R" / "report.md").is_file()


@pytest.mark.parametrize(
    ("word", "named"), [("agreemnt", "agreement"), ("probe", "probes"), ("logs", None)]
)
def test_a_misspelt_subcommand_is_one_line_and_writes_nothing(
    logs: tuple[Path, Path], beside: Path, word: str, named: str | None
) -> None:
    demo, _ = logs
    before = files_in(beside)
    done = medsp_report(beside, word, demo, "--out", "X")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("medsp-report: error:") and f"'{word}'" in line
    if named is not None:
        assert f"did you mean '{named}'" in line
    else:
        assert "agreement, validation-sheet, probes, plan" in line
    assert done.stdout == "" and files_in(beside) == before


def test_the_default_report_still_reads_logs_without_a_subcommand(
    logs: tuple[Path, Path], tmp_path: Path
) -> None:
    demo, _ = logs
    done = medsp_report(tmp_path, demo, "--out", "R", "--format", "md,html")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "R" / "report.md").is_file() and (tmp_path / "R" / "report.html").is_file()
    explicit = medsp_report(tmp_path, "report", demo, "--out", "R2")
    assert explicit.returncode == 0, explicit.stderr
    assert (tmp_path / "R2" / "report.md").read_text() == (tmp_path / "R" / "report.md").read_text()


@pytest.mark.parametrize(
    ("module", "args", "named"),
    [
        ("inspect_medsp.cli", ["agreement", "LOG"], "--out"),
        ("inspect_medsp.cli", ["plan", "LOG", "--detect", "three"], "--detect"),
        ("inspect_medsp.estimate.cli", ["medsp100", "--turns", "x"], "--turns"),
        ("inspect_medsp.estimate.cli", ["medsp100", "--budget", "5"], "--budget"),
        ("inspect_medsp.specialty.export", ["LOG"], "--out"),
    ],
)
def test_bad_arguments_are_one_line_naming_the_parameter(
    tmp_path: Path, module: str, args: list[str], named: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert ": error: " in line and named in line and "--help" in line
    assert not any(tmp_path.iterdir())
