"""merge_values: Helm's merge rules, and where every merged value came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.helm.strvals import SetError, check_set, typed_value
from linter.helm.values import (
    Clash,
    ValuesError,
    load_values,
    merge_values,
    values_document,
)
from linter.parsing.documents import parse_yaml
from linter.positions import Origin

CHART = """\
replicaCount: 1
vllm:
  model: meta-llama/Llama-3.1-8B-Instruct
  maxModelLen: 8192
  extraArgs: [--enable-prefix-caching]
resources:
  limits:
    memory: 32Gi
"""
PROD = """\
vllm:
  maxModelLen: 131072
resources:
  limits:
    memory: null
"""


def doc(name: str, text: str):  # type: ignore[no-untyped-def]
    return values_document(name, parse_yaml(name, text).documents)


def test_later_file_wins_and_points_at_the_environment_file() -> None:
    merged = merge_values(doc("values.yaml", CHART), [doc("values-prod.yaml", PROD)])
    assert merged.data == {
        "replicaCount": 1,
        "vllm": {
            "model": "meta-llama/Llama-3.1-8B-Instruct",
            "maxModelLen": 131072,
            "extraArgs": ["--enable-prefix-caching"],
        },
        "resources": {"limits": {}},
    }
    assert merged.locate(("vllm", "maxModelLen")) == Origin(
        "values-prod.yaml", 2, 3, 0, "vllm.maxModelLen"
    )
    assert merged.locate(("vllm", "model")) == Origin("values.yaml", 3, 3, 0, "vllm.model")
    assert merged.locate(("vllm", "extraArgs", 0)) == Origin(
        "values.yaml", 5, 15, 0, "vllm.extraArgs[0]"
    )
    assert merged.clashes == ()


def test_locate_falls_back_to_the_nearest_ancestor_then_the_anchor() -> None:
    merged = merge_values(doc("values.yaml", CHART), [doc("values-prod.yaml", PROD)])
    assert merged.locate(("vllm", "maxModelLen", "deeper")) == Origin(
        "values-prod.yaml", 2, 3, 0, "vllm.maxModelLen"
    )
    assert merged.locate(("nothing", "here")) == Origin("values.yaml", 1, 1)
    assert merged.anchor == Origin("values.yaml", 1, 1)


def test_set_values_point_at_the_argument() -> None:
    merged = merge_values(
        doc("values.yaml", CHART), [], ["replicaCount=2", "image.tag=v1,vllm.maxModelLen=4096"]
    )
    assert merged.data["vllm"]["maxModelLen"] == 4096
    assert merged.data["image"] == {"tag": "v1"}
    assert merged.locate(("replicaCount",)) == Origin("<--set>", 1, 1, 0, "replicaCount")
    assert merged.locate(("image", "tag")) == Origin("<--set>", 2, 1, 0, "image.tag")
    assert merged.locate(("vllm", "maxModelLen")) == Origin("<--set>", 2, 14, 0, "vllm.maxModelLen")
    # the map itself still comes from the chart: only one key was set
    assert merged.locate(("vllm",)) == Origin("values.yaml", 2, 1, 0, "vllm")


def test_lists_replace_and_set_indexes_extend_with_nulls() -> None:
    merged = merge_values(
        doc("values.yaml", CHART),
        [doc("a.yaml", "vllm:\n  extraArgs: [--x]\n")],
        ["vllm.extraArgs[2]=--y"],
    )
    assert merged.data["vllm"]["extraArgs"] == ["--x", None, "--y"]
    assert merged.locate(("vllm", "extraArgs", 0)) == Origin(
        "a.yaml", 2, 15, 0, "vllm.extraArgs[0]"
    )
    assert merged.locate(("vllm", "extraArgs", 2)) == Origin(
        "<--set>", 1, 1, 0, "vllm.extraArgs[2]"
    )


def test_null_deletes_a_chart_default_but_stays_for_a_new_key() -> None:
    merged = merge_values(doc("values.yaml", CHART), [doc("a.yaml", "vllm: null\nextra: null\n")])
    assert merged.data == {
        "replicaCount": 1,
        "extra": None,
        "resources": {"limits": {"memory": "32Gi"}},
    }


def test_map_replaced_by_a_string_is_reported_as_a_clash() -> None:
    merged = merge_values(doc("values.yaml", CHART), [doc("a.yaml", "resources: big\n")])
    assert merged.data["resources"] == "big"
    assert merged.clashes == (
        Clash(
            ("resources",),
            Origin("a.yaml", 1, 1, 0, "resources"),
            Origin("values.yaml", 6, 1, 0, "resources"),
            "resources is a string here but a map in the chart's values (values.yaml:6:1); "
            "Helm keeps this value and warns",
        ),
    )


def test_no_chart_values_means_files_only() -> None:
    merged = merge_values(None, [doc("a.yaml", "x: 1\n")], ["y=true"])
    assert merged.data == {"x": 1, "y": True}
    assert merged.anchor == Origin("a.yaml", 1, 1)


def test_a_set_into_a_string_names_where_the_string_was_set() -> None:
    with pytest.raises(ValuesError) as caught:
        merge_values(
            doc("values.yaml", CHART),
            [doc("a.yaml", "image: plain\n")],
            ["replicaCount=2", "image.tag=v1"],
        )
    assert str(caught.value) == (
        "--set 'image.tag=v1' (column 1): 'image' is a string (set at a.yaml:1:1), not a map"
    )
    assert caught.value.origin == Origin("<--set>", 2, 1)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("FALSE", False),
        ("Null", None),
        ("0", 0),
        ("42", 42),
        ("-7", -7),
        ("+3", 3),
        ("0755", "0755"),
        ("1.5", "1.5"),
        ("1_000", "1_000"),
        (" 1", " 1"),
        ("9223372036854775807", 9223372036854775807),
        ("9223372036854775808", "9223372036854775808"),
        ("", ""),
        ("yes", "yes"),
    ],
    ids=lambda v: repr(v),
)
def test_typed_value_as_helm_types_it(text: str, value: object) -> None:
    assert typed_value(text) == value
    assert type(typed_value(text)) is type(value)


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("a", "--set 'a' (column 1): key 'a' has no value"),
        ("x=1,a.b", "--set 'x=1,a.b' (column 5): key 'b' has no value"),
        ("a[x]=1", "--set 'a[x]=1' (column 1): error parsing index: 'x' is not an integer"),
        ("a={x", "--set 'a={x' (column 1): list must terminate with '}'"),
        ("a[1]b=2", "--set 'a[1]b=2' (column 1): unexpected data at end of array index: 'b'"),
        (
            "a[70000]=1",
            "--set 'a[70000]=1' (column 1): index of 70000 is greater than maximum "
            "supported index of 65536",
        ),
    ],
)
def test_set_syntax_errors(argument: str, message: str) -> None:
    with pytest.raises(SetError) as caught:
        check_set(argument)
    assert str(caught.value) == message


def test_values_file_that_is_a_list_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "values.yaml"
    path.write_text("# a list\n- a\n- b\n", encoding="utf-8")
    with pytest.raises(ValuesError) as caught:
        load_values(path, "values.yaml")
    assert str(caught.value) == (
        "values.yaml:2:1: a values file must be a map of keys to values, not a list"
    )


def test_empty_values_file_is_an_empty_map(tmp_path: Path) -> None:
    path = tmp_path / "values.yaml"
    path.write_text("# nothing yet\n", encoding="utf-8")
    assert load_values(path).data == {}


def test_unparsable_values_file(tmp_path: Path) -> None:
    path = tmp_path / "values.yaml"
    path.write_text("a: [1,\n", encoding="utf-8")
    with pytest.raises(ValuesError) as caught:
        load_values(path, "v.yaml")
    assert str(caught.value).startswith("v.yaml:2:1: invalid YAML: ")
