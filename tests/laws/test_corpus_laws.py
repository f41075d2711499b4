"""The laws of DESIGN §11 over every registered adapter, on every real request of the corpus.

An adapter joins by being registered in ``partwire.adapters`` (``get_adapter`` finds it): each
law then runs with it as source, as target, or both. Requests are compared as full JSON, never
with ``==`` on models, so lost echo state (signatures, provider ids) shows.

- switch: ``check_switch(h, target)`` names exactly the losses of ``target.to_wire(h)``;
- no silent drop: every part of ``h`` is in the target's request or named by a loss, and no
  wire message goes out empty;
- tool-call ids: A -> B -> A gives A's request its own call ids back whenever B admits them;
- prefix stability: appending events never changes the earlier wire messages.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
)
from partwire.adapters import ADAPTER_NAMES, Adapter, get_adapter
from partwire.adapters.requests import ImportedRequest
from partwire.errors import SwitchRefusedError, UnknownAdapterError
from partwire.history import HistoryEvent
from partwire.projection import Loss
from partwire.switch import check_switch
from partwire.testing import silent_drops
from tests.harness.corpus import CORPUS
from tests.harness.laws import json_default
from tests.harness.providers import KIT_NAMES, get_kit


def _adapters() -> list[str]:
    found = []
    for name in ADAPTER_NAMES:
        try:
            get_adapter(name)
        except UnknownAdapterError:
            continue
        found.append(name)
    return found


ADAPTERS = _adapters()
PAIRS = [(a, b) for a in ADAPTERS for b in ADAPTERS if a != b]
# The list of wire messages in a request body, by the key each API gives it.
_LIST_KEYS = ("messages", "input", "contents")


def _folders(name: str) -> list[tuple[str, dict[str, Any]]]:
    """The adapter's corpus folder (no options), then its variants' own (their options)."""
    folders: list[tuple[str, dict[str, Any]]] = [(name.replace("_", "-"), {})]
    if name in KIT_NAMES:
        laws = get_kit(name).laws()
        folders += [(folder, laws.options(variant)) for variant, folder in laws.corpora.items()
                    if (CORPUS / folder).is_dir()]
    return folders


def _requests(name: str) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    for folder_name, options in _folders(name):
        folder = CORPUS / folder_name
        files = sorted(folder.glob("*.json"))
        assert files, f"no corpus at {folder}: the laws need the recordings (tests/corpus, or ../shared/corpus beside the checkout)"
        for path in files:
            record = json.loads(path.read_text())
            request = record.get("request")
            if record.get("status") == 400:
                continue  # the API refused it: not a request the API can express
            if isinstance(request, dict) and any(isinstance(request.get(k), list) for k in _LIST_KEYS):
                yield f"{folder_name}/{path.name}", request, options


_IMPORTED: dict[str, list[tuple[str, dict[str, Any], ImportedRequest]]] = {}


def _imported(name: str) -> list[tuple[str, dict[str, Any], ImportedRequest]]:
    """Every corpus request of ``name``'s API, and of its variants' own servers, with its import
    (read under the variant's options, which the import's ``to_wire_kwargs`` carry back; cached:
    each law reads them all)."""
    if name not in _IMPORTED:
        adapter = get_adapter(name)
        _IMPORTED[name] = [(f, r, adapter.from_wire_request(r, **options))
                           for f, r, options in _requests(name)]
    return _IMPORTED[name]


def _kwargs(imported: ImportedRequest) -> dict[str, Any]:
    kwargs = imported.to_wire_kwargs()
    kwargs["model"] = kwargs["model"] or "model"
    return kwargs


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=json_default)


def _wire_list(request: dict[str, Any]) -> list[Any]:
    for key in _LIST_KEYS:
        value = request.get(key)
        if isinstance(value, list):
            return value
    return []


def _target_kwargs(imported: ImportedRequest, target: Adapter) -> dict[str, Any]:
    """What carries over to another API: the tools (definitions and native dicts) and limits."""
    tools = tuple(t for t in imported.tools if not isinstance(t, dict))
    return {"model": f"{target.CAPABILITIES.issuer}:law", "tools": tools,
            "max_tokens": imported.max_tokens}


# -- switch ---------------------------------------------------------------------------------


def _key(loss: Loss) -> tuple[str, str, str, str]:
    return (loss.path, loss.part_type, loss.action, loss.reason)


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_check_switch_equals_the_targets_to_wire_losses(source: str, target: str) -> None:
    """On every real history, the switch prediction and the projection report the same losses."""
    adapter = get_adapter(target)
    differ = []
    for file, _, imported in _imported(source):
        kwargs = _target_kwargs(imported, adapter)
        try:
            predicted = check_switch(imported.history, target, model=kwargs["model"],
                                     tools=kwargs["tools"])
        except SwitchRefusedError as refused:
            predicted = refused.losses
        actual = adapter.to_wire(imported.history, **kwargs).losses
        if [_key(x) for x in predicted] != [_key(x) for x in actual]:
            differ.append(file)
    assert differ == []


# -- no silent drop -------------------------------------------------------------------------


def _empty_messages(request: dict[str, Any]) -> list[int]:
    empty = []
    for k, message in enumerate(_wire_list(request)):
        if not isinstance(message, dict):
            continue
        if ("parts" in message and not message["parts"]) or ("content" in message and message["content"] in ([], None, "") and not any(
                message.get(x) for x in ("tool_calls", "function_call", "audio", "images", "thinking"))):
            empty.append(k)
    return empty


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_every_part_arrives_or_a_loss_names_it(source: str, target: str) -> None:
    """Converting real requests between APIs drops nothing in silence and sends no empty message."""
    adapter = get_adapter(target)
    silent, empty = [], []
    for file, _, imported in _imported(source):
        projection = adapter.to_wire(imported.history, **_target_kwargs(imported, adapter))
        dropped = silent_drops(imported.history, projection.request, projection.losses)
        if dropped:
            silent.append(f"{file}: {dropped}")
        # A message the source itself sent blank may go out blank; none may become blank. An
        # empty text beside other parts of an answer is sent as it came by an API that gives
        # each part an item of its own (Responses: {"role": "assistant", "content": ""}).
        blank = sum(1 for e in imported.history if hasattr(e, "parts") and not isinstance(
            e, ToolMessage) and all(isinstance(p, TextPart) and not p.text for p in e.parts))
        blank += sum(1 for e in imported.history if isinstance(e, AssistantMessage)
                     and len(e.parts) > 1 for p in e.parts if isinstance(p, TextPart) and not p.text)
        if len(_empty_messages(projection.request)) > blank:
            empty.append(file)
    assert silent == []
    assert empty == []


# -- tool-call ids --------------------------------------------------------------------------


def _call_ids(history: tuple[HistoryEvent, ...], issuer: str) -> list[str]:
    """The wire ids an issuer gave the tool calls of a history, in order."""
    return [part.provider_ids.get(issuer, "?") for event in history
            if isinstance(event, AssistantMessage)
            for part in event.parts if isinstance(part, ToolCallPart)]


@pytest.mark.parametrize(("source", "via"), PAIRS)
def test_a_trip_through_another_api_keeps_every_call_id_it_admits(source: str, via: str) -> None:
    """A -> B -> A gives back A's call ids wherever B carried them; B maps (id_mapped) only ids
    its own id rules (``_wire.admits_call_id``) refuse."""
    home, other = get_adapter(source), get_adapter(via)
    admits = importlib.import_module(f"partwire.adapters.{via}._wire").admits_call_id
    issuer = home.CAPABILITIES.issuer
    changed = []
    for file, _, imported in _imported(source):
        original = _call_ids(imported.history, issuer)
        if not original:
            continue
        there = other.to_wire(imported.history, **_target_kwargs(imported, other))
        if any(loss.action == "id_mapped" for loss in there.losses):
            if all(admits(call_id) for call_id in original):
                changed.append(f"{file}: {via} mapped ids its rules admit: {original}")
            continue
        back = other.from_wire_request(there.request)
        again = home.to_wire(back.history, **_kwargs(imported))
        if any(loss.action == "id_mapped" for loss in again.losses):
            continue  # B's reading gave ids A's rules refuse: reported, not silent
        returned = _call_ids(home.from_wire_request(again.request).history, issuer)
        if returned != original:
            changed.append(f"{file}: {original} came back as {returned}")
    assert changed == []


# -- prefix stability -----------------------------------------------------------------------


def _uncached(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _uncached(v) for k, v in node.items() if k != "cache_control"}
    if isinstance(node, list):
        return [_uncached(v) for v in node]
    return node


@pytest.mark.parametrize("name", ADAPTERS)
def test_appending_events_never_changes_the_earlier_wire_messages(name: str) -> None:
    """For every real history and every cut, the shorter request's messages but its last are a
    prefix of the longer one's (cache markers aside)."""
    adapter = get_adapter(name)
    unstable = []
    for file, _, imported in _imported(name):
        history = imported.history
        full = _uncached(_wire_list(adapter.to_wire(history, **_kwargs(imported)).request))
        for cut in range(1, len(history)):
            part = _uncached(_wire_list(adapter.to_wire(history[:cut], **_kwargs(imported)).request))
            stable = part[:-1]
            if full[:len(stable)] != stable:
                unstable.append(f"{file} at {cut}")
                break
    assert unstable == []
