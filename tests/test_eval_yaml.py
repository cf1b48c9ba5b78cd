"""``src/inspect_medsp/eval.yaml``, this evaluation's metadata in inspect_evals' format, has
the fields that format takes and says what the code does: the same tasks, sample counts,
version and pinned sources. The register entry docs/register.md gives for submission has the
register's fields and names a task the code has."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from inspect_medsp import medsp_demo
from inspect_medsp.data.manifest import MANIFEST, SUBSET, manifest_digest, published_hashes
from inspect_medsp.data.published import PUBLISHED_SCENARIOS
from inspect_medsp.data.sources import (
    DATASET_REPO_ID,
    DATASET_REVISION,
    UPSTREAM_ARCHIVE_URL,
    UPSTREAM_COMMIT,
    UPSTREAM_REPO,
)
from inspect_medsp.tasks import TASK_VERSION, VARIANTS

REPO = Path(__file__).resolve().parents[1]
ENTRY = REPO / "src" / "inspect_medsp" / "eval.yaml"
REGISTER_DOC = REPO / "docs" / "register.md"

# The fields of inspect_evals.metadata (inspect-evals 0.28.0 on PyPI): every model there
# forbids fields it does not name. An evaluation's own eval.yaml is an InternalEvalMetadata
# (its `id` is the folder's name, added by the loader); a register entry an ExternalEvalMetadata.
BASE_REQUIRED = {"description", "contributors", "tasks"}
BASE_FIELDS = BASE_REQUIRED | {"title", "arxiv", "tags", "metadata"}
INTERNAL_REQUIRED = BASE_REQUIRED | {"title", "group", "version", "external_assets"}
INTERNAL_FIELDS = BASE_FIELDS | INTERNAL_REQUIRED | {"dependency", "dependency-group", "isolated"}
EXTERNAL_REQUIRED = BASE_REQUIRED | {"source", "common_title"}
EXTERNAL_FIELDS = BASE_FIELDS | EXTERNAL_REQUIRED | {"full_title", "paper_title",
                                                     "evaluation_report"}
TASK_FIELDS = {"name", "dataset_samples", "human_baseline", "comment", "task_path", "kind"}
ASSET_FIELDS = {"type", "source", "fetch_method", "state", "comment", "gated"}
GROUPS = {"Assistants", "Bias", "Coding", "Cybersecurity", "Knowledge", "Mathematics",
          "Multimodal", "Personality", "Reasoning", "Safeguards", "Scheming", "Writing"}


def entry() -> dict[str, Any]:
    data = yaml.safe_load(ENTRY.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def assets(kind: str) -> list[dict[str, Any]]:
    return [a for a in entry()["external_assets"] if a["type"] == kind]


def test_the_entry_lists_every_registered_task_with_its_published_size() -> None:
    listed = {t["name"]: t["dataset_samples"] for t in entry()["tasks"]}

    assert listed == {v.task: PUBLISHED_SCENARIOS[v.dataset] for v in VARIANTS}
    assert listed["medsp1000"] == 1548 and listed["medsp100"] == 100


def test_the_version_is_the_one_each_task_logs() -> None:
    version = entry()["version"]

    assert re.fullmatch(r"[1-9]\d*-[A-Z]+", version), "the register's N-X scheme"
    assert version == TASK_VERSION
    assert medsp_demo().version == TASK_VERSION


def test_the_paper_and_the_required_fields_are_given() -> None:
    data = entry()

    assert data["arxiv"] == "https://arxiv.org/abs/2606.05112"
    for field in ("title", "description", "group"):
        assert str(data[field]).strip(), field


def test_it_has_the_fields_of_an_evaluation_s_own_eval_yaml_and_no_others() -> None:
    data = entry()

    assert set(data) >= INTERNAL_REQUIRED, INTERNAL_REQUIRED - set(data)
    assert set(data) <= INTERNAL_FIELDS, set(data) - INTERNAL_FIELDS
    assert data["group"] in GROUPS
    assert data["contributors"] and all(isinstance(c, str) for c in data["contributors"])
    # rendered into one line of the register's README
    assert "\n" not in data["description"].strip()
    assert all(set(t) <= TASK_FIELDS for t in data["tasks"])
    assert all(set(a) <= ASSET_FIELDS for a in data["external_assets"])


def test_inspect_evals_own_schema_accepts_it() -> None:
    metadata = pytest.importorskip("inspect_evals.metadata")

    loaded = metadata.InternalEvalMetadata(**{**entry(), "id": ENTRY.parent.name})
    assert [t.name for t in loaded.tasks] == [v.task for v in VARIANTS]


def register_entry() -> dict[str, Any]:
    """The register entry docs/register.md gives, its placeholders filled in."""
    text = REGISTER_DOC.read_text(encoding="utf-8")
    [block] = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    filled = block.replace("<repository URL>", "https://example.org/medsp.git")
    filled = filled.replace("<commit>", "0" * 39 + "1").replace("<GitHub handle>", "someone")
    data = yaml.safe_load(filled)
    assert isinstance(data, dict)
    return data


def test_the_register_entry_to_submit_has_the_register_s_fields_and_a_real_task() -> None:
    data = register_entry()

    assert set(data) >= EXTERNAL_REQUIRED, EXTERNAL_REQUIRED - set(data)
    assert set(data) <= EXTERNAL_FIELDS, set(data) - EXTERNAL_FIELDS
    assert set(data["source"]) <= {"repository_url", "repository_commit", "maintainers",
                                   "comment"}
    [listed] = data["tasks"]  # the register asks for one task per entry
    assert set(listed) <= TASK_FIELDS
    assert listed["dataset_samples"] == PUBLISHED_SCENARIOS[
        next(v.dataset for v in VARIANTS if v.task == listed["name"])
    ]
    task_file = REPO / listed["task_path"]
    assert f'"{listed["name"]}"' in task_file.read_text(encoding="utf-8")
    assert data["arxiv"] == entry()["arxiv"]
    assert data["full_title"] == entry()["title"]
    try:
        import inspect_evals.metadata as metadata  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return
    metadata.ExternalEvalMetadata(**{**data, "id": listed["name"]})


def test_the_rubric_archive_is_pinned_to_the_commit_the_code_downloads() -> None:
    [archive] = assets("direct_url")

    assert archive["source"] == UPSTREAM_ARCHIVE_URL.format(
        repo=UPSTREAM_REPO, commit=UPSTREAM_COMMIT
    )
    assert archive["state"] == "pinned"
    assert UPSTREAM_COMMIT in archive["comment"]


def test_the_scenario_data_says_how_far_it_is_pinned() -> None:
    [data] = assets("huggingface")

    assert data["source"] == DATASET_REPO_ID
    assert data["fetch_method"] == "snapshot_download"
    pinned = re.fullmatch(r"[0-9a-f]{40}", DATASET_REVISION) is not None
    assert data["state"] == ("pinned" if pinned else "floating")
    assert f"revision {DATASET_REVISION}" in " ".join(data["comment"].split())


def test_the_only_checksum_claimed_is_the_rubric_manifest_the_code_verifies() -> None:
    text = ENTRY.read_text(encoding="utf-8")
    comment = " ".join(assets("direct_url")[0]["comment"].split())

    assert set(re.findall(r"\b[0-9a-f]{64}\b", text)) == {manifest_digest()}
    assert "no SHA-256 of the archive itself is pinned" in comment
    assert f"{len(published_hashes()) - 1:,} rubric files and {SUBSET}" in comment
    assert MANIFEST in comment
