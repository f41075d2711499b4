"""``partwire.estimate``: bounds, guessed parts, media hints, and the ``partwire estimate`` command."""

from __future__ import annotations

import base64
import io
import json
import math
import struct
import wave
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partwire import AssistantMessage, CompactionEvent, UserMessage
from partwire.adapters import _estimate as est
from partwire.adapters import get_adapter
from partwire.adapters._estimate._guess import image_bounds
from partwire.adapters.bedrock._tokens import estimate_request_tokens as bedrock_body
from partwire.cli import main
from partwire.codec import dump
from partwire.errors import ArgumentError
from partwire.estimate import MediaHint, estimate, explain
from partwire.history import HistoryEvent
from partwire.parts import AudioPart, Base64Source, DocumentPart, ImagePart, TextPart, UrlSource
from tests.harness.depth import examples

URL = "https://example.com/picture"


def _ask(*parts: ImagePart | DocumentPart | AudioPart) -> list[UserMessage]:
    return [UserMessage(parts=(TextPart(text="What is this?"), *parts))]


def _wav(seconds: float, rate: int = 8000) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(2)
        clip.setframerate(rate)
        clip.writeframes(bytes(2 * int(rate * seconds)))
    return out.getvalue()


def test_an_image_by_url_is_a_guessed_part_within_its_bounds() -> None:
    """Claude's estimate of an image by URL names the part, what it assumed and its bounds."""
    history = _ask(ImagePart(source=UrlSource(url=URL), media_type="image/png"))
    result = estimate(history, target="anthropic", model="claude-sonnet-4-5")
    assert result.tokens == get_adapter("anthropic").estimate_input_tokens(
        history, model="claude-sonnet-4-5")
    (part,) = result.guessed
    assert (part.path, part.kind, part.source, part.assumed) == (
        "history[0].parts[1]", "image", URL, "512x512 px")
    assert part.low == est.anthropic_image_tokens(1, 1)
    assert part.high >= est.anthropic_image_tokens(1568, 1568)
    assert result.low < result.tokens - part.tokens + part.low + 1
    assert result.high > result.tokens - part.tokens + part.high - 1


@pytest.mark.parametrize("key", ["history[0].parts[1]", URL])
def test_a_hint_by_path_or_url_gives_the_size(key: str) -> None:
    """With the size hinted, the image is counted by the formula and is no longer guessed."""
    history = _ask(ImagePart(source=UrlSource(url=URL), media_type="image/png"))
    plain = estimate(history, target="anthropic", model="claude-sonnet-4-5")
    hinted = estimate(history, target="anthropic", model="claude-sonnet-4-5",
                      media_hints={key: MediaHint(width=100, height=100)})
    assert not hinted.guessed
    assert plain.tokens - hinted.tokens == round(
        est.anthropic_image_tokens(512, 512) - est.anthropic_image_tokens(100, 100))


def test_a_hint_for_a_part_that_is_not_media_is_refused() -> None:
    """A hint whose path names no media part raises ArgumentError naming the path."""
    with pytest.raises(ArgumentError, match=r"history\[0\]\.parts\[0\]"):
        estimate(_ask(), target="anthropic",
                 media_hints={"history[0].parts[0]": MediaHint(width=1, height=1)})
    with pytest.raises(ArgumentError, match="seconds"):
        MediaHint(seconds=-1)


def test_gemini_counts_a_url_image_without_a_media_type_as_a_guess_not_nothing() -> None:
    """A fileData with no mimeType is billed as what it is: counted, and reported as guessed."""
    history = _ask(ImagePart(source=UrlSource(url=URL)))
    result = estimate(history, target="google", model="gemini-2.5-flash")
    text_only = estimate(_ask(), target="google", model="gemini-2.5-flash")
    assert result.tokens - text_only.tokens >= 258
    (part,) = result.guessed
    assert part.kind == "file"
    assert part.path == "history[0].parts[1]"
    hinted = estimate(history, target="google", model="gemini-2.5-flash",
                      media_hints={URL: MediaHint(width=1000, height=800)})
    assert not hinted.guessed
    assert hinted.tokens - text_only.tokens == est.google_image_tokens(1000, 800)


