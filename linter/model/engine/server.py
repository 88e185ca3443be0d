"""The ``engine`` section of a workload: the server, its version and its typed settings.

Settings come from three places, later ones winning: for TGI and NIM, environment
variables (every TGI launcher argument is also an env var); the settings a front end read
from keys of its input (``SettingInput``: Helm values, chart profiles), placed where the
chart renders them, after the command's own flags; and the server's command line, parsed
by ``args.parse_args`` (argparse keeps the last occurrence of a flag).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from linter.model.engine import registry
from linter.model.engine.args import ParsedArgs, Token, convert, parse_args
from linter.model.engine.command import Invocation, expand_k8s_vars
from linter.model.engine.images import ImageInfo, version_tuple
from linter.model.engine.registry import Setting
from linter.model.engine.setting_input import SettingInput
from linter.model.facts.quantities import to_bool
from linter.model.records.located import Located
from linter.model.records.records import CliFlag, Engine
from linter.positions import Origin

# The model-id setting of each server.
MODEL_SETTING = {"vllm": "model", "tgi": "model_id", "sglang": "model_path", "nim": "model"}
# Servers whose settings are read from environment variables (TGI's launcher reads every
# argument from the environment too; NIM's launcher reads NIM_* variables).
_ENV_SERVERS = ("tgi", "nim")
# vLLM compilation-config keys that are also flags (-cc works on every version).
_CC_LIFTED = ("cudagraph_capture_sizes", "max_cudagraph_capture_size")


class EnvValue(NamedTuple):
    value: str
    origin: Origin


def engine_record(
    server: str,
    image: ImageInfo | None,
    image_origin: Origin,
    call: Invocation,
    env: Mapping[str, EnvValue],
    inputs: Sequence[SettingInput] = (),
    args_start: int | None = None,
) -> Engine:
    """The ``engine`` record of a server container.

    ``inputs`` are the settings the front end read from keys; ``args_start`` is where the
    container's ``args`` begin in ``call.args`` (None when they do not reach the server's
    parser as a whole: a shell script, an unknown wrapper): the chart renders the keys
    there, so they win over the command's flags and lose to the args."""
    engine = Engine()
    if server:
        engine.name = Located(server, image_origin)
    if image is not None:
        engine.image = Located(image.image, image_origin)
        if image.version:
            engine.version = Located(image.version, image_origin)
            # Numbers for comparisons in CEL: 0.8.5.post1 → [0, 8, 5, 1].
            engine.version_parts = Located(list(version_tuple(image.version)), image_origin)
        engine.version_pinned = Located(image.pinned, image_origin)
    if call.entrypoint:
        origin = call.args[0].origin if call.args else image_origin
        engine.entrypoint = Located(call.entrypoint, origin)
    engine.args = Located(
        [t.text for t in call.args], call.args[0].origin if call.args else image_origin
    )
    all_env = {**env, **{k: EnvValue(t.text, t.origin) for k, t in call.env.items()}}
    engine.env = Located({k: Located(v.value, v.origin) for k, v in all_env.items()}, image_origin)
    if server in _ENV_SERVERS:
        _env_settings(server, all_env, engine)
    version = image.version if image is not None else ""
    # Keys reach the server only where the container's args do (see ``args_start``).
    keyed = inputs if args_start is not None else ()
    literal_env = {k: v.value for k, v in env.items()}
    parsed = _flag_settings(
        server, call, engine, image_origin, version, keyed, args_start or 0, literal_env
    )
    official = image is not None and image.official
    _cli_flags(parsed, call, official, engine, image_origin)
    return engine


def _env_settings(server: str, env: Mapping[str, EnvValue], engine: Engine) -> None:
    for name, item in env.items():
        setting = registry.by_env(server, name)
        if setting is None:
            continue
        value = convert(setting.kind, item.value)
        if value is None:
            _unparsed(engine, setting.name, item.value, item.origin)
        else:
            engine.settings[setting.name] = Located(value, item.origin)


