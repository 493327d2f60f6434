"""MQTT commands: an inbound `cmd/<verb>` received, its payload validated (the validators are
here, below the class), journaled as its event or as `input.invalid` with the reason, and
answered on `cmd/<verb>/reply`; refused from memory while the journal cannot take it.

The verbs themselves are tablectl/commands.py's (the broker's ACL generator reads them without
loading the daemon).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import structlog

from tablectl.commands import COMMAND_VERBS
from tablectl.daemon.inputs import JournalHeld
from tablectl.daemon.state import DaemonState, Input
from tablectl.history_answers import (
    HISTORY_TOPIC,
    HISTORY_VERB,
    HistoryRequestError,
    answer_payload,
    read_request,
    refusal_payload,
)
from tablectl.journal import JournalError
from tablectl.records import Record, now_ts
from tablectl_base.events import json_problem

log = structlog.get_logger("tablectl.daemon")


# Command payload limits (docs/mqtt.md "Commands"). A command is a small flat object (the
# longest, a decision that names a hand of cards, is under 200 bytes); whatever breaks a limit is
# journaled as input.invalid with the reason and answered, like any other refused command.
MAX_COMMAND_BYTES = 4096  # larger payloads are refused before they are decoded
RAW_KEPT_BYTES = 512  # what the journal keeps of an oversize payload: its first bytes
MAX_COMMAND_DEPTH = 8  # arrays and objects nested deeper than this are refused
MAX_REF_CHARS = 128  # a longer `id` is refused
MAX_VERB_CHARS = 64  # a longer topic level is no verb: journaled under "cmd", no reply


class Commands(DaemonState):
    """Commands received, validated, queued and answered."""

    def _refuse_unjournaled(
        self, verb: str, ref: str | None, reason: str, *, journaled: bool = False
    ) -> None:
        """A command while the journal cannot be written, or while the table is held on a
        journal fault: answered at once from memory with `reason`, not queued (a dealer must
        not believe a wager was taken), not journaled (`journaled` True: the one command whose
        record showed the fault, journaled but not applied)."""
        if not journaled:
            log.warning("command.not_journaled", verb=verb[:MAX_VERB_CHARS], id=ref)
        if _verb_problem(verb) is not None:
            return  # no reply topic can carry it
        self._notice(
            f"cmd/{verb}/reply",
            {"id": ref, "ok": False, "reason": reason, "journaled": journaled},
        )

    def _answer_history(self, payload: bytes, retained: bool) -> None:
        """`cmd/history` (the ledger's): answered from the outbox on `history`, never
        journaled (tablectl/history_answers.py); a retained one is refused as any (R54)."""
        if self.relay is None:
            return  # MQTT off: nobody could have asked
        table, ts = self.cfg.table.table, now_ts()
        req = None
        try:
            if retained:
                raise HistoryRequestError("a retained request is never answered (R54)", None)
            req = read_request(payload)
            journal = self.journal
            rows = journal.outbox_between(req.first, req.last)
            # The highest message the outbox holds: a record's rows handed to the broker while
            # a full disk kept them from the outbox are made, not stored, and not pruned.
            unstored = [] if self._unstored is None else self._unstored[1]
            highest = unstored[0].seq - 1 if unstored else self.table.seq
            held_from = None
            if len(rows) < min(req.last, highest) - req.first + 1:  # some were pruned
                held_from = journal.held_from()
            base = self.cfg.table.base_topic
            out = answer_payload(table, ts, base, req, rows, highest, held_from)
        except HistoryRequestError as exc:
            log.warning("history.refused", reason=str(exc), id=exc.ref)
            out = refusal_payload(table, ts, exc.ref, str(exc))
        except JournalError as exc:
            log.warning("history.refused", reason=str(exc))
            ref = None if req is None else req.ref
            out = refusal_payload(table, ts, ref, f"the journal cannot be read: {exc}")
        self.relay.notice(HISTORY_TOPIC, out)

    async def on_command(self, verb: str, payload: bytes, retained: bool = False) -> None:
        """An inbound `cmd/<verb>`: validated like any other input, answered on `.../reply`.

        A command that came with the retain flag (`retained`: as the broker delivers a retained
        message on every subscribe, and with MQTT 5's retain-as-published live too) is refused
        for that alone, whatever it says (R54): journaled as `input.invalid` marked `retained`
        with its first RAW_KEPT_BYTES and its `id` when one can be read, answered `ok: false`,
        and its alert (`retained-command`) stays open until someone acknowledges it. A
        technician clears it at the broker; until then each delivery is refused the same way.
        The clearing (an empty retained message) reaches a subscribed table too, with the flag
        under MQTT 5's retain-as-published: no command, it is refused as any empty payload.

        Every payload is journaled, as its event or as `input.invalid` with the reason, and
        answered (the table replies with `id` null when none could be read): one larger than
        MAX_COMMAND_BYTES (only its first RAW_KEPT_BYTES kept), not UTF-8, not JSON (a number
        of more digits than Python converts, too), nested deeper than MAX_COMMAND_DEPTH, with
        a lone surrogate escape ("\\ud800", which no UTF-8 journal can hold), an `id` over
        MAX_REF_CHARS, an unknown verb or a type that is not the verb's. A topic level that no
        reply topic can carry is journaled under source "cmd" and not answered.

        While the journal cannot be written, a command is answered at once from memory, with
        `"journaled": false`, and neither queued nor journaled (`_refuse_unjournaled`); so is
        every command while the table is held on a journal fault (tablectl/daemon/journal_fault.py).
        """
        if verb == HISTORY_VERB:
            self._answer_history(payload, retained)
            return
        if self.fault is not None:
            self._refuse_unjournaled(verb, _command_id(payload), self.fault.refusal())
            return
        if self.journal_trouble is not None:
            reason = (
                f"the journal cannot be written ({self.journal_trouble}): not recorded; "
                "try again when it is"
            )
            self._refuse_unjournaled(verb, _command_id(payload), reason)
            return
        bad_verb = _verb_problem(verb)
        if bad_verb is not None:
            await self._submit_command("cmd", _head(payload), error=bad_verb)
            return
        source = f"cmd/{verb}"
        if retained and payload:  # (an empty one is the broker's way to clear one: below)
            await self._submit_command(
                source,
                _head(payload),
                ref=_command_id(payload),
                error=retained_reason(f"{self.cfg.table.base_topic}/{source}"),
                retained=True,
            )
            return
        if len(payload) > MAX_COMMAND_BYTES:
            size = f"payload is {len(payload)} bytes; a command is at most {MAX_COMMAND_BYTES}"
            await self._submit_command(source, _head(payload), error=size)
            return
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            await self._submit_command(
                source,
                payload.decode("utf-8", "replace"),
                error=f"payload is not UTF-8 text: {exc.reason} at byte {exc.start}",
            )
            return
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # not only JSONDecodeError: see json_problem
            await self._submit_command(
                source, text, error=f"payload is not JSON: {json_problem(exc)}"
            )
            return
        bad_shape = _shape_problem(data)
        if bad_shape is not None:
            await self._submit_command(source, text, error=bad_shape)
            return
        ref = None
        if isinstance(data, dict):
            raw_id = data.pop("id", None)
            problem = id_problem(raw_id)
            if problem is not None:
                await self._submit_command(source, data, error=problem)
                return
            ref = None if raw_id is None else str(raw_id)
        if verb not in COMMAND_VERBS:
            await self._submit_command(
                source,
                data,
                ref=ref,
                error=f"unknown command {verb!r}; known: {', '.join(COMMAND_VERBS)}",
            )
            return
        if not isinstance(data, dict):
            await self._submit_command(source, data, ref=ref, error="payload must be a JSON object")
            return
        typ = data.setdefault("type", COMMAND_VERBS[verb])
        if typ != COMMAND_VERBS[verb]:
            await self._submit_command(
                source, data, ref=ref, error=f"cmd/{verb} carries type {typ!r}"
            )
            return
        await self._submit_command(source, data, ref=ref)

    async def _submit_command(
        self,
        source: str,
        data: Any,
        *,
        ref: str | None = None,
        error: str | None = None,
        retained: bool = False,
    ) -> None:
        """`submit` for a command, whose wait also ends when the journal turns out unwritable:
        the command stays queued (journaled, and answered through the outbox, once it can be),
        and the relay hands on the commands behind it, answered from memory meanwhile, rather
        than holding them until the disk has room."""
        fut: asyncio.Future[Record] = asyncio.get_running_loop().create_future()
        await self.queue.put((Input(source, data, ref, error, retained), fut))
        trouble = asyncio.ensure_future(self._trouble_began.wait())
        waiting: set[asyncio.Future[Any]] = {fut, trouble}
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            trouble.cancel()
        if not fut.done():
            fut.add_done_callback(_retrieve)
            return
        try:
            fut.result()  # a defect fails the command, as it fails the daemon
        except JournalHeld as exc:  # it waited in the queue when the table went held
            if source.startswith("cmd/"):  # (a payload under no verb gets no reply)
                verb = source.removeprefix("cmd/")
                self._refuse_unjournaled(verb, ref, str(exc), journaled=exc.journaled)


def retained_reason(topic: str) -> str:
    """Why a command that came with the retain flag is refused (R54), and how to clear it."""
    return (
        f"{topic} came retained: a retained command is delivered again on every subscribe, so "
        f"it is never applied; clear it at the broker (mosquitto_pub -r -n -t {topic})"
    )


def _verb_problem(verb: str) -> str | None:
    """Why a `cmd/<verb>` topic level cannot be answered on `cmd/<verb>/reply`, or None."""
    shown = repr(verb[:MAX_VERB_CHARS])
    if not verb:
        return "command topic has no verb"
    if len(verb) > MAX_VERB_CHARS:
        return f"command verb {shown}... is {len(verb)} characters; at most {MAX_VERB_CHARS}"
    if any(ch in verb for ch in "/+#\0") or not _is_unicode(verb):
        return f"command verb {shown} is not a topic level a reply can be published on"
    return None


def _retrieve(fut: asyncio.Future[Record]) -> None:
    """Done-callback of a future nobody awaits any more: its failure was logged elsewhere."""
    if not fut.cancelled():
        fut.exception()


def _command_id(payload: bytes) -> str | None:
    """A command's `id` as its reply gives it, read without journaling anything; None when
    none can be read (the reply's `id` is then null, as for any refused payload)."""
    if len(payload) > MAX_COMMAND_BYTES:
        return None
    try:
        data = json.loads(payload.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    raw = data.get("id") if isinstance(data, dict) else None
    if raw is None or id_problem(raw) is not None:
        return None
    return str(raw) if _is_unicode(str(raw)) else None


def id_problem(raw: Any) -> str | None:
    """Why a command's decoded `id` cannot be its request id, or None: text or a whole number
    of at most MAX_REF_CHARS characters, or null (no id), as schemas/cmd.json allows."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        return f"id must be text or a whole number, not {_json_kind(raw)}"
    chars = len(str(raw))
    return f"id is {chars} characters; at most {MAX_REF_CHARS}" if chars > MAX_REF_CHARS else None


def _json_kind(value: Any) -> str:
    """What JSON calls a decoded value's kind, for a reason a person reads."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _head(payload: bytes) -> str:
    """What is journaled of a payload that is refused unread: its first RAW_KEPT_BYTES."""
    return payload[:RAW_KEPT_BYTES].decode("utf-8", "replace")


def _is_unicode(text: str) -> bool:
    """False for a str holding a lone surrogate (JSON's "\\ud800" decodes to one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shape_problem(data: Any) -> str | None:
    """Why a decoded payload cannot be journaled as it is (nesting, non-Unicode text), or None."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()  # depth: how many arrays and objects hold this value
        if isinstance(value, (dict, list)) and depth >= MAX_COMMAND_DEPTH:
            return f"payload is nested deeper than {MAX_COMMAND_DEPTH} levels"
        if isinstance(value, dict):
            for key, item in value.items():
                if not _is_unicode(key):
                    return "payload has a key that is not Unicode text (a lone surrogate escape)"
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str) and not _is_unicode(value):
            return "payload has text that is not Unicode (a lone surrogate escape)"
    return None
