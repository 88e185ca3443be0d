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

from linter.model import registry
from linter.model.args import ParsedArgs, Token, convert, parse_args
from linter.model.command import Invocation, expand_k8s_vars
from linter.model.facts import Facts
from linter.model.images import ImageInfo, version_tuple
from linter.model.registry import Setting
from linter.model.setting_input import SettingInput
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


def engine_facts(
    server: str,
    image: ImageInfo | None,
    image_origin: Origin,
    call: Invocation,
    env: Mapping[str, EnvValue],
    facts: Facts,
    inputs: Sequence[SettingInput] = (),
    args_start: int | None = None,
) -> None:
    """The ``engine`` facts of a server container.

    ``inputs`` are the settings the front end read from keys; ``args_start`` is where the
    container's ``args`` begin in ``call.args`` (None when they do not reach the server's
    parser as a whole: a shell script, an unknown wrapper): the chart renders the keys
    there, so they win over the command's flags and lose to the args."""
    put = facts.put
    if server:
        put(("engine", "name"), server, image_origin)
    if image is not None:
        put(("engine", "image"), image.image, image_origin)
        if image.version:
            put(("engine", "version"), image.version, image_origin)
            # Numbers for comparisons in CEL: 0.8.5.post1 → [0, 8, 5, 1].
            put(("engine", "version_parts"), list(version_tuple(image.version)), image_origin)
        put(("engine", "version_pinned"), image.pinned, image_origin)
    if call.entrypoint:
        origin = call.args[0].origin if call.args else image_origin
        put(("engine", "entrypoint"), call.entrypoint, origin)
    put(
        ("engine", "args"),
        [t.text for t in call.args],
        call.args[0].origin if call.args else image_origin,
    )
    all_env = {**env, **{k: EnvValue(t.text, t.origin) for k, t in call.env.items()}}
    put(("engine", "env"), {k: v.value for k, v in all_env.items()}, image_origin)
    for name, item in all_env.items():
        facts.origins[("engine", "env", name)] = item.origin
    if server in _ENV_SERVERS:
        _env_settings(server, all_env, facts)
    version = image.version if image is not None else ""
    # Keys reach the server only where the container's args do (see ``args_start``).
    keyed = inputs if args_start is not None else ()
    literal_env = {k: v.value for k, v in env.items()}
    parsed = _flag_settings(
        server, call, facts, image_origin, version, keyed, args_start or 0, literal_env
    )
    official = image is not None and image.official
    _cli_flags(parsed, call, official, facts, image_origin)


def _env_settings(server: str, env: Mapping[str, EnvValue], facts: Facts) -> None:
    for name, item in env.items():
        setting = registry.by_env(server, name)
        if setting is None:
            continue
        value = convert(setting.kind, item.value)
        if value is None:
            _unparsed(facts, setting.name, item.value, item.origin)
        else:
            facts.put(("engine", setting.name), value, item.origin)


