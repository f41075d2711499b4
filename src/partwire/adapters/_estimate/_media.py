"""Image sizes, PDF pages, audio and video durations from headers, and the providers' formulas.

Everything is read with the standard library from the first bytes of the data (the headers a
container puts up front), never by decoding pixels or samples: PNG, JPEG, GIF and WebP sizes;
PDF page objects and the text of their content streams; WAV, MP3 (with its Xing / VBRI frame
count), FLAC, Ogg (Vorbis, Opus), AIFF and MP4 / M4A durations; MP4 / MOV, WebM / Matroska and
AVI video durations.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
import zlib
from collections.abc import Callable

from partwire._memo import memo
from partwire.adapters._estimate._guess import (
    UNKNOWN_SECONDS,
    guess_duration,
    guess_image,
    guess_seconds,
)

__all__ = [
    "anthropic_image_tokens",
    "audio_seconds",
    "audio_seconds_b64",
    "audio_seconds_safe",
    "b64_bytes",
    "b64_size",
    "google_image_tokens",
    "image_size",
    "image_tokens",
    "media_seconds_tokens",
    "openai_image_tokens",
    "pdf_info_b64",
    "pdf_pages",
    "pdf_pages_b64",
    "pdf_text_chars",
    "pdf_text_tokens",
    "split_data_url",
    "video_seconds",
    "video_seconds_b64",
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
_MP3_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}


def audio_seconds(data: bytes) -> float | None:
    """The duration of WAV, MP3, FLAC, Ogg, AIFF or MP4 audio from its header, else None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return _wav_seconds(data)
    if data[:4] == b"fLaC" and len(data) >= 26:
        # STREAMINFO: 20 bits of sample rate, then 36 bits of total samples (after the channel
        # and depth bits), at bytes 18..25.
        bits = int.from_bytes(data[18:26], "big")
        rate = bits >> 44
        samples = bits & 0xFFFFFFFFF
        return samples / rate if rate and samples else None
    if data[:4] == b"OggS":
        return _ogg_seconds(data)
    if data[:4] == b"FORM" and data[8:12] in (b"AIFF", b"AIFC"):
        return _aiff_seconds(data)
    if data[4:8] == b"ftyp":
        return _mp4_seconds(data)
    return _mp3_seconds(data)


def _chunks(data: bytes, start: int, little: bool = True) -> list[tuple[bytes, int, int]]:
    """``(id, offset of the body, size)`` of the RIFF (or big-endian IFF) chunks from ``start``."""
    out: list[tuple[bytes, int, int]] = []
    i = start
    while i + 8 <= len(data) and len(out) < 64:
        size = int.from_bytes(data[i + 4 : i + 8], "little" if little else "big")
        out.append((data[i : i + 4], i + 8, size))
        i += 8 + size + (size & 1)
    return out


def _wav_seconds(data: bytes) -> float | None:
    byte_rate = 0
    for chunk, at, size in _chunks(data, 12):
        if chunk == b"fmt " and size >= 12:
            byte_rate = int.from_bytes(data[at + 8 : at + 12], "little")
        elif chunk == b"data" and byte_rate:
            # A streamed WAV may say 0 or 0xFFFFFFFF: the bytes present are what there is.
            present = len(data) - at
            return (size if 0 < size <= present else present) / byte_rate
    return None


def _aiff_seconds(data: bytes) -> float | None:
    for chunk, at, size in _chunks(data, 12, little=False):
        if chunk == b"COMM" and size >= 18:
            frames = int.from_bytes(data[at + 2 : at + 6], "big")
            exponent = int.from_bytes(data[at + 8 : at + 10], "big") & 0x7FFF
            mantissa = int.from_bytes(data[at + 10 : at + 18], "big")
            rate = mantissa * 2.0 ** (exponent - 16383 - 63) if exponent else 0.0
            return frames / rate if rate else None
    return None


def _ogg_seconds(data: bytes) -> float | None:
    """The last page's granule position over the rate in the first page's Vorbis or Opus header."""
    head = data[:512]
    if b"OpusHead" in head:
        rate, skip = 48000, int.from_bytes(head[head.index(b"OpusHead") + 10 :][:2], "little")
    elif b"\x01vorbis" in head:
        at = head.index(b"\x01vorbis") + 12
        rate, skip = int.from_bytes(head[at : at + 4], "little"), 0
    else:
        return None
    last = data.rfind(b"OggS")
    if not rate or last < 0 or last + 14 > len(data):
        return None
    granule = int.from_bytes(data[last + 6 : last + 14], "little")
    return max(0, granule - skip) / rate if granule < 1 << 62 else None


