"""Data classes that cost a fraction of ``dataclasses.dataclass`` to define.

``dataclasses.dataclass(frozen=True)`` compiles six methods per class (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``), about 0.4 ms a
class on Python 3.11; a lint run defines about 40 data classes before it reads a file,
and a pre-commit hook runs on every commit. ``frozen`` and ``mutable`` make the same
classes with one compiled method, ``__init__`` (written as ``dataclasses`` writes it, so
construction is as fast, and compiled when the first instance is made), and share the
others, which read the fields from one tuple.

The classes remain data classes to the standard library: ``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` work on them, ``dataclasses.field`` gives a
field its default, factory or flags, and a class's own ``__init__``, ``__repr__``,
``__eq__`` or ``__hash__`` is kept. Not offered (a ``TypeError`` when the class is
defined): ``InitVar`` fields, and a base class made by ``dataclasses`` or made frozen when
this one is not (or the other way round); ``order`` and ``unsafe_hash`` have no
parameter. For those, use ``dataclasses.dataclass``. A class made without a docstring is
documented with its fields' names (``dataclasses`` adds their types and defaults).
"""

from __future__ import annotations

import dataclasses
import inspect
import operator
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

C = TypeVar("C", bound=type)

_MISSING: Any = dataclasses.MISSING


@overload
def frozen(cls: C, /) -> C: ...
@overload
def frozen(*, slots: bool = False) -> Callable[[C], C]: ...
@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen(cls: C | None = None, /, *, slots: bool = False) -> C | Callable[[C], C]:
    """``dataclasses.dataclass(frozen=True, slots=slots)``: immutable, compared and hashed
    by its fields."""
    if cls is None:
        return lambda inner: _build(inner, frozen=True, slots=slots)
    return _build(cls, frozen=True, slots=slots)


@dataclass_transform(field_specifiers=(dataclasses.field,))
def mutable(cls: C, /) -> C:
    """``dataclasses.dataclass``: assignable fields, compared by them, not hashable."""
    return _build(cls, frozen=False, slots=False)


def _build(cls: C, *, frozen: bool, slots: bool) -> C:
    _check_bases(cls, frozen)
    if any("InitVar" in str(a) for a in inspect.get_annotations(cls).values()):
        raise TypeError(f"{cls.__qualname__}: InitVar fields need dataclasses.dataclass")
    defined = set(cls.__dict__)
    # A class that defines __eq__ alone gets __hash__ = None from Python: not its own.
    own_hash = cls.__dict__.get("__hash__", _MISSING)
    explicit_hash = not (own_hash is _MISSING or (own_hash is None and "__eq__" in defined))
    undocumented = not cls.__doc__
    if undocumented:
        # dataclasses would document the class with inspect.signature (slow: a third of
        # the time it takes); the same text is written below from the fields.
        cls.__doc__ = cls.__name__
    # The fields, their defaults and flags, inherited ones first, without any method.
    made: Any = dataclasses.dataclass(init=False, repr=False, eq=False, slots=slots)(cls)
    fields = dataclasses.fields(made)
    if undocumented:
        made.__doc__ = f"{cls.__name__}({', '.join(f.name for f in fields if f.init)})"
    made.__lightclass_frozen__ = frozen
    _check_order(made, fields)
    if "__init__" not in defined:
        made.__init__ = _first_init(made, fields, frozen)
    compared = _getter([f.name for f in fields if f.compare])
    if "__repr__" not in defined:
        made.__repr__ = _repr(tuple(f.name for f in fields if f.repr))
    if "__eq__" not in defined:
        made.__eq__ = _eq(compared)
    if frozen:
        if not explicit_hash:
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            made.__hash__ = _hash(_getter(hashed))
        names = frozenset(f.name for f in fields)
        made.__setattr__ = _refuse_set(made, names)
        made.__delattr__ = _refuse_delete(made, names)
        if slots:
            made.__getstate__ = _slots_state
            made.__setstate__ = _set_slots_state
    elif not explicit_hash:
        made.__hash__ = None  # compared by value and mutable: as dataclasses does
    return made


