"""Weak secrets: values too short or too common to be masked in text.

Masking ``test`` or ``charts`` wherever those letters occur garbles paths and words
(``examples/****/vllm``, ``la****``) without protecting anything: such a value is guessed
in a few tries. A weak value written as a secret is reported on its own line instead
(``secrets/weak-secret``), and masked only where it stands as the secret setting's value.
"""

from __future__ import annotations

# NIST SP 800-63B 5.1.1.2 asks verifiers to refuse memorized secrets shorter than eight
# characters and those found in lists of commonly used or expected values.
MIN_STRONG_LENGTH = 8
# The default and example passwords that charts and tutorials ship, which deployments then
# keep (compared in lower case).
COMMON = frozenset(
    {
        "admin",
        "admin123",
        "administrator",
        "changeit",
        "changeme",
        "change_me",
        "change-me",
        "default",
        "guest",
        "letmein",
        "password",
        "password1",
        "password123",
        "passw0rd",
        "p@ssw0rd",
        "p@ssword",
        "qwerty",
        "qwerty123",
        "root",
        "secret",
        "secret123",
        "test",
        "test123",
        "testing",
        "token",
        "welcome",
        "welcome1",
        "12345678",
        "123456789",
        "1234567890",
    }
)
# A single word (``examples``, ``Password``, ``CHARTS``) is a dictionary value up to this
# length; a longer run of letters is a passphrase.
_WORD_LENGTH = 12


def is_common(value: str) -> bool:
    return value.strip().lower() in COMMON


def is_weak(value: str) -> bool:
    """Shorter than eight characters, a well-known default, or one dictionary-like word."""
    value = value.strip()
    if len(value) < MIN_STRONG_LENGTH or is_common(value):
        return True
    return (
        value.isascii()
        and value.isalpha()
        and len(value) <= _WORD_LENGTH
        and (value.islower() or value.isupper() or value.istitle())
    )
