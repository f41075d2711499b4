"""Provider-neutral helpers every adapter shares: inputs, losses, ids, issuers, JSON, errors.

Nothing here knows a provider's wire format; adapters never import each other, only this.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import json
import marshal
import re
import typing
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic_core import from_json

from partwire._base import (
    NOT_JSON,
    ProviderData,
    build,
    json_copy,
    json_kind,
    one_field,
    provider_data,
    with_field,
)
from partwire._memo import memo
from partwire.errors import ArgumentError, ProviderError, SchemaError, WireFormatError
from partwire.history import History, HistoryEvent
from partwire.ids import DEFAULT_MODEL_ALIASES
from partwire.messages import AssistantMessage
from partwire.parts import TextPart, ToolCallPart, UnknownPart
from partwire.projection import Loss, LossAction
from partwire.settings import EMPTY_SETTINGS, RequestSettings
from partwire.tools import (
    ServerToolDefinition,
    SideEffects,
    ToolDefinition,
    checked_copy,
    valid_tool_name,
)

__all__ = [
    "KNOWN_LIMIT",
    "OMIT",
    "SHAPE_ERRORS",
    "ImportedRequest",
    "Losses",
    "OrphanCheck",
    "ProviderError",
    "SettingsArg",
    "ToolChoice",
    "ToolSpec",
    "WireFormatError",
    "accepted_issuers",
    "apply_overlay",
    "as_json",
    "callers_to_wire",
    "data_of",
    "decode_base64",
    "fields_key",
    "flag_losses",
    "foreign_tool_loss",
    "foreign_unknown_reason",
    "import_tool",
    "imported_definition",
    "imported_request",
    "json_text",
    "known_loss",
    "load_json",
    "location_fields",
    "missing_definition_reason",
    "new_loss",
    "orphan_loss",
    "overlay_for",
    "parse_json",
    "parse_object",
    "resolve_settings",
    "same_json",
    "schema_or_none",
    "server_kind_loss",
    "server_setting_losses",
    "shared_provider_data",
    "sniff_media_type",
    "strict_parameters",
    "strict_schema",
    "text_part",
    "token_count",
    "tool_calls_by_id",
    "tool_overlay",
    "tool_status_loss",
    "usage_object",
    "wire_model",
    "with_overlay",
]

ToolSpec = ToolDefinition | ServerToolDefinition | Mapping[str, Any]
"""A tool offered to the model: a canonical function tool, a canonical provider-run tool, or a
provider-native tool dict. A dict is sent only to the API whose shape it has (each adapter checks
it); any other adapter reports it as dropped at ``request.tools[i]``, never copies it."""

ToolChoice = str | Mapping[str, Any]
"""``"auto"``, ``"required"``, ``"none"``, any other string (that tool's name), or a
provider-native dict sent as is."""

SettingsArg = RequestSettings | Mapping[str, Any] | None
"""What ``to_wire(settings=...)`` takes: :class:`~partwire.settings.RequestSettings`, a mapping
of its fields (validated into one), or ``None`` (no setting)."""


@dataclass(frozen=True, slots=True)
class ImportedRequest:
    """A provider request body read back into canonical form (``from_wire_request``).

    Unpacks as ``history, tools = adapter.from_wire_request(body)``; the other fields carry what
    the body holds besides, so ``adapter.to_wire(imported.history, **imported.to_wire_kwargs())``
    rebuilds the body.

    ``settings`` holds every generation setting the body states in canonical form (what crosses
    to another API); ``params`` the fields that have no canonical form, raw. ``max_tokens`` and
    ``tool_choice`` are kept for callers that read them: ``max_tokens`` is
    ``settings.max_output_tokens``; ``tool_choice`` is the body's tool choice as before (a word,
    a tool's name, or the native dict), and it is passed to ``to_wire`` only when ``settings``
    could not hold it.
    """

    history: tuple[HistoryEvent, ...]
    """The conversation: system prompt, then the messages."""
    tools: tuple[ToolSpec, ...] = ()
    """The tools offered: canonical definitions where they fit exactly, native dicts otherwise."""
    model: str = ""
    """The model as the body names it (the wire name, without a provider prefix)."""
    max_tokens: int | None = None
    """The output token limit, when the body sets one."""
    tool_choice: ToolChoice | None = None
    """The tool choice as the body states it."""
    params: dict[str, Any] = field(default_factory=dict)
    """Every other top-level field of the body, verbatim (sampling, thinking, metadata, ...)."""
    options: dict[str, Any] | None = None
    """The adapter options that rebuild this body (Responses: ``continuation="none"``, since
    the body's own ``store`` and ``include`` are in ``params``); ``None`` for the defaults."""
    settings: RequestSettings = EMPTY_SETTINGS
    """The generation settings the body states, in canonical form (``to_wire(settings=...)``)."""

    def __iter__(self) -> Iterator[Any]:
        yield self.history
        yield self.tools

    def to_wire_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``to_wire`` that rebuild the body around ``history``.

        ``settings`` carries the settings; ``max_tokens`` and ``tool_choice`` are added only when
        ``settings`` does not hold them (a native tool choice the canonical form cannot say).
        """
        settings = self.settings
        kwargs: dict[str, Any] = {"model": self.model, "tools": self.tools, "settings": settings,
                                  "params": self.params}
        if self.max_tokens is not None and settings.max_output_tokens is None:
            kwargs["max_tokens"] = self.max_tokens
        if self.tool_choice is not None and settings.tool_choice is None:
            kwargs["tool_choice"] = self.tool_choice
        if self.options is not None:
            kwargs["options"] = self.options
        return kwargs


def imported_request(history: tuple[HistoryEvent, ...], tools: tuple[ToolSpec, ...], model: str,
                     max_tokens: int | None, tool_choice: ToolChoice | None, params: dict[str, Any],
                     options: dict[str, Any] | None = None,
                     settings: RequestSettings = EMPTY_SETTINGS) -> ImportedRequest:
    """``ImportedRequest(...)`` itself, made the way :func:`new_loss` makes a ``Loss``: each slot
    set by its own descriptor, not by the frozen dataclass's ``__init__`` (half the cost, on
    every request a reader reads)."""
    made = _new(ImportedRequest)
    _set_history(made, history)
    _set_tools(made, tools)
    _set_model(made, model)
    _set_max_tokens(made, max_tokens)
    _set_tool_choice(made, tool_choice)
    _set_params(made, params)
    _set_options(made, options)
    _set_settings(made, settings)
    return made


_FIELDS = ("history", "tools", "model", "max_tokens", "tool_choice", "params", "options", "settings")
(_set_history, _set_tools, _set_model, _set_max_tokens, _set_tool_choice, _set_params, _set_options,
 _set_settings) = (ImportedRequest.__dict__[name].__set__ for name in _FIELDS)
if tuple(f.name for f in dataclasses.fields(ImportedRequest)) != _FIELDS:
    raise ImportError("imported_request sets every field of ImportedRequest: update it")  # pragma: no cover


def resolve_settings(settings: SettingsArg, *, max_tokens: int | None = None,
                     tool_choice: ToolChoice | None = None,
                     parallel_tool_calls: bool | None = None) -> tuple[RequestSettings, Mapping[str, Any] | None]:
    """The settings ``to_wire`` writes, and the native tool choice it sends as is (or ``None``).

    ``settings`` is a :class:`RequestSettings`, a mapping of its fields or ``None``. The
    shortcut keywords ``max_tokens``, ``tool_choice`` and ``parallel_tool_calls`` win over the
    same field of ``settings`` when given. A ``tool_choice`` word or tool name becomes the
    canonical setting; a mapping is the API's own ``tool_choice``, sent as it is.
    """
    if settings is None:
        resolved = EMPTY_SETTINGS
    elif isinstance(settings, RequestSettings):
        resolved = settings
    elif isinstance(settings, Mapping):
        resolved = RequestSettings.model_validate(settings)
    else:
        raise TypeError(f"settings must be RequestSettings, a mapping or None, not "
                        f"{type(settings).__name__}")
    if max_tokens is None and tool_choice is None and parallel_tool_calls is None:
        return resolved, None
    native: Mapping[str, Any] | None = None
    changes: dict[str, Any] = {}
    if max_tokens is not None:
        changes["max_output_tokens"] = max_tokens
    if parallel_tool_calls is not None:
        changes["parallel_tool_calls"] = parallel_tool_calls
    if isinstance(tool_choice, Mapping):
        native = tool_choice
        changes["tool_choice"] = None
    elif tool_choice is not None:
        changes["tool_choice"] = tool_choice
    return RequestSettings.model_validate({**_set_fields(resolved), **changes}), native


def _set_fields(settings: RequestSettings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in settings.model_fields_set}


def foreign_unknown_reason(part: UnknownPart) -> str:
    """Why an unrecognised part is not sent: it goes back only to the issuer that wrote it."""
    return (f"an unrecognised {part.original_type or 'untyped'} part from "
            f"{part.issuer or 'a stored history'} is sent only to its issuer")


def tool_status_loss(losses: Losses, path: str, status: str, message_id: str, *, api: str,
                     as_error: bool) -> None:
    """Report a tool status the API cannot carry as it is, in one form for every adapter.

    ``path`` is the tool message's (``history[4]``); the loss is on its ``.status``. With
    ``as_error`` the API has an error flag, and ``denied`` / ``aborted`` go out as an error
    (``downgraded``); without, no status goes out at all (``dropped``).
    """
    if status == "success" or (as_error and status == "error"):
        return
    if as_error:
        losses.add(f"{path}.status", "tool_message", "downgraded",
                   f"{api} has no '{status}' tool status; sent as an error", message_id)
    else:
        losses.add(f"{path}.status", "tool_message", "dropped",
                   f"{api} tool results carry no status; '{status}' is not sent (the output "
                   "text is)", message_id)


class Losses:
    """Collects the losses of one projection, with the path and message they belong to."""

    __slots__ = ("adapter", "items")

    def __init__(self, adapter: str) -> None:
        self.adapter = adapter
        self.items: list[Loss] = []

    def add(self, path: str, part_type: str, action: LossAction, reason: str,
            message_id: str | None = None) -> None:
        """Record one loss."""
        self.items.append(new_loss(path, part_type, action, reason, self.adapter, message_id))


def new_loss(path: str, part_type: str, action: LossAction, reason: str, adapter: str,
             message_id: str | None = None) -> Loss:
    """``Loss(...)`` itself, without the frozen dataclass's ``__init__`` (an ``object.__setattr__``
    per field): a lossy conversion records one per dropped part, and that ``__init__`` cost a
    sixth of such a ``to_wire``. The slots are set by their own descriptors, so the object is a
    ``Loss`` from the start."""
    loss = _new(Loss)
    _set_path(loss, path)
    _set_part_type(loss, part_type)
    _set_action(loss, action)
    _set_reason(loss, reason)
    _set_adapter(loss, adapter)
    _set_message_id(loss, message_id)
    return loss


def known_loss(i: int, j: int, part_type: str, action: LossAction, reason: str, adapter: str,
               message_id: str) -> Loss:
    """The loss of part ``j`` of ``history[i]``, remembered: :func:`new_loss` once per key.

    An agent resends its whole history every turn, and a part another provider cannot take is
    the same frozen ``Loss`` every time (its path, kind, action, reason, adapter and message are
    its key), so a lossy ``to_wire`` makes only the losses it has not made before. Bounded: the
    memo is emptied when it grows past :data:`KNOWN_LIMIT` entries.
    """
    # Keyed by where the part is, its other fields checked on a hit: a part has one loss almost
    # always, and a key of three is a third lighter than one of all seven (a memo entry per
    # reported part of a 100,000-event history).
    key = (message_id, i, j)
    loss = _KNOWN.get(key)
    if loss is None or loss.reason != reason or loss.part_type != part_type \
            or loss.action != action or loss.adapter != adapter:
        if len(_KNOWN) >= KNOWN_LIMIT:
            _KNOWN.clear()
        loss = _KNOWN[key] = new_loss(f"history[{i}].parts[{j}]", part_type, action, reason, adapter,
                                      message_id)
    return loss


KNOWN_LIMIT = 65_536
"""How many losses :func:`known_loss` remembers before it starts again."""
_KNOWN: dict[tuple[str, int, int], Loss] = memo({})


_new = object.__new__
# The slot setters of Loss, by name (a frozen dataclass refuses plain attribute assignment).
_set_path, _set_part_type, _set_action, _set_reason, _set_adapter, _set_message_id = (
    Loss.__dict__[name].__set__ for name in ("path", "part_type", "action", "reason", "adapter", "message_id"))
if {f.name for f in dataclasses.fields(Loss)} != {"path", "part_type", "action", "reason", "adapter", "message_id"}:
    raise ImportError("Losses.add sets every field of Loss: update it with Loss")  # pragma: no cover


def as_json(obj: Any) -> Any:
    """Plain JSON data from a dict, a JSON text, or an SDK model (duck-typed, no SDK import).

    SDK models are dumped with the fields the server actually sent (``to_dict`` excludes unset
    fields), so an echo carries exactly what came in.
    """
    if isinstance(obj, dict | list):
        return obj
    if isinstance(obj, str | bytes | bytearray):
        return json.loads(obj)
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        # The SDKs build a response object without validating it, so a dialect's server leaves
        # values its types do not declare (Mistral's list of content blocks where OpenAI's type
        # says str). They are dumped as they came; the serializer's warning that it met one is
        # about the SDK's types, not the data, and is not passed on to the caller.
        try:
            return to_dict(mode="json", warnings=False)
        except TypeError:  # a to_dict without the switch
            return to_dict(mode="json")
    model_dump = getattr(obj, "model_dump", None)
    if callable(model_dump):
        return model_dump(mode="json", exclude_unset=True, by_alias=True)
    if isinstance(obj, Mapping):
        return dict(obj)
    raise TypeError(f"cannot read {type(obj).__name__} as JSON data")


def load_json(obj: Any, provider: str, what: str) -> dict[str, Any]:
    """:func:`as_json`, required to give a JSON object; a :class:`WireFormatError` otherwise."""
    if type(obj) is dict:  # the common case, told without isinstance on a union
        return obj
    try:
        data = as_json(obj)
    except (TypeError, ValueError) as exc:
        raise WireFormatError(provider, what, str(exc)) from exc
    if not isinstance(data, dict):
        raise WireFormatError(provider, what, f"expected a JSON object, got {type(data).__name__}")
    return data


_DECODER = json.JSONDecoder()
# The decoder's C scanner: (value, end) for the JSON value at an index, StopIteration if none.
_scan_once: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_decode = _DECODER.decode


def parse_json(text: str) -> Any:
    """``json.loads`` of a ``str``, lighter: what pydantic-core's parser reads, with short strings
    shared.

    Tool arguments become part of every request body, and the same few keys (``path``,
    ``query``) were a new string per call: pydantic-core's parser keeps one of each short string
    (``cache_strings="all"``, its process-wide cache), which makes a parsed object two-fifths
    lighter, and it parses faster than the stdlib. It reads JSON as ``json.loads`` does (NaN and
    Infinity included); what it refuses (a lone surrogate escape, nesting deeper than its limit,
    anything not JSON) goes to the stdlib, which returns or raises exactly what ``json.loads``
    would.
    """
    try:
        return from_json(text, cache_strings="all")
    except ValueError:
        pass
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        return _decode(text)
    if end != len(text):
        return _decode(text)
    return value


def parse_object(text: str) -> dict[str, Any] | None:
    """:func:`parse_json` of a JSON object; ``None`` for any other value or text (the caller's
    full path reports it)."""
    try:
        value = from_json(text, cache_strings="all")
    except ValueError:
        return None
    return value if type(value) is dict else None


SHAPE_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)
"""What reading a known item of an unexpected shape raises (pydantic's ValidationError is a
ValueError): a reader that catches it keeps the item whole, like an unknown one."""

_TEXT_ENCODER = json.JSONEncoder(ensure_ascii=False)


def json_text(value: Any) -> str:
    """The JSON text partwire writes for a parsed value (``json.dumps`` defaults, UTF-8 kept).

    One encoder made once: ``json.dumps`` with any non-default argument builds a new encoder per
    call, which costs more than encoding a tool call's arguments.
    """
    return _TEXT_ENCODER.encode(value)


def data_of(pd: ProviderData | None, issuers: Collection[str]) -> Mapping[str, Any] | None:
    """The dict inside ``pd`` when an accepted issuer wrote it, else ``None``."""
    if pd is None or pd.issuer not in issuers or not isinstance(pd.data, dict):
        return None
    return pd.data


def usage_object(body: Mapping[str, Any], key: str, provider: str) -> dict[str, Any] | None:
    """A response's usage object: ``None`` when absent or null, refused (with its path) when it is
    any other non-object, so a usage the API never sends is not dropped in silence. Its counts
    are each adapter's to read; one of the wrong type counts 0, and the raw object stays in the
    usage's provider data."""
    usage = body.get(key)
    if usage is None or isinstance(usage, dict):
        return usage
    raise WireFormatError(provider, "response", f"a JSON {json_kind(usage)}, not an object", key)


