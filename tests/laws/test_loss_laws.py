"""Law 8 of DESIGN §11, losses say what happened, on every corpus conversion and generated history.

- a loss's path resolves to the element it names (``history[3].parts[1].detail``: the fourth
  event's second part, which has a ``detail``; ``request.settings.top_k``: a setting that is set;
  ``request.tools[2]``: the third tool given, a ``tool`` or a ``server_tool``);
- its part type is that element's type (the part's ``type``, ``<role>_message`` for a message,
  ``setting`` for a setting, ``tool_definition`` for a tool);
- a ``dropped`` element is absent from the body (none of its marks is in it);
- a ``rewritten`` one is present in another form (one of its marks is in it).

Marks are the strings a body that carries the element must hold (a text, a signature, a URL, an
id), as the no-silent-drop law reads them; an element with no mark (an empty text) is judged on
its path and type alone.
"""

from __future__ import annotations

import base64
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partwire.adapters import get_adapter
from partwire.history import HistoryEvent
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import Part, ThinkingPart, ToolCallPart
from partwire.projection import Loss
from partwire.settings import RequestSettings
from partwire.testing import in_body, json_default, part_marks
from partwire.tools import ServerToolDefinition
from tests.laws.test_corpus_laws import ADAPTERS, PAIRS, _imported, _target_kwargs
from tests.strategies import histories

_HISTORY = re.compile(r"history\[(\d+)\](?:\.parts\[(\d+)\])?(?:\.([A-Za-z_]+)\S*)?")
_SETTING = re.compile(r"request\.settings\.([A-Za-z_]+)(?:\.[A-Za-z_]+)*")
_TOOL = re.compile(r"request\.tools(?:\[(\d+)\])?(?:\.\S+)?")


def _type_of(event: HistoryEvent) -> str:
    role = getattr(event, "role", None)
    return f"{role}_message" if role is not None else event.type


def _event_marks(event: HistoryEvent) -> list[str]:
    marks = [mark for part in getattr(event, "parts", ()) for mark in _part_marks(part)]
    if isinstance(event, ToolMessage) and event.output_text.strip():
        marks.append(event.output_text[:200])
    return marks


def _part_marks(part: Part) -> list[str]:
    if isinstance(part, ThinkingPart):
        # The text and the signature: a thinking part sent without its signature is rewritten.
        return [*([part.signature.value[:200]] if part.signature else []),
                *([part.text[:200]] if part.text.strip() else [])]
    if isinstance(part, ToolCallPart):
        # The name alone may be another call's: the ids and arguments are this call's own.
        return [part.id, *part.provider_ids.values()]
    return part_marks(part)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()[:40]


