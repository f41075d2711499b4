"""The one public surface the kernel writes for every adapter, exercised on all five.

Each adapter's ``to_wire``, ``from_wire``, ``from_wire_request``, ``stream``, ``astream`` and
``estimate_input_tokens`` are made by ``partwire.adapters._surface`` over the adapter's hooks;
these tests hold the surface to one behaviour, whichever adapter it fronts.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import gc
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from partwire import AssistantMessage, DeveloperMessage, HistoryEvent, UserMessage
from partwire._collector import MIN_ITEMS
from partwire.adapters import (
    ADAPTER_NAMES,
    Adapter,
    WireFormatError,
    anthropic,
    bedrock,
    cohere,
    get_adapter,
    google,
    ollama,
    openai_chat,
    openai_responses,
)
from partwire.errors import ArgumentError, LossError
from partwire.parts import Opaque, TextPart, ThinkingPart
from partwire.streaming import MessageCompleteEvent, StreamEvent

# Statically, every adapter module is an Adapter (mypy checks this line).
MODULES: tuple[Adapter, ...] = (anthropic, openai_chat, openai_responses, google, bedrock, ollama)

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ("to_wire", "from_wire", "from_wire_request", "stream", "astream", "estimate_input_tokens")
MODELS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1", "openai_responses": "gpt-4.1",
          "google": "gemini-3-flash-preview", "bedrock": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
          "ollama": "qwen3:8b",
          "cohere": "command-a-03-2025"}
HISTORY: list[HistoryEvent] = [UserMessage("What is the capital of France?")]
# Reasoning signed by an issuer no adapter accepts: every adapter drops it, with a loss.
LOSSY: list[HistoryEvent] = [
    UserMessage("hi"),
    AssistantMessage(parts=[ThinkingPart(text="hmm", signature=Opaque(value="sig", issuer="nobody"))]),
    UserMessage("go on"),
]
NOT_A_BODY = [42, "{not json", [1, 2], b"\xff\xfe"]


def _module(name: str) -> ModuleType:
    return __import__(f"partwire.adapters.{name}", fromlist=["_"])


def _recorded(name: str) -> tuple[Any, Any]:
    """The plain-chat cassette's whole response body and its stream body, as recorded."""
    with open(ROOT / "cassettes" / name / "plain_chat.yaml", encoding="utf-8") as handle:
        whole, streamed = yaml.safe_load(handle)["interactions"][:2]
    return whole["response"]["body"]["string"], streamed["response"]["body"]["string"]


# One switch per adapter that shows in a result, as a field value and as the CLI's string; and
# the call that shows it.
SWITCHES: dict[str, tuple[dict[str, Any], dict[str, str], Callable[..., Any]]] = {
    "anthropic": ({"sampling": True}, {"sampling": "true"}, lambda **o: anthropic.to_wire(
        HISTORY, model=MODELS["anthropic"], settings={"temperature": 0.5}, **o).request),
    "openai_chat": ({"dialect": "deepseek"}, {"dialect": "deepseek"}, lambda **o: openai_chat.to_wire(
        HISTORY, model="m", max_tokens=10, **o).request),
    "openai_responses": ({"continuation": "none"}, {"continuation": "none"},
                         lambda **o: openai_responses.to_wire(HISTORY, model="m", **o).request),
    "google": ({"candidate": 1}, {"candidate": "1"}, lambda **o: _second_candidate(**o)),
    "bedrock": ({"model_id": "amazon.nova-lite-v1:0"}, {"model_id": "amazon.nova-lite-v1:0"},
                lambda **o: bedrock.from_wire(_recorded("bedrock")[0], **o).model),
    "ollama": ({"developer_role": "user"}, {"developer_role": "user"}, lambda **o: ollama.to_wire(
        [UserMessage("q"), DeveloperMessage("$ ls")], model=MODELS["ollama"], **o).request),
    "cohere": ({"foreign_thinking": "text"}, {"foreign_thinking": "text"}, lambda **o: cohere.to_wire(
        [*HISTORY, AssistantMessage([ThinkingPart(text="Madrid."), "Madrid."])],
        model=MODELS["cohere"], **o).request),
}