def _flag_settings(
    server: str,
    call: Invocation,
    facts: Facts,
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
    flags: dict[str, str] = {}
    inline: list[str] = []

    for index, flag in enumerate(parsed.flags):
        if index == keys_at:
            _apply_inputs(inputs, env, flags, facts)
        flags[flag.flag] = flag.raw
        facts.origins[("engine", "flags", flag.flag)] = flag.origin
        if flag.inline_bool is not None:
            facts.origins[("engine", "inline_bool_flags", len(inline))] = flag.origin
            inline.append(flag.inline_bool)
        if flag.setting is not None:
            _apply(facts, flag.setting, flag.raw, flag.value, flag.origin, flag.subkey)
    if keys_at >= len(parsed.flags):
        _apply_inputs(inputs, env, flags, facts)
    facts.put(("engine", "flags"), flags, fallback)
    facts.put(("engine", "inline_bool_flags"), inline, fallback)
    if server == "vllm" and parsed.positionals and call.entrypoint in ("vllm serve", "image"):
        model = parsed.positionals[0]
        if not facts.has(("engine", "model")):
            facts.put(("engine", "model"), model.text, model.origin)
    if parsed.positionals:
        facts.put(
            ("engine", "positionals"),
            [t.text for t in parsed.positionals],
            parsed.positionals[0].origin,
        )
    _derived(server, facts)
    return parsed


def _apply_inputs(
    inputs: Sequence[SettingInput], env: Mapping[str, str], flags: dict[str, str], facts: Facts
) -> None:
    """The settings read from keys, each under its flag in ``engine.flags``."""
    for item in inputs:
        # Kubernetes expands $(VAR) in the args the chart renders the key into.
        raw = expand_k8s_vars(item.text(), env)
        flags[item.flag] = raw
        facts.origins[("engine", "flags", item.flag)] = item.origin
        if item.setting is None:
            continue
        if item.setting.kind == "bool":
            value: Any = not item.switched_off
        else:
            value = convert(item.setting.kind, raw)
        _apply(facts, item.setting, raw, value, item.origin)


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
    parsed: ParsedArgs, call: Invocation, official: bool, facts: Facts, fallback: Origin
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
    items = []
    for index, flag in enumerate(parsed.written):
        verdict = flag.verdict
        if dispatched and flag.name == "--model-type":
            verdict = verdict._replace(status="accepted", flag="--model-type")
        items.append(
            {
                "written": flag.name,
                "flag": verdict.flag,
                "dest": verdict.dest,
                "status": verdict.status,
                "accepted_in": verdict.accepted_in,
                "removed_in": verdict.removed_in,
                "removed_on": verdict.removed_on,
                "replacement": verdict.replacement,
                "candidates": list(verdict.candidates),
                "newest": verdict.newest,
                "oldest": verdict.oldest,
                "source": verdict.source,
                "command_line": command_line,
                # A server's own release image: no fork or plugin adds flags to it.
                "official_image": official,
                # The command line reaches one parser the table knows (not a dispatcher
                # that may start another server).
                "parser_known": parser_known,
            }
        )
        facts.origins[("engine", "cli_flags", index)] = flag.origin
    if items:
        facts.put(("engine", "cli_flags"), items, fallback)


def _apply(
    facts: Facts,
    setting: Setting,
    raw: str,
    value: Any,
    origin: Origin,
    subkey: str | None = None,
) -> None:
    """Put one setting's typed value (None: ``raw`` does not read as its kind)."""
    name = setting.name
    if subkey is not None:  # -cc.cudagraph_mode=FULL merges into compilation_config
        current = facts.get(("engine", name))
        merged = dict(current) if isinstance(current, dict) else {}
        merged[subkey] = value
        facts.put(("engine", name), merged, origin)
        return
    if value is None:
        # argparse keeps the last occurrence: an unreadable last value hides earlier ones.
        facts.data.get("engine", {}).pop(name, None)
        _unparsed(facts, name, raw, origin)
        return
    if setting.kind == "multi":
        current = facts.get(("engine", name))
        value = [*current, *value] if isinstance(current, list) else value
        facts.put(("engine", name), value, origin)
        return
    facts.put(("engine", name), value, origin)
    unparsed = facts.get(("engine", "unparsed"))
    if isinstance(unparsed, dict):
        unparsed.pop(name, None)


def _unparsed(facts: Facts, name: str, raw: str, origin: Origin) -> None:
    """A value that does not read as the setting's type (a Helm leftover, ``$(VAR)``, …)."""
    current = facts.get(("engine", "unparsed"))
    table = current if isinstance(current, dict) else {}
    table[name] = raw
    facts.put(("engine", "unparsed"), table, origin)
    facts.origins[("engine", "unparsed", name)] = origin


def _derived(server: str, facts: Facts) -> None:
    model_setting = MODEL_SETTING.get(server)
    if model_setting and facts.has(("engine", model_setting)):
        facts.put(
            ("engine", "model_id"),
            facts.get(("engine", model_setting)),
            facts.origins.get(("engine", model_setting)),
        )
    if server == "vllm":
        config = facts.get(("engine", "compilation_config"))
        if isinstance(config, dict):
            origin = facts.origins.get(("engine", "compilation_config"))
            for key in _CC_LIFTED:
                if key in config and not facts.has(("engine", key)):
                    kind = registry.by_name("vllm", key)
                    value = convert(kind.kind, config[key]) if kind else None
                    if value is not None:
                        facts.put(("engine", key), value, origin)
    if facts.has(("engine", "config")):
        facts.put(
            ("engine", "config_file"),
            facts.get(("engine", "config")),
            facts.origins.get(("engine", "config")),
        )


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
