"""``lazy_compile``: a pattern compiled on its first use, answering as the compiled one."""

from __future__ import annotations

import re

import pytest

from linter import lazyregex
from linter.lazyregex import lazy_compile


def test_compiled_on_first_use_only(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = re.compile

    def spy(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(lazyregex.re, "compile", spy)
    pattern = lazy_compile(r"(?P<n>\d+)(ms|s)", re.IGNORECASE)
    assert compiled == []
    assert repr(pattern) == r"lazy_compile('(?P<n>\\d+)(ms|s)', re.IGNORECASE)"
    found = pattern.search("wait 90MS")
    assert found is not None and found["n"] == "90"
    assert compiled == [r"(?P<n>\d+)(ms|s)"]
    assert pattern.fullmatch("5s") is not None and pattern.sub("#", "1s 2ms") == "# #"
    assert (pattern.groups, pattern.groupindex["n"], pattern.pattern) == (2, 1, r"(?P<n>\d+)(ms|s)")
    assert compiled == [r"(?P<n>\d+)(ms|s)"]  # once


@pytest.mark.parametrize("text", ["", "a1b22", "no digits", "1\n22\n333"])
def test_every_method_answers_as_the_compiled_pattern(text: str) -> None:
    lazy, compiled = (
        lazy_compile(r"^\d+|(\d)(\d)", re.MULTILINE),
        re.compile(r"^\d+|(\d)(\d)", re.M),
    )
    for method, args in [
        ("match", ()),
        ("fullmatch", ()),
        ("search", ()),
        ("findall", ()),
        ("split", ()),
        ("sub", ("-",)),
        ("subn", ("-",)),
    ]:
        if method in ("sub", "subn"):
            got, want = getattr(lazy, method)(*args, text), getattr(compiled, method)(*args, text)
        else:
            got, want = getattr(lazy, method)(text), getattr(compiled, method)(text)
        if isinstance(want, re.Match):
            assert isinstance(got, re.Match) and got.span() == want.span(), method
        else:
            assert got == want, method
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.flags == compiled.flags


def test_copied_and_pickled_as_a_pattern_to_compile() -> None:
    import copy
    import pickle

    for used in (False, True):
        pattern = lazy_compile(r"a(b+)")
        if used:
            assert pattern.search("xabb") is not None
        for other in (
            copy.copy(pattern),
            copy.deepcopy(pattern),
            pickle.loads(pickle.dumps(pattern)),
        ):
            assert repr(other) == "lazy_compile('a(b+)', 0)"
            found = other.search("abbb")
            assert found is not None and found.group(1) == "bbb"
