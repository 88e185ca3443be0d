"""The one digest of servelint's cache folder: the checksum of an entry, the key in an
entry's name, the digest of a piece stored in an entry.

BLAKE2b (32 bytes) from CPython's own implementation: importing ``hashlib`` loads
OpenSSL's libcrypto to offer SHA-2 (2 to 3 ms, about 2 % of a pre-commit run), while
BLAKE2 is built into the interpreter, as collision resistant and faster in software. An
interpreter without CPython's module takes hashlib's BLAKE2b, the same function.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - not CPython
    from hashlib import blake2b

SIZE = 32  # bytes of a digest


def new(data: bytes | memoryview = b"") -> blake2b:
    """A digest to feed piece by piece (``update``)."""
    return blake2b(data, digest_size=SIZE)


def digest(data: bytes | memoryview) -> bytes:
    return blake2b(data, digest_size=SIZE).digest()


def hexdigest(data: bytes | memoryview) -> str:
    return blake2b(data, digest_size=SIZE).hexdigest()
