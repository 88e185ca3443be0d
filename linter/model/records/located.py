"""What every record of the serving model is made of: a ``Located`` value (the value
and the ``Origin`` it was read from), the ``Record`` base and the ``record`` decorator
that makes a record class, ``DROPPED`` for a key the model leaves out, and
``located_tree`` for plain data read with its positions.

The record classes are in ``pod_records.py`` (the pod and its containers) and
``records.py`` (the server, the model, the GPU and the workload as a whole); their one
conversion to what policies see is ``celdata.py``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar, dataclass_transform

from linter.positions import Origin, PathT

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
R = TypeVar("R", bound="Record")


class Located(NamedTuple, Generic[T_co]):
    """A value and where it was written. None: it has no origin of its own (a default, a
    catalogue figure, a fact of the record as a whole) and is located at the nearest
    enclosing value that has one."""

    value: T_co
    origin: Origin | None = None


class Record:
    """Base of the model's records (classes made by ``record``), whose fields are
    ``Located`` values, nested records, or lists and maps of them. A field holding None
    is absent."""

    # The fields, in order, and each one's place (set by ``record``).
    FIELDS: ClassVar[tuple[str, ...]] = ()
    ORDER: ClassVar[dict[str, int]] = {}
    # Fields whose map is spread into the record's own keys in the CEL view (the
    # engine's settings sit beside its name and image: ``engine.max_model_len``).
    SPREAD: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def of(
        cls: type[R],
        values: Mapping[str, Any],
        origin_of: Callable[[str], Origin | None] | None = None,
    ) -> R:
        """A record from a calculator's result, each value at ``origin_of(its name)``
        (none of its own without it: the record's origin covers them).

        An unknown name is a programming error and raises ``TypeError``."""
        if origin_of is None:
            return cls(**{name: Located(value) for name, value in values.items()})
        return cls(**{name: Located(value, origin_of(name)) for name, value in values.items()})

    def plain(self) -> dict[str, Any]:
        """The record's values without origins, as calculators take them."""
        from linter.model.records.celdata import plain  # the conversion imports this module

        found: dict[str, Any] = plain(self)
        return found

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and all(
            getattr(self, name) == getattr(other, name) for name in self.FIELDS
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}"
            for name in self.FIELDS
            if (value := getattr(self, name)) is not None
        )
        return f"{self.__class__.__name__}({shown})"


class _Factory(NamedTuple):
    make: Callable[[], Any]


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made per record (``field(default_factory=dict)``)."""
    return _Factory(default_factory)  # type: ignore[return-value]


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
def record(cls: type[R]) -> type[R]:
    """Make ``cls`` a record: its annotated fields, in order, as ``FIELDS``, unset ones
    None, and a keyword-only ``__init__`` that refuses a name the record does not have.
    ``dataclasses.dataclass`` would do; it takes about 0.4 ms per class to build (it
    compiles the methods it writes), and these ~25 classes are built on every run, a
    pre-commit hook on every commit: this takes about a tenth of that."""
    names = tuple(inspect.get_annotations(cls))
    fields = frozenset(names)
    factories: list[tuple[str, Callable[[], Any]]] = []
    required: set[str] = set()
    for name in names:
        default = cls.__dict__.get(name, UNSET)
        if isinstance(default, _Factory):
            factories.append((name, default.make))
            delattr(cls, name)
        elif default is UNSET:
            required.add(name)
        elif default is not None:
            # The class attribute is what an unset field reads: None.
            raise TypeError(f"{cls.__name__}.{name}: a record's default is None or a factory")

    needed = tuple(required)

    def __init__(self: Record, **values: Any) -> None:
        if not fields.issuperset(values):
            unknown = ", ".join(sorted(set(values) - fields))
            raise TypeError(f"{cls.__name__} has no field {unknown}")
        for name in needed:
            if name not in values:
                missing = ", ".join(sorted(n for n in needed if n not in values))
                raise TypeError(f"{cls.__name__} needs {missing}")
        state = self.__dict__
        state.update(values)
        for name, make in factories:
            if name not in values:
                state[name] = make()

    setattr(cls, "__init__", __init__)  # noqa: B010 - mypy takes the signature from the fields
    cls.FIELDS = names
    cls.ORDER = {name: index for index, name in enumerate(names)}
    RECORD_CLASSES.add(cls)
    return cls


UNSET: Any = object()
# Every record class (exact-class dispatch in the conversions).
RECORD_CLASSES: set[type[Record]] = set()


class _Dropped:
    """The value of a key that was written but that the model's form of the input leaves
    out (proto3's JSON form drops a zero ``max_batch_size``): CEL does not see the key,
    a finding about it still points at the line that wrote it."""

    def __repr__(self) -> str:
        return "DROPPED"


DROPPED: Any = _Dropped()


def value_of(item: Located[T] | None) -> T | None:
    """The value of an optional field (None when it is absent)."""
    return None if item is None else item.value


def located_tree(
    data: Any, locate: Callable[[PathT], Origin | None], path: PathT = ()
) -> Located[Any]:
    """Plain data (a parsed document's subtree) with every node at ``locate(its path)``."""
    if isinstance(data, Mapping):
        value: Any = {k: located_tree(v, locate, (*path, k)) for k, v in data.items()}
    elif isinstance(data, list):
        value = [located_tree(v, locate, (*path, i)) for i, v in enumerate(data)]
    else:
        value = data
    return Located(value, locate(path))
