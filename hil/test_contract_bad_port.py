"""The contract suites on a port that is not there (`TABLECTL_HIL_<CLASS>_PORT` set wrong): each
fails with the port's error, so the technician at the rig reads why, never a bare TimeoutError."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parent.parent

# device class -> (its suite's first test, what its failure calls the device)
SUITES = {
    "shoe": ("test_shoe_contract.py::test_connects_and_reports_available", "shoe"),
    "dice": ("test_dice_contract.py::test_it_connects_and_reports_itself_available", "dice cup"),
    "dispenser": (
        "test_dispenser_contract.py::test_it_connects_and_reports_itself_available",
        "shuffler",
    ),
    "eztrak": ("test_eztrak_contract.py::test_it_connects_and_reports_itself_available", "display"),
}


def test_every_suite_fails_with_the_ports_error_on_a_missing_port(tmp_path: Path) -> None:
    """Run against real hardware "when environment variables name the port";
    a wrong name must say what is wrong with it. The four suites run at once, each waiting its
    5 s for the device (about 10 s in all)."""
    port = str(tmp_path / "ttyUSB-none")
    runs = {}
    for device_class, (test, _) in SUITES.items():
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLECTL_HIL_")}
        env[f"TABLECTL_HIL_{device_class.upper()}_PORT"] = port
        runs[device_class] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"hil/contracts/{test}",
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    outputs = {}
    for device_class, proc in runs.items():
        out, _ = proc.communicate(timeout=60)
        outputs[device_class] = (proc.returncode, out)
    for device_class, (code, out) in outputs.items():
        what = SUITES[device_class][1]
        assert code == 1, out  # pytest: tests ran and one failed (an error at setup)
        assert f"the {what} at {port} is not available: cannot open {port}" in out, out
        assert "No such file or directory" in out, out
        assert "TimeoutError" not in out, out
