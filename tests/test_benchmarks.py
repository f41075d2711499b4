"""The bench measures what it claims: the agent history's shape, the plain mirrors, the Responses
baselines (which do the same work as partwire), and the runner's judging on the median of three
runs and its results file."""

from __future__ import annotations

import importlib
import json
import types
from pathlib import Path
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    ErrorEvent,
    ImagePart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import openai_responses
from partwire.cli._example import example_history
from partwire.codec import dumps
from partwire.history import EVENT_ADAPTER
from partwire.streaming import accumulate
from tests.benchmarks._runner import RUNS, Figure, Pass, Timed, alternate, judge, measure_module
from tests.benchmarks.agent_history import agent_history
from tests.benchmarks.bench_openai_responses import _plain_to_wire, responses_session, stream_events
from tests.benchmarks.plain_mirror import plain_event_adapter
from tests.harness.compare import comparable

HISTORY = agent_history(400)


def test_agent_history_is_deterministic_and_sized() -> None:
    """The same size and seed give the same history; another seed gives another."""
    assert len(HISTORY) == 400
    assert dumps(agent_history(400)) == dumps(HISTORY)
    assert dumps(agent_history(400, seed=8)) != dumps(HISTORY)


def test_agent_history_has_the_promised_traffic() -> None:
    """Images, signed thinking, one to three parallel calls, 0.7-4.5 KB tool outputs, errors."""
    users = [e for e in HISTORY if isinstance(e, UserMessage)]
    assert any(isinstance(p, ImagePart) for u in users for p in u.parts)
    calling = [e for e in HISTORY if isinstance(e, AssistantMessage) and e.stop_reason == "tool_use"]
    assert calling
    assert all(isinstance(m.parts[0], ThinkingPart) and m.parts[0].signature for m in calling)
    counts = {sum(isinstance(p, ToolCallPart) for p in m.parts) for m in calling}
    assert counts == {1, 2, 3}
    results = [e for e in HISTORY if isinstance(e, ToolMessage)]
    sizes = [len(r.output_text) for r in results]
    assert min(sizes) >= 700
    assert max(sizes) <= 4500
    assert any(r.status == "error" for r in results)
    assert any(isinstance(e, ErrorEvent) for e in HISTORY)


@pytest.mark.parametrize("dicts", [False, True], ids=["models", "typeddicts"])
def test_plain_mirror_reads_every_line_to_the_same_json(dicts: bool) -> None:
    """The load target's yardstick reads every bench line back to the same JSON."""
    # The bench compares partwire with these mirrors; they must take the same lines, whole.
    adapter = plain_event_adapter(dicts=dicts)
    lines = dumps([*HISTORY, *example_history()]).splitlines()
    for line in lines:
        value = adapter.validate_json(line)
        assert adapter.dump_python(value, mode="json") == json.loads(line)


def test_plain_mirror_checks_tags() -> None:
    """The yardstick validates its tags, as partwire does (it is no bare dict parse)."""
    adapter = plain_event_adapter()
    line = json.loads(dumps([HISTORY[1]]))
    line["role"] = "robot"
    with pytest.raises(ValueError, match="robot"):
        adapter.validate_python(line)


def test_plain_baseline_builds_the_request_to_wire_builds() -> None:
    """The dict loop the to_wire benchmark divides by makes exactly to_wire's request body."""
    history = responses_session(agent_history(300))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    assert openai_responses.to_wire(history, model="gpt-5.5").request == _plain_to_wire(dumped, "gpt-5.5")


def test_stream_benchmark_events_are_one_whole_response() -> None:
    """The benchmark's stream accumulates to what from_wire gives for its final response."""
    events = stream_events(200)
    final = events[-1]["response"]
    assert comparable(accumulate(openai_responses.stream(events))) == comparable(openai_responses.from_wire(final))
# The runner: three readings per figure, judged on their median.


def test_a_target_is_judged_on_the_median_not_on_one_reading() -> None:
    """One reading over the target does not miss it, and one under it does not hold it."""
    held = judge("f", [2.0, 0.9, 0.95], unit="x", target=1.0)
    assert held["value"] == 0.95
    assert held["held"] is True
    missed = judge("f", [0.5, 1.2, 1.1], unit="x", target=1.0)
    assert missed["value"] == 1.1
    assert missed["held"] is False


def test_the_spread_is_the_range_over_the_median() -> None:
    """The row keeps every reading and their spread, (largest - smallest) / median."""
    row = judge("f", [1.0, 1.2, 0.9], unit="x", peer="a loop")
    assert row["runs"] == [1.0, 1.2, 0.9]
    assert row["spread"] == pytest.approx(0.3)
    assert row["peer"] == "a loop"
    assert "held" not in row


def test_a_count_that_is_not_a_number_is_kept_as_read() -> None:
    """A reading such as ``"2/5"`` (refused by each library) is the value, without a spread."""
    row = judge("f", ["2/5"], unit="refused")
    assert row["value"] == "2/5"
    assert "spread" not in row


