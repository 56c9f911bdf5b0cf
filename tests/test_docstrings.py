"""Every docstring example of the public modules runs and gives the printed result."""

import doctest
import importlib
import pkgutil

import pytest

import robustmb

# The canonical models' examples build whole mechanisms; these are quick.
QUICK_EXAMPLES = {
    "robustmb.examples.gravimeter",
    "robustmb.examples.stewart_platform",
    "robustmb.examples.plate",
}

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(robustmb.__path__, prefix="robustmb.")
    if not m.name.startswith("robustmb.examples") or m.name in QUICK_EXAMPLES
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
