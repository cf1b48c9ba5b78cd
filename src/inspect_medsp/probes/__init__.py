"""Grader probes: re-grade perturbed copies of a recorded encounter with the run's grader."""