def _mp3_seconds(data: bytes) -> float | None:
    start = 0
    if data[:3] == b"ID3" and len(data) >= 10:
        size = data[6:10]
        start = 10 + ((size[0] << 21) | (size[1] << 14) | (size[2] << 7) | size[3])
    for i in range(start, min(len(data) - 3, start + 8192)):
        if data[i] != 0xFF or data[i + 1] & 0xE0 != 0xE0:
            continue
        version = (data[i + 1] >> 3) & 0x3
        kbps = _MP3_KBPS[0 if version == 3 else 1][data[i + 2] >> 4]
        rates = _MP3_RATES.get(version)
        rate_index = (data[i + 2] >> 2) & 0x3
        if not kbps or rates is None or rate_index == 3:
            continue
        # A variable-bit-rate file says its frame count in a Xing / Info or VBRI header inside
        # the first frame; its first frame's bit rate says nothing of the rest.
        frame = data[i : i + 200]
        samples = 1152 if version == 3 else 576
        for tag in (b"Xing", b"Info"):
            at = frame.find(tag)
            if at >= 0 and len(frame) >= at + 12 and frame[at + 7] & 1:
                frames = int.from_bytes(frame[at + 8 : at + 12], "big")
                return frames * samples / rates[rate_index]
        at = frame.find(b"VBRI")
        if at >= 0 and len(frame) >= at + 18:
            frames = int.from_bytes(frame[at + 14 : at + 18], "big")
            return frames * samples / rates[rate_index]
        return (len(data) - i) * 8 / (kbps * 1000)
    return None


