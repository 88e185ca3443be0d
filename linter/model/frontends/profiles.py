"""Chart-layout profiles: declarative YAML files describing what a chart renders from its
values (``schemas/profile.schema.json``). The packaged profiles are trusted and read with
the C loader; profiles from ``ModelSettings.profile_dirs`` are validated first (jsonschema
is imported only then), and an invalid one is a configuration error naming file and line.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from linter import _resources
from linter.errors import ConfigError
from linter.model.records.paths import lookup
from linter.parsing import bounded
from linter.positions import parse_path

_NOT_PROFILES = frozenset({"models.yaml"})


class Profile(NamedTuple):
    name: str
    source: str
    spec: Mapping[str, Any]
    # The chart names it describes (``metadata.charts``): a GitOps wrapper names its chart.
    charts: tuple[str, ...] = ()
    # The chart releases it describes (``metadata.chartVersions``, ``chart_versions.py``):
    # empty for every release.
    versions: str = ""
    # The chart version of the release read with it (a GitOps wrapper says it), for the
    # conditions of ``chartVersions``; empty: the newest releases.
    release: str = ""


@functools.cache
def packaged_profiles() -> tuple[Profile, ...]:
    root = _resources.builtin_profiles()
    profiles = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".yaml", ".yml")) and entry.name not in _NOT_PROFILES:
            data = _resources.packaged_yaml(entry)
            profiles.append(_profile(data, entry.name))
    return tuple(profiles)


@functools.cache
def user_profiles(dirs: tuple[str, ...]) -> tuple[Profile, ...]:
    profiles: list[Profile] = []
    for directory in dirs:
        folder = Path(directory)
        if not folder.is_dir():
            raise ConfigError(f"profile directory {directory}: not a directory")
        profiles.extend(
            _load_user(path)
            for path in sorted(folder.iterdir())
            if path.suffix in (".yaml", ".yml") and path.name not in _NOT_PROFILES
        )
    return tuple(profiles)


def _load_user(path: Path) -> Profile:
    from linter.parsing.documents import parse_yaml

    try:
        text = bounded.read_text(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read profile ({exc})") from exc
    parsed = parse_yaml(str(path), text)
    if parsed.problems or len(parsed.documents) != 1:
        problem = parsed.problems[0] if parsed.problems else None
        where = f"{path}:{problem.line}:{problem.column}" if problem else str(path)
        detail = problem.message if problem else "expected exactly one YAML document"
        raise ConfigError(f"{where}: invalid profile: {detail}")
    document = parsed.documents[0]
    errors = _schema_errors(document.data)
    if errors:
        error_path, message = errors[0]
        span = document.span(error_path)
        raise ConfigError(f"{path}:{span.line}:{span.column}: invalid profile: {message}")
    versions = document.data["metadata"].get("chartVersions", "")
    if versions:
        from linter.model.frontends.chart_versions import valid_range

        if not valid_range(versions):
            span = document.span(("metadata", "chartVersions"))
            raise ConfigError(
                f"{path}:{span.line}:{span.column}: invalid profile: chartVersions "
                f"{versions!r} is not a version range (such as '>=3.0.0 <4.0.0')"
            )
    return _profile(document.data, str(path))


def _profile(data: Mapping[str, Any], source: str) -> Profile:
    meta = data["metadata"]
    charts = tuple(meta.get("charts", ()))
    return Profile(meta["name"], source, data["spec"], charts, meta.get("chartVersions", ""))


def _schema_errors(data: Any) -> list[tuple[tuple[str | int, ...], str]]:
    import jsonschema  # only for user profiles: keep it off the default lint path

    schema = _resources.load_schema("profile.schema.json")
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    return [(tuple(e.absolute_path), e.message) for e in errors]


def all_profiles(profile_dirs: Sequence[str]) -> tuple[Profile, ...]:
    # User profiles come first so that they can replace a packaged one for the same chart.
    return (*user_profiles(tuple(profile_dirs)), *packaged_profiles())


def get_path(data: object, dotted: str) -> object:
    return lookup(data, parse_path(dotted), _MISSING)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()
MISSING = _MISSING


def detect(profile: Profile, data: object) -> bool:
    rules = profile.spec.get("detect", {})
    if not all(_exists(data, p) for p in rules.get("required", [])):
        return False
    any_of = rules.get("anyOf")
    return not any_of or any(_exists(data, p) for p in any_of)


def _exists(data: object, dotted: str) -> bool:
    """Whether the dotted path is set; a ``*`` part stands for any key of a mapping
    (``controllers.*.containers``: some controller has containers)."""
    parts = dotted.split(".")
    if "*" not in parts:
        return get_path(data, dotted) is not MISSING
    star = parts.index("*")
    head, rest = ".".join(parts[:star]), ".".join(parts[star + 1 :])
    node = get_path(data, head) if head else data
    if not isinstance(node, Mapping):
        return False
    return any(_exists(child, rest) if rest else True for child in node.values())


def matching_profile(data: object, profile_dirs: Sequence[str]) -> Profile | None:
    """The first profile that detects ``data``; of several versions of a chart's profile,
    the one of its newest releases (a values file does not say its chart's version)."""
    found = [p for p in all_profiles(profile_dirs) if detect(p, data)]
    return _newest(found) if found else None


def _newest(profiles: Sequence[Profile]) -> Profile:
    if all(not p.versions for p in profiles):
        return profiles[0]
    from linter.model.frontends.chart_versions import open_ended

    return next((p for p in profiles if open_ended(p.versions)), profiles[0])


def profile_for_chart(chart: str, profile_dirs: Sequence[str], version: str = "") -> Profile | None:
    """The profile whose ``metadata.charts`` names ``chart`` (user profiles first) and
    whose ``chartVersions`` hold ``version``; without a version (or with one that is not a
    version: a branch, ``*``), the profile of the chart's newest releases."""
    return chart_profile(chart, profile_dirs, version)[0]


def chart_profile(
    chart: str, profile_dirs: Sequence[str], version: str = ""
) -> tuple[Profile | None, str]:
    """``profile_for_chart``, and why none when some profile names the chart but no
    profile's range holds the version (``"no chart profile covers version 2.6.0 (...)"``)."""
    named = [p for p in all_profiles(profile_dirs) if chart in p.charts]
    if not named:
        return None, ""
    if all(not p.versions for p in named):
        return named[0], ""
    from linter.model.frontends.chart_versions import contains, parse

    if not version or parse(version) is None:
        return _newest(named), ""
    for profile in named:
        if contains(profile.versions, version):
            return profile, ""
    ranges = ", ".join(f"{p.name} {p.versions}" for p in named)
    return None, f"no chart profile covers version {version} ({ranges})"


def profile_named(name: str, profile_dirs: Sequence[str]) -> Profile | None:
    return next((p for p in all_profiles(profile_dirs) if p.name == name), None)
