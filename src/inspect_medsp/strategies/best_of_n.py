"""Best-of-N: N sampled clinician turns, then the clinician model picks one.

Per turn the model under test drafts ``n`` turns at ``sample_temperature``, all from the same
history; then, at ``fixed_temperature``, it is shown the same history with the numbered drafts
and asked for ``{"choice": k, "reason": "..."}``. Only the chosen draft is returned (and so
enters the history). An unusable choice falls back to draft 1, and the log says so.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, GenerateConfig, Model, get_model
from inspect_ai.solver import TaskState
from inspect_ai.util import span

from inspect_medsp.calls import RoleResult, generate_json
from inspect_medsp.encounter import CLINICIAN, ClinicianPolicy
from inspect_medsp.record import BestOfNTurn, Candidate, ClinicianReply, Selection, StrategySettings
from inspect_medsp.strategies.common import (
    ContextFull,
    Ledger,
    current_turn,
    gather_in_spans,
    prompt,
    read_object,
    record_step,
    reply_json,
    start_record,
    usable_text,
    with_instruction,
)

Draft = RoleResult[ClinicianReply]

_NUMBER = re.compile(r"-?\d+")


def candidate_block(drafts: list[RoleResult[ClinicianReply]]) -> str:
    """The drafts, numbered from 1, for the selection prompt (refused drafts are never
    among them: see :func:`select`)."""
    blocks = []
    for i, draft in enumerate(drafts, start=1):
        note = ""
        if draft.degraded and draft.stop_reason == "max_tokens":
            note = " (unusable: cut off at the token limit, would say and do nothing)"
        elif draft.degraded:
            note = " (unusable: not valid JSON, would be taken as speech only)"
        blocks.append(f"Option {i}{note}:\n{reply_json(draft.reply)}")
    return "\n\n".join(blocks)


def parse_choice(text: str, count: int) -> tuple[int | None, str, str]:
    """Read ``{"choice": k, "reason": ...}`` tolerantly.

    Returns:
        The 1-based choice (``None`` when unusable), the reason given, and what was wrong
        (empty when the choice is usable).
    """
    data, problem = read_object(text)
    if data is None:
        return None, "", problem
    reason = data.get("reason", "")
    reason = reason if isinstance(reason, str) else str(reason)
    value: Any = data.get("choice")
    choice: int | None = None
    if isinstance(value, bool):
        choice = None
    elif isinstance(value, int):
        choice = value
    elif isinstance(value, float) and value.is_integer():
        choice = int(value)
    elif isinstance(value, str):
        match = _NUMBER.search(value)
        choice = int(match.group()) if match else None
    if choice is None:
        return None, reason, f"no usable 'choice' in the reply ({value!r})"
    if not 1 <= choice <= count:
        return None, reason, f"choice {choice} is not between 1 and {count}"
    return choice, reason, ""


async def select(
    model: Model,
    history: list[ChatMessage],
    drafts: list[RoleResult[ClinicianReply]],
    config: GenerateConfig,
    ledger: Ledger,
) -> tuple[int, str, Selection]:
    """Ask the clinician model to pick one draft.

    Drafts the provider refused are not offered; when every draft was refused the turn is
    the first draft, a refusal. A selection the provider refused or cut off falls back to the
    first draft offered, visibly.

    Returns:
        The 1-based draft chosen, the reason, and the selection record for the log.

    Raises:
        ContextFull: The selection prompt no longer fits the clinician model's window.
    """
    offered = [i for i, d in enumerate(drafts, start=1) if not d.refused]
    if not offered:
        return 1, "every candidate was refused by the provider", Selection(called=False)
    if len(offered) == 1:
        only = "only one candidate" if len(drafts) == 1 else "the other candidates were refused"
        return offered[0], only, Selection(called=False)
    options = [drafts[i - 1] for i in offered]
    text = prompt("bon_select", candidates=candidate_block(options), count=len(options))
    asked = with_instruction(history, text)
    async with span("selection", type="selection"):
        output = await model.generate(asked, config=config)
    used = ledger.add("selection", output)
    raw, unusable = usable_text(output, asked, "best-of-N selection")
    choice, reason, problem = (None, "", unusable) if unusable else parse_choice(raw, len(options))
    record = Selection(called=True, raw=raw, fallback=choice is None, problem=problem, tokens=used)
    if choice is None:
        first = offered[0]
        transcript().info(f"selection unusable ({problem}): falling back to candidate {first}")
        return first, f"fallback to candidate {first}: {problem}", record
    return offered[choice - 1], reason, record


def best_of_n_policy(settings: StrategySettings) -> Callable[[TaskState], ClinicianPolicy]:
    """Build the best-of-N clinician policy for a sample.

    Args:
        settings: ``n`` drafts per turn at ``sample_temperature``; selection at
            ``fixed_temperature``.
    """
    sample_config = GenerateConfig(temperature=settings.sample_temperature)
    fixed_config = GenerateConfig(temperature=settings.fixed_temperature)

    def build(state: TaskState) -> ClinicianPolicy:
        model = get_model()  # inspect-evals-lint: ignore[IEBP001] -- build() runs in solve()
        start_record(state, settings)

        def draft_job(history: list[ChatMessage]) -> Callable[[], Awaitable[Draft]]:
            async def job() -> Draft:
                return await generate_json(model, history, CLINICIAN, sample_config)

            return job

        async def policy(history: list[ChatMessage]) -> Draft:
            turn = current_turn(state)
            ledger = Ledger()
            async with span(f"best-of-{settings.n}", type="strategy"):
                drafts = await gather_in_spans(
                    [(f"candidate {i}", draft_job(history)) for i in range(1, settings.n + 1)],
                    "candidate",
                )
                candidates: list[Candidate] = []
                for i, result in enumerate(drafts, start=1):
                    used = ledger.add("candidate", result.output, index=i)
                    candidates.append(
                        Candidate(
                            index=i,
                            reply=result.reply,
                            outcome=result.outcome,
                            retries=result.retries,
                            tokens=used,
                        )
                    )
                full = next((d for d in drafts if d.context_exhausted), None)
                if full is not None:
                    transcript().info(
                        f"best-of-{settings.n}, turn {turn}: the clinician model's context "
                        "window is full"
                    )
                    return full
                try:
                    chosen, reason, selection = await select(
                        model, history, drafts, fixed_config, ledger
                    )
                except ContextFull as err:
                    transcript().info(
                        f"best-of-{settings.n}, turn {turn}: the clinician model's context "
                        "window is full (selection)"
                    )
                    return err.result
                transcript().info(
                    f"best-of-{settings.n}, turn {turn}: candidate {chosen} chosen "
                    f"({ledger.tokens} tokens): {reason}"
                )
            step = BestOfNTurn(
                turn=turn,
                candidates=candidates,
                chosen=chosen,
                reason=reason,
                selection=selection,
                calls=ledger.calls,
                tokens=ledger.tokens,
                per_call=ledger.by_call,
            )
            record_step(state, settings, step)
            return drafts[chosen - 1]

        return policy

    return build
