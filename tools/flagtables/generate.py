"""Generate servelint's per-version flag tables (``linter/model/engine/flagdata/*.json``).

Maintenance script: not run in CI, not imported by servelint. For each release it downloads
the wheel from PyPI (``pip download --no-deps``, into a cache folder outside the
repository), reads the argument definitions from the Python source with ``ast`` (never
importing them, see ``argparse_ast.py``) and writes, per server, every option string with
the releases that accept it, its argparse ``dest``, its aliases and, for a flag a later
release dropped, its replacement where the source names one. Usage::

    python tools/flagtables/generate.py vllm sglang --cache /tmp/flagtables
    python tools/flagtables/generate.py tgi --tgi-repo /path/to/text-generation-inference
    python tools/flagtables/generate.py triton --triton-repo /path/to/triton-server

Sources are cited in each table (``sources``): the wheel files read and the upstream file
at its release tag.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import subprocess

from argparse_ast import (
    Option,
    annotated_field_options,
    option_strings,
    read_options,
)
from clap_rust import clap_options, command_has_version
from releases import release_sources

OUT = Path(__file__).resolve().parents[2] / "linter" / "model" / "engine" / "flagdata"

VLLM_RELEASES = [
    "0.6.0",
    "0.6.1",
    "0.6.1.post1",
    "0.6.1.post2",
    "0.6.2",
    "0.6.3",
    "0.6.3.post1",
    "0.6.4",
    "0.6.4.post1",
    "0.6.5",
    "0.6.6",
    "0.6.6.post1",
    "0.7.0",
    "0.7.1",
    "0.7.2",
    "0.7.3",
    "0.8.0",
    "0.8.1",
    "0.8.2",
    "0.8.3",
    "0.8.4",
    "0.8.5",
    "0.8.5.post1",
    "0.9.0",
    "0.9.0.1",
    "0.9.1",
    "0.9.2",
    "0.10.0",
    "0.10.1",
    "0.10.1.1",
    "0.10.2",
    "0.11.0",
    "0.11.1",
    "0.11.2",
    "0.12.0",
    "0.13.0",
    "0.14.0",
    "0.14.1",
    "0.15.0",
    "0.15.1",
    "0.16.0",
    "0.17.0",
    "0.17.1",
    "0.18.0",
    "0.18.1",
    "0.19.0",
    "0.19.1",
    "0.20.0",
    "0.20.1",
    "0.20.2",
    "0.21.0",
    "0.22.0",
    "0.22.1",
    "0.23.0",
    "0.24.0",
    "0.25.0",
    "0.25.1",
    "0.26.0",
    "0.27.0",
    "0.27.1",
    "0.28.0",
    "0.29.0",
    "0.30.0",
    "0.31.0",
    "0.32.0",
    "0.33.0",
]

SGLANG_RELEASES = [
    "0.4.0",
    "0.4.0.post1",
    "0.4.0.post2",
    "0.4.1",
    "0.4.1.post1",
    "0.4.1.post2",
    "0.4.1.post3",
    "0.4.1.post4",
    "0.4.1.post5",
    "0.4.1.post6",
    "0.4.1.post7",
    "0.4.2",
    "0.4.2.post1",
    "0.4.2.post2",
    "0.4.2.post3",
    "0.4.2.post4",
    "0.4.3",
    "0.4.3.post1",
    "0.4.3.post2",
    "0.4.3.post3",
    "0.4.3.post4",
    "0.4.4",
    "0.4.4.post1",
    "0.4.4.post2",
    "0.4.4.post3",
    "0.4.4.post4",
    "0.4.5",
    "0.4.5.post1",
    "0.4.5.post2",
    "0.4.5.post3",
    "0.4.6",
    "0.4.6.post1",
    "0.4.6.post2",
    "0.4.6.post3",
    "0.4.6.post4",
    "0.4.6.post5",
    "0.4.7",
    "0.4.7.post1",
    "0.4.8",
    "0.4.8.post1",
    "0.4.9",
    "0.4.9.post1",
    "0.4.9.post2",
    "0.4.9.post3",
    "0.4.9.post4",
    "0.4.9.post5",
    "0.4.9.post6",
    "0.4.10",
    "0.4.10.post1",
    "0.4.10.post2",
    "0.5.1",
    "0.5.1.post1",
    "0.5.1.post2",
    "0.5.1.post3",
    "0.5.2",
    "0.5.3",
    "0.5.3.post1",
    "0.5.3.post2",
    "0.5.3.post3",
    "0.5.4",
    "0.5.4.post1",
    "0.5.4.post2",
    "0.5.4.post3",
    "0.5.5",
    "0.5.5.post1",
    "0.5.5.post2",
    "0.5.5.post3",
    "0.5.6",
    "0.5.6.post1",
    "0.5.6.post2",
    "0.5.7",
    "0.5.8",
    "0.5.8.post1",
    "0.5.9",
    "0.5.10",
    "0.5.10.post1",
    "0.5.11",
    "0.5.12",
    "0.5.12.post1",
    "0.5.13",
    "0.5.13.post1",
    "0.5.14",
    "0.5.15",
    "0.5.15.post1",
    "0.5.16",
    "0.5.17",
    "0.5.18",
    "0.5.19",
    "0.5.20",
    "0.5.21",
    "0.5.22",
    "0.5.23",
]


# TGI's launcher is Rust (clap): read at each release tag of a clone of
# https://github.com/huggingface/text-generation-inference (``--tgi-repo``).
TGI_RELEASES = [
    "1.0.0",
    "1.0.1",
    "1.0.2",
    "1.0.3",
    "1.1.0",
    "1.1.1",
    "1.2.0",
    "1.3.0",
    "1.3.1",
    "1.3.2",
    "1.3.3",
    "1.3.4",
    "1.4.0",
    "1.4.1",
    "1.4.2",
    "1.4.3",
    "1.4.4",
    "1.4.5",
    "2.0.0",
    "2.0.1",
    "2.0.2",
    "2.0.3",
    "2.0.4",
    "2.1.0",
    "2.1.1",
    "2.2.0",
    "2.3.0",
    "2.3.1",
    "2.4.0",
    "2.4.1",
    "3.0.0",
    "3.0.1",
    "3.0.2",
    "3.1.0",
    "3.1.1",
    "3.2.0",
    "3.2.1",
    "3.2.2",
    "3.2.3",
    "3.3.0",
    "3.3.1",
    "3.3.2",
    "3.3.3",
    "3.3.4",
    "3.3.5",
    "3.3.6",
    "3.3.7",
]
TGI_FILE = "launcher/src/main.rs"
TGI_URL = "https://github.com/huggingface/text-generation-inference/blob/v{version}/{path}"


def tgi_options(repo: Path, version: str) -> list[Option]:
    shown = subprocess.run(
        ["git", "-C", str(repo), "show", f"v{version}:{TGI_FILE}"],
        check=True,
        capture_output=True,
        text=True,
    )
    options = clap_options(shown.stdout, TGI_FILE)
    options.append(Option(["-h", "--help"], "help"))
    if command_has_version(shown.stdout):
        options.append(Option(["-V", "--version"], "version"))
    return options


# Triton's server options (getopt_long, which takes unique abbreviations) at each release
# tag of a clone of https://github.com/triton-inference-server/server (``--triton-repo``):
# src/command_line_parser.cc from 2.3x, src/main.cc or src/servers/main.cc before.
TRITON_FILES = ("src/command_line_parser.cc", "src/main.cc", "src/servers/main.cc")
TRITON_URL = "https://github.com/triton-inference-server/server/blob/v{version}/{path}"
_TRITON_OPTION = re.compile(r'\{\s*OPTION_[A-Z0-9_]+\s*,\s*"([a-z0-9-]+)"')
# build.py names the NGC container of each release ("24.08" for 2.49.0): a
# "triton_container_version" entry, or the first item of the release's TRITON_VERSION_MAP
# tuple (quoted either way in older files).
_TRITON_CONTAINER = re.compile(r'"triton_container_version":\s*"(\d\d\.\d\d)')


def _triton_container(build: str, version: str) -> str:
    found = re.search(
        rf"""["']{re.escape(version)}(?:dev)?["']:\s*\(\s*["'](\d\d\.\d\d)""", build
    ) or _TRITON_CONTAINER.search(build)
    return found.group(1) if found else ""


def _git_show(repo: Path, tag: str, path: str) -> str | None:
    shown = subprocess.run(
        ["git", "-C", str(repo), "show", f"{tag}:{path}"], capture_output=True, text=True
    )
    return shown.stdout if shown.returncode == 0 else None


def triton_releases(repo: Path) -> list[str]:
    tags = subprocess.run(
        ["git", "-C", str(repo), "tag"], check=True, capture_output=True, text=True
    ).stdout.split()
    versions = [t[1:] for t in tags if re.fullmatch(r"v2\.\d+\.\d+", t)]
    return sorted(versions, key=lambda v: tuple(int(p) for p in v.split(".")))


def triton_options(repo: Path, version: str) -> tuple[list[Option], str]:
    """The options of one release, and its NGC container version ("" when not named)."""
    options: list[Option] = []
    for path in TRITON_FILES:
        source = _git_show(repo, f"v{version}", path)
        if source is None:
            continue
        for found in _TRITON_OPTION.finditer(source):
            line = source.count("\n", 0, found.start()) + 1
            name = found.group(1)
            options.append(Option(["--" + name], name.replace("-", "_"), where=f"{path}:{line}"))
        break
    build = _git_show(repo, f"v{version}", "build.py") or ""
    return options, _triton_container(build, version)


@dataclasses.dataclass(frozen=True)
class ServerSpec:
    package: str  # the PyPI project, or the repository read at release tags
    releases: list[str]
    # Files whose add_argument calls build the server's parser, relative to the wheel root.
    parser_files: tuple[str, ...]
    # Files and folders holding the config classes that get_kwargs turns into flags.
    class_paths: tuple[str, ...]
    # Files and folders of SGLang-style annotated fields (A[T, "help"]).
    annotated_fields: tuple[str, ...]
    code_url: str  # upstream file at a release tag: {version}, {path}


SPECS = {
    "vllm": ServerSpec(
        "vllm",
        VLLM_RELEASES,
        (
            "vllm/engine/arg_utils.py",
            "vllm/entrypoints/openai/cli_args.py",
            "vllm/entrypoints/common/cli_args.py",
            "vllm/entrypoints/launchers/cli_args.py",
            "vllm/entrypoints/cli/serve.py",
            "vllm/scripts.py",
        ),
        (
            "vllm/config.py",
            "vllm/config",
            "vllm/engine/arg_utils.py",
            "vllm/entrypoints/openai/cli_args.py",
            "vllm/entrypoints/common/cli_args.py",
            "vllm/entrypoints/launchers/cli_args.py",
        ),
        (),
        "https://github.com/vllm-project/vllm/blob/v{version}/{path}",
    ),
    "tgi": ServerSpec(
        "https://github.com/huggingface/text-generation-inference",
        TGI_RELEASES,
        (TGI_FILE,),
        (),
        (),
        TGI_URL,
    ),
    "triton": ServerSpec(
        "https://github.com/triton-inference-server/server",
        [],  # the release tags of the clone
        TRITON_FILES,
        (),
        (),
        TRITON_URL,
    ),
    "sglang": ServerSpec(
        "sglang",
        SGLANG_RELEASES,
        ("sglang/srt/server_args.py",),
        ("sglang/srt/server_args.py",),
        # server_args.py itself from 0.5.14, arg_groups/fields/ from 0.5.20.
        ("sglang/srt/server_args.py", "sglang/srt/arg_groups/fields"),
        "https://github.com/sgl-project/sglang/blob/v{version}/python/{path}",
    ),
}

# Replacements the source states where the reader cannot see them, each checked at the
# release tags: TGI 2.0.0 replaced the switch --enable-cuda-graphs (1.4.x) with the list
# --cuda-graphs (launcher/src/main.rs at v1.4.5 and v2.0.0); vLLM 0.12.0 sets the help of
# --cuda-graph-sizes in a statement before its add_argument ("Please use
# --cudagraph-capture-sizes instead", vllm/engine/arg_utils.py L1093-1096 at v0.12.0).
CURATED_REPLACEMENTS = {
    "tgi": {"--enable-cuda-graphs": "--cuda-graphs"},
    "vllm": {"--cuda-graph-sizes": "--cudagraph-capture-sizes"},
}

# Every argparse parser has -h/--help (add_help=True in both servers' parsers).
_BUILTIN = (Option(["-h", "--help"], "help"),)


def _class_files(root: Path, paths: tuple[str, ...]) -> list[Path]:
    out: list[Path] = []
    for rel in paths:
        path = root / rel
        if path.is_dir():
            out.extend(sorted(path.rglob("*.py")))
        elif path.exists():
            out.append(path)
    return out


def release_options(spec: ServerSpec, root: Path) -> tuple[list[Option], list[str]]:
    options, unknown = read_options(root, spec.parser_files, _class_files(root, spec.class_paths))
    for path in _class_files(root, spec.annotated_fields):
        options.extend(annotated_field_options(path, str(path.relative_to(root))))
    return [*options, *_BUILTIN], unknown


def _ranges(indices: list[int], releases: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    start = prev = indices[0]
    for index in indices[1:]:
        if index != prev + 1:
            out.append([releases[start], releases[prev]])
            start = index
        prev = index
    out.append([releases[start], releases[prev]])
    return out


def build_table(
    server: str,
    spec: ServerSpec,
    cache: Path,
    tgi_repo: Path | None = None,
    triton_repo: Path | None = None,
) -> dict[str, object]:
    releases = spec.releases
    containers: dict[str, str] = {}
    if server == "triton" and triton_repo is not None:
        releases = triton_releases(triton_repo)
    accepted: dict[str, list[int]] = {}
    info: dict[str, dict[str, Option]] = {}
    by_release: list[dict[str, Option]] = []
    notes: dict[str, list[str]] = {}
    for index, version in enumerate(releases):
        if server == "tgi" and tgi_repo is not None:
            options, unknown = tgi_options(tgi_repo, version), []
        elif server == "triton" and triton_repo is not None:
            options, ngc = triton_options(triton_repo, version)
            options.append(Option(["--help"], "help"))
            unknown = [] if options[:-1] else [f"no option table found at v{version}"]
            if ngc and ngc not in containers:
                containers[ngc] = version
        else:
            root = release_sources(spec.package, version, cache)
            options, unknown = release_options(spec, root)
        if unknown:
            notes[version] = unknown
        current: dict[str, Option] = {}
        for text, option in option_strings(options):
            current.setdefault(text, option)
        by_release.append(current)
        for text, option in current.items():
            accepted.setdefault(text, []).append(index)
            info.setdefault(text, {})[version] = option
    flags: dict[str, dict[str, object]] = {}
    for text in sorted(accepted):
        indices = accepted[text]
        last_version = releases[indices[-1]]
        last = info[text][last_version]
        dests = {o.dest for o in info[text].values()}
        aliases = sorted(
            {
                other
                for i in indices
                for other, o in by_release[i].items()
                if o.dest in dests and other != text and other.startswith("-")
            }
        )
        entry: dict[str, object] = {"dest": last.dest, "accepted": _ranges(indices, releases)}
        if aliases:
            entry["aliases"] = aliases
        if indices[-1] + 1 < len(releases):
            entry["replacement"] = _replacement(
                text, last, by_release[indices[-1] + 1]
            ) or CURATED_REPLACEMENTS.get(server, {}).get(text, "")
        if last.where:
            # file:line at the newest release that has the flag (see "code" for the URL)
            entry["source"] = f"{last.where}@{last_version}"
        flags[text] = entry
    return {
        "server": server,
        "package": spec.package
        if spec.package.startswith("https://")
        else f"https://pypi.org/project/{spec.package}/",
        "generator": "tools/flagtables/generate.py",
        # "source" of a flag is path:line@release; its upstream URL is this template.
        "code": spec.code_url + "#L{line}",
        "read": sorted({*spec.parser_files, *spec.annotated_fields}),
        "releases": releases,
        "not_understood": notes,
        **({"containers": containers} if containers else {}),
        "flags": flags,
    }


def _replacement(text: str, last: Option, following: dict[str, Option]) -> str:
    """What replaces ``text`` in the first release without it, where the source says."""
    if last.replacement and last.replacement in following:
        return last.replacement
    # The same destination under another spelling in the next release: a rename.
    same = sorted(
        other for other, o in following.items() if o.dest == last.dest and other.startswith("--")
    )
    if same:
        return same[0]
    # Python's argparse would now read the old spelling as a prefix of these flags.
    prefixed = sorted(other for other in following if other.startswith(text) and other != text)
    if len(prefixed) == 1:
        return prefixed[0]
    return last.replacement if re.match(r"^--[a-z0-9-]+$", last.replacement or "") else ""


def _compact_json(table: dict[str, object]) -> str:
    """One line per key and one line per flag: small files whose diffs read per flag."""
    flags = table["flags"]
    assert isinstance(flags, dict)
    head = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in table.items() if k != "flags"]
    body = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in flags.items()]
    return "{\n" + "\n".join(head) + '\n "flags": {\n' + ",\n".join(body) + "\n }\n}\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("servers", nargs="+", choices=sorted(SPECS))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/flagtables"))
    parser.add_argument("--tgi-repo", type=Path, help="a clone of text-generation-inference")
    parser.add_argument(
        "--triton-repo", type=Path, help="a clone of triton-inference-server/server"
    )
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    OUT.mkdir(parents=True, exist_ok=True)
    for server in args.servers:
        table = build_table(server, SPECS[server], args.cache, args.tgi_repo, args.triton_repo)
        target = OUT / f"{server}.json"
        target.write_text(_compact_json(table), encoding="utf-8")
        print(f"{target}: {len(table['flags'])} option strings")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
