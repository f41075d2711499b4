"""Media parts take ``url=`` or ``file=`` for short, and loading never goes through it."""

from __future__ import annotations

import pytest

from partwire import AudioPart, DocumentPart, ImagePart
from partwire.codec import dumps, loads
from partwire.errors import ArgumentError
from partwire.messages import UserMessage
from partwire.parts import FileRefSource, UrlSource


def test_a_url_gives_a_url_source_and_a_guessed_media_type() -> None:
    """``ImagePart(url=...)`` is an image with a UrlSource, its media type guessed from the name."""
    part = ImagePart(url="https://example.com/cat.png?size=2")
    assert part.source == UrlSource(url="https://example.com/cat.png?size=2")
    assert part.media_type == "image/png"


def test_a_file_gives_a_file_reference() -> None:
    """``file=`` gives a FileRefSource with the path; a given media type wins over the guess."""
    assert DocumentPart(file="specs/api.pdf") == DocumentPart(source=FileRefSource(path="specs/api.pdf"),
                                                              media_type="application/pdf")
    assert AudioPart(file="clip.bin", media_type="audio/wav").media_type == "audio/wav"


def test_the_shorthand_refuses_two_sources() -> None:
    """``url=`` with ``file=`` (or with ``source=``) raises ArgumentError naming the part."""
    with pytest.raises(ArgumentError, match="ImagePart: source: give one of"):
        ImagePart(url="https://example.com/a.png", file="a.png")
    with pytest.raises(ArgumentError, match="a URL or a path"):
        ImagePart(url=3)


def test_a_part_made_by_the_shorthand_round_trips() -> None:
    """A history holding shorthand parts dumps and loads back equal."""
    history = [UserMessage([ImagePart(url="https://example.com/cat.jpg"), "what is it?"])]
    assert loads(dumps(history)) == history
