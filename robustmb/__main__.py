"""``python -m robustmb``: the same as the ``robustmb`` command (:func:`robustmb.cli.main`).

Ctrl-C while Python imports the package (NumPy, SciPy, python-control and matplotlib:
a few seconds, before any code of the command runs) ends with Python's own
``KeyboardInterrupt`` traceback; nothing has been read or written by then.
"""

import sys

from robustmb.cli import main

if __name__ == "__main__":
    sys.exit(main())
