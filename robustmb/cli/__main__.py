"""``python -m robustmb.cli``: the same as the ``robustmb`` command."""

import sys

from . import main

sys.exit(main())
