"""Which server a container runs, from its image and command, and the server's own arguments.

A container's argv is ``command + args`` (Kubernetes replaces the image's ENTRYPOINT with
``command`` and its CMD with ``args``). A shell wrapper (``sh -c "…"``) is split with
shlex into simple commands; the one that starts a server gives the arguments, tolerating
``&&``, ``;``, ``exec``, environment assignments, redirections and Helm leftovers.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from linter.lazyregex import lazy_compile
from linter.model.engine.args import Token
from linter.positions import Origin

_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh"})
_PYTHON = lazy_compile(r"^python(\d+(\.\d+)?)?$")
_PREFIXES = frozenset({"exec", "env", "nohup", "time", "command", "stdbuf", "setsid"})
_ASSIGNMENT = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_K8S_VAR = lazy_compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_SHELL_VAR = lazy_compile(
    r"\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?-)(?P<default>[^}]*))?\}"
    r"|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)"
)
_PYTHON_MODULES = {
    "vllm.entrypoints.openai.api_server": ("vllm", "vllm.entrypoints.openai.api_server"),
    "vllm.entrypoints.api_server": ("vllm", "vllm.entrypoints.api_server"),
    # vLLM's gRPC server (vllm/entrypoints/grpc_server.py): no HTTP endpoint, no /health.
    "vllm.entrypoints.grpc_server": ("vllm", "vllm.entrypoints.grpc_server"),
    "sglang.launch_server": ("sglang", "sglang.launch_server"),
}


class Invocation(NamedTuple):
    """How a container starts its server (``server`` is empty when none was recognised)."""

    server: str
    entrypoint: str
    args: list[Token]
    env: dict[str, Token]  # assignments written in a shell script before the server
    script: bool
    tokens: list[Token]  # every token of the argv (shell scripts split), for other facts


def expand_k8s_vars(text: str, env: Mapping[str, str]) -> str:
    """Kubernetes' ``$(VAR)`` expansion in command/args (``$$`` escapes a dollar)."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return env.get(name, match.group(0))

    return _K8S_VAR.sub(replace, text) if "$" in text else text


def expand_shell_vars(text: str, env: Mapping[str, str]) -> str:
    """``text`` with the shell's ``${NAME:-default}``, ``${NAME-default}``, ``${NAME}`` and
    ``$NAME`` expanded from ``env`` (Docker Compose interpolates the same forms):
    ``:-`` takes the default when the variable is unset or empty, ``-`` only when unset;
    a variable ``env`` does not hold and that has no default stays as written."""
    if "$" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        value = env.get(name)
        op = match.group("op")
        if op == ":-" and not value:
            return match.group("default")
        if op == "-" and value is None:
            return match.group("default")
        return value if value is not None else match.group(0)

    return _SHELL_VAR.sub(replace, text)


def invocation(
    command: Sequence[Token], args: Sequence[Token], image_server: str, env: Mapping[str, str]
) -> Invocation:
    """Find the server invocation in a container's command and args."""
    argv = [t._replace(text=expand_k8s_vars(t.text, env)) for t in (*command, *args)]
    if not command and args and not _starts_server(args[0].text) and not _is_shell(args[0].text):
        # args alone feed the image's own ENTRYPOINT (the server, for server images).
        return Invocation(image_server, "image", list(argv), {}, False, list(argv))
    found = _find_server(argv, env)
    if found is not None:
        return found
    script = _shell_script(argv)
    if script is not None:
        commands = split_script(script.text, script.origin, env, script.block)
        tokens = [t for cmd in commands for t in cmd]
        for cmd in commands:
            hit = _find_server(cmd, env, script=True)
            if hit is not None:
                return hit._replace(tokens=tokens)
        return Invocation(image_server, "", [], {}, True, tokens)
    entry = "image" if not argv else ""
    return Invocation(image_server, entry, [], {}, False, argv)


def _find_server(
    argv: Sequence[Token], env: Mapping[str, str], script: bool = False
) -> Invocation | None:
    assigned: dict[str, Token] = {}
    leading = True
    for i, token in enumerate(argv):
        text = token.text
        if leading and _ASSIGNMENT.match(text):
            name, _, value = text.partition("=")
            assigned[name] = Token(value, token.origin)
            continue
        if text not in _PREFIXES:
            leading = False
        base = os.path.basename(text)
        nxt = argv[i + 1].text if i + 1 < len(argv) else ""
        if base == "vllm" and nxt == "serve":
            return Invocation(
                "vllm", "vllm serve", list(argv[i + 2 :]), assigned, script, list(argv)
            )
        if base == "sglang" and nxt == "serve":
            return Invocation(
                "sglang", "sglang serve", list(argv[i + 2 :]), assigned, script, list(argv)
            )
        if base == "text-generation-launcher":
            return Invocation("tgi", base, list(argv[i + 1 :]), assigned, script, list(argv))
        if base == "tritonserver":
            rest = list(argv[i + 1 :])
            cut = next((k for k, t in enumerate(rest) if t.text == ":"), len(rest))
            return Invocation("triton", base, rest[:cut], assigned, script, list(argv))
        if _PYTHON.match(base):
            module = _python_module(argv, i)
            if module is not None:
                server, entry, start = module
                return Invocation(server, entry, list(argv[start:]), assigned, script, list(argv))
    return None


