"""Transfer functions realised without rounding the coefficients.

python-control's ``ss(tf([2], [1, 2e-7, 1]))`` stores the damping as
``-2.0000000011677344e-07``, enough to move a certified disk margin above the true one.
The companion form copies the coefficients; the checks below evaluate the realisation in
exact rational arithmetic (and the margin in 60-digit arithmetic), never with the code
under test.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import control
import mpmath as mp
import numpy as np
import pytest

from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.norms import _hinfnorm_bracket


def _exact_response(A, B, C, D, s):
    """``C (s I - A)^{-1} B + D`` of one input and output in Fractions (Gauss-Jordan on
    the exact matrices)."""
    n = A.shape[0]
    M = [[(s if i == j else 0) - Fraction(A[i, j]) for j in range(n)] for i in range(n)]
    x = [Fraction(B[i, 0]) for i in range(n)]
    for k in range(n):
        pivot = next(i for i in range(k, n) if M[i][k] != 0)
        M[k], M[pivot] = M[pivot], M[k]
        x[k], x[pivot] = x[pivot], x[k]
        for i in range(n):
            if i != k and M[i][k] != 0:
                f = M[i][k] / M[k][k]
                M[i] = [a - f * b for a, b in zip(M[i], M[k], strict=True)]
                x[i] -= f * x[k]
    return sum(Fraction(C[0, i]) * x[i] / M[i][i] for i in range(n)) + Fraction(D[0, 0])


def _exact_ratio(num, den, s):
    value = lambda c: sum(Fraction(a) * s ** (len(c) - 1 - k) for k, a in enumerate(c))  # noqa: E731
    return value(num) / value(den)


@pytest.mark.parametrize(
    ("num", "den"),
    [
        ([2.0], [1.0, 2e-7, 1.0]),
        ([0.3, 1.0], [4.0, 0.1, 7.0, 1e-9]),
        ([3.0, 1.0, 2.0], [2.0, 3.0, 1.0]),
    ],
)
def test_power_of_two_leading_coefficient_is_realised_exactly(num, den):
    A, B, C, D, _ = as_statespace_data(control.tf(num, den))
    assert A.shape == (len(den) - 1, len(den) - 1)
    for s in (Fraction(1, 3), Fraction(7, 2), Fraction(-5, 11)):
        assert _exact_response(A, B, C, D, s) == _exact_ratio(num, den, s)


def test_other_leading_coefficient_rounds_once_per_coefficient():
    num, den = [1.0, 2.0], [3.0, 0.7, 5.0]
    A, B, C, D, _ = as_statespace_data(control.tf(num, den))
    s = Fraction(2, 7)
    exact = _exact_ratio(num, den, s)
    assert abs(_exact_response(A, B, C, D, s) / exact - 1) < 8 * 2.0**-52


def test_cancellation_keeps_the_minimal_realisation():
    # (s - 1) / (s^2 - 1) = 1 / (s + 1): python-control removes the unstable mode
    A, *_ = as_statespace_data(control.tf([1.0, -1.0], [1.0, 0.0, -1.0]))
    assert A.shape == (1, 1)
    assert A[0, 0] == pytest.approx(-1.0, rel=1e-15)


def test_mimo_realisation_is_exact_entry_by_entry():
    num = [[[1.0], [2.0, 1.0]], [[1.0, 0.5], [3.0]]]
    den = [[[1.0, 0.2, 4.0], [1.0, 3.0]], [[1.0, 1.0], [2.0, 0.1, 1.0]]]
    A, B, C, D, _ = as_statespace_data(control.tf(num, den))
    for s in (Fraction(1, 3), Fraction(-7, 2)):
        for i in range(2):
            for j in range(2):
                entry = _exact_response(
                    A, B[:, j : j + 1], C[i : i + 1], D[i : i + 1, j : j + 1], s
                )
                assert entry == _exact_ratio(num[i][j], den[i][j], s)


def test_mimo_lightly_damped_peak_is_bracketed():
    # [2 / (s^2 + 2e-7 s + 1); 1 / (s^2 + 3e-7 s + 1)]: python-control's realisation
    # moves these dampings to 1.46e-7 and 1.04e-7
    G = control.tf([[[2.0]], [[1.0]]], [[[1.0, 2e-7, 1.0]], [[1.0, 3e-7, 1.0]]])
    A, *_ = as_statespace_data(G)
    with mp.workdps(50):
        z1, z2 = mp.mpf(2e-7), mp.mpf(3e-7)

        def gain(w):
            s = mp.mpc(0, w)
            return mp.sqrt(abs(2 / (s**2 + z1 * s + 1)) ** 2 + abs(1 / (s**2 + z2 * s + 1)) ** 2)

        lo, hi = mp.mpf(1) - mp.mpf(1e-6), mp.mpf(1) + mp.mpf(1e-6)
        for _ in range(220):
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if gain(m1) < gain(m2):
                lo = m1
            else:
                hi = m2
        true = gain((lo + hi) / 2)
    gamma, _, upper = _hinfnorm_bracket(G, 1e-8)
    assert np.isfinite(upper)
    assert mp.mpf(gamma) <= true * (1 + mp.mpf(1e-12))
    assert true <= mp.mpf(upper)
    assert sorted(np.linalg.eigvals(A).real.tolist()) == pytest.approx(
        [-1.5e-7] * 2 + [-1e-7] * 2, rel=1e-9
    )


def test_disk_margin_of_a_lightly_damped_loop_is_not_above_the_true_one():
    from robustmb.analysis.diskmargin import diskmargin

    with mp.workdps(50):
        a, z = mp.mpf(0.35), mp.mpf(2e-7)

        def gap(w):
            s = mp.mpc(0, w)
            return abs((s**2 + z * s + 1) / (s**2 + z * s + 3) - a)

        lo, hi = mp.sqrt(3) - mp.mpf(1e-6), mp.sqrt(3) + mp.mpf(1e-6)
        for _ in range(220):
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if gap(m1) < gap(m2):
                lo = m1
            else:
                hi = m2
        true = 1 / gap((lo + hi) / 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        margin = diskmargin(control.tf([2.0], [1.0, 2e-7, 1.0]), skew=0.3).multiloop
    assert margin.certified
    assert mp.mpf(margin.lower) <= true
    assert true <= mp.mpf(margin.lower) * (1 + mp.mpf(1e-8))
