"""Worst-case disk margin of a loop with an integrator: the skewed-mu upper bound at very
low frequencies (a nearly real matrix, real parameters) and the flag of a wide bracket."""

import dataclasses

import control
import numpy as np

import robustmb as rmb
from robustmb.analysis import worst_case_disk_margin as wdm
from robustmb.analysis.disk_loops import _response
from robustmb.analysis.disk_margin_results import WorstCaseDiskMargin
from robustmb.analysis.mu_sweep import default_grid
from robustmb.analysis.mussv import verify_upper_bound
from robustmb.analysis.uncertain_problem import uncertain_problem

# a frequency of the default grid of this loop, where the bound fell back to sigma_max(M)
W_LOW = 2.2742169954727556e-09


def _loop():
    k = rmb.ureal("k", 1.1, range=(0.6, 1.6))
    wn = rmb.ureal("wn", 3.0, percent=25)
    s = control.tf("s")
    return k * wn**2 / (s**2 + 0.8 * wn * s + wn**2) * control.tf([2, 2], [1, 4, 0])


def _brute_force_margin(omega):
    """min over an 81 x 81 parameter grid of the skew-0 disk margin 1 / max |S - 1/2|
    on ``omega`` (closed form of the loop, numpy only)."""
    s = 1j * np.asarray(omega, float)
    best = np.inf
    for k in np.linspace(0.6, 1.6, 81):
        for wn in np.linspace(2.25, 3.75, 81):
            den = np.polymul([1, 0.8 * wn, wn**2], [1, 4, 0])  # L = num / den
            poly = np.polyadd(den, [2 * k * wn**2] * 2)  # den + num
            assert np.max(np.roots(poly).real) < 0  # stable over the whole box
            S = np.polyval(den, s) / np.polyval(poly, s)  # finite at s = 0 too
            best = min(best, 1.0 / np.max(np.abs(S - 0.5)))
    return best


def test_mussv_nearly_real_matrix_not_sigma_max():
    problem = uncertain_problem(_loop(), what="test")
    M = wdm._disk_interconnection(problem, [0], 0.0)
    blk = list(problem.blk) + [(1, 0)]
    R = _response(M, np.array([W_LOW]), problem.dt)[0]
    nz = problem.nz
    for beta in (2.4, 10.0, 1e3):
        X = R.copy()
        X[nz:, :] /= beta
        # the parameter rows are lower triangular up to 1e-15: det(I - X Delta) is the
        # product of the diagonal factors up to that, and mu is |X[0, 0]| = 0.4545...
        assert np.max(np.abs(np.triu(X[:nz, :nz], 1))) < 1e-14
        ref = abs(X[0, 0])
        res = rmb.mussv(X, blk)
        # the D,G scalings failed the rounding test and the bound fell back to
        # sigma_max(X) = 1.148; the D scalings of the relaxed structure give ~0.4545
        assert res.upper < 1.01 * ref
        assert res.upper >= res.lower
        assert verify_upper_bound(X, blk, res.upper, res.D, res.G)


def test_wcdiskmargin_low_frequency_level():
    L = _loop()
    problem = uncertain_problem(L, what="test")
    omega = default_grid(problem.a, problem.dt)  # the grid of the whole-axis analysis
    assert np.min(np.abs(omega - W_LOW)) < 1e-20
    res = rmb.wcdiskmargin(L, omega=omega)
    ref = _brute_force_margin(omega)
    # the level at W_LOW was 7.7e6 (lower 1.3e-7): now the pointwise mu bounds
    # (conservative for real parameters) bracket the brute-force margin closely
    assert res.lower <= ref * (1 + 1e-9)
    assert res.lower >= ref / 1.15


def test_wide_bracket_is_flagged():
    wide = WorstCaseDiskMargin(1.274e-7, 0.4192, 2.6, {}, None, None, ("u",), 0.0, True)
    assert wide.is_wide
    assert "wide bracket" in repr(wide)
    assert WorstCaseDiskMargin(0.0, 0.4, 1.0, {}, None, None, ("u",), 0.0, False).is_wide
    assert not WorstCaseDiskMargin(0.411, 0.4192, 1.0, {}, None, None, ("u",), 0.0, True).is_wide
    res = wdm.wcdiskmargin(_loop(), omega=[W_LOW, 1.0, 2.6])
    res = dataclasses.replace(res, lower=res.upper / 50)  # a bracket this wide is flagged
    assert "the bracket is wide (upper / lower = 50)" in wdm._reason(res, True)