def test_the_runner_measures_each_figure_three_times_and_a_count_once() -> None:
    """A timed figure is read three times (its hook builds its inputs once), a count once."""
    built: list[int] = []
    counted: list[int] = []
    calls: list[str] = []

    def timed() -> Timed:
        built.append(1)
        return Timed(lambda: calls.append("ours"), lambda: calls.append("peer"), rounds=2,
                     detail={"events": 3})

    def count() -> int:
        counted.append(1)
        return 7

    rows = measure_module([Figure("t", "x", "a peer", 100.0, timed=timed),
                           Figure("c", "of 9 equal", read=count, runs=1)])
    assert len(built) == 1
    assert calls.count("ours") == calls.count("peer") == RUNS * 2
    assert len(rows["t"]["runs"]) == RUNS
    assert rows["t"]["held"] is True
    assert rows["t"]["events"] == 3
    assert counted == [1]
    assert rows["c"] == {"unit": "of 9 equal", "value": 7, "runs": [7], "spread": 0.0}


def test_a_pass_is_run_three_times_and_judged_on_the_median_of_its_rows() -> None:
    """A module measured in one go gives one row per pass; the figure is their median."""
    values = iter([3.0, 1.0, 2.0])

    def measure() -> dict[str, dict[str, Any]]:
        return {"p": {"value": next(values), "unit": "x", "target": 2.5}}

    row = measure_module([Pass(measure)])["p"]
    assert row["runs"] == [3.0, 1.0, 2.0]
    assert row["value"] == 2.0
    assert row["held"] is True


def test_a_pass_that_reads_three_times_itself_is_judged_on_its_readings() -> None:
    """A pass run once whose row carries its own three readings is judged on them."""
    def measure() -> dict[str, dict[str, Any]]:
        return {"g": {"value": 1.0, "runs": [1.2, 1.5, 1.4], "unit": "x", "target": 1.3}}

    row = measure_module([Pass(measure, runs=1)])["g"]
    assert row["value"] == 1.4
    assert row["held"] is False


def test_the_results_file_has_meta_and_figures_and_a_missed_median_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m tests.benchmarks`` writes ``{"meta", "figures"}`` and exits 1 on a miss."""
    import tests.benchmarks.__main__ as runner_main

    fake = types.SimpleNamespace(FIGURES=[Figure("fake.ratio", "x", "a loop", 0.5,
                                                 read=lambda: 1.0)])
    monkeypatch.setattr(runner_main, "modules", lambda: ["fake"])
    monkeypatch.setattr(importlib, "import_module", lambda name: fake)
    monkeypatch.chdir(tmp_path)
    assert runner_main.main([]) == 1
    results = json.loads((tmp_path / ".bench" / "results.json").read_text())
    assert set(results) == {"meta", "figures"}
    assert results["meta"]["modules"] == ["fake"]
    assert results["meta"]["runs"] == RUNS
    assert len(results["meta"]["load"]["fake"]) == 2  # the load average at its start and end
    row = results["figures"]["fake.ratio"]
    assert (row["value"], row["target"], row["held"], row["peer"]) == (1.0, 0.5, False, "a loop")
    assert row["module"] == "fake"


def test_every_bench_module_declares_figures_with_unique_names() -> None:
    """Each ``bench_*`` module exports ``FIGURES``; no two declared figures share a name."""
    from tests.benchmarks.__main__ import modules

    names: list[str] = []
    for short in modules():
        module = importlib.import_module(f"tests.benchmarks.bench_{short}")
        assert all(isinstance(f, Figure | Pass) for f in module.FIGURES), short
        names += [f.name for f in module.FIGURES if isinstance(f, Figure)]
    assert len(names) == len(set(names))


def test_the_peer_may_be_called_fewer_times_a_round() -> None:
    """``peer_calls`` sets the peer's calls per round apart from partwire's."""
    calls: list[str] = []
    alternate(Timed(lambda: calls.append("ours"), lambda: calls.append("peer"),
                                 calls=5, peer_calls=1, rounds=2))
    assert calls.count("ours") == 10
    assert calls.count("peer") == 2


def test_corpus_classes_name_what_a_request_holds() -> None:
    """The per-class round-trip figures split the corpus by what each request holds: reasoning
    items, media, function and provider-run tools, and ``plain`` for none of them."""
    from tests.benchmarks.bench_babel import classes

    responses = {"model": "m", "reasoning": {"effort": "low"}, "input": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"role": "user", "content": [{"type": "input_image", "image_url": "https://x/y.png"}]}],
        "tools": [{"type": "web_search"}, {"type": "function", "name": "f", "parameters": {}}]}
    assert classes("openai_responses", responses) == {"reasoning", "media", "server_tools", "tools"}
    assert classes("openai_responses", {"model": "m", "input": "hi"}) == {"plain"}
    gemini = {"contents": [{"role": "model", "parts": [
        {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "c2ln"}]}],
        "tools": [{"functionDeclarations": [{"name": "f"}]}, {"googleSearch": {}}]}
    assert classes("google", gemini) == {"reasoning", "tools", "server_tools"}
    assert classes("google", {"contents": [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}]}) == {"media"}
