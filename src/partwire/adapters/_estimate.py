"""Offline input-token estimates of provider request bodies (docs/accounting.md).

Every adapter's ``estimate_input_tokens`` builds the body ``to_wire`` would send and counts it
here, so the estimate follows the adapter's own choices. The counting is provider-neutral where
it can be (text through one real BPE tokenizer, image sizes read from the image header, PDF pages,
audio duration) and per wire format where the providers differ (their framing, their image
formulas, how they render tool definitions). The constants below were fitted on two thirds of the
recorded requests in ``shared/corpus`` and checked on the rest (``tests/accounting``).

The tokenizer is OpenAI's ``o200k_base`` from ``bpe-openai`` (the ``partwire[tokens]`` extra:
GitHub's Rust BPE with the encodings inside the wheel, so it loads with no network). Claude and
Gemini use their own, unpublished vocabularies; their counts are the ``o200k`` count times a
fitted ratio. Without the extra, text is counted by a calibrated characters-per-token rule.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any

__all__ = [
    "anthropic_image_tokens",
    "audio_seconds",
    "count_text",
    "estimate_anthropic_body",
    "estimate_google_body",
    "estimate_openai_chat_body",
    "estimate_openai_responses_body",
    "forget_counts",
    "google_image_tokens",
    "image_size",
    "openai_image_tokens",
    "pdf_pages",
    "tokenizer_name",
]

# --- text -------------------------------------------------------------------------------------

# Without a tokenizer: English prose and JSON average about 4 characters per o200k token; text
# with many non-ASCII characters is closer to one token per character.
_CHARS_PER_TOKEN = 4.0


@cache
def _tokenizer() -> Callable[[str], int] | None:
    with warnings.catch_warnings():
        # bpe-openai reads its data with importlib.resources.open_binary (deprecated, harmless).
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            from bpe_openai import _bindings  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            return None
        counter: Callable[[str], int] = _bindings.tokenizer_for_encoding("o200k_base").count
    return counter


def tokenizer_name() -> str:
    """The tokenizer behind :func:`count_text`: ``o200k_base`` or the character-count fallback."""
    return "o200k_base (bpe-openai)" if _tokenizer() is not None else "characters/4 (fallback)"


# Counts of longer strings are remembered: an agent estimates its growing history before every
# call, and without this each estimate would tokenize the whole history again (quadratic over a
# session). Short strings are cheaper to count than to look up. The memory is dropped whole
# when it holds more than _MEMO_CHARS characters of text.
_MEMO: dict[str, int] = {}
_MEMO_MIN = 48
_MEMO_CHARS = 32_000_000
_memo_chars = 0


def count_text(text: str) -> int:
    """The ``o200k_base`` tokens of ``text`` (special-token text counts as plain text)."""
    global _memo_chars
    if not text:
        return 0
    size = len(text)
    if size >= _MEMO_MIN:
        known = _MEMO.get(text)
        if known is not None:
            return known
    counter = _tokenizer()
    if counter is not None:
        tokens = counter(text)
    else:
        wide = sum(1 for ch in text if ord(ch) > 0x2FF)
        tokens = math.ceil((size - wide) / _CHARS_PER_TOKEN + wide)
    if size >= _MEMO_MIN:
        if _memo_chars + size > _MEMO_CHARS:
            _MEMO.clear()
            _memo_chars = 0
        _MEMO[text] = tokens
        _memo_chars += size
    return tokens


def forget_counts() -> None:
    """Drop the remembered counts (a benchmark's cold start; never needed for correctness)."""
    global _memo_chars
    _MEMO.clear()
    _memo_chars = 0


# One encoder for every call: json.dumps with options builds a new one each time.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


def _json_text(value: Any) -> str:
    return _ENCODER.encode(value)


# --- media headers ----------------------------------------------------------------------------

# A JPEG's size marker sits after its EXIF block, which may hold a thumbnail: read this much.
_HEADER_BYTES = 96 * 1024
_DATA_URL = re.compile(r"^data:([^;,]*)(?:;[^,]*)?,")


def split_data_url(url: str) -> tuple[str, str] | None:
    """``(media_type, base64 payload)`` of a ``data:`` URL, or None for any other URL."""
    match = _DATA_URL.match(url)
    return (match.group(1), url[match.end():]) if match else None


def _b64_bytes(data: str, limit: int | None = None) -> bytes:
    text = data if limit is None else data[: (limit * 4 // 3) // 4 * 4]
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return b""


def _b64_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=")


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from a PNG, JPEG, GIF or WebP header, without decoding the pixels."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return (int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1)
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        # Start-of-frame markers (baseline, progressive, lossless...), not DHT/JPG/DAC.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(width), int(height)
        i += 2 + length
    return None


_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_PDF_COUNT = re.compile(rb"/Count\s+(\d+)")


def pdf_pages(data: bytes) -> int | None:
    """The page count of a PDF: its page objects, else its page tree's ``/Count``; None if neither."""
    if not data.startswith(b"%PDF"):
        return None
    pages = len(_PDF_PAGE.findall(data))
    if pages:
        return pages
    counts = [int(n) for n in _PDF_COUNT.findall(data)]
    return max(counts) if counts else None


# MPEG-1 layer III bit rates (kbit/s) by header index; MPEG-2/2.5 use the second row.
_MP3_KBPS = (
    (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0),
    (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0),
)


def audio_seconds(data: bytes) -> float | None:
    """The duration of WAV or MP3 audio from its header (MP3: first frame's bit rate)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE" and len(data) >= 32:
        byte_rate = int.from_bytes(data[28:32], "little")
        return (len(data) - 44) / byte_rate if byte_rate else None
    start = 0
    if data[:3] == b"ID3" and len(data) >= 10:
        size = data[6:10]
        start = 10 + ((size[0] << 21) | (size[1] << 14) | (size[2] << 7) | size[3])
    for i in range(start, min(len(data) - 3, start + 8192)):
        if data[i] == 0xFF and data[i + 1] & 0xE0 == 0xE0:
            version = (data[i + 1] >> 3) & 0x3
            kbps = _MP3_KBPS[0 if version == 3 else 1][data[i + 2] >> 4]
            if kbps:
                return (len(data) - i) * 8 / (kbps * 1000)
    return None


# --- per-provider image formulas ---------------------------------------------------------------

# An image whose size cannot be read (a URL, a file id) is counted as this size.
_UNKNOWN_IMAGE = (512, 512)


def anthropic_image_tokens(width: int, height: int) -> int:
    """Claude's published rule: ``w*h/750`` after fitting the long edge to 1568 px and the
    area to that of 1092x1092 (about 1,600 tokens, the most an image costs)."""
    scale = min(1.0, 1568 / max(width, height, 1), math.sqrt(1092 * 1092 / max(width * height, 1)))
    return max(1, math.ceil(width * scale * (height * scale) / 750))


def openai_image_tokens(width: int, height: int, detail: str | None, model: str) -> int:
    """OpenAI's published rule for ``model``: 32-px patches for the mini/nano models, else tiles."""
    name = model.lower()
    patch = next((m for key, m in _PATCH_MODELS if key in name), None)
    if patch is not None:
        patches = math.ceil(width / 32) * math.ceil(height / 32)
        if patches > 1536:
            shrink = math.sqrt(1536 * 32 * 32 / (width * height))
            patches = min(1536, math.ceil(width * shrink / 32) * math.ceil(height * shrink / 32))
        return math.ceil(patches * patch)
    base, tile = next((bt for key, bt in _TILE_MODELS if key in name), (85, 170))
    if detail == "low":
        return base
    scale = min(1.0, 2048 / max(width, height, 1))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / max(min(w, h), 1))
    tiles = math.ceil(w * scale / 512) * math.ceil(h * scale / 512)
    return base + tile * tiles


_PATCH_MODELS = (("gpt-5-mini", 1.62), ("gpt-5-nano", 2.46), ("gpt-4.1-mini", 1.62),
                 ("gpt-4.1-nano", 2.46), ("o4-mini", 1.72))
_TILE_MODELS = (("gpt-4o-mini", (2833, 5667)), ("o1", (75, 150)), ("o3", (75, 150)),
                ("computer-use", (65, 129)))


def google_image_tokens(width: int, height: int) -> int:
    """Gemini's published rule: 258 tokens up to 384x384 px, else 258 per 768x768 tile."""
    if width <= 384 and height <= 384:
        return 258
    tile = max(256, min(768, min(width, height) / 1.5))
    return 258 * math.ceil(width / tile) * math.ceil(height / tile)


def _image_dims(payload: str | None) -> tuple[int, int]:
    if payload:
        size = image_size(_b64_bytes(payload, _HEADER_BYTES))
        if size is not None:
            return size
    return _UNKNOWN_IMAGE


def _pdf_pages_b64(payload: str | None) -> int:
    if not payload:
        return 1
    pages = pdf_pages(_b64_bytes(payload))
    # A PDF whose pages hide in compressed object streams: about 60 kB a page.
    return pages if pages else max(1, _b64_size(payload) // 60_000)


def _audio_seconds_b64(payload: str | None) -> float:
    if not payload:
        return 0.0
    seconds = audio_seconds(_b64_bytes(payload))
    # Unknown containers: 16 kB a second (128 kbit/s).
    return seconds if seconds is not None else _b64_size(payload) / 16_000


# --- shared walking -------------------------------------------------------------------------------


class _Tally:
    """Text tokens (in o200k units, scaled later by the family's ratio) and fixed tokens."""

    __slots__ = ("fixed", "text")

    def __init__(self, fixed: float = 0.0) -> None:
        self.text = 0
        self.fixed = fixed

    def add_text(self, value: Any) -> None:
        if isinstance(value, str):
            self.text += count_text(value)
        elif value is not None:
            self.text += count_text(_json_text(value))

    def total(self, ratio: float) -> int:
        return max(1, round(self.text * ratio + self.fixed))


def _obj(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _model_name(body: Mapping[str, Any]) -> str:
    model = body.get("model")
    return model.rsplit(":", 1)[-1].lower() if isinstance(model, str) else ""


# --- tool definitions as the OpenAI models read them ----------------------------------------------


def _ts_type(schema: Any, indent: str, defs: Mapping[str, Any]) -> str:
    if not isinstance(schema, dict):
        return "any"
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in defs:
        target = defs[ref.rsplit("/", 1)[-1]]
        return _ts_type({**target, "$ref": None}, indent, {}) if isinstance(target, dict) else "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(_json_text(v) for v in schema["enum"]) or "any"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(_ts_type(s, indent, defs) for s in schema[key]) or "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        return f"{_ts_type(schema.get('items'), indent, defs)}[]"
    if kind == "object" or "properties" in schema:
        return _ts_object(schema, indent, defs)
    if kind in ("integer", "number"):
        return "number"
    return str(kind) if isinstance(kind, str) else "any"


def _ts_object(schema: Mapping[str, Any], indent: str, defs: Mapping[str, Any]) -> str:
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return "object"
    own = schema.get("$defs") or schema.get("definitions")
    if isinstance(own, dict):
        defs = {**defs, **own}
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    lines = ["{"]
    for name, prop in props.items():
        if isinstance(prop, dict) and isinstance(prop.get("description"), str):
            lines.append(f"{indent}// {prop['description']}")
        optional = "" if name in required else "?"
        lines.append(f"{indent}{name}{optional}: {_ts_type(prop, indent, defs)},")
    lines.append("}")
    return "\n".join(lines)


def _render_functions(functions: Iterable[Mapping[str, Any]]) -> str:
    """Function tools in the TypeScript-like namespace the OpenAI models are shown."""
    out = ["# Tools\n\n## functions\n\nnamespace functions {\n"]
    for fn in functions:
        if isinstance(fn.get("description"), str):
            out.append(f"// {fn['description']}")
        params = fn.get("parameters")
        args = _ts_object(params, "", {}) if isinstance(params, dict) else "object"
        out.append(f"type {fn.get('name', '')} = (_: {args}) => any;\n")
    out.append("} // namespace functions")
    return "\n".join(out)


# --- Anthropic Messages ---------------------------------------------------------------------------

# Claude's tokenizer makes about this many tokens per o200k token (fitted).
_CLAUDE_RATIO = 1.12
_A_REQUEST = 7  # "\n\nHuman: ... \n\nAssistant:" framing of the first turn
_A_MESSAGE = 3  # each further turn
_A_SYSTEM = 3
# The tool-use system prompt: Anthropic publishes 346 tokens (tool_choice auto or none) and 313
# (any or a named tool) for Claude 4.0/4.1; the 4.5 generation measures larger (fitted).
# Each definition then adds its own rendering.
_A_TOOLS_AUTO = 346
_A_TOOLS_ANY = 313
_A_TOOLS_AUTO_45 = 550
_A_TOOLS_ANY_45 = 630
_A_THINKING = 28  # the extended-thinking instructions, when thinking is on
_A_TOOL_EACH = 6
_A_TOOL_USE = 10
_A_TOOL_RESULT = 6
_A_SERVER_TOOL = 250  # a server tool's definition (web search: about 250 tokens)
_A_PDF_PAGE = 1550  # a page's text layer plus its page image
_A_STRUCTURED = 95  # structured-output instructions around the schema, shown indented


def estimate_anthropic_body(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Messages API request body, as Claude would count them."""
    tally = _Tally(_A_REQUEST)
    system = body.get("system")
    if system:
        tally.fixed += _A_SYSTEM
        _anthropic_content(system, tally)
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    # The API strips the thinking of finished turns; only an assistant turn whose tool results
    # are being sent back (the last two messages) keeps it.
    live_turn = len(messages) - 2 if _ends_in_tool_result(messages) else -1
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            tally.add_text(message)
            continue
        tally.fixed += _A_MESSAGE if index else 0
        _anthropic_content(message.get("content"), tally, keep_thinking=index == live_turn)
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        tally.fixed += _A_THINKING
    tools = body.get("tools")
    if isinstance(tools, list) and tools:
        choice = body.get("tool_choice")
        forced = (choice.get("type") if isinstance(choice, dict) else None) in ("any", "tool")
        if _claude_generation(_model_name(body)) >= (4, 5):
            tally.fixed += _A_TOOLS_ANY_45 if forced else _A_TOOLS_AUTO_45
        else:
            tally.fixed += _A_TOOLS_ANY if forced else _A_TOOLS_AUTO
        for tool in tools:
            if not isinstance(tool, dict):
                continue
            if tool.get("type") not in (None, "custom"):
                tally.fixed += _A_SERVER_TOOL
                continue
            tally.fixed += _A_TOOL_EACH
            tally.add_text({k: tool.get(k) for k in ("name", "description", "input_schema")})
    for key in ("output_format", "output_config"):
        value = body.get(key)
        schema = value.get("schema") if isinstance(value, dict) else None
        if key == "output_config" and isinstance(value, dict):
            fmt = value.get("format")
            schema = fmt.get("schema") if isinstance(fmt, dict) else None
        if schema is not None:
            tally.fixed += _A_STRUCTURED
            tally.add_text(json.dumps(schema, ensure_ascii=False, indent=2))
    return tally.total(_CLAUDE_RATIO)


_CLAUDE_VERSION = re.compile(r"claude-(?:(?:opus|sonnet|haiku)-)?(\d+)(?:[-.](\d)(?!\d))?")


def _claude_generation(model: str) -> tuple[int, int]:
    """``(major, minor)`` of a Claude model id; (4, 5) for an unknown or placeholder id."""
    match = _CLAUDE_VERSION.search(model)
    if not match:
        return (4, 5)
    return int(match.group(1)), int(match.group(2) or 0)


def _ends_in_tool_result(messages: list[Any]) -> bool:
    last = messages[-1] if messages else None
    content = last.get("content") if isinstance(last, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _anthropic_content(content: Any, tally: _Tally, *, keep_thinking: bool = True) -> None:
    if isinstance(content, str):
        tally.add_text(content)
        return
    for block in content if isinstance(content, list) else (content,):
        _anthropic_block(block, tally, keep_thinking)


def _anthropic_block(block: Any, tally: _Tally, keep_thinking: bool) -> None:
    if not isinstance(block, dict):
        tally.add_text(block)
        return
    kind = block.get("type")
    source = _obj(block.get("source"))
    if kind == "text":
        tally.add_text(block.get("text"))
    elif kind == "image":
        data = source.get("data") if source.get("type") == "base64" else None
        tally.fixed += anthropic_image_tokens(*_image_dims(data))
    elif kind == "document":
        if source.get("type") == "text":
            tally.add_text(source.get("data"))
        elif source.get("type") == "content":
            _anthropic_content(source.get("content"), tally)
        else:
            data = source.get("data") if source.get("type") == "base64" else None
            tally.fixed += _A_PDF_PAGE * _pdf_pages_b64(data)
        tally.add_text(block.get("title"))
        tally.add_text(block.get("context"))
    elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        tally.fixed += _A_TOOL_USE
        tally.add_text(block.get("name"))
        tally.add_text(block.get("input"))
    elif kind == "tool_result":
        tally.fixed += _A_TOOL_RESULT
        _anthropic_content(block.get("content"), tally)
    elif kind == "thinking":
        if keep_thinking:
            tally.add_text(block.get("thinking"))
    elif kind == "redacted_thinking":
        pass  # encrypted; what it stands for is not countable, and old turns are stripped anyway
    elif isinstance(kind, str) and kind.endswith("_tool_result"):
        tally.fixed += _A_TOOL_RESULT
        content = block.get("content")
        # Search results arrive encrypted; their titles and URLs are what can be counted.
        if isinstance(content, list):
            for item in content:
                if isinstance(item, dict):
                    tally.add_text(item.get("title"))
                    tally.add_text(item.get("url"))
        else:
            tally.add_text(content)
    else:
        tally.add_text({k: v for k, v in block.items() if k != "cache_control"})


# --- OpenAI Chat Completions ----------------------------------------------------------------------

# OpenAI's cookbook framing: every message costs 3 tokens plus its role (and 1 for a name), and the
# reply is primed with 3. Tool definitions go into the system turn as a TypeScript-like namespace.
_O_MESSAGE = 4
_O_REPLY = 3
_O_TOOLS = 12  # the namespace's own framing beyond its rendered text
_O_TOOL_CALL = 8
_O_STRUCTURED = 10  # "# Response Formats" framing around a JSON schema
_O_PDF_PAGE = 220  # a page's text plus its page image, as Chat Completions counts a file part
_O_AUDIO_SECOND = 5.0  # measured: 25 audio tokens for 5.3 s of speech (usage details)


def estimate_openai_chat_body(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Chat Completions request body, counted with ``o200k_base``."""
    model = _model_name(body)
    tally = _Tally(_O_REPLY)
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, dict):
            tally.add_text(message)
            continue
        tally.fixed += _O_MESSAGE + (1 if message.get("name") else 0)
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                _openai_part(part, tally, model)
        else:
            tally.add_text(content)
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                fn = call.get("function") or call.get("custom") or {}
                tally.fixed += _O_TOOL_CALL
                tally.add_text(fn.get("name"))
                tally.add_text(fn.get("arguments", fn.get("input")))
        for key in ("reasoning_content", "refusal"):
            tally.add_text(message.get(key))
    functions = [t.get("function") if t.get("type") == "function" else t
                 for t in body.get("tools") or () if isinstance(t, dict)]
    _openai_tools([f for f in functions if isinstance(f, dict)], tally)
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and isinstance(fmt.get("json_schema"), dict):
        _openai_schema(fmt["json_schema"], tally)
    return tally.total(1.0)


def _openai_tools(functions: Sequence[Mapping[str, Any]], tally: _Tally) -> None:
    if functions:
        tally.fixed += _O_TOOLS
        tally.add_text(_render_functions(functions))


def _openai_schema(spec: Mapping[str, Any], tally: _Tally) -> None:
    tally.fixed += _O_STRUCTURED
    tally.add_text(spec.get("name"))
    tally.add_text(spec.get("description"))
    tally.add_text(_drop_titles(spec.get("schema")))


def _drop_titles(schema: Any) -> Any:
    """A JSON schema without its ``title`` annotations, which the models are not shown."""
    if isinstance(schema, dict):
        return {k: _drop_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_drop_titles(v) for v in schema]
    return schema


def _openai_part(part: Any, tally: _Tally, model: str) -> None:
    if not isinstance(part, dict):
        tally.add_text(part)
        return
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text"):
        tally.add_text(part.get("text"))
    elif kind == "refusal":
        tally.add_text(part.get("refusal"))
    elif kind in ("image_url", "input_image"):
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        detail = image.get("detail") if isinstance(image, dict) else part.get("detail")
        data = split_data_url(url) if isinstance(url, str) else None
        width, height = _image_dims(data[1] if data else None)
        tally.fixed += openai_image_tokens(width, height, detail, model)
    elif kind == "file":
        file = _obj(part.get("file"))
        data = split_data_url(str(file.get("file_data", "")))
        tally.fixed += _O_PDF_PAGE * _pdf_pages_b64(data[1] if data else None)
    elif kind == "input_audio":
        audio = _obj(part.get("input_audio"))
        tally.fixed += math.ceil(_O_AUDIO_SECOND * _audio_seconds_b64(audio.get("data")))
    else:
        tally.add_text(part)


# --- OpenAI Responses -------------------------------------------------------------------------

_R_ITEM = 4  # an input item's framing, like a chat message
_R_ENCRYPTED_CHARS = 13.0
_R_FILE = 15  # input_file: Responses counts the extracted text layer only (measured)


def estimate_openai_responses_body(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Responses API request body, counted with ``o200k_base``.

    Server-side state (``previous_response_id``, ``conversation``) is not in the body and is
    not counted.
    """
    model = _model_name(body)
    tally = _Tally(_O_REPLY)
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        tally.fixed += _R_ITEM
        tally.add_text(instructions)
    items = body.get("input")
    if isinstance(items, str):
        tally.fixed += _R_ITEM
        tally.add_text(items)
        items = []
    items = items if isinstance(items, list) else []
    # Reasoning of finished turns (before the last user message) is dropped by the API.
    live = max((i for i, item in enumerate(items)
                if isinstance(item, dict) and item.get("role") == "user"), default=-1)
    for index, item in enumerate(items):
        if index < live and isinstance(item, dict) and item.get("type") == "reasoning":
            continue
        _responses_item(item, tally, model)
    functions = [t for t in body.get("tools") or ()
                 if isinstance(t, dict) and t.get("type") == "function"]
    _openai_tools(functions, tally)
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        _openai_schema(fmt, tally)
    return tally.total(1.0)


def _responses_item(item: Any, tally: _Tally, model: str) -> None:
    if not isinstance(item, dict):
        tally.add_text(item)
        return
    kind = item.get("type", "message")
    if kind == "message":
        tally.fixed += _R_ITEM
        content = item.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "input_file":
                    tally.fixed += _R_FILE
                else:
                    _openai_part(part, tally, model)
        else:
            tally.add_text(content)
    elif kind in ("function_call", "custom_tool_call"):
        tally.fixed += _O_TOOL_CALL
        tally.add_text(item.get("name"))
        tally.add_text(item.get("arguments", item.get("input")))
    elif kind in ("function_call_output", "custom_tool_call_output"):
        tally.fixed += _R_ITEM
        output = item.get("output")
        if isinstance(output, list):
            for part in output:
                _openai_part(part, tally, model)
        else:
            tally.add_text(output)
    elif kind == "reasoning":
        # Encrypted reasoning is replayed to the model: about one token per 13 characters of
        # its ciphertext (fitted); without it, the summary is what can be counted.
        encrypted = item.get("encrypted_content")
        if isinstance(encrypted, str) and encrypted:
            tally.fixed += len(encrypted) / _R_ENCRYPTED_CHARS
        else:
            for part in item.get("summary") or ():
                if isinstance(part, dict):
                    tally.add_text(part.get("text"))
    elif kind == "item_reference":
        pass
    else:
        tally.fixed += _R_ITEM
        tally.add_text({k: v for k, v in item.items() if k not in ("id", "status")})


# --- Google Gemini generateContent --------------------------------------------------------------

# Gemini's SentencePiece vocabulary makes about this many tokens per o200k token (fitted).
_GEMINI_RATIO = 1.0
_G_TURN = 1
_G_REQUEST = 0
# A thought signature replays the model's earlier thinking: about one token per 6 base64
# characters (fitted on the corpus's tool loops).
_G_SIGNATURE_CHARS = 6.0
_G_SIGNATURE_HEADER = 300
_G_PDF_PAGE = 258  # published: a PDF page is an image of 258 tokens
_G_AUDIO_SECOND = 32.0  # published
_G_VIDEO_SECOND = 263.0  # published: 258 a frame at 1 fps plus 32 of audio
_G_TOOLS = 5


def estimate_google_body(body: Mapping[str, Any], model: str | None = None) -> int:
    """Estimated input tokens of a Gemini ``generateContent`` body (the model is in the URL)."""
    tally = _Tally(_G_REQUEST)
    system = body.get("systemInstruction") or body.get("system_instruction")
    if isinstance(system, dict):
        tally.fixed += _G_TURN
        _google_parts(system.get("parts"), tally)
    contents = body.get("contents")
    contents = contents if isinstance(contents, list) else []
    # Only the model turn being continued replays its thinking through its signatures.
    live = max((i for i, c in enumerate(contents)
                if isinstance(c, dict) and c.get("role") == "model"), default=-1)
    for index, content in enumerate(contents):
        tally.fixed += _G_TURN
        if isinstance(content, dict):
            _google_parts(content.get("parts"), tally, signatures=index == live)
    for tool in body.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        tally.fixed += _G_TOOLS
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if isinstance(declarations, list):
            tally.add_text(_drop_titles(declarations))
    # generationConfig.responseSchema is not counted: promptTokenCount leaves it out (measured).
    return tally.total(_GEMINI_RATIO)


def _google_parts(parts: Any, tally: _Tally, *, signatures: bool = False) -> None:
    for part in parts if isinstance(parts, list) else ():
        if not isinstance(part, dict):
            tally.add_text(part)
            continue
        signature = part.get("thoughtSignature") or part.get("thought_signature")
        if signatures and isinstance(signature, str):
            tally.fixed += max(0, len(signature) - _G_SIGNATURE_HEADER) / _G_SIGNATURE_CHARS
        if "text" in part:
            tally.add_text(part.get("text"))
        inline = part.get("inlineData") or part.get("inline_data")
        if isinstance(inline, dict):
            tally.fixed += _google_media(str(inline.get("mimeType", inline.get("mime_type", ""))),
                                         inline.get("data"))
        file = part.get("fileData") or part.get("file_data")
        if isinstance(file, dict):
            tally.fixed += _google_media(str(file.get("mimeType", file.get("mime_type", ""))), None)
        for key in ("functionCall", "function_call", "functionResponse", "function_response",
                    "executableCode", "codeExecutionResult"):
            value = part.get(key)
            if isinstance(value, dict):
                tally.add_text(value)


def _google_media(mime: str, data: Any) -> int:
    payload = data if isinstance(data, str) else None
    if mime.startswith("image/"):
        return google_image_tokens(*_image_dims(payload))
    if mime == "application/pdf":
        return _G_PDF_PAGE * _pdf_pages_b64(payload)
    if mime.startswith("audio/"):
        return math.ceil(_G_AUDIO_SECOND * _audio_seconds_b64(payload))
    if mime.startswith("video/"):
        return math.ceil(_G_VIDEO_SECOND * max(1.0, _b64_size(payload or "") / 250_000))
    return count_text(_b64_bytes(payload).decode("utf-8", "replace")) if payload else 0
