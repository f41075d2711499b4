"""``partwire cost``, ``partwire reprice`` and the cost lines of ``partwire show``."""

from __future__ import annotations

from pathlib import Path

import pytest

from partwire import AssistantMessage, UserMessage
from partwire.cli import main
from partwire.cli._example import example_history
from partwire.codec import dump, load
from partwire.usage import Usage


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The bundled example history, written to a file."""
    path = tmp_path / "example.jsonl"
    dump(example_history(), path)
    return path


def test_cost_prints_a_cost_per_model_with_its_price_version(
        example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every model of the example gets a row with a dollar figure and the genai-prices version."""
    assert main(["cost", str(example)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("anthropic:", "openai:"))]
    assert len(rows) == 2
    for row in rows:
        assert "genai-prices" in row
        assert "0." in row.split()[6]
    # The example's task_metadata names its session.
    assert "sess_tidydates_42" in out


def test_cost_names_the_reason_for_an_unknown_model(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A model without a price prints '-' as its cost and a line saying why."""
    path = tmp_path / "odd.jsonl"
    dump([UserMessage("hi"), AssistantMessage("yo", model="anthropic:no-such-model-9",
                                              usage=Usage(input_tokens=5, output_tokens=1))], path)
    assert main(["cost", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no cost for anthropic:no-such-model-9 (1 call): model 'no-such-model-9'" in out


def test_a_user_price_table_changes_the_result(example: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """With --prices, the table's model is priced from the table and names it as the version."""
    table = tmp_path / "mine.toml"
    table.write_text('version = "v9"\n[models."anthropic:claude-sonnet-4-6"]\n'
                     "input_mtok = 1000\noutput_mtok = 1000\n")
    main(["cost", str(example)])
    before = capsys.readouterr().out
    main(["cost", "--prices", str(table), str(example)])
    after = capsys.readouterr().out
    row = next(line for line in after.splitlines() if line.startswith("anthropic:"))
    assert "mine.toml v9" in row
    # (40,282 input + 903 output tokens) at $1,000 per million, cache billed as input.
    assert row.split()[6] == "41.185000"
    assert before != after


def test_reprice_writes_costs_with_the_new_version(example: Path, tmp_path: Path) -> None:
    """Repriced assistant messages carry the new price version; the rest of the file is unchanged."""
    out = tmp_path / "out.jsonl"
    assert main(["reprice", str(example), str(out)]) == 0
    events = load(out)
    originals = load(example)
    assert len(events) == len(originals)
    priced = [e for e in events if isinstance(e, AssistantMessage) and e.usage is not None]
    assert priced
    for message in priced:
        assert message.usage is not None
        assert message.usage.pricing_version is not None
        assert message.usage.pricing_version.startswith("genai-prices")


def test_show_prints_per_message_and_total_cost(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A message without a stored cost is priced on demand; the transcript ends with the total."""
    path = tmp_path / "h.jsonl"
    usage = Usage(input_tokens=100_000, output_tokens=0)
    dump([UserMessage("hi"), AssistantMessage("yo", model="anthropic:claude-sonnet-4-5", usage=usage)], path)
    main(["show", str(path)])
    out = capsys.readouterr().out
    assert "cost $0.3 (pricing genai-prices" in out
    assert out.rstrip().endswith("total cost: $0.3")


def test_show_prints_no_total_without_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A history with no usage recorded gets no cost line at all."""
    path = tmp_path / "plain.jsonl"
    dump([UserMessage("hi"), AssistantMessage("yo")], path)
    main(["show", str(path)])
    assert "cost" not in capsys.readouterr().out


def test_cost_names_a_file_without_task_metadata_by_its_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without a task id, the session column shows the file given on the command line."""
    path = tmp_path / "bare.jsonl"
    dump([AssistantMessage("yo", model="openai:gpt-4o", usage=Usage(input_tokens=10))], path)
    main(["cost", str(path)])
    assert str(path) in capsys.readouterr().out


def test_reprice_at_a_date_and_with_a_table(example: Path, tmp_path: Path) -> None:
    """--at prices every message at one date; --prices names the table in the version."""
    table = tmp_path / "t.json"
    table.write_text('{"version": "q3", "models": {"claude-sonnet-4-6": {"input_mtok": 1, "output_mtok": 1}}}')
    out = tmp_path / "out.jsonl"
    assert main(["reprice", "--prices", str(table), "--at", "2026-03-01", str(example), str(out)]) == 0
    versions = {e.usage.pricing_version for e in load(out)
                if isinstance(e, AssistantMessage) and e.usage is not None}
    assert versions == {"t.json q3 @ 2026-03-01", "genai-prices " + _genai_version() + " @ 2026-03-01"}


def test_a_bad_price_table_is_one_error_line(example: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A malformed table ends the command with exit 2 and one line naming the file."""
    table = tmp_path / "broken.toml"
    table.write_text("models = 3\n")
    assert main(["cost", "--prices", str(table), str(example)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("partwire: error: ")
    assert "broken.toml" in err
    assert len(err.splitlines()) == 1


def _genai_version() -> str:
    from importlib.metadata import version

    return version("genai-prices")
