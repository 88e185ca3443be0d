"""``linter.lightclass``: the same classes as ``dataclasses.dataclass`` makes, for what the
package uses of them (construction, comparison, hashing, repr, immutability, the
standard library's functions, pickling), checked side by side with the standard one."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any, ClassVar

import pytest

from linter.lightclass import frozen, mutable


@frozen
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)
    note: str = dataclasses.field(default="", compare=False)
    KIND: ClassVar[str] = "point"


@dataclasses.dataclass(frozen=True)
class StdPoint:
    x: int
    y: int = 0
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)
    note: str = dataclasses.field(default="", compare=False)
    KIND: ClassVar[str] = "point"


@frozen
class Labelled(Point):
    label: str = "a"


@frozen(slots=True)
class Slotted:
    a: int
    b: str = "b"


@mutable
class Counter:
    name: str
    seen: list[int] = dataclasses.field(default_factory=list)
    total: int = dataclasses.field(default=0, init=False)

    def __post_init__(self) -> None:
        self.total = sum(self.seen)


@frozen
class OwnEquality:
    key: str
    extra: int = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnEquality) and other.key == self.key


@frozen
class Empty:
    pass


def test_construction_matches_dataclasses() -> None:
    for made in (Point(1), Point(1, 2), Point(x=1, y=2, tags=("t",), note="n")):
        std = StdPoint(made.x, made.y, made.tags, made.note)
        assert dataclasses.astuple(made) == dataclasses.astuple(std)
    assert Point(1).tags == () and Point(1).note == ""
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, (), "", 5)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, z=3)  # type: ignore[call-arg]


def test_a_factory_makes_a_new_value_per_instance() -> None:
    first, second = Counter("a"), Counter("b")
    first.seen.append(1)
    assert second.seen == []
    assert Counter("c", [2, 3]).total == 5  # __post_init__ ran, init=False field set


def test_equality_and_hash_follow_the_compared_fields() -> None:
    assert Point(1, 2, note="x") == Point(1, 2, note="y")
    assert hash(Point(1, 2, note="x")) == hash(Point(1, 2, note="y"))
    assert Point(1, 2) != Point(1, 3)
    assert Point(1) != StdPoint(1)  # another class: never equal, as dataclasses does
    assert Point(1).__eq__(StdPoint(1)) is NotImplemented
    assert Labelled(1) != Point(1)
    assert len({Point(1), Point(1), Point(2)}) == 2
    assert Empty() == Empty() and hash(Empty()) == hash(Empty())


def test_a_class_of_its_own_equality_keeps_it_and_is_hashed_by_its_fields() -> None:
    assert OwnEquality("k", 1) == OwnEquality("k", 2)
    assert hash(OwnEquality("k", 1)) == hash(StdLikeOwn("k", 1))


@dataclasses.dataclass(frozen=True)
class StdLikeOwn:
    key: str
    extra: int = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StdLikeOwn) and other.key == self.key


def test_mutable_classes_are_compared_but_not_hashable() -> None:
    assert Counter("a", [1]) == Counter("a", [1])
    assert Counter("a", [1]) != Counter("a", [2])
    assert Counter.__hash__ is None
    counter = Counter("a")
    counter.name = "b"
    assert counter.name == "b"


def test_repr_is_dataclasses_repr() -> None:
    assert repr(Point(1, 2, ("t",), "n")) == repr(StdPoint(1, 2, ("t",), "n")).replace(
        "StdPoint", "Point"
    )
    assert repr(Counter("a", [1])) == "Counter(name='a', seen=[1], total=1)"


def test_frozen_instances_refuse_changes() -> None:
    point = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'x'"):
        del point.x  # type: ignore[misc]
    slotted = Slotted(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        slotted.a = 2  # type: ignore[misc]
    assert not hasattr(slotted, "__dict__")


def test_the_standard_functions_work_on_them() -> None:
    point = Point(1, 2, ("t",))
    assert dataclasses.is_dataclass(point)
    assert [f.name for f in dataclasses.fields(point)] == ["x", "y", "tags", "note"]
    assert dataclasses.replace(point, y=5) == Point(1, 5, ("t",))
    assert dataclasses.asdict(point) == {"x": 1, "y": 2, "tags": ("t",), "note": ""}
    assert [f.name for f in dataclasses.fields(Labelled)] == ["x", "y", "tags", "note", "label"]
    assert Labelled(1, label="b").label == "b"
    assert dataclasses.replace(Slotted(1), b="c") == Slotted(1, "c")
    with pytest.raises(ValueError):
        dataclasses.replace(Counter("a"), total=3)  # an init=False field, as dataclasses


@pytest.mark.parametrize(
    "value",
    [Point(1, 2, ("t",), "n"), Labelled(3, label="z"), Slotted(4, "d"), Counter("a", [1, 2])],
)
def test_pickle_and_copy_keep_the_values(value: Any) -> None:
    for copied in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert copied == value
        assert copied is not value
        assert type(copied) is type(value)


def test_an_undocumented_class_is_documented_by_its_fields() -> None:
    assert Point.__doc__ == "Point(x, y, tags, note)"
    assert Counter.__doc__ == "Counter(name, seen)"
    assert Slotted.__doc__ == "Slotted(a, b)"


def test_what_dataclasses_refuses_is_refused_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @frozen
        class Unordered:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(TypeError, match=r"InitVar fields need dataclasses\.dataclass"):

        @frozen
        class WithInitVar:
            a: dataclasses.InitVar[int]

    with pytest.raises(TypeError, match=r"Mixed \(mutable\) cannot inherit from Point \(frozen\)"):

        @mutable
        class Mixed(Point):
            extra: int = 0

    with pytest.raises(TypeError, match="StdPoint is made by dataclasses"):

        @frozen
        class OnStandard(StdPoint):
            extra: int = 0


def test_a_class_keeps_its_own_init_and_a_plain_subclass_its_own_attributes() -> None:
    @frozen
    class Parsed:
        text: str
        words: tuple[str, ...] = ()

        def __init__(self, text: str) -> None:
            object.__setattr__(self, "text", text)
            object.__setattr__(self, "words", tuple(text.split()))

    assert Parsed("a b").words == ("a", "b")

    class Annotated(Point):  # not a data class itself: its own attributes are its own
        pass

    annotated = Annotated(1)
    annotated.comment = "set"  # type: ignore[attr-defined]
    assert annotated.comment == "set"  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        annotated.x = 2  # type: ignore[misc]


def test_fields_named_like_the_generated_code_s_names() -> None:
    @frozen
    class Awkward:
        self: int
        _set: int = 1
        _MISSING: int = 2

    awkward = Awkward(5, _set=3)
    assert (awkward.self, awkward._set, awkward._MISSING) == (5, 3, 2)
