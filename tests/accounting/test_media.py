"""Image sizes, PDF pages and audio durations read from headers, and the providers' formulas."""

from __future__ import annotations

import base64
import struct
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from partwire.adapters import _estimate as est
from tests.harness.depth import examples


def _png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))


def _jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc2" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def test_image_size_reads_png_jpeg_gif_and_webp_headers() -> None:
    """Width and height come from each format's header, without decoding pixels."""
    assert est.image_size(_png(166, 282)) == (166, 282)
    assert est.image_size(_jpeg(1024, 768)) == (1024, 768)
    assert est.image_size(b"GIF89a" + struct.pack("<HH", 40, 30) + b"\x00" * 8) == (40, 30)
    vp8x = b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x0a\x00\x00\x00" + b"\x00" * 4
    vp8x += (799).to_bytes(3, "little") + (599).to_bytes(3, "little")
    assert est.image_size(vp8x) == (800, 600)
    assert est.image_size(b"not an image") is None


def test_pdf_pages_counts_page_objects_not_the_page_tree() -> None:
    """A PDF's pages are its /Type /Page objects; /Pages is the tree, not a page."""
    pdf = b"%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >>\n2 0 obj << /Type /Page >>\n3 0 obj << /Type/Page >>"
    assert est.pdf_pages(pdf) == 2
    assert est.pdf_pages(b"%PDF-1.7\n<< /Type /Pages /Count 7 >>") == 7
    assert est.pdf_pages(b"plain text") is None


def test_audio_seconds_of_wav_and_mp3() -> None:
    """WAV duration comes from its byte rate, MP3's from its first frame's bit rate."""
    header = b"RIFF" + b"\x00" * 4 + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 16000, 32000, 2, 16)
    wav = header + b"data" + b"\x00" * 4 + b"\x00" * 64000
    assert est.audio_seconds(wav) == 2.0
    frame = b"\xff\xfb\x90\x00"  # MPEG-1 layer III, 128 kbit/s
    mp3 = frame + b"\x00" * (16000 - len(frame))
    assert est.audio_seconds(mp3) == 1.0


def test_provider_image_formulas_match_their_published_examples() -> None:
    """OpenAI's tile rule, Claude's patches and Gemini's 258-token tiles give the documented counts."""
    assert est.openai_image_tokens(1024, 1024, "high", "gpt-4o") == 765
    assert est.openai_image_tokens(2048, 4096, "high", "gpt-4o") == 1105
    assert est.openai_image_tokens(4096, 8192, "low", "gpt-4o") == 85
    assert est.openai_image_tokens(100, 100, "auto", "gpt-4o-mini") == 2833 + 5667
    # Claude: the published w*h/750 examples (1092x1092 about 1,590, 1000x1000 about 1,334) within
    # 5%, and the billed cost of the corpus's recorded images (100x100, 172x178, 550x368) exactly.
    assert abs(est.anthropic_image_tokens(1092, 1092) - 1590) <= 0.05 * 1590
    assert abs(est.anthropic_image_tokens(1000, 1000) - 1334) <= 0.05 * 1334
    assert [est.anthropic_image_tokens(*size) for size in ((100, 100), (172, 178), (550, 368))] \
        == [19, 52, 283]
    assert est.google_image_tokens(384, 384) == 258
    assert est.google_image_tokens(1000, 1000) > 258


