"""Packaged YAML (catalogues, profiles) read through a JSON entry in the cache folder:
the same data as the YAML, an edited file read again, a damaged or foreign entry never
used."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from linter import _resources


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("SERVELINT_NO_CACHE", raising=False)
    return home / "servelint"


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("data-*.json"))


def test_entry_written_then_used(cache_home: Path, tmp_path: Path) -> None:
    source = tmp_path / "models.yaml"
    source.write_text("models:\n  llama: {parameters: 8030261248, aliases: [a, b]}\n")
    first = _resources.packaged_yaml(source)
    assert first == {"models": {"llama": {"parameters": 8030261248, "aliases": ["a", "b"]}}}
    [entry] = _entries(cache_home)
    assert entry.read_bytes().startswith(_resources._YAML_MAGIC)
    # The entry, not the YAML, answers the second read: change the entry's data (with a
    # valid checksum) and the change shows.
    from linter.cachefolder import write_checked

    write_checked(entry, _resources._YAML_MAGIC, b'{"models": {}}', 16)
    assert _resources.packaged_yaml(source) == {"models": {}}


def test_edited_file_is_read_again(cache_home: Path, tmp_path: Path) -> None:
    source = tmp_path / "gpus.yaml"
    source.write_text("gpus: {L4: {memory: 24}}\n")
    assert _resources.packaged_yaml(source) == {"gpus": {"L4": {"memory": 24}}}
    source.write_text("gpus: {L4: {memory: 23}}\n")
    assert _resources.packaged_yaml(source) == {"gpus": {"L4": {"memory": 23}}}
    assert len(_entries(cache_home)) == 2


def test_damaged_entry_is_ignored_and_rewritten(cache_home: Path, tmp_path: Path) -> None:
    source = tmp_path / "p.yaml"
    source.write_text("a: 1\n")
    _resources.packaged_yaml(source)
    [entry] = _entries(cache_home)
    entry.write_bytes(entry.read_bytes()[:-3])  # truncated: the checksum no longer matches
    assert _resources.packaged_yaml(source) == {"a": 1}
    assert entry.read_bytes().endswith(b'{"a":1}')


def test_entry_others_may_write_is_not_used(cache_home: Path, tmp_path: Path) -> None:
    source = tmp_path / "p.yaml"
    source.write_text("a: 1\n")
    _resources.packaged_yaml(source)
    [entry] = _entries(cache_home)
    from linter.cachefolder import write_checked

    write_checked(entry, _resources._YAML_MAGIC, b'{"a": 2}', 16)
    os.chmod(entry, 0o666)
    assert _resources.packaged_yaml(source) == {"a": 1}


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("1: one\n", {1: "one"}),  # JSON would make the key a string
        ("when: 2024-01-02\n", {"when": datetime.date(2024, 1, 2)}),  # JSON has no date
    ],
)
def test_data_json_would_change_is_not_stored(
    cache_home: Path, tmp_path: Path, text: str, data: object
) -> None:
    source = tmp_path / "p.yaml"
    source.write_text(text)
    assert _resources.packaged_yaml(source) == data
    assert _resources.packaged_yaml(source) == data
    assert _entries(cache_home) == []


def test_no_cache_reads_yaml(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SERVELINT_NO_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    source = tmp_path / "p.yaml"
    source.write_text("a: [1, 2]\n")
    assert _resources.packaged_yaml(source) == {"a": [1, 2]}
    assert not (tmp_path / "xdg").exists()


def test_packaged_catalogue_same_through_entry(cache_home: Path) -> None:
    catalogue = _resources.builtin_catalogue() / "models.yaml"
    import yaml

    expected = yaml.safe_load(catalogue.read_text(encoding="utf-8"))
    assert _resources.packaged_yaml(catalogue) == expected  # stored
    assert _resources.packaged_yaml(catalogue) == expected  # read from the entry
