"""The contamination probe against six personas its authors did not write
(``tests/support/heldout_personas.py``: written blind from the probe's prompt templates and
the demo cases): a model that recites the cases, one that recalls them in its own words, one
that saw only the checklists, a clinician who never saw them, a generic and a refusing
model. Each is a model of its own here (a ``ModelAPI`` registered by this test), asked
exactly as ``inspect eval`` asks any model; the row test decides each row. The knowledge
persona's false-positive rate at full size is computed by simulating its per-probe rates over
1,548 scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_medsp.calls import LocalModelAPI
from inspect_medsp.cases import load_custom
from inspect_medsp.cases.write import new_case
from inspect_medsp.contamination import medsp_contamination
from inspect_medsp.contamination.probes import PROBE_NAMES, build_probes, slot_places
from inspect_medsp.contamination.probes import case_text as true_text
from inspect_medsp.contamination.recall_text import recall_lines
from inspect_medsp.contamination.report import ModelRecall, ProbedScenario
from inspect_medsp.contamination.result import Contamination
from inspect_medsp.contamination.rowtest import (
    NULL_FLOOR,
    ROW_ALPHA,
    row_test,
    simulated_flag_rate,
)
from inspect_medsp.contamination.settings import ProbeSettings
from inspect_medsp.contamination.slots import LABELS, UNITS, words_of
from inspect_medsp.data import METADATA_KEY, SampleRecord
from inspect_medsp.record import result_of
from tests.support import heldout_personas
from tests.support.probing import probe_demo

PROVIDER = "heldout"
FULL_SIZE = 1548
"""Scenarios of MedSP1000."""


@modelapi(name=PROVIDER)
def _heldout() -> type[ModelAPI]:
    return PersonaModel


class PersonaModel(LocalModelAPI):
    """``heldout/<persona>``: each call answered by the held-out persona of that name."""

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        system = "\n".join(m.text for m in input if isinstance(m, ChatMessageSystem))
        prompt = "\n".join(m.text for m in input if isinstance(m, ChatMessageUser))
        text = heldout_personas.reply(self.model_name, system, prompt)
        return ModelOutput.from_content(model=self.model_name, content=text)


def probed(persona: str, log_dir: Path) -> EvalLog:
    return probe_demo(f"{PROVIDER}/{persona}", log_dir)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModelRecall]:
    folder = tmp_path_factory.mktemp("personas")
    found: dict[str, ModelRecall] = {}
    for persona in heldout_personas.PERSONAS:
        log = probed(persona, folder / persona)
        scenarios = [
            ProbedScenario(
                id=str(s.id),
                case=str(s.id).split("/")[0],
                result=result_of(s.scores or {}, Contamination),
            )
            for s in log.samples or []
        ]
        found[persona] = ModelRecall(model=persona, logs=[log.location], scenarios=scenarios)
    return found


def above(row: ModelRecall, probe: str) -> list[bool]:
    return [
        o.above
        for s in row.scenarios
        if s.result is not None
        for o in s.result.outcomes
        if o.name == probe
    ]


def test_verbatim_is_flagged_and_above_the_control_on_every_probe(
    rows: dict[str, ModelRecall],
) -> None:
    row = rows["verbatim"]
    assert row.flagged
    for probe in PROBE_NAMES:
        assert above(row, probe) == [True, True, True], (probe, row.test)


def test_paraphrase_is_flagged(rows: dict[str, ModelRecall]) -> None:
    row = rows["paraphrase"]
    assert row.flagged, row.test
    # its continuations are never verbatim for 8 words: the content-word measure sees them
    for s in row.scenarios:
        assert s.result is not None
        for o in s.result.outcomes:
            if o.kind == "continuation" and o.above:
                assert o.content is not None and o.control_content is not None
                assert o.content - o.control_content >= ProbeSettings().content_margin


def test_rubric_only_is_flagged_by_the_checklist_probe(rows: dict[str, ModelRecall]) -> None:
    row = rows["rubric_only"]
    assert row.flagged
    assert "checklist" in row.test.reasons, row.test


@pytest.mark.parametrize("persona", ["knowledge", "generic", "refusing"])
def test_a_model_that_never_saw_the_cases_is_not_flagged(
    rows: dict[str, ModelRecall], persona: str
) -> None:
    row = rows[persona]
    assert not row.flagged, row.test


def test_the_report_says_what_was_compared_and_carries_the_caveat(
    rows: dict[str, ModelRecall],
) -> None:
    # a leaderboard row of the verbatim and the refusing model's names is among the inputs
    listed = {"verbatim": ["verbatim run"], "refusing": ["refusing run"]}
    text = "\n".join(recall_lines(list(rows.values()), listed))
    print(text)
    assert "can still be knowledge" in text
    # every row: the test in words, and why recalled-vs-rest was not compared
    for persona in heldout_personas.PERSONAS:
        assert f"- Row test for {persona}:" in text
    assert "all 3 scenarios probed are above the control on some probe" in text  # verbatim
    assert "none of the 3 scenarios probed is above the control" in text  # refusing
    assert "no leaderboard row of knowledge is among the report's inputs" in text


def test_the_knowledge_persona_s_row_flag_holds_its_rate_at_full_size(
    rows: dict[str, ModelRecall],
) -> None:
    """Simulate 1,548 scenarios at the knowledge persona's per-probe rates (above and below
    the control, as measured on the demo; a rate measured as 0 is taken at the row test's
    null floor, the least it assumes) and compute how often the row is flagged."""
    row = rows["knowledge"]
    measured = {}
    for name in PROBE_NAMES:
        up, down, n = row.counts(name)
        measured[name] = (up / n, down / n)
    # the demo's rates: the knowledge persona is above its control on no probe of the demo
    assert all(up == 0 for up, _ in measured.values()), measured
    at_floor = {name: (max(up, NULL_FLOOR), down) for name, (up, down) in measured.items()}
    fpr = simulated_flag_rate(at_floor, FULL_SIZE, runs=400)
    assert fpr <= ROW_ALPHA + 0.03, fpr  # 400 runs: a standard error of about 0.011
    # the old rule (any probe of any scenario above) flags such a row every time
    old = 1 - (1 - NULL_FLOOR) ** (FULL_SIZE * len(PROBE_NAMES))
    assert old > 0.999


def test_no_single_cell_flags_a_row() -> None:
    for n in (1, 2, 3, 10, 100, FULL_SIZE):
        for probe in PROBE_NAMES:
            counts = {p: (n, 1 if p == probe else 0, 0) for p in PROBE_NAMES}
            assert not row_test(counts).flagged, (n, probe)
    assert not row_test({"checklist": (1, 1, 0)}).flagged  # one probe, one scenario


# --- the slots ----------------------------------------------------------------------------


HELDOUT = Path(__file__).parent / "fixtures" / "heldout" / "identifiers"
"""Four cases written blind for the identifier detector, with their planted identifiers
labelled (read here only by the finished slot picker, never while it was designed)."""


def fixture_records(tmp_path: Path) -> list[SampleRecord]:
    """The demo's scenarios, the held-out identifier cases and the case template's
    (``medsp-cases new``), last."""
    demo = medsp_contamination(benchmark="medsp_demo")
    found = [SampleRecord.model_validate(s.metadata[METADATA_KEY]) for s in demo.dataset]  # type: ignore[index]
    found += load_custom(str(HELDOUT / "cases"))[0]
    new_case(tmp_path / "cases" / "template_case")
    own = medsp_contamination(cases=str(tmp_path / "cases"))
    found += [SampleRecord.model_validate(s.metadata[METADATA_KEY]) for s in own.dataset]  # type: ignore[index]
    return found


def test_no_masked_slot_is_a_unit_a_name_part_an_identifier_or_the_control_s(
    tmp_path: Path,
) -> None:
    records = fixture_records(tmp_path)
    planted = yaml.safe_load((HELDOUT / "labels.yaml").read_text(encoding="utf-8"))
    identifiers = {str(i["text"]).strip().casefold() for i in planted["identifiers"]}
    settings = ProbeSettings()
    masked = 0
    for record in records:
        case = true_text(record)
        ids = {w.casefold() for w in record.id.replace("/", " ").replace("_", " ").split()}
        for part, index in slot_places(case, settings.slots, 70):
            text = case.part(part)
            found = words_of(text)
            word = found[index].group(0)
            masked += 1
            assert any(c.isdigit() for c in word) and not any(c.isalpha() for c in word), word
            assert word.casefold() not in UNITS and word.casefold() not in ids, word
            assert word.casefold() not in identifiers, (record.id, word)
            before = text[found[index].start() - 1]
            assert not before.isalnum() and before not in "#-:/", (record.id, word)
            previous = found[index - 1].group(0).casefold()
            assert previous not in LABELS, (record.id, word, previous)
    assert masked >= 9 + 12  # 3 on each demo scenario and each held-out case
    # with an unpublished case as the control, no control slot masks a value a probe masks
    control = records[-1]
    for record in records[:-1]:
        pairs, missing = build_probes(record, settings, control)
        slot = [p for p in pairs if p.kind == "slot"]
        if slot:
            ours = {a.truth[0] for a in slot[0].probe}
            theirs = {a.truth[0] for a in slot[0].control}
            assert not ours & theirs, (record.id, ours, theirs)
        else:
            assert missing["slot"].startswith("no slot"), missing


def test_a_case_with_no_measured_value_has_no_slot(tmp_path: Path) -> None:
    new_case(tmp_path / "cases" / "labels_only")
    own = medsp_contamination(cases=str(tmp_path / "cases"))
    record = SampleRecord.model_validate(next(iter(own.dataset)).metadata[METADATA_KEY])  # type: ignore[index]
    packets = record.scenario.packets
    # every number becomes a label's or a unit's: room 12, type 2, eGFR in mL/min/1.73 m2
    labelled = [
        "\n".join(
            "Room 12, type 2 diabetes, eGFR reported in mL/min/1.73 m2, COVID-19 swab. "
            + "".join(c if not c.isdigit() else "x" for c in line)
            for line in text.splitlines()
        )
        for text in (packets.sp_actor, packets.environment_controller)
    ]
    changed = record.model_copy(
        update={
            "scenario": record.scenario.model_copy(
                update={
                    "packets": packets.model_copy(
                        update={"sp_actor": labelled[0], "environment_controller": labelled[1]}
                    )
                }
            )
        }
    )
    pairs, missing = build_probes(changed, ProbeSettings())
    assert "slot" not in [p.name for p in pairs]
    assert missing["slot"].startswith("no slot: no measured value")
