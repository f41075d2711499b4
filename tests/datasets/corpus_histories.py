"""The histories the test suite makes of the recorded corpus: each request imported by its
API's adapter, with the recorded response appended when there is one."""

from __future__ import annotations

import contextlib
import json
from functools import cache
from typing import Any

from partwire.adapters import get_adapter
from partwire.errors import PartwireError
from partwire.history import HistoryEvent
from tests.harness.corpus import CORPUS
from tests.laws.test_corpus_laws import ADAPTERS, _imported

__all__ = ["corpus_histories", "invalid_sources"]


@cache
def corpus_histories() -> list[tuple[str, list[HistoryEvent]]]:
    """``(file, history)`` for every importable corpus request of every registered adapter."""
    found: list[tuple[str, list[HistoryEvent]]] = []
    for name in ADAPTERS:
        adapter = get_adapter(name)
        for file, _request, imported in _imported(name):
            history = list(imported.history)
            record = json.loads((CORPUS / file).read_text())
            response: Any = record.get("response")
            if record.get("status") in (None, 200) and isinstance(response, dict):
                # A body the adapter does not read (an error shape) adds no event.
                with contextlib.suppress(PartwireError):
                    history.append(adapter.from_wire(response))
            found.append((file, history))
    assert len(found) > 500, f"only {len(found)} corpus histories: is the corpus at {CORPUS}?"
    return found


@cache
def invalid_sources() -> frozenset[str]:
    """Corpus files whose recorded request its own SDK's request type refuses (a field the
    client sent that the type does not declare): what is echoed from them is refused too."""
    from tests.harness.validity import request_errors

    bad = set()
    for name in ADAPTERS:
        for file, request, _imported_request in _imported(name):
            api = "openai_chat:mistral" if file.startswith("mistral/") else name
            if request_errors(api, request, stream=bool(request.get("stream"))):
                bad.add(file)
    return frozenset(bad)
