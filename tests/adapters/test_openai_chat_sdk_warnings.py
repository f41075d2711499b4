"""A Mistral response read through the OpenAI SDK's objects decodes without serializer warnings."""

from __future__ import annotations

import warnings

import pytest

from partwire.adapters import openai_chat

openai = pytest.importorskip("openai")


def test_list_content_in_an_sdk_object_gives_no_serializer_warning() -> None:
    """Content blocks where the SDK's type says str are read as sent, with no PydanticSerializationUnexpectedValue."""
    body = {"id": "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "object": "chat.completion", "created": 1, "model": "magistral-medium",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": [
                {"type": "thinking", "thinking": [{"type": "text", "text": "Let me think."}]},
                {"type": "text", "text": "Hello."}]}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}
    # What the client hands back: the object built as the SDK builds it, without validation.
    response = openai._models.construct_type(type_=openai.types.chat.ChatCompletion, value=body)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        message = openai_chat.from_wire(response, options={"dialect": "mistral"})
    assert [p.type for p in message.parts] == ["thinking", "text"]