def _wrong(loss: Loss, history: Sequence[HistoryEvent], tools: Sequence[Any], body: str) -> str | None:
    """What is wrong with ``loss`` (``None`` when it says what happened)."""
    shared = Counter(mark for event in history for part in getattr(event, "parts", ())
                     for mark in _part_marks(part))
    if loss.path == "history":
        return None if loss.part_type in ("assistant_message", "unknown") else "a whole-history loss of a part type"
    if match := _SETTING.fullmatch(loss.path):
        if loss.part_type != "setting":
            return f"a setting named as {loss.part_type}"
        return None if match[1] in RequestSettings.model_fields else f"no setting {match[1]}"
    if match := _TOOL.fullmatch(loss.path):
        if match[1] is None:  # the request's tools as a whole: definitions it lacks
            return None if loss.part_type == "tool_definition" else f"the tools named as {loss.part_type}"
        if int(match[1]) >= len(tools):
            return f"no tool {match[1]} among {len(tools)}"
        kind = "server_tool" if isinstance(tools[int(match[1])], ServerToolDefinition) else "tool"
        return None if loss.part_type == kind else f"a {kind} named as {loss.part_type}"
    match = _HISTORY.fullmatch(loss.path)
    if match is None:
        return "a path that names nothing"
    i, j, field = int(match[1]), match[2], match[3]
    if i >= len(history):
        return f"event {i} of {len(history)}"
    event = history[i]
    if j is None:
        if loss.part_type != _type_of(event):
            return f"a {_type_of(event)} named as {loss.part_type}"
        if field is not None and not hasattr(event, field):
            return f"a {_type_of(event)} has no {field}"
        marks = _event_marks(event) if field is None else []
    else:
        parts = getattr(event, "parts", ())
        if int(j) >= len(parts):
            return f"part {j} of {len(parts)}"
        part = parts[int(j)]
        if loss.part_type != part.type:
            return f"a {part.type} part named as {loss.part_type}"
        if field is not None and not hasattr(part, field):
            return f"a {part.type} part has no {field}"
        marks = _part_marks(part) if field is None else []
        if isinstance(part, ToolCallPart) and loss.action == "rewritten":
            marks.append(part.name)  # a rewritten call may go out under a mapped id: its name stays
    # A mark of a few characters (a generated "a"), or one another element shares (two parts
    # of one URL), may be in the body for another reason.
    marks = [mark for mark in marks if (len(mark) >= 8 and shared[mark] == 1) or loss.action == "rewritten"]
    if loss.action == "dropped" and marks and any(in_body(mark, body) for mark in marks):
        return "dropped, but it is in the body"
    if loss.action == "rewritten" and j is not None and field is None and marks \
            and not any(in_body(mark, body) or _b64(mark) in body for mark in marks):
        return "rewritten, but nothing of it is in the body"
    return None


def _misnamed(history: Sequence[HistoryEvent], tools: Sequence[Any], request: dict[str, Any],
              losses: Sequence[Loss]) -> list[str]:
    body = json.dumps(request, ensure_ascii=False, default=json_default)
    found = []
    for loss in losses:
        wrong = _wrong(loss, history, tools, body)
        if wrong is not None:
            found.append(f"{loss}: {wrong}")
    return found


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_every_loss_of_a_corpus_conversion_says_what_happened(source: str, target: str) -> None:
    """Converting every real request to another API gives losses that name what happened."""
    adapter = get_adapter(target)
    wrong = []
    for file, _, imported in _imported(source):
        kwargs = _target_kwargs(imported, adapter)
        projection = adapter.to_wire(imported.history, settings=imported.settings, **kwargs)
        found = _misnamed(imported.history, kwargs["tools"], projection.request, projection.losses)
        if found:
            wrong.append(f"{file}: {found[:2]}")
    assert wrong == []


@pytest.mark.parametrize("target", ADAPTERS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=histories(), data=st.data())
def test_every_loss_of_a_generated_history_says_what_happened(target: str, history: list[HistoryEvent],
                                                             data: st.DataObject) -> None:
    """Any history sent to any adapter gives losses that name what happened."""
    adapter = get_adapter(target)
    projection = adapter.to_wire(history, model=f"{adapter.CAPABILITIES.issuer}:law")
    assert _misnamed(history, (), projection.request, projection.losses) == []


def test_the_law_finds_a_misnamed_loss() -> None:
    """A loss naming a tool call as a definition, or a sent part as dropped, is caught."""
    call = ToolCallPart.create("ls", {})
    history: list[HistoryEvent] = [AssistantMessage([call])]
    body = json.dumps({"messages": [{"content": [{"id": call.id}]}]})
    assert _wrong(Loss("history[0].parts[0]", "tool_definition", "dropped", "x", "a"), history, (), body)
    assert _wrong(Loss("history[0].parts[0]", "tool_call", "dropped", "x", "a"), history, (), body)
    assert _wrong(Loss("history[0].parts[1]", "tool_call", "dropped", "x", "a"), history, (), body)
    assert _wrong(Loss("history[0].parts[0]", "tool_call", "id_mapped", "x", "a"), history, (), body) is None
