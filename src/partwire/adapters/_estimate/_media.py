"""Image sizes, PDF pages and audio durations from headers, and the providers' image formulas."""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct

__all__ = [
    "anthropic_image_tokens",
    "audio_seconds",
    "audio_seconds_b64",
    "b64_bytes",
    "b64_size",
    "google_image_tokens",
    "image_dims",
    "image_size",
    "openai_image_tokens",
    "pdf_pages",
    "pdf_pages_b64",
    "split_data_url",
]


# A JPEG's size marker sits after its EXIF block, which may hold a thumbnail: read this much.
_HEADER_BYTES = 96 * 1024
_DATA_URL = re.compile(r"^data:([^;,]*)(?:;[^,]*)?,")


def split_data_url(url: str) -> tuple[str, str] | None:
    """``(media_type, base64 payload)`` of a ``data:`` URL, or None for any other URL."""
    match = _DATA_URL.match(url)
    return (match.group(1), url[match.end():]) if match else None


def b64_bytes(data: str, limit: int | None = None) -> bytes:
    text = data if limit is None else data[: (limit * 4 // 3) // 4 * 4]
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return b""


def b64_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=")


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from a PNG, JPEG, GIF or WebP header, without decoding the pixels."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return (int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1)
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        # Start-of-frame markers (baseline, progressive, lossless...), not DHT/JPG/DAC.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(width), int(height)
        i += 2 + length
    return None


_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_PDF_COUNT = re.compile(rb"/Count\s+(\d+)")


def pdf_pages(data: bytes) -> int | None:
    """The page count of a PDF: its page objects, else its page tree's ``/Count``; None if neither."""
    if not data.startswith(b"%PDF"):
        return None
    pages = len(_PDF_PAGE.findall(data))
    if pages:
        return pages
    counts = [int(n) for n in _PDF_COUNT.findall(data)]
    return max(counts) if counts else None


# MPEG-1 layer III bit rates (kbit/s) by header index; MPEG-2/2.5 use the second row.
_MP3_KBPS = (
    (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0),
    (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0),
)


def audio_seconds(data: bytes) -> float | None:
    """The duration of WAV or MP3 audio from its header (MP3: first frame's bit rate)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE" and len(data) >= 32:
        byte_rate = int.from_bytes(data[28:32], "little")
        return max(0, len(data) - 44) / byte_rate if byte_rate else None
    start = 0
    if data[:3] == b"ID3" and len(data) >= 10:
        size = data[6:10]
        start = 10 + ((size[0] << 21) | (size[1] << 14) | (size[2] << 7) | size[3])
    for i in range(start, min(len(data) - 3, start + 8192)):
        if data[i] == 0xFF and data[i + 1] & 0xE0 == 0xE0:
            version = (data[i + 1] >> 3) & 0x3
            kbps = _MP3_KBPS[0 if version == 3 else 1][data[i + 2] >> 4]
            if kbps:
                return (len(data) - i) * 8 / (kbps * 1000)
    return None



# An image whose size cannot be read (a URL, a file id) is counted as this size.
_UNKNOWN_IMAGE = (512, 512)


def anthropic_image_tokens(width: int, height: int) -> int:
    """Claude's published rule: ``w*h/750`` after fitting the long edge to 1568 px and the
    area to that of 1092x1092 (about 1,600 tokens, the most an image costs)."""
    scale = min(1.0, 1568 / max(width, height, 1), math.sqrt(1092 * 1092 / max(width * height, 1)))
    return max(1, math.ceil(width * scale * (height * scale) / 750))


def openai_image_tokens(width: int, height: int, detail: str | None, model: str) -> int:
    """OpenAI's published rule for ``model``: 32-px patches for the mini/nano models, else tiles."""
    name = model.lower()
    patch = next((m for key, m in _PATCH_MODELS if key in name), None)
    if patch is not None:
        patches = math.ceil(width / 32) * math.ceil(height / 32)
        if patches > 1536:
            shrink = math.sqrt(1536 * 32 * 32 / (width * height))
            patches = min(1536, math.ceil(width * shrink / 32) * math.ceil(height * shrink / 32))
        return math.ceil(patches * patch)
    base, tile = next((bt for key, bt in _TILE_MODELS if key in name), (85, 170))
    if detail == "low":
        return base
    scale = min(1.0, 2048 / max(width, height, 1))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / max(min(w, h), 1))
    tiles = math.ceil(w * scale / 512) * math.ceil(h * scale / 512)
    return base + tile * tiles


_PATCH_MODELS = (("gpt-5-mini", 1.62), ("gpt-5-nano", 2.46), ("gpt-4.1-mini", 1.62),
                 ("gpt-4.1-nano", 2.46), ("o4-mini", 1.72))
_TILE_MODELS = (("gpt-4o-mini", (2833, 5667)), ("o1", (75, 150)), ("o3", (75, 150)),
                ("computer-use", (65, 129)))


def google_image_tokens(width: int, height: int) -> int:
    """Gemini's published rule: 258 tokens up to 384x384 px, else 258 per 768x768 tile."""
    if width <= 384 and height <= 384:
        return 258
    tile = max(256, min(768, min(width, height) / 1.5))
    return 258 * math.ceil(width / tile) * math.ceil(height / tile)


def image_dims(payload: str | None) -> tuple[int, int]:
    if payload:
        size = image_size(b64_bytes(payload, _HEADER_BYTES))
        if size is not None:
            return size
    return _UNKNOWN_IMAGE


def pdf_pages_b64(payload: str | None) -> int:
    if not payload:
        return 1
    pages = pdf_pages(b64_bytes(payload))
    # A PDF whose pages hide in compressed object streams: about 60 kB a page.
    return pages if pages else max(1, b64_size(payload) // 60_000)


def audio_seconds_b64(payload: str | None) -> float:
    if not payload:
        return 0.0
    seconds = audio_seconds(b64_bytes(payload))
    # Unknown containers: 16 kB a second (128 kbit/s).
    return seconds if seconds is not None else b64_size(payload) / 16_000
