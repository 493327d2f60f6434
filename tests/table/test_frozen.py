"""quick_init (tablectl_base/frozen.py): a frozen dataclass's faster `__init__` makes the same
instance as the generated one, with the same signature, and refuses what it cannot do."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest

from tablectl_base.frozen import quick_init


@dataclass(frozen=True)
class _Plain:
    a: int
    b: str = "b"
    c: list[int] = field(default_factory=list)


@quick_init
@dataclass(frozen=True)
class _Quick:
    a: int
    b: str = "b"
    c: list[int] = field(default_factory=list)


def _same(quick: Any, plain: Any) -> None:
    assert vars(quick) == vars(plain)
    assert list(vars(quick)) == list(vars(plain))  # the same fields, in the same order
    assert repr(quick).removeprefix("_Quick") == repr(plain).removeprefix("_Plain")


def test_the_same_instance_as_the_generated_init() -> None:
    _same(_Quick(1), _Plain(1))
    _same(_Quick(1, "x"), _Plain(1, "x"))
    _same(_Quick(a=2, c=[3]), _Plain(a=2, c=[3]))
    _same(_Quick(2, c=[3], b="y"), _Plain(2, c=[3], b="y"))
    assert _Quick(1, "x", [2]) == _Quick(1, "x", [2])
    assert hash(_Quick(1, "x", ())) == hash(_Quick(1, "x", ()))  # type: ignore[arg-type]


def test_a_default_factory_is_called_for_each_instance() -> None:
    first, second = _Quick(1), _Quick(1)
    assert first.c == [] and first.c is not second.c


def test_the_same_signature_and_errors() -> None:
    quick = inspect.signature(_Quick)
    plain = inspect.signature(_Plain)
    assert list(quick.parameters) == list(plain.parameters)
    assert [p.kind for p in quick.parameters.values()] == [
        p.kind for p in plain.parameters.values()
    ]
    assert quick.parameters["b"].default == "b"
    with pytest.raises(TypeError):
        _Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Quick(1, "b", [], 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Quick(1, d=4)  # type: ignore[call-arg]


def test_still_frozen_and_still_a_dataclass() -> None:
    q = _Quick(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.a = 2  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(q)] == ["a", "b", "c"]
    assert dataclasses.replace(q, b="z") == _Quick(1, "z")


def test_refuses_what_it_cannot_build() -> None:
    class NotADataclass:
        pass

    @dataclass
    class NotFrozen:
        a: int

    @dataclass(frozen=True)
    class PostInit:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True)
    class Slots:
        a: int

    @dataclass(frozen=True)
    class KwOnly:
        a: int = field(kw_only=True)

    @dataclass(frozen=True)
    class NotInit:
        a: int = field(default=1, init=False)

    @dataclass(frozen=True)
    class WithInitVar:
        a: int
        b: InitVar[int]

    @dataclass(frozen=True)
    class OurName:
        _quick_d: int

    for cls in (NotADataclass, NotFrozen, PostInit, Slots, KwOnly, NotInit, WithInitVar, OurName):
        with pytest.raises(TypeError):
            quick_init(cls)


def test_the_game_records_and_states_use_it() -> None:
    """The classes a replay builds most have the quick `__init__`."""
    from tablectl.game_records import InputAccepted, RoundSettled, Settlement
    from tablectl.games.baccarat.engine import BaccaratState
    from tablectl.games.common import PlacedWager
    from tablectl.outputs import Output
    from tablectl.rules.settlement import WagerVerdict
    from tablectl_base.positions import Ledger

    for cls in (
        InputAccepted,
        RoundSettled,
        Settlement,
        BaccaratState,
        PlacedWager,
        Output,
        WagerVerdict,
        Ledger,
    ):
        assert cls.__init__.__module__ == cls.__module__
        assert "_quick_d" in cls.__init__.__code__.co_varnames, cls