def _flag_settings(
    server: str,
    call: Invocation,
    engine: Engine,
    fallback: Origin,
    version: str,
    inputs: Sequence[SettingInput],
    args_start: int,
    env: Mapping[str, str],
) -> ParsedArgs:
    if inputs and 0 < args_start < len(call.args):
        # The command's own flags, the keys, then the container's args.
        head = parse_args(server, call.args[:args_start], version)
        tail = parse_args(server, call.args[args_start:], version)
        parsed = ParsedArgs(
            [*head.flags, *tail.flags],
            [*head.positionals, *tail.positionals],
            [*head.written, *tail.written],
        )
        keys_at = len(head.flags)
    else:
        parsed = parse_args(server, call.args, version)
        keys_at = 0 if args_start == 0 else len(parsed.flags)
    flags: dict[str, Located[str]] = {}
    inline: list[Located[str]] = []

    for index, flag in enumerate(parsed.flags):
        if index == keys_at:
            _apply_inputs(inputs, env, flags, engine)
        flags[flag.flag] = Located(flag.raw, flag.origin)
        if flag.inline_bool is not None:
            inline.append(Located(flag.inline_bool, flag.origin))
        if flag.setting is not None:
            _apply(engine, flag.setting, flag.raw, flag.value, flag.origin, flag.subkey)
    if keys_at >= len(parsed.flags):
        _apply_inputs(inputs, env, flags, engine)
    engine.flags = Located(flags, fallback)
    engine.inline_bool_flags = Located(inline, fallback)
    if server == "vllm" and parsed.positionals and call.entrypoint in ("vllm serve", "image"):
        model = parsed.positionals[0]
        engine.settings.setdefault("model", Located(model.text, model.origin))
    if parsed.positionals:
        engine.positionals = Located(
            [t.text for t in parsed.positionals], parsed.positionals[0].origin
        )
    _derived(server, engine)
    return parsed


def _apply_inputs(
    inputs: Sequence[SettingInput],
    env: Mapping[str, str],
    flags: dict[str, Located[str]],
    engine: Engine,
) -> None:
    """The settings read from keys, each under its flag in ``engine.flags``."""
    for item in inputs:
        # Kubernetes expands $(VAR) in the args the chart renders the key into.
        raw = expand_k8s_vars(item.text(), env)
        flags[item.flag] = Located(raw, item.origin)
        if item.setting is None:
            continue
        if isinstance(item.value, list) and item.setting.kind not in _LIST_KINDS:
            # How a chart renders a list into a flag is the chart's own (Go's templates
            # print [8192]): a value servelint cannot read, not its first item.
            _unparsed(engine, item.setting.name, item.written(), item.origin)
            continue
        if item.setting.kind == "bool" and to_bool(item.value) is None:
            # A switch whose key holds a template or a variable: on or off is not known.
            _unparsed(engine, item.setting.name, item.written(), item.origin)
            continue
        if item.setting.kind == "bool":
            value: Any = not item.switched_off
        else:
            value = convert(item.setting.kind, raw)
        _apply(engine, item.setting, raw, value, item.origin)


# Settings whose value is a list (a flag with several values, or one given many times).
_LIST_KINDS = frozenset({"ints", "csv", "multi"})


# Entry points whose arguments go straight to the server's own parser.
_SERVER_ENTRYPOINTS = frozenset(
    {
        "vllm serve",
        "vllm.entrypoints.openai.api_server",
        "sglang serve",
        "sglang.launch_server",
        "text-generation-launcher",
        "tritonserver",
    }
)


