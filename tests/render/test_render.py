"""partwire.render and ``partwire show --format``: text, Markdown and the HTML page, without a browser."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from partwire import (
    AssistantMessage,
    CompactionEvent,
    DocumentPart,
    ErrorEvent,
    HistoryEvent,
    ImagePart,
    RefusalPart,
    SubtaskEvent,
    TaskMetadataEvent,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire.cli import main
from partwire.cli._example import example_history
from partwire.codec import dumps
from partwire.render import FORMATS, render, to_html, to_markdown, to_text

EXAMPLE = example_history()


def example_texts(history: list[HistoryEvent]) -> list[str]:
    """Every text a reader of the history must find in a transcript of it."""
    texts: list[str] = []
    for event in history:
        parts = list(getattr(event, "parts", ()))
        for part in parts:
            if isinstance(part, TextPart | ThinkingPart | RefusalPart) and part.text:
                texts.append(part.text)
                texts += [c.cited_text for c in getattr(part, "citations", ()) if c.cited_text]
            if isinstance(part, DocumentPart | ImagePart) and isinstance(part.source, TextSource):
                texts.append(part.source.text)
        match event:
            case ToolMessage():
                texts.append(event.output_text)
                texts += [p.source.text for p in event.parts
                          if isinstance(p, DocumentPart) and isinstance(p.source, TextSource)]
            case CompactionEvent():
                texts.append(event.summary)
            case SubtaskEvent():
                texts += [t for t in (event.prompt, event.result) if t]
            case ErrorEvent():
                texts.append(event.message)
            case TaskMetadataEvent():
                texts += [t for t in (event.title,) if t]
    return [t for t in texts if t.strip()]


def _lines(texts: list[str]) -> list[str]:
    return [line.strip() for text in texts for line in text.splitlines() if line.strip()]


def test_markdown_holds_every_text_of_the_example() -> None:
    """Every line of every text, thinking, refusal, tool output, summary and citation is in the Markdown."""
    markdown = to_markdown(EXAMPLE)
    missing = [line for line in _lines(example_texts(EXAMPLE)) if line not in markdown]
    assert not missing
    assert markdown.startswith("# Fix the UTC offset bug in parse_date\n")


def test_markdown_fetches_nothing_and_fences_hold_their_backticks() -> None:
    """No image syntax (a viewer would fetch it); a tool output holding a fence gets a longer one."""
    call = ToolCallPart.create("shell", {"cmd": "cat README.md"})
    history: list[HistoryEvent] = [
        UserMessage([TextPart(text="see"), ImagePart(source=UrlSource(url="https://example.com/a.png"))]),
        AssistantMessage([call], model="anthropic:claude-sonnet-4-6"),
        ToolMessage(call_id=call.id, tool_name="shell", output_text="```python\nprint(1)\n```"),
    ]
    markdown = to_markdown(history)
    assert "![" not in markdown
    assert "<https://example.com/a.png>" in markdown
    assert "````text\n```python\nprint(1)\n```\n````" in markdown


def test_text_is_what_partwire_show_prints(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``to_text`` gives the very transcript ``partwire show`` prints, cost total included."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(EXAMPLE))
    assert main(["show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert shown == to_text(EXAMPLE)
    assert "total cost: $" in shown


def test_render_dispatches_every_format_and_refuses_an_unknown_one() -> None:
    """``render`` gives each format's own output and names the formats when given another."""
    assert render(EXAMPLE, "markdown") == to_markdown(EXAMPLE)
    assert render(EXAMPLE, "text") == to_text(EXAMPLE)
    assert set(FORMATS) == {"text", "markdown", "html"}
    with pytest.raises(ValueError, match="expected one of text, markdown, html"):
        render(EXAMPLE, "pdf")  # type: ignore[arg-type]


def test_every_format_shows_the_title_it_is_given() -> None:
    """``render(..., title=...)`` puts the title in the text transcript too, not only in Markdown and HTML."""
    for format in FORMATS:
        assert "Arithmetic drill" in render(EXAMPLE, format, title="Arithmetic drill", adapters=())
    assert render(EXAMPLE, "text", title="Arithmetic") == "Arithmetic\n==========\n\n" + to_text(EXAMPLE)
    assert render(EXAMPLE, "text") == to_text(EXAMPLE)


HOSTILE: list[HistoryEvent] = [
    UserMessage([
        TextPart(text='<script>alert(1)</script><img src=x onerror="alert(2)"> and </script> too'),
        ImagePart(source=UrlSource(url="javascript:alert(3)"), media_type="image/png"),
        ImagePart(source=UrlSource(url="https://tracker.example.com/pixel.png"), media_type="image/png"),
    ]),
    AssistantMessage("fine </script><script>alert(4)</script>", model="anthropic:claude-sonnet-4-6"),
]