def _second_candidate(**options: Any) -> str:
    """The text of the candidate a Gemini response is read at (two candidates)."""
    body = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "index": i,
                            "finishReason": "STOP"} for i, text in enumerate(("first", "second"))]}
    return google.from_wire(body, **options).text


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_options_as_instance_mapping_keywords_or_strings_mean_the_same(name: str) -> None:
    """An adapter's switch given as an Options instance, a mapping, keywords or strings gives
    the same result, and one that differs from the defaults."""
    fields, strings, call = SWITCHES[name]
    options_type = _module(name).Options
    results = [call(options=options_type(**fields)), call(options=fields), call(**fields),
               call(options=strings), call(**strings)]
    assert all(result == results[0] for result in results)
    assert results[0] != call()
    assert call() == call(options=options_type()) == call(options={})


def _calls(name: str) -> dict[str, Callable[..., Any]]:
    """Each public function called with a valid input, taking extra keywords."""
    adapter = get_adapter(name)
    whole, streamed = _recorded(name)
    return {
        "to_wire": lambda **kw: adapter.to_wire(HISTORY, model=MODELS[name], **kw),
        "from_wire": lambda **kw: adapter.from_wire(whole, **kw),
        "from_wire_request": lambda **kw: adapter.from_wire_request(
            adapter.to_wire(HISTORY, model=MODELS[name]).request, **kw),
        "stream": lambda **kw: list(adapter.stream(streamed, **kw)),
        "astream": lambda **kw: asyncio.run(_collect(adapter.astream(_chunks(streamed), **kw))),
        "estimate_input_tokens": lambda **kw: adapter.estimate_input_tokens(HISTORY, **kw),
    }


@pytest.mark.parametrize("function", PUBLIC)
@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_an_unknown_option_is_refused_naming_the_fields(name: str, function: str) -> None:
    """Every public function refuses a switch its adapter does not have, as an ArgumentError
    naming it and every field there is, given as a keyword or in ``options``."""
    call = _calls(name)[function]
    fields = [f.name for f in dataclasses.fields(_module(name).Options)]
    for given in ({"no_such_switch": 1}, {"options": {"no_such_switch": 1}}):
        with pytest.raises(ArgumentError) as caught:
            call(**given)
        assert "no_such_switch" in str(caught.value)
        assert all(field in str(caught.value) for field in fields)


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_options_of_the_wrong_kind_are_refused(name: str) -> None:
    """``options`` that is neither the adapter's Options, a mapping nor None is an ArgumentError."""
    with pytest.raises(ArgumentError, match="options"):
        get_adapter(name).to_wire(HISTORY, model=MODELS[name], options=42)


@pytest.mark.parametrize("body", NOT_A_BODY, ids=repr)
@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_what_is_no_body_raises_a_wire_format_error(name: str, body: Any) -> None:
    """A number, broken JSON, a list of numbers or undecodable bytes given to ``from_wire`` or
    ``from_wire_request`` raises WireFormatError naming the adapter, never a foreign exception."""
    adapter = get_adapter(name)
    for decode in (adapter.from_wire, adapter.from_wire_request):
        with pytest.raises(WireFormatError) as caught:
            decode(body)
        assert caught.value.provider in (name, adapter.CAPABILITIES.issuer, "openai")


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_a_stream_of_garbage_raises_a_wire_format_error(name: str) -> None:
    """Stream items that are no stream events raise WireFormatError, synchronously and not."""
    adapter = get_adapter(name)
    with pytest.raises(WireFormatError):
        list(adapter.stream([42, "x"]))
    with pytest.raises(WireFormatError):
        asyncio.run(_collect(adapter.astream(_chunks([42, "x"]))))


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_strict_raises_what_would_be_lost(name: str) -> None:
    """``strict=True`` raises LossError naming the dropped part; without it the same history
    projects, with the loss reported."""
    adapter = get_adapter(name)
    with pytest.raises(LossError, match=r"history\[1\]\.parts\[0\]"):
        adapter.to_wire(LOSSY, model=MODELS[name], strict=True)
    projection = adapter.to_wire(LOSSY, model=MODELS[name])
    assert "history[1].parts[0]" in [loss.path for loss in projection.losses]


