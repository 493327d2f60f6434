"""The `tablectl` command line: `main` (the console entry point, `tablectl.cli:main`) and the exit
codes every command shares. The top-level parser is in tablectl/cli/app.py, each command's
parser beside its handler in a module of its own."""

from tablectl.cli.app import main
from tablectl.cli.common import EXIT_FAIL, EXIT_NOT_RUNNING, EXIT_OK, EXIT_USAGE

__all__ = ["EXIT_FAIL", "EXIT_NOT_RUNNING", "EXIT_OK", "EXIT_USAGE", "main"]
