"""The configuration file: ``.servelint.yaml`` or ``[tool.servelint]`` in pyproject.toml.

Discovery walks up from the working directory and stops at the first folder that
holds a configuration, at the root of the git repository (the folder holding ``.git``)
or at the filesystem root, whichever comes first: a file above the repository belongs
to someone else, and CI must see what a laptop sees. In one folder ``.servelint.yaml``
wins over ``.servelint.yml`` and both over pyproject.toml; a pyproject.toml without
a ``[tool.servelint]`` table does not count.

A wrong key or value is a ConfigError (exit 3) naming the file and line, never ignored.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from linter.errors import ConfigError
from linter.findings import Severity
from linter.lazyregex import lazy_compile
from linter.lightclass import frozen
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.parsing import bounded
from linter.parsing.documents import DEFAULT_LIMITS, Document, Limits, parse_yaml
from linter.positions import PathT
from linter.sources import repository

CONFIG_NAMES = (".servelint.yaml", ".servelint.yml")
PYPROJECT = "pyproject.toml"
_TOML_ROOT = ("tool", "servelint")
_UNITS = {
    "": 1,
    "k": 10**3,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
}
_QUANTITY = lazy_compile(r"^([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i|[kKMGT])?B?$")
_DURATION_PART = lazy_compile(r"([0-9]+(?:\.[0-9]+)?)([hms])")


@frozen
class ConfigSuppression:
    """``suppressions:`` entry: rules not counted in the files that match ``paths``."""

    rules: tuple[str, ...]
    paths: tuple[str, ...]  # globs relative to the configuration folder; () = every file
    reason: str
    until: datetime.date | None
    line: int
    column: int


@frozen
class Config:
    """Settings from the file; ``None`` or empty means the file did not say."""

    source: str | None = None  # the file, as a path the user can open
    root: Path = Path()  # folder that relative paths and globs are relative to
    policy_dirs: tuple[str, ...] = ()
    builtin: bool | None = None
    disable: tuple[str, ...] = ()
    # Only from the command line (--enable): rule ids, policy ids or patterns that stay on
    # whatever ``disable`` says, as ruff's --extend-select and yamllint's enable do.
    enable: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = dataclasses.field(default_factory=dict)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    fail_level: Severity | None = None
    fail_on_unchecked: bool | None = None
    baseline: str | None = None
    limits: Limits = DEFAULT_LIMITS
    model: ModelSettings = DEFAULT_SETTINGS
    suppressions: tuple[ConfigSuppression, ...] = ()
    document: Document | None = dataclasses.field(default=None, compare=False)

    def line_of(self, *path: str | int) -> int:
        return self.document.span(path).line if self.document is not None else 1


EMPTY = Config()


def find_config(start: Path) -> Path | None:
    """The nearest configuration file at or above ``start`` (see the module docstring)."""
    folder = start.resolve()
    while True:
        for name in CONFIG_NAMES:
            if (folder / name).is_file():
                return folder / name
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
        if (folder / ".git").exists() or folder.parent == folder:
            return None
        folder = folder.parent


def _has_tool_table(path: Path) -> bool:
    try:
        text = bounded.read_text(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r"^\s*\[\[?\s*tool\.servelint\b", text, re.MULTILINE) is not None


def load_config(path: Path) -> Config:
    """Read, validate and resolve one configuration file."""
    path = _display(path)
    try:
        text = bounded.read_text(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration file: {exc}") from exc
    document = _toml_document(path, text) if path.name == PYPROJECT else _yaml_document(path, text)
    from linter.parsing.schemacheck import schema_errors

    errors = schema_errors(document, "config.schema.json")
    if errors:
        raise ConfigError("\n".join(f"{path}:{error}" for error in errors))
    return _build(document, path)


def _display(path: Path) -> Path:
    """The path relative to the working directory when it is below it, as users write it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd())
    except ValueError:
        return absolute


def _yaml_document(path: Path, text: str) -> Document:
    parsed = parse_yaml(str(path), text)
    if parsed.problems:
        problem = parsed.problems[0]
        raise ConfigError(f"{path}:{problem.line}:{problem.column}: {problem.message}")
    if len(parsed.documents) > 1:
        raise ConfigError(
            f"{path}:{parsed.documents[1].span(()).line}: "
            "a configuration file holds one YAML document"
        )
    if not parsed.documents:
        return Document(str(path), 0, {}, {})
    return parsed.documents[0]


def _toml_document(path: Path, text: str) -> Document:
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    table: Any = data.get("tool", {}).get("servelint", {})
    from linter.parsing import tomlpos  # only for a pyproject.toml

    return Document(str(path), 0, _plain(table), tomlpos.line_map(text, _TOML_ROOT), "toml")


