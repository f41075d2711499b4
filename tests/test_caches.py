"""partwire.caches.clear(): every memo and cache emptied, the memory given back, no result changed."""

from __future__ import annotations

import ast
import functools
import tracemalloc
from pathlib import Path

import pytest

from partwire import ToolDefinition, UserMessage
from partwire._memo import derived, forget, memo
from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.caches import clear

SRC = Path(__file__).resolve().parents[1] / "src" / "partwire"
MODELS = {"anthropic": "claude-sonnet-4-5", "openai_chat": "gpt-4.1", "openai_responses": "gpt-4.1",
          "google": "gemini-2.5-pro", "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
          "ollama": "qwen3:8b",
          "cohere": "command-a-03-2025"}
# Module-level containers that are no memo: a shared empty value never written to, the
# registry of live id sources that a forked child restarts (ids.py), and the registry of fused
# default factories, filled once at import (_base.py).
NOT_CACHES = {("_base.py", "_NO_EXTRA"), ("_base.py", "_FUSED"),
              ("adapters/bedrock/_encode.py", "_NO_MARKS"), ("ids.py", "_sources")}


def _tool(i: int) -> ToolDefinition:
    return ToolDefinition(name=f"tool_{i}", description=f"Tool number {i}. " + "It reads. " * 150,
                          input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
                          side_effects="read")


@pytest.mark.parametrize("values_only", [False, True])
@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_a_round_trip_is_the_same_before_and_after_clear(name: str, values_only: bool) -> None:
    """A request written, read back and written again gives the same bodies whether the memos
    were filled by the same round trip or emptied just before (all of them, or those of values
    met alone)."""
    adapter = get_adapter(name)
    history = [UserMessage("What is in README.md?")]

    def trip() -> tuple[dict[str, object], dict[str, object], int]:
        body = adapter.to_wire(history, model=MODELS[name], tools=[_tool(0)],
                               settings={"temperature": 0.5, "max_output_tokens": 100}).request
        imported = adapter.from_wire_request(body)
        again = adapter.to_wire(imported.history, **imported.to_wire_kwargs()).request
        return body, again, adapter.estimate_input_tokens(history, [_tool(0)], model=MODELS[name])

    warm = trip(), trip()
    clear(values_only=values_only)
    cold = trip()
    assert warm[0] == warm[1] == cold
    assert cold[0] == cold[1]


@pytest.mark.parametrize("values_only", [False, True])
def test_clear_gives_the_memory_back(values_only: bool) -> None:
    """What the memos hold after many distinct tools, settings and estimated texts is freed by
    clear(), and by clear(values_only=True) too (what it keeps is worked out about partwire's
    own classes, not about the values): the memory traced afterwards is back near where it
    started."""
    google, responses, anthropic = (get_adapter(n) for n in ("google", "openai_responses", "anthropic"))
    clear()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for i in range(200):
            for adapter in (google, responses):
                body = adapter.to_wire([UserMessage("hi")], model="m", tools=[_tool(i)],
                                       settings={"temperature": i / 200}).request
                adapter.from_wire_request(body)
            anthropic.estimate_input_tokens([UserMessage(f"Note {i}: " + "some words " * 300)])
        del body
        held = tracemalloc.get_traced_memory()[0] - start
        clear(values_only=values_only)
        after = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert held > 1_000_000
    assert after < held / 5


def _unregistered(path: Path) -> list[str]:
    """The caches a module keeps outside the registry: module- or class-level empty containers
    not made through ``memo()`` or ``derived()``, and ``functools`` caches registered with
    neither ``cached`` nor ``derived``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    bodies = [tree.body] + [node.body for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    for body in bodies:
        for node in body:
            if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
                continue
            value = node.value
            empty = (isinstance(value, ast.Dict) and not value.keys) or (
                isinstance(value, ast.Call) and not value.args
                and ast.unparse(value.func).rsplit(".", 1)[-1] in {
                    "dict", "set", "OrderedDict", "defaultdict", "WeakKeyDictionary",
                    "WeakValueDictionary"})
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if empty and ast.unparse(target) not in {n for p, n in NOT_CACHES
                                                       if SRC / p == path}:
                found.append(f"{path.relative_to(SRC)}:{node.lineno} {ast.unparse(target)}")
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            names = {ast.unparse(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1]
                     for d in fn.decorator_list}
            if names & {"cache", "lru_cache"} and not names & {"cached", "derived"}:
                found.append(f"{path.relative_to(SRC)}:{fn.lineno} {fn.name}()")
    return found


def test_every_cache_is_in_the_one_registry() -> None:
    """No module of partwire keeps a memo or cache that clear() would not empty."""
    assert [where for path in sorted(SRC.rglob("*.py")) for where in _unregistered(path)] == []


def test_values_only_keeps_what_is_derived_from_partwire_itself() -> None:
    """The registry's two kinds: ``forget(values_only=True)`` empties the memos of values met and
    keeps the caches derived from partwire's own classes and data; ``forget()`` empties both."""
    met: dict[str, int] = memo({})
    own: dict[str, int] = derived({})
    calls: list[str] = []

    @derived
    @functools.cache
    def loaded(name: str) -> str:
        calls.append(name)
        return name.upper()

    met["tool"], own["field"] = 1, 2
    loaded("tokenizer")
    forget(values_only=True)
    assert (met, own) == ({}, {"field": 2})
    loaded("tokenizer")
    assert calls == ["tokenizer"]
    forget()
    assert own == {}
    loaded("tokenizer")
    assert calls == ["tokenizer", "tokenizer"]
