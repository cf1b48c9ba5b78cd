"""The one token rule shared by the scripted provider and the cost estimate."""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4.0
"""Characters per token assumed for English prose and JSON with BPE tokenizers such as
``o200k_base`` (OpenAI's rule of thumb; counts of real runs come from the provider)."""


def estimate_tokens(text_or_chars: str | float) -> int:
    """Tokens in a text (or in a number of characters), rounded up; 0 for nothing."""
    chars = len(text_or_chars) if isinstance(text_or_chars, str) else text_or_chars
    return math.ceil(chars / CHARS_PER_TOKEN) if chars > 0 else 0
