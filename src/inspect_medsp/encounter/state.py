"""The state rule of protocol section 3, step 4, as a pure function.

While the clinician has not declared the stage done (``eos`` false) the state stays where it
is; when it has, the state advances exactly one step. The controller proposes; this rule
decides, and says in a correction whenever it overruled the proposal.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StateMove:
    """Where the state goes after a turn, and the correction made to the proposal if any."""

    index: int
    label: str
    correction: str | None = None


def next_state(
    index: int, label: str, eos: bool, proposed_index: int | None, proposed_label: str | None
) -> StateMove:
    """Apply the stage rules to the state the controller proposes.

    Args:
        index: Progress index before the turn.
        label: State label before the turn.
        eos: Whether the clinician declared the stage done.
        proposed_index: The controller's index (None: unchanged).
        proposed_label: The controller's label (empty or None: unchanged).
    """
    to_index = index if proposed_index is None else proposed_index
    to_label = proposed_label or label
    if (to_index, to_label) == (index, label):
        return StateMove(index, label)
    if not eos:
        return StateMove(
            index,
            label,
            f"controller moved the state to {to_index}:{to_label} while eos was false; "
            f"kept {index}:{label}",
        )
    if to_index == index + 1:
        return StateMove(to_index, to_label)
    if to_index > index + 1:
        return StateMove(
            index + 1,
            to_label,
            f"controller jumped from index {index} to {to_index}; held to one step",
        )
    if to_index == index:
        return StateMove(
            index + 1,
            to_label,
            f"controller changed the label to {to_label} without advancing the index; "
            f"advanced to {index + 1}",
        )
    return StateMove(
        index,
        label,
        f"controller moved back to index {to_index}; kept {index}:{label}",
    )
