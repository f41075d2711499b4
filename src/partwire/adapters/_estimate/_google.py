"""Gemini ``generateContent`` request bodies."""

from __future__ import annotations

import base64
import binascii
import math
import mimetypes
import re
from collections.abc import Mapping
from typing import Any

from partwire._memo import memo
from partwire.adapters._estimate._guess import (
    guess_pages,
    hint_for,
    note_server_tool,
    note_unknown,
)
from partwire.adapters._estimate._media import (
    b64_bytes,
    google_image_tokens,
    image_tokens,
    media_seconds_tokens,
    pdf_pages_b64,
)
from partwire.adapters._estimate._text import (
    _SHAPES,
    Tally,
    count_text,
    drop_titles,
    seq,
    shape_key,
)

__all__ = [
    "estimate_google_body",
]


# Gemini's SentencePiece vocabulary makes about this many tokens per o200k token (fitted).
_GEMINI_RATIO = 1.0
_G_TURN = 1
_G_REQUEST = 0
# A thought signature is a protobuf of encrypted records. One record alone is a reference to
# the earlier thinking and is billed almost nothing; several records (a streamed turn's, one per
# thought chunk) or Gemini 3's wrapped form carry the thinking itself, and promptTokenCount then
# grows by the previous answer's thoughtsTokenCount. Bytes per billed token, each the ratio of
# sums over the corpus's tool loops in the fitted two thirds (measured, docs/accounting.md).
_G_SIGNATURE_REPLAY_BYTES = 4.9
_G_SIGNATURE_REFERENCE_BYTES = 52.0
_G_PDF_PAGE = 258  # published: a PDF page is an image of 258 tokens
_G_AUDIO_SECOND = 32.0  # published
_G_VIDEO_SECOND = 263.0  # published: 258 a frame at 1 fps plus 32 of audio
# The longest clips Gemini takes (published: about 9.5 hours of audio; about an hour of video at
# the default media resolution in a 1M-token context) and the most pages of a PDF (1,000): the
# upper bounds of media whose length the request does not say.
_G_AUDIO_LIMIT = 9.5 * 3600
_G_VIDEO_LIMIT = 3600.0
_G_PDF_PAGES = 1000
_IMAGE_RULE = ("google",)
# The request may set a lower media resolution than the default this estimate counts: at
# MEDIA_RESOLUTION_LOW Gemini 2.5 takes 64 tokens for an image, a PDF page or a video frame
# (published, "Media resolution"): the least a medium by URI is billed.
_G_LOW_RESOLUTION = 64
_G_TOOLS = 5
# Gemini's tokenizer keeps a run of newlines a token of its own, where o200k_base merges it into
# the punctuation before it ("}\n", ".\n\n", ":\n"): text with many line ends (a JSON schema in
# a prompt, a listing) ran 13-18% under. A space before each run makes o200k_base count the run
# apart as well. Measured on both parts of the corpus (docs/accounting.md), nothing fitted.
_NEWLINES = re.compile(r"\n+")
_G_TEXT: dict[str, int] = memo({})
_G_TEXT_LIMIT = 500_000


def estimate_google_body(body: Mapping[str, Any], model: str | None = None) -> int:
    """Estimated input tokens of a Gemini ``generateContent`` body (the model is in the URL)."""
    tally = Tally(_G_REQUEST)
    system = body.get("systemInstruction") or body.get("system_instruction")
    if isinstance(system, dict):
        _google_contents([system], tally, live=-1)
    contents = body.get("contents")
    contents = contents if isinstance(contents, list) else []
    # Only the model turn being continued (the last one) replays its thinking through its
    # signatures.
    live = -1
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if isinstance(content, dict) and content.get("role") == "model":
            live = index
            break
    _google_contents(contents, tally, live=live)
    for index, tool in enumerate(seq(body.get("tools"))):
        if not isinstance(tool, dict):
            continue
        tally.fixed += _G_TOOLS
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if isinstance(declarations, list):
            tally.add_text(drop_titles(declarations))
        for kind in tool:
            if kind not in ("functionDeclarations", "function_declarations"):
                # Google Search, URL context, code execution...: what they read is billed
                # and is not in the request.
                note_server_tool(index, kind, _G_TOOLS)
    # generationConfig.responseSchema is not counted: promptTokenCount leaves it out (measured).
    return tally.total(_GEMINI_RATIO)


