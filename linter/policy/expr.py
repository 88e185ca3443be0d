"""CEL expressions. The only module that imports the CEL runtime (cel-expr-python)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_math, ext_strings

from linter.errors import ExpressionError
from linter.lazyregex import lazy_compile
from linter.lightclass import frozen
from linter.policy.cel_forms import slimmed
from linter.policy.helpers import SIGNATURES


def _pin_none() -> None:
    """Keep ``None`` alive despite a reference-count bug in the CEL runtime.

    cel-expr-python 0.1.3 drops a reference to ``None`` each time a null result is turned
    back into Python (and sometimes when a map holding a null is read). On
    Python 3.11, where ``None`` is an ordinary object, a long run over YAML with nulls
    drives its count to zero and the interpreter aborts ("none_dealloc"). Python 3.12 and
    newer make ``None`` immortal, which is exactly the fix; on 3.11 we add a large count
    up front so that no run can reach zero.
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    # ob_refcnt is the first field of every CPython object, at the object's address.
    _ssize_t().from_address(id(None)).value += 1 << 40


def _ssize_t() -> Any:
    """ctypes' ``c_ssize_t``, made from the C module ctypes is built on: importing ctypes
    itself (which sets up every C type and the Python API) costs 2 ms of every run."""
    try:
        from _ctypes import _SimpleCData

        # Py_ssize_t is as wide as a pointer: long long on 64-bit platforms, int on 32-bit.
        return type("c_ssize_t", (_SimpleCData,), {"_type_": "q" if sys.maxsize > 2**32 else "i"})
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another build
        import ctypes

        return ctypes.c_ssize_t


_pin_none()

# Every name an expression can see. Keeping one environment for all targets lets a
# policy be type-checked once, whatever it targets.
VARIABLES = ("doc", "workload", "variables", "item", "index", "params")
_POSITION = lazy_compile(r"<input>:(\d+):(\d+): (.*?)(?:\n|$)")
_NO_POSITION = lazy_compile(r"^ERROR: <input>:-?\d+:-?\d+: ")


@frozen(slots=True)
class Bindings:
    """What an expression sees besides its subject: the policy's ``variables``, and
    ``item`` and ``index`` inside a ``forEach`` (``index`` is None outside one)."""

    variables: dict[str, Any]
    item: Any = None
    index: int | None = None
    # The subject (``{"workload": data}``), for an expression too deeply nested to be
    # wrapped in bindings: it is evaluated on a fresh activation holding everything.
    subject: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def activation(self) -> Any:
        data = {**self.subject, "variables": self.variables}
        if self.index is not None:
            data.update(item=self.item, index=self.index)
        return activation(data)


# Turning a subject (a workload is a few hundred nodes) into CEL values costs ~70 µs, and
# it happens again for every new Activation. So each subject has one Activation, and
# ``variables``, ``item`` and ``index`` reach an expression through functions that read
# the bindings of the evaluation in progress: ``cel.bind(variables, servelint.variables(),
# EXPR)`` sees exactly the values a fresh Activation would have held.
_CURRENT = threading.local()
_UNWRAPPABLE = object()
# A serialised form: its bytes, or (from the policy cache) a function that reads and
# checks them, None when they are damaged; None when there is none.
Form = bytes | Callable[[], bytes | None] | None
Forms = tuple[Form, Form, Form]
# An expression's text, or (from the policy cache) a function that reads it: a run reads
# few of the texts, which are a third of the policy cache's JSON.
Text = str | Callable[[], str]
_BOUND_NAMES = {
    "variables": "servelint.variables()",
    "item": "servelint.item()",
    "index": "servelint.index()",
}


def _uses(text: str, name: str) -> bool:
    return re.search(rf"\b{name}\b", text) is not None


