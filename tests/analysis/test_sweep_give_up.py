"""A fixed-level sweep whose uncovered gaps keep doubling gives up (``give_up``).

Sub-boxes of the pole-escape loop ``K / ((tau s + 1)(0.05 s + 1)^2) 2 (1 + 1 / (0.4 s))``
(``K = 2 +- 50 %``, ``tau`` in ``[0.2, 1]``; the branch and bound of the problem set at
``1.5 / 1.005``) next to its near-critical finite-frequency crossing
(``||delta||_inf = 1.501`` near 28 rad/s).  Giving up only changes the effort: a sweep
that would certify is unchanged, and one that gives up claims nothing (not covered).
The independent check of the boxes is a grid of closed-loop poles (``numpy`` eigenvalues
of the substituted loop, via python-control), not the sweep.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.branch_and_bound import _BOX_LEVEL, recentre_system
from robustmb.analysis.mu_sweep import _growing, certified_mu_peak
from robustmb.analysis.uncertain_problem import uncertain_problem


def _problem():
    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    tau = rmb.ureal("tau", 0.5, range=(0.2, 1.0))
    loop = rmb.feedback(k / ((tau * s + 1) * (0.05 * s + 1) ** 2) * 2 * (1 + 1 / (0.4 * s)), 1)
    return uncertain_problem(loop)


def _sub_box(problem, centre, radius):
    """Re-centred ``M11`` of the sub-box ``centre +- radius`` (normalised K, tau)."""
    c = np.zeros(problem.nw)
    r = np.zeros(problem.nw)
    for bi in problem.blocks:
        j = 0 if bi.name == "K" else 1
        c[bi.w], r[bi.w] = centre[j], radius[j]
    return recentre_system(problem.m11, problem.nw, problem.nz, c, r)


def _max_abscissa(centre, radius, n=21):
    """Largest closed-loop pole real part over an ``n x n`` grid of the sub-box."""
    s = control.tf("s")
    worst = -np.inf
    for x in np.linspace(centre[0] - radius[0], centre[0] + radius[0], n):
        for y in np.linspace(centre[1] - radius[1], centre[1] + radius[1], n):
            k, tau = 2.0 * (1 + 0.5 * x), 0.6 + 0.4 * y
            open_loop = k / ((tau * s + 1) * (0.05 * s + 1) ** 2) * 2 * (1 + 1 / (0.4 * s))
            poles = control.poles(control.feedback(open_loop, 1))
            worst = max(worst, float(np.max(poles.real)))
    return worst


def test_growing_needs_two_rounds_in_a_row():
    assert _growing([5, 18, 54], 2.0)
    assert not _growing([7, 18, 25], 2.0)
    assert not _growing([2, 3, 9], 2.0)
    assert not _growing([18, 54], 2.0) and not _growing([0, 0, 0], 2.0)


@pytest.mark.slow  # about 10 s
def test_a_sweep_with_few_doubling_gaps_goes_on_and_certifies():
    """Gaps 2 -> 6 -> 14 -> 0: doubling twice, but below 20 gaps, so not given up."""
    problem = _problem()
    centre, radius = (1.306, -1.3759), (0.1866, 0.0233)
    sub = _sub_box(problem, centre, radius)
    opts = dict(level=_BOX_LEVEL, lower=False, max_rounds=4, relax=False, give_up=2.0)
    assert certified_mu_peak(sub, problem.blk, **opts).covered
    assert _max_abscissa(centre, radius) < 0


@pytest.mark.slow  # two sweeps of a near-critical sub-box, about 20 s
def test_a_certifying_sweep_is_unchanged_by_give_up():
    """Gaps 4 -> 6 -> 6 -> 0: never doubling twice, the same certificate either way."""
    problem = _problem()
    centre, radius = (1.306, -1.4459), (0.1866, 0.0466)
    sub = _sub_box(problem, centre, radius)
    opts = dict(level=_BOX_LEVEL, lower=False, max_rounds=4, relax=False)
    plain = certified_mu_peak(sub, problem.blk, **opts)
    quick = certified_mu_peak(sub, problem.blk, give_up=2.0, **opts)
    assert plain.covered and quick.covered
    assert quick.intervals == plain.intervals
    np.testing.assert_array_equal(quick.mu_upper, plain.mu_upper)
    # independent: every sampled parameter value of the sub-box is stable
    assert _max_abscissa(centre, radius) < 0


@pytest.mark.slow  # the failing sweep without give_up takes about 35 s
def test_a_sweep_whose_gaps_double_gives_up_early():
    """Gaps 5 -> 18 -> 54: given up after round 2, not covered, with far fewer
    frequencies than the full four rounds (5 -> 18 -> 54 -> 93 -> 307)."""
    problem = _problem()
    sub = _sub_box(problem, (1.306, -1.3993), (0.1866, 0.0933))
    opts = dict(level=_BOX_LEVEL, lower=False, max_rounds=4, relax=False)
    plain = certified_mu_peak(sub, problem.blk, **opts)
    quick = certified_mu_peak(sub, problem.blk, give_up=2.0, **opts)
    assert not plain.covered and not quick.covered
    assert np.isinf(quick.upper)
    assert len(quick.omega) < len(plain.omega) / 2
