"""The readers' shortcuts make what validation makes, on every real request.

The request readers build their commonest models without pydantic's validation (``build``,
``one_field``: a text part, a tool call, a thinking part, a message of parts) when the values
read already are what validation would make of them. For every model of every imported corpus
request (messages, parts, sources, signatures, echo state, tools, settings), the instance the
constructor validates from the same given fields must be indistinguishable from it: equal, the
same fields set, the same dumps (``exclude_unset`` included, and the echo state, which equality
ignores).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from tests.laws.test_corpus_laws import ADAPTERS, _imported


def _models(value: Any) -> Iterator[BaseModel]:
    if isinstance(value, BaseModel):
        yield value
        for name in type(value).model_fields:
            yield from _models(getattr(value, name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _models(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _models(item)


def _validated(model: BaseModel) -> BaseModel:
    """The instance the constructor makes of ``model``'s given fields (nested models as they are)."""
    given = {name: getattr(model, name) for name in model.model_fields_set}
    return type(model)(**given, **(model.model_extra or {}))


@pytest.mark.parametrize("name", ADAPTERS)
def test_every_model_read_is_the_one_validation_makes(name: str) -> None:
    """Each model of each imported corpus request equals, and dumps like, its validated twin."""
    seen = 0
    for file, _, imported in _imported(name):
        for model in _models((imported.history, imported.tools, imported.settings)):
            twin = _validated(model)
            where = f"{file}: {type(model).__name__}"
            # Fields left to their default factories (a message's id and time) differ by nature.
            fresh = {n for n, f in type(model).model_fields.items()
                     if f.default_factory is not None and n not in model.model_fields_set}
            assert twin.model_fields_set == model.model_fields_set, where
            for mode in ("python", "json"):  # python: a tuple where validation makes one
                for unset in (False, True):
                    assert twin.model_dump(mode=mode, exclude=fresh, exclude_unset=unset) == \
                        model.model_dump(mode=mode, exclude=fresh, exclude_unset=unset), where
            if not fresh:
                assert twin == model, where
            seen += 1
    # The corpus holds real traffic for every API; Ollama's is six requests (corpus/ollama/README.md).
    assert seen > (10 if name == "ollama" else 100)