def token_count(raw: Any, key: str) -> int:
    """``raw[key]`` when ``raw`` is an object and that is an integer (not a bool), else 0."""
    if not isinstance(raw, Mapping):
        return 0
    value = raw.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def tool_calls_by_id(history: History) -> dict[str, ToolCallPart]:
    """Every tool call of the history's assistant messages, by canonical id.

    Of two calls with one id, the first: a call appended later never changes what an earlier
    message was sent with (the prefix law).
    """
    calls: dict[str, ToolCallPart] = {}
    for event in history:
        if isinstance(event, AssistantMessage):
            for part in event.parts:
                if isinstance(part, ToolCallPart):
                    calls.setdefault(part.id, part)
    return calls


# Prefixes that name a provider in a "provider:model" id. A colon after anything else is part of
# the model name itself (OpenAI fine-tunes "ft:gpt-4o:org:x", Ollama tags "qwen3:8b",
# OpenRouter variants "x/y:free") and goes out as it is.
PROVIDER_PREFIXES = frozenset(
    {"anthropic", "google", "bedrock", "openai", "openrouter", "deepseek", "vllm", "ollama",
     "mistral"}
)


def wire_model(model: str, issuer: str) -> str:
    """The model name to put on the wire: aliases resolved and the ``<issuer>:`` prefix cut.

    A model that names another provider is refused; a colon that names no provider is kept;
    an empty one is refused as a missing one is.
    """
    if not model or not model.strip():
        raise ArgumentError("model", f"the model is empty: name the {issuer} model to send the request to")
    full = DEFAULT_MODEL_ALIASES.get(model, model)
    head, sep, tail = full.partition(":")
    if not sep:
        return full
    if head == issuer:
        return tail
    if head in PROVIDER_PREFIXES:
        raise ArgumentError("model", f"model {model!r} belongs to {head!r}, not to {issuer!r}")
    return full