class CompiledExpr:
    """A CEL expression that evaluates to a plain Python value.

    Built with ``expr=None`` it compiles on first use: the built-in policies are checked
    by the test suite, so a run pays only for the rules that meet a matching input.
    """

    __slots__ = ("_each", "_expr", "_saved", "_text", "_vars")

    def __init__(self, text: str, expr: Any = None) -> None:
        self._text: Text = text
        self._expr = expr
        self._vars: Any = None  # compiled with ``variables`` bound
        self._each: Any = None  # compiled with ``variables``, ``item`` and ``index`` bound
        # Serialised forms from the policy cache (policy/cache.py), deserialised on use.
        self._saved: Forms = (None, None, None)

    @property
    def text(self) -> str:
        text = self._text
        if isinstance(text, str):
            return text
        self._text = read = text()
        return read

    @classmethod
    def stored(cls, text: Text, saved: Forms) -> CompiledExpr:
        """An expression read from the policy cache: its serialised forms, deserialised on
        use (the same state ``__setstate__`` restores)."""
        expr = cls.__new__(cls)
        expr.__setstate__((text, saved))
        return expr

    def prepare(self) -> None:
        """Compile every form the engine may evaluate and keep them serialised only, so
        that all can be stored while a run holds just the few it evaluates (compiled
        forms are large; they are deserialised again on use). An expression that does
        not compile stays as it is and fails when evaluated."""
        try:
            self._plain()
            self._bound(each=False)
            self._bound(each=True)
        except ExpressionError:
            return
        _, self._saved = self.__getstate__()
        self._expr = self._vars = self._each = None

    def __getstate__(self) -> tuple[str, tuple[bytes | None, bytes | None, bytes | None]]:
        # b"" stands for "the plain form" (most expressions need no bindings), b"=" for
        # "the form with variables" (most need no item).
        bound = [
            b""
            if c is not None and c is self._expr
            else b"="
            if i == 2 and c is not None and c is self._vars
            else self._serialized(c, i)
            for i, c in ((1, self._vars), (2, self._each))
        ]
        return self.text, (self._serialized(self._expr, 0), bound[0], bound[1])

    def __setstate__(self, state: tuple[Text, Forms]) -> None:
        self._text, self._saved = state
        self._expr = self._vars = self._each = None

    def _serialized(self, compiled: Any, slot: int) -> bytes | None:
        if compiled is _UNWRAPPABLE:
            return None
        if compiled is None:
            saved = self._saved[slot]
            return saved() if callable(saved) else saved
        return slimmed(bytes(compiled.serialize()))

    def _restore(self, slot: int) -> Any:
        saved = self._saved[slot]
        if callable(saved):
            saved = saved()  # read from the cache entry; None when damaged
        if saved is None:
            return None
        if saved == b"":
            return self._plain()
        if saved == b"=":
            return self._bound(each=False)
        try:
            return _environment().deserialize(saved)
        except RuntimeError:  # a damaged cache entry: compiled again from the text
            return None

    def evaluate(self, activation: Any, bindings: Bindings | None = None) -> Any:
        """Evaluate against an activation; a CEL error value raises ExpressionError.

        With ``bindings``, ``variables`` (and ``item`` and ``index`` when ``bindings.index``
        is set) are bound as if the activation held them.
        """
        if bindings is None:
            return self._run(self._plain(), activation)
        compiled = self._bound(each=bindings.index is not None)
        if compiled is _UNWRAPPABLE:
            return self._run(self._plain(), bindings.activation())
        previous = getattr(_CURRENT, "bindings", None)
        _CURRENT.bindings = bindings
        try:
            return self._run(compiled, activation)
        finally:
            _CURRENT.bindings = previous

    @property
    def loaded(self) -> bool:
        """Whether the plain form is compiled or deserialised already."""
        return self._expr is not None

    @property
    def compiled(self) -> bool:
        """Whether the text compiled (it may be held serialised only)."""
        return self._expr is not None or self._saved[0] is not None

    def _plain(self) -> Any:
        if self._expr is None:
            restored = self._restore(0) if self._saved[0] is not None else None
            self._expr = restored if restored is not None else compile_expression(self.text)._expr
        return self._expr

    def _bound(self, each: bool) -> Any:
        compiled = self._each if each else self._vars
        if compiled is not None:
            return compiled
        compiled = self._restore(2 if each else 1)
        if compiled is None:
            names = [
                n for n in ("variables", "item", "index")[: 3 if each else 1] if _uses(self.text, n)
            ]
            if each and "item" not in names and "index" not in names:
                compiled = self._bound(each=False)  # the same text: compiled once
            elif not names:
                compiled = self._plain()
            else:
                # Newlines: a trailing // comment in the text must not swallow the brackets.
                wrapped = f"(\n{self.text}\n)"
                for name in reversed(names):
                    wrapped = f"cel.bind({name}, {_BOUND_NAMES[name]}, {wrapped})"
                try:
                    compiled = _compile_raw(wrapped)
                except RuntimeError:  # CEL's nesting limit, reached by the bindings
                    self._plain()  # a text that does not compile at all fails here
                    compiled = _UNWRAPPABLE
        if each:
            self._each = compiled
        else:
            self._vars = compiled
        return compiled

    @staticmethod
    def _run(compiled: Any, activation: Any) -> Any:
        # The result is turned into Python inside the guard: a huge string or list can
        # exhaust the memory allowed to policies there as well.
        try:
            result = compiled.eval(activation)
            if result.type() == cel.Type.ERROR:
                raise ExpressionError(_clean(str(result.value())))
            return result.plain_value()
        except RuntimeError as exc:  # the runtime raises for budget exhaustion
            raise ExpressionError(_clean(str(exc))) from exc
        except MemoryError as exc:  # std::bad_alloc under memory_limit()
            raise EvaluationLimit(
                "evaluation ran out of the memory allowed to policies "
                "(an expression that builds ever larger strings or "
                "lists?)"
            ) from exc