def _python_module(argv: Sequence[Token], i: int) -> tuple[str, str, int] | None:
    j = i + 1
    while j < len(argv) and argv[j].text.startswith("-") and argv[j].text != "-m":
        j += 1  # interpreter options such as -u
    if j + 1 < len(argv) and argv[j].text == "-m" and argv[j + 1].text in _PYTHON_MODULES:
        server, entry = _PYTHON_MODULES[argv[j + 1].text]
        return server, entry, j + 2
    return None


def _starts_server(text: str) -> bool:
    base = os.path.basename(text)
    return base in ("vllm", "sglang", "text-generation-launcher", "tritonserver") or bool(
        _PYTHON.match(base)
    )


def _is_shell(text: str) -> bool:
    return os.path.basename(text) in _SHELLS


def _shell_script(argv: Sequence[Token]) -> Token | None:
    """The script of ``sh -c SCRIPT`` (options such as ``-ec``, ``-eucx`` allowed)."""
    start = 0
    if argv and os.path.basename(argv[0].text) == "env":
        start = 1
    if len(argv) <= start or not _is_shell(argv[start].text):
        return None
    for k in range(start + 1, len(argv)):
        text = argv[k].text
        if text.startswith("-") and "c" in text[1:] and not text.startswith("--"):
            return argv[k + 1] if k + 1 < len(argv) else None
        if not text.startswith("-"):
            return None
    return None


def split_script(
    text: str, origin: Origin, env: Mapping[str, str], block: tuple[int, int] | None = None
) -> list[list[Token]]:
    """A shell script as simple commands (lists of tokens).

    Tokens are at the script's origin; when the script is a YAML literal block scalar
    (``block`` = its first content line and indentation), each token is at its own line.
    """
    blank = _strip_comments(text)
    source = blank.replace("\\\r\n", " ").replace("\\\n", " ")
    words = _merge_substitutions(_shell_words(source))
    commands: list[list[Token]] = []
    current: list[Token] = []
    skip_next = False
    cursor = 0
    for word in words:
        punctuation = bool(word) and all(ch in "();<>|&\n" for ch in word)
        if skip_next:
            skip_next = False
            continue
        if punctuation:
            if "<" in word or ">" in word:
                if current and current[-1].text.isdigit():
                    current.pop()  # the "2" of 2>&1
                skip_next = not word.endswith("&") or word == ">&"
                continue
            if current:
                commands.append(current)
            current = []
            continue
        at = origin
        if block is not None:
            at, cursor = _token_origin(blank, word, cursor, origin, block)
        current.append(Token(expand_shell_vars(word, env), at))
    if current:
        commands.append(current)
    return [_strip_prefixes(cmd) for cmd in commands]


def _token_origin(
    blank: str, word: str, cursor: int, origin: Origin, block: tuple[int, int]
) -> tuple[Origin, int]:
    """The file position of ``word`` in a literal block, searching forward from ``cursor``."""
    needle = word.split("\n", 1)[0].split(" ", 1)[0]
    found = blank.find(needle, cursor) if needle else -1
    if found < 0:
        return origin, cursor
    line = blank.count("\n", 0, found)
    column = found - (blank.rfind("\n", 0, found) + 1)
    first_line, indent = block
    return origin._replace(line=first_line + line, column=indent + column + 1), found + len(needle)


def _strip_comments(text: str) -> str:
    """Blank out ``# …`` comments, keeping every offset (an apostrophe in a comment must
    not open a quote, and token positions must still map to lines)."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"' and i + 1 < len(text):
                out.append(text[i : i + 2])
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n;&|("):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _merge_substitutions(words: list[str]) -> list[str]:
    """Keep ``$(…)`` and ``$((…))`` inside the word they belong to (not as separators)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if not (word.endswith("$") and i + 1 < len(words) and words[i + 1].startswith("(")):
            out.append(word)
            i += 1
            continue
        depth = 0
        parts = [word]
        i += 1
        while i < len(words):
            token = words[i]
            depth += token.count("(") - token.count(")")
            if depth <= 0 and ")" in token:
                cut = len(token)
                while depth < 0:  # give back parentheses that close something outside
                    cut = token.rfind(")", 0, cut)
                    depth += 1
                closing = token.rfind(")", 0, cut) + 1
                parts.append(token[:closing])
                rest = token[closing:]
                if rest:
                    words.insert(i + 1, rest)
                i += 1
                break
            parts.append(token)
            i += 1
        out.append(" ".join(parts))
    return out


def _shell_words(source: str) -> list[str]:
    lexer = shlex.shlex(source, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        # Unbalanced quotes (often a Helm leftover): fall back to whitespace words.
        return [w for line in source.split("\n") for w in (*line.split(), "\n")]


def _strip_prefixes(command: list[Token]) -> list[Token]:
    i = 0
    while i < len(command) and command[i].text in _PREFIXES:
        i += 1
    return command[i:]
