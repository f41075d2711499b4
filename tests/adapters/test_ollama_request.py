"""The Ollama adapter reading a request body (from_wire_request): what a request imports as,
how results are paired with calls that carry no id, what goes back exactly when it is written
again, and what a refused request names."""

from __future__ import annotations

from typing import Any

import pytest

from partwire import (
    ImagePart,
    JsonObjectOutput,
    JsonSchemaOutput,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
)
from partwire.adapters import WireFormatError, ollama
from partwire.settings import Reasoning
from tests.adapters.test_ollama_unit import PNG


def _round_trip(request: dict[str, Any]) -> Any:
    imported = ollama.from_wire_request(request)
    return ollama.to_wire(imported.history, **imported.to_wire_kwargs())


def _calls(*names: str) -> dict[str, Any]:
    return {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": n, "arguments": {"i": i}}} for i, n in enumerate(names)]}


def _tool(content: str, name: str | None = None) -> dict[str, Any]:
    return {"role": "tool", "content": content, **({"tool_name": name} if name is not None else {})}


def test_the_clients_defaults_come_back_exactly() -> None:
    """A body as the ``ollama`` client sends it (empty format, empty options, null keep_alive,
    an empty tools list, the stream flag) re-exports equal, with no loss."""
    request = {"model": "llama3", "messages": [{"role": "user", "content": "Tell me a joke"}],
               "tools": [], "stream": False, "format": "", "options": {}, "keep_alive": None}
    projection = _round_trip(request)
    assert projection.request == request
    assert projection.losses == ()


def test_options_split_into_settings_and_raw_options() -> None:
    """``num_predict``, ``temperature`` and ``stop`` become settings; ``num_ctx`` stays a raw
    option; the body comes back exactly."""
    request = {"model": "qwen3:8b", "messages": [{"role": "user", "content": "q"}],
               "options": {"num_predict": 64, "temperature": 0.1, "stop": ["END"], "num_ctx": 8192}}
    imported = ollama.from_wire_request(request)
    settings = imported.settings
    assert (settings.max_output_tokens, settings.temperature, settings.stop_sequences) == (64, 0.1, ("END",))
    assert imported.params == {"options": {"num_ctx": 8192}}
    assert _round_trip(request).request == request


@pytest.mark.parametrize(("think", "reasoning"), [
    (True, Reasoning(enabled=True)), (False, Reasoning(enabled=False)), ("low", Reasoning(effort="low"))])
def test_think_is_the_reasoning_setting(think: Any, reasoning: Reasoning) -> None:
    """``think`` reads as the reasoning setting, and writes back as it was."""
    request = {"model": "qwen3:8b", "messages": [{"role": "user", "content": "q"}], "think": think}
    assert ollama.from_wire_request(request).settings.reasoning == reasoning
    assert _round_trip(request).request == request


def test_format_reads_as_the_output_format() -> None:
    """``format: "json"`` is JSON mode, a schema is a schema output; both write back."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    for fmt, expected in (("json", JsonObjectOutput()), (schema, JsonSchemaOutput(json_schema=schema))):
        request = {"model": "m", "messages": [{"role": "user", "content": "q"}], "format": fmt}
        assert ollama.from_wire_request(request).settings.output_format == expected
        assert _round_trip(request).request == request


def test_a_result_pairs_with_the_open_call_of_its_tool() -> None:
    """Results name their tool: each pairs with the first unanswered call of that name, whatever
    their order, and the body comes back exactly with no loss."""
    request = {"model": "m", "messages": [{"role": "user", "content": "q"}, _calls("time", "weather"),
                                          _tool("rain", "weather"), _tool("noon", "time")]}
    history = ollama.from_wire_request(request).history
    calls = [p for p in history[1].parts if isinstance(p, ToolCallPart)]  # type: ignore[union-attr]
    results = [e for e in history if isinstance(e, ToolMessage)]
    assert [(r.call_id, r.tool_name) for r in results] == [(calls[1].id, "weather"), (calls[0].id, "time")]
    projection = _round_trip(request)
    assert (projection.request, projection.losses) == (request, ())


def test_a_result_without_a_tool_name_pairs_by_order_and_stays_without_one() -> None:
    """An older client's result has no ``tool_name``: it answers the first open call, and goes
    back without a name."""
    request = {"model": "m", "messages": [{"role": "user", "content": "q"}, _calls("f", "g"),
                                          _tool("one"), _tool("two")]}
    history = ollama.from_wire_request(request).history
    calls = [p for p in history[1].parts if isinstance(p, ToolCallPart)]  # type: ignore[union-attr]
    assert [e.call_id for e in history if isinstance(e, ToolMessage)] == [c.id for c in calls]
    assert _round_trip(request).request == request


def test_the_same_body_gives_the_same_call_ids() -> None:
    """Ids are made from the body: reading it twice pairs the same ids (a stored log re-read
    keeps its pairs)."""
    request = {"model": "m", "messages": [{"role": "user", "content": "q"}, _calls("f"), _tool("r", "f")]}
    first, again = ollama.from_wire_request(request).history, ollama.from_wire_request(request).history
    call, same = (next(p for p in h[1].parts if isinstance(p, ToolCallPart))  # type: ignore[union-attr]
                  for h in (first, again))
    assert call.id == same.id
    assert first[2].call_id == again[2].call_id == call.id  # type: ignore[union-attr]


def test_thinking_and_images_read_as_parts() -> None:
    """A message's ``thinking`` is a thought and its ``images`` image parts, which write back."""
    request = {"model": "m", "messages": [
        {"role": "user", "content": "what is it?", "images": [PNG]},
        {"role": "assistant", "content": "A square.", "thinking": "It is red."},
        {"role": "user", "content": "thanks"}]}
    history = ollama.from_wire_request(request).history
    assert isinstance(history[0].parts[1], ImagePart)  # type: ignore[union-attr]
    assert history[1].parts[0] == ThinkingPart(text="It is red.")  # type: ignore[union-attr]
    assert _round_trip(request).request == request


def test_a_message_without_content_and_unknown_keys_come_back() -> None:
    """A message with no ``content`` key and one with a key partwire has no field for re-export
    exactly."""
    request = {"model": "m", "messages": [{"role": "user", "content": "q", "name": "ann"},
                                          {"role": "assistant", "tool_calls": [
                                              {"function": {"name": "f", "arguments": {}, "index": 0}}]},
                                          _tool("r", "f")]}
    assert _round_trip(request).request == request


def test_a_chat_completions_body_is_refused_naming_it() -> None:
    """A Chat Completions request (a call id, typed calls with text arguments) is refused by
    the Ollama reader, naming the formats it may be (Cohere's messages have that shape too)."""
    request = {"model": "llama3", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                                              "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "r"}]}
    with pytest.raises(WireFormatError, match="OpenAI Chat Completions or Cohere v2 Chat request"):
        ollama.from_wire_request(request)


def test_chat_sampling_fields_are_not_ollamas() -> None:
    """A top-level ``temperature`` or ``max_tokens`` is Chat's or Anthropic's: Ollama states
    sampling in ``options``."""
    with pytest.raises(WireFormatError, match="top-level max_tokens"):
        ollama.from_wire_request({"model": "llama3", "max_tokens": 5,
                                  "messages": [{"role": "user", "content": "q"}]})


def test_an_ollama_body_is_refused_by_the_chat_reader() -> None:
    """The Chat Completions reader refuses an Ollama body by its ``options`` (or its images),
    naming Ollama."""
    from partwire.adapters import openai_chat

    with pytest.raises(WireFormatError, match="Ollama chat request"):
        openai_chat.from_wire_request({"model": "llama3", "options": {},
                                       "messages": [{"role": "user", "content": "q"}]})
    with pytest.raises(WireFormatError, match="Ollama chat request"):
        openai_chat.from_wire_request({"model": "llama3", "messages": [
            {"role": "user", "content": "q", "images": [PNG]}]})


def test_a_result_read_without_its_call_goes_back_without_one() -> None:
    """A body holding a result of no call it holds reads back, and re-exports exactly."""
    request = {"model": "m", "messages": [{"role": "user", "content": "q"}, _tool("late", "f")]}
    projection = _round_trip(request)
    assert (projection.request, projection.losses) == (request, ())


def test_a_role_ollama_lacks_is_refused_with_its_path() -> None:
    """A role Ollama does not have is refused at the message's path."""
    with pytest.raises(WireFormatError) as caught:
        ollama.from_wire_request({"model": "m", "messages": [{"role": "critic", "content": "x"}]})
    assert caught.value.path == "messages[0].role"
