"""Ids and time: ULID message ids, ``tu_`` tool-call ids, and the injectable sources behind them.

Ids are made once, when a message or call is created, and persisted; nothing regenerates them on
load. Tests and conversions that need deterministic output install their own sources with
:func:`use_sources` (or :func:`deterministic_sources`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

from partwire.errors import ArgumentError

__all__ = [
    "DEFAULT_MODEL_ALIASES",
    "derive_id",
    "deterministic_sources",
    "new_message_id",
    "new_tool_call_id",
    "now",
    "resolve_model",
    "split_model_id",
    "use_sources",
]

TOOL_CALL_PREFIX = "tu_"

Clock = Callable[[], datetime]
IdSource = Callable[[], str]


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# Every 10-bit group as its two Crockford characters: 13 lookups make a ULID's 26.
_PAIRS = [a + b for a in _CROCKFORD for b in _CROCKFORD]


def _ulid_text(value: int) -> str:
    """The 26-character Crockford base32 text of a 128-bit ULID value.

    The same text as ``str(ULID.from_int(value))``, about five times faster; new ids are made on
    hot paths (one per tool call in every parsed response and stream).
    """
    p = _PAIRS  # the 13 lookups written out: a comprehension's frame cost as much as they do
    return (p[value >> 120 & 1023] + p[value >> 110 & 1023] + p[value >> 100 & 1023]
            + p[value >> 90 & 1023] + p[value >> 80 & 1023] + p[value >> 70 & 1023]
            + p[value >> 60 & 1023] + p[value >> 50 & 1023] + p[value >> 40 & 1023]
            + p[value >> 30 & 1023] + p[value >> 20 & 1023] + p[value >> 10 & 1023]
            + p[value & 1023])


def _ulid_source(clock: Clock | None) -> IdSource:
    """ULIDs that strictly increase within the process, even within one millisecond.

    With ``clock=None`` the time comes from :func:`time.time_ns` (the default source, what
    :func:`_utc_now` reads, without building a datetime per id). Each millisecond's ids are one
    run: a random first value, then that value plus a count (the monotonic ULID rule). ``next``
    on a count is one atomic step, so threads share a run without a lock; the lock is taken once
    per millisecond, to start its run. An id is worked out in small integers: the first value's
    low 10 bits plus the count give the last two characters and the block of 1,024 ids it is in;
    each block's first 24 characters are written once and kept by the run.
    """
    lock = threading.Lock()
    run = _NO_RUN
    entropy = b""  # random bytes drawn ahead, 10 per new millisecond
    time_ns = time.time_ns
    pairs = _PAIRS

    def next_id() -> str:
        nonlocal run, entropy
        millis = time_ns() // 1_000_000 if clock is None else int(clock().timestamp() * 1000)
        current = run
        if millis > current[0]:  # a new millisecond (a clock that stepped back continues its run)
            with lock:
                current = run
                if millis > current[0]:  # not started by another thread meanwhile
                    if len(entropy) < 10:
                        entropy = os.urandom(640)  # one system call per 64 milliseconds used
                    first = (millis << 80) | int.from_bytes(entropy[:10], "big")
                    entropy = entropy[10:]
                    current = run = _new_run(millis, first, 0)  # its first id is ``first``
        low = current[2] + next(current[1])
        head = current[3].get(low >> 10)
        if head is None:
            head = _block_head(current, low >> 10)
        return head + pairs[low & 1023]

    def forget() -> None:
        """After a fork: a new run and new randomness, so parent and child never share an id."""
        nonlocal run, entropy
        run, entropy = _NO_RUN, b""

    def restart(first: int) -> None:
        """Continue as if this millisecond's run had begun at ``first`` (for tests)."""
        nonlocal run
        run = _new_run(first >> 80, first, 1)

    _sources[next_id] = (forget, restart)
    return next_id


# A run: (millisecond, the count of ids drawn from it, the low 10 bits of its first value, the
# first 24 characters of each block of 1,024 ids by block number, the first value's other bits).
_Run = tuple[int, "itertools.count[int]", int, dict[int, str], int]


def _new_run(millis: int, first: int, start: int) -> _Run:
    return (millis, itertools.count(start), first & 1023, {}, first >> 10)


