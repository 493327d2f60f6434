"""Device sequencing: cards and events from the devices placed in each device's own count, dealt
in order, held past a gap, refused when read twice."""

from __future__ import annotations

from tablectl.games.base import Rejected
from tablectl.records import Record
from tablectl.table.holds import RoundHolds
from tablectl.table.inputs import input_key
from tablectl.table_messages import DeviceStatusChanged, Message, TableAlert
from tablectl_base.events import DeviceGap, DeviceStatus, InputEvent, PositionedEvent, ShoeNew
from tablectl_base.positions import Gap, Ledger, Verdict, spans


class DeviceSequencing(RoundHolds):
    """Each device's count (R39): its inputs dealt in order, gaps waited for or held, repeats
    refused; and each device's reported status."""

    def _positioned(self, event: PositionedEvent, rec: Record) -> list[Message]:
        """An input with its place in the device's count: dealt only when it is the next one;
        read twice, it is refused; past a gap, it waits for the positions before it."""
        device, event = self._source_device(event, rec)
        at = event.at
        assert at is not None
        ledger = self.ledgers.get(device) or Ledger()  # a new Ledger only for a new device
        key = input_key(rec.body)
        verdict, placed = ledger.place(at, key, starts_run=type(event) is ShoeNew)
        if verdict is Verdict.DEAL:
            self._set_ledger(device, placed)
            # Each step below is skipped where it would do nothing: the usual card, with nothing
            # pending and no gap, is only dealt.
            blocked = bool(ledger.pending) or ledger.gap is not None
            out = self._new_run(device, ledger, placed) if ledger.pending else []
            same_run = placed.run == ledger.run
            rank = _fill_rank(ledger, rec) if same_run and blocked else float(rec.seq)
            out += self._deal_or_hold(event, rec, rank)
            now = self.ledgers[device]
            return (
                out + self._deal_waiting(device, rank)
                if now.pending or now.gap is not None
                else out
            )
        if verdict is Verdict.WAITING:
            return []  # a resend of what already waits past the gap
        where = f" of {at.run}" if at.run is not None else ""
        if verdict in (Verdict.REPEAT, Verdict.CONFLICT):
            if rec.source.startswith("cmd/"):
                raise Rejected(f"position {at.pos}{where} of {device} is already in", rule="R39")
            return self._read_again(device, at.pos, where, verdict, rec)
        assert verdict is Verdict.AHEAD
        return self._wait_for_gap(device, placed.hold(at, key, (event, rec)), at.pos, where)

    def _wait_for_gap(self, device: str, ledger: Ledger, pos: int, where: str) -> list[Message]:
        """An input past a gap is kept in `ledger` (not dealt); the first one to wait says which
        positions it waits for."""
        first = len(ledger.pending) == 1
        self._set_ledger(device, ledger)
        out: list[Message] = []
        if first:
            why = "the device cannot resend them" if ledger.gap else "asking the device to resend"
            out.append(
                TableAlert(
                    f"device {device}: position(s) {spans(ledger.missing())}{where} not yet "
                    f"reported; position {pos} waits for them ({why})",
                    kind="gap",
                    device=device,
                )
            )
        return [*out, self.state_view()]

    def _source_device(self, event: PositionedEvent, rec: Record) -> tuple[str, PositionedEvent]:
        """Which device's count `event` belongs to: its source, or for a card entered at the
        console (R39) the device whose unfillable gap it fills (the event then names it)."""
        if not rec.source.startswith("cmd/"):
            return rec.source.removeprefix("device/"), event
        at = event.at
        assert at is not None
        gaps = {n: led.gap for n, led in self.ledgers.items() if led.gap is not None}
        device = at.device
        if device is None and len(gaps) == 1:
            device = next(iter(gaps))
        gap = gaps.get(device) if device is not None else None
        if device is None or gap is None or gap.missing is None or at.pos not in gap.missing:
            raise Rejected(
                "the console may enter a card only into a gap its device could not fill "
                f"(position {at.pos} is not missing from any device)",
                rule="R39",
            )
        if at.run is not None and at.run != gap.run:
            raise Rejected(f"the gap of {device} is in {gap.run}, not {at.run}", rule="R39")
        full = at.model_copy(update={"device": device, "run": gap.run, "seq": None})
        return device, event.model_copy(update={"at": full})

    def _read_again(
        self, device: str, pos: int, where: str, verdict: Verdict, rec: Record
    ) -> list[Message]:
        """A position read again: never dealt twice. The same card read twice is only told;
        a different card at a dealt position means one read was wrong, so the round is held."""
        if verdict is Verdict.REPEAT:
            return [
                TableAlert(
                    f"device {device}: position {pos}{where} read again; not dealt twice",
                    kind="position-repeated",
                    device=device,
                    source=rec.source,
                )
            ]
        reason = (
            f"device {device}: position {pos}{where} read again as a different input; one of "
            "the two reads is wrong"
        )
        out: list[Message] = [
            TableAlert(reason, kind="position-conflict", device=device, source=rec.source)
        ]
        if self.held is None and not self.engine.between_rounds(self.state):
            self.held = reason
            out.append(TableAlert(f"round held: {reason}", kind="round-held", device=device))
            out.append(self.state_view())
        return out

    def _new_run(self, device: str, old: Ledger, new: Ledger) -> list[Message]:
        """A new shoe or shuffle while positions of the old one were still pending: those can
        never be dealt in order now; they stay in the journal, a gap stands until a void."""
        if not old.pending or new.run == old.run:
            return []
        gap = old.gap or Gap(old.run, old.pos or 0, old.missing(), "a new run began first")
        self._set_ledger(device, new.with_gap(gap))
        return [
            TableAlert(
                f"{gap.describe(device)} when {new.run} began: {len(old.pending)} input(s) "
                "after it cannot be dealt; void the round",
                kind="gap",
                device=device,
            )
        ]

    def _deal_waiting(self, device: str, rank: float) -> list[Message]:
        """Deal what was waiting behind a gap that is now filled, in position order (ranked
        after the input that filled it, whatever order they came in)."""
        out: list[Message] = []
        ledger = self.ledgers[device]
        while (nxt := ledger.next_pending()) is not None:
            (event, rec), ledger = nxt
            self._set_ledger(device, ledger)
            rank = max(float(rec.seq), rank + 0.001)
            out += self._deal_or_refuse(event, rec, rank)
        gap = ledger.gap
        if gap is not None and gap.missing is not None and _gap_filled(gap, ledger):
            self._set_ledger(device, ledger.with_gap(None))
            out.append(
                TableAlert(
                    f"device {device}: position(s) {spans(gap.missing)} entered; "
                    "round.resume plays on",
                    kind="gap-filled",
                    device=device,
                )
            )
        return out

    def _deal_or_refuse(self, event: InputEvent, rec: Record, rank: float) -> list[Message]:
        """`_deal_or_hold`, with a refusal turned into its alert (for inputs dealt late, in
        order)."""
        try:
            return self._deal_or_hold(event, rec, rank)
        except Rejected as rej:
            return [self._refusal_alert(rej, rec)]

    def _device_gap(self, ev: DeviceGap, rec: Record) -> list[Message]:
        """The device cannot fill a gap (R39): the round is held until the dealer enters the
        missing cards at the console with their positions, or voids it."""
        device = (
            rec.source.removeprefix("device/") if rec.source.startswith("device/") else ev.device
        )
        ledger = self.ledgers.get(device, Ledger())
        missing: tuple[int, ...] | None = None
        if ev.missing is not None:
            dealt = ledger.pos if ledger.run == ev.run and ledger.pos is not None else 0
            missing = tuple(sorted({p for p in ev.missing if p > dealt} - set(ledger.pending)))
            if not missing:
                return []  # everything it names is in after all
        gap = Gap(ev.run, ev.after, missing, ev.reason, record=rec.seq)
        if ledger.gap is not None and (ledger.gap.run, ledger.gap.missing) == (gap.run, missing):
            return []  # told again after a reconnect: the gap already stands
        told = f"{gap.describe(device)}: {ev.reason}"
        if missing is None and self.engine.between_rounds(self.state) and not ledger.pending:
            # Between rounds nothing of a round can be missing: say so and play on.
            return [TableAlert(f"{told}; no round was in progress", kind="gap", device=device)]
        self._set_ledger(device, ledger.with_gap(gap))
        remedy = (
            "void the round"
            if missing is None
            else "enter the missing cards at the console with their positions, or void the round"
        )
        out: list[Message] = [
            TableAlert(f"{told}; {remedy}", kind="gap", rule="R39", device=device)
        ]
        if self.held is None:
            self.held = gap.describe(device)
            out.append(TableAlert(f"round held: {self.held}", kind="round-held", device=device))
        return [*out, self.state_view()]

    def _device_status(self, ev: DeviceStatus, rec: Record) -> list[Message]:
        out: list[Message] = [
            DeviceStatusChanged(ev.device, ev.available, ev.fault, ev.detail, rec.ts)
        ]
        serial = ev.detail.get("serial")
        self.serials = {**self.serials, ev.device: serial if isinstance(serial, str) else None}
        fault = ev.fault or (None if ev.available else "UNAVAILABLE")
        if ev.available:
            self.unavailable = self.unavailable - {ev.device}
        else:
            self.unavailable = self.unavailable | {ev.device}
        if fault is None:
            self.faults = {name: f for name, f in self.faults.items() if name != ev.device}
            return out
        if self.faults.get(ev.device) != fault:  # a standing fault is alerted once, not per report
            out.append(
                TableAlert(f"device {ev.device}: {fault}", kind="device-fault", device=ev.device)
            )
        self.faults = {**self.faults, ev.device: fault}
        if self.held is None and self.engine.in_deal(self.state):
            # No result from a half-read hand: the round waits for the operator.
            self.held = f"device {ev.device}: {fault}"
            out.append(TableAlert(f"round held: {self.held}", kind="round-held", device=ev.device))
            out.append(self.state_view())
        return out


def _fill_rank(before: Ledger, rec: Record) -> float:
    """Where an input dealt in order ranks among kept inputs: its own record's, unless it fills
    a hole, then just before whatever waited behind the hole or told of it (it happened first)."""
    anchors = [item[1].seq for _, item, _ in before.pending.values()]
    if before.gap is not None and before.gap.record is not None:
        anchors.append(before.gap.record)
    return min([*anchors, rec.seq]) - 0.5 if anchors else float(rec.seq)


def _gap_filled(gap: Gap, ledger: Ledger) -> bool:
    """Whether every position of `gap` has been dealt in order since."""
    return gap.run == ledger.run and all(p <= (ledger.pos or 0) for p in gap.missing or ())
