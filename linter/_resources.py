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

from linter import digests

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


def stamp(resource: Traversable) -> str:
    """A packaged file's identity in cache keys, never read for it. Installed from a wheel:
    the wheel's own record (``wheel_record``), which holds the SHA-256 of every file of the
    package and which the caches' keys include, so nothing of the file's own. In a
    checkout or an editable install: its size and modification time, which an edit or a
    checkout changes (a zipped package, which has no times to trust, by its content's
    digest instead). Only for servelint's own files: a user's are keyed by their content."""
    if wheel_record() is not None:
        return "in the wheel's record"
    if isinstance(resource, Path):
        found = resource.stat()
        return f"{found.st_size}:{found.st_mtime_ns}"
    return digests.hexdigest(resource.read_bytes())  # pragma: no cover - zipped


@functools.cache
def wheel_record() -> bytes | None:
    """The ``RECORD`` of the wheel servelint was installed from: the path and SHA-256 of
    every file installed, its modules and data included (PEP 376/427). It identifies the
    installed package by content, whatever the installer, the file times (reproducible
    wheels share one; a container image's layers keep only whole seconds) or the path.
    None in a checkout or an editable install, whose record lists no module."""
    from linter import __version__

    return record_of(Path(__file__).parent, __version__)


def record_of(package: Path, version: str) -> bytes | None:
    """The wheel ``RECORD`` beside ``package`` (``linter``) when it lists the package's
    modules (an editable install's lists only its link to the checkout)."""
    record = package.parent / f"servelint-{version}.dist-info" / "RECORD"
    try:
        data = record.read_bytes()
    except OSError:
        return None
    return data if b"linter/__init__.py," in data else None


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


# Packaged YAML kept as JSON in the cache folder: the model catalogue alone takes 10 ms to
# construct from YAML and 0.3 ms to decode from JSON, on every run of the hook.
_YAML_MAGIC = b"servelint-packaged-yaml-json-2\n"
_YAML_KEEP = 16  # the catalogues and profiles of a few installed versions


def packaged_yaml(resource: Traversable) -> Any:
    """The data of a packaged YAML file (catalogue, profile), through a JSON entry in the
    cache folder keyed by the file's bytes: an edited file is read again."""
    raw = resource.read_bytes()
    from linter.cachefolder import cache_dir, read_checked, write_checked

    folder = cache_dir()
    entry = None
    if folder is not None:
        entry = folder / f"data-{digests.hexdigest(raw)[:40]}.json"
        body = read_checked(entry, _YAML_MAGIC)
        if body is not None:
            try:
                return json.loads(bytes(body))
            except ValueError:
                pass  # not what this version writes: read and stored again below
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(raw.decode("utf-8"), Loader=loader)
    if entry is not None:
        try:
            text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            return data  # a value JSON cannot hold (a date): always read from YAML
        if json.loads(text) == data:  # integer keys, tuples: JSON would change the data
            write_checked(entry, _YAML_MAGIC, text.encode("utf-8"), _YAML_KEEP)
    return data
