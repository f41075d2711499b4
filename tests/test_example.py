"""The bundled example history covers the whole format and is a clean, deterministic session."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from partwire.cli._example import example_history
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.messages import AssistantMessage, ToolMessage, ToolStatus
from partwire.parts import Citation, MediaSource, Part, TextPart, ThinkingPart, ToolCallPart
from partwire.validation import validate_history


def _members(union: Any) -> list[type[BaseModel]]:
    """The model classes of a (possibly Annotated, possibly nested) union."""
    out: list[type[BaseModel]] = []
    for arg in typing.get_args(union):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            out.append(arg)
        else:
            out.extend(_members(arg))
    return out


def _tags(union: Any, field: str) -> set[str]:
    """The literal value of ``field`` on every member of ``union``."""
    return {str(cls.model_fields[field].default) for cls in _members(union)}


def _walk(value: object) -> Iterator[BaseModel]:
    """Every model inside ``value``, ``value`` included, depth first."""
    if isinstance(value, BaseModel):
        yield value
        for child in value.__dict__.values():
            yield from _walk(child)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _walk(item)


def _parts(history: list[HistoryEvent]) -> list[Any]:
    return [p for e in history for p in getattr(e, "parts", ())]


def test_every_event_type_and_message_role_appears() -> None:
    """Each tag of the HistoryEvent union and each message role is used at least once."""
    history = example_history()
    assert {e.type for e in history} == _tags(HistoryEvent, "type")
    messages = [e for e in history if e.type == "message"]
    roles = {cls.model_fields["role"].default for cls in _members(HistoryEvent) if "role" in cls.model_fields}
    assert {m.role for m in messages} == roles


def test_every_part_type_appears() -> None:
    """Each tag of the Part union is used by some part of some message."""
    assert {p.type for p in _parts(example_history())} == _tags(Part, "type")


def test_every_citation_kind_appears_on_text() -> None:
    """Each tag of the Citation union is attached to some text part."""
    texts = [p for p in _parts(example_history()) if isinstance(p, TextPart)]
    assert {c.type for p in texts for c in p.citations} == _tags(Citation, "type")


def test_every_media_source_kind_appears_and_images_use_each_binary_kind() -> None:
    """Every MediaSource tag is used, and images use each one except inline text."""
    parts = _parts(example_history())
    sources = {p.source.type for p in parts if hasattr(p, "source") and p.type != "unknown"}
    assert sources == _tags(MediaSource, "type")
    images = {p.source.type for p in parts if p.type == "image"}
    assert images == _tags(MediaSource, "type") - {"text"}


def test_documents_include_a_pdf_and_a_text_document() -> None:
    """There is a PDF document and a plain-text document."""
    docs = [p for p in _parts(example_history()) if p.type == "document"]
    assert "application/pdf" in {d.media_type for d in docs}
    assert "text" in {d.source.type for d in docs}


def test_tool_statuses_and_aborted_assistant_appear() -> None:
    """Tool messages use every ToolStatus and one assistant message is aborted."""
    history = example_history()
    statuses = {e.status for e in history if isinstance(e, ToolMessage)}
    assert statuses == set(typing.get_args(ToolStatus))
    aborted = [e for e in history if isinstance(e, AssistantMessage) and e.status == "aborted"]
    assert aborted
    assert all(m.stop_reason == "aborted" for m in aborted)


def test_thinking_is_signed_by_anthropic_and_parallel_calls_keep_provider_ids() -> None:
    """A thinking part carries an anthropic signature; one message has parallel calls with provider ids."""
    history = example_history()
    thinking = [p for p in _parts(history) if isinstance(p, ThinkingPart)]
    assert any(t.signature is not None and t.signature.issuer == "anthropic" and t.text for t in thinking)
    parallel = [
        calls for e in history if isinstance(e, AssistantMessage)
        if len(calls := [p for p in e.parts if isinstance(p, ToolCallPart)]) > 1
    ]
    assert parallel
    assert all(c.provider_ids and c.id.startswith("tu_") for c in parallel[0])


def test_assistant_turns_carry_priced_usage() -> None:
    """Every assistant message has usage with a Decimal cost and a pricing version."""
    assistants = [e for e in example_history() if isinstance(e, AssistantMessage)]
    assert assistants
    for message in assistants:
        assert message.usage is not None
        assert isinstance(message.usage.cost, Decimal)
        assert message.usage.pricing_version


def test_tool_messages_answer_earlier_calls_with_matching_names() -> None:
    """Each tool message answers a call made earlier, under that call's tool name."""
    calls: dict[str, str] = {}
    for event in example_history():
        if isinstance(event, AssistantMessage):
            calls.update({p.id: p.name for p in event.parts if isinstance(p, ToolCallPart)})
        elif isinstance(event, ToolMessage):
            assert calls.get(event.call_id) == event.tool_name


def test_history_is_clean_under_validate_history() -> None:
    """validate_history finds nothing wrong with the example."""
    assert validate_history(example_history()) == []


def test_history_is_deterministic() -> None:
    """Two calls give equal histories that serialise to the same bytes, ids and times included."""
    first, second = example_history(), example_history()
    assert first == second
    assert [EVENT_ADAPTER.dump_json(e) for e in first] == [EVENT_ADAPTER.dump_json(e) for e in second]


def test_history_round_trips_through_json_lines() -> None:
    """Each event survives dump_json then validate_json unchanged, provider data included."""
    for event in example_history():
        back = EVENT_ADAPTER.validate_json(EVENT_ADAPTER.dump_json(event))
        assert back == event
        assert EVENT_ADAPTER.dump_json(back) == EVENT_ADAPTER.dump_json(event)


def test_example_keeps_provider_data_somewhere() -> None:
    """Some model in the example carries provider_data, so echo state is exercised."""
    models = [m for e in example_history() for m in _walk(e)]
    assert any(getattr(m, "provider_data", None) is not None for m in models)
