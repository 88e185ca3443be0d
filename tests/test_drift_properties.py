"""Properties of the comparison: a document never drifts from itself, and the
comparison is symmetric (A against B lists the paths of B against A, statuses swapped)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from linter.drift.compare import SWAPPED, compare
from linter.drift.defaults import SERVERS
from linter.drift.normalize import Options, normalize

# Keys and values chosen to collide across spellings and units, so that normalisation
# (not only equality) is exercised.
KEYS = st.sampled_from(
    [
        "a",
        "b",
        "maxLen",
        "max_len",
        "max-len",
        "HF_TOKEN",
        "timeout",
        "timeoutSeconds",
        "memory",
        "swap_space",
        "env",
        "name",
        "block_size",
        "servedModelName",
        "args",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            "",
            "5m",
            "8Gi",
            "true",
            "False",
            "30s",
            "1.0",
            "1",
            "x",
            "--flag",
            "-1",
            "500m",
            "16",
            "auto",
        ]
    ),
)
TREES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(KEYS, children, max_size=5),
        st.lists(
            st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "C"]), "value": children}),
            max_size=3,
        ),
    ),
    max_leaves=20,
)
DOCUMENTS = st.dictionaries(KEYS, TREES, max_size=6)
TABLES = st.sampled_from([None, "vllm", "tgi"])  # exhaustive tables apply to one side only
OPTIONS = Options(unordered=("a",))


def pairs(desired: Any, live: Any, table: str | None) -> list[tuple[tuple[Any, ...], str]]:
    server = SERVERS[table] if table else None
    found = compare(normalize(desired, OPTIONS), normalize(live, OPTIONS), server)
    return sorted((d.path, d.status) for d in found)


@settings(max_examples=150, deadline=None)
@given(DOCUMENTS, TABLES)
def test_a_document_never_drifts_from_itself(document: dict[str, Any], table: str | None) -> None:
    assert pairs(document, document, table) == []


@settings(max_examples=150, deadline=None)
@given(DOCUMENTS, DOCUMENTS, TABLES)
def test_comparison_is_symmetric(a: dict[str, Any], b: dict[str, Any], table: str | None) -> None:
    forward = pairs(a, b, table)
    backward = pairs(b, a, table)
    assert forward == sorted((path, SWAPPED[status]) for path, status in backward)
