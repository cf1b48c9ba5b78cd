"""The token model of a run: every role's calls and prompt sizes, turn by turn.

Each role keeps an append-only history, so its prompt at turn ``t`` is its fixed opening
(system prompt with its private packet, first message) plus ``t - 1`` exchanges. The fixed
parts are measured by rendering the package's own prompt templates with the scenario's
packets and rubric; the exchanges by rendering the per-turn templates with replies of the
assumed sizes (:class:`Assumptions`). Characters become tokens at
:data:`~inspect_medsp.tokens.CHARS_PER_TOKEN`. This mirrors what ``bench/encounter_bench.py``
measures (calls and prompt characters per role and turn), with realistic reply sizes.

The prompt cache: every request of a role after the first starts with the whole previous
request (its history is only appended to), and the first request of every scenario after the
first starts with the role's instructions (the same in every scenario). That repeated prefix,
when it is at least :attr:`Assumptions.min_cached_tokens` long, is what a provider's prefix
cache serves (``cached_tokens``); the rest is new input, written to the cache.
``bench/cache_bench.py`` measures the same split on the scripted demo.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from inspect_medsp.data import Rubric, SampleRecord
from inspect_medsp.encounter import PACKAGE as ENCOUNTER
from inspect_medsp.encounter import patient_opening
from inspect_medsp.record import (
    INITIAL_LABEL,
    INITIAL_STATUS,
    StrategySettings,
    Trajectory,
    render_checklist,
    render_record,
)
from inspect_medsp.templates import render
from inspect_medsp.tokens import CHARS_PER_TOKEN, estimate_tokens
from inspect_medsp.workload.sizes import (
    PADDING_CHARS,
    PROBE_CHANGE,
    ROLES,
    Assumptions,
    Estimate,
    RoleEstimate,
    _cacheable,
    _growing,
    _text,
    audit_record_chars,
    record_chars,
)

SCORING = "inspect_medsp.scoring"
STRATEGIES = "inspect_medsp.strategies"
AUDIT = "inspect_medsp.audit"


def _grading(
    system: int, prompt: int, output: int, calls: int, warm: bool, a: Assumptions
) -> RoleEstimate:
    """``calls`` identical single-request gradings: the first repeats only the instructions
    (when an earlier scenario sent them), every further one the whole prompt."""
    cached = (_cacheable(system, a) if warm else 0) + (calls - 1) * _cacheable(prompt, a)
    return RoleEstimate(
        calls=calls,
        input_tokens=estimate_tokens(calls * prompt),
        output_tokens=estimate_tokens(calls * output),
        cached_tokens=estimate_tokens(cached),
    )


def _grader_prompt(rubric: Rubric, record: int) -> tuple[int, int, int]:
    """The grader's instructions, its whole prompt, and the prompt before the record."""
    system = len(render("grader_system", package=SCORING))
    request = render(
        "grader_request",
        package=SCORING,
        checklist=render_checklist(rubric),
        record=_text(record),
        n_items=rubric.n_items,
    )
    head = request.index("x" * record) if record else len(request)
    return system, system + len(request), system + head


def grader_estimate(
    rubric: Rubric, turns: int, a: Assumptions, samples: int = 1, warm: bool = False
) -> RoleEstimate:
    """The gradings of one encounter (``samples`` of them): instructions, checklist, record.
    ``warm``: an earlier scenario sent the instructions."""
    system, prompt, _ = _grader_prompt(rubric, record_chars(turns, a))
    output = a.size(a.grader_reasoning + a.grader_per_item * rubric.n_items)
    return _grading(system, prompt, output, samples, warm, a)


def _auditor_persona(record: SampleRecord) -> str:
    """What the auditor reads of a patient variant's instructions (nothing without one)."""
    variant = record.variant
    if variant is None or not variant.patient:
        return ""
    return render("auditor_persona", package=AUDIT, instructions=variant.patient)


def auditor_estimate(
    record: SampleRecord, turns: int, a: Assumptions, warm: bool = False
) -> RoleEstimate:
    """The audit of one encounter (``-T audit=true``): instructions, the two packets, the
    record."""
    packets = record.scenario.packets
    system = len(render("auditor_system", package=AUDIT))
    request = render(
        "auditor_request",
        package=AUDIT,
        patient=packets.sp_actor,
        persona=_auditor_persona(record),
        environment=packets.environment_controller,
        n_turns=turns,
        record=_text(audit_record_chars(turns, a)),
    )
    return _grading(system, system + len(request), a.size(a.auditor_reply), 1, warm, a)