# Part keys in either spelling the API accepts (camelCase is what it sends, snake_case what the
# Python SDK writes).
_SIGNATURE = frozenset({"thoughtSignature", "thought_signature"})
_MEDIA = frozenset({"inlineData", "inline_data", "fileData", "file_data"})
_STRUCTURED = frozenset({"functionCall", "function_call", "functionResponse", "function_response",
                         "executableCode", "executable_code", "codeExecutionResult",
                         "code_execution_result"})


def _google_contents(contents: list[Any], tally: Tally, *, live: int) -> None:
    """Count each content (a turn) and its parts; signatures only on content number ``live``.

    One walk over every part of the request, with Tally.add_text and Tally.add_json inline for
    text, function calls and responses (a remembered count is a dict lookup, and the frames
    cost more). The fixed tokens are added in the same order as one by one on the tally.
    """
    memo = _G_TEXT
    shapes = _SHAPES
    text = 0
    fixed = tally.fixed
    for index, content in enumerate(contents):
        fixed += _G_TURN
        if not isinstance(content, dict):
            continue
        parts = content.get("parts")
        if not isinstance(parts, list):
            continue
        signatures = index == live
        for part in parts:
            if type(part) is not dict and not isinstance(part, dict):
                tally.add_text(part)
                continue
            for key, value in part.items():
                if key == "text":
                    if type(value) is str:
                        known = memo.get(value)
                        text += known if known is not None else gemini_text(value)
                    else:
                        tally.add_text(value)
                elif key in _STRUCTURED:
                    if type(value) is dict and key in _RESPONSE:
                        # Gemini 3 puts media beside a function's output: counted as media,
                        # not as the text of their base64.
                        media = value.get("parts")
                        if isinstance(media, list) and media:
                            fixed += _nested_media(media)
                            value = {k: v for k, v in value.items() if k != "parts"}
                    if type(value) is dict:
                        found = shape_key(value)
                        if found is not None:
                            known = shapes.get(found[0])
                            if known is not None:
                                text += found[1] + known
                                continue
                        tally.add_json(value)
                    elif isinstance(value, dict):
                        tally.add_json(value)
                elif key in _SIGNATURE:
                    if signatures and isinstance(value, str):
                        fixed += signature_tokens(value)
                elif key in _MEDIA and isinstance(value, dict):
                    fixed += _media_part(key, value)
    tally.fixed = fixed
    tally.text += text


_RESPONSE = frozenset({"functionResponse", "function_response"})

_SIGNATURE_MEMO: dict[str, float] = memo({})
_SIGNATURE_MEMO_LIMIT = 20_000
_URLSAFE = str.maketrans("-_", "+/")


def gemini_text(value: str) -> int:
    """The tokens of a text part in o200k_base units, each run of newlines one of its own."""
    known = _G_TEXT.get(value)
    if known is None:
        known = count_text(_NEWLINES.sub(r" \g<0>", value) if "\n" in value else value)
        if len(_G_TEXT) >= _G_TEXT_LIMIT:
            _G_TEXT.clear()
        _G_TEXT[value] = known
    return known


def signature_tokens(signature: str) -> float:
    """What replaying one ``thoughtSignature`` adds to ``promptTokenCount`` (remembered)."""
    known = _SIGNATURE_MEMO.get(signature)
    if known is None:
        records = _signature_records(signature)
        if records is not None and len(records) == 1 and records[0][0] == 1:
            known = records[0][1] / _G_SIGNATURE_REFERENCE_BYTES
        else:
            size = sum(length for _, length in records) if records is not None \
                else len(signature) * 3 // 4
            known = size / _G_SIGNATURE_REPLAY_BYTES
        if len(_SIGNATURE_MEMO) >= _SIGNATURE_MEMO_LIMIT:
            _SIGNATURE_MEMO.clear()
        _SIGNATURE_MEMO[signature] = known
    return known


