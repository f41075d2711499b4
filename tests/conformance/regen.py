"""Regenerate the conformance corpus (``src/partwire/conformance/cases/``) from partwire's adapters.

``nox -s conformance`` (``python -m tests.conformance.regen``) rewrites every case file;
``--check`` only says which files differ (``tests/conformance/test_corpus.py`` runs that check).
Review the diff before committing it: a changed expectation is a changed contract.

The inputs are the repository's own: the canonical scenarios (``tests/scenarios.py``) built with
each provider's echo state, the compatibility files (``tests/compat``), a few hand-written
histories and files below, and real recorded traffic (``tests/corpus``) for the wire side. Every
expected output is what partwire's own implementation (:func:`partwire.conformance.perform`)
answers, so the corpus cannot disagree with the adapters.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from partwire import ToolDefinition
from partwire.codec import dumps
from partwire.conformance import API_NAMES, perform
from partwire.ids import deterministic_sources, use_sources
from tests.harness.providers import anthropic as anthropic_kit
from tests.harness.providers import bedrock as bedrock_kit
from tests.harness.providers import google as google_kit
from tests.harness.providers import openai_responses as responses_kit
from tests.scenarios import Origin, Scenario, scenario

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "src" / "partwire" / "conformance" / "cases"
CORPUS = ROOT / "tests" / "corpus"

MODELS: dict[str, str] = {
    "anthropic": "anthropic:claude-sonnet-4-6",
    "openai_chat": "openai:gpt-5.5",
    "openai_responses": "openai:gpt-5.5",
    "google": "google:gemini-3-flash-preview",
    "bedrock": "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
}
"""The model each API's requests name."""

ORIGINS: dict[str, Origin] = {
    "anthropic": anthropic_kit.ORIGIN,
    "openai": responses_kit.ORIGIN,
    "google": google_kit.ORIGIN,
    "bedrock": bedrock_kit.ORIGIN,
}
"""Echo state by issuer: a history from each carries that issuer's signatures and ids."""

# (source name, scenario, issuer of its echo state, what it exercises)
SCENARIO_SOURCES: tuple[tuple[str, str, str, str], ...] = (
    ("plain_chat", "plain_chat", "anthropic", "a plain exchange of text"),
    ("system_developer", "system_developer", "anthropic",
     "a system prompt and a developer message, which APIs without that role attach to a user turn"),
    ("parallel_tools", "parallel_tools", "anthropic",
     "parallel tool calls with Anthropic ids, and their results grouped or split per API"),
    *((f"thinking_from_{issuer}", "thinking_tool_use", issuer,
       f"thinking signed by {issuer}: echoed to its issuer only, dropped with a loss elsewhere")
      for issuer in ("anthropic", "openai", "google", "bedrock")),
    ("redacted_thinking", "redacted_thinking", "anthropic",
     "redacted reasoning, sent byte-exact to its issuer only"),
    ("images_pdf", "images_pdf", "anthropic", "image and PDF parts in their sources"),
    ("refusal", "refusal", "anthropic", "a refusal part"),
)

# Hand-written histories: (source name, description, lines).
_T = "2026-01-01T00:00:0{}Z"
_WEATHER = {"name": "get_weather", "description": "Current weather for a city.",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                             "required": ["city"]},
            "side_effects": "none"}


def _msg(n: int, role: str, **fields: Any) -> dict[str, Any]:
    return {"v": 1, "type": "message", "role": role, "id": f"01KCQ000000000000000000{n:03d}",
            "created_at": _T.format(n % 10), **fields}


def _call(call_id: str, provider_ids: dict[str, str] | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "tool_call", "id": call_id, "name": "get_weather",
                            "arguments_json": "{\"city\":\"Paris\"}"}
    if provider_ids:
        call["provider_ids"] = provider_ids
    return call


def _tool_ids_history() -> list[dict[str, Any]]:
    """Calls whose ids come from four providers' rules, one of them (dots and a colon, from an
    OpenAI-compatible server) outside Anthropic's, Bedrock's and Mistral's id alphabets."""
    calls = [
        _call("tu_01KCQ0000000000000000C0001", {"anthropic": "toolu_01A09q90qw90lq917835lq9"}),
        _call("tu_01KCQ0000000000000000C0002", {"openai": "call_Qm3xV8bN2pLk7RtY5wZa1cD4"}),
        _call("tu_01KCQ0000000000000000C0003", {"openrouter": "functions.get_weather:0"}),
        _call("tu_01KCQ0000000000000000C0004"),
    ]
    lines = [_msg(1, "user", parts=[{"type": "text", "text": "Weather in Paris, four times?"}]),
             _msg(2, "assistant", parts=calls, provider="anthropic", api="anthropic",
                  model="anthropic:claude-sonnet-4-6", stop_reason="tool_use")]
    for i, call in enumerate(calls):
        lines.append(_msg(3 + i, "tool", call_id=call["id"], tool_name="get_weather",
                          output_text=f"{18 + i} C, clear"))
    return lines


