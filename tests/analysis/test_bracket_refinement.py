"""Bracket refinement of the batched boundary crossings (regula falsi, Illinois variant).

References written out here, none computed by robustmb: roots of hand-written functions
and the closed-form crossing of the pole-escape loop
``K / ((tau s + 1)(0.05 s + 1)^2) 2 (1 + 1 / (0.4 s))`` with ``tau = 0.6 + 0.4 x``: along
``x`` decreasing the closed-loop pole ``~ -1 / tau`` escapes through infinity and comes
back unstable at ``tau = 0``, i.e. ``x = -1.5`` (the abscissa jumps from -inf to +inf).
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis import boundary_crossing
from robustmb.analysis.boundary_crossing import _refine_brackets, scan_crossings
from robustmb.analysis.uncertain_problem import uncertain_problem

# f(lo) < 0 <= f(hi) on each bracket; roots known in closed form
_ROOTS = np.array([2.0 ** (1 / 3), 0.95, 1.0, 3.0, 0.25])


def _f(x, rows):
    out = np.empty(len(rows))
    for i, (r, xi) in enumerate(zip(rows, x, strict=True)):
        if r == 0:  # smooth
            out[i] = xi**3 - 2.0
        elif r == 1:  # flat, then a kink: the regula falsi alone crawls along the flat part
            out[i] = -0.5 if xi < 0.9 else 10.0 * (xi - 0.9) - 0.5
        elif r == 2:  # through infinity (an escaping pole): -inf .. +inf
            out[i] = np.inf if xi == 1.0 else 1.0 / (xi - 1.0)
        elif r == 3:  # a step: no slope information at all
            out[i] = -1.0 if xi < 3.0 else 1.0
        else:  # a root at the lower end of a wide bracket
            out[i] = np.tanh(50.0 * (xi - 0.25))
    return out


def test_refined_brackets_close_on_the_roots_to_the_requested_width():
    rows = np.arange(5)
    lo = np.array([0.0, 0.0, 0.5, 0.0, 0.0])
    hi = np.array([2.0, 2.0, 1.5, 4.0, 10.0])
    got = _refine_brackets(_f, lo, hi, _f(lo, rows), _f(hi, rows))
    # the unstable end: f(hi) >= 0, within 1e-12 relative of the root (from above)
    assert np.all(_f(got, rows) >= 0)
    assert np.all(got >= _ROOTS * (1 - 1e-15))
    assert np.all(got <= _ROOTS * (1 + 1e-12))


def test_unknown_lower_values_start_with_a_bisection():
    rows = np.arange(1)
    got = _refine_brackets(_f, np.array([0.0]), np.array([2.0]), np.array([-np.inf]), [np.inf])
    assert got[0] == pytest.approx(_ROOTS[0], rel=1e-12) and _f(got, rows)[0] >= 0


def _batches(rows, lo, hi):
    calls = []

    def counted(x, act):
        calls.append(len(act))
        return _f(x, np.asarray(rows)[act])

    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    got = _refine_brackets(counted, lo, hi, _f(lo, rows), _f(hi, rows))
    return got, len(calls)


def test_smooth_brackets_close_in_far_fewer_batches_than_bisection():
    """Each step is one batch: the smooth and the flat-then-kinked brackets close in
    far fewer than the 41 halvings a bisection needs from width 2 to 1e-12 relative."""
    got, batches = _batches([0, 1], [0.0, 0.0], [2.0, 2.0])
    assert batches <= 20
    assert np.all(got >= _ROOTS[:2] * (1 - 1e-15)) and np.all(got <= _ROOTS[:2] * (1 + 1e-12))


def test_a_jump_through_infinity_costs_no_more_than_bisection():
    got, batches = _batches([2], [0.5], [1.7])
    assert batches <= 42  # bisection: ceil(log2(1.2 / 1e-12)) = 41
    assert 1.0 <= got[0] <= 1.0 + 1e-12


def test_escaping_pole_is_bracketed_through_infinity():
    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    tau = rmb.ureal("tau", 0.5, range=(0.2, 1.0))
    loop = rmb.feedback(k / ((tau * s + 1) * (0.05 * s + 1) ** 2) * 2 * (1 + 1 / (0.4 * s)), 1)
    problem = uncertain_problem(loop)
    diag = np.zeros(problem.nw)
    for bi in problem.blocks:
        diag[bi.w] = -1.0 if bi.name == "tau" else 0.0
    got = scan_crossings(problem.m11, 0.0, diag[None, :], 20.0)[0]
    assert got == pytest.approx(1.5, rel=1e-10)
    # just below: a stable loop, with tau = 0.6 - 0.4 * x > 0 small
    assert boundary_crossing.abscissae(problem.m11, 0.0, (got * (1 - 1e-6)) * diag[None])[0] < 0
