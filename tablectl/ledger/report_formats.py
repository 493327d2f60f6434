"""A shift report written out: CSV for accounting's tools, HTML to read and print (and, through
Chromium's print, the PDF people sign). Pure: a ShiftReport in, text out."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterator
from html import escape

from tablectl.ledger.report import CollectionKey, ShiftReport, TableReport

CSV_COLUMNS = ("section", "site", "table", "item", "detail", "amount", "ts", "note")


def _payer(key: CollectionKey) -> str:
    return key.payer if key.schedule is None else f"{key.payer} (option {key.schedule})"


def _csv_rows(report: ShiftReport) -> Iterator[tuple[str, ...]]:
    s = report.shift
    yield ("shift", "", "", s.name, "", "", s.start.isoformat(), s.end.isoformat())
    for t in report.tables:
        yield from _table_rows(t)
    for pit in sorted(report.pits):
        yield from _total_rows("pit-", "", pit, report.pit_totals(pit))
    for site in report.sites():
        yield from _total_rows("site-", site, "", report.site_totals(site))


def _total_rows(
    prefix: str, site: str, table: str, total: TableReport
) -> Iterator[tuple[str, ...]]:
    """A table's, pit's or site's rounds, collections by payer and amount collected."""
    yield (f"{prefix}rounds", site, table, "rounds", "", str(total.rounds), "", "")
    for key, amount in sorted(total.collections.items()):
        yield (f"{prefix}collection", site, table, _payer(key), "", f"{amount:.2f}", "", "")
    yield (f"{prefix}collected", site, table, "total", "", f"{total.collected:.2f}", "", "")


def _table_rows(t: TableReport) -> Iterator[tuple[str, ...]]:
    site, table = t.site, t.table
    yield ("table", site, table, "games", " ".join(sorted(t.games)), "", "", "")
    yield from _total_rows("", site, table, t)
    for n in t.voided:
        yield ("void", site, table, n.what, "", "", n.ts, n.why)
    for n in t.held:
        yield ("held", site, table, n.what, "", "", n.ts, n.why)
    for n in t.device_faults:
        yield ("device-fault", site, table, n.what, "", "", n.ts, n.why)
    for b in t.banks:
        what = f"seat {b.seat} turn {b.turn}"
        yield ("bank", site, table, what, f"{b.start} -> {b.end}", str(b.rounds), "", "")
    for lo, hi in t.gaps:
        yield ("gap", site, table, f"{lo}-{hi}", "", str(hi - lo + 1), "", "messages missing")
    for n in t.offline:
        yield ("offline", site, table, n.what, "", "", n.ts, n.why)
    if t.silent:
        yield ("silent", site, table, "no message in the shift", "", "", "", "")


