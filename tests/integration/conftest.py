"""The whole-daemon tests run against a locked broker, as a card room's is (issue 9 item 8): no
anonymous client, a password per user, and the ACL `tablectl broker-acl` makes for the test's
tables. `harness.write_config`, `floor.shipped_config` and `harness.Console` take their table's
users and their role's credentials from the broker on their port (tests/conftest.py).

A test here that needs an open broker asks for one: ``mosquitto_factory(locked=False)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import MosquittoFactory, broker_factory


@pytest.fixture
def mosquitto_factory(tmp_path: Path) -> Iterator[MosquittoFactory]:
    """Locked brokers (tests/conftest.py `MosquittoBroker.lock_for`); ``mosquitto`` is one."""
    yield from broker_factory(tmp_path, locked=True)
