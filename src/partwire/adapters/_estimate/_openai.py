"""OpenAI Chat Completions and Responses request bodies, counted with ``o200k_base``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from partwire.adapters._estimate._guess import guess_pages, note_server_tool
from partwire.adapters._estimate._media import (
    b64_bytes,
    image_tokens,
    media_seconds_tokens,
    openai_image_tokens,
    pdf_info_b64,
    pdf_text_tokens,
    split_data_url,
)
from partwire.adapters._estimate._text import (
    Tally,
    count_text,
    drop_titles,
    json_text,
    known_count,
    model_name,
    obj,
    seq,
)

__all__ = [
    "estimate_openai_chat_body",
    "estimate_openai_responses_body",
]



def _ts_type(schema: Any, indent: str, defs: Mapping[str, Any]) -> str:
    if not isinstance(schema, dict):
        return "any"
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in defs:
        target = defs[ref.rsplit("/", 1)[-1]]
        return _ts_type({**target, "$ref": None}, indent, {}) if isinstance(target, dict) else "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(json_text(v) for v in schema["enum"]) or "any"
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



# OpenAI's cookbook framing: every message costs 3 tokens plus its role (and 1 for a name), and the
# reply is primed with 3. Tool definitions go into the system turn as a TypeScript-like namespace.
_O_MESSAGE = 4
_O_REPLY = 3
_O_TOOLS = 12  # the namespace's own framing beyond its rendered text
_O_TOOL_CALL = 8
_O_STRUCTURED = 10  # "# Response Formats" framing around a JSON schema
# A PDF file part is shown as its extracted text plus an image of each page (OpenAI's file inputs
# guide); the page image measured 220 tokens on the corpus's one-page PDF (gpt-4o), and the text
# layer is counted from the PDF's own content streams.
_O_PDF_PAGE = 220
# Audio input is 1 token per 100 ms (OpenAI's audio and realtime guides); the corpus's two
# requests bill 25 audio tokens for 2.6 s of MP3 (usage details).
_O_AUDIO_SECOND = 10.0
# The longest audio input a request takes (about 25 MB of audio; taken as an hour): the upper
# bound of a clip whose length could not be read.
_O_AUDIO_LIMIT = 3600.0
# A PDF by file id or URL: at most 100 pages (File inputs guide); a dense page's text layer
# is taken as at most 1,000 tokens.
_O_PDF_PAGES = 100
_O_PAGE_TEXT_HIGH = 1000


def estimate_openai_chat_body(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Chat Completions request body, counted with ``o200k_base``."""
    model = model_name(body)
    tally = Tally(_O_REPLY)
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, dict):
            tally.add_text(message)
            continue
        tally.fixed += _O_MESSAGE + (1 if message.get("name") else 0)
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                _openai_part(part, tally, model, responses=False)
        else:
            tally.add_text(content)
        for call in seq(message.get("tool_calls")):
            if isinstance(call, dict):
                fn = call.get("function") or call.get("custom") or {}
                tally.fixed += _O_TOOL_CALL
                tally.add_text(fn.get("name"))
                tally.add_text(fn.get("arguments", fn.get("input")))
        for key in ("reasoning_content", "refusal"):
            tally.add_text(message.get(key))
    functions = [t.get("function") if t.get("type") == "function" else t
                 for t in seq(body.get("tools")) if isinstance(t, dict)]
    _openai_tools([f for f in functions if isinstance(f, dict)], tally)
    if functions and _HARMONY.match(model):
        effort = body.get("reasoning_effort")
        tally.add_text(_harmony_system(effort if isinstance(effort, str) else "medium"))
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and isinstance(fmt.get("json_schema"), dict):
        _openai_schema(fmt["json_schema"], tally)
    return tally.total(1.0)


