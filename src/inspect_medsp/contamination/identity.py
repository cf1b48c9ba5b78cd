"""How the probes name a case to the model: where it was published, its title, and its
clinical topic with the identifying details removed."""

from __future__ import annotations

from inspect_medsp.data import SampleRecord, mededportal_doi


def source_of(record: SampleRecord) -> str:
    """Where the case was published, as the prompt names it."""
    meta = record.scenario.metadata
    doi = mededportal_doi(record.scenario.case_id)
    return meta.get("source") or (f"MedEdPORTAL, doi:{doi}" if doi else "MedEdPORTAL")


def title_of(record: SampleRecord) -> str:
    """The case's title (its id when the data has none)."""
    meta = record.scenario.metadata
    return meta.get("title") or meta.get("scenario_title") or record.id


def topic_of(title: str) -> str:
    """The clinical topic of a case's title, its identifying details removed: not quoted
    (not cited as a title), no numbers, in lower case, and in a title written in sentence
    case no capitalised word after the first (a name: "Mrs Lee", "Springfield")
    ("Anaphylaxis after a wasp sting" -> "anaphylaxis after a wasp sting")."""
    head, colon, _ = title.partition(":")
    if colon and len(head.split()) >= 2:
        title = head  # "Acute Stroke: A Simulation for Residents": the subtitle is no topic
    found = [w.strip("\"'()[],:;") for w in title.split()]
    found = [w for w in found if w and not any(c.isdigit() for c in w)]
    long = [w for w in found[1:] if len(w) >= 4]
    title_case = bool(long) and sum(w[:1].isupper() for w in long) * 2 > len(long)
    kept = [
        w.casefold() for i, w in enumerate(found) if i == 0 or title_case or not w[:1].isupper()
    ]
    return " ".join(kept) or "a clinical problem"
