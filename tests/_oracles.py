"""Access to the reference problems kept in ``tests/data``.

Each JSON file is a published or independently computed answer with its source named in
the file (``tests/data/README.md`` explains the conventions). The data lives in the
repository so that a fresh clone runs every test; ``$ROBUSTMB_ORACLES`` may point at
another folder of the same layout.
"""

import json
import os
from pathlib import Path

ORACLES = Path(os.environ.get("ROBUSTMB_ORACLES", Path(__file__).resolve().parent / "data"))


def load_oracle(name: str) -> dict:
    """Load ``<name>.json`` from the oracle folder; a missing file is an error, not a skip."""
    path = ORACLES / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"reference problem {path} is missing from tests/data")
    return json.loads(path.read_text())