def test_html_escapes_what_the_history_holds() -> None:
    """History text never becomes markup: no script or image it wrote, no javascript: link, and the
    embedded data cannot close its script element."""
    page = to_html(HOSTILE)
    assert page.count("<script") == 2  # the data and the page's own script
    assert page.count("</script>") == 2
    assert "<img src=x" not in page
    assert "alert(1)</script>" not in page
    assert 'href="javascript:' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_html_loads_nothing_from_elsewhere() -> None:
    """Only data: URLs are sources; remote media are links; a Content-Security-Policy allows
    nothing but data: media and the page's own style and script."""
    page = to_html(EXAMPLE) + to_html(HOSTILE)
    sources = re.findall(r'\b(?:src|href)="([^"]*)"', page)
    assert sources
    for value in sources:
        assert value.startswith(("data:", "#", "https://", "http://")), value
    assert not re.search(r'\bsrc="https?:', page)
    assert not re.search(r'<link[^>]+rel="stylesheet"', page)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    assert "default-src 'none'" in policy.group(1)
    assert '<a href="https://tracker.example.com/pixel.png"' in page


def test_html_names_every_event_and_part_for_the_projection_view() -> None:
    """Each event has an element ``e<index>`` (tool results under their calls included) and each
    message part ``e<index>p<part>``, which the losses point at."""
    page = to_html(EXAMPLE)
    for i, event in enumerate(EXAMPLE):
        assert f'id="e{i}"' in page, (i, event.type)
        for j in range(len(getattr(event, "parts", ()))):
            assert f'id="e{i}p{j}"' in page


def test_html_pages_a_long_history() -> None:
    """A history longer than a page is split into pages, the first shown and the others hidden."""
    history: list[HistoryEvent] = [UserMessage(f"message {n}") for n in range(45)]
    page = to_html(history, page_size=20, adapters=())
    assert page.count('class="page"') == 3
    assert page.count('class="page" data-page="0">') == 1
    assert page.count(" hidden>") >= 2
    assert 'id="partwire-projections"' not in page
    with pytest.raises(ValueError, match="page_size"):
        to_html(history, page_size=0)


def test_show_writes_each_format_to_a_file_or_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``show --format F -o OUT`` writes the rendering; without ``-o`` it goes to stdout."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(EXAMPLE))
    out = tmp_path / "h.md"
    assert main(["show", "--format", "markdown", "-o", str(out), str(path)]) == 0
    assert out.read_text(encoding="utf-8") == to_markdown(EXAMPLE)  # the task's title
    untitled = tmp_path / "untitled.jsonl"
    untitled.write_bytes(dumps([UserMessage("hi")]))
    assert main(["show", "--format", "markdown", str(untitled)]) == 0
    assert capsys.readouterr().out.startswith("# untitled.jsonl\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(dumps(EXAMPLE))))
    assert main(["show", "--format", "html", "-"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!doctype html>")
    assert "Fix the UTC offset bug" in page
    assert main(["show", "--format", "html", "-o", str(tmp_path), str(path)]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_show_chooses_the_adapters_of_the_projection_view(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``--adapters`` names the adapters projected (a dialect too), ``none`` leaves the view out,
    and an unknown adapter or dialect is a one-line error."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(EXAMPLE))
    out = tmp_path / "h.html"
    assert main(["show", "--format", "html", "--adapters", "google,openai-chat:deepseek", "-o", str(out), str(path)]) == 0
    assert out.read_text(encoding="utf-8") == to_html(EXAMPLE, adapters=("google", "openai_chat:deepseek"))
    assert main(["show", "--format", "html", "--adapters", "none", "-o", str(out), str(path)]) == 0
    assert 'id="partwire-projections"' not in out.read_text(encoding="utf-8")
    for bad, said in (("anthropik", "unknown adapter 'anthropik'"), ("openai_chat:nope", "no dialect 'nope'"),
                      ("google:x", "google has no dialect 'x': it has no dialects")):
        assert main(["show", "--format", "html", "--adapters", bad, str(path)]) == 2
        assert said in capsys.readouterr().err


def test_show_writes_a_lone_surrogate_as_its_escape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A history line may hold a lone surrogate (JSON allows ``\\ud800``); every format still writes."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps([UserMessage("odd SURROGATE text")]).replace(b"SURROGATE", b"\\ud800"))
    for fmt in FORMATS:
        out = tmp_path / f"h.{fmt}"
        assert main(["show", "--format", fmt, "-o", str(out), str(path)]) == 0, capsys.readouterr().err
        assert "odd \\ud800 text" in out.read_text(encoding="utf-8")