class EvaluationLimit(Exception):
    """An evaluation hit a resource limit. Not an ExpressionError on purpose: the engine
    stops the whole policy instead of retrying it on every other subject."""


# CEL's runtime bounds comprehension iterations but not the size of the values an
# expression builds: ``'x'.replace('x', 'xxxxxxxxxx')`` chained ten times, or variables
# that each double the one before, ask for gigabytes from a few hundred characters.
# Evaluation therefore runs under an address-space limit (Linux), so that such a
# policy fails with MemoryError instead of taking the machine down.
EVALUATION_MEMORY = 384 * 2**20


@contextlib.contextmanager
def memory_limit(extra_bytes: int = EVALUATION_MEMORY) -> Iterator[None]:
    """Cap the process at its current address space plus ``extra_bytes`` (Linux only)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        yield
        return
    current = _address_space()
    if current is None:  # pragma: no cover - /proc is Linux only
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = current + extra_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        yield  # already stricter than ours
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int | None:
    if not sys.platform.startswith("linux"):
        return None  # pragma: no cover
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):  # pragma: no cover
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


class CompileError(ExpressionError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@functools.cache
def _environment() -> Any:
    def bound(name: str) -> Any:
        return lambda: getattr(_CURRENT.bindings, name)

    functions = [
        cel.FunctionDecl(
            f"servelint.{name}",
            [
                cel.Overload(
                    f"servelint_{name}",
                    cel.Type.INT if name == "index" else cel.Type.DYN,
                    [],
                    impl=bound(name),
                )
            ],
        )
        for name in ("variables", "item", "index")
    ]
    functions += _helper_declarations()

    def environment() -> Any:
        return cel.NewEnv(
            variables={
                name: cel.Type.INT if name == "index" else cel.Type.DYN for name in VARIABLES
            },
            extensions=[ext_strings.ExtStrings(), ext_math.ExtMath(), ext_bindings.ExtBindings()],
            functions=functions,
        )

    try:
        with _without_protobuf_pool():
            return environment()
    except ImportError:  # a runtime that needs the pool after all: made with it
        return environment()


_PROTOBUF_POOL = "google.protobuf.descriptor_pool"
_POOL_LOCK = threading.RLock()
_ABSENT = object()


@contextlib.contextmanager
def _without_protobuf_pool() -> Iterator[None]:
    """Create the environment without protobuf's Python descriptor pool.

    Given no pool, ``cel.NewEnv`` imports ``google.protobuf.descriptor_pool``, which
    imports protobuf's pure-Python message machinery (about 9 ms, a fifteenth of a hook
    run), only to resolve protocol-buffer message types an expression names. servelint's
    expressions name none. When that import fails, the binding goes on with CEL's own
    pool of the standard types (cel-expr-python 0.1.3, ``py_cel_env.cc``, ``NewEnv``: "not
    available"); a ``None`` in ``sys.modules`` makes it fail, for this call only (about a
    millisecond, once per process; where servelint runs threads, a drift scan's, none
    evaluates CEL). A runtime that raises instead gets the pool (``_environment``).
    """
    with _POOL_LOCK:
        saved = sys.modules.get(_PROTOBUF_POOL, _ABSENT)
        sys.modules[_PROTOBUF_POOL] = None  # type: ignore[assignment]
        try:
            yield
        finally:
            if saved is _ABSENT:
                sys.modules.pop(_PROTOBUF_POOL, None)
            else:
                sys.modules[_PROTOBUF_POOL] = saved  # type: ignore[assignment]


def _helper_declarations() -> list[Any]:
    """The helper library (policy/helpers.py) as CEL function declarations."""
    return [
        cel.FunctionDecl(
            name,
            [
                cel.Overload(
                    f"servelint_{name}_{'_'.join(p.lower() for p in parameters)}",
                    getattr(cel.Type, result),
                    [getattr(cel.Type, p) for p in parameters],
                    impl=impl,
                )
                for parameters, result, impl in overloads
            ],
        )
        for name, overloads in SIGNATURES.items()
    ]


def _compile_raw(text: str) -> Any:
    return _environment().compile(text)


def runtime_fingerprint() -> str:
    """The installed CEL runtime (by its file's size and time, as importlib.metadata would
    cost an import of its own): serialised expressions are read back only by the same.
    Whole seconds: a container image's layers keep no finer times, and the policies
    compiled into the image's cache when it is built must still be found when it runs."""
    found = os.stat(cel.__file__)
    return f"{cel.__file__}:{found.st_size}:{found.st_mtime_ns // 10**9}"


