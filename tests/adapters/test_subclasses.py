"""Classes derived from partwire's own (a part, a message, a setting a program subclasses to add
its methods): every adapter writes them as it writes the classes themselves, with the same losses.

pydantic keeps an instance of a derived class as it is in a field typed with the base class, so a
history or a setting may hold one. The adapters' fast paths look at exact classes; what they pass
over goes the general way, which must end at the same wire content: nothing dropped, no loss of
another kind. (A lone text of a derived class may go out in the longer of the API's two forms,
a list of one block rather than a string: the same request to the API.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import pytest

from partwire import (
    AssistantMessage,
    ImagePart,
    JsonSchemaOutput,
    NamedToolChoice,
    RefusalPart,
    RequestSettings,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.history import HistoryEvent
from partwire.parts import Base64Source
from tests.scenarios import RED_SQUARE_PNG

T = TypeVar("T", bound=type)
MODELS = {"anthropic": "claude-sonnet-4-5", "openai_chat": "gpt-4o", "openai_responses": "gpt-4o",
          "google": "gemini-2.5-flash", "bedrock": "anthropic.claude-sonnet-4-5",
          "ollama": "qwen3-vl:8b", "cohere": "command-a-vision-07-2025"}
TOOL = ToolDefinition(name="lookup", description="Look up a word.", input_schema={"type": "object"},
                      side_effects="read")


def _derived(cls: T) -> T:
    """A class derived from ``cls`` that adds nothing (as a program's own would add methods)."""
    made: T = cast(T, type(f"Own{cls.__name__}", (cls,), {}))
    return made


def _history(make: Callable[[type], type]) -> list[HistoryEvent]:
    """A conversation with every common part and message, each of ``make(cls)``."""
    image = make(ImagePart)(source=Base64Source(data=RED_SQUARE_PNG), media_type="image/png")
    return [
        make(SystemMessage)(parts=(make(TextPart)(text="Be brief."),)),
        make(UserMessage)(parts=(make(TextPart)(text="What is this?"), image)),
        make(AssistantMessage)(parts=(make(ThinkingPart)(text="A square."), make(TextPart)(text="Let me look."),
                                      make(ToolCallPart)(id="call_1", name="lookup", arguments_json='{"q":"red"}'))),
        make(ToolMessage)(call_id="call_1", tool_name="lookup", output_text="a colour", status="success"),
        make(AssistantMessage)(parts=(make(RefusalPart)(text="I will not say more."),)),
        make(UserMessage)(parts=(make(TextPart)(text="Thanks."),)),
    ]


def _content(name: str, body: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What a request says, read back by the same adapter: each message's class and the kind,
    text, call and result of each part, without the marks that record a body's form. Call ids
    are numbered in order of appearance (a wire id may be made from a message's own id)."""
    ids: dict[str, int] = {}
    said: list[tuple[Any, ...]] = []
    for event in get_adapter(name).from_wire_request(body).history:
        parts = tuple((part.type, getattr(part, "text", None), getattr(part, "name", None),
                       getattr(part, "arguments_json", None), getattr(part, "media_type", None),
                       ids.setdefault(part.id, len(ids)) if isinstance(part, ToolCallPart) else None)
                      for part in getattr(event, "parts", ()))
        call_id = getattr(event, "call_id", None)
        said.append((type(event).__name__, parts, ids.setdefault(call_id, len(ids)) if call_id else None,
                     getattr(event, "output_text", None)))
    return said


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_a_history_of_derived_classes_says_what_the_classes_say(name: str) -> None:
    adapter = get_adapter(name)
    own = adapter.to_wire(_history(_derived), model=MODELS[name], tools=[TOOL])
    base = adapter.to_wire(_history(lambda cls: cls), model=MODELS[name], tools=[TOOL])
    assert [str(loss) for loss in own.losses] == [str(loss) for loss in base.losses]
    assert _content(name, own.request) == _content(name, base.request)


class _OwnFormat(JsonSchemaOutput):
    """A program's own kind of JSON-schema format."""


class _OwnChoice(NamedToolChoice):
    """A program's own kind of named tool choice."""


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_a_setting_of_a_derived_class_is_written_as_the_class_itself(name: str) -> None:
    """A tool choice or an output format of a derived class goes out exactly as the same values
    of the class itself, with the same losses: none is dropped unsaid."""
    adapter = get_adapter(name)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}

    def written(fmt: JsonSchemaOutput, choice: NamedToolChoice) -> tuple[Any, list[str]]:
        result = adapter.to_wire([UserMessage("hi")], model=MODELS[name], tools=[TOOL],
                                 settings=RequestSettings(output_format=fmt, tool_choice=choice))
        return result.request, [str(loss) for loss in result.losses]

    own = written(_OwnFormat(json_schema=schema, name="answer"), _OwnChoice(name="lookup"))
    assert type(RequestSettings(output_format=_OwnFormat(json_schema=schema)).output_format) is _OwnFormat
    assert own == written(JsonSchemaOutput(json_schema=schema, name="answer"), NamedToolChoice(name="lookup"))
