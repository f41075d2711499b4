"""The collector held off during whole-history operations, and the caller's state given back."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from partwire import HistoryEvent
from partwire._collector import MIN_ITEMS, hold, release
from partwire.adapters import ADAPTER_NAMES, WireFormatError, get_adapter
from partwire.adapters._kernel import dry_run
from partwire.codec import dumps, loads
from partwire.errors import DecodeError
from tests.benchmarks._runner import quiet_losses
from tests.benchmarks.agent_history import agent_history

MODELS = {"anthropic": "claude-sonnet-4-5", "openai_chat": "gpt-4.1", "openai_responses": "gpt-4.1",
          "google": "gemini-2.5-pro", "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
          "ollama": "qwen3:8b",
          "cohere": "command-a-03-2025"}


@pytest.fixture
def low_threshold() -> Iterator[tuple[int, int, int]]:
    """A first-generation threshold of 50, so that any call allocating a few hundred objects
    meets automatic collections; the test's thresholds and state are put back afterwards."""
    saved, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(50, saved[1], saved[2])
    gc.enable()
    try:
        yield gc.get_threshold()
    finally:
        gc.set_threshold(*saved)
        (gc.enable if enabled else gc.disable)()


def _collections(fn: Callable[[], object]) -> int:
    """How many collections ran while ``fn`` ran."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        fn()
    finally:
        gc.callbacks.remove(note)
    return len(seen)


@contextmanager
def paused() -> Iterator[None]:
    """A call's pause, as the kernel and the codec hold it: a large input held, then released."""
    assert hold(list(range(MIN_ITEMS)))
    try:
        yield
    finally:
        release()


@pytest.fixture(scope="module")
def history() -> list[HistoryEvent]:
    return agent_history(200)


def test_a_plain_loop_meets_collections(low_threshold: tuple[int, int, int]) -> None:
    """The control: at this threshold, building as many containers outside partwire collects."""
    assert _collections(lambda: [{"n": i} for i in range(5_000)]) > 0


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_to_wire_and_from_wire_request_run_without_collections(
        name: str, history: list[HistoryEvent], low_threshold: tuple[int, int, int]) -> None:
    """No automatic collection runs inside ``to_wire`` or ``from_wire_request`` of a
    200-event history, and the caller's threshold is back afterwards."""
    adapter = get_adapter(name)
    with dry_run(), quiet_losses():
        body = adapter.to_wire(history, model=MODELS[name]).request
        assert _collections(lambda: adapter.to_wire(history, model=MODELS[name])) == 0
        assert _collections(lambda: adapter.from_wire_request(body)) == 0
    assert gc.get_threshold() == low_threshold
    assert gc.isenabled()


def test_codec_loads_runs_without_collections(history: list[HistoryEvent],
                                              low_threshold: tuple[int, int, int]) -> None:
    """No automatic collection runs inside ``codec.loads``; the threshold is back afterwards."""
    data = dumps(history)
    assert _collections(lambda: loads(data)) == 0
    assert gc.get_threshold() == low_threshold


def test_state_is_given_back_on_error(history: list[HistoryEvent],
                                      low_threshold: tuple[int, int, int]) -> None:
    """A call that raises gives the threshold back too."""
    with pytest.raises(DecodeError):
        loads(dumps(history) + b'{"type": "user", "parts": 3}\n', strict=True)
    assert gc.get_threshold() == low_threshold
    adapter = get_adapter("anthropic")
    with dry_run(), quiet_losses():
        messages = adapter.to_wire(history, model=MODELS["anthropic"]).request["messages"]
    assert len(messages) >= MIN_ITEMS
    with pytest.raises(WireFormatError):
        adapter.from_wire_request({"messages": [*messages, 7]})
    assert gc.get_threshold() == low_threshold


def test_small_inputs_are_not_paused(history: list[HistoryEvent],
                                     low_threshold: tuple[int, int, int]) -> None:
    """A history of fewer than MIN_ITEMS events is encoded without the pause (its cost would
    show on a small request): at a low threshold it meets collections as any code does."""
    adapter = get_adapter("openai_chat")
    with dry_run(), quiet_losses():
        assert _collections(lambda: adapter.to_wire(history[:MIN_ITEMS - 1], model="gpt-4.1")) > 0
        assert _collections(lambda: adapter.to_wire(history[:MIN_ITEMS], model="gpt-4.1")) == 0
    assert gc.get_threshold() == low_threshold


def test_a_disabled_collector_stays_disabled(history: list[HistoryEvent],
                                             low_threshold: tuple[int, int, int]) -> None:
    """A caller that disabled the collector finds it disabled after a call, and one that
    disables it during a pause keeps it disabled."""
    gc.disable()
    loads(dumps(history[:5]))
    assert not gc.isenabled()
    gc.enable()
    with paused():
        gc.disable()
    assert not gc.isenabled()
    assert gc.get_threshold() == low_threshold


def test_thresholds_set_during_a_pause_are_kept(low_threshold: tuple[int, int, int]) -> None:
    """Thresholds the program sets while a call runs are its own and stay."""
    with paused():
        assert gc.get_threshold()[0] == 0
        gc.set_threshold(123, 4, 5)
    assert gc.get_threshold() == (123, 4, 5)


def test_a_disabled_threshold_stays_disabled() -> None:
    """A program that set the first threshold to 0 itself finds it 0 after a call."""
    saved = gc.get_threshold()
    gc.set_threshold(0, saved[1], saved[2])
    try:
        with paused():
            pass
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*saved)


def test_overlapping_pauses_in_two_threads(low_threshold: tuple[int, int, int]) -> None:
    """The pause lasts until the last of two overlapping calls returns, whichever order they
    end in, and then the threshold is back."""
    entered, release = threading.Event(), threading.Event()
    during: list[int] = []

    def other() -> None:
        with paused():
            entered.set()
            release.wait(10)

    with paused():
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(10)
    during.append(gc.get_threshold()[0])  # the main thread's pause is over, the other's not
    release.set()
    thread.join(10)
    assert during == [0]
    assert gc.get_threshold() == low_threshold


def test_many_threads_calling_at_once(history: list[HistoryEvent],
                                      low_threshold: tuple[int, int, int]) -> None:
    """Eight threads running ``to_wire`` and ``loads`` over and over leave the threshold as
    it was, and every call's result is the one a lone call gives."""
    adapter = get_adapter("openai_chat")
    data = dumps(history)
    with dry_run(), quiet_losses():
        expected = adapter.to_wire(history, model="gpt-4.1").request
        results: list[bool] = []

        def work() -> None:
            for _ in range(5):
                results.append(adapter.to_wire(history, model="gpt-4.1").request == expected)
                results.append(loads(data) == history)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert results == [True] * 80
    assert gc.get_threshold() == low_threshold