def _boxes(data: bytes, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """``(type, offset of the body, end)`` of the ISO BMFF boxes between ``start`` and ``end``."""
    out: list[tuple[bytes, int, int]] = []
    i = start
    while i + 8 <= end and len(out) < 256:
        size = int.from_bytes(data[i : i + 4], "big")
        kind = data[i + 4 : i + 8]
        body = i + 8
        if size == 1 and i + 16 <= end:
            size = int.from_bytes(data[i + 8 : i + 16], "big")
            body = i + 16
        elif size == 0:
            size = end - i
        if size < 8:
            break
        out.append((kind, body, min(end, i + size)))
        i += size
    return out


def _mp4_seconds(data: bytes) -> float | None:
    """``moov/mvhd`` duration over its time scale (MP4, MOV, M4A, 3GP)."""
    for kind, body, end in _boxes(data, 0, len(data)):
        if kind != b"moov":
            continue
        for inner, at, _ in _boxes(data, body, end):
            if inner != b"mvhd" or at + 32 > len(data):
                continue
            if data[at] == 1:  # version 1: 64-bit times
                scale = int.from_bytes(data[at + 20 : at + 24], "big")
                duration = int.from_bytes(data[at + 24 : at + 32], "big")
            else:
                scale = int.from_bytes(data[at + 12 : at + 16], "big")
                duration = int.from_bytes(data[at + 16 : at + 20], "big")
            return duration / scale if scale and duration not in (0, 0xFFFFFFFF) else None
    return None


def video_seconds(data: bytes) -> float | None:
    """The duration of MP4 / MOV, WebM / Matroska or AVI video from its header, else None."""
    if data[4:8] == b"ftyp" or data[4:8] in (b"moov", b"mdat", b"wide", b"free"):
        return _mp4_seconds(data)
    if data[:4] == b"\x1a\x45\xdf\xa3":
        return _matroska_seconds(data)
    if data[:4] == b"RIFF" and data[8:12] == b"AVI ":
        at = data.find(b"avih")
        if at >= 0 and at + 24 <= len(data):
            per_frame = int.from_bytes(data[at + 8 : at + 12], "little")  # microseconds
            frames = int.from_bytes(data[at + 24 : at + 28], "little")
            return per_frame * frames / 1e6 if per_frame and frames else None
    return None


def _ebml(data: bytes, i: int, *, strip: bool) -> tuple[int, int]:
    """An EBML variable-length integer at ``i``: its value and its length in bytes."""
    first = data[i]
    length = 1
    while length <= 8 and not first & (0x80 >> (length - 1)):
        length += 1
    if length > 8 or i + length > len(data):
        raise ValueError("bad EBML integer")
    value = first & (0xFF >> length) if strip else first
    for byte in data[i + 1 : i + length]:
        value = value << 8 | byte
    return value, length


_MKV_SEGMENT, _MKV_INFO = 0x18538067, 0x1549A966
_MKV_SCALE, _MKV_DURATION = 0x2AD7B1, 0x4489


def _matroska_seconds(data: bytes) -> float | None:
    """``Segment/Info/Duration`` (a float in units of ``TimecodeScale`` nanoseconds)."""
    try:
        i = 0
        scale = 1_000_000
        while i < min(len(data), 1 << 20):
            ident, n = _ebml(data, i, strip=False)
            size, m = _ebml(data, i + n, strip=True)
            body = i + n + m
            if ident in (_MKV_SEGMENT, _MKV_INFO):
                i = body  # descend
                continue
            if ident == _MKV_SCALE:
                scale = int.from_bytes(data[body : body + size], "big") or scale
            elif ident == _MKV_DURATION and size in (4, 8):
                duration = struct.unpack(">f" if size == 4 else ">d", data[body : body + size])[0]
                return float(duration) * scale / 1e9 if duration > 0 else None
            i = body + size
    except (ValueError, IndexError, struct.error):
        return None
    return None


_PDF_STREAM = re.compile(rb"(?<!end)stream\r?\n")
_PDF_TEXT = re.compile(rb"\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>")
_PDF_SHOW = re.compile(rb"BT(.*?)ET", re.DOTALL)


def pdf_text_chars(data: bytes) -> int | None:
    """About how many characters of text a PDF's pages show, or None if it hides them.

    The strings inside the text objects (``BT ... ET``) of its content streams, inflated where
    they are Flate-compressed. A hex string counts half its digits (one byte a character;
    two-byte CID fonts make that an over-count of about two). None when no stream could be read.
    """
    if not data.startswith(b"%PDF"):
        return None
    total = 0
    seen = False
    for match in _PDF_STREAM.finditer(data):
        start = match.end()
        end = data.find(b"endstream", start)
        if end < 0:
            break
        raw = data[start:end]
        dictionary = data[max(0, match.start() - 300) : match.start()]
        if b"/FlateDecode" in dictionary.rsplit(b"obj", 1)[-1]:
            try:
                raw = zlib.decompressobj().decompress(raw, 4_000_000)
            except zlib.error:
                continue
        elif b"/Filter" in dictionary.rsplit(b"obj", 1)[-1]:
            continue  # another filter (an image's DCT, say): not text
        for block in _PDF_SHOW.finditer(raw):
            seen = True
            for text in _PDF_TEXT.finditer(block.group(1)):
                token = text.group()
                total += (len(token) - 2) // 2 if token[:1] == b"<" else len(token) - 2
    return total if seen else None


def anthropic_image_tokens(width: int, height: int) -> int:
    """What Claude bills for an image: whole 28x28-px patches plus 3, after fitting the long edge
    to 1568 px and the area to that of 1092x1092 (published).

    Anthropic publishes ``w*h/750``, the same area in about 27-px units, and it runs 8-20% short
    on small images, whose edges fill part of a patch: billed, a 100x100 PNG costs 19 (the
    formula: 14), a 172x178 JPEG 52 (41). Whole patches plus 3 match every recorded image within
    2%, on both halves of the corpus (docs/accounting.md).
    """
    scale = min(1.0, 1568 / max(width, height, 1), math.sqrt(1092 * 1092 / max(width * height, 1)))
    return math.ceil(width * scale / 28) * math.ceil(height * scale / 28) + 3


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
    """Gemini's published rule: 258 tokens up to 384x384 px, else 258 per 768x768 tile.

    Not tiles of a crop unit ``min(w, h) / 1.5``: Gemini 2.5 Flash billed a 512x512 JPEG and a
    550x368 WebP 258 each (Mirascope's recordings, tests/corpus/google), where crop units give
    1,032 and 1,548.
    """
    if width <= 384 and height <= 384:
        return 258
    return 258 * math.ceil(width / 768) * math.ceil(height / 768)


def image_tokens(payload: str | None, key: str | None, formula: Callable[[int, int], float],
                 rule: tuple[str, ...], floor: float | None = None) -> float:
    """``formula``'s tokens for an image: its size read from ``payload``'s header, else a guess.

    ``key`` is the image's URL or file id when the request holds no bytes; an inline image
    whose header cannot be read is guessed under its payload.
    """
    if payload:
        size = image_size(b64_bytes(payload, _HEADER_BYTES))
        if size is not None:
            return formula(*size)
        key = payload
    return guess_image(key, formula, rule, floor)


def pdf_pages_b64(payload: str | None) -> int:
    return pdf_info_b64(payload)[0]


# What a payload was found to hold, by the payload string itself: an agent estimates the same
# history (the same string objects, whose hash Python keeps) before every call, and reading a
# PDF or a video again each time would cost more than counting the rest of the request.
_INFO: dict[str, tuple[int, int]] = memo({})
_INFO_LIMIT = 256


def pdf_info_b64(payload: str | None) -> tuple[int, int]:
    """``(pages, characters of text)`` of a base64 PDF; one page and no text when unreadable."""
    if not payload:
        return (1, 0)
    known = _INFO.get(payload)
    if known is not None:
        return known
    data = b64_bytes(payload)
    pages = pdf_pages(data)
    # A PDF whose pages hide in compressed object streams: about 60 kB a page.
    found = (pages or max(1, b64_size(payload) // 60_000), pdf_text_chars(data) or 0)
    if len(_INFO) >= _INFO_LIMIT:
        _INFO.clear()
    _INFO[payload] = found
    return found


# Durations read from payloads, remembered like _INFO (a clip is decoded whole to be read), with
# whether the header said it (False: the length was taken from the payload's size).
_SECONDS: dict[str, tuple[float, bool]] = memo({})
# Audio whose container cannot be read is taken at 16 kB a second (128 kbit/s); video at 250 kB
# a second (about 2 Mbit/s, a typical 720p H.264 upload).
_AUDIO_BYTES_PER_SECOND = 16_000
_VIDEO_BYTES_PER_SECOND = 250_000


def _read_seconds(payload: str, video: bool) -> tuple[float, bool]:
    known = _SECONDS.get(payload)
    if known is None:
        data = b64_bytes(payload)
        try:
            seconds = video_seconds(data) if video else audio_seconds(data)
        except (ValueError, IndexError, struct.error, OverflowError, ZeroDivisionError):
            seconds = None  # a bad header is an unknown duration, never an error
        if seconds is None and video:
            seconds = audio_seconds_safe(data)
        if seconds is not None and not (0 < seconds < 1e7):
            seconds = None
        if seconds is None:
            rate = _VIDEO_BYTES_PER_SECOND if video else _AUDIO_BYTES_PER_SECOND
            known = (max(1.0, b64_size(payload) / rate), False)
        else:
            known = (seconds, True)
        if len(_SECONDS) >= _INFO_LIMIT:
            _SECONDS.clear()
        _SECONDS[payload] = known
    return known


def audio_seconds_safe(data: bytes) -> float | None:
    """:func:`audio_seconds` that answers None for a header it cannot make sense of."""
    try:
        return audio_seconds(data)
    except (ValueError, IndexError, struct.error, OverflowError, ZeroDivisionError):
        return None


def media_seconds_tokens(payload: str | None, key: str | None, *, video: bool,
                         per_second: float, limit: float, least: float | None = None) -> float:
    """Tokens of audio or video at ``per_second``: its length read from its header, else guessed.

    With no payload (a URI, a file id) the length is the hint's or a minute; with a payload
    whose header cannot be read it is taken from the payload's size. Either is a guess.
    """
    kind = "video" if video else "audio"
    if not payload:
        return guess_duration(key, kind, per_second, limit, least)
    seconds, read = _read_seconds(payload, video)
    if read:
        return math.ceil(per_second * seconds)
    return guess_seconds(payload, kind, seconds, per_second, limit)


def audio_seconds_b64(payload: str | None) -> float:
    """The seconds of base64 audio: from its header, else from its size (128 kbit/s)."""
    return _read_seconds(payload, False)[0] if payload else 0.0


def video_seconds_b64(payload: str | None) -> float:
    """The seconds of base64 video: from its header, else from its size (2 Mbit/s); no data: 60."""
    return _read_seconds(payload, True)[0] if payload else UNKNOWN_SECONDS


# The text layer of a PDF, read as characters, at the o200k rate of English prose.
_PDF_CHARS_PER_TOKEN = 4.0


def pdf_text_tokens(chars: int) -> int:
    """The tokens of a PDF's text layer of ``chars`` characters (o200k units)."""
    return round(chars / _PDF_CHARS_PER_TOKEN)
