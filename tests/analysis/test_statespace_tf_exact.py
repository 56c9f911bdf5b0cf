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


def _exact_response(A, B, C, D, s):
    """``C (s I - A)^{-1} B + D`` in Fractions (Gauss-Jordan on the exact matrices)."""
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


def test_mimo_realisation_reproduces_each_entry():
    G = control.tf(
        [[[1.0], [2.0, 1.0]], [[1.0, 0.5], [3.0]]],
        [[[1.0, 0.2, 4.0], [1.0, 3.0]], [[1.0, 1.0], [2.0, 0.1, 1.0]]],
    )
    A, B, C, D, _ = as_statespace_data(G)
    for w in (0.3, 2.0, 11.0):
        s = 1j * w
        H = C @ np.linalg.solve(s * np.eye(A.shape[0]) - A, B) + D
        for i in range(2):
            for j in range(2):
                ref = np.polyval(G.num[i][j], s) / np.polyval(G.den[i][j], s)
                assert abs(H[i, j] - ref) <= 1e-12 * abs(ref)


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
