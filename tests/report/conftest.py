"""Fixtures of the report tests: analyses are expensive, so each runs once per session."""

import pytest
from report_loops import second_order, two_by_two

from robustmb.report import worst_case_report

MIMO_CHANNELS = {"first error": (["e1"], ["r1", "r2"])}


@pytest.fixture(scope="session")
def oscillator():
    return second_order(0.5, 1.5)


@pytest.fixture(scope="session")
def mimo():
    return two_by_two()


@pytest.fixture(scope="session")
def mimo_report(mimo, tmp_path_factory):
    """One written report of the 2x2 loop, shared by the JSON, figure and HTML tests."""
    out = tmp_path_factory.mktemp("mimo_report")
    return worst_case_report(mimo, MIMO_CHANNELS, out_dir=out, n_samples=12, seed=1)
