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
from functools import cache

from pydantic import BaseModel, ConfigDict, Field

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
from inspect_medsp.tokens import (
    CACHE_MIN_TOKENS,
    CACHE_STEP_TOKENS,
    CHARS_PER_TOKEN,
    cached_prefix_chars,
    estimate_tokens,
)

SCORING = "inspect_medsp.scoring"
STRATEGIES = "inspect_medsp.strategies"
AUDIT = "inspect_medsp.audit"
ROLES = ("clinician", "patient", "environment", "grader", "auditor", "probes", "strategy")
"""Rows of an estimate; ``grader`` includes its repeats (``grader_samples``), ``auditor`` is
``-T audit=true``, ``probes`` the grader probes scored afterwards, ``strategy`` every extra
call of ``bon`` or ``medagents``."""
GRADING_ROLES = ("grader", "auditor", "probes")
"""The rows that can be run afterwards with ``inspect score``, in the provider's batch API."""
PROBES = ("recital", "injection", "padding", "removal")
PROBE_CHANGE = {"recital": 1.0, "injection": 1.0, "padding": 0.0, "removal": 0.5}
"""Where in the record each probe's first change falls (a share of its turns): the record
before it is the same as the unchanged record's, so the cache serves it."""
PADDING_CHARS = 640
"""Small talk the padding probe adds to every clinician turn."""


class Assumptions(BaseModel):
    """What the estimate cannot know before the run, in characters.

    The reply sizes are the mean sizes of the replies in the shipped demo scripts
    (``inspect_medsp/scripted/scripts``), rounded; wordier models scale them with
    ``reply_scale``. Hidden reasoning tokens are not included.
    """

    model_config = ConfigDict(frozen=True)

    turns: int | None = None
    """Turns per encounter; ``None``: every encounter runs to ``max_turns`` (an upper bound)."""
    reply_scale: float = Field(default=1.0, gt=0)
    clinician_speech: int = 155
    clinician_actions: int = 95
    clinician_reply: int = 280
    patient_lines: int = 90
    patient_reply: int = 140
    environment_story: int = 170
    """Feedback and events, what the clinician and the patient are told."""
    environment_status: int = 45
    environment_reply: int = 710
    """The whole controller JSON, bookkeeping and action assessments included."""
    grader_per_item: int = 140
    grader_reasoning: int = 400
    strategy_note: int = 120
    """A selection, specialty list or vote reply."""
    advice: int = 600
    """One specialist's advice."""
    auditor_reply: int = 110
    """The auditor's findings and summary."""
    min_cached_tokens: int = Field(default=CACHE_MIN_TOKENS, ge=0)
    """The shortest repeated prefix a provider's cache serves (OpenAI and Anthropic: 1,024
    tokens for most models)."""
    cache_step_tokens: int = Field(default=CACHE_STEP_TOKENS, ge=1)
    """Beyond the minimum, the cache serves the prefix in steps of this many tokens (OpenAI:
    128); the rule is ``tokens.cached_prefix_tokens``, the one the cache bench bills by."""

    @property
    def min_cached_chars(self) -> int:
        return round(self.min_cached_tokens * CHARS_PER_TOKEN)

    def size(self, chars: int) -> int:
        """A reply size scaled by ``reply_scale``."""
        return round(chars * self.reply_scale)


class RoleEstimate(BaseModel):
    """Calls and tokens of one role."""

    calls: int = 0
    input_tokens: int = 0
    """Every prompt token, served from the cache or not."""
    output_tokens: int = 0
    cached_tokens: int = 0
    """Prompt tokens that repeat an earlier request's prefix: cache reads."""
    cache_write_tokens: int | None = None
    """Prompt tokens the provider reported writing to its cache (a run's actual usage only;
    the estimate bills every uncached token as written)."""

    def plus(self, other: RoleEstimate) -> RoleEstimate:
        writes = (
            None
            if self.cache_write_tokens is None and other.cache_write_tokens is None
            else (self.cache_write_tokens or 0) + (other.cache_write_tokens or 0)
        )
        return RoleEstimate(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cache_write_tokens=writes,
        )

    @property
    def uncached_tokens(self) -> int:
        """Prompt tokens no earlier request's prefix covers."""
        return self.input_tokens - self.cached_tokens

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class Estimate(BaseModel):
    """The estimate of a run: per role, summed over its scenarios."""

    scenarios: int
    items: int
    turns: int
    """Turns per encounter assumed."""
    max_turns: int
    strategy: StrategySettings
    assumptions: Assumptions
    roles: dict[str, RoleEstimate]

    @property
    def total(self) -> RoleEstimate:
        out = RoleEstimate()
        for role in self.roles.values():
            out = out.plus(role)
        return out


def _cacheable(chars: int, a: Assumptions) -> int:
    """What the cache serves of a repeated prefix of ``chars`` characters, in characters
    (``tokens.cached_prefix_chars``: 1,024 tokens or more, in steps of 128)."""
    return cached_prefix_chars(chars, a.min_cached_tokens, a.cache_step_tokens)