# First-party APIs serve only their own models; a bare model name of another family is a mistake
# there (aggregators such as OpenRouter, vLLM or Ollama serve anything, so they are not checked).
FIRST_PARTY = frozenset({"anthropic", "openai", "google"})
_MODEL_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"claude", re.IGNORECASE), "anthropic"),
    (re.compile(r"(gpt-|chatgpt|o\d(\b|-)|davinci|text-embedding)", re.IGNORECASE), "openai"),
    (re.compile(r"(gemini|gemma)", re.IGNORECASE), "google"),
)


def model_owner(model: str, issuer: str | None = None) -> str | None:
    """The provider a model belongs to, when its name says so: its ``provider:`` prefix (aliases
    resolved), else its family (``claude-*`` is Anthropic's) where ``issuer`` is a first-party API
    or not given; ``None`` when the name does not tell."""
    full = DEFAULT_MODEL_ALIASES.get(model, model)
    head, sep, _ = full.partition(":")
    if sep and head in PROVIDER_PREFIXES:
        return head
    if issuer is None or issuer in FIRST_PARTY:
        return next((who for pattern, who in _MODEL_FAMILIES if pattern.match(full)), None)
    return None


_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


def sniff_media_type(data_b64: str) -> str | None:
    """The media type of base64 data, from its first bytes; ``None`` when not recognised."""
    try:
        head = base64.b64decode(data_b64[:64] + "=" * (-len(data_b64[:64]) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None
    for magic, media_type in _MAGIC:
        if head.startswith(magic):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def decode_base64(data_b64: str) -> bytes | None:
    """The bytes of base64 text, or ``None`` when it is not valid base64."""
    try:
        return base64.b64decode(data_b64, validate=True)
    except (binascii.Error, ValueError):
        return None


_ACCEPTED: dict[tuple[str, frozenset[str]], tuple[frozenset[str], tuple[str, ...]]] = {}


def accepted_issuers(issuers: Collection[str], own: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The issuers an encoder accepts, and the order it reads provider ids in: ``own`` first
    (when accepted), then the aliases sorted. Worked out once per set (every ``to_wire`` asks)."""
    accepted = issuers if type(issuers) is frozenset else frozenset(issuers)
    found = _ACCEPTED.get((own, accepted))
    if found is None:
        order = ((own,) if own in accepted else ()) + tuple(sorted(accepted - {own}))
        found = (accepted, order)
        if len(_ACCEPTED) < 256:
            _ACCEPTED[(own, accepted)] = found
    return found


def first_accepted(ids: Mapping[str, str], issuers: Sequence[str],
                   admits: Callable[[str], bool] | None = None) -> str | None:
    """The id from the first accepted issuer that has one; else, with ``admits`` (the target's
    id rules), the first provider id those rules admit, so a call sent A -> B -> A keeps A's id
    (DESIGN §6). ``None`` when neither: the caller sends the canonical id as ``id_mapped``."""
    for issuer in issuers:
        value = ids.get(issuer)
        if value is not None:
            return value
    if admits is not None:
        for value in ids.values():
            if admits(value):
                return value
    return None


# -- parts readers make most ---------------------------------------------------------------

_plain_text = one_field(TextPart, "text")


def text_part(text: Any) -> TextPart:
    """``TextPart(text=text)``: without validation when ``text`` is a ``str`` (the readers' most
    made part); validated (and refused) as usual otherwise."""
    return _plain_text(text) if type(text) is str else TextPart(text=text)


# -- provider data shared between parts ---------------------------------------------------------

# The key of a value read from a body: marshal's version 2 bytes, which keep types apart (True,
# 1 and 1.0; a list and a tuple) and, unlike later versions, never depend on reference counts.
# A fifth of the cost of JSON text. Only exact built-in types marshal; anything else raises.
_KEY_VERSION = 2

# (issuer, the data's key) -> one ProviderData: readers attach the same few marks to most parts
# ({"block": {"cache_control": {"type": "ephemeral"}}}, {"turn": "new"}).
_SHARED_PD: dict[tuple[str, bytes], ProviderData] = memo({})
_SHARED_PD_MAX = 1024
_SHARED_PD_SIZE = 256  # larger data is rarely repeated: validated each time, not remembered


def shared_provider_data(issuer: str, data: dict[str, Any]) -> ProviderData:
    """``ProviderData(issuer=issuer, data=data)``; the same instance for small data seen before.

    A ProviderData is immutable, so equal ones are shared instead of validated again. A data
    value that is not JSON is validated (and refused) as it would be without the sharing.
    """
    try:
        packed = marshal.dumps(data, _KEY_VERSION)
    except (ValueError, RecursionError):  # not plain built-in values: validated (and refused)
        return ProviderData(issuer=issuer, data=data)
    key = (issuer, packed)
    found = _SHARED_PD.get(key)
    if found is not None and found.data == data:  # unless its data was changed in place
        return found
    made = provider_data(issuer, data)
    if len(packed) <= _SHARED_PD_SIZE:
        if len(_SHARED_PD) >= _SHARED_PD_MAX:
            del _SHARED_PD[next(iter(_SHARED_PD))]
        _SHARED_PD[key] = made
    return made


# -- imported tool definitions ----------------------------------------------------------------

# (api, the wire tool's key) -> the definition read from it, or None when it stays a dict. A
# gateway reads the same tools with every request of a session (the recorded corpus sends 107
# Chat tools of 21 kinds, 209 Anthropic tools of 46): each kind is validated once.
_IMPORTED: dict[tuple[str, bytes], ToolDefinition | ServerToolDefinition | None] = memo({})
_IMPORTED_MAX = 256


def fields_key(body: Mapping[str, Any], fields: Collection[str]) -> bytes | None:
    """The marshalled bytes of ``body``'s items whose key is in ``fields``, in the body's order:
    the key a reader remembers what it read from those fields by (exact about types and key
    order). ``None`` when they are not plain built-in values (then they are read every time)."""
    try:
        return marshal.dumps([item for item in body.items() if item[0] in fields], _KEY_VERSION)
    except (ValueError, RecursionError):
        return None


def import_tool(api: str, tool: dict[str, Any], read: Callable[[dict[str, Any]], ToolSpec],
                schema: Any = None) -> ToolSpec:
    """``read(tool)``, remembered by the tool's value, so a tool seen before is not validated
    again. ``read`` must be a pure function of the tool's JSON (the readers of ``tool_from_wire``
    are). ``schema`` is the tool's own input schema on the wire (``None`` for a server tool).

    A remembered definition is given again only while its schema still equals ``schema``: a
    body that shared it and was changed in place does not change what later imports read. A
    tool that stays a dict is returned as the caller's own object, never another request's.
    """
    try:
        key = (api, marshal.dumps(tool, _KEY_VERSION))
    except (ValueError, RecursionError):  # not plain built-in values: read (and refused) as is
        return read(tool)
    if key in _IMPORTED:
        found = _IMPORTED[key]
        if found is None:
            return tool
        if not isinstance(found, ToolDefinition) or schema is None or found.input_schema == schema:
            return found
    spec = read(tool)
    if len(_IMPORTED) >= _IMPORTED_MAX:
        del _IMPORTED[next(iter(_IMPORTED))]  # the oldest kind
    _IMPORTED[key] = spec if isinstance(spec, ToolDefinition | ServerToolDefinition) else None
    return spec


# -- OpenAI's strict mode (Chat Completions and Responses alike) ----------------------------

# id(definition) -> (definition, its strict parameters, the rewrites): an agent sends the same
# definitions with every turn. The entry holds the definition, so its id is not reused.
_STRICT: dict[int, tuple[ToolDefinition, dict[str, Any], list[str]]] = memo({})


def strict_parameters(tool: ToolDefinition) -> tuple[dict[str, Any], list[str]]:
    """:func:`strict_schema` of ``tool.input_schema``, worked out once per definition.

    The parameters are shared like ``input_schema`` itself (a definition is immutable): copy
    them before changing a request body's schema in place.
    """
    found = _STRICT.get(id(tool))
    if found is not None and found[0] is tool:
        return found[1], found[2]
    parameters, changes = strict_schema(tool.input_schema)
    if len(_STRICT) >= _IMPORTED_MAX:
        del _STRICT[next(iter(_STRICT))]
    _STRICT[id(tool)] = (tool, parameters, changes)
    return parameters, changes

# -- OpenAI's strict mode (Chat Completions and Responses alike) ----------------------------


def strict_schema(schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A schema rewritten for OpenAI strict mode, and what was rewritten (JSON pointers).

    Strict mode wants ``additionalProperties: false`` on every object and every property
    required; an optional property becomes required and nullable, which says the same thing.
    A schema already in that form comes back itself (not a copy), with nothing reported.
    """
    changes: list[str] = []
    return _strict_node(schema, "#", changes), changes


def _strict_node(node: Any, path: str, changes: list[str]) -> Any:
    # A node already in strict form comes back itself, as the definitions an API sent strict
    # usually are: a copy is made only at a node with something to rewrite.
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] | None = None
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        given = node.get("required")
        required = given if type(given) is list else list(given or [])
        new_props: dict[str, Any] | None = None if type(properties) is dict else dict(properties)
        for name, sub in properties.items():
            child = _strict_node(sub, f"{path}/properties/{name}", changes)
            if name not in required:
                if required is given:
                    required = list(given)
                required.append(name)
                child = _nullable(child)
                changes.append(f"{path}/properties/{name}: made required and nullable")
            if child is not sub and new_props is None:
                new_props = dict(properties)
            if new_props is not None:
                new_props[name] = child
        if new_props is not None or required is not given:
            out = dict(node)
            out["properties"] = properties if new_props is None else new_props
            out["required"] = required
    if "items" in node:
        items = _strict_node(node["items"], f"{path}/items", changes)
        if items is not node["items"]:
            out = dict(node) if out is None else out
            out["items"] = items
    is_object = node.get("type") == "object" or isinstance(properties, Mapping)
    if is_object and node.get("additionalProperties") is not False:
        out = dict(node) if out is None else out
        out["additionalProperties"] = False
        changes.append(f"{path}: additionalProperties set to false")
    if out is None:
        return node if type(node) is dict else dict(node)
    return out


def _nullable(schema: Any) -> Any:
    if not isinstance(schema, Mapping):
        return schema
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    enum = out.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = [*enum, None]
    return out


# -- tool definitions across APIs -------------------------------------------------------------

ToolT = TypeVar("ToolT", ToolDefinition, ServerToolDefinition)
# The key in a tool overlay that names the wire keys the typed fields write but the source left
# out ("$" cannot begin a tool field of any of the APIs).
OMIT = "$omit"
_FLAG_NAMES = ("strict", "defer_loading", "allowed_callers", "input_examples", "cache")


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same value (``True`` is not ``1``, ``1`` is not ``1.0``)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict or type(a) is list:
        # Compared in C first: values that differ differ here too, and equal ones with the same
        # marshalled bytes have the same types throughout (marshal keeps 1, 1.0 and True apart).
        # Equal values whose bytes differ (keys in another order) are walked.
        if a != b:
            return False
        try:
            if marshal.dumps(a, _KEY_VERSION) == marshal.dumps(b, _KEY_VERSION):
                return True
        except (ValueError, RecursionError):
            pass
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


_ABSENT: Any = object()


def tool_overlay(wire: Mapping[str, Any], again: Mapping[str, Any]) -> dict[str, Any] | None:
    """What turns ``again`` (the wire form a tool's typed fields give) into ``wire`` (the tool as
    the API wrote it): the keys to set, and under :data:`OMIT` the keys to leave out. ``None``
    when the typed fields say it all."""
    overlay: dict[str, Any] = {k: v for k, v in wire.items()
                               if (a := again.get(k, _ABSENT)) is not v and (a is _ABSENT or not same_json(a, v))}
    omit = [k for k in again if k not in wire]
    if omit:
        overlay[OMIT] = omit
    return overlay or None


def apply_overlay(out: dict[str, Any], overlay: Mapping[str, Any] | None) -> dict[str, Any]:
    """``out`` with a tool overlay applied (see :func:`tool_overlay`)."""
    if overlay:
        for key, value in overlay.items():
            if key != OMIT:
                out[key] = value
        for key in overlay.get(OMIT, ()):
            out.pop(key, None)
    return out


def with_overlay(tool: ToolT, api: str, issuer: str, overlay: dict[str, Any] | None) -> ToolT:
    """``tool`` carrying ``overlay`` as its issuer-tagged provider data (``{api: overlay}``)."""
    if overlay is None:
        return tool
    return with_field(tool, "provider_data", provider_data(issuer, {api: overlay}))


# The optional fields imported_definition takes without validation, each with the test its value
# must pass (None passes for all of them).
_PLAIN_FLAGS: dict[str, Callable[[Any], bool]] = {
    "strict": lambda v: type(v) is bool,
    "defer_loading": lambda v: type(v) is bool,
    "allowed_callers": lambda v: type(v) is tuple and all(type(c) is str for c in v),
    "input_examples": lambda v: False,
    "cache": lambda v: False,
}
_SIDE_EFFECTS = frozenset(typing.get_args(SideEffects))


def imported_definition(name: Any, description: Any, schema: dict[str, Any], portable: bool,
                        side_effects: str, *, own: bool = False, **flags: Any) -> ToolDefinition:
    """``ToolDefinition(name=name, description=description, input_schema=schema,
    side_effects=side_effects, portable_schema=portable, **flags)``, where ``schema``,
    ``portable`` and ``own`` are what :func:`schema_or_none` gave (the schema already checked
    when portable, and already copied when ``own``).

    A tool read from a request body is plain JSON: its schema is copied as validation would copy
    it (:func:`~partwire._base.json_copy`, unless it is ``own`` copy already) and not checked a
    second time, the name checked by the same rule; the instance equals and dumps like the
    validated one. Anything else (a value of another type, a flag to convert) goes through the
    constructor, which raises as usual.
    """
    if (type(name) is str and type(description) is str and type(schema) is dict
            and type(portable) is bool and valid_tool_name(name)
            and side_effects in _SIDE_EFFECTS
            and all(k in _PLAIN_FLAGS and (v is None or _PLAIN_FLAGS[k](v)) for k, v in flags.items())):
        copied = schema if own else json_copy(schema)
        if copied is not NOT_JSON:
            return build(ToolDefinition, {"name": name, "description": description, "input_schema": copied,
                                          "side_effects": side_effects, "portable_schema": portable,
                                          **flags})
    return ToolDefinition(name=name, description=description, input_schema=schema,
                          side_effects=side_effects, portable_schema=portable, **flags)


def overlay_for(tool: ToolDefinition | ServerToolDefinition, api: str, issuers: Collection[str],
                path: str, losses: Losses | None) -> Mapping[str, Any] | None:
    """The overlay ``tool`` holds for ``api`` when its issuer is accepted; any other provider
    data it holds is reported as dropped at ``<path>.provider_data``."""
    pd = tool.provider_data
    if pd is None:
        return None
    data = pd.data if isinstance(pd.data, dict) else None
    mine = data.get(api) if data is not None and pd.issuer in issuers else None
    if isinstance(mine, dict) and len(data or {}) == 1:
        return mine
    if losses is not None and pd.data:
        what = ", ".join(sorted(k for v in (data or {}).values() if isinstance(v, dict) for k in v
                                if k != OMIT)) or "its settings"
        losses.add(f"{path}.provider_data", _tool_kind(tool), "dropped",
                   f"{pd.issuer}'s own fields of this tool ({what}) are sent only to the API that "
                   f"wrote them")
    return mine if isinstance(mine, dict) else None


def _tool_kind(tool: ToolDefinition | ServerToolDefinition) -> str:
    return "tool" if isinstance(tool, ToolDefinition) else "server_tool"


def flag_losses(tool: ToolDefinition, path: str, losses: Losses | None, api: str,
                supported: Collection[str]) -> None:
    """Report each provider flag of ``tool`` that is set and that ``api`` has no field for."""
    if losses is None:
        return
    fields = tool.__dict__
    for name in _FLAG_NAMES:
        if name in supported:
            continue
        value = fields[name]
        if value is None or value is False or value == () or (name == "allowed_callers" and value == ("direct",)):
            continue
        losses.add(f"{path}.{name}", "tool", "dropped", f"{api} tool definitions have no {name}")


def callers_to_wire(callers: tuple[str, ...], accepted: Callable[[str], bool], path: str,
                    losses: Losses | None, api: str) -> list[str]:
    """The allowed callers ``api`` knows, each other one reported as dropped."""
    kept = [c for c in callers if accepted(c)]
    if losses is not None and len(kept) != len(callers):
        dropped = [c for c in callers if not accepted(c)]
        losses.add(f"{path}.allowed_callers", "tool", "dropped",
                   f"{api} has no caller {', '.join(map(repr, dropped))}")
    return kept


def server_setting_losses(tool: ServerToolDefinition, path: str, losses: Losses | None, api: str,
                          supported: Collection[str]) -> None:
    """Report each typed setting of a server tool that is set and that ``api`` cannot send."""
    if losses is None:
        return
    for name in ("allowed_domains", "blocked_domains", "max_uses", "user_location", "url", "cache"):
        if name not in supported and getattr(tool, name) is not None:
            losses.add(f"{path}.{name}", "server_tool", "dropped",
                       f"{api}'s {tool.kind} tool has no {name}")


def server_kind_loss(tool: ServerToolDefinition, path: str, losses: Losses | None, api: str,
                     why: str = "") -> None:
    """Report a server tool ``api`` cannot send at all."""
    if losses is not None:
        losses.add(path, "server_tool", "dropped",
                   why or f"{api} has no provider-run {tool.kind.replace('_', ' ')} tool")


def foreign_tool_loss(path: str, losses: Losses | None, api: str) -> None:
    """Report a native tool dict that is not in ``api``'s shape: never copied into its body."""
    if losses is not None:
        losses.add(path, "tool", "dropped",
                   f"a native tool dict not in {api}'s shape is sent only to the API it was "
                   "written for (pass a ToolDefinition or a ServerToolDefinition to convert it)")


def location_fields(location: Any) -> dict[str, str]:
    """The fields of a :class:`~partwire.tools.UserLocation` that are set, by wire name."""
    return {k: v for k in ("city", "region", "country", "timezone")
            if (v := getattr(location, k)) is not None}


def schema_or_none(schema: Any) -> tuple[dict[str, Any] | None, bool, bool]:
    """An imported input schema, whether it is within the portable subset, and whether it is a
    copy of our own; ``None`` when it is not a JSON object at all.

    A portable schema of plain JSON is checked and copied in one walk
    (:func:`~partwire.tools.checked_copy`): :func:`imported_definition` keeps that copy (``own``)
    instead of copying it again. Any other comes back as given."""
    if type(schema) is not dict:
        return None, False, False
    try:
        copied = checked_copy(schema)
    except SchemaError:
        return schema, False, False
    if copied is NOT_JSON:
        return schema, True, False
    return copied, True, True


# -- tool results without their call ------------------------------------------------------------


class OrphanCheck:
    """Whether a tool result answers no tool call of the history (an orphan).

    Every API refuses a tool result whose call its request does not hold, so encoders drop an
    orphan with a loss (:func:`orphan_loss`). A result before its call is not an orphan: it goes
    out under its call's id, as before. Asked only when a result's call has not been encoded yet
    (the rare case): the history's calls are gathered on the first question.
    """

    __slots__ = ("calls", "history")

    def __init__(self, history: Sequence[HistoryEvent]) -> None:
        self.history = history
        self.calls: set[str] | None = None

    def __call__(self, call_id: str) -> bool:
        calls = self.calls
        if calls is None:
            calls = self.calls = {part.id for event in self.history
                                  if isinstance(event, AssistantMessage)
                                  for part in event.parts if isinstance(part, ToolCallPart)}
        return call_id not in calls


def orphan_loss(losses: Losses, i: int, call_id: str, message_id: str, api: str) -> None:
    """Report the tool result ``history[i]`` dropped because no tool call of the history is its own."""
    losses.add(f"history[{i}]", "tool_message", "dropped",
               f"it answers no tool call of this history ({call_id}); {api} rejects a tool result "
               "without its call", message_id)


@functools.lru_cache(maxsize=256)
def missing_definition_reason(name: str) -> str:
    """Why a tool call is reported where the request must define its tool (Anthropic): a resumed
    session sent without ``tools=``. The loss is on the call, so a session's projector, which
    projects only new turns, reports what ``to_wire`` does."""
    return (f"the call is sent, but no definition of the tool {name!r} is, and Anthropic rejects "
            "tool calls without definitions: pass their definitions in tools= (--tools FILE on the "
            "command line)")
