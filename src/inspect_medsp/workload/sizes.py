"""The sizes the token model is made of (:mod:`inspect_medsp.workload.model` adds them up):
the assumed reply sizes (:class:`Assumptions`), a role's and a run's estimate
(:class:`RoleEstimate`, :class:`Estimate`), a growing history's calls and what the prompt cache
serves of them, and the encounter record the grader and the auditor read, turn by turn."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.record import StrategySettings, Trajectory, render_record
from inspect_medsp.tokens import (
    CACHE_MIN_TOKENS,
    CACHE_STEP_TOKENS,
    CHARS_PER_TOKEN,
    cached_prefix_chars,
    estimate_tokens,
)

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
    cached = (
        sum(_cacheable(first + (t - 1) * step if t else shared, a) for t in range(calls))
        if calls
        else 0
    )
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