async def _chunks(items: Any) -> AsyncIterator[Any]:
    for item in items if isinstance(items, list) else [items]:
        yield item


async def _collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in events]


def _ends_with_one_completion(events: list[StreamEvent]) -> AssistantMessage:
    completions = [e for e in events if isinstance(e, MessageCompleteEvent)]
    assert len(completions) == 1
    assert events[-1] is completions[0]
    return completions[0].message


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_stream_and_astream_end_with_one_completion_equal_to_the_response(name: str) -> None:
    """A recorded stream, read synchronously or not, ends with one MessageCompleteEvent whose
    message has the recorded response's text; an empty stream ends with one too."""
    adapter = get_adapter(name)
    whole, streamed = _recorded(name)
    text = adapter.from_wire(whole).text
    assert text
    synchronous = _ends_with_one_completion(list(adapter.stream(streamed)))
    asynchronous = _ends_with_one_completion(asyncio.run(_collect(adapter.astream(_chunks(streamed)))))
    assert synchronous.text == asynchronous.text
    assert synchronous.text.split() == text.split() or synchronous.text[:20] == text[:20]
    _ends_with_one_completion(list(adapter.stream([])))


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_an_estimate_is_a_positive_int_growing_with_the_history(name: str) -> None:
    """``estimate_input_tokens`` gives an int, more for a longer history."""
    adapter = get_adapter(name)
    short = adapter.estimate_input_tokens(HISTORY)
    longer = adapter.estimate_input_tokens([*HISTORY, UserMessage("And of Spain? " * 20)],
                                           model=MODELS[name])
    assert type(short) is int
    assert 0 < short < longer


@pytest.fixture
def low_threshold() -> Iterator[int]:
    """A first-generation threshold of 123 for the test, the caller's put back afterwards."""
    saved = gc.get_threshold()
    gc.set_threshold(123, saved[1], saved[2])
    try:
        yield 123
    finally:
        gc.set_threshold(*saved)


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_the_collector_is_given_back_when_a_call_raises(name: str, low_threshold: int) -> None:
    """A large history that ``to_wire`` refuses (strict) and a large body that
    ``from_wire_request`` refuses leave the collector as the caller had it."""
    adapter = get_adapter(name)
    large = LOSSY * 40
    with pytest.raises(LossError):
        adapter.to_wire(large, model=MODELS[name], strict=True)
    assert gc.get_threshold()[0] == low_threshold
    turns: list[HistoryEvent] = [UserMessage("Why?"), AssistantMessage(parts=[TextPart(text="Because.")])]
    body = adapter.to_wire(turns * 100, model=MODELS[name]).request
    key = next(key for key in ("messages", "contents", "input") if key in body)
    assert len(body[key]) >= MIN_ITEMS  # large enough to be held
    body[key] = [*body[key], 7]
    with pytest.raises(WireFormatError):
        adapter.from_wire_request(body)
    assert gc.get_threshold()[0] == low_threshold
    assert gc.isenabled()


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_each_public_function_reads_as_the_adapters_own(name: str) -> None:
    """``help()`` shows each public function under its adapter's module and name, with a
    docstring, and ``options`` typed as that adapter's Options."""
    module = _module(name)
    for function in PUBLIC:
        fn = getattr(module, function)
        assert (fn.__module__, fn.__name__, fn.__qualname__) == (module.__name__, function, function)
        assert (fn.__doc__ or "").strip()
        parameter = inspect.signature(fn).parameters["options"]
        assert parameter.annotation == "Options | Mapping[str, Any] | None"
        assert parameter.default is None


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_an_adapter_init_declares_and_defines_no_function(name: str) -> None:
    """An adapter's ``__init__.py`` holds declarations only: no function is defined in it (its
    public functions are the kernel's, bound by name or unpacked from what the kernel made)."""
    path = ROOT / "src" / "partwire" / "adapters" / name / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = [node.name for node in tree.body
               if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    assert defined == []
    targets = [target for node in tree.body if isinstance(node, ast.Assign)
               for target in node.targets]
    names = [t for target in targets
             for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
    bound = {t.id for t in names if isinstance(t, ast.Name)}
    assert set(PUBLIC) <= bound
