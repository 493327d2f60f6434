"""Frozen dataclasses built at about the cost of plain ones (a replay builds dozens of
them a round: states, verdicts, settlements, the records an engine returns).

A frozen dataclass's generated `__init__` stores each field with a call of `object.__setattr__`
(its own `__setattr__` refuses), three times the cost of storing into the new instance's
`__dict__`. `quick_init` gives a class an `__init__` that does the latter, with the same
signature, defaults and default factories; the instance is the same (equality, hash, repr,
`dataclasses.fields`, `replace` and the frozen refusal of assignment are untouched).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_NO_VALUE = object()
"""What a field with a default factory is given when the caller gives nothing."""

_OURS = "_quick_"
"""The prefix of the names the generated `__init__` uses besides the fields (none may have it)."""


def quick_init(cls: type[T]) -> type[T]:
    """`cls`, a frozen dataclass, with a faster `__init__` of the same signature (above).

    Only for the plain case, which is refused otherwise (TypeError): every field an init,
    positional-or-keyword field (no `kw_only`, `InitVar` or `init=False`), no `__post_init__`,
    no `__slots__` (there is no `__dict__` to store into)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not (params.init and params.frozen):
        raise TypeError(f"{cls.__qualname__} is not a frozen dataclass with an __init__")
    if hasattr(cls, "__post_init__") or "__slots__" in vars(cls):
        raise TypeError(f"{cls.__qualname__} has __post_init__ or __slots__")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]  # (checked just above)
    declared: dict[str, Any] = vars(cls)["__dataclass_fields__"]  # InitVar pseudo-fields too
    if len(fields) != len(declared) or not all(f.init and not f.kw_only for f in fields):
        raise TypeError(f"{cls.__qualname__} has a field that is not a plain init field")
    if any(f.name.startswith(_OURS) for f in fields):
        raise TypeError(f"{cls.__qualname__} has a field named {_OURS}...")
    scope: dict[str, Any] = {"_quick_no_value": _NO_VALUE}
    params_text: list[str] = []
    body: list[str] = []
    for i, f in enumerate(fields):
        if f.default is not dataclasses.MISSING:
            scope[f"_quick_default_{i}"] = f.default
            params_text.append(f"{f.name}=_quick_default_{i}")
            body.append(f"    _quick_d[{f.name!r}] = {f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            scope[f"_quick_factory_{i}"] = f.default_factory
            params_text.append(f"{f.name}=_quick_no_value")
            body.append(
                f"    _quick_d[{f.name!r}] = "
                f"_quick_factory_{i}() if {f.name} is _quick_no_value else {f.name}"
            )
        else:
            params_text.append(f.name)
            body.append(f"    _quick_d[{f.name!r}] = {f.name}")
    head = [f"def __init__(self, {', '.join(params_text)}):", "    _quick_d = self.__dict__"]
    exec("\n".join([*head, *body]), scope)  # as dataclasses itself writes `__init__`
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