def test_an_inline_image_is_counted_by_its_size() -> None:
    """A larger base64 image in an Anthropic body costs more tokens than a small one."""
    def body(png: bytes) -> dict[str, object]:
        data = base64.b64encode(png).decode()
        block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
        return {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": [block]}]}

    small = est.estimate_anthropic_body(body(_png(100, 100)))
    large = est.estimate_anthropic_body(body(_png(1000, 1000)))
    assert large - small == est.anthropic_image_tokens(1000, 1000) - est.anthropic_image_tokens(100, 100)


def test_thinking_of_finished_turns_is_not_counted() -> None:
    """Claude strips the thinking of finished turns, but keeps it in a tool-use loop."""
    thinking = {"type": "thinking", "thinking": "word " * 500, "signature": "sig"}
    finished = {"model": "claude-sonnet-4-5", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [thinking, {"type": "text", "text": "hello"}]},
        {"role": "user", "content": "again"}]}
    looping = {"model": "claude-sonnet-4-5", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [thinking, {"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]}
    assert est.estimate_anthropic_body(finished) < 40
    assert est.estimate_anthropic_body(looping) > 500


def test_malformed_bodies_estimate_without_raising() -> None:
    """Odd shapes (non-dict blocks, missing keys) are counted as text, never a crash."""
    assert est.estimate_anthropic_body({"messages": ["raw", {"content": [1, None]}]}) > 0
    assert est.estimate_openai_chat_body({"messages": [{"content": [{"type": "x"}]}], "tools": [1]}) > 0
    assert est.estimate_openai_responses_body({"input": "hello"}) > 0
    assert est.estimate_google_body({"contents": [{"parts": [{"inlineData": {"mimeType": "image/png"}}]}]}) > 0


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "content", "parts", "messages", "input", "contents", "tools",
                         "source", "data", "text", "image_url", "inlineData", "file", "role",
                         "system", "functionDeclarations", "thoughtSignature", "x"]),
        inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=examples(150), deadline=None)
@given(body=st.dictionaries(st.sampled_from(["model", "messages", "input", "contents", "tools",
                                             "system", "systemInstruction", "instructions",
                                             "tool_choice", "thinking", "response_format",
                                             "output_format", "text"]), _JSON, max_size=6))
def test_every_estimator_takes_any_json_body(body: dict[str, object]) -> None:
    """Whatever JSON shape a body has, each estimator returns a positive count and never raises."""
    for estimate in (est.estimate_anthropic_body, est.estimate_openai_chat_body,
                     est.estimate_openai_responses_body, est.estimate_google_body):
        assert estimate(body) >= 1


@settings(max_examples=examples(600), deadline=None)
@given(prefix=st.sampled_from([b"", b"\x89PNG\r\n\x1a\n", b"GIF89a", b"RIFF\x00\x00\x00\x00WEBPVP8X",
                               b"RIFF\x00\x00\x00\x00WEBPVP8 ", b"RIFF\x00\x00\x00\x00WEBPVP8L",
                               b"\xff\xd8", b"%PDF-1.4", b"ID3\x04", b"RIFF\x00\x00\x00\x00WAVE",
                               b"\x00\x00\x00\x18ftypisom", b"\x1a\x45\xdf\xa3", b"fLaC",
                               b"OggS", b"FORM\x00\x00\x00\x00AIFF", b"RIFF\x00\x00\x00\x00AVI ",
                               b"%PDF-1.4\nstream\nBT (x) Tj ET\nendstream"]),
       tail=st.binary(max_size=64))
def test_header_readers_take_any_bytes(prefix: bytes, tail: bytes) -> None:
    """Truncated or corrupt headers give None or a number, never an exception."""
    from partwire.adapters._estimate._media import pdf_text_chars

    data = prefix + tail
    size = est.image_size(data)
    assert size is None or len(size) == 2
    pages = est.pdf_pages(data)
    assert pages is None or pages >= 0
    chars = pdf_text_chars(data)
    assert chars is None or chars >= 0
    for reader in (est.audio_seconds, est.video_seconds):
        seconds = reader(data)
        assert seconds is None or seconds >= 0


def test_an_anthropic_compaction_block_stands_for_what_it_replaced() -> None:
    """Blocks before the last compaction block are not counted; its summary is (compaction docs)."""
    history = [{"role": "user", "content": "word " * 5000},
               {"role": "assistant", "content": "answer " * 3000}]
    summary = "The user asked about words; the assistant answered at length."
    compacted = {"role": "assistant", "content": [
        {"type": "compaction", "content": summary}, {"type": "text", "text": "Go on."}]}
    ask = {"role": "user", "content": "And now?"}
    body = {"model": "claude-sonnet-4-5", "messages": [*history, compacted, ask]}
    alone = {"model": "claude-sonnet-4-5", "messages": [compacted, ask]}
    assert est.estimate_anthropic_body(body) == est.estimate_anthropic_body(alone)
    assert est.estimate_anthropic_body(alone) < 60
    # A failed compaction (null content) is a no-op to the API: the history counts again.
    failed = {"role": "assistant", "content": [{"type": "compaction", "content": None}]}
    assert est.estimate_anthropic_body(
        {"model": "claude-sonnet-4-5", "messages": [*history, failed, ask]}) > 8000


