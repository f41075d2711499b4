"""Media sniffing: the media type of base64 data from its first bytes, and its bytes."""

from __future__ import annotations

import base64
import binascii

__all__ = ["decode_base64", "sniff_media_type"]


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
