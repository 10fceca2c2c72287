"""A shim that keeps the command line ``python -m tournaments.sprt`` working: the SPRT
arithmetic moved to ``ratings.stats.sprt`` (``python -m ratings.stats.sprt``).

Only for the command line (docs/architecture.md, "Names that keep working"): no code imports
this module.
"""

import sys

from ratings.stats.sprt import main

if __name__ == "__main__":
    sys.exit(main())
