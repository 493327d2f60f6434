"""The whole-daemon tests run against a locked broker, as a card room's is: no
anonymous client, a password per user, and the ACL `tablectl broker-acl` makes for the test's
tables. `harness.write_config`, `floor.shipped_config` and `harness.Console` take their table's
users and their role's credentials from the broker on their port (tests/conftest.py).

A test here that needs an open broker asks for one: ``mosquitto_factory(locked=False)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import MosquittoFactory, broker_factory

if TYPE_CHECKING:
    from tests.integration.banked import Session

OpenTable = Callable[..., AbstractContextManager["Session"]]


@pytest.fixture
def mosquitto_factory(tmp_path: Path) -> Iterator[MosquittoFactory]:
    """Locked brokers (tests/conftest.py `MosquittoBroker.lock_for`); ``mosquitto`` is one."""
    yield from broker_factory(tmp_path, locked=True)


@pytest.fixture
def open_table(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> OpenTable:
    """A shipped config's table with the scoreboard open on it in Chromium, for this test:
    `open_table(config, base, shoe=...)` is tests/integration/banked.py's `table_session`."""
    from tests.integration.banked import table_session  # (Selenium: for the page tests only)

    return functools.partial(table_session, tmp_path, mosquitto_factory, monkeypatch)
