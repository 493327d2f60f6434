"""Each device's driver and options, and the game's device roles (`GameSpec.device_roles`): a
driver that exists and takes the options, a device for every role the game needs, none it
cannot use, and the warnings of what will surprise at the table."""

from __future__ import annotations

from typing import Any

from tablectl.config.problems import Problem, shown
from tablectl.config.sections import Device, section_or_none
from tablectl.games.registry import spec_of
from tablectl.games.spec import DeviceRole


def driver_checks(
    name: str, devices: object
) -> tuple[list[Problem], list[Problem], dict[int, object]]:
    """Problems and warnings of the devices' drivers, and the options each driver built (by the
    device's index) for the game's own checks.

    Problems: a driver name neither built in nor installed; options a driver refuses (it checks
    them when built and opens nothing until it runs); a built-in that cannot be imported.
    Warnings: a vendor plugin that cannot be loaded, or fails other than by refusing its options
    (plugins are imported lazily so that a broken one cannot stop the daemon): the
    daemon runs the other devices and reports this one unavailable on device/<name>/status.
    """
    if not isinstance(devices, list):
        return [], [], {}
    from tablectl_drivers.registry import (
        BUILTIN_DRIVERS,
        DriverLoadError,
        available_drivers,
        load_driver,
    )

    known = available_drivers()
    problems: list[Problem] = []
    warnings: list[Problem] = []
    built: dict[int, object] = {}
    for i, dev in enumerate(devices):
        driver = dev.get("driver") if isinstance(dev, dict) else None
        if not isinstance(driver, str) or not driver:
            continue
        if driver not in known:
            problems.append(
                Problem(
                    name,
                    f"devices[{i}].driver",
                    f"no driver {driver!r}; known: {', '.join(sorted(known))}",
                )
            )
            continue
        device = section_or_none(Device, dev)
        if device is None:
            continue
        plugin = driver not in BUILTIN_DRIVERS
        key = f"devices[{i}].driver"
        try:
            cls = load_driver(driver)
        except DriverLoadError as exc:
            if not plugin:
                problems.append(Problem(name, key, str(exc)))
            else:
                warnings.append(Problem(name, key, f"{exc}{_PLUGIN_DOWN}"))
            continue
        try:
            made = cls(device.name, device.port, device.baud, device.options)
            built[i] = getattr(made, "options", None)
        except (ValueError, TypeError) as exc:
            problems.append(Problem(name, f"devices[{i}].options", str(exc)))
        except Exception as exc:
            if not plugin:
                raise  # a built-in failing any other way is a bug in tablectl: loud
            cause = f"{type(exc).__name__}: {exc}"
            warnings.append(
                Problem(name, key, f"driver {driver!r} cannot be built: {cause}{_PLUGIN_DOWN}")
            )
    return problems, warnings, built


_PLUGIN_DOWN = "; the daemon runs without this device and reports it unavailable"


DRIVER_WHAT = {
    "shoe": "a card-reading shoe",
    "line": "a card-reading device described line by line (it reads as a shoe)",
    "dice-cup": "a dice cup",
    "shuffler": "a shuffler",
    "hand-dispenser": "a hand dispenser",
    "eztrak": "an EZtrak display",
    "poker-table": "a card-reading poker table",
}
"""What each built-in driver's device is, for the messages."""

HEARTBEATS_OPTIONAL = {
    "shoe": "a shoe's heartbeats (HBT) are optional (docs/protocols/shoe.md), so a shoe that "
    "sends none is reported SILENT, and the round held, whenever nobody deals for that long",
}
"""Built-in drivers whose devices may never send HBT: `silence_timeout` there is a surprise."""


def duplicate_names(name: str, devices: object) -> list[Problem]:
    """A device name used twice, named at the second (and later) device's key."""
    if not isinstance(devices, list):
        return []
    first: dict[str, int] = {}
    out = []
    for i, dev in enumerate(devices):
        dev_name = dev.get("name") if isinstance(dev, dict) else None
        if not isinstance(dev_name, str):
            continue
        if dev_name in first:
            out.append(
                Problem(
                    name,
                    f"devices[{i}].name",
                    f"{shown(dev_name)} is already the name of devices[{first[dev_name]}]; "
                    "each device needs a name of its own (it names the device's MQTT topics)",
                )
            )
        else:
            first[dev_name] = i
    return out


def _roles_text(roles: tuple[DeviceRole, ...]) -> str:
    """The devices a game takes, for a message: "its devices are the cards: shoe or line"."""
    if not roles:
        return "it takes no devices"
    return "its devices are " + "; ".join(
        f"{r['role']}: {' or '.join(r['drivers'])}" for r in roles
    )