def _unknown_history() -> list[dict[str, Any]]:
    """A part type and fields this version does not know, inside otherwise ordinary messages."""
    return [
        _msg(1, "user", parts=[{"type": "text", "text": "Look at this.", "x_highlight": "yellow"},
                               {"type": "hologram", "frames": 24, "uri": "holo://cube"}],
             x_client={"app": "demo", "build": 7}),
        _msg(2, "assistant", parts=[{"type": "text", "text": "I see a cube."}],
             provider="anthropic", api="anthropic", model="anthropic:claude-sonnet-4-6",
             stop_reason="stop"),
        _msg(3, "user", parts=[{"type": "text", "text": "Thanks."}]),
    ]


def _jsonl(lines: Iterable[Any]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)


# Files for ``validate``: (source name, description, text).
def _validate_sources() -> list[tuple[str, str, str]]:
    every_type = (ROOT / "tests" / "compat" / "v1" / "every_type.jsonl").read_text(encoding="utf-8")
    minimal = (ROOT / "tests" / "compat" / "v1" / "minimal_fields.jsonl").read_text(encoding="utf-8")
    ok = _jsonl([_msg(1, "user", parts=[{"type": "text", "text": "hi"}])])
    future = {"v": 99, "type": "message", "role": "user", "id": "01KCQ000000000000000000002",
              "created_at": "2026-01-01T00:00:02Z", "parts": [{"type": "text", "text": "from the future"}],
              "x_new": True}
    return [
        ("validate_every_type", "every part type, role, event type, media source and citation "
         "of version 1, read and written back unchanged", every_type),
        ("validate_minimal_fields", "lines with only the required fields, and an unknown field "
         "kept", minimal),
        ("validate_unknown_kept", "an unknown part type, unknown fields and an unknown event type "
         "are reported and written back as they came",
         _jsonl([*_unknown_history(),
                 {"v": 1, "type": "checkpoint", "id": "01KCQ000000000000000000009",
                  "created_at": "2026-01-01T00:00:09Z", "files": ["a.py"]}])),
        ("validate_future_version", "a line of a later schema version is kept whole and reported "
         "future_version", ok + _jsonl([future])),
        ("validate_torn_final_line", "a final line cut short by a crash is reported torn_line",
         ok + '{"v":1,"type":"message","role":"user","id":"01KCQ0000000'),
        ("validate_malformed_lines", "a line that is not JSON, a JSON array and a field of the "
         "wrong type each get their own problem kind, and the lines around them still read",
         ok + "{not json}\n" + "[1, 2]\n"
         + _jsonl([_msg(4, "user", parts=[{"type": "text", "text": 42}])]) + ok),
    ]


# Recorded traffic for ``from_wire`` and ``read_request``: API -> corpus files.
RECORDINGS: dict[str, tuple[str, ...]] = {
    "anthropic": (
        "mirascope-ts__call--anthropic--decodes-text-response",
        "mirascope-ts__format--anthropic--parses-structured-output-with-defineformat",
        "mirascope-ts__text-encoded-thoughts--anthropic--encodes-thoughts-as-text-for-model-consumption",
        "llm-anthropic__test_anthropic--test_fixed_version_tool_chain_regression__01",
        "llm-anthropic__test_anthropic--test_fixed_version_tool_chain_with_thinking_display_regression__01",
        "mirascope-ts__empty-call--anthropic--handles-empty-string-content",
    ),
    "openai_chat": (
        "mirascope-ts__call--openai_completions--decodes-text-response",
        "mirascope-ts__tool-error--openai_completions--handles-tool-execution-errors-and-retries__01",
        "mirascope-ts__context-call--openai_completions--streams-response-with-context",
        "mirascope-ts__strict-tool--openai_completions--handles-optional-properties-in-strict-mode",
    ),
    "openai_responses": (
        "mirascope-ts__call--openai_responses--decodes-text-response",
        "mirascope-ts__context-call--openai_responses--streams-response-with-context",
    ),
    "google": (
        "llm-gemini__test_gemini--test_tools__01",
        "llm-gemini__test_gemini--test_tools__03",
        "mirascope-ts__context-call--google--streams-response-with-context",
        "mirascope-ts__stream--streams-thought-content-when-includethoughts-is-true-google",
    ),
    "bedrock": (
        "mirascope__py-input--test_bedrock_converse_async_call_and_stream--bedrock_amazon_nova_micro_v1_0__01",
        "mirascope__py-output--test_call_with_tools--bedrock_amazon_nova_micro_v1_0--sync__01",
        "mirascope__py-output--test_call_with_tools--bedrock_amazon_nova_micro_v1_0--sync__02",
    ),
}
_CORPUS_DIRS = {"openai_chat": "openai-chat", "openai_responses": "openai-responses"}