def _block_head(run: _Run, block: int) -> str:
    head = run[3][block] = _ulid_text((run[4] + block) << 10)[:24]
    return head


_NO_RUN: _Run = _new_run(-1, 0, 1)


# Every source's (forget, restart): a forked child must not continue its parent's run or reuse
# the random bytes drawn ahead, or ids made by both in one millisecond would be the same. (The
# child's first id then starts a run of its own: unique, though not above the parent's last.)
_sources: weakref.WeakKeyDictionary[IdSource, tuple[Callable[[], None], Callable[[int], None]]] = (
    weakref.WeakKeyDictionary())


def _after_fork() -> None:
    for forget, _ in list(_sources.values()):
        forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


# The default clock: datetime.now(UTC) itself, no Python frame between (one per message made).
_utc_now: Clock = functools.partial(datetime.now, UTC)


_clock: Clock = _utc_now
_ids: IdSource = _ulid_source(None)


def now() -> datetime:
    """The current time, from the installed clock (UTC, microsecond precision)."""
    return _clock()


def new_message_id() -> str:
    """A new message or event id: a ULID string, monotonic within the process."""
    return _ids()


def new_tool_call_id() -> str:
    """A new canonical tool-call id, ``tu_<ULID>``, valid under every provider's id rules."""
    return TOOL_CALL_PREFIX + _ids()


def derive_id(*keys: str, at: datetime | None = None, prefix: str = "") -> str:
    """A ULID-shaped id derived from ``keys`` alone, so deriving it twice gives the same id.

    Migrations use it for data that had no id, since ids must not change between loads.
    """
    digest = hashlib.sha256("\x1f".join(keys).encode()).digest()
    # A ULID cannot hold a time before the epoch; such times (and none) use the epoch itself.
    millis = max(0, int((at or datetime(1970, 1, 1, tzinfo=UTC)).timestamp() * 1000))
    value = (millis << 80) | int.from_bytes(digest[:10], "big")
    return prefix + _ulid_text(value)


@contextlib.contextmanager
def use_sources(*, ids: IdSource | None = None, clock: Clock | None = None) -> Iterator[None]:
    """Install an id source and/or a clock for the duration of the block."""
    global _ids, _clock
    saved = _ids, _clock
    if clock is not None:
        _clock = clock
    if ids is not None:
        _ids = ids
    elif clock is not None:
        _ids = _ulid_source(clock)
    try:
        yield
    finally:
        _ids, _clock = saved


def deterministic_sources(
    start: datetime = datetime(2026, 1, 1, tzinfo=UTC), step: timedelta = timedelta(seconds=1)
) -> tuple[IdSource, Clock]:
    """An id source and a clock that give the same sequence every run (for tests and examples)."""
    ticks = itertools.count()
    counter = itertools.count(1)
    millis = int(start.timestamp() * 1000)

    def clock() -> datetime:
        return start + step * next(ticks)

    def ids() -> str:
        return _ulid_text((millis << 80) | next(counter))

    return ids, clock


# Model ids are "provider:model". Short names people type map to full ids here; the table is a
# default, callers pass their own to resolve_model.
DEFAULT_MODEL_ALIASES: dict[str, str] = {
    "opus": "anthropic:claude-opus-4-7",
    "sonnet": "anthropic:claude-sonnet-4-6",
    "haiku": "anthropic:claude-haiku-4-5",
    "gpt-5": "openai:gpt-5",
    "gpt-5-mini": "openai:gpt-5-mini",
    "gemini-pro": "google:gemini-2.5-pro",
    "gemini-flash": "google:gemini-2.5-flash",
}


def split_model_id(model_id: str) -> tuple[str, str]:
    """Split ``provider:model`` into its two halves; raise :class:`~partwire.errors.ArgumentError`
    (a ``ValueError``) when it has no provider."""
    provider, sep, model = model_id.partition(":")
    if not sep or not provider or not model:
        raise ArgumentError("model_id", f"{model_id!r} is not of the form 'provider:model'")
    return provider, model


def resolve_model(name: str, aliases: dict[str, str] | None = None) -> str:
    """The full ``provider:model`` id for ``name``, an alias or already a full id."""
    table = DEFAULT_MODEL_ALIASES if aliases is None else aliases
    full = table.get(name, name)
    split_model_id(full)
    return full
