"""`python -m tablectl.cli`: the `tablectl` command."""

import sys

from tablectl.cli.app import main

sys.exit(main())