def _growing(
    calls: int,
    first: int,
    step: int,
    output: int,
    shared: int = 0,
    a: Assumptions | None = None,
) -> RoleEstimate:
    """``calls`` calls whose prompt starts at ``first`` characters and grows by ``step``.

    Each call after the first repeats the whole previous prompt; the first repeats
    ``shared`` characters (instructions an earlier scenario sent, 0 when none did).
    """
    a = a or Assumptions()
    prompt_chars = calls * first + step * calls * (calls - 1) // 2
    cached = sum(
        _cacheable(first + (t - 1) * step if t else shared, a) for t in range(calls)
    ) if calls else 0
    return RoleEstimate(
        calls=calls,
        input_tokens=estimate_tokens(prompt_chars),
        output_tokens=estimate_tokens(calls * output),
        cached_tokens=estimate_tokens(cached),
    )


def _text(chars: int) -> str:
    return "x" * max(chars, 0)


@cache
def _empty_record_chars() -> int:
    """The record of an encounter with no turn (a fresh Trajectory is costly to make: made
    once)."""
    return len(render_record(Trajectory()))


def record_chars(turns: int, a: Assumptions) -> int:
    """The encounter record the grader reads, after ``turns`` turns: each action once, with
    the controller's status and rationale (and its interpretation, when it rephrases the
    action: assumed half the action's length)."""
    fixed = _empty_record_chars()
    actions = a.size(a.clinician_actions)
    per_turn = (
        len("-- turn 10 --\n")
        + len("Clinician says: \n")
        + a.size(a.clinician_speech)
        + 2 * (len("Clinician action:  [executed; ]\n") + actions // 2)
        + len("; interpreted as ")
        + actions // 2
        + 2 * 20  # a short rationale for each action
        + len("Patient says: \n")
        + a.size(a.patient_lines)
        + len("Environment: \n")
        + a.size(a.environment_story)
        + len(" -> 1:stage_label")
    )
    return fixed + turns * per_turn


def audit_record_chars(turns: int, a: Assumptions) -> int:
    """The encounter record the auditor reads, after ``turns`` turns (``audit/render.py``)."""
    actions = a.size(a.clinician_actions)
    per_turn = (
        len("-- turn 10 --\n")
        + len("Clinician says: \n")
        + a.size(a.clinician_speech)
        + 2 * (len("Clinician action:  [controller: executed ()]\n") + actions // 2 + 20)
        + len("Clinician asks to end the stage: no\n")
        + len("Patient side (patient) says: \n")
        + a.size(a.patient_lines)
        + len("Environment feedback: \n")
        + a.size(a.environment_story)
        + len("State after: stage 1 (stage_label); patient status: \n")
        + a.environment_status
    )
    return len("ENDED: should_end ()") + 60 + turns * per_turn


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


def encounter_estimate(
    record: SampleRecord, turns: int, a: Assumptions, warm: bool = False
) -> dict[str, RoleEstimate]:
    """The clinician, patient and environment of one encounter of ``turns`` turns.
    ``warm``: an earlier scenario sent each role's instructions."""
    packets = record.scenario.packets
    speech, actions = _text(a.size(a.clinician_speech)), _text(a.size(a.clinician_actions))
    lines, story = _text(a.size(a.patient_lines)), _text(a.size(a.environment_story))
    status, label = _text(a.environment_status), "stage_label_x"
    clinician_first = len(render("clinician_system", package=ENCOUNTER)) + len(
        render(
            "clinician_opening",
            package=ENCOUNTER,
            materials=packets.examinee,
            state_label=INITIAL_LABEL,
            patient_status=INITIAL_STATUS,
        )
    )
    update = len(
        render(
            "clinician_update",
            package=ENCOUNTER,
            change_line="[State change] The situation has changed.",
            state_label=label,
            patient_status=status,
            observations=story,
            patient_lines=lines,
        )
    )
    patient_turn = len(
        render(
            "patient_turn",
            package=ENCOUNTER,
            patient_status=status,
            events_block=f"What just happened around you:\n{story}\n",
            speech=speech,
            actions_block=f"You see the clinician:\n{actions}\n",
        )
    )
    environment_turn = len(
        render(
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
    )
    # each role's opening: its instructions (the same in every scenario), then its packet
    instructions = {
        role: len(render(f"{role}_system", package=ENCOUNTER)) if warm else 0
        for role in ("clinician", "patient", "environment")
    }
    patient_system = len(render("patient_system", package=ENCOUNTER)) + len(patient_opening(record))
    environment_system = len(render("environment_system", package=ENCOUNTER)) + len(
        render("environment_materials", package=ENCOUNTER, packet=packets.environment_controller)
    )
    clinician_reply = a.size(a.clinician_reply)
    patient_reply = a.size(a.patient_reply)
    environment_reply = a.size(a.environment_reply)
    return {
        "clinician": _growing(
            turns,
            clinician_first,
            clinician_reply + update,
            clinician_reply,
            instructions["clinician"],
            a,
        ),
        "patient": _growing(
            turns,
            patient_system + patient_turn,
            patient_reply + patient_turn,
            patient_reply,
            instructions["patient"],
            a,
        ),
        "environment": _growing(
            turns,
            environment_system + environment_turn,
            environment_reply + environment_turn,
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
