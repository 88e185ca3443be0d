"""``positions.format_path`` and ``parse_path``: how a path is written in findings, and back."""

from __future__ import annotations

import pytest

from linter.positions import PathT, format_path, parse_path


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (("spec", "containers", 0, "image"), "spec.containers[0].image"),
        (("resources", "limits", "nvidia.com/gpu"), "resources.limits['nvidia.com/gpu']"),
        (("labels", "app.kubernetes.io/name"), "labels['app.kubernetes.io/name']"),
        (("env", "HF_TOKEN-x/y_z"), "env.HF_TOKEN-x/y_z"),
        (("a", "_"), "a._"),
        (("a", ""), "a['']"),
        (("a", "with space"), "a['with space']"),
        (("modèle", "größe"), "modèle.größe"),
        (("x:y",), "['x:y']"),
        ((0, "a"), "[0].a"),
    ],
)
def test_a_path_is_written_dotted_with_other_keys_quoted(path: PathT, text: str) -> None:
    assert format_path(path) == text
    assert parse_path(text) == path
