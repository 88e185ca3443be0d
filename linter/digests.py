"""The one digest of servelint's cache folder: the checksum of an entry, the key in an
entry's name, the digest of a piece stored in an entry.

BLAKE2b (32 bytes) from CPython's own implementation: importing ``hashlib`` loads
OpenSSL's libcrypto to offer SHA-2 (2 to 3 ms, about 2 % of a pre-commit run), while
BLAKE2 is built into the interpreter, as collision resistant and faster in software. A
Python built without it takes hashlib's SHA-256, also 32 bytes: its keys and checksums
differ, so the entries written by the other are not read (and are rebuilt).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SIZE = 32  # bytes of a digest


def _digest_function() -> Callable[[bytes | memoryview], Any]:
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python without its BLAKE2 module
        import hashlib

        return hashlib.sha256
    return lambda data: blake2b(data, digest_size=SIZE)


_new = _digest_function()


def new(data: bytes | memoryview = b"") -> Any:
    """A digest to feed piece by piece (``update``, then ``digest`` or ``hexdigest``)."""
    return _new(data)


def digest(data: bytes | memoryview) -> bytes:
    result: bytes = _new(data).digest()
    return result


def hexdigest(data: bytes | memoryview) -> str:
    result: str = _new(data).hexdigest()
    return result
