"""``python -m arena.rules``: see ``arena.rules.cli``."""

import sys

from .cli import main

sys.exit(main())
