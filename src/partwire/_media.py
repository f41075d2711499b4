"""Media sniffing: the media type of base64 data from its first bytes, its bytes, and base64
data URLs."""

from __future__ import annotations

import base64
import binascii
import re

__all__ = ["data_url", "decode_base64", "parse_data_url", "sniff_media_type"]


_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


def sniff_media_type(data_b64: str) -> str | None:
    """The media type of base64 data, from its first bytes; ``None`` when not recognised."""
    try:
        head = base64.b64decode(data_b64[:64] + "=" * (-len(data_b64[:64]) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None
    for magic, media_type in _MAGIC:
        if head.startswith(magic):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def decode_base64(data_b64: str) -> bytes | None:
    """The bytes of base64 text, or ``None`` when it is not valid base64."""
    try:
        return base64.b64decode(data_b64, validate=True)
    except (binascii.Error, ValueError):
        return None


# Only the plain "data:<type>;base64,<data>" form is taken apart; any other data URL (with
# parameters, or not base64) stays a URL, so it is sent back exactly as it came.
_DATA_URL = re.compile(r"data:([a-zA-Z0-9][a-zA-Z0-9.+-]*/[a-zA-Z0-9][a-zA-Z0-9.+-]*);base64,", re.ASCII)


def data_url(media_type: str, data: str) -> str:
    """A base64 data URL."""
    return f"data:{media_type};base64,{data}"


def parse_data_url(url: str) -> tuple[str, str] | None:
    """``(media_type, base64 data)`` of a plain base64 data URL, else ``None``."""
    if not url.startswith("data:"):
        return None
    match = _DATA_URL.match(url)
    if match is None:
        return None
    return match.group(1), url[match.end():]
