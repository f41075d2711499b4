"""Every adapter's public per-block codecs (``partwire.adapters.<api>.blocks``): the same verbs,
the same results as the whole-request functions, and losses beside the block."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from partwire import ImagePart, Opaque, RedactedThinkingPart, TextPart, UnknownPart, UserMessage
from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.adapters.google.blocks import stop_reason_from_wire
from partwire.errors import WireFormatError
from partwire.parts import Base64Source, Part
from tests.scenarios import RED_SQUARE_PNG

MODELS = {"anthropic": "claude-sonnet-4-5", "openai_chat": "gpt-4o", "openai_responses": "gpt-4o",
          "google": "gemini-2.5-flash", "bedrock": "anthropic.claude-sonnet-4-5",
          "ollama": "qwen3-vl:8b",
          "cohere": "command-a-03-2025"}

# Where a user message's first content block sits in each API's request body.
FIRST_BLOCK: dict[str, Callable[[dict[str, Any]], Any]] = {
    "anthropic": lambda body: body["messages"][0]["content"][0],
    "bedrock": lambda body: body["messages"][0]["content"][0],
    "google": lambda body: body["contents"][0]["parts"][0],
    "openai_chat": lambda body: body["messages"][0]["content"][0],
    "openai_responses": lambda body: body["input"][0]["content"][0],
    # An Ollama message has fields, not blocks: its "block" is the one field the part fills.
    "ollama": lambda body: {"images": body["messages"][0]["images"]},
    "cohere": lambda body: body["messages"][0]["content"][0],
}

IMAGE = ImagePart(source=Base64Source(data=RED_SQUARE_PNG), media_type="image/png")


def blocks(name: str) -> ModuleType:
    """The adapter's ``blocks`` module."""
    return importlib.import_module(f"partwire.adapters.{name}.blocks")


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_every_adapter_has_the_same_block_verbs(name: str) -> None:
    """Each adapter's blocks module exports ``part_from_wire`` and ``part_to_wire``."""
    module = blocks(name)
    assert {"part_from_wire", "part_to_wire"} <= set(module.__all__)


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_a_block_is_what_to_wire_writes(name: str) -> None:
    """``part_to_wire`` gives the very block ``to_wire`` writes for the part in a user message."""
    body = get_adapter(name).to_wire([UserMessage(parts=[IMAGE, TextPart(text="what colour?")])],
                                     model=MODELS[name]).request
    block, losses = blocks(name).part_to_wire(IMAGE)
    assert block == FIRST_BLOCK[name](body)
    assert losses == ()


@pytest.mark.parametrize("name", ADAPTER_NAMES)
@pytest.mark.parametrize("part", [IMAGE, TextPart(text="hello")], ids=["image", "text"])
def test_a_part_comes_back_from_its_block(name: str, part: Part) -> None:
    """``part_from_wire(part_to_wire(p))`` is ``p`` again, with no loss either way (but the image
    detail Responses always states)."""
    module = blocks(name)
    block, lost = module.part_to_wire(part)
    again, read_losses = module.part_from_wire(block)
    assert lost == read_losses == ()
    skip = {"provider_data", "detail"} if name == "openai_responses" else {"provider_data"}
    assert again.model_dump(exclude=skip) == part.model_dump(exclude=skip)


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_a_part_the_api_cannot_take_is_a_loss(name: str) -> None:
    """Encrypted reasoning from another issuer gives no block and a ``dropped`` loss on the part."""
    part = RedactedThinkingPart(data=Opaque(value="c2VjcmV0", issuer="elsewhere"))
    block, losses = blocks(name).part_to_wire(part)
    assert block is None
    assert [(loss.path, loss.part_type, loss.action) for loss in losses] == [
        ("history[0].parts[0]", "redacted_thinking", "dropped")]


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_an_unknown_block_is_kept_whole(name: str) -> None:
    """A block the adapter does not know becomes an UnknownPart holding it, never an error."""
    raw = {"type": "hologram", "hologram": {"depth": 3}} if name != "bedrock" else {"hologram": {"depth": 3}}
    part, losses = blocks(name).part_from_wire(raw)
    assert isinstance(part, UnknownPart)
    assert part.raw == raw
    assert losses == ()


def test_a_block_that_is_not_an_object_is_a_wire_format_error() -> None:
    """A Gemini part that is not an object is refused with a WireFormatError naming the API."""
    with pytest.raises(WireFormatError, match="google"):
        blocks("google").part_from_wire(["text", "hi"])


def test_gemini_finish_reasons_read_as_the_adapter_reads_them() -> None:
    """``STOP`` with function calls is ``tool_use``; ``MAX_TOKENS`` is ``length``."""
    assert stop_reason_from_wire("STOP", tool_calls=True) == "tool_use"
    assert stop_reason_from_wire("STOP") == "stop"
    assert stop_reason_from_wire("MAX_TOKENS") == "length"
