"""A file's bytes as text to edit, and back: the byte-order mark, the line ending and
whether the file ends with one are kept, so that only the bytes of a fix change."""

from __future__ import annotations

import codecs

from linter.lightclass import frozen

_BOM = codecs.BOM_UTF8.decode("utf-8")


@frozen
class Source:
    """A file's text without its byte-order mark; ``newline`` is what its lines end with."""

    text: str
    bom: bool
    newline: str

    @classmethod
    def decode(cls, data: bytes) -> Source:
        text = data.decode("utf-8")
        bom = text.startswith(_BOM)
        if bom:
            text = text[1:]
        newline = "\r\n" if "\r\n" in text else "\n"
        return cls(text, bom, newline)

    def encode(self, text: str) -> bytes:
        return ((_BOM if self.bom else "") + text).encode("utf-8")

    def lines(self, block: list[str]) -> str:
        """``block``'s lines joined with the file's line ending."""
        return self.newline.join(block)


def line_start(text: str, offset: int) -> int:
    """The offset of the first character of the line holding ``offset``."""
    return text.rfind("\n", 0, offset) + 1


def line_end(text: str, offset: int) -> int:
    """The offset just after the line ending of the line holding ``offset`` (the end of
    the text on its last line)."""
    end = text.find("\n", offset)
    return len(text) if end < 0 else end + 1