def _check_bases(cls: type, frozen: bool) -> None:
    """Frozen and mutable data classes do not inherit from each other, nor from classes of
    ``dataclasses`` (whose checks read parameters these classes do not record)."""
    for base in cls.__mro__[1:]:
        if not dataclasses.is_dataclass(base):
            continue
        theirs = base.__dict__.get("__lightclass_frozen__")
        if theirs is None:
            raise TypeError(f"{cls.__qualname__}: {base.__qualname__} is made by dataclasses")
        if theirs != frozen:
            kinds = ("mutable", "frozen")
            raise TypeError(
                f"{cls.__qualname__} ({kinds[frozen]}) cannot inherit from "
                f"{base.__qualname__} ({kinds[theirs]})"
            )


def _check_order(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> None:
    """A field without a default after one with a default, as ``dataclasses`` refuses it
    when the class is defined (``__init__`` is compiled later)."""
    defaulted = False
    for f in fields:
        if not f.init or f.kw_only:
            continue
        has_default = f.default is not _MISSING or f.default_factory is not _MISSING
        if defaulted and not has_default:
            raise TypeError(
                f"{cls.__qualname__}: non-default argument {f.name!r} follows default argument"
            )
        defaulted = defaulted or has_default


def _first_init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Any:
    """An ``__init__`` that compiles the class's own on the first instance and hands over
    to it: a run defines many classes it never makes an instance of."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if cls.__dict__.get("__init__") is __init__:
            setattr(cls, "__init__", _init(cls, fields, frozen))  # noqa: B010
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Any:
    """``__init__`` compiled from the fields, as ``dataclasses`` writes it."""
    # Names of the generated code that no field can take (fields are plain identifiers).
    namespace: dict[str, Any] = {"__missing__": _MISSING, "__set__": object.__setattr__}
    positional: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for f in fields:
        name = f.name
        has_factory = f.default_factory is not _MISSING
        factory, default = f"__factory_{name}__", f"__default_{name}__"
        if has_factory:
            namespace[factory] = f.default_factory
        elif f.default is not _MISSING:
            namespace[default] = f.default
        if f.init:
            if has_factory:
                parameter, value = (
                    f"{name}=__missing__",
                    f"{factory}() if {name} is __missing__ else {name}",
                )
            elif f.default is not _MISSING:
                parameter, value = f"{name}={default}", name
            else:
                parameter, value = name, name
            (keywords if f.kw_only else positional).append(parameter)
        elif has_factory:
            value = f"{factory}()"
        elif f.default is not _MISSING:
            value = default
        else:
            continue
        body.append(
            f"__set__(__self__, {name!r}, {value})" if frozen else f"__self__.{name} = {value}"
        )
    if hasattr(cls, "__post_init__"):
        body.append("__self__.__post_init__()")
    parameters = ", ".join(["__self__", *positional, *(["*", *keywords] if keywords else [])])
    lines = "\n    ".join(body or ["pass"])
    exec(f"def __init__({parameters}) -> None:\n    {lines}\n", namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(compared: Callable[[Any], Any]) -> Callable[[Any, object], Any]:
    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return compared(self) == compared(other)

    return __eq__


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` as one tuple (``attrgetter`` of one name returns the bare
    value, of none fails)."""
    if len(names) == 1:
        single = operator.attrgetter(names[0])
        return lambda item: (single(item),)
    if not names:
        return lambda item: ()
    return operator.attrgetter(*names)


def _hash(hashed: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    return __hash__


def _refuse_set(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    """As ``dataclasses`` writes it: a field, or any attribute of the class's own
    instances, cannot be assigned; a plain subclass's own attributes can."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _refuse_delete(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _slots_state(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _set_slots_state(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=True):
        object.__setattr__(self, f.name, value)
