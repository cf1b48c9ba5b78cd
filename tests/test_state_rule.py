"""The state rule (protocol section 3, step 4), branch by branch."""

from __future__ import annotations

from inspect_medsp.encounter.state import StateMove, next_state


def test_no_change_is_kept_without_a_correction() -> None:
    assert next_state(1, "shock", False, 1, "shock") == StateMove(1, "shock")
    assert next_state(1, "shock", True, None, "") == StateMove(1, "shock")
    assert next_state(1, "shock", True, None, None) == StateMove(1, "shock")


def test_one_step_forward_on_eos_is_taken() -> None:
    assert next_state(1, "shock", True, 2, "ward") == StateMove(2, "ward")


def test_a_move_while_eos_is_false_is_refused() -> None:
    assert next_state(0, "initial_assessment", False, 1, "shock") == StateMove(
        0,
        "initial_assessment",
        "controller moved the state to 1:shock while eos was false; kept 0:initial_assessment",
    )
    # a label change alone is a move too
    assert next_state(0, "a", False, None, "b").index == 0
    assert next_state(0, "a", False, None, "b").label == "a"


def test_a_jump_is_held_to_one_step() -> None:
    assert next_state(1, "shock", True, 3, "discharge") == StateMove(
        2, "discharge", "controller jumped from index 1 to 3; held to one step"
    )


def test_a_label_change_without_an_index_advance_advances_one_step() -> None:
    assert next_state(1, "shock", True, 1, "ward") == StateMove(
        2,
        "ward",
        "controller changed the label to ward without advancing the index; advanced to 2",
    )
    # no index at all with a new label: the index is taken as unchanged
    assert next_state(1, "shock", True, None, "ward").index == 2


def test_moving_back_is_refused() -> None:
    assert next_state(2, "ward", True, 1, "shock") == StateMove(
        2, "ward", "controller moved back to index 1; kept 2:ward"
    )
    assert next_state(2, "ward", True, 0, "ward") == StateMove(
        2, "ward", "controller moved back to index 0; kept 2:ward"
    )
