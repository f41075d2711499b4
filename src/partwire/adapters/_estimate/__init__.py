"""Offline input-token estimates of provider request bodies (docs/accounting.md).

Every adapter's ``estimate_input_tokens`` builds the body ``to_wire`` would send and counts it
here, so the estimate follows the adapter's own choices. The counting is provider-neutral where
it can be (text through one real BPE tokenizer, image sizes read from the image header, PDF pages,
audio and video durations) and per wire format where the providers differ (their framing, their image
formulas, how they render tool definitions). The constants in each wire format's module were fitted on two thirds of the
recorded requests in ``shared/corpus`` and checked on the rest (``tests/accounting``).

The tokenizer is OpenAI's ``o200k_base`` from ``bpe-openai`` (the ``partwire[tokens]`` extra:
GitHub's Rust BPE with the encodings inside the wheel, so it loads with no network). Claude and
Gemini use their own, unpublished vocabularies; their counts are the ``o200k`` count times a
fitted ratio. Without the extra, text is counted by a calibrated characters-per-token rule.
"""

from __future__ import annotations

from partwire.adapters._estimate._anthropic import claude_tool_prompt, estimate_anthropic_body
from partwire.adapters._estimate._google import estimate_google_body
from partwire.adapters._estimate._guess import note_unknown
from partwire.adapters._estimate._media import (
    anthropic_image_tokens,
    audio_seconds,
    b64_bytes,
    b64_size,
    google_image_tokens,
    image_size,
    image_tokens,
    media_seconds_tokens,
    openai_image_tokens,
    pdf_info_b64,
    pdf_pages,
    pdf_pages_b64,
    pdf_text_tokens,
    video_seconds,
)
from partwire.adapters._estimate._openai import (
    estimate_openai_chat_body,
    estimate_openai_responses_body,
)
from partwire.adapters._estimate._text import (
    Tally,
    count_text,
    obj,
    seq,
    tokenizer_name,
)

# The Bedrock estimate counts Claude's and Nova's bodies with the same pieces (bedrock/_tokens.py).
__all__ = [
    "Tally",
    "anthropic_image_tokens",
    "audio_seconds",
    "b64_bytes",
    "b64_size",
    "claude_tool_prompt",
    "count_text",
    "estimate_anthropic_body",
    "estimate_google_body",
    "estimate_openai_chat_body",
    "estimate_openai_responses_body",
    "google_image_tokens",
    "image_size",
    "image_tokens",
    "media_seconds_tokens",
    "note_unknown",
    "obj",
    "openai_image_tokens",
    "pdf_info_b64",
    "pdf_pages",
    "pdf_pages_b64",
    "pdf_text_tokens",
    "seq",
    "tokenizer_name",
    "video_seconds",
]