# -- building the sources ---------------------------------------------------------------------


def _answer(operation: str, api: str | None, data: dict[str, Any]) -> dict[str, Any]:
    request: dict[str, Any] = {"operation": operation, "input": data}
    if api is not None:
        request["api"] = api
    # Decoding makes ids and times; under fixed sources the committed files are the same on
    # every regeneration (the comparison replaces generated values anyway).
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        reply = perform(request)
    if "error" in reply:
        return {"error": reply["error"]["kind"]}
    return {"output": reply["output"]}


def _to_wire_source(name: str, description: str, history: str, tools: list[Any],
                    settings: dict[str, Any] | None = None, *, strict: bool = False) -> dict[str, Any]:
    common: dict[str, Any] = {"history": history, "tools": tools}
    if settings:
        common["settings"] = settings
    if strict:
        common["strict"] = True
    apis = {}
    for api in API_NAMES:
        extra = {"model": MODELS[api]}
        expected = _answer("to_wire", api, {**common, **extra})
        apis[api] = {"input": extra, "expected": expected, "covers": covers(expected)}
    return {"name": name, "operation": "to_wire", "description": description, "input": common,
            "apis": apis}


def _scenario_source(name: str, scenario_name: str, issuer: str, description: str) -> dict[str, Any]:
    built: Scenario = scenario(scenario_name, ORIGINS[issuer])
    settings: dict[str, Any] = {"max_output_tokens": built.max_output_tokens}
    if built.thinking_budget is not None:
        settings["reasoning"] = {"budget_tokens": built.thinking_budget}
    tools = [t.model_dump(mode="json", exclude_defaults=True) for t in built.tools]
    return _to_wire_source(name, description, dumps(built.history).decode("utf-8"), tools, settings)


def _recorded(api: str, stem: str) -> dict[str, Any]:
    folder = _CORPUS_DIRS.get(api, api)
    record: dict[str, Any] = json.loads((CORPUS / folder / f"{stem}.json").read_text(encoding="utf-8"))
    return record


def _wire_sources() -> list[dict[str, Any]]:
    sources = []
    for api, stems in RECORDINGS.items():
        for stem in stems:
            record = _recorded(api, stem)
            short = stem.split("__", 1)[1].replace("--", "-")[:60].rstrip("-_")
            if record.get("response") is not None:
                data: dict[str, Any] = {"response": record["response"]}
            elif record.get("sse") is not None:
                data = {"sse": record["sse"]}
            else:
                data = {"chunks": record["chunks"]}
            # A response body given to every other API must be refused as another API's format.
            # Streams are checked on their own API only: a stream reader takes the events it
            # knows and skips the rest, so another API's stream is not refused.
            apis = {}
            for target in API_NAMES if "response" in data else (api,):
                expected = _answer("from_wire", target, data)
                apis[target] = {"expected": expected, "covers": covers(expected)}
            kind = "stream" if "response" not in data else "response"
            sources.append({"name": f"from_{api}_{kind}_{short}", "operation": "from_wire",
                            "description": f"a recorded {api} {kind} ({record['source']}, "
                                           f"{record['license']}): its canonical message, and every "
                                           "other API refusing a response body", "input": data,
                            "apis": apis})
            if record.get("request") is not None and record.get("status") in (200, None):
                data = {"request": record["request"]}
                apis = {}
                for target in API_NAMES:
                    expected = _answer("read_request", target, data)
                    apis[target] = {"expected": expected, "covers": covers(expected)}
                sources.append({"name": f"read_{api}_{short}", "operation": "read_request",
                                "description": f"a recorded {api} request ({record['source']}) "
                                               "read into a canonical history, and the other APIs "
                                               "refusing it unless it is valid for them too",
                                "input": data, "apis": apis})
    return sources