def _cli_flags(
    parsed: ParsedArgs, call: Invocation, official: bool, engine: Engine, fallback: Origin
) -> None:
    """``engine.cli_flags``: every flag as written on the command line, with the server's
    verdict for the image's release (see ``flagtables.Verdict``), each at its own token.

    ``command_line`` is true when the arguments reach the server's parser as written: an
    explicit server command, or arguments to an official server image's entrypoint (a
    wrapper image's entrypoint may take flags of its own). ``official_image`` is true for
    the server's own release images; another image may run a fork or a plugin with flags
    no upstream release has.
    """
    command_line = call.entrypoint in _SERVER_ENTRYPOINTS or (
        call.entrypoint == "image" and official
    )
    # `sglang serve` takes --model-type itself, then starts the LLM server (the parser the
    # table lists) or, for a diffusion model, another server with flags of its own
    # (sglang/cli/serve.py at v0.5.23: _extract_model_type_override, _detect_diffusion).
    dispatched = call.entrypoint == "sglang serve"
    model_type = next((f.raw for f in parsed.flags if f.flag == "--model-type"), "")
    parser_known = not dispatched or model_type == "llm"
    items: list[Located[CliFlag]] = []
    for flag in parsed.written:
        verdict = flag.verdict
        if dispatched and flag.name == "--model-type":
            verdict = verdict._replace(status="accepted", flag="--model-type")
        # Facts of the server's flag tables: the token's origin covers them.
        record = CliFlag(
            written=flag.name,
            flag=verdict.flag,
            dest=verdict.dest,
            status=verdict.status,
            accepted_in=verdict.accepted_in,
            removed_in=verdict.removed_in,
            removed_on=verdict.removed_on,
            replacement=verdict.replacement,
            candidates=list(verdict.candidates),
            newest=verdict.newest,
            oldest=verdict.oldest,
            source=verdict.source,
            command_line=command_line,
            # A server's own release image: no fork or plugin adds flags to it.
            official_image=official,
            # The command line reaches one parser the table knows (not a dispatcher that
            # may start another server).
            parser_known=parser_known,
            key_reaches=False,
        )
        items.append(Located(record, flag.origin))
    if items:
        engine.cli_flags = Located(items, fallback)


def _apply(
    engine: Engine,
    setting: Setting,
    raw: str,
    value: Any,
    origin: Origin,
    subkey: str | None = None,
) -> None:
    """Put one setting's typed value (None: ``raw`` does not read as its kind)."""
    name = setting.name
    settings = engine.settings
    if subkey is not None:  # -cc.cudagraph_mode=FULL merges into compilation_config
        current = engine.value(name)
        merged = dict(current) if isinstance(current, dict) else {}
        merged[subkey] = value
        settings[name] = Located(merged, origin)
        return
    if value is None:
        # argparse keeps the last occurrence: an unreadable last value hides earlier ones.
        settings.pop(name, None)
        _unparsed(engine, name, raw, origin)
        return
    if setting.kind == "multi":
        current = engine.value(name)
        value = [*current, *value] if isinstance(current, list) else value
        settings[name] = Located(value, origin)
        return
    settings[name] = Located(value, origin)
    if engine.unparsed is not None:
        engine.unparsed.value.pop(name, None)


def mark_unparsed(engine: Engine, name: str, raw: str, origin: Origin) -> None:
    """A setting a front end states in a form that does not read as its type."""
    _unparsed(engine, name, raw, origin)


def _unparsed(engine: Engine, name: str, raw: str, origin: Origin) -> None:
    """A value that does not read as the setting's type (a Helm leftover, ``$(VAR)``, …)."""
    table = engine.unparsed.value if engine.unparsed is not None else {}
    table[name] = Located(raw, origin)
    engine.unparsed = Located(table, origin)


def _derived(server: str, engine: Engine) -> None:
    model_setting = MODEL_SETTING.get(server)
    found = engine.setting(model_setting) if model_setting else None
    if found is not None:
        engine.model_id = found
    if server == "vllm":
        config = engine.setting("compilation_config")
        if config is not None and isinstance(config.value, dict):
            for key in _CC_LIFTED:
                if key in config.value and key not in engine.settings:
                    kind = registry.by_name("vllm", key)
                    value = convert(kind.kind, config.value[key]) if kind else None
                    if value is not None:
                        engine.settings[key] = Located(value, config.origin)
    found = engine.setting("config")
    if found is not None:
        engine.config_file = found


def tokens_of(values: list[Any], origin_of: Any) -> list[Token]:
    """List items as tokens, each at its own item's origin."""
    return [
        Token(_text(v), origin_of(i))
        for i, v in enumerate(values)
        if v is not None and not isinstance(v, dict | list)
    ]


def _text(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)
