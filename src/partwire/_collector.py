"""The cyclic garbage collector held off while a whole-history operation builds its result.

partwire's models and wire dicts form no reference cycles: what an operation allocates is freed
by reference counting. CPython's collector still visits every container that lives through
700 allocations, and once the oldest generation has grown by a quarter it visits the whole heap;
a 100,000-event ``codec.loads`` or ``to_wire`` meets several such passes inside itself, each
over everything the program holds, where a 1,000-event call meets none. A whole-history call
begins with ``held = hold(first)`` and ends with ``finally: if held: release()``, which holds
automatic collection off for the length of the call, so that the call's cost grows with its
own input only (``docs/codec.md``, "The collector"). That is the one way partwire pauses the
collector: the adapters' kernel (``adapters/_surface.py``), the codec's reader and the Arrow
writer use it.

How it holds the collector off: the first generation's threshold is set to 0, which CPython
reads as "no automatic collection" (``gc.set_threshold``), and put back when the last paused
call in the process returns, however it returns. ``gc.enable()``/``gc.disable()`` are left
alone, so a program that disables the collector while a call runs keeps it disabled, and
``gc.collect()`` works as ever. A program that sets the thresholds while a call runs keeps its
own: the saved threshold is put back only if the threshold still reads 0. Calls in several
threads share one pause; the last to return ends it. A call on a small input (fewer than
``MIN_ITEMS`` events, wire messages, or 256-byte pieces of text) is not paused.
"""

from __future__ import annotations

import gc
import threading

__all__ = ["MIN_ITEMS", "hold", "release"]

_lock = threading.Lock()
_acquire, _release = _lock.acquire, _lock.release
_get, _set = gc.get_threshold, gc.set_threshold
_depth = 0
_saved = 0  # the first generation's threshold when the outermost pause began

# Below this many items a call allocates too little to meet more than a young collection, and
# the pause's own cost (about half a microsecond) would show on a small request: no pause.
MIN_ITEMS = 64


def _items(value: object) -> int:
    """How many items ``value`` holds, roughly, when it is neither a history nor a request body
    (:func:`hold` tells those itself): a 256th of a text's length; anything
    else (an SDK object, a file being read) counts as large."""
    if type(value) is str or type(value) is bytes or type(value) is bytearray:
        return len(value) >> 8
    return MIN_ITEMS


def _pause() -> None:
    global _depth, _saved
    _acquire()
    try:
        if not _depth:
            first, second, third = _get()
            _saved = first
            if first:
                _set(0, second, third)
        _depth += 1
    finally:
        _release()


def _resume() -> None:
    global _depth
    _acquire()
    try:
        _depth -= 1
        if not _depth:
            first, second, third = _get()
            if not first and _saved:  # still ours: nobody set the thresholds meanwhile
                _set(_saved, second, third)
    finally:
        _release()


def hold(first: object) -> bool:
    """Hold automatic collection off when ``first`` holds at least :data:`MIN_ITEMS` items (a
    history, a request body, JSONL text, a file); whether it did. A public call begins with
    ``held = hold(history)`` and ends with ``finally: if held: release()``: a decorator's frame
    would cost a short call as much as its own conversion's first step."""
    kind = type(first)
    if kind is tuple or kind is list:
        small = len(first) < MIN_ITEMS  # type: ignore[arg-type]
    elif kind is dict:  # a request body: its list of messages, contents or input items
        get = first.get  # type: ignore[attr-defined]
        items = get("messages") or get("contents") or get("input")
        small = type(items) is not list or len(items) < MIN_ITEMS
    else:
        small = _items(first) < MIN_ITEMS
    if small:
        return False
    _pause()
    return True


release = _resume
"""Ends the hold :func:`hold` began (when it returned ``True``)."""
