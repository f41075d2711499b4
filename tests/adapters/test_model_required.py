"""An empty model is refused: a body the API would reject with an empty model is never built."""

from __future__ import annotations

import pytest

from partwire import UserMessage
from partwire.adapters import get_adapter
from partwire.errors import ArgumentError


@pytest.mark.parametrize("name", ["anthropic", "openai_chat", "openai_responses", "bedrock"])
@pytest.mark.parametrize("model", ["", "  "])
def test_an_empty_model_raises_argument_error(name: str, model: str) -> None:
    """``to_wire(model="")`` raises ArgumentError naming the model, as a missing model does."""
    with pytest.raises(ArgumentError, match="model is empty") as caught:
        get_adapter(name).to_wire([UserMessage("hi")], model=model)
    assert caught.value.argument == "model"
