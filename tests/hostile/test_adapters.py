"""Adapters under hostile input: a user meets partwire's own error, never another exception.

For every registered adapter, ``from_wire``, ``from_wire_request`` and ``stream`` are fed
arbitrary JSON values, real corpus payloads with one field replaced by a value of the wrong type,
truncated and non-UTF-8 bytes, and nesting deeper than the interpreter's limit. Each call either
returns (a tolerant reading keeps what it does not understand) or raises a ``PartwireError``
(``WireFormatError``, ``ProviderError``): nothing else may escape, not even the accumulator's
``StreamProtocolError``, which means an adapter bug.
"""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partwire.adapters import ProviderError, get_adapter, openai_responses
from partwire.errors import ArgumentError, PartwireError, StreamProtocolError, WireFormatError
from tests.harness.corpus import CORPUS
from tests.harness.depth import examples
from tests.laws.test_corpus_laws import ADAPTERS

HOSTILE = settings(max_examples=examples(60, "PARTWIRE_LAW_EXAMPLES"), deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Text may hold lone surrogates (what a "\ud800" escape reads as), which UTF-8 cannot encode.
_text = st.text(st.characters(exclude_categories=()), max_size=8)
_scalars = st.none() | st.booleans() | st.integers() | st.floats() | _text
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(_text, inner, max_size=3), max_leaves=10)


def _payloads(name: str) -> list[dict[str, Any]]:
    records = []
    for path in sorted((CORPUS / name.replace("_", "-")).glob("*.json"))[:80]:
        records.append(json.loads(path.read_text()))
    return records


_PAYLOADS = {name: _payloads(name) for name in ADAPTERS}


def _calls(name: str, value: Any) -> None:
    adapter = get_adapter(name)
    for call in (adapter.from_wire, adapter.from_wire_request, lambda v: list(adapter.stream(v))):
        try:
            call(value)
        except StreamProtocolError as exc:  # the docs call it an adapter bug: hostile input is not
            raise AssertionError(f"hostile input gave StreamProtocolError: {exc}") from exc
        except PartwireError:
            pass


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here] if here else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*here, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*here, i))
    return found