def to_csv(report: ShiftReport, *, with_digest: bool = True) -> str:
    """Every figure of the report, one row each; the last row the digest of the rows above."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(_csv_rows(report))
    text = out.getvalue()
    if with_digest:
        text += f"digest,,,sha256,{digest(report)},,,\n"
    return text


def digest(report: ShiftReport) -> str:
    """SHA-256 of the report's figures (its CSV rows): the number a signed paper copy carries,
    so it can be matched with the books it came from."""
    return hashlib.sha256(to_csv(report, with_digest=False).encode("utf-8")).hexdigest()


_STYLE = """
body { font: 11pt/1.35 sans-serif; margin: 1.5cm; color: #000; }
h1 { font-size: 16pt; margin: 0 0 .2em; } h2 { font-size: 13pt; margin: 1.2em 0 .3em; }
h3 { font-size: 11pt; margin: .8em 0 .2em; }
table { border-collapse: collapse; margin: .3em 0; } td, th { border: 1px solid #888;
padding: .15em .5em; text-align: left; } td.n { text-align: right; }
.complete { border: 2px solid #060; padding: .4em; } .incomplete { border: 2px solid #a00;
padding: .4em; } .sign { margin-top: 2em; } .sign td { border: none; padding: 1.2em 1em 0 0; }
.digest { font-family: monospace; font-size: 8pt; margin-top: 1.5em; }
section { page-break-inside: avoid; }
"""


def to_html(report: ShiftReport, *, title: str = "Shift report") -> str:
    """A printable page: completeness first (gaps, offline tables), the totals per site, each
    table, then the signatures and the report's digest."""
    s = report.shift
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}: {escape(s.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}: {escape(s.name)}</h1>",
        f"<p>From <time>{s.start.isoformat()}</time> to <time>{s.end.isoformat()}</time> "
        f"(UTC); made {escape(report.generated)}; sites {escape(', '.join(report.sites()))}.</p>",
        _completeness(report),
    ]
    for pit in sorted(report.pits):
        total = report.pit_totals(pit)
        tables = ", ".join(report.pits[pit])
        parts.append(f'<section class="pit"><h2>Pit {escape(pit)}: totals</h2>')
        parts.append(f"<p>Tables {escape(tables)}.</p>")
        parts.append(_figures(total))
        parts.append("</section>")
    for site in report.sites():
        total = report.site_totals(site)
        parts.append(f'<section class="site"><h2>Site {escape(site)}: totals</h2>')
        parts.append(_figures(total))
        parts.append("</section>")
    for t in report.tables:
        parts.append(_table_html(t))
    parts.append(
        '<table class="sign"><tr><td>Prepared by: ____________________</td>'
        "<td>Signature: ____________________</td><td>Date: __________</td></tr>"
        "<tr><td>Reviewed by: ____________________</td>"
        "<td>Signature: ____________________</td><td>Date: __________</td></tr></table>"
    )
    parts.append(f'<p class="digest">Report digest (SHA-256 of its CSV): {digest(report)}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _completeness(report: ShiftReport) -> str:
    gaps = [t for t in report.tables if t.gaps]
    offline = [t for t in report.tables if t.offline]
    if not gaps and not offline:
        return (
            '<p class="complete" id="completeness">Complete: every table\'s messages in the '
            "books, none offline in the shift.</p>"
        )
    items = [
        f"<li>{escape(t.site)}/{escape(t.table)}: "
        f"{sum(hi - lo + 1 for lo, hi in t.gaps)} messages missing "
        f"({escape(', '.join(f'{lo}-{hi}' for lo, hi in t.gaps))})</li>"
        for t in gaps
    ] + [
        f"<li>{escape(t.site)}/{escape(t.table)}: offline "
        f"{escape('; '.join(f'{n.ts} {n.why}' for n in t.offline))}</li>"
        for t in offline
    ]
    return (
        '<div class="incomplete" id="completeness"><p>Not complete: the figures below lack what '
        "these tables did not deliver.</p><ul>" + "".join(items) + "</ul></div>"
    )


def _figures(t: TableReport) -> str:
    rows = [f'<tr><th>Rounds</th><td class="n">{t.rounds}</td></tr>']
    for key, amount in sorted(t.collections.items()):
        rows.append(
            f'<tr><th>Collected from {escape(_payer(key))}</th><td class="n">{amount:.2f}</td></tr>'
        )
    rows.append(f'<tr><th>Collected in all</th><td class="n collected">{t.collected:.2f}</td></tr>')
    return "<table>" + "".join(rows) + "</table>"


def _table_html(t: TableReport) -> str:
    games = ", ".join(sorted(t.games)) or "no round"
    out = [
        f'<section class="table" data-table="{escape(t.site)}/{escape(t.table)}">',
        f"<h2>Table {escape(t.site)}/{escape(t.table)} ({escape(games)})</h2>",
        _figures(t),
    ]
    lists = (
        ("Voided rounds", t.voided),
        ("Held rounds", t.held),
        ("Device faults", t.device_faults),
        ("Offline", t.offline),
    )
    for heading, notes in lists:
        if notes:
            out.append(f"<h3>{heading}</h3><table>")
            out += [
                f"<tr><td>{escape(n.ts)}</td><td>{escape(n.what)}</td><td>{escape(n.why)}</td></tr>"
                for n in notes
            ]
            out.append("</table>")
    if t.banks:
        out.append("<h3>Player-dealer rotation (R5)</h3><table>")
        out.append("<tr><th>seat</th><th>turn</th><th>bank</th><th>rounds</th></tr>")
        out += [
            f"<tr><td>{b.seat}</td><td>{b.turn}</td><td>{escape(b.start)} &rarr; "
            f'{escape(b.end)}</td><td class="n">{b.rounds}</td></tr>'
            for b in t.banks
        ]
        out.append("</table>")
    if t.silent:
        out.append("<p>No message in the shift.</p>")
    out.append("</section>")
    return "\n".join(out)
