"""``python -m tournaments.ratings``: see ``tournaments.ratings.cli``."""

import sys

from tournaments.ratings.cli import main

sys.exit(main())
