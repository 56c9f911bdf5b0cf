"""Access to the reference problems in ../shared/oracles (or ``$ROBUSTMB_ORACLES``)."""

import json
import os
from pathlib import Path

import pytest

ORACLES = Path(
    os.environ.get(
        "ROBUSTMB_ORACLES", Path(__file__).resolve().parents[1].parent / "shared" / "oracles"
    )
)


def load_oracle(name: str) -> dict:
    """Load ``<name>.json`` from the oracle folder, skipping the test when it is absent."""
    path = ORACLES / f"{name}.json"
    if not path.exists():
        pytest.skip(f"oracle {path} not available (set ROBUSTMB_ORACLES)")
    return json.loads(path.read_text())
