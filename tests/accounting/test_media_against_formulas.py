"""An image, a PDF, an audio clip and a video, each sent to every API that takes it, are estimated
within 25% of the count that API's documented formula gives (issue 23).

The media are made here with the standard library: a PNG with real pixel rows (zlib), a PDF of
three pages whose text is in Flate-compressed content streams, a WAV clip (``wave``), and an MP4
container (``ftyp`` / ``moov`` / ``mvhd`` / ``mdat`` boxes) whose header says five seconds. Each
goes through the adapter's own ``estimate_input_tokens`` (the body ``to_wire`` builds), and the
estimate's increase over the same message without the media is compared with the formula.

Documented formulas (each cited where the rule is implemented, docs/accounting.md):

- Claude images: ``w*h/750`` (Anthropic, "Vision": image costs);
- OpenAI images: 85 + 170 per 512-px tile after fitting in 2048 px and scaling the short side
  to 768 (OpenAI, "Images and vision": calculating costs, GPT-4o);
- Gemini images: 258 up to 384x384, else 258 per 768x768 tile (Gemini, "Understand and count
  tokens": images);
- Gemini PDF pages: 258 each (Gemini, "Document understanding");
- Claude PDF pages: its text plus an image of the page, about 1,500 to 3,000 tokens a page
  (Anthropic, "PDF support": estimate your costs); the lower end is the formula for a sparse page;
- audio: 1 token per 100 ms for OpenAI's audio models (OpenAI, "Audio": realtime costs), 32 a
  second for Gemini (Gemini, "Audio understanding");
- Gemini video: 263 a second (258 for the frame at 1 fps, plus its audio; "Video understanding").

OpenAI publishes no per-page count for PDFs (it shows "extracted text and an image of each
page"): its rule is measured on the corpus instead (tests/accounting/test_classes.py).
"""

from __future__ import annotations

import base64
import io
import math
import struct
import wave
import zlib

import pytest

from partwire import (
    AudioPart,
    Base64Source,
    DocumentPart,
    ImagePart,
    TextPart,
    UserMessage,
)
from partwire.adapters import get_adapter
from partwire.adapters.google._tokens import estimate_request_tokens as estimate_gemini_body

TOLERANCE = 0.25
_MODELS = {"anthropic": "claude-sonnet-4-5", "openai_chat": "gpt-4o",
           "openai_responses": "gpt-4o", "google": "gemini-2.5-flash"}


def make_png(width: int, height: int) -> bytes:
    """An RGB PNG of a horizontal gradient (real, decodable pixel rows)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    row = bytes(x % 256 for x in range(width) for _ in range(3))
    pixels = b"".join(b"\x00" + row for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(pixels))
            + chunk(b"IEND", b""))


def make_pdf(pages: list[str]) -> bytes:
    """A PDF with one page per string, each shown in Helvetica from a Flate-compressed stream."""
    objects: list[bytes] = []
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        lines = " T* ".join(f"({line})Tj" for line in text.split("\n"))
        stream = zlib.compress(f"BT /F1 12 Tf 14 TL 72 720 Td {lines} ET".encode())
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i}"
                       f" 0 R /Resources << /Font << /F1 3 0 R >> >> >>".encode())
        objects.append(f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode()
                       + stream + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
              .encode())
    return out.getvalue()


def make_wav(seconds: float, rate: int = 16_000) -> bytes:
    """A mono 16-bit WAV of a 440 Hz tone."""
    out = io.BytesIO()
    with wave.open(out, "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(2)
        clip.setframerate(rate)
        frames = int(seconds * rate)
        clip.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * t / rate)))
                                  for t in range(frames)))
    return out.getvalue()


def make_mp4(seconds: float, timescale: int = 1000) -> bytes:
    """An MP4 container whose movie header (``mvhd``) says ``seconds``; the media data is empty."""
    def box(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", 8 + len(body)) + kind + body

    mvhd = struct.pack(">B3xIIII", 0, 0, 0, timescale, int(seconds * timescale))
    mvhd += struct.pack(">IH10x", 0x00010000, 0x0100) + bytes(36) + bytes(24) + struct.pack(">I", 2)
    return box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2mp41") + box(b"moov", box(b"mvhd", mvhd)) \
        + box(b"mdat", b"")


PAGE_TEXT = ["Quarterly report\nRevenue grew by four percent.\nCosts were flat.",
             "Outlook\nWe expect the same next quarter.",
             "Appendix\nTables follow on request."]


def _increase(adapter: str, part: ImagePart | DocumentPart | AudioPart) -> int:
    """The estimate of a user message with ``part`` minus the same message without it."""
    api = get_adapter(adapter)
    model = _MODELS[adapter]
    question = TextPart(text="What is in the attachment?")
    with_part = api.estimate_input_tokens([UserMessage(parts=[question, part])], model=model)
    without = api.estimate_input_tokens([UserMessage(parts=[question])], model=model)
    return with_part - without


def _b64(data: bytes) -> Base64Source:
    return Base64Source(data=base64.b64encode(data).decode())


def _within(estimate: int, formula: float) -> bool:
    return abs(estimate - formula) <= TOLERANCE * formula


def _gemini_tiles(width: int, height: int) -> int:
    return 258 if width <= 384 and height <= 384 else \
        258 * math.ceil(width / 768) * math.ceil(height / 768)


@pytest.mark.parametrize(("adapter", "formula"), [
    ("anthropic", 800 * 600 / 750),
    # 800x600 fits 2048; the short side scaled to 768 gives 1024x768: 2 x 2 tiles.
    ("openai_chat", 85 + 170 * 4),
    ("openai_responses", 85 + 170 * 4),
    ("google", _gemini_tiles(800, 600)),
])
def test_an_image_is_estimated_by_the_documented_formula(adapter: str, formula: float) -> None:
    """An 800x600 PNG costs within 25% of what each API's image formula gives."""
    part = ImagePart(source=_b64(make_png(800, 600)), media_type="image/png")
    increase = _increase(adapter, part)
    assert _within(increase, formula), (adapter, increase, formula)


