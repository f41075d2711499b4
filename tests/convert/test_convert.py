"""``partwire.convert.convert`` in Python: canonical JSONL, wire requests and responses in both
directions, with their losses; refusals name the model or format; strict mode raises."""

from __future__ import annotations

import json
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    LossError,
    RefusalPart,
    SystemMessage,
    UserMessage,
)
from partwire.adapters import (
    UnknownAdapterError,
)
from partwire.convert import convert
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.projection import Loss
from tests.adapters.test_anthropic_unit import response

MODEL = "claude-sonnet-4-6"


def test_convert_canonical_to_anthropic_and_back() -> None:
    """A JSONL history converts to a request body and the body back to the same messages."""
    history: list[HistoryEvent] = [SystemMessage("s"), UserMessage("q"), AssistantMessage("a", model="anthropic:claude-x")]
    jsonl = b"".join(EVENT_ADAPTER.dump_json(e) + b"\n" for e in history)
    body, lost = convert(jsonl, source="canonical", target="anthropic")
    assert (body["model"], body["system"], lost) == ("claude-x", "s", ())
    back, lost_back = convert(body, source="anthropic", target="canonical")
    events = [EVENT_ADAPTER.validate_json(line) for line in back.splitlines()]
    assert [(e.role, e.text) for e in events] == [("system", "s"), ("user", "q"), ("assistant", "a")]  # type: ignore[union-attr]
    assert lost_back == ()


def test_convert_reports_what_the_canonical_form_cannot_hold() -> None:
    """Request fields (tools, sampling) are lost going to canonical, and say so."""
    body = {"model": MODEL, "max_tokens": 5, "temperature": 1, "messages": [{"role": "user", "content": "q"}]}
    _, lost = convert(json.dumps(body), source="anthropic", target="canonical")
    assert [(x.path, x.action) for x in lost] == [("request", "dropped")]


def test_convert_a_response_and_anthropic_to_anthropic() -> None:
    """A response body becomes one message; a request converts to itself unchanged."""
    out, _ = convert(response({"type": "text", "text": "hi"}), source="anthropic", target="canonical")
    [event] = [EVENT_ADAPTER.validate_json(line) for line in out.splitlines()]
    assert isinstance(event, AssistantMessage)
    assert event.text == "hi"
    body = {"model": MODEL, "max_tokens": 5, "temperature": 1, "messages": [{"role": "user", "content": "q"}]}
    assert convert(body, source="anthropic", target="anthropic") == (body, ())


def test_convert_needs_a_model_and_refuses_unknown_formats() -> None:
    """Without a model anywhere the conversion stops; an unknown target is named."""
    with pytest.raises(ValueError, match="needs a model"):
        convert([UserMessage("q")], source="canonical", target="anthropic")
    with pytest.raises(UnknownAdapterError):
        convert([UserMessage("q")], source="canonical", target="nobody", model="m")


def test_convert_strict_raises_on_loss() -> None:
    """strict=True refuses a lossy conversion."""
    lossy: list[Any] = [AssistantMessage([RefusalPart(text="no")])]
    with pytest.raises(LossError):
        convert(lossy, source="canonical", target="anthropic", model=MODEL, strict=True)
    assert isinstance(convert(lossy, source="canonical", target="anthropic", model=MODEL)[1][0], Loss)


