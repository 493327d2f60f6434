"""A report's HTML printed to PDF by headless Chromium (Debian's `chromium` package): the page
people sign is the page they read, laid out once, by the browser."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
PRINT_TIMEOUT = 120


class PdfError(RuntimeError):
    """No browser to print with, or it failed; the message says which and how to fix it."""


def find_chromium() -> str:
    """TABLECTL_CHROMIUM, or the first Chromium on the PATH."""
    named = os.environ.get("TABLECTL_CHROMIUM")
    if named:
        return named
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise PdfError(
        "--format pdf prints with Chromium, which this machine lacks: `apt-get install "
        "chromium`, or set TABLECTL_CHROMIUM to a Chromium binary"
    )


def print_pdf(html: str, out: Path, chromium: str | None = None) -> None:
    """Write `html` as a PDF to `out` (A4/Letter as Chromium's default, no header or footer)."""
    binary = chromium or find_chromium()
    with tempfile.TemporaryDirectory(prefix="tablectl-report-") as work:
        page = Path(work) / "report.html"
        page.write_text(html, encoding="utf-8")
        target = Path(work) / "report.pdf"  # moved to `out` once whole: never a stale file
        argv = [
            binary,
            "--headless=new",
            "--no-sandbox",  # as root, Chromium's sandbox refuses to start
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            f"--user-data-dir={Path(work) / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={target}",
            page.as_uri(),
        ]
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=PRINT_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PdfError(f"{binary} could not print the report: {exc}") from None
        if done.returncode != 0 or not target.is_file() or target.stat().st_size == 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise PdfError(f"{binary} did not print the report ({done.returncode}): {tail}")
        shutil.move(target, out)
