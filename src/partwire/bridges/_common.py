"""What the bridges share: the export result, loss bookkeeping, JSON helpers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from partwire._base import ProviderData
from partwire.errors import LossError
from partwire.model_ids import PROVIDER_PREFIXES
from partwire.parts import UnknownPart
from partwire.projection import Loss, LossAction, log_losses

__all__ = ["UNKNOWN_FIELDS", "Export", "LossLog", "compact_json", "differences", "drop_unknown",
           "extras_of", "model_id", "require", "unknown_fields", "unknown_fields_reason",
           "with_unknown_fields"]

# The key under which a bridge carries a message's fields unknown to this version (a newer
# version's, or an application's): beside its other carried fields, apart so no name can collide.
UNKNOWN_FIELDS = "unknown_fields"

T = TypeVar("T")

_MISSING = object()


def drop_unknown(part: UnknownPart, log: LossLog | None, path: str, message_id: str | None,
                 peer: str) -> None:
    """Report an unknown part of another issuer as dropped: ``peer`` has no form for it."""
    if log is not None:
        log.add(path, "unknown", "dropped",
                f"an unknown {part.original_type} part from {part.issuer} has no {peer} form",
                message_id)


def differences(original: Mapping[str, Any], again: Mapping[str, Any]) -> dict[str, Any]:
    """The items of ``original`` that ``again`` (its re-encoding) lacks or holds otherwise: what a
    bridge carries so the peer's object comes back exactly."""
    return {k: v for k, v in original.items() if again.get(k, _MISSING) != v}


@dataclass(frozen=True, slots=True)
class Export(Generic[T]):
    """A history as a peer library's messages, and what they could not hold."""

    messages: list[T]
    """The peer's own message objects, ready to hand to it."""
    losses: tuple[Loss, ...] = ()
    """Everything not carried as it is, in history order."""

    @property
    def lossless(self) -> bool:
        """Whether nothing was lost."""
        return not self.losses


@dataclass
class LossLog:
    """Collects the losses of one export, under the bridge's name."""

    bridge: str
    losses: list[Loss] = field(default_factory=list)

    def add(self, path: str, part_type: str, action: LossAction, reason: str,
            message_id: str | None = None) -> None:
        self.losses.append(Loss(path, part_type, action, reason, self.bridge, message_id))

    def finish(self, messages: list[T], *, strict: bool) -> Export[T]:
        """Raise in strict mode if anything was lost; else log the losses once and wrap."""
        found = tuple(self.losses)
        if found and strict:
            raise LossError(found, self.bridge)
        log_losses(found)
        return Export(messages=messages, losses=found)


def compact_json(value: Any) -> str:
    """JSON text as the canonical form writes it: compact, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def extras_of(pd: ProviderData | None, issuer: str) -> dict[str, Any]:
    """The bridge's own ``provider_data`` as a dict (empty when absent or someone else's)."""
    if pd is None or pd.issuer != issuer or not isinstance(pd.data, dict):
        return {}
    return dict(pd.data)


def unknown_fields(model: Any) -> dict[str, Any]:
    """The fields ``model`` carries that this version does not declare (``extra="allow"``)."""
    return dict(model.__pydantic_extra__ or {})


def with_unknown_fields(data: dict[str, Any], carried: dict[str, Any]) -> dict[str, Any]:
    """``data`` updated by a message's ``carried`` fields, its unknown fields spread back in."""
    rest = dict(carried)
    unknown = rest.pop(UNKNOWN_FIELDS, None)
    return {**data, **rest, **(unknown if isinstance(unknown, dict) else {})}


def unknown_fields_reason(model: Any, peer: str) -> str | None:
    """The loss reason for a part's unknown fields (``None`` when it has none): a peer's parts
    have no place for them."""
    names = sorted(model.__pydantic_extra__ or ())
    if not names:
        return None
    return f"fields unknown to this version ({', '.join(names)}) have no place in {peer}"


def require(module: str, extra: str) -> None:
    """Raise an ImportError naming the extra to install when the peer is missing."""
    try:
        __import__(module)
    except ImportError as exc:
        raise ImportError(f"this bridge needs {module!r}: pip install 'partwire[{extra}]'") from exc


def first(items: Sequence[T]) -> T | None:
    """The first item, or None."""
    return items[0] if items else None


def model_id(provider: str | None, name: Any) -> Any:
    """``provider:name``, unless the export kept a full id naming another provider as it was
    (a message served by one provider under another's model id)."""
    if not (provider and name):
        return name
    head, sep, _ = str(name).partition(":")
    if sep and head in PROVIDER_PREFIXES and head != provider:
        return name
    return f"{provider}:{name}"
