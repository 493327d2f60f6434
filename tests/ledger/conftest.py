"""Fixtures of the ledger's tests: a real PostgreSQL (tests/ledger/postgres.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hil.postgres import PostgresServer


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    """A running PostgreSQL cluster for one test, removed after it."""
    server = PostgresServer()
    try:
        server.init()
        server.start()
        yield server
    finally:
        if server.running:
            server.stop("immediate")
        server.remove()