def deferred_expression(text: str) -> CompiledExpr:
    """An expression compiled on first evaluation (for policies known to compile)."""
    return CompiledExpr(text)


def compile_expression(text: str) -> CompiledExpr:
    """Compile ``text``; raise CompileError with the 1-based line and column inside it."""
    try:
        return CompiledExpr(text, _environment().compile(text))
    except RuntimeError as exc:
        match = _POSITION.search(str(exc))
        if match is None:
            # Errors without a position (the parser's nesting limit) come repeated, each
            # line prefixed with "ERROR: <input>:-1:-1: ".
            first = _clean(str(exc)).splitlines()[0] if str(exc).strip() else str(exc)
            raise CompileError(_NO_POSITION.sub("", first), 1, 1) from exc
        raise CompileError(match.group(3), int(match.group(1)), int(match.group(2))) from exc


_VARIABLE_REF = lazy_compile(r"\bvariables\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")
_VARIABLES_WORD = lazy_compile(r"\bvariables\b")


def variable_references(text: str) -> set[str] | None:
    """Names of ``variables.<name>`` used in ``text``; None when ``variables`` is used as a
    whole (``size(variables)``), so that every variable is needed."""
    names = {m.group(1) or m.group(2) for m in _VARIABLE_REF.finditer(text)}
    if len(_VARIABLES_WORD.findall(text)) > len(_VARIABLE_REF.findall(text)):
        return None
    return names


def activation(data: Mapping[str, Any]) -> Any:
    """Bind variables once, for several expressions evaluated on the same subject."""
    return _environment().Activation(dict(data))


_MISSING_KEY = lazy_compile(r'Key not found in map ?: ?"?([^"]*)"?')


# The runtime's conversion errors end with the whole value it could not convert
# ("... out of range for 'workload['capacity'] -> {...}"): a message never shows it.
_VALUE_DUMP = lazy_compile(r" -> .*", re.DOTALL)


def _clean(message: str) -> str:
    message = message.split(" [", 1)[0] if message.endswith("]") else message
    if "out of range for" in message or " -> {" in message or " -> [" in message:
        message = _VALUE_DUMP.sub("", message)
    for prefix in (
        "INVALID_ARGUMENT: ",
        "UNKNOWN: ",
        "NOT_FOUND: ",
        "INTERNAL: ",
        "CANCELLED: ",
        "OUT_OF_RANGE: ",
    ):
        message = message.removeprefix(prefix)
    missing = _MISSING_KEY.search(message)
    if missing:
        return f"no such key '{missing.group(1)}' (guard it with has())"
    return message.strip()
