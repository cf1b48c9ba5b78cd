"""The task parameters, checked once at load: ``-T`` values arrive as strings or YAML values.

Every bad value becomes one :class:`MedSPParameterError` line naming the parameter, the value
given and what is accepted, so ``inspect eval`` prints it without a traceback and exits
non-zero before any data is fetched or any model is called.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

from inspect_medsp.calls import DEFAULT_JUDGE
from inspect_medsp.encounter import Protocol
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.measure import Switch
from inspect_medsp.preflight import Count, ModelName, Temperature
from inspect_medsp.record import MAX_TURNS, Shard, Strategy, StrategySettings

ACCEPTED: dict[str, str] = {
    "cases": "a folder of your own case folders (medsp-cases new <folder>/<case> starts one)",
    "identifiers": "refuse or allow (allow: run a set whose check finds identifiers, even with "
    "a remote model; the log records the findings)",
    "data_dir": "a local folder holding <case_id>/<scenarioN>/<role>/*.md (or omit it)",
    "upstream_dir": "a local folder holding rubrics/ and subset.json (or omit it)",
    "data_revision": "a Hub branch, tag or commit of byrLLCC/MedSP1000 (or omit it)",
    "scenarios": "scenario ids or globs, comma-separated, e.g. 'mededportal_100*/*' (omit "
    "it to run every scenario)",
    "variants": "variant names or variant files, comma-separated, e.g. "
    "'baseline,anxious,low_literacy' (omit it to play each case as published)",
    "max_turns": "a whole number of at least 1 (the turn limit of an encounter)",
    "protocol": "turns or tools",
    "judge": "a model name provider/model, e.g. openai/gpt-5.5 (a model: a person plays the "
    "clinician only, with --model medsp/human)",
    "cache": "true or false",
    "strategy": "off, single, bon or medagents",
    "n": "a whole number of at least 1 (best-of-N candidates per turn)",
    "experts": "a whole number of at least 1 (medagents specialists)",
    "consensus_rounds": "a whole number of at least 0 (medagents voting rounds)",
    "sample_temperature": "a number from 0 to 2",
    "fixed_temperature": "a number from 0 to 2",
    "specialties": "a specialties file written by medsp-specialties (or omit it)",
    "grader_samples": "a whole number of at least 1 (gradings per encounter, by majority)",
    "feedback": "true or false (practice mode: show a person the checklist after grading)",
    "shard": "K/N, part K of N counted from 1, e.g. 2/4 (or omit it to run the whole "
    "selection)",
}
"""What each parameter accepts, as said in its error message (a measurement's switch says it
in its own :class:`~inspect_medsp.measure.Switch`)."""

_STRATEGY = StrategySettings()
"""The strategy defaults, which the task parameters take over."""

SOURCE_PARAMETERS = ("data_dir", "upstream_dir", "data_revision")
"""Where the data comes from: parameters of the tasks that read the benchmark, not of the
bundled demo."""

CUSTOM_PARAMETERS = ("cases", "identifiers")
"""Where a custom set comes from, and whether it may leave with identifiers in it: the
parameters of ``medsp_custom`` alone."""

OTHERS = "kwargs"
"""The name of a task's ``**kwargs``: the measurements' switches, and the ``-T`` names of the
run it does not take."""


class TaskParameters(BaseModel):
    """Every parameter a MedSP task takes, validated (see :data:`ACCEPTED`), each with its
    default and meaning: the tasks (``tasks/__init__.py``) write them out in their signatures
    (``tests/test_tasks.py`` holds the two to the same names and defaults) and take their
    docstrings' ``Args:`` from these fields (:meth:`describe`).

    A measurement's ``-T`` switch is no field: its capability declares it
    (``measure.Switch``), the tasks take it as a keyword and :meth:`check` puts its checked
    value in :attr:`switches`, so adding a measurement never edits this module."""

    model_config = ConfigDict(frozen=True, extra="forbid", coerce_numbers_to_str=True)

    cases: str | None = Field(
        default=None,
        description="Your own cases: a folder of case folders (``docs/case-format.md``), "
        "or a tree in the published layout.",
    )
    identifiers: Literal["refuse", "allow"] = Field(
        default="refuse",
        description="What to do with a custom set in which ``medsp-cases check`` finds likely "
        "identifiers: ``refuse`` to send it to a remote model, or ``allow`` it (the log "
        "records the findings).",
    )
    data_dir: str | None = Field(
        default=None,
        description="Local scenario tree in the Hub layout (default: download "
        "byrLLCC/MedSP1000).",
    )
    upstream_dir: str | None = Field(
        default=None,
        description="Local folder with ``rubrics/`` and ``subset.json`` (default: download "
        "the pinned reference archive).",
    )
    data_revision: str | None = Field(
        default=None, description="Hub revision of the scenario data (default ``main``)."
    )
    scenarios: list[str] | None = Field(
        default=None, description="Ids or globs (comma-separated) to run a part of the benchmark."
    )
    variants: list[str] | None = Field(
        default=None,
        description="Patient variants, comma-separated (``baseline`` is the case as "
        "published; a name of the shipped library or the path of your own variant file): "
        "each scenario runs once per variant.",
    )
    max_turns: Annotated[Count, Field(ge=1)] = Field(
        default=MAX_TURNS, description="Turn limit per encounter."
    )
    protocol: Protocol = Field(
        default="turns",
        description="``turns`` (the paper's JSON turns) or ``tools`` (an agent with tools).",
    )
    judge: ModelName = Field(
        default=DEFAULT_JUDGE,
        description="Model for patient, environment and grader roles not given with "
        "--model-role.",
    )
    cache: bool = Field(
        default=False,
        description="Cache model replies with Inspect's response cache, so a re-run of the "
        "same encounters costs nothing.",
    )
    strategy: Strategy = Field(
        default=_STRATEGY.strategy,
        description="Clinician test-time compute: ``off``, ``single``, ``bon`` or "
        "``medagents``.",
    )
    n: Annotated[Count, Field(ge=1)] = Field(
        default=_STRATEGY.n, description="Candidates per turn for ``bon``."
    )
    experts: Annotated[Count, Field(ge=1)] = Field(
        default=_STRATEGY.experts, description="Specialists for ``medagents``."
    )
    consensus_rounds: Annotated[Count, Field(ge=0)] = Field(
        default=_STRATEGY.consensus_rounds, description="Voting rounds for ``medagents``."
    )
    sample_temperature: Temperature = Field(
        default=_STRATEGY.sample_temperature,
        description="Temperature of ``bon`` candidates and ``medagents`` advice.",
    )
    fixed_temperature: Temperature = Field(
        default=_STRATEGY.fixed_temperature,
        description="Temperature of every role under ``single`` (and of selection).",
    )
    specialties: str | None = Field(
        default=None,
        description="A specialties file (from ``medsp-specialties``) whose labels go into "
        "sample metadata; it must label every scenario.",
    )
    grader_samples: Annotated[Count, Field(ge=1)] = Field(
        default=1,
        description="Grade each encounter this many times and score each item by majority "
        "(the scorer's ``samples``; repeats run at temperature 1.0).",
    )
    feedback: bool = Field(
        default=False,
        description="Practice mode for a person in the clinician's chair (``--model "
        "medsp/human``): after grading, show the checklist with its evidence in the terminal.",
    )
    shard: Shard | None = Field(
        default=None,
        description="Run part K of N of the selected scenarios (``2/4``): the same parts on "
        "every machine, balanced by the estimated calls and tokens; write each part's log "
        "to ``<run>.shards/<K>/`` and medsp-report reads them as one run.",
    )
    switches: dict[str, bool] = Field(
        default_factory=dict,
        description="The measurements' switches (``-T audit=true``), checked against the "
        "switches the registered capabilities declare: name -> on. Not a ``-T`` name itself.",
    )

    @field_validator("cases", "data_dir", "upstream_dir", "specialties", mode="before")
    @classmethod
    def _path_as_text(cls, value: Any) -> Any:
        """Python callers may pass a ``Path``."""
        return os.fspath(value) if isinstance(value, os.PathLike) else value

    @field_validator("scenarios", mode="before")
    @classmethod
    def _split_patterns(cls, value: Any) -> Any:
        """``-T scenarios=a,b`` arrives as one string; a YAML list arrives as a list."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, list | tuple):
            patterns = [str(s).strip() for s in value if str(s).strip()]
            if not patterns:
                # an empty selection is a mistake, not "every scenario": omit it for that
                raise PydanticCustomError("empty", "no scenario id or glob given")
            return patterns
        return value

    @field_validator("variants", mode="before")
    @classmethod
    def _split_variants(cls, value: Any) -> Any:
        """``-T variants=a,b`` arrives as one string; a YAML list arrives as a list."""
        if isinstance(value, os.PathLike):
            value = [os.fspath(value)]
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, list | tuple):
            names = [os.fspath(v) if isinstance(v, os.PathLike) else str(v) for v in value]
            names = [n.strip() for n in names if n.strip()]
            if not names:
                raise PydanticCustomError("empty", "no variant given")
            return names
        return value

    @classmethod
    def check(cls, switches: Sequence[Switch] = (), /, **params: Any) -> TaskParameters:
        """Validate the parameters a task was called with.

        Args:
            switches: The switches of the registered capabilities
                (``measures.switches()``): a name among them is a switch, checked by it.
            **params: The task's parameters, switches among them.

        Raises:
            MedSPParameterError: One line per bad parameter, joined on one line.
        """
        given = {s.name: params.pop(s.name) for s in switches if s.name in params}
        lines = [line for s in switches if (line := s.refusal(given.get(s.name, True)))]
        checked = None
        try:
            checked = cls.model_validate(
                params | {"switches": {s.name: s.value(given) for s in switches if not lines}}
            )
        except ValidationError as exc:
            lines = [_error_line(error, params) for error in exc.errors()] + lines
        if lines or checked is None:
            raise MedSPParameterError("; ".join(dict.fromkeys(lines)))
        if checked.protocol == "tools" and checked.strategy != "off":
            raise tools_refuse_strategy(checked.strategy)
        return checked

    def switched(self, name: str) -> bool:
        """Whether the measurement switch ``name`` is on (False when no capability declares
        it)."""
        return self.switches.get(name, False)

    @classmethod
    def names(cls, exclude: Sequence[str] = ()) -> tuple[str, ...]:
        """The ``-T`` names of the fields, in order (less ``exclude``; ``switches`` is none)."""
        return tuple(n for n in cls.model_fields if n not in (*exclude, "switches"))

    @classmethod
    def describe(cls, exclude: Sequence[str] = (), switches: Sequence[Switch] = ()) -> str:
        """The ``Args:`` section of a task docstring, from the fields' descriptions and the
        registered capabilities' ``switches`` (their help)."""
        described = [(n, cls.model_fields[n].description or "") for n in cls.names(exclude)]
        described += [(s.name, s.help) for s in switches]
        lines = ["Args:"]
        for name, text in described:
            lines += textwrap.wrap(
                f"{name}: {text}", width=92, initial_indent="    ", subsequent_indent="        "
            )
        return "\n".join(lines)

    def strategy_settings(self) -> StrategySettings:
        """The clinician strategy these parameters choose."""
        return StrategySettings(
            strategy=self.strategy,
            n=self.n,
            experts=self.experts,
            consensus_rounds=self.consensus_rounds,
            sample_temperature=self.sample_temperature,
            fixed_temperature=self.fixed_temperature,
        )


def tools_refuse_strategy(strategy: str) -> MedSPParameterError:
    """The error for a strategy asked of the tools protocol."""
    return MedSPParameterError(
        f"strategy={strategy} works with protocol=turns only (the tools protocol lets your "
        "own agent decide how to spend compute): drop strategy or use protocol=turns"
    )


def _error_line(error: Any, params: dict[str, Any]) -> str:
    """``name=value`` is not accepted: what ``name`` takes."""
    loc = error.get("loc") or ()
    name = str(loc[0]) if loc else ""
    if name not in ACCEPTED:
        return " ".join(str(error.get("msg", "invalid task parameters")).split())
    value = params.get(name, error.get("input"))
    shown = " ".join(repr(value).split())
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"task parameter {name}={shown} is not accepted: {name} takes {ACCEPTED[name]}"
