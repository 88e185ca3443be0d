"""What counts as a secret, and how a secret is shown: never.

One predicate for every front end (lint and drift), so that a name masked in one output is
masked in all of them. A *reference* to a secret (``secretKeyRef``, ``tokenSecretName``,
``keyFile``) is not a secret and is shown as written (README, "Security").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

from linter.lazyregex import lazy_compile

MASK = "****"

# Whole words only: "tokens" (max_total_tokens), "keepalive" and "monkey" are not secrets.
_SECRET_WORDS = frozenset(
    {
        "token",
        "password",
        "passwd",
        "secret",
        "key",
        "apikey",
        "credential",
        "credentials",
        "passphrase",
        "pass",
        "pwd",
    }
)
# A final word that turns a secret-looking name into a pointer to the secret.
_REFERENCE_WORDS = frozenset({"name", "names", "ref", "path", "file", "dir", "id", "env", "mount"})
# Words that make a name a count or a size: ``--max-num-batched-token`` and
# ``max_new_token`` hold numbers of tokens, never a credential.
_QUANTITY_WORDS = frozenset(
    {
        "max",
        "min",
        "num",
        "total",
        "batched",
        "batch",
        "prefill",
        "input",
        "output",
        "new",
        "count",
        "size",
        "limit",
        "budget",
        "per",
        "length",
        "len",
        "window",
        "chunk",
    }
)
_WORD = lazy_compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Values that are secrets whatever their key, by their shape: Hugging Face, OpenAI-style
# and GitHub tokens, AWS access key ids, JSON Web Tokens, and the credentials of HTTP
# ``Authorization`` headers. Sources of the formats:
# https://huggingface.co/docs/hub/security-tokens,
# https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats,
# https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids,
# https://datatracker.ietf.org/doc/html/rfc7519#section-3 (JWT),
# https://datatracker.ietf.org/doc/html/rfc6750#section-2.1 (Bearer),
# https://datatracker.ietf.org/doc/html/rfc7617#section-2 (Basic).
_TOKEN_SHAPES = (
    r"hf_[A-Za-z0-9]{20,}",
    r"sk-[A-Za-z0-9_-]{20,}",
    r"gh[pousr]_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
)
_SECRET_VALUE = lazy_compile(r"^(?:" + "|".join(_TOKEN_SHAPES) + r")$")
_TOKEN_IN_TEXT = lazy_compile(
    r"(?<![A-Za-z0-9_])(?:" + "|".join(_TOKEN_SHAPES) + r")(?![A-Za-z0-9_])"
)
# ``Authorization: Bearer <token>`` and ``Basic <base64>``: the credentials, not the word.
# A credential has a digit or a symbol of its alphabet: "basic authentication" is prose.
_AUTH_SCHEME = lazy_compile(
    r"(?i)\b(?P<scheme>bearer|basic)(?P<sep>\s+|%20)"
    r"(?P<value>(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,})"
)
# ``scheme://user:password@host``: the password (``redis://:pw@host`` has no user).
_URL_PASSWORD = lazy_compile(
    r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@'\"]*:)(?P<value>[^\s/?#@'\"]+)(?=@)"
)
# ``--api-key VALUE``, ``--api-key=VALUE`` and ``HF_TOKEN=VALUE`` inside a shell string.
_VALUE = r"(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"']+)"
_FLAG_IN_TEXT = lazy_compile(r"(?P<flag>--?[A-Za-z][\w.-]*)(?P<sep>=|\s+)" + _VALUE)
_ASSIGN_IN_TEXT = lazy_compile(r"\b(?P<flag>[A-Za-z_][A-Za-z0-9_]*)(?P<sep>=)" + _VALUE)


# ``"api_key": "V"``, ``'api_key': 'V'``, ``api_key: V`` and ``api_key=V`` inside a longer
# text: JSON or YAML held in a string (a ConfigMap's ``config.json``, a vLLM argument such as
# ``--kv-transfer-config '{"api_key": ...}'``) or a Python dict a log printed. Keys are found
# first and a value is read only behind a secret name; a value is at most _KEYED_MAX
# characters and never crosses a line, so a hostile text costs a bounded scan per key.
_KEYED_MAX = 8192
_KEYED_KEY = lazy_compile(
    r"(?<![\w.-])(?P<quote>[\"']?)(?P<key>[A-Za-z_][\w.-]{0,200})(?P=quote)[ \t]*[:=][ \t]*"
)
_KEYED_VALUE = lazy_compile(
    (
        r"\"(?P<double>(?:[^\"\\\n]|\\.){1,MAX})\""
        r"|'(?P<single>(?:[^'\\\n]|\\.){1,MAX})'"
        r"|(?P<bare>[^\s\"',}\]{\[#][^\s,}\]]{0,MAX})"
    ).replace("MAX", str(_KEYED_MAX))
)


def words(name: str) -> list[str]:
    """``HF_TOKEN`` → [hf, token]; ``apiKey`` → [api, key]; ``--api-key`` → [api, key]."""
    return [w.lower() for w in _WORD.findall(name)]


# Called for every key and flag of every input (redaction and the literal-secret check);
# names repeat, so the answers are kept.
@functools.lru_cache(maxsize=16384)
def is_secret_name(name: str) -> bool:
    """True for names that hold a secret: ``HF_TOKEN``, ``OPENAI_API_KEY``, ``--api-key``,
    ``password``, ``clientSecret``, ``DB_PASS``; false for ``max_total_tokens`` and
    ``secretKeyRef``."""
    parts = words(name)
    if not parts or not any(w in _SECRET_WORDS for w in parts):
        return False
    # A bare "key" is a map or selector key (secretKeyRef.key, Triton); a bare "pwd" is
    # the shell's working folder; a bare "pass" is a verb (a test step, a hook stage).
    if parts in (["key"], ["pwd"], ["pass"]):
        return False
    if any(w in _QUANTITY_WORDS for w in parts):
        return False
    return not (len(parts) > 1 and parts[-1] in _REFERENCE_WORDS)


def is_secret_value(value: object) -> bool:
    """A literal that is a token whatever key it sits under (``hf_...``, ``sk-...``,
    ``AKIA...``, a JWT)."""
    return isinstance(value, str) and _SECRET_VALUE.match(value.strip()) is not None


# Vendor token prefixes whose tokens have a fixed, long body (NGC keys are ``nvapi-`` and
# 64 characters; Hugging Face, OpenAI and GitHub tokens match _TOKEN_SHAPES).
_TOKEN_PREFIXES = ("nvapi-", "hf_", "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")


def is_truncated_token(value: str) -> bool:
    """``nvapi-NVKEY``, ``hf_TOKEN``: a vendor's token prefix followed by less than any real
    token of that vendor, as documentation examples write it."""
    return value.startswith(_TOKEN_PREFIXES) and not is_secret_value(value) and len(value) < 24


def url_passwords(text: str) -> list[str]:
    """The passwords written into URLs of ``text`` (``redis://:pw@host``)."""
    return [m["value"] for m in _URL_PASSWORD.finditer(text)]


def embedded_credentials(text: str) -> list[str]:
    """Credentials inside a longer text: URL passwords, ``Bearer``/``Basic`` credentials
    and tokens recognisable by their shape (``Authorization: Bearer eyJ...``)."""
    found = url_passwords(text) if "://" in text else []
    found += [m["value"] for m in _AUTH_SCHEME.finditer(text)]
    if _may_hold_token(text):
        found += [m.group(0) for m in _TOKEN_IN_TEXT.finditer(text)]
    return list(dict.fromkeys(found))


# The literal start of every token shape: a text without one holds no token (every
# string of every input is searched, and few hold one).
_TOKEN_STARTS = ("hf_", "sk-", "gh", "github_pat_", "AKIA", "ASIA", "eyJ")


def _may_hold_token(text: str) -> bool:
    return any(start in text for start in _TOKEN_STARTS)


def keyed_pairs(text: str) -> list[tuple[str, str]]:
    """(key, value) of every secret-named key written with its value inside ``text``
    (``{"api_key": "V"}``, ``{'hf_token': 'V'}``, ``password: V``), the value unquoted and
    unescaped as its quotes say."""
    out = []
    for key, value in _keyed(text):
        if value["double"] is not None:
            out.append((key["key"], _json_unquoted(value["double"])))
        elif value["single"] is not None:
            out.append((key["key"], value["single"].replace("\\'", "'").replace("\\\\", "\\")))
        elif not _inert(value["bare"]):
            out.append((key["key"], value["bare"]))
    return out


def mask_keyed(text: str) -> str:
    """``text`` with the value of every secret-named key inside it masked, its quotes kept."""
    if ":" not in text and "=" not in text:
        return text
    parts: list[str] = []
    done = 0
    for _, value in _keyed(text):
        group = next(g for g in ("double", "single", "bare") if value[g] is not None)
        if group == "bare" and _inert(value["bare"]):
            continue
        parts += [text[done : value.start(group)], MASK]
        done = value.end(group)
    return "".join(parts) + text[done:] if parts else text


def _keyed(text: str) -> Iterator[tuple[re.Match[str], re.Match[str]]]:
    """The key and value matches of secret-named keys; scanning resumes after each value,
    so a value is read once."""
    position = 0
    while (key := _KEYED_KEY.search(text, position)) is not None:
        position = key.end()
        if not is_secret_name(key["key"]):
            continue
        value = _KEYED_VALUE.match(text, position)
        if value is not None:
            position = value.end()
            yield key, value


def _inert(value: str) -> bool:
    """A bare value that holds nothing: null, a boolean, a number, a reference."""
    return (
        value.lower() in ("null", "none", "~", "true", "false")
        or value.replace(".", "", 1).isdigit()
        or value.startswith(("$", "{{"))
    )


def _json_unquoted(text: str) -> str:
    import json

    try:
        decoded = json.loads(f'"{text}"')
    except ValueError:
        return text
    return decoded if isinstance(decoded, str) else text


def mask_shapes(text: str) -> str:
    """``text`` with every secret recognisable by its shape masked: tokens, AWS access
    key ids, JWTs, ``Bearer``/``Basic`` credentials and passwords in URLs."""
    if not text:
        return text
    if _may_hold_token(text):
        text = _TOKEN_IN_TEXT.sub(MASK, text)
    text = _AUTH_SCHEME.sub(lambda m: f"{m['scheme']}{m['sep']}{MASK}", text)
    if "://" not in text:
        return text
    return _URL_PASSWORD.sub(lambda m: f"{m['head']}{MASK}", text)


def mask(value: object) -> str:
    """The one way a secret is shown. Its length and prefix are not revealed either."""
    return MASK


def is_secret_path(path: Sequence[str | int]) -> bool:
    """A value at ``path`` is secret when its key is a secret name, or when it is the
    ``value`` of an entry named like one (``env.HF_TOKEN.value``). Anything under a
    reference (``valueFrom.secretKeyRef``) is a pointer, not a secret."""
    keys = [p for p in path if isinstance(p, str)]
    if any(_is_reference(k) for k in keys):
        return False
    if not keys:
        return False
    if is_secret_name(keys[-1]):
        return True
    return keys[-1] == "value" and len(keys) > 1 and is_secret_name(keys[-2])


@functools.lru_cache(maxsize=16384)
@functools.lru_cache(maxsize=4096)
def _is_reference(key: str) -> bool:
    compact = key.lower().replace("_", "").replace("-", "")
    return compact in ("secretkeyref", "secretref", "valuefrom", "secretname")


def mask_value(path: Sequence[str | int], value: Any) -> Any:
    """``value`` with every secret leaf under ``path`` masked (containers are copied)."""
    if isinstance(value, dict):
        # An env entry ({name: HF_TOKEN, value: ...}) is secret by its name, not its key.
        named = isinstance(value.get("name"), str) and is_secret_name(value["name"])
        return {
            k: mask(v) if named and k == "value" and v is not None else mask_value((*path, k), v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            return mask_args(value) if not is_secret_path(path) else [MASK for _ in value]
        return [mask_value((*path, i), v) for i, v in enumerate(value)]
    if value is None or isinstance(value, bool):
        return value
    if is_secret_path(path) or is_secret_value(value):
        return mask(value)
    if isinstance(value, str):
        return mask_text(value)
    return value


def mask_args(args: Sequence[str]) -> list[str]:
    """Container args with the value of every secret flag masked:
    ``["--api-key", "abc"]`` → ``["--api-key", "****"]``; ``--api-key=abc`` → ``--api-key=****``."""
    out: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next:
            out.append(MASK)
            hide_next = False
            continue
        if arg.startswith("-") and "=" in arg:
            flag, _, value = arg.partition("=")
            out.append(f"{flag}={MASK}" if is_secret_name(flag) or is_secret_value(value) else arg)
        elif arg.startswith("-") and is_secret_name(arg):
            out.append(arg)
            hide_next = True
        else:
            out.append(MASK if is_secret_value(arg) else mask_text(arg))
    return out


def mask_text(text: str) -> str:
    """A shell string (``vllm serve m --api-key abc``, ``HF_TOKEN=abc vllm serve``) with
    secret flag and variable values masked, and secrets recognisable by their shape
    (``mask_shapes``); other text unchanged."""
    text = mask_keyed(mask_shapes(text))
    if "=" not in text and " " not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        if is_secret_name(match["flag"]) or is_secret_value(match["value"].strip("'\"")):
            return f"{match['flag']}{match['sep']}{MASK}"
        return match.group(0)

    return _ASSIGN_IN_TEXT.sub(replace, _FLAG_IN_TEXT.sub(replace, text))