def build() -> dict[str, dict[str, Any]]:
    """Every case file, by file name."""
    sources = [_scenario_source(*entry) for entry in SCENARIO_SOURCES]
    weather = ToolDefinition.model_validate(_WEATHER).model_dump(mode="json", exclude_defaults=True)
    every_type = (ROOT / "tests" / "compat" / "v1" / "every_type.jsonl").read_text(encoding="utf-8")
    sources += [
        _to_wire_source("every_type", "every part type, role and event type of version 1 sent to "
                        "each API: what it cannot carry is named by a loss", every_type, []),
        _to_wire_source("tool_ids", "tool-call ids from several providers' rules: kept where the "
                        "target admits them, the canonical id (id_mapped) where not",
                        _jsonl(_tool_ids_history()), [weather]),
        _to_wire_source("unknown_parts_and_fields", "an unknown part is dropped with a loss, "
                        "unknown fields are never sent", _jsonl(_unknown_history()), []),
        _to_wire_source("strict_refuses_a_loss", "a strict projection of a history with a part "
                        "no API can carry is refused with the error kind loss",
                        _jsonl(_unknown_history()), [], strict=True),
    ]
    sources += _wire_sources()
    for name, description, text in _validate_sources():
        expected = _answer("validate", None, {"jsonl": text})
        sources.append({"name": name, "operation": "validate", "description": description,
                        "input": {"jsonl": text}, "expected": expected, "covers": covers(expected)})
    return {f"{s['name']}.json": s for s in sources}


# -- what an expectation carries --------------------------------------------------------------

SIGNATURE_KEYS = frozenset({"signature", "thoughtSignature", "encrypted_content"})
"""Keys that hold reasoning signatures, in canonical form and in every API's body."""
TOOL_ID_KEYS = frozenset({"tool_use_id", "toolUseId", "call_id", "tool_call_id"})
"""Keys whose value is always a tool call's id."""
TOOL_CALL_OBJECTS = frozenset({"tool_use", "tool_call", "function_call", "function_call_output",
                               "server_tool_use", "toolUse", "functionCall", "functionResponse"})
"""Objects (by ``type``, or by the key that holds them) whose ``id`` is a tool call's id."""


def covers(expected: dict[str, Any]) -> list[str]:
    """Tags for what an expectation carries: ``signature`` when it holds a reasoning signature,
    ``tool_id`` when it holds a tool call's id, ``error`` for an expected error, and the part types
    and roles of canonical output."""
    tags: set[str] = set()
    if "error" in expected:
        return ["error"]

    def walk(node: Any, holder: str | None) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, holder)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if isinstance(node.get("role"), str) and node.get("type") == "message":
            tags.add(f"role:{node['role']}")
        for key, value in node.items():
            if key in SIGNATURE_KEYS and isinstance(value, str | dict) and value:
                tags.add("signature")
            if isinstance(value, str) and value and (
                    key in TOOL_ID_KEYS or (key == "id" and (kind in TOOL_CALL_OBJECTS or holder in TOOL_CALL_OBJECTS))):
                tags.add("tool_id")
            if key == "provider_ids" and value:
                tags.add("tool_id")
            walk(value, key)

    walk(expected.get("output"), None)
    return sorted(tags)


def _render(source: dict[str, Any]) -> str:
    return json.dumps(source, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the case files (or, with ``--check``, list the ones that differ and exit 1)."""
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    files = {name: _render(source) for name, source in build().items()}
    present = {p.name for p in CASES.glob("*.json")}
    stale = sorted(n for n, text in files.items()
                   if not (CASES / n).exists() or (CASES / n).read_text(encoding="utf-8") != text)
    extra = sorted(present - set(files))
    if check:
        for name in stale + extra:
            print(f"out of date: {CASES / name}")
        return 1 if stale or extra else 0
    CASES.mkdir(parents=True, exist_ok=True)
    for name in extra:
        (CASES / name).unlink()
    for name in stale:
        (CASES / name).write_text(files[name], encoding="utf-8")
    print(f"{len(files)} case files, {len(stale)} written, {len(extra)} removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
