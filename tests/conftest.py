"""Shared test fixtures (the reference problems in ../shared/oracles) and the
Hypothesis profiles.

The default profile is derandomised: every run, CI included, draws the same examples,
so a failure reproduces on any clone.  ``HYPOTHESIS_PROFILE=explore pytest`` draws
fresh random examples on each run, to search for new failures; add any it finds as an
``@example`` to the test.
"""

import os

import pytest
from _oracles import load_oracle
from hypothesis import settings

settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def oracle():
    return load_oracle
