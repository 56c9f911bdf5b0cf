"""Shared test fixtures: the reference problems in ../shared/oracles."""

import pytest
from _oracles import load_oracle


@pytest.fixture
def oracle():
    return load_oracle
