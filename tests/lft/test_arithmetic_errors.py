"""Arithmetic helpers refuse empty argument lists by name."""

import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError


@pytest.mark.parametrize("name", ["series", "parallel"])
def test_connection_of_nothing_is_refused(name):
    with pytest.raises(ArgumentError, match=f"{name}\\(\\) needs at least one system"):
        getattr(rmb, name)()


def test_single_system_passes_through():
    k = rmb.ureal("k", 2.0)
    assert rmb.series(k).nominal()[0, 0] == 2.0
    assert rmb.parallel(k).nominal()[0, 0] == 2.0
