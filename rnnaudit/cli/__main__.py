"""python -m rnnaudit.cli: the command line."""

import sys

from rnnaudit.cli import main

sys.exit(main())
