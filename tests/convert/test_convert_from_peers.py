"""``partwire.convert.convert`` reads the peers' JSON dumps through the bridges."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, messages_to_dict
from pydantic_ai.messages import (
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    UserPromptPart,
)

from partwire.codec import loads
from partwire.convert import convert


def test_a_pydantic_ai_dump_converts_to_an_anthropic_request() -> None:
    """A stored pydantic-ai run becomes an Anthropic body, its model taken from the history."""
    dump = ModelMessagesTypeAdapter.dump_json([
        ModelRequest(parts=[UserPromptPart("hi")]),
        ModelResponse(parts=[TextPart("hello")], model_name="claude-sonnet-4-6", provider_name="anthropic"),
    ])
    body, losses = convert(dump, source="pydantic-ai", target="anthropic")
    assert body["model"] == "claude-sonnet-4-6"
    assert body["messages"] == [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert losses == ()


def test_a_langchain_dump_converts_to_canonical_jsonl() -> None:
    """A messages_to_dict dump becomes a canonical history that loads back strictly."""
    dump = json.dumps(messages_to_dict([HumanMessage("hi"), AIMessage("yo")]))
    jsonl, losses = convert(dump, source="langchain", target="canonical")
    events = loads(jsonl, strict=True)
    assert [getattr(e, "role", None) for e in events] == ["user", "assistant"]
    assert losses == ()
