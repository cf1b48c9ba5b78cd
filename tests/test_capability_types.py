"""The capability descriptor keeps its types: no field of ``measure.Capability`` is ``Any``
(its sections, commands and leaderboard marks are typed through protocols the report
implements, since the report stands above the seam), and the report refuses a section that is
not one instead of dropping it."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping

import pytest

from inspect_medsp import full_report, measure, measures
from inspect_medsp.measure import Capability, ReportAnalysis, ReportSection
from inspect_medsp.report import Analysis, Section


def mentions_any(hint: object) -> bool:
    if hint is typing.Any:
        return True
    return any(mentions_any(arg) for arg in typing.get_args(hint) if arg is not Ellipsis)


def test_no_field_of_the_descriptor_is_any() -> None:
    hints = typing.get_type_hints(Capability, vars(measure.capability))
    untyped = [f.name for f in dataclasses.fields(Capability) if mentions_any(hints[f.name])]
    assert not untyped, f"Capability fields typed Any: {untyped}"


def test_the_report_implements_the_descriptors_protocols() -> None:
    def marks(analysis: ReportAnalysis) -> Mapping[str, str]:
        return {g.label: g.clinician for g in analysis.groups}

    section: ReportSection = Section(name="s", text=lambda page: [])
    on_the_report: typing.Callable[[Analysis], Mapping[str, str]] = marks
    assert section.name == "s" and not section.reads("x.eval") and on_the_report is marks


def test_the_report_refuses_a_capabilitys_section_that_is_not_a_section() -> None:
    class Named:
        name = "impostor"

        @staticmethod
        def reads(path: str) -> bool:
            return False

    shipped = measures.CAPABILITIES[0]
    wrong = dataclasses.replace(shipped, name="impostor_capability", sections=(Named(),))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(measures, "CAPABILITIES", (*measures.CAPABILITIES, wrong))
        with pytest.raises(TypeError, match="capability impostor_capability: its section "):
            full_report.registered_sections()