# The reasoning models (gpt-5, the o-series, gpt-oss) read their prompt in OpenAI's published
# "harmony" format. Through Chat Completions, a request with tools is billed its system message
# as well: the model's identity, knowledge cutoff, date, reasoning effort, the valid channels,
# and the line sending tool calls to the commentary channel (harmony's documented rendering).
# Without tools it is not billed: the corpus's gpt-5 requests without tools are exact by the
# cookbook framing alone, and its one with tools was 71 tokens short, the length of this text.
# The Responses API bills none of it (the same request there is within its framing).
_HARMONY = re.compile(r"^(?:gpt-5|gpt-oss|o\d)")
_HARMONY_SYSTEM = (
    "You are ChatGPT, a large language model trained by OpenAI.\n"
    "Knowledge cutoff: 2024-06\n"
    "Current date: 2025-06-28\n\n"
    "Reasoning: {effort}\n\n"
    "# Valid channels: analysis, commentary, final. Channel must be included for every message.\n"
    "Calls to these tools must go to the commentary channel: 'functions'.")


def _harmony_system(effort: str) -> str:
    return _HARMONY_SYSTEM.format(effort=effort)


def _openai_tools(functions: Sequence[Mapping[str, Any]], tally: Tally) -> None:
    if functions:
        tally.fixed += _O_TOOLS
        tally.add_text(_render_functions(functions))


def _openai_schema(spec: Mapping[str, Any], tally: Tally) -> None:
    tally.fixed += _O_STRUCTURED
    tally.add_text(spec.get("name"))
    tally.add_text(spec.get("description"))
    tally.add_text(drop_titles(spec.get("schema")))



def _openai_part(part: Any, tally: Tally, model: str, *, responses: bool) -> None:
    """One content part of a message or a tool output; ``responses`` picks the API's file rule."""
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
        key = url if isinstance(url, str) and data is None else part.get("file_id")
        detail_text = detail if isinstance(detail, str) else None

        def formula(width: int, height: int) -> int:
            return openai_image_tokens(width, height, detail_text, model)

        tally.fixed += image_tokens(data[1] if data else None, key if isinstance(key, str) else None,
                                    formula, ("openai", str(detail_text), model))
    elif kind in ("file", "input_file"):
        file = obj(part.get("file")) if kind == "file" else part
        _openai_file(file, tally, responses=responses)
    elif kind == "input_audio":
        audio = obj(part.get("input_audio"))
        data = audio.get("data")
        tally.fixed += media_seconds_tokens(data if isinstance(data, str) else None, None,
                                            video=False, per_second=_O_AUDIO_SECOND,
                                            limit=_O_AUDIO_LIMIT)
    else:
        tally.add_text(part)



def _openai_file(file: Mapping[str, Any], tally: Tally, *, responses: bool) -> None:
    """A file part: a PDF by its pages and text layer, any other file by its decoded text.

    A file by id or URL has no bytes in the body: it counts as a one-page PDF with no text.
    """
    data = split_data_url(str(file.get("file_data", "")))
    media_type, payload = data if data else ("", None)
    name = str(file.get("filename", "")).lower()
    if payload and media_type not in ("", "application/pdf") and not name.endswith(".pdf"):
        tally.add_text(b64_bytes(payload).decode("utf-8", "replace"))
        return
    if not payload:
        key = next((v for k in ("file_id", "file_url") if isinstance(v := file.get(k), str)), None)
        page = _R_FILE if responses else _O_PDF_PAGE
        low = _R_FILE if responses else _O_PDF_PAGE
        tally.fixed += guess_pages(key, page, low, _O_PAGE_TEXT_HIGH + (0 if responses else page),
                                   _O_PDF_PAGES)
        return
    pages, chars = pdf_info_b64(payload)
    tally.text += pdf_text_tokens(chars)
    tally.fixed += _R_FILE if responses else _O_PDF_PAGE * pages