@pytest.mark.parametrize(("adapter", "formula"), [
    ("anthropic", 1500 * len(PAGE_TEXT)),
    ("google", 258 * len(PAGE_TEXT)),
])
def test_a_pdf_is_estimated_by_the_documented_formula(adapter: str, formula: float) -> None:
    """A three-page PDF costs within 25% of each API's per-page rule."""
    part = DocumentPart(source=_b64(make_pdf(PAGE_TEXT)), media_type="application/pdf",
                        filename="report.pdf")
    increase = _increase(adapter, part)
    assert _within(increase, formula), (adapter, increase, formula)


def test_the_pdf_text_layer_is_read_from_compressed_streams() -> None:
    """The generated PDF's three pages and the characters of its text are read back."""
    from partwire.adapters import _estimate
    from partwire.adapters._estimate._media import pdf_text_chars

    pdf = make_pdf(PAGE_TEXT)
    assert _estimate.pdf_pages(pdf) == 3
    assert pdf_text_chars(pdf) == sum(len(text.replace("\n", "")) for text in PAGE_TEXT)


@pytest.mark.parametrize(("adapter", "per_second"), [("openai_chat", 10), ("google", 32)])
def test_an_audio_clip_is_estimated_by_the_documented_rate(adapter: str, per_second: int) -> None:
    """A four-second WAV clip costs within 25% of each API's tokens per second."""
    part = AudioPart(source=_b64(make_wav(4.0)), media_type="audio/wav")
    increase = _increase(adapter, part)
    assert _within(increase, 4.0 * per_second), (adapter, increase)


def test_a_video_is_estimated_by_gemini_s_rate() -> None:
    """A five-second MP4 sent to Gemini (the one API here that takes video) costs 263 a second."""
    video = base64.b64encode(make_mp4(5.0)).decode()
    question = {"text": "What happens in the video?"}
    with_video = {"contents": [{"role": "user", "parts": [
        question, {"inlineData": {"mimeType": "video/mp4", "data": video}}]}]}
    without = {"contents": [{"role": "user", "parts": [question]}]}
    increase = estimate_gemini_body(with_video) - estimate_gemini_body(without)
    assert _within(increase, 5 * 263), increase


def test_media_inside_a_gemini_function_response_is_counted_as_media() -> None:
    """An image beside a function's output (Gemini 3) costs its tiles, not its base64 text."""
    image = base64.b64encode(make_png(800, 600)).decode()
    response = {"name": "screenshot", "response": {"output": "done"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": image}}]}
    plain = {"name": "screenshot", "response": {"output": "done"}}
    body = {"contents": [{"role": "user", "parts": [{"functionResponse": response}]}]}
    bare = {"contents": [{"role": "user", "parts": [{"functionResponse": plain}]}]}
    increase = estimate_gemini_body(body) - estimate_gemini_body(bare)
    assert _within(increase, _gemini_tiles(800, 600)), increase
