"""``table.md`` and ``table.tex``: one row per group in the paper's shape, the numbers the
leaderboard has, the best value of each column bold, names escaped for LaTeX."""

from __future__ import annotations

from pathlib import Path

from inspect_medsp.report import analyse, table_latex, table_markdown
from tests.support.runs import run


def test_tables_have_one_row_per_group_with_intervals(tmp_path: Path) -> None:
    analysis = analyse(
        [
            run("org/model_a", {f"c{i}/scenario1": 0.6 + 0.01 * (i % 5) for i in range(20)}),
            run("org/model-b & co", {f"c{i}/scenario1": 0.4 + 0.01 * (i % 3) for i in range(20)}),
        ]
    )
    md = table_markdown(analysis.groups)
    lines = [line for line in md.splitlines() if line.startswith("| ")]
    assert lines[0] == (
        "| Model | PC | MK | SBP | ICS | PBLI | PROF | Macro | Micro | Scenarios |"
    )
    first, second = lines[1:]
    leader = analysis.groups[0]
    macro = leader.metrics
    assert first.startswith("| org/model_a | ")
    assert (
        f"**{macro['macro'] * 100:.1f}** [{macro['macro_ci_low'] * 100:.1f}, "
        f"{macro['macro_ci_high'] * 100:.1f}]"
    ) in first
    assert first.endswith("| 20 |")
    assert "| n/a |" in second  # no SBP items in these rubrics
    assert "**" not in second.split("|")[8]  # the second group's macro is not the best
    tex = table_latex(analysis.groups)
    assert "\\begin{tabular}{lccccccccr}" in tex
    assert "org/model\\_a & " in tex
    assert "org/model-b \\& co & " in tex
    assert "\\textbf{" in tex and "\\toprule" in tex and "\\bottomrule" in tex
    assert tex.count(" \\\\\n") == 3  # header and two rows
