"""Every docstring example of the public modules runs and gives the printed result."""

import doctest
import importlib
import pkgutil

import pytest

import robustmb

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(robustmb.__path__, prefix="robustmb.")
    if not m.name.startswith("robustmb.examples")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
