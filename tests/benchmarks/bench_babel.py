"""Request round trip and cross-API translation against llm-babel, on every real request.

``llm-babel`` (import name ``llm_transform``; pure Python, the same job through one IR hub, eight
formats) is a bench-only peer (``partwire[bench]``); without it this module reports nothing.
Times are this process's CPU time (both libraries are pure computation): the bench machine is
shared, and wall time counted the other processes' turns on the CPU.

- ``roundtrip.<api>.vs_babel``: partwire's ``from_wire_request`` then ``to_wire`` over every
  request body of the corpus for that API, against babel's ``translate(fmt, fmt, body)``; the
  two timed alternately in the same run (target <= 1.0). Each of partwire's passes begins with
  its memos of values met emptied (``partwire.caches.clear(values_only=True)``): the passes
  repeat the same requests, and a memo kept from the pass before would time a second meeting
  with each. Beside it each library's exactness: how many requests come back equal to the
  input, as JSON.
- ``translate.<src>.<dst>.vs_babel``: the same requests converted to another API (partwire's
  ``from_wire_request`` of one adapter, ``to_wire`` of the other with the request's tools,
  settings and token limit; babel's ``translate``, which converts those too), for every ordered
  pair of the four APIs (target <= 1.0). Requests either library refuses count as refused for
  it; the timing is over the requests both convert. Beside it, without a target,
  ``.history_only``: partwire converting the history alone (what this figure measured until
  2026-11-27, against babel's whole request).
- ``roundtrip.<api>.vs_babel.<class>`` (Responses and Gemini, no target): the round trip over
  the requests of one class of the corpus (:func:`classes`: ``tools`` with their settings,
  ``server_tools``, ``reasoning`` items, ``media``, ``plain`` for none of these; a request of
  several classes counts in each), timed as the whole figure is. Each pass empties the memos,
  so the smaller a class the more its figure weighs the first meeting of each tool, setting
  and class of the pass.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from partwire.adapters import get_adapter
from partwire.adapters.requests import ImportedRequest
from partwire.caches import clear
from tests.benchmarks._runner import Figure, Timed
from tests.harness.corpus import CORPUS

__all__ = ["FIGURES"]

# adapter name -> (corpus folder, babel format, key of the conversation in a request body)
APIS = {"anthropic": ("anthropic", "anthropic-messages", "messages"),
        "openai_chat": ("openai-chat", "openai-chat", "messages"),
        "openai_responses": ("openai-responses", "openai-responses", "input"),
        "google": ("google", "gemini", "contents")}
TARGET = 1.0

Trip = Callable[[dict[str, Any]], Any]


def requests(api: str) -> list[dict[str, Any]]:
    """Every request body of the corpus for ``api`` that holds a conversation."""
    folder, _, key = APIS[api]
    found = []
    for path in sorted((CORPUS / folder).glob("*.json")):
        request = json.loads(path.read_text()).get("request")
        if isinstance(request, dict) and isinstance(request.get(key), list | str):
            found.append(request)
    return found


# Input items and parts of each class, by type (Responses) or key (Gemini).
_SERVER_ITEMS = frozenset({"web_search_call", "file_search_call", "code_interpreter_call",
                           "image_generation_call", "computer_call", "computer_call_output",
                           "mcp_call", "mcp_list_tools", "mcp_approval_request", "local_shell_call"})
_CALL_ITEMS = frozenset({"function_call", "function_call_output", "custom_tool_call",
                         "custom_tool_call_output"})
_MEDIA_ITEMS = frozenset({"input_image", "input_file", "input_audio"})
_GEMINI_THOUGHT = frozenset({"thought", "thoughtSignature", "thought_signature"})
_GEMINI_CALLS = frozenset({"functionCall", "functionResponse", "function_call", "function_response"})
_GEMINI_SERVER = frozenset({"executableCode", "codeExecutionResult", "executable_code",
                            "code_execution_result", "toolCall", "toolResponse"})
_GEMINI_MEDIA = frozenset({"inlineData", "fileData", "inline_data", "file_data"})
_GEMINI_DECLARED = ("functionDeclarations", "function_declarations")


def _nodes(value: Any) -> list[dict[str, Any]]:
    """Every object inside ``value``, ``value`` included."""
    found: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def classes(api: str, body: dict[str, Any]) -> frozenset[str]:
    """The corpus classes of a Responses or Gemini request body: ``tools`` (function tools, or
    calls and their results), ``server_tools`` (provider-run tools or their items),
    ``reasoning`` (reasoning items or thought parts, or a reasoning setting), ``media``
    (images, files, audio), and ``plain`` for a body of none of these."""
    found: set[str] = set()
    given = body.get("tools")
    tools: list[Any] = given if isinstance(given, list) else []
    if api == "openai_responses":
        kinds = {node.get("type") for node in _nodes(body.get("input"))}
        functions = [t for t in tools if isinstance(t, dict) and t.get("type") == "function"]
        if len(functions) < len(tools) or kinds & _SERVER_ITEMS:
            found.add("server_tools")
        if functions or kinds & _CALL_ITEMS:
            found.add("tools")
        if "reasoning" in kinds or body.get("reasoning"):
            found.add("reasoning")
        if kinds & _MEDIA_ITEMS:
            found.add("media")
    else:
        keys = {key for node in _nodes(body.get("contents")) for key in node}
        config = body.get("generationConfig") or body.get("generation_config") or {}
        declared = [t for t in tools if isinstance(t, dict) and any(k in t for k in _GEMINI_DECLARED)]
        if len(declared) < len(tools) or keys & _GEMINI_SERVER:
            found.add("server_tools")
        if declared or keys & _GEMINI_CALLS:
            found.add("tools")
        if keys & _GEMINI_THOUGHT or (isinstance(config, dict) and (
                "thinkingConfig" in config or "thinking_config" in config)):
            found.add("reasoning")
        if keys & _GEMINI_MEDIA:
            found.add("media")
    return frozenset(found or {"plain"})


CLASSES = ("tools", "server_tools", "reasoning", "media", "plain")
"""The classes :func:`classes` tells apart, in the order their figures are declared."""


def _partwire(source: str, target: str, *, whole: bool = True) -> Trip:
    read, write = get_adapter(source), get_adapter(target)

    def trip(body: dict[str, Any]) -> Any:
        imported = read.from_wire_request(body)
        kwargs = imported.to_wire_kwargs() if source == target else _crossing(imported) if whole else {}
        kwargs["model"] = kwargs.get("model") or body.get("model") or "model"
        return write.to_wire(imported.history, **kwargs).request

    return trip


def _crossing(imported: ImportedRequest) -> dict[str, Any]:
    """What crosses to another API, as babel's ``translate`` converts it: the tools, the settings
    (tool choice included) and the token limit (the source API's own fields and options stay)."""
    kwargs: dict[str, Any] = {"tools": imported.tools, "settings": imported.settings}
    if isinstance(imported.tool_choice, str) and imported.settings.tool_choice is None:
        kwargs["tool_choice"] = imported.tool_choice
    if imported.max_tokens is not None and imported.settings.max_output_tokens is None:
        kwargs["max_tokens"] = imported.max_tokens
    return kwargs


def _babel(source: str, target: str) -> Trip | None:
    try:
        from llm_transform import registry
        from llm_transform.dsl.rt import materialize
    except ImportError:
        return None
    src, dst = APIS[source][1], APIS[target][1]

    def trip(body: dict[str, Any]) -> Any:
        return registry.translate(src, dst, body)

    trip.materialize = materialize  # type: ignore[attr-defined]
    return trip


def _works(trip: Trip, body: dict[str, Any]) -> Any:
    try:
        return trip(body)
    except Exception:  # a library that refuses a real request: counted, never timed
        return None


def _same(out: Any, body: dict[str, Any], materialize: Callable[[Any], Any] | None) -> bool:
    if out is None:
        return False
    if materialize is not None:
        out = materialize(out)
    return json.dumps(out, sort_keys=True, default=str) == json.dumps(body, sort_keys=True)


def _first_meeting(trip: Trip, bodies: list[dict[str, Any]]) -> None:
    """One pass of ``trip`` over ``bodies``, with partwire's memos of values met emptied first."""
    clear(values_only=True)
    for body in bodies:
        trip(body)


@functools.cache
def _met(source: str, target: str) -> tuple[list[tuple[Any, Any]], list[dict[str, Any]]]:
    """Each request's output from partwire and from babel (``None`` where one refuses it), and
    the requests both convert."""
    ours, peer = _partwire(source, target), _babel(source, target)
    assert peer is not None
    bodies = _corpus(source)
    outs = [(_works(ours, b), _works(peer, b)) for b in bodies]
    both = [b for b, (o, p) in zip(bodies, outs, strict=True) if o is not None and p is not None]
    assert both, f"{source} -> {target}: no request both libraries convert"
    return outs, both


@functools.cache
def _corpus(api: str) -> list[dict[str, Any]]:
    return requests(api)


def _timed(source: str, target: str, *, whole: bool = True, kind: str | None = None) -> Timed:
    """partwire's pass over the requests both convert (those of class ``kind`` when given),
    memos emptied first, against babel's."""
    _, both = _met(source, target)
    if kind is not None:
        both = [b for b in both if kind in classes(source, b)]
    ours, peer = _partwire(source, target, whole=whole), _babel(source, target)
    assert peer is not None
    # Each pass starts with partwire's memos empty: a pass meets every request once, as a gateway
    # does (the requests of one recorded conversation still share them).
    return Timed(functools.partial(_first_meeting, ours, both), lambda: [peer(b) for b in both],
                 rounds=4, cpu=True, detail={"requests": len(both)})


def _exact(api: str, library: str) -> tuple[int, dict[str, str]]:
    """How many of the requests ``library`` writes back equal to the input, as JSON."""
    bodies = _corpus(api)
    outs, _ = _met(api, api)
    if library == "partwire":
        same = sum(_same(o, b, None) for b, (o, _) in zip(bodies, outs, strict=True))
    else:
        materialize = getattr(_babel(api, api), "materialize", None)
        same = sum(_same(p, b, materialize) for b, (_, p) in zip(bodies, outs, strict=True))
    return same, {"unit": f"of {len(bodies)} equal"}


def _refused(source: str, target: str) -> tuple[str, dict[str, str]]:
    outs, _ = _met(source, target)
    return (f"{sum(o is None for o, _ in outs)}/{sum(p is None for _, p in outs)}",
            {"unit": f"partwire/babel of {len(outs)}"})


def _figures(source: str, target: str) -> list[Figure]:
    if source == target:
        name = f"roundtrip.{source}"
        return [Figure(f"{name}.vs_babel", "x", "llm-babel translate", TARGET,
                       timed=functools.partial(_timed, source, target)),
                *(Figure(f"{name}.vs_babel.exact.{library}", "requests written back equal",
                         read=functools.partial(_exact, source, library), runs=1)
                  for library in ("partwire", "babel")),
                # Per class of request, for information (no target: a class is a few dozen
                # requests, and the memos emptied each pass weigh more on fewer).
                *(Figure(f"{name}.vs_babel.{kind}", "x", "llm-babel translate",
                         timed=functools.partial(_timed, source, target, kind=kind))
                  for kind in CLASSES if source in ("openai_responses", "google")
                  and any(kind in classes(source, b) for b in _corpus(source)))]
    name = f"translate.{source}.{target}"
    return [Figure(f"{name}.vs_babel", "x", "llm-babel translate", TARGET,
                   timed=functools.partial(_timed, source, target)),
            # The history alone, without the tools and settings babel converts too: what the
            # figure measured before 2026-11-27 (no target; for comparison only).
            Figure(f"{name}.vs_babel.history_only", "x (no tools or settings)", "llm-babel translate",
                   timed=functools.partial(_timed, source, target, whole=False)),
            Figure(f"{name}.refused", "partwire/babel refused", read=functools.partial(_refused, source, target),
                   runs=1)]


FIGURES = [] if _babel("anthropic", "anthropic") is None else [
    figure for source in APIS for target in APIS for figure in _figures(source, target)]