def test_bedrock_names_the_image_it_leaves_out_and_guesses_the_s3_one() -> None:
    """An https image is not sent to Converse (left_out); an S3 one is counted as a guess."""
    s3 = "s3://bucket/picture.png"
    history = _ask(ImagePart(source=UrlSource(url=URL), media_type="image/png"),
                   ImagePart(source=UrlSource(url=s3), media_type="image/png"))
    result = estimate(history, target="bedrock", model="anthropic.claude-3-haiku-20240307-v1:0")
    assert [line.split(":", 1)[0] for line in result.left_out] == ["history[0].parts[1]"]
    assert [(p.path, p.source) for p in result.guessed] == [("history[0].parts[2]", s3)]


def test_inline_audio_with_an_unreadable_header_is_a_guess_and_a_hint_fixes_it() -> None:
    """Bytes that are no known container give a length from their size, reported as guessed."""
    noise = base64.b64encode(bytes(range(256)) * 200).decode()
    history = _ask(AudioPart(source=Base64Source(data=noise), media_type="audio/mpeg"))
    result = estimate(history, target="google", model="gemini-2.5-flash")
    (part,) = result.guessed
    assert (part.kind, part.source) == ("audio", "inline")
    assert "header could not be read" in part.assumed
    hinted = estimate(history, target="google", model="gemini-2.5-flash",
                      media_hints={"history[0].parts[1]": MediaHint(seconds=10)})
    assert not hinted.guessed
    assert hinted.tokens == result.tokens - part.tokens + 320


def test_inline_audio_with_a_readable_header_is_not_a_guess() -> None:
    """A WAV's length is read from its header: 4 s at Gemini's 32 a second, nothing guessed."""
    clip = base64.b64encode(_wav(4.0)).decode()
    history = _ask(AudioPart(source=Base64Source(data=clip), media_type="audio/wav"))
    result = estimate(history, target="google", model="gemini-2.5-flash")
    assert not result.guessed
    assert result.tokens - estimate(_ask(), target="google").tokens == 128


@settings(max_examples=examples(300), deadline=None)
@given(head=st.sampled_from([b"", b"RIFF\x00\x00\x00\x00WAVEfmt ", b"\x00\x00\x00\x18ftypisom",
                             b"\x1a\x45\xdf\xa3\x80\x18\x53\x80\x67", b"fLaC", b"OggS",
                             b"ID3\x04\x00", b"\xff\xfb"]),
       tail=st.binary(max_size=300), video=st.booleans())
def test_any_media_bytes_estimate_without_raising(head: bytes, tail: bytes, video: bool) -> None:
    """Truncated or garbage media give a count (from the header or a guess), never an error."""
    payload = base64.b64encode(head + tail).decode()
    mime = "video/mp4" if video else "audio/mpeg"
    body = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": mime,
                                                                    "data": payload}}]}]}
    result = explain(lambda: est.estimate_google_body(body), [], target="google")
    assert result.low <= result.tokens <= result.high
    assert all(p.low <= p.tokens <= p.high for p in result.guessed)


@pytest.mark.parametrize("model", ["amazon.nova-lite-v1:0", "anthropic.claude-3-haiku-20240307-v1:0"])
def test_bedrock_documents_are_their_text_unless_claude_cites_them(model: str) -> None:
    """Converse gives the model a document's text; only Claude with citations sees its pages."""
    text = b"BT (" + b"word " * 400 + b") Tj ET"
    pdf = (b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n2 0 obj << /Length 9 >>\nstream\n"
           + text + b"\nendstream\nendobj\n%%EOF")
    document = {"format": "pdf", "name": "notes", "source": {"bytes": base64.b64encode(pdf).decode()}}

    def body(**extra: object) -> dict[str, object]:
        return {"modelId": model, "messages": [{"role": "user", "content": [
            {"document": {**document, **extra}}, {"text": "Summarise."}]}]}

    plain = bedrock_body(body())
    assert 400 < plain < 800  # the text layer (about 500 tokens), no page image
    cited = bedrock_body(body(citations={"enabled": True}))
    assert cited - plain == (1550 if model.startswith("anthropic.") else 0)


def test_chat_bills_the_harmony_preamble_for_a_reasoning_model_with_tools() -> None:
    """gpt-5 with tools adds its harmony system message (71 tokens); gpt-4o and no tools do not."""
    tool = {"type": "function", "function": {"name": "f", "description": "d",
                                             "parameters": {"type": "object", "properties": {}}}}

    def body(model: str, tools: bool) -> dict[str, object]:
        return {"model": model, "messages": [{"role": "user", "content": "Hi"}],
                **({"tools": [tool]} if tools else {})}

    delta_5 = est.estimate_openai_chat_body(body("gpt-5-mini", True)) \
        - est.estimate_openai_chat_body(body("gpt-4o", True))
    assert delta_5 == 71
    assert est.estimate_openai_chat_body(body("gpt-5-mini", False)) \
        == est.estimate_openai_chat_body(body("gpt-4o", False))


