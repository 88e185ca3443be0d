"""The flag-table generator's readers (tools/flagtables/), on small sources written the way
vLLM, SGLang, TGI and Triton write their argument definitions. The readers parse source
text only: nothing here is imported or run from a server release."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).parents[1] / "tools" / "flagtables"
sys.path.append(str(TOOLS))

from argparse_ast import (  # noqa: E402
    annotated_field_options,
    option_strings,
    read_options,
)
from clap_rust import clap_options, command_has_version  # noqa: E402

VLLM_LIKE = """
import argparse
from dataclasses import dataclass

@dataclass
class CacheConfig:
    block_size: int = 16
    enable_prefix_caching: bool | None = None
    swap_space: float = 4

@dataclass
class BaseFrontendArgs:
    api_key: str | None = None
    enable_log_outputs: bool = False

    @classmethod
    def add_cli_args(cls, parser):
        frontend_kwargs = get_kwargs(cls)
        frontend_kwargs["api_key"]["flags"] = ["-k"]
        for key, value in frontend_kwargs.items():
            extra_flags = value.pop("flags", [])
            parser.add_argument(*extra_flags, f"--{key.replace('_', '-')}", **value)

@dataclass
class FrontendArgs(BaseFrontendArgs):
    port: int = 8000

class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        cache_kwargs = get_kwargs(CacheConfig)
        parser.add_argument("--block-size", **cache_kwargs["block_size"])
        parser.add_argument(
            "--enable-prefix-caching", **{**cache_kwargs["enable_prefix_caching"], "default": None}
        )
        parser.add_argument("--swap-space", **cache_kwargs["swap_space"])
        parser.add_argument("--tensor-parallel-size", "-tp", type=int, dest="tensor_parallel_size")
        parser.add_argument("--enforce-eager", action=argparse.BooleanOptionalAction)
        parser.add_argument("--disable-log-requests", action="store_true",
                            help="Deprecated. Use --enable-log-requests instead.")
        parser.add_argument("model_tag", nargs="?")
        for arg, type in [("--guided-decoding-backend", str), ("--old-switch", bool)]:
            parser.add_argument(arg, type=type, deprecated=True)

def make_arg_parser(parser):
    FrontendArgs.add_cli_args(parser)
"""


def test_argparse_reader_expands_dataclass_fields_and_negations(tmp_path: Path) -> None:
    (tmp_path / "args.py").write_text(VLLM_LIKE, encoding="utf-8")
    options, unknown = read_options(tmp_path, ["args.py"], [tmp_path / "args.py"])
    assert unknown == []
    strings = {text: option.dest for text, option in option_strings(options)}
    assert strings == {
        # FrontendArgs.add_cli_args is inherited: the fields of the class and its subclass,
        # plus the extra flags set as kwargs["field"]["flags"].
        "-k": "api_key",
        "--api-key": "api_key",
        "--enable-log-outputs": "enable_log_outputs",
        "--no-enable-log-outputs": "enable_log_outputs",
        "--port": "port",
        "--block-size": "block_size",
        # a bool field of get_kwargs is BooleanOptionalAction: --no-<flag> too
        "--enable-prefix-caching": "enable_prefix_caching",
        "--no-enable-prefix-caching": "enable_prefix_caching",
        "--swap-space": "swap_space",
        "--tensor-parallel-size": "tensor_parallel_size",
        "-tp": "tensor_parallel_size",
        "--enforce-eager": "enforce_eager",
        "--no-enforce-eager": "enforce_eager",
        "--disable-log-requests": "disable_log_requests",
        "--guided-decoding-backend": "guided_decoding_backend",
        "--old-switch": "old_switch",
    }
    deprecated = {o.strings[0]: o.replacement for o in options if o.deprecated}
    assert deprecated["--disable-log-requests"] == "--enable-log-requests"


def test_argparse_reader_reports_what_it_does_not_understand(tmp_path: Path) -> None:
    (tmp_path / "args.py").write_text(
        "def add(parser, names):\n    parser.add_argument(names[0], type=int)\n", encoding="utf-8"
    )
    options, unknown = read_options(tmp_path, ["args.py"], [])
    assert options == []
    assert unknown == ["args.py:2: parser.add_argument(names[0], type=int)"]


def test_sglang_annotated_fields(tmp_path: Path) -> None:
    (tmp_path / "parallel.py").write_text(
        "class ParallelArgs:\n"
        '    tp_size: A[int, Arg(help="TP.", aliases=["--tensor-parallel-size"])] = 1\n'
        '    attn_dp_size: A[int, "Attention DP."] = 1\n'
        "    disable_cuda_graph: A[bool, Arg(no_cli=True)] = False\n"
        '    model_path: A[str, Arg(cli_name="--model-path", aliases=["--model"])] = ""\n'
        "    plain: int = 0\n"
        '    sleep_on_idle: A[bool, NS("device"), "Reduce CPU usage."] = False\n'
        '    handler: A[Optional[Callable], NS("device")] = None\n',
        encoding="utf-8",
    )
    options = annotated_field_options(tmp_path / "parallel.py", "parallel.py")
    assert [(o.strings, o.dest, o.where) for o in options] == [
        (["--tp-size", "--tensor-parallel-size"], "tp_size", "parallel.py:2"),
        (["--attn-dp-size"], "attn_dp_size", "parallel.py:3"),
        (["--model-path", "--model"], "model_path", "parallel.py:5"),
        (["--sleep-on-idle"], "sleep_on_idle", "parallel.py:7"),
    ]


CLAP = """
#[derive(Parser, Debug)]
#[clap(author, version, about, long_about = None)]
struct Args {
    /// The model.
    #[clap(default_value = "bigscience/bloom-560m", long, env)]
    model_id: String,

    #[clap(long, env)]
    max_input_tokens: Option<usize>,

    #[clap(default_value = "3000", long, short, env)]
    port: u16,

    #[clap(long, short = 'x', alias = "old-name", env)]
    renamed: Option<String>,

    /// Not a command-line option.
    dummy: bool,
}

struct Other {
    #[clap(long)]
    not_an_arg: bool,
}
"""


def test_clap_struct_reader() -> None:
    options = clap_options(CLAP, "launcher/src/main.rs")
    assert [(o.strings, o.dest, o.where) for o in options] == [
        (["--model-id"], "model_id", "launcher/src/main.rs:7"),
        (["--max-input-tokens"], "max_input_tokens", "launcher/src/main.rs:10"),
        (["--port", "-p"], "port", "launcher/src/main.rs:13"),
        (["--renamed", "-x", "--old-name"], "renamed", "launcher/src/main.rs:16"),
    ]
    assert command_has_version(CLAP)


@pytest.mark.parametrize("name", ["argparse_ast.py", "clap_rust.py", "generate.py", "releases.py"])
def test_the_generator_is_not_part_of_the_package(name: str) -> None:
    # A maintenance script: servelint never imports it.
    package = Path(__file__).parents[1] / "linter"
    module = name.removesuffix(".py")
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert f"import {module}" not in text and f"from {module}" not in text, path
