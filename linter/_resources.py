"""Access to the data shipped in the wheel: built-in policies, profiles, catalogues and schemas.

The repository keeps ``policies/``, ``profiles/``, ``catalogue/`` and ``schemas/`` at its
top level; the wheel maps
them into ``linter/_data/`` (see pyproject.toml). A source checkout run in place (or an
editable install) has no ``_data`` folder, so the checkout's top-level folders are used.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


@functools.cache
def data_root() -> Traversable:
    package: Traversable
    here = Path(__file__).parent
    if here.is_dir():
        # An installed or checked-out package is a folder: a plain path serves, and
        # importlib.resources (with tempfile and shutil) stays out of every run (start-up time).
        package = here
    else:  # pragma: no cover - a zipped package
        from importlib import resources

        package = resources.files("linter")
    packaged = package / "_data"
    if packaged.is_dir():
        return packaged
    return package / ".."


def builtin_policies() -> Traversable:
    return data_root() / "policies"


def builtin_profiles() -> Traversable:
    """Chart-layout profiles (``profiles/`` in the repository)."""
    return data_root() / "profiles"


def builtin_catalogue() -> Traversable:
    """The model and GPU catalogues (``catalogue/`` in the repository)."""
    return data_root() / "catalogue"


def schema_file(name: str) -> Traversable:
    return data_root() / "schemas" / name


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_file(name).read_text(encoding="utf-8"))
    return loaded