def test_a_responses_compaction_item_stands_for_the_items_before_it() -> None:
    """Items before the latest compaction item are not counted; its ciphertext is, at 13 a token."""
    before = [{"role": "user", "content": "word " * 5000},
              {"type": "message", "role": "assistant",
               "content": [{"type": "output_text", "text": "answer " * 3000}]}]
    compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": "g" * 1300}
    after = [{"role": "user", "content": "And now?"}]
    whole = est.estimate_openai_responses_body({"model": "gpt-5", "input": [*before, compaction, *after]})
    alone = est.estimate_openai_responses_body({"model": "gpt-5", "input": [compaction, *after]})
    assert whole == alone
    assert 100 < alone < 130  # 1,300 characters / 13 + framing and the question


def test_video_and_audio_durations_from_their_containers() -> None:
    """MP4 (mvhd), WebM (Segment Info Duration), AVI (avih), FLAC and MP3 with a Xing count."""
    def box(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", 8 + len(body)) + kind + body

    mvhd = struct.pack(">B3xIIII", 0, 0, 0, 600, 600 * 12) + bytes(80)
    mp4 = box(b"ftyp", b"isom\x00\x00\x02\x00") + box(b"moov", box(b"mvhd", mvhd))
    assert est.video_seconds(mp4) == 12.0
    assert est.audio_seconds(mp4) == 12.0  # an M4A is the same container
    duration = b"\x44\x89\x88" + struct.pack(">d", 7500.0)  # ms, at the default scale
    info = b"\x15\x49\xa9\x66" + bytes([0x80 | len(duration)]) + duration
    webm = b"\x1a\x45\xdf\xa3\x80" + b"\x18\x53\x80\x67\x01\x00\x00\x00\x00\x00\x00" \
        + bytes([len(info)]) + info
    assert est.video_seconds(webm) == 7.5
    avih = b"avih" + struct.pack("<IIIIII", 56, 40_000, 0, 0, 0, 250)  # 25 fps, 250 frames
    avi = b"RIFF\x00\x00\x00\x00AVI LIST\x00\x00\x00\x00hdrl" + avih
    assert est.video_seconds(avi) == 10.0
    streaminfo = bytes(10) + (44100 << 44 | 2 << 41 | 15 << 36 | 441_000).to_bytes(8, "big")
    assert est.audio_seconds(b"fLaC" + bytes(4) + streaminfo) == 10.0
    frame = b"\xff\xfb\x54\xc0" + bytes(32) + b"Xing" + struct.pack(">II", 1, 125)
    assert est.audio_seconds(frame + bytes(400)) == 125 * 1152 / 48000


def test_a_compacted_history_is_estimated_by_its_summary_through_the_adapters() -> None:
    """A history read from a request with a compaction costs its summary, not what it replaced."""
    from partwire.adapters import get_adapter

    long = "word " * 3000
    anthropic = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
        {"role": "user", "content": long},
        {"role": "assistant", "content": [
            {"type": "compaction", "content": "Summary: the user sent many words."},
            {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "and?"}]}
    responses = {"model": "gpt-5", "input": [
        {"role": "user", "content": long},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "g" * 1300},
        {"role": "user", "content": "and?"}]}
    for name, body in (("anthropic", anthropic), ("openai_responses", responses)):
        adapter = get_adapter(name)
        history = adapter.from_wire_request(body).history
        estimate = adapter.estimate_input_tokens(history, model=str(body["model"]))
        assert 0 < estimate < 200, (name, estimate)  # the replaced text alone is 3,000 tokens
