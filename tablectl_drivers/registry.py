"""Which driver class a config's `driver = "..."` names: built-ins plus vendor plugins.

Built-ins are "module:Class" strings imported only when asked for; vendors register more under
the entry-point group `tablectl.drivers`. Nothing is imported when this module is, so a broken
plugin can never stop the daemon from starting: it fails, with a DriverLoadError, only when used.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
from typing import cast

import structlog

from tablectl_drivers.base import Driver

ENTRY_POINT_GROUP = "tablectl.drivers"

BUILTIN_DRIVERS: dict[str, str] = {
    "shoe": "tablectl_drivers.shoe.device:ShoeDriver",
    "line": "tablectl_drivers.line.device:LineDriver",
    "dice-cup": "tablectl_drivers.dice.device:DiceCupDriver",
    "shuffler": "tablectl_drivers.dispenser.device:ShufflerDriver",
    "hand-dispenser": "tablectl_drivers.dispenser.device:HandDispenserDriver",
    "eztrak": "tablectl_drivers.eztrak.device:EztrakDisplayDriver",
    "poker-table": "tablectl_drivers.poker_table.device:PokerTableDriver",
}
"""Built-in driver names and their "module:Class" targets; a plugin cannot shadow these."""

log = structlog.get_logger(__name__)


class DriverLoadError(Exception):
    """A driver could not be loaded: names the driver, its target and the cause."""

    def __init__(self, name: str, target: str | None, cause: str) -> None:
        self.name = name
        self.target = target
        self.cause = cause
        where = f" ({target})" if target else ""
        super().__init__(f"driver {name!r}{where} cannot be loaded: {cause}")


class UnknownDriverError(DriverLoadError, LookupError):
    """No built-in driver or plugin has this name."""


def _plugins() -> dict[str, importlib.metadata.EntryPoint]:
    """Entry points of the group by name; broken package metadata is logged, never raised."""
    try:
        found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # any broken installed distribution must not break us
        log.warning("driver_plugins_unreadable", group=ENTRY_POINT_GROUP, error=repr(exc))
        return {}
    plugins: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in found:
        if ep.name in BUILTIN_DRIVERS:
            log.warning("driver_plugin_shadows_builtin", name=ep.name, target=ep.value)
            continue
        plugins[ep.name] = ep
    return plugins


def available_drivers() -> dict[str, str]:
    """Every known driver name with its "module:Class" target, built-ins first; imports nothing."""
    drivers = dict(BUILTIN_DRIVERS)
    for name, ep in sorted(_plugins().items()):
        drivers[name] = ep.value
    return drivers


def load_driver(name: str) -> type[Driver]:
    """Import and return the driver class called `name`.

    Raises UnknownDriverError (listing the known names) or DriverLoadError (with the cause).
    """
    if name in BUILTIN_DRIVERS:
        target = BUILTIN_DRIVERS[name]
        module_name, _, attr = target.partition(":")
        try:
            obj: object = getattr(importlib.import_module(module_name), attr)
        except Exception as exc:
            raise DriverLoadError(name, target, f"{type(exc).__name__}: {exc}") from exc
    else:
        plugins = _plugins()
        ep = plugins.get(name)
        if ep is None:
            known = ", ".join(sorted({*BUILTIN_DRIVERS, *plugins})) or "none"
            raise UnknownDriverError(name, None, f"no such driver (known: {known})")
        target = ep.value
        try:
            obj = ep.load()
        except Exception as exc:  # a plugin may fail in any way while importing
            dist = getattr(ep.dist, "name", None)
            origin = f"plugin from {dist}: " if dist else "plugin: "
            raise DriverLoadError(name, target, f"{origin}{type(exc).__name__}: {exc}") from exc
    if not inspect.isclass(obj) or not callable(getattr(obj, "run", None)):
        raise DriverLoadError(name, target, f"{obj!r} is not a driver class with a run() method")
    return cast("type[Driver]", obj)
