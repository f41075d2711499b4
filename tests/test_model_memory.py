"""What a loaded history weighs: shared bookkeeping and interned values, with nothing else changed."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import tracemalloc

import orjson
import pytest

from partwire import AssistantMessage, TextPart, ToolCallPart, UserMessage
from partwire._base import CanonicalModel, build, with_field
from partwire.codec import dumps, loads
from tests.benchmarks.agent_history import agent_history

HISTORY = agent_history(300)
DATA = dumps(HISTORY)


def _models(value: object) -> list[CanonicalModel]:
    """Every canonical model inside ``value``, depth first."""
    found: list[CanonicalModel] = []
    if isinstance(value, CanonicalModel):
        found.append(value)
        value = list(value.__dict__.values())
    if isinstance(value, list | tuple):
        for item in value:
            found.extend(_models(item))
    return found


def test_loaded_history_equals_dumps_and_writes_the_same_bytes() -> None:
    """A loaded history equals the one written, dumps like it, field for field, and writes the same bytes."""
    loaded = loads(DATA)
    assert loaded == HISTORY
    assert dumps(loaded) == DATA
    for ours, theirs in zip(loaded, HISTORY, strict=True):
        assert ours.model_dump() == theirs.model_dump()
        assert ours.model_dump(mode="json") == theirs.model_dump(mode="json")


def test_loaded_models_dump_every_field_as_set() -> None:
    """Every model read back was given all its fields and no extra one, and ``exclude_unset``
    dumps keep every field, as the line holds it."""
    loaded = loads(DATA)
    for model in _models(loaded):
        assert model.model_fields_set == set(type(model).model_fields)
        assert model.model_extra == {}
    for event, line in zip(loaded, DATA.splitlines(), strict=True):
        assert event.model_dump(mode="json", exclude_unset=True) == json.loads(line)


def test_models_given_some_fields_still_know_which() -> None:
    """A model built from some of its fields keeps exactly those as set, and ``exclude_unset`` drops the rest."""
    part = TextPart(text="hi")
    assert part.model_fields_set == {"text"}
    assert part.model_dump(exclude_unset=True) == {"text": "hi"}
    call = ToolCallPart(id="tu_1", name="f", arguments_json="{}")
    assert call.model_fields_set == {"id", "name", "arguments_json"}
    message = UserMessage("hi")
    assert message.model_fields_set == {"parts"}
    assert set(message.model_dump(exclude_unset=True)) == {"parts"}


@pytest.mark.parametrize("deep", [False, True], ids=["copy", "deepcopy"])
def test_a_copy_with_changes_leaves_every_other_instance_alone(deep: bool) -> None:
    """``model_copy(update=...)`` with a new extra field changes the copy's set and extras, not the
    shared ones other instances read."""
    first, second = [e for e in loads(DATA) if isinstance(e, AssistantMessage)][:2]
    changed = first.model_copy(update={"status": "aborted", "note": "x"}, deep=deep)
    assert changed.model_extra == {"note": "x"}
    assert "note" in changed.model_fields_set
    assert second.model_extra == {}
    assert second.model_fields_set == set(AssistantMessage.model_fields)
    assert first.status != "aborted"
    assert copy.copy(second) == second
    assert copy.deepcopy(second) == second


def test_fields_sets_written_beside_extras_or_before_them_stay_exact() -> None:
    """The shared set is taken only for a set naming every field: not for a set as long but
    holding an extra instead of a field, nor for one that ``model_construct`` or unpickling
    writes before the extras, nor for a copy of one of those."""
    as_long = TextPart.model_validate({"text": "x", "provider_data": None, "citations": [], "zz": 1})
    assert len(as_long.model_fields_set) == len(TextPart.model_fields)
    assert as_long.model_fields_set == {"text", "provider_data", "citations", "zz"}
    assert "type" not in as_long.model_dump(exclude_unset=True)
    assert as_long.model_extra == {"zz": 1}
    built = TextPart.model_construct(_fields_set={"bogus", "text", "type", "citations"}, text="y")
    for made in (built, copy.copy(built), copy.deepcopy(built), pickle.loads(pickle.dumps(built))):
        assert made.model_fields_set == {"bogus", "text", "type", "citations"}
    every = TextPart.model_validate_json(TextPart(text="z").model_dump_json())
    assert every.model_fields_set == set(TextPart.model_fields)
    assert pickle.loads(pickle.dumps(every)).model_fields_set == set(TextPart.model_fields)
    for made in (copy.copy(every), every.model_copy(update={"text": "w"})):  # pydantic writes into these
        assert made.model_fields_set == set(TextPart.model_fields)
        # A copy's set is its own: changing it leaves the original and every other instance alone.
        made.model_fields_set.discard("citations")
        assert every.model_fields_set == set(TextPart.model_fields)
        assert TextPart.model_validate_json('{"type": "text", "text": "v"}').model_fields_set == {"type", "text"}
        assert loads(DATA)[0].model_fields_set == set(type(loads(DATA)[0]).model_fields)


def test_an_instance_given_every_field_reports_and_dumps_every_field() -> None:
    """Loaded, built or copied with a field changed, an instance given every field reports every
    field as set and dumps them all with ``exclude_unset``; one given some fields reports those."""
    full = TextPart(text="a")
    built = build(TextPart, {name: getattr(full, name) for name in TextPart.model_fields})
    events = loads(DATA)
    changed = with_field(events[0], "id", "changed")
    for model in [*_models(events), built, changed]:
        assert model.model_fields_set == set(type(model).model_fields)
        assert set(model.model_dump(exclude_unset=True)) == set(type(model).model_fields)
    assert changed.id == "changed" != events[0].id
    partial = TextPart.model_validate_json('{"type": "text", "text": "x"}')
    assert partial.model_fields_set == {"type", "text"}
    assert partial.model_dump(exclude_unset=True) == {"type": "text", "text": "x"}
    assert full.model_fields_set == {"text"}
    assert full.model_dump(exclude_unset=True) == {"text": "a"}


def test_extras_survive_load_and_resave() -> None:
    """An unknown field on a line is kept per instance, not lost in the shared empty extras."""
    line = json.loads(DATA.splitlines()[1])
    line["future_field"] = {"a": 1}
    loaded = loads(orjson.dumps(line) + b"\n" + DATA.splitlines()[2] + b"\n")
    assert loaded[0].model_extra == {"future_field": {"a": 1}}
    assert loaded[1].model_extra == {}
    assert json.loads(dumps(loaded[:1]))["future_field"] == {"a": 1}


def test_repeated_short_values_are_one_string_each() -> None:
    """Issuers, model ids, roles and stop reasons read from many lines are a few objects, not one a line."""
    messages = [e for e in loads(DATA) if isinstance(e, AssistantMessage)]
    # pydantic-core's string cache is a fixed-size table shared by the process: a value can be
    # evicted by another that hashes alike, so "one each" is a handful, never one per line.
    for field in ("model", "provider", "api", "stop_reason_raw", "role", "type"):
        assert len({id(getattr(m, field)) for m in messages}) <= len(messages) // 10, field


def test_a_loaded_history_weighs_no_more_than_its_json_as_dicts() -> None:
    """Loaded, the history holds no more bytes than ``orjson.loads`` of each of its lines."""
    lines = DATA.splitlines()

    def held(load: object) -> int:
        gc.collect()
        tracemalloc.start()
        try:
            kept = load() if callable(load) else None
            gc.collect()
            size = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        del kept
        return size

    ours = held(lambda: loads(DATA))
    dicts = held(lambda: [orjson.loads(line) for line in lines])
    assert ours <= dicts