def role_checks(
    name: str,
    game_id: str,
    devices: list[Any],
    built: dict[int, object],
    manual_entry: bool = False,
) -> tuple[list[Problem], list[Problem]]:
    """Each device fills one of the game's roles, set as the game needs (stack sizes, dice);
    no role has more devices than it takes; every role the game needs (its card reader) is
    filled, unless `manual_entry` says the dealer keys the cards at the console.
    A vendor plugin's device is allowed with a warning: which role it fills cannot be told."""
    from tablectl_drivers.registry import BUILTIN_DRIVERS, available_drivers

    roles = spec_of(game_id).device_roles
    if roles is None:
        return [], []
    title = spec_of(game_id).title
    problems: list[Problem] = []
    warnings: list[Problem] = []
    filled: dict[str, list[int]] = {r["role"]: [] for r in roles}
    plugins = False
    unsure = False  # a device refused already (driver or options): it may be the needed one
    known = available_drivers()
    for i, dev in enumerate(devices):
        driver = dev.get("driver") if isinstance(dev, dict) else None
        if not isinstance(driver, str) or driver not in known:
            unsure = True
            continue  # reported already (or no driver key: reported by the full pass)
        key = f"devices[{i}].driver"
        if driver not in BUILTIN_DRIVERS:
            plugins = True
            if i not in built:
                continue  # it cannot be loaded or built: warned of (or refused) already
            warnings.append(
                Problem(
                    name,
                    key,
                    f"driver {shown(driver)} is a vendor plugin: check-config cannot tell whether "
                    f"{game_id} can use it ({_roles_text(roles)})",
                )
            )
            continue
        role = next((r for r in roles if driver in r["drivers"]), None)
        if role is None:
            problems.append(
                Problem(
                    name,
                    key,
                    f"{game_id} ({title}) cannot use driver {shown(driver)} "
                    f"({DRIVER_WHAT.get(driver, driver)}): {_roles_text(roles)}",
                )
            )
            continue
        if i in built:
            filled[role["role"]].append(i)
        else:  # its options are refused, reported already: not counted, but it fills the role
            unsure = True
        problems += _role_options(name, i, dev, driver, role, built.get(i))
    for role in roles:
        at = filled[role["role"]]
        most = role.get("most")
        if most is not None and len(at) > most:
            problems.append(
                Problem(
                    name,
                    f"devices[{at[most]}].driver",
                    f"{game_id} takes at most {most} device for {role['role']}, and "
                    + ", ".join(f"devices[{j}]" for j in at)
                    + " all fill it",
                )
            )
        if role.get("needed") and at and manual_entry:
            warnings.append(
                Problem(
                    name,
                    "manual_entry",
                    f"true says the dealer keys the cards at the console, but devices[{at[0]}] "
                    f"reads {role['role']}: leave manual_entry out while the table has its reader",
                )
            )
        if role.get("needed") and not at and not unsure and not manual_entry:
            why = f" ({role['why']})" if role.get("why") else ""
            text = (
                f"{game_id} needs a device for {role['role']}: {' or '.join(role['drivers'])}"
                f"{why}; none is configured (if the dealer keys the cards at the console "
                "instead, set manual_entry = true)"
            )
            if plugins:  # a vendor's device may be the one: say so, do not refuse
                warnings.append(Problem(name, "devices", text + " unless a plugin's device is it"))
            else:
                problems.append(Problem(name, "devices", text))
    return problems, warnings


def _role_options(
    name: str, i: int, dev: dict[str, Any], driver: str, role: DeviceRole, options: object
) -> list[Problem]:
    """A dispenser's stack sizes and a dice cup's dice as the game deals them."""
    out = []
    raw = dev.get("options")
    given = raw if isinstance(raw, dict) else {}
    why = f" ({role['why']})" if role.get("why") else ""
    wanted = role.get("stack_size")
    sizes = getattr(options, "stack_sizes", None)
    if wanted is not None and isinstance(sizes, tuple) and tuple(sorted(sizes)) != wanted:
        seen = (
            shown(given["stack_size"])
            if "stack_size" in given
            else f"unset, so {driver}'s default {sizes[0] if len(sizes) == 1 else list(sizes)}"
        )
        want = str(wanted[0]) if len(wanted) == 1 else str(list(wanted))
        out.append(
            Problem(
                name,
                f"devices[{i}].options.stack_size",
                f"{role['role']} at this game come in stacks of {want}{why}: "
                f"stack_size must be {want}, not {seen}",
            )
        )
    dice = role.get("dice")
    count = getattr(options, "dice", None)
    if dice is not None and isinstance(count, int) and count != dice:
        seen = shown(given["dice"]) if "dice" in given else f"unset, so {count}"
        out.append(
            Problem(
                name,
                f"devices[{i}].options.dice",
                f"the cup holds {dice} dice at this game{why}: dice must be {dice}, not {seen}",
            )
        )
    return out


def surprises(name: str, devices: object, built: dict[int, object]) -> list[Problem]:
    """Options that are valid but will surprise at the table: warned of, never refused."""
    if not isinstance(devices, list):
        return []
    out = []
    for i, dev in enumerate(devices):
        if i not in built or not isinstance(dev, dict):
            continue
        why = HEARTBEATS_OPTIONAL.get(str(dev.get("driver")))
        timeout = getattr(built[i], "silence_timeout", None)
        if why is not None and timeout is not None:
            out.append(
                Problem(
                    name,
                    f"devices[{i}].options.silence_timeout",
                    f"{shown(dev.get('options', {}).get('silence_timeout'))} seconds: {why}; "
                    "set it only if this device sends HBT while idle",
                )
            )
    return out
