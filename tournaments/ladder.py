"""A shim that keeps the command line ``python -m tournaments.ladder simulate|spread`` working:
the ladder's simulations moved to ``ladder.simulate`` (``python -m ladder.simulate``).

Only for the command line (docs/architecture.md, "Names that keep working"): no code imports
this module.
"""

import sys

from ladder.simulate import main

if __name__ == "__main__":
    sys.exit(main())
