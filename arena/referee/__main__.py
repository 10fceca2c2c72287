"""``python -m arena.referee``: see ``arena.referee.cli``."""

import sys

from .cli import main

sys.exit(main())
