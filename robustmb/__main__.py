"""``python -m robustmb``: the same as the ``robustmb`` command (:func:`robustmb.cli.main`).

Ctrl-C while Python imports the package (NumPy, SciPy and python-control: a few
seconds, before any code of the command runs) ends with one line and status 130, as
later (:mod:`robustmb._cli_start`); nothing has been read or written by then.
"""

import sys

from robustmb.cli import main

if __name__ == "__main__":
    sys.exit(main())
