"""``python -m ratings.stats.whr``: see ``ratings.stats.whr.cli``."""

import sys

from ratings.stats.whr.cli import main

sys.exit(main())