def _signature_records(signature: str) -> list[tuple[int, int]] | None:
    """The top-level (field number, byte length) records of a signature; None if unreadable."""
    try:
        raw = base64.b64decode(signature.translate(_URLSAFE) + "=" * (-len(signature) % 4),
                               validate=True)
    except (binascii.Error, ValueError):
        return None
    records: list[tuple[int, int]] = []
    index = 0
    while index < len(raw):
        key, index = _varint(raw, index)
        field, wire = key >> 3, key & 7
        start = index
        if wire == 0:
            _, index = _varint(raw, index)
        elif wire in (1, 2, 5):
            length = 8 if wire == 1 else 4 if wire == 5 else -1
            if wire == 2:
                length, start = _varint(raw, index)
            index = start + length if length >= 0 else len(raw) + 1
        else:
            return None
        if field <= 0 or index > len(raw):
            return None
        records.append((field, index - start))
    return records


def _varint(raw: bytes, index: int) -> tuple[int, int]:
    """A protobuf varint at ``index`` and the index after it; past the end reads as -1."""
    value = shift = 0
    while index < len(raw):
        byte = raw[index]
        index += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, index
        shift += 7
    return -1, len(raw) + 1


def _nested_media(parts: list[Any]) -> float:
    """The media parts inside a function response, by the same rules as a turn's own."""
    tokens = 0.0
    for part in parts:
        if not isinstance(part, dict):
            continue
        for key, value in part.items():
            if key in _MEDIA and isinstance(value, dict):
                tokens += _media_part(key, value)
    return tokens


def _media_part(key: str, value: Mapping[str, Any]) -> float:
    """One ``inlineData`` or ``fileData`` object, by Gemini's published media rules."""
    mime = value.get("mimeType", value.get("mime_type"))
    if key in ("inlineData", "inline_data"):
        data = value.get("data")
        return _google_media(mime if isinstance(mime, str) else "",
                             data if isinstance(data, str) else None, None)
    uri = value.get("fileUri", value.get("file_uri"))
    uri = uri if isinstance(uri, str) else None
    if not isinstance(mime, str) or not mime:
        # Gemini is not told the kind: it reads the file and bills it as what it is. The URI's
        # extension says it when it has one; else a guess between a second of audio and an
        # hour of video.
        mime = (mimetypes.guess_type(uri.split("?", 1)[0])[0] or "") if uri else ""
        hint = hint_for(uri)
        if hint is not None:
            # The caller's hint says what it is: a size is an image, pages a PDF, seconds
            # a video (the dearer of audio and video).
            mime = ("image/*" if hint.width and hint.height else "application/pdf" if hint.pages
                    else "video/*" if hint.seconds is not None else mime)
        if not mime.startswith(("image/", "audio/", "video/", "application/pdf")):
            tokens = google_image_tokens(512, 512)
            note_unknown(uri, "file", tokens, math.ceil(_G_AUDIO_SECOND),
                         math.ceil(_G_VIDEO_SECOND * _G_VIDEO_LIMIT),
                         "one image (the request names no media type)")
            return tokens
    return _google_media(mime, None, uri)


def _google_media(mime: str, payload: str | None, uri: str | None) -> float:
    """Gemini's published media rules; by URI (no bytes) a guess: one image, one page, a minute."""
    if mime.startswith("image/"):
        return image_tokens(payload, uri, google_image_tokens, _IMAGE_RULE, _G_LOW_RESOLUTION)
    if mime == "application/pdf":
        if payload is None:
            return guess_pages(uri, _G_PDF_PAGE, _G_LOW_RESOLUTION, _G_PDF_PAGE, _G_PDF_PAGES)
        return _G_PDF_PAGE * pdf_pages_b64(payload)
    if mime.startswith("audio/"):
        return media_seconds_tokens(payload, uri, video=False, per_second=_G_AUDIO_SECOND,
                                    limit=_G_AUDIO_LIMIT)
    if mime.startswith("video/"):
        return media_seconds_tokens(payload, uri, video=True, per_second=_G_VIDEO_SECOND,
                                    limit=_G_VIDEO_LIMIT, least=_G_LOW_RESOLUTION)
    if payload is None:
        note_unknown(uri, "file", 0, 0, math.ceil(_G_VIDEO_SECOND * _G_VIDEO_LIMIT),
                     f"nothing ({mime} by URI: its contents are not in the request)")
        return 0
    return count_text(b64_bytes(payload).decode("utf-8", "replace"))