def probes_estimate(
    rubric: Rubric, turns: int, probes: Iterable[str], a: Assumptions, warm: bool = False
) -> RoleEstimate:
    """The grader probes of one encounter: a fresh grading of the record and one of each
    perturbed copy. A copy repeats the unchanged record up to its first change (recital and
    injection change the last turn, padding the first, removal assumed half-way)."""
    record = record_chars(turns, a)
    system, prompt, head = _grader_prompt(rubric, record)
    output = a.size(a.grader_reasoning + a.grader_per_item * rubric.n_items)
    out = _grading(system, prompt, output, 1, warm, a)
    checklist = len(render_checklist(rubric))
    per_turn = (record - len(render_record(Trajectory()))) // max(turns, 1)
    for probe in probes:
        added = {
            "recital": checklist // 2,
            "injection": 150,
            "padding": PADDING_CHARS * turns,
            "removal": -a.size(a.clinician_actions),
        }[probe]
        same = head + int(PROBE_CHANGE[probe] * max(turns - 1, 0)) * per_turn
        out = out.plus(
            RoleEstimate(
                calls=1,
                input_tokens=estimate_tokens(prompt + added),
                output_tokens=estimate_tokens(output),
                cached_tokens=estimate_tokens(_cacheable(same, a)),
            )
        )
    return out


class _Prompts(NamedTuple):
    """The characters of each encounter role's fixed opening and of one turn's exchange."""

    clinician_first: int
    clinician_update: int
    patient_system: int
    patient_turn: int
    environment_system: int
    environment_turn: int


def _encounter_prompts(record: SampleRecord, turns: int, a: Assumptions) -> _Prompts:
    """Each role's prompt parts, rendered from the package's templates with the scenario's
    packets and replies of the assumed sizes."""
    packets = record.scenario.packets
    speech, actions = _text(a.size(a.clinician_speech)), _text(a.size(a.clinician_actions))
    lines, story = _text(a.size(a.patient_lines)), _text(a.size(a.environment_story))
    status, label = _text(a.environment_status), "stage_label_x"
    opening = render(
        "clinician_opening",
        package=ENCOUNTER,
        materials=packets.examinee,
        state_label=INITIAL_LABEL,
        patient_status=INITIAL_STATUS,
    )
    update = render(
        "clinician_update",
        package=ENCOUNTER,
        change_line="[State change] The situation has changed.",
        state_label=label,
        patient_status=status,
        observations=story,
        patient_lines=lines,
    )
    patient_turn = render(
        "patient_turn",
        package=ENCOUNTER,
        patient_status=status,
        events_block=f"What just happened around you:\n{story}\n",
        speech=speech,
        actions_block=f"You see the clinician:\n{actions}\n",
    )
    environment_turn = render(
        "environment_turn",
        package=ENCOUNTER,
        turn=turns,
        progress_index=1,
        state_label=label,
        patient_status=status,
        speech=speech,
        actions=actions,
        eos="false",
        patient_lines=lines,
    )
    materials = render(
        "environment_materials", package=ENCOUNTER, packet=packets.environment_controller
    )
    return _Prompts(
        clinician_first=len(render("clinician_system", package=ENCOUNTER)) + len(opening),
        clinician_update=len(update),
        patient_system=len(render("patient_system", package=ENCOUNTER))
        + len(patient_opening(record)),
        patient_turn=len(patient_turn),
        environment_system=len(render("environment_system", package=ENCOUNTER)) + len(materials),
        environment_turn=len(environment_turn),
    )


def encounter_estimate(
    record: SampleRecord, turns: int, a: Assumptions, warm: bool = False
) -> dict[str, RoleEstimate]:
    """The clinician, patient and environment of one encounter of ``turns`` turns.
    ``warm``: an earlier scenario sent each role's instructions."""
    p = _encounter_prompts(record, turns, a)
    # each role's opening: its instructions (the same in every scenario), then its packet
    instructions = {
        role: len(render(f"{role}_system", package=ENCOUNTER)) if warm else 0
        for role in ("clinician", "patient", "environment")
    }
    clinician_reply = a.size(a.clinician_reply)
    patient_reply = a.size(a.patient_reply)
    environment_reply = a.size(a.environment_reply)
    return {
        "clinician": _growing(
            turns,
            p.clinician_first,
            clinician_reply + p.clinician_update,
            clinician_reply,
            instructions["clinician"],
            a,
        ),
        "patient": _growing(
            turns,
            p.patient_system + p.patient_turn,
            patient_reply + p.patient_turn,
            patient_reply,
            instructions["patient"],
            a,
        ),
        "environment": _growing(
            turns,
            p.environment_system + p.environment_turn,
            environment_reply + p.environment_turn,
            environment_reply,
            instructions["environment"],
            a,
        ),
    }