def test_a_compaction_event_stands_for_what_it_replaced() -> None:
    """The estimate counts the next request: the messages a compaction replaced are not in it."""
    long: list[HistoryEvent] = [UserMessage("word " * 3000), AssistantMessage("ok " * 2000)]
    compaction = CompactionEvent(summary="The user sent many words.", replaced_count=2)
    whole = estimate([*long, UserMessage("and?")], target="anthropic")
    compacted = estimate([*long, compaction, UserMessage("and?")], target="anthropic")
    assert whole.tokens > 3000
    assert compacted.tokens < 60


@pytest.fixture
def by_url(tmp_path: Path) -> Path:
    """A history with an image by URL and a reply without usage, written to a file."""
    path = tmp_path / "h.jsonl"
    dump([*_ask(ImagePart(source=UrlSource(url=URL), media_type="image/png")),
          AssistantMessage("A cat.", model="anthropic:claude-sonnet-4-5", api="anthropic")], path)
    return path


def test_the_estimate_command_prints_tokens_bounds_and_guesses(
        by_url: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``partwire estimate`` prints the count and bounds, each guess, and takes --hint."""
    assert main(["estimate", str(by_url), "--to", "anthropic", "--model", "claude-sonnet-4-5"]) == 0
    out = capsys.readouterr().out
    assert "input tokens to anthropic" in out
    assert "between" in out
    assert "history[0].parts[1]  image" in out
    assert "512x512 px" in out
    assert main(["estimate", str(by_url), "--to", "anthropic", "--json",
                 "--hint", "history[0].parts[1]=100x100"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["guessed"] == []
    assert data["low"] <= data["tokens"] <= data["high"]
    assert main(["estimate", str(by_url), "--to", "anthropic", "--hint", "history[0]=big"]) == 2
    assert "PART=SIZE" in capsys.readouterr().err


def test_cost_without_usage_says_so_and_offers_the_estimate(
        by_url: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``partwire cost`` on a history with no usage names it and prints the estimate command."""
    assert main(["cost", str(by_url)]) == 0
    out = capsys.readouterr().out
    assert "no recorded usage" in out
    assert f"partwire estimate {by_url} --to anthropic --model claude-sonnet-4-5" in out


def test_the_bounds_of_an_unknown_image_follow_each_rule() -> None:
    """The least and most of an unknown image are the formula's over image sizes."""
    low, high = image_bounds(lambda w, h: est.openai_image_tokens(w, h, None, "gpt-4o"),
                                 ("test", "gpt-4o"))
    assert low == 255
    assert high == 85 + 170 * 8  # 2048x768 after fitting: 4 by 2 tiles
    assert math.isclose(image_bounds(est.google_image_tokens, ("test", "google"))[0], 258)


def test_a_video_whose_header_is_read_is_not_a_guess() -> None:
    """A 12-second MP4 (its mvhd read) is 12 s at 263 a second, with nothing guessed."""
    def box(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", 8 + len(body)) + kind + body

    mvhd = struct.pack(">B3xIIII", 0, 0, 0, 600, 600 * 12) + bytes(80)
    mp4 = box(b"ftyp", b"isom\x00\x00\x02\x00") + box(b"moov", box(b"mvhd", mvhd))
    body = {"contents": [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "video/mp4", "data": base64.b64encode(mp4).decode()}}]}]}
    result = explain(lambda: est.estimate_google_body(body), [], target="google")
    assert not result.guessed
    assert result.tokens == 263 * 12 + 1


@pytest.mark.parametrize(("target", "tool"), [
    ("anthropic", {"type": "web_search_20250305", "name": "web_search"}),
    ("openai_responses", {"type": "web_search"}),
])
def test_a_server_tool_is_a_guess_bounded_by_what_it_may_read(
        target: str, tool: dict[str, str]) -> None:
    """A provider-run tool reads what the request does not hold: a guessed part with bounds."""
    result = estimate([UserMessage("Who won yesterday?")], target=target, model="m",
                      params={"tools": [tool]})
    (part,) = result.guessed
    assert part.kind == "server tool"
    assert part.path == f"tools[0] ({tool['type']})"
    assert part.high - part.tokens >= 200_000
