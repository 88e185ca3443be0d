"""The depth check of the API server's answers (``linter.sources.kube._nesting``) against
a byte-by-byte reference: the same depth for every valid JSON text; any other text is
refused, deep or not."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from linter.sources import kube
from linter.sources.kube import _MAX_JSON_DEPTH, RequestFailed, _json_object, _nesting


def _reference(data: bytes) -> int:
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


_TRICKY = st.text(alphabet='[]{}"\\/an\u00e9', max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=4),
    max_leaves=30,
)


@given(_JSON, st.booleans(), st.sampled_from([1, 2, 3, 7, 1 << 20]))
def test_the_depth_is_the_reference_depth_for_any_json(
    value: object, ascii_only: bool, window: int
) -> None:
    """Whatever the window: strings and escapes that cross a window's edge included."""
    data = json.dumps(value, ensure_ascii=ascii_only).encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kube, "_WINDOW", window)
        assert _nesting(data) == _reference(data)


def test_a_long_list_of_short_strings_is_checked_in_little_memory() -> None:
    # 16 MiB of "", : split at its quotes whole, the pieces took 470 MB.
    data = b"[" + b'"",' * (16 * 2**20 // 3) + b'""]'
    tracemalloc.start()
    try:
        assert _nesting(data) == 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MB"


def test_brackets_in_strings_and_escaped_quotes_do_not_count() -> None:
    data = json.dumps({"a": ["[[[{", {"b": 'x\\"[[[', "c": [1, [2]]}]}).encode()
    assert _nesting(data) == 5
    assert _nesting(b'{"unterminated": "[[[[') == 1
    assert _nesting(b"") == 0


def test_an_answer_nested_beyond_the_limit_is_refused_before_it_is_parsed() -> None:
    deep = b"[" * (_MAX_JSON_DEPTH + 1) + b"]" * (_MAX_JSON_DEPTH + 1)
    try:
        _json_object(deep, "the pod list")
    except RequestFailed as failure:
        assert (failure.reason, failure.message) == (
            "invalid",
            "the pod list: the answer is nested too deeply to be an object",
        )
    else:
        raise AssertionError("a too deep answer was accepted")
    assert _json_object(b'{"items": [[[]]]}', "the pod list") == {"items": [[[]]]}
    for broken in (b"[" * 5000, b'"' + b"[" * 5000, b'{"a": "\\' + b"[" * 5000):
        try:
            _json_object(broken, "the pod list")
        except RequestFailed as failure:
            assert failure.reason == "invalid"
        else:
            raise AssertionError("a broken answer was accepted")
