"""The one token rule shared by the scripted provider and the cost estimate, and the one rule
of what a provider's prompt cache serves (the estimate and ``bench.cache_bench`` bill by it)."""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4.0
"""Characters per token assumed for English prose and JSON with BPE tokenizers such as
``o200k_base`` (OpenAI's rule of thumb; counts of real runs come from the provider)."""


def estimate_tokens(text_or_chars: str | float) -> int:
    """Tokens in a text (or in a number of characters), rounded up; 0 for nothing."""
    chars = len(text_or_chars) if isinstance(text_or_chars, str) else text_or_chars
    return math.ceil(chars / CHARS_PER_TOKEN) if chars > 0 else 0


CACHE_MIN_TOKENS = 1024
"""The shortest repeated prompt prefix a provider's cache serves (OpenAI: 1,024 tokens; so do
Anthropic's most used models)."""
CACHE_STEP_TOKENS = 128
"""Beyond the minimum, the cache serves a prefix in steps of this many tokens (OpenAI's
increments of 128)."""


def cached_prefix_tokens(
    shared_tokens: int, minimum: int = CACHE_MIN_TOKENS, step: int = CACHE_STEP_TOKENS
) -> int:
    """The tokens a provider's prefix cache serves of a prompt whose first ``shared_tokens``
    repeat an earlier request: none below ``minimum``, else the longest multiple of ``step``
    that fits (1,024 + 128k for OpenAI)."""
    if shared_tokens < minimum or shared_tokens <= 0:
        return 0
    return shared_tokens // step * step if step > 0 else shared_tokens


def cached_prefix_chars(shared_chars: float, minimum: int = CACHE_MIN_TOKENS,
                        step: int = CACHE_STEP_TOKENS) -> int:
    """:func:`cached_prefix_tokens` of a repeated prefix of ``shared_chars`` characters, in
    characters (whole tokens of :data:`CHARS_PER_TOKEN` characters; a part token is not
    served)."""
    tokens = cached_prefix_tokens(int(shared_chars // CHARS_PER_TOKEN), minimum, step)
    return round(tokens * CHARS_PER_TOKEN)
