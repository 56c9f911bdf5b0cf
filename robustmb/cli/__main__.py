"""``python -m robustmb.cli``: the same as the ``robustmb`` command."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