def strategy_estimate(
    record: SampleRecord, turns: int, settings: StrategySettings, a: Assumptions
) -> RoleEstimate:
    """Calls ``bon`` and ``medagents`` make beyond one clinician reply per turn.

    ``bon``: ``n - 1`` extra drafts and one selection per turn. ``medagents``: one specialty
    list per case; per turn ``experts`` advice calls, and ``experts`` votes per consensus round,
    assuming the first round agrees (no revision); the synthesis is the turn's reply.
    """
    if settings.strategy in ("off", "single"):
        return RoleEstimate()
    clinician = encounter_estimate(record, turns, a)["clinician"]
    mean_history = clinician.input_tokens / max(turns, 1)
    reply = a.size(a.clinician_reply)
    note = a.size(a.strategy_note)
    if settings.strategy == "bon":
        extra = settings.n - 1
        select = len(
            render(
                "bon_select",
                package=STRATEGIES,
                candidates=_text(reply * settings.n),
                count=settings.n,
            )
        )
        return RoleEstimate(
            calls=turns * (extra + 1),
            input_tokens=round(turns * (extra + 1) * mean_history)
            + estimate_tokens(turns * select),
            output_tokens=estimate_tokens(turns * (extra * reply + note)),
        )
    advice = a.size(a.advice)
    history = round(mean_history * CHARS_PER_TOKEN)  # the history shown as text
    system = len(render("medagents_specialist_system", package=STRATEGIES, specialty="specialty"))
    advise = system + len(render("medagents_advice", package=STRATEGIES, history=_text(history)))
    vote = system + len(
        render(
            "medagents_vote",
            package=STRATEGIES,
            history=_text(history),
            proposal=_text(reply),
            specialty="specialty",
        )
    )
    synthesis_extra = len(
        render("medagents_synthesis", package=STRATEGIES, advice=_text(advice * settings.experts))
    )
    specialties = history + len(
        render("medagents_specialties", package=STRATEGIES, experts=settings.experts)
    )
    advice_calls = turns * settings.experts
    vote_calls = turns * settings.experts * min(settings.consensus_rounds, 1)
    return RoleEstimate(
        calls=1 + advice_calls + vote_calls,
        input_tokens=estimate_tokens(
            specialties + advice_calls * advise + vote_calls * vote + turns * synthesis_extra
        ),
        output_tokens=estimate_tokens(note + advice_calls * advice + vote_calls * note),
    )


def estimate_records(
    records: Iterable[SampleRecord],
    max_turns: int,
    settings: StrategySettings | None = None,
    assumptions: Assumptions | None = None,
    *,
    audit: bool = False,
    grader_samples: int = 1,
    probes: Iterable[str] = (),
    warm: bool = False,
) -> Estimate:
    """The estimate of running every record once (with ``audit``, the auditor too; with
    ``probes``, the grader probes scored afterwards). ``warm``: the roles' instructions are
    already in the cache before the first record (an earlier part of the same run)."""
    a = assumptions or Assumptions()
    strategy = settings or StrategySettings()
    turns = min(a.turns or max_turns, max_turns)
    chosen = list(probes)
    roles = {r: RoleEstimate() for r in ROLES}
    n = items = 0
    for record in records:
        sent = warm or n > 0
        n += 1
        items += record.rubric.n_items
        for role, part in encounter_estimate(record, turns, a, sent).items():
            roles[role] = roles[role].plus(part)
        roles["grader"] = roles["grader"].plus(
            grader_estimate(record.rubric, turns, a, grader_samples, sent)
        )
        if audit:
            roles["auditor"] = roles["auditor"].plus(auditor_estimate(record, turns, a, sent))
        if chosen:
            roles["probes"] = roles["probes"].plus(
                probes_estimate(record.rubric, turns, chosen, a, sent)
            )
        roles["strategy"] = roles["strategy"].plus(strategy_estimate(record, turns, strategy, a))
    return Estimate(
        scenarios=n,
        items=items,
        turns=turns,
        max_turns=max_turns,
        strategy=strategy,
        assumptions=a,
        roles=roles,
    )
