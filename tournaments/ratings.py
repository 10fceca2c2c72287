"""A shim that keeps the command line ``python -m tournaments.ratings fit FILE`` working: the
whole-history fit moved to ``ratings.stats.whr`` (``python -m ratings.stats.whr fit FILE``).

Only for the command line (docs/architecture.md, "Names that keep working"): no code imports
this module.
"""

import sys

from ratings.stats.whr.cli import main

if __name__ == "__main__":
    sys.exit(main())
