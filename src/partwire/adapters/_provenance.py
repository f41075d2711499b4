"""Provenance as encoders and readers use it: which issuers an encoder accepts, the provider id
it sends, the provider data it reads, and one shared instance of the marks readers attach."""

from __future__ import annotations

import marshal
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from partwire._base import ProviderData, provider_data
from partwire._json import KEY_VERSION
from partwire._memo import memo

__all__ = ["accepted_issuers", "data_of", "first_accepted", "shared_provider_data"]



def data_of(pd: ProviderData | None, issuers: Collection[str]) -> Mapping[str, Any] | None:
    """The dict inside ``pd`` when an accepted issuer wrote it, else ``None``."""
    if pd is None or pd.issuer not in issuers or not isinstance(pd.data, dict):
        return None
    return pd.data


_ACCEPTED: dict[tuple[str, frozenset[str]], tuple[frozenset[str], tuple[str, ...]]] = memo({})


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
        packed = marshal.dumps(data, KEY_VERSION)
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
