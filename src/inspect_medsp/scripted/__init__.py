"""``medsp/scripted``: a scripted stand-in for every role of the bundled demo scenarios.

It is not a model. It replays hand-written scripts (package data under ``scripts/``) so the
whole pipeline, from encounter to checklist to report, runs with no network and no key.
"""