def _plain(value: Any) -> Any:
    """TOML dates become ISO strings, as the same value reads from YAML."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value


def _build(document: Document, path: Path) -> Config:
    data: dict[str, Any] = document.data if isinstance(document.data, dict) else {}
    limits = data.get("limits", {})
    return Config(
        source=str(path),
        root=path.resolve().parent,
        policy_dirs=tuple(data.get("policyDirs", ())),
        builtin=data.get("builtin"),
        disable=tuple(data.get("disable", ())),
        severity={rule: Severity.parse(level) for rule, level in data.get("severity", {}).items()},
        include=tuple(data.get("include", ())),
        exclude=tuple(data.get("exclude", ())),
        fail_level=Severity.parse(data["failLevel"]) if "failLevel" in data else None,
        fail_on_unchecked=data.get("failOnUnchecked"),
        baseline=data.get("baseline"),
        limits=Limits(
            limits.get("maxBytes", DEFAULT_LIMITS.max_bytes),
            limits.get("maxNodes", DEFAULT_LIMITS.max_nodes),
            limits.get("maxDepth", DEFAULT_LIMITS.max_depth),
        ),
        model=model_settings(data.get("model", {}), path.resolve().parent),
        suppressions=tuple(
            _suppression(document, i, raw) for i, raw in enumerate(data.get("suppressions", ()))
        ),
        document=document,
    )


def in_repository(config: Config, key: PathT, relative: str, option: str) -> Path:
    """``relative``, a path the configuration names, under the configuration's folder;
    ``ConfigError`` at its line when it leads outside the repository of the configuration
    (``sources/repository.py``): a pull request's ``policyDirs: [../outside]`` would read
    and quote YAML from anywhere (issue 31). ``option`` names the path instead."""
    path = config.root / relative
    root = repository.root_of(config.source or ".")
    if repository.inside(str(path), (root,)):
        return path
    span = config.document.span(key) if config.document is not None else None
    where = f"{config.source}:{span.line}:{span.column}" if span else str(config.source)
    raise ConfigError(
        f"{where}: {key[0]} {relative!r} is outside the repository ({root}); nothing "
        f"outside it is read unless named on the command line: give it with {option}"
    )


def model_settings(raw: dict[str, Any], root: Path) -> ModelSettings:
    """The ``model:`` section (already validated), paths resolved against ``root``."""
    memory = raw.get("gpuMemory")
    load_time = raw.get("modelLoadTime")
    bandwidth = raw.get("loadBandwidth")
    return ModelSettings(
        profile_dirs=tuple(str(root / p) for p in raw.get("profileDirs", ())),
        presets=raw.get("presets", {}),
        model_configs={model: str(root / p) for model, p in raw.get("modelConfigs", {}).items()},
        gpu_memory_bytes=None if memory is None else parse_quantity(memory),
        gpu_product=raw.get("gpuProduct"),
        gpus={name: _gpu_entry(entry) for name, entry in raw.get("gpus", {}).items()},
        instance_types=raw.get("instanceTypes", {}),
        model_load_seconds=None if load_time is None else parse_duration(load_time),
        load_bandwidth_bytes=None if bandwidth is None else parse_quantity(bandwidth),
    )


def _gpu_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A ``model.gpus`` entry as a catalogue entry: ``memory`` (a quantity) as ``memoryMiB``."""
    out = {key: value for key, value in entry.items() if key != "memory"}
    if "memory" in entry:
        out["memoryMiB"] = parse_quantity(entry["memory"]) // 2**20
    return out


def parse_quantity(value: int | str) -> int:
    """``80Gi`` → bytes; Kubernetes suffixes (Ki, Mi, Gi, Ti; k, M, G, T) and ``GB``."""
    if isinstance(value, int):
        return value
    match = _QUANTITY.match(value.strip())
    if match is None:
        raise ValueError(f"not a quantity: {value!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2) or ""])


def parse_duration(value: float | str) -> float:
    """``1h30m`` → seconds; a number is already seconds."""
    if isinstance(value, int | float):
        return float(value)
    factors = {"h": 3600.0, "m": 60.0, "s": 1.0}
    return sum(float(n) * factors[unit] for n, unit in _DURATION_PART.findall(value))


def _suppression(document: Document, index: int, raw: dict[str, Any]) -> ConfigSuppression:
    span = document.span(("suppressions", index))
    until = raw.get("until")
    if until is not None:
        try:
            until = datetime.date.fromisoformat(until)
        except ValueError:
            where = document.span(("suppressions", index, "until"))
            raise ConfigError(
                f"{document.source}:{where.line}:{where.column}: "
                f"suppressions[{index}].until: {raw['until']!r} is not a date"
            ) from None
    return ConfigSuppression(
        tuple(raw["rules"]),
        tuple(raw.get("paths", ())),
        raw["reason"].strip(),
        until,
        span.line,
        span.column,
    )