_R_ITEM = 4  # an input item's framing, like a chat message
# Encrypted state (reasoning, compaction) is replayed to the model: about one token per 13
# characters of its ciphertext (fitted on the corpus's encrypted reasoning items).
_R_ENCRYPTED_CHARS = 13.0
# input_file: Responses counted a PDF's text layer and about 7 tokens around it, with no page
# image, on the corpus's one-page PDF (gpt-4o, inline and by URL; fitted on those two requests).
_R_FILE = 7


def estimate_openai_responses_body(body: Mapping[str, Any]) -> int:
    """Estimated input tokens of a Responses API request body, counted with ``o200k_base``.

    Server-side state (``previous_response_id``, ``conversation``) is not in the body and is
    not counted.
    """
    model = model_name(body)
    tally = Tally(_O_REPLY)
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
    live = next((i for i in range(len(items) - 1, -1, -1)
                 if isinstance(items[i], dict) and items[i].get("role") == "user"), -1)
    # The latest compaction item carries the context of every item before it (OpenAI's
    # compaction guide): those are not counted, the compaction item is. One pass; a compaction
    # item takes the tally back to this point.
    start = (tally.text, tally.fixed)
    for index, item in enumerate(items):
        if isinstance(item, dict):
            kind = item.get("type", "message")
            # The items an agent's history is made of (a message of one text, a call, its
            # output as text) are counted here from the memo, without a call per item: half the
            # estimate's count of a 1,000-event history.
            if kind == "message" or kind == "function_call_output":
                text = item.get("content" if kind == "message" else "output")
                if type(text) is str:
                    tally.fixed += _R_ITEM
                    tally.text += known_count(text) or count_text(text)
                    continue
            elif kind == "function_call":
                name, text = item.get("name"), item.get("arguments", item.get("input"))
                if type(name) is str and type(text) is str:
                    tally.fixed += _O_TOOL_CALL
                    tally.text += (known_count(name) or count_text(name)) + (
                        known_count(text) or count_text(text))
                    continue
            elif kind == "compaction":
                tally.text, tally.fixed = start
            elif kind == "reasoning" and index < live:
                continue
        _responses_item(item, tally, model)
    functions = [t for t in seq(body.get("tools"))
                 if isinstance(t, dict) and t.get("type") == "function"]
    _openai_tools(functions, tally)
    for index, tool in enumerate(seq(body.get("tools"))):
        if isinstance(tool, dict) and tool.get("type") not in ("function", "custom", None):
            # A hosted tool (web search, file search, image generation, ...): OpenAI publishes
            # no count for its instructions, and what its calls read is not in the request.
            note_server_tool(index, str(tool.get("type")), 0)
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        _openai_schema(fmt, tally)
    return tally.total(1.0)


def _responses_item(item: Any, tally: Tally, model: str) -> None:
    if not isinstance(item, dict):
        tally.add_text(item)
        return
    kind = item.get("type", "message")
    if kind == "message":
        tally.fixed += _R_ITEM
        content = item.get("content")
        if isinstance(content, list):
            for part in content:
                _openai_part(part, tally, model, responses=True)
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
                _openai_part(part, tally, model, responses=True)
        else:
            tally.add_text(output)
    elif kind == "reasoning":
        # Encrypted reasoning is replayed to the model: about one token per 13 characters of
        # its ciphertext (fitted); without it, the summary is what can be counted.
        encrypted = item.get("encrypted_content")
        if isinstance(encrypted, str) and encrypted:
            tally.fixed += len(encrypted) / _R_ENCRYPTED_CHARS
        else:
            for part in seq(item.get("summary")):
                if isinstance(part, dict):
                    tally.add_text(part.get("text"))
    elif kind == "compaction":
        encrypted = item.get("encrypted_content")
        if isinstance(encrypted, str):
            tally.fixed += _R_ITEM + len(encrypted) / _R_ENCRYPTED_CHARS
    elif kind == "item_reference":
        pass
    else:
        tally.fixed += _R_ITEM
        tally.add_text({k: v for k, v in item.items() if k not in ("id", "status")})
