"""wcdiskmargin's certification budget: an explicit argument, a warning when it is spent.

Each doubling of the level is a whole-axis mu certification (seconds to tens of seconds on
large models); the default budget of 20 doublings used to be spent silently.  The
reference margins are the closed forms of ``test_wcdiskmargin_certification``.
"""

import warnings

import control
import numpy as np
import pytest
from test_wcdiskmargin_certification import _exact_disk_margin

import robustmb as rmb
from robustmb.analysis import worst_case_disk_margin as wcdm
from robustmb.errors import ArgumentError

s = control.tf("s")


def _loop():
    """``L = 2k / (s + 1)^2``, ``k`` in [0.5, 2]: the worst case is ``k = 2``."""
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    return k * 2 / (s + 1) ** 2


def _brute():
    ks = np.linspace(0.5, 2.0, 301)
    return min(_exact_disk_margin([2.0 * x], [1.0, 2.0, 1.0]) for x in ks)


@pytest.mark.parametrize("budget", [0, 3])
def test_spent_budget_warns_and_is_not_certified(monkeypatch, budget):
    calls = []

    def never(M, nz, blk, dt, beta):
        calls.append(beta)
        return False, np.zeros(0)

    monkeypatch.setattr(wcdm, "_certifies", never)
    with pytest.warns(RuntimeWarning, match=rf"max_doublings={budget} times") as record:
        res = rmb.wcdiskmargin(_loop(), max_doublings=budget)
    assert len(record) == 1
    assert not res.certified and res.lower == 0.0
    assert "not certified" in repr(res)
    # the budget is what was spent: the grid's trial (and at most the refinements), then
    # ``budget`` doublings
    doubled = [b for prev, b in zip(calls, calls[1:], strict=False) if b == 2.0 * prev]
    assert len(doubled) == budget
    assert len(calls) <= 1 + wcdm._WC_REFINEMENTS + budget
    # the realised margin is still the loop's at k = 2 (closed form)
    assert res.upper == pytest.approx(_brute(), rel=1e-6)


def test_budget_is_enough_when_a_certificate_exists():
    # a certificate from the grid's level: no doubling needed, no warning, and sound
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = rmb.wcdiskmargin(_loop(), max_doublings=0)
    brute = _brute()
    assert res.certified
    assert 0 < res.lower <= brute <= res.upper * (1 + 1e-9)
    assert res.lower * (1 + 2 * wcdm._WC_REL_GAP) ** 2 >= brute


def test_a_budget_that_doubling_finds_is_used(monkeypatch):
    # a fake certificate passing above 5 times the grid's level: found within 3 doublings,
    # not within 2 (then the warning names the budget)
    real = wcdm._certifies
    first = []

    def late(M, nz, blk, dt, beta):
        if not first:
            first.append(beta)
        if beta >= 5.0 * first[0]:
            return real(M, nz, blk, dt, beta)
        return False, np.zeros(0)

    monkeypatch.setattr(wcdm, "_certifies", late)
    res = rmb.wcdiskmargin(_loop(), max_doublings=3)
    assert res.certified and 0 < res.lower <= _brute()
    first.clear()
    with pytest.warns(RuntimeWarning, match="max_doublings=2"):
        res = rmb.wcdiskmargin(_loop(), max_doublings=2)
    assert not res.certified and res.lower == 0.0


@pytest.mark.parametrize("bad", [-1, 2.5, True, "20", None])
def test_bad_budget_is_refused(bad):
    with pytest.raises(ArgumentError, match="max_doublings"):
        rmb.wcdiskmargin(_loop(), max_doublings=bad)
