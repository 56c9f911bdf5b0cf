"""Exact norm, Gershgorin and trace verdicts before the characteristic polynomial, and
constant polynomials in the Routh test.

References: numpy eigenvalues of the unscaled matrix (a positive scaling keeps the sign of
every real part and scales every modulus), matrices with known eigenvalues (triangular),
and the polynomial path itself, reached by matrices that the quick test leaves open.
"""

import numpy as np
import pytest

from robustmb.analysis.exact_stability import (
    _decide,
    _quick_verdict,
    exact_stable,
    hurwitz_stable,
    integer_matrix,
)
from robustmb.errors import ArgumentError, DimensionError


@pytest.mark.parametrize("constant", [1, -3, 7])
def test_a_constant_has_no_unstable_root(constant):
    assert hurwitz_stable([constant]) is True


def test_zero_polynomial_is_still_rejected():
    with pytest.raises(ArgumentError, match="hurwitz_stable: the leading coefficient"):
        hurwitz_stable([0])


def test_a_non_square_matrix_is_a_dimension_error():
    with pytest.raises(DimensionError, match=r"exact_stable: .* shape \(2, 3\)"):
        exact_stable(np.ones((2, 3)))


def _verdict(eigenvalues, discrete):
    return bool(np.all(np.abs(eigenvalues) < 1)) if discrete else bool(np.all(eigenvalues.real < 0))


@pytest.mark.parametrize(
    ("n", "scale", "complex_entries"),
    [(24, 1e-300, False), (12, 1e-200, True), (20, 1e-250, False)],
)
def test_tiny_entries_decided_in_discrete_and_continuous_time(n, scale, complex_entries):
    rng = np.random.default_rng(n)
    S = rng.standard_normal((n, n))
    if complex_entries:
        S = S + 1j * rng.standard_normal((n, n))
    A = S * scale
    _decide.cache_clear()
    # spectral radius about sqrt(n) * scale: far inside the unit disc
    assert exact_stable(A, dt=1.0) is True
    # continuous time: the sign of every real part is that of S's eigenvalues
    eigenvalues = np.linalg.eigvals(S)
    assert np.min(np.abs(eigenvalues.real)) > 1e-6  # no eigenvalue near the axis
    assert exact_stable(A) is _verdict(eigenvalues, False)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("discrete", [False, True])
def test_quick_verdicts_agree_with_eigenvalues(seed, discrete):
    rng = np.random.default_rng(seed)
    n = 6
    cases = []
    small = rng.standard_normal((n, n))
    small *= 0.9 / np.max(np.sum(np.abs(small), axis=1))  # ||A||_inf = 0.9
    cases.append(small)
    dominant = rng.standard_normal((n, n))
    np.fill_diagonal(dominant, -(np.sum(np.abs(dominant), axis=1) + 0.1))  # Gershgorin rows
    cases.append(dominant)
    cases.append(dominant.T.copy())  # Gershgorin columns
    large = rng.standard_normal((n, n)) + 2.0 * np.eye(n)  # trace far beyond n or 0
    cases.append(large)
    for A in cases:
        M, k = integer_matrix(A)
        quick = _quick_verdict(M, k, discrete)
        eigenvalues = np.linalg.eigvals(A)
        margin = np.abs(eigenvalues) - 1 if discrete else eigenvalues.real
        if quick is None or np.min(np.abs(margin)) < 1e-8:
            continue
        assert quick is _verdict(eigenvalues, discrete)
        _decide.cache_clear()
        assert exact_stable(A, dt=1.0 if discrete else 0.0) is quick


def test_every_constructed_case_is_settled_by_the_quick_test():
    small = np.array([[0.5, 0.3], [-0.2, 0.4]])
    assert _quick_verdict(*integer_matrix(small), True) is True
    dominant = np.array([[-2.0, 1.5], [0.5, -1.0]])
    assert _quick_verdict(*integer_matrix(dominant), False) is True
    assert _quick_verdict(*integer_matrix(np.eye(3)), True) is False  # tr = n: eigenvalue 1
    assert _quick_verdict(*integer_matrix(np.diag([1.0, -1.0])), False) is False  # tr = 0


@pytest.mark.parametrize(
    ("A", "discrete", "expected"),
    [
        # ||A||_inf = ||A||_1 = 1 exactly: left open, eigenvalues 0.5 (stable)
        (np.array([[0.5, 0.5], [0.0, 0.5]]), True, True),
        # a disc touching the axis: left open, eigenvalues -1, -1 (stable)
        (np.array([[-1.0, 1.0], [0.0, -1.0]]), False, True),
        # trace < 0 but an eigenvalue at 0
        (np.array([[0.0, 0.0], [0.0, -1.0]]), False, False),
        # |tr| < n but an eigenvalue at -1 on the circle
        (np.array([[-1.0, 0.0], [0.0, 0.0]]), True, False),
    ],
)
def test_boundary_cases_left_open_go_to_the_polynomial(A, discrete, expected):
    assert _quick_verdict(*integer_matrix(A), discrete) is None
    _decide.cache_clear()
    assert exact_stable(A, dt=1.0 if discrete else 0.0) is expected