def _replace(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(node)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


@pytest.mark.parametrize("name", ADAPTERS)
@HOSTILE
@given(value=_json)
def test_any_json_value_gives_a_partwire_error_or_a_reading(name: str, value: Any) -> None:
    """An arbitrary JSON value, as a response, a request or a stream, raises nothing foreign."""
    _calls(name, value)
    _calls(name, json.dumps(value))


@pytest.mark.parametrize("name", ADAPTERS)
@HOSTILE
@given(data=st.data(), value=_json)
def test_a_wrong_type_in_any_field_of_a_real_payload_raises_nothing_foreign(
        name: str, data: st.DataObject, value: Any) -> None:
    """A real request or response with one field (anywhere) replaced by another JSON value."""
    record = data.draw(st.sampled_from(_PAYLOADS[name]))
    for key in ("request", "response"):
        body = record.get(key)
        paths = _paths(body)
        if not paths:
            continue
        path = data.draw(st.sampled_from(paths))
        _calls(name, _replace(body, path, value))


@pytest.mark.parametrize("name", ADAPTERS)
@HOSTILE
@given(data=st.data())
def test_truncated_and_non_utf8_bytes_raise_nothing_foreign(name: str, data: st.DataObject) -> None:
    """A real body or stream cut anywhere, or with bytes that are not UTF-8, raises nothing foreign."""
    record = data.draw(st.sampled_from(_PAYLOADS[name]))
    raw = (record.get("sse") or json.dumps(record.get("response"))).encode()
    cut = data.draw(st.integers(0, len(raw)))
    _calls(name, raw[:cut])
    _calls(name, raw[:cut] + b"\xff\xfe\x80" + raw[cut:])


@pytest.mark.parametrize("name", ADAPTERS)
def test_nesting_past_the_interpreters_limit_raises_a_partwire_error(name: str) -> None:
    """100,000 nested brackets, as text and as parsed data inside a body, raise partwire's error."""
    _calls(name, "[" * 100_000 + "]" * 100_000)
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    _calls(name, {"messages": [{"role": "user", "content": deep}], "contents": deep, "input": deep,
                  "content": deep, "choices": deep, "candidates": deep, "output": deep})


# The adapters whose request readers name the item a hostile value sits in.
PATHED = [name for name in ADAPTERS if name in ("anthropic", "openai_chat", "openai_responses", "google",
                                                "bedrock")]


def _segments(path: str) -> list[str]:
    return [s for s in path.replace("[", ".[").split(".") if s]


@pytest.mark.parametrize("name", PATHED)
@HOSTILE
@given(data=st.data(), value=_json)
def test_a_refused_request_names_where_the_bad_value_is(name: str, data: st.DataObject, value: Any) -> None:
    """A request refused for a replaced field says where: the path it names lies on that field's branch."""
    record = data.draw(st.sampled_from([r for r in _PAYLOADS[name] if isinstance(r.get("request"), dict)]))
    body = record["request"]
    path = data.draw(st.sampled_from(_paths(body)))
    refused: WireFormatError | None = None
    try:
        get_adapter(name).from_wire_request(_replace(body, path, value))
    except WireFormatError as exc:
        refused = exc
    if refused is not None:
        assert refused.path is not None, str(refused)
        replaced = [f"[{s}]" if isinstance(s, int) else s for s in path]
        named = _segments(refused.path)
        shorter = min(len(named), len(replaced))
        assert named[:shorter] == replaced[:shorter], (refused.path, path)
        assert refused.path in str(refused)


_USAGE = {"anthropic": ("usage", "output_tokens"), "openai_chat": ("usage", "completion_tokens"),
          "openai_responses": ("usage", "output_tokens"), "google": ("usageMetadata", "candidatesTokenCount"),
          "bedrock": ("usage", "outputTokens"),
          # Cohere's counts are one level down (billed_units, tokens); its one flat count is this.
          "cohere": ("usage", "cached_tokens")}


# Ollama has no usage object: its counts are top-level fields (the test after this one).
@pytest.mark.parametrize("name", [name for name in ADAPTERS if name in _USAGE])
def test_a_usage_of_the_wrong_shape_is_refused_where_it_is_and_a_bad_count_kept_raw(name: str) -> None:
    """Every adapter alike, on every real response with usage: a usage that is not an object is
    refused naming its key (it was dropped in silence by three, and Anthropic's error was a
    TypeError's text); a count that is not an integer counts 0 and stays in the raw usage."""
    key, count = _USAGE[name]
    adapter = get_adapter(name)
    responses = [p["response"] for p in _PAYLOADS[name]
                 if isinstance(p.get("response"), dict) and isinstance(p["response"].get(key), dict)
                 and isinstance(p["response"][key].get(count), int)]
    assert responses
    for response in responses:
        for bad in ("many", 12, [1], True):
            with pytest.raises(WireFormatError) as caught:
                adapter.from_wire({**response, key: bad})
            assert caught.value.path == key
        odd = {**response, key: {**response[key], count: "lots"}}
        usage, zero = adapter.from_wire(odd).usage, adapter.from_wire({**odd, key: {**response[key], count: 0}}).usage
        assert usage is not None
        assert zero is not None
        assert usage.output_tokens == zero.output_tokens
        assert usage.provider_data is not None
        raw = usage.provider_data.data
        assert isinstance(raw, dict)
        assert raw[count] == "lots"


def test_an_ollama_count_that_is_no_integer_counts_zero_and_stays_raw() -> None:
    """Every real Ollama response: an ``eval_count`` that is not a non-negative integer counts 0
    and is kept as it came in the usage's raw data."""
    responses = [p["response"] for p in _PAYLOADS["ollama"] if isinstance(p.get("response"), dict)]
    assert responses
    for response in responses:
        for bad in ("lots", -3, [1], True, None):
            usage = get_adapter("ollama").from_wire({**response, "eval_count": bad}).usage
            assert usage is not None
            assert usage.output_tokens == 0
            assert usage.provider_data is not None
            assert isinstance(usage.provider_data.data, dict)
            assert usage.provider_data.data["eval_count"] == bad


# -- hand-picked bodies for the Responses API ------------------------------------------------------


@pytest.mark.parametrize("body", [
    42, None, "text", [], "[" * 100_000, b"\xff\xfe{", {"output": 3}, {"output": [{"type": 1}]},
    {"output": [], "usage": "lots"}, {"output": [{"type": "reasoning", "summary": "x"}]},
    {"output": [{"type": "message", "content": [{"type": "output_text", "text": 5}]}]},
    {"output": [], "status": 5, "incomplete_details": 3}, {"output": [], "usage": {"input_tokens": "x"}},
])
def test_hostile_responses_raise_only_partwire_errors(body: Any) -> None:
    """Whatever the body, from_wire gives a message or raises partwire's own error."""
    with contextlib.suppress(WireFormatError, ProviderError):
        openai_responses.from_wire(body)


@pytest.mark.parametrize("body", [
    42, None, "x", {"input": 5}, {"input": [{"role": 3}]}, "[" * 100_000,
    {"input": [{"role": "user", "content": [{"type": []}]}]}, {"input": [{"type": "function_call_output"}]},
    {"input": [{"role": "assistant", "content": 5}]}, {"input": [{"type": "reasoning", "summary": [1]}]},
    {"input": "x", "tools": 5, "max_output_tokens": "x", "tool_choice": 3, "instructions": 4},
    {"input": [{"role": "user", "content": [{"type": "input_image"}]}]},
])
def test_hostile_requests_raise_only_partwire_errors(body: Any) -> None:
    """Whatever the body, from_wire_request succeeds or raises WireFormatError; re-export succeeds,
    or, for a body that names no model, raises ArgumentError for the empty model."""
    try:
        imported = openai_responses.from_wire_request(body)
    except WireFormatError:
        return
    if not imported.model:
        with pytest.raises(ArgumentError, match="model is empty"):
            openai_responses.to_wire(imported.history, **imported.to_wire_kwargs())
        return
    openai_responses.to_wire(imported.history, **imported.to_wire_kwargs())


@pytest.mark.parametrize("chunks", [
    b"data: 42\n\n", [{"type": 5}], b"\xff\xfe",
    [{"type": "response.output_item.added", "output_index": "a", "item": 3}],
    [{"type": "response.output_text.delta", "output_index": 0, "delta": 3}],
    [{"type": "response.completed", "response": {"output": [1, {"type": "function_call"}],
                                                 "usage": {"input_tokens": "a"}}}],
    [{"type": "error", "error": "x"}], [{"type": "response.failed", "response": {"status": "failed", "error": 3}}],
])
def test_hostile_streams_end_in_a_message_or_partwire_error(chunks: Any) -> None:
    """A stream of garbage ends with its one completion, or in WireFormatError, never another exception."""
    try:
        events = list(openai_responses.stream(chunks))
    except WireFormatError:
        return
    assert type(events[-1]).__name__ == "MessageCompleteEvent"

