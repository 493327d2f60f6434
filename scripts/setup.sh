#!/usr/bin/env bash
# Shared set-up for the README's commands: a virtualenv in .venv with tablectl and its test tools.
# Idempotent; needs only python3 and apt on a fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
    echo "setup: installing $* with apt" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# Debian's own python3 where there is one, as scripts/install builds the table's venv from it: the
# tests and benchmarks then run what a table runs (a Python built from source and found first on
# the PATH, pyenv's say, replays a journal about a quarter slower; docs/performance.md).
PYTHON=python3
[ ! -x /usr/bin/python3 ] || PYTHON=/usr/bin/python3
if [ ! -x .venv/bin/python ]; then
    if ! "$PYTHON" -m venv --help >/dev/null 2>&1 || ! "$PYTHON" -c "import ensurepip" 2>/dev/null; then
        apt_install python3-venv
    fi
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.tablectl-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[dev]'
    touch "$stamp"
fi
if [ "${NEED_MOSQUITTO:-0}" = 1 ] && ! command -v mosquitto >/dev/null 2>&1 \
        && [ ! -x /usr/sbin/mosquitto ]; then
    apt_install mosquitto
fi
# the broker TLS test makes its certificates with openssl (tests/integration/test_broker_acl.py)
if [ "${NEED_MOSQUITTO:-0}" = 1 ] && ! command -v openssl >/dev/null 2>&1; then
    apt_install openssl
fi
# the ledger's tests run a real PostgreSQL (initdb into a temporary folder, tests/ledger/postgres.py)
if [ "${NEED_POSTGRES:-0}" = 1 ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
        && ! command -v initdb >/dev/null 2>&1; then
    apt_install postgresql
fi
# the scoreboard page's test drives a real headless Chromium through its chromedriver
# (tests/integration/test_scoreboard_page.py): Debian's packages, never a browser a tool downloads
if [ "${NEED_BROWSER:-0}" = 1 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
    apt_install chromium chromium-driver
fi
