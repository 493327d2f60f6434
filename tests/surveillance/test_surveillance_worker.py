"""The surveillance worker's queue on the daemon's side (tablectl/surveillance/worker.py): what
the card path may put in it, and when it stops taking anything."""

from __future__ import annotations

from typing import Any

import pytest

import tablectl.surveillance.worker as worker
from tablectl.config.sections import Protection
from tablectl.records import Record
from tablectl.surveillance.worker import SurveillanceWorker


def record(seq: int) -> Record:
    return Record(
        seq, "2026-11-29T10:00:00.000000Z", "device/shoe", None, {"type": "shoe.card"}, "", ""
    )


CARD: list[dict[str, Any]] = [{"type": "shoe.card", "card": "Ah", "round": 1}]


def test_a_full_queue_stops_the_feed_rather_than_hold_the_tables_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worker, "QUEUE_MAX", 2)
    watch = SurveillanceWorker(Protection(enabled=True), "t1", relay=None)  # type: ignore[arg-type]
    for seq in (1, 2, 3, 4):
        watch.add(record(seq), [], CARD, rules=None)  # type: ignore[arg-type]
    assert watch.stopped and watch.queue.qsize() == 2


def test_a_stopped_feed_takes_nothing_more_and_a_record_without_cards_is_not_queued() -> None:
    watch = SurveillanceWorker(Protection(enabled=True), "t1", relay=None)  # type: ignore[arg-type]
    watch.add(record(1), [], [], rules=None)  # type: ignore[arg-type]
    assert watch.queue.qsize() == 0
    watch.stopped = True
    watch.add(record(2), [], CARD, rules=None)  # type: ignore[arg-type]
    assert watch.queue.qsize() == 0
