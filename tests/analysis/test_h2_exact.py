"""The exact (rational) Gramian behind ``h2norm`` for a few states, against scipy's
Bartels-Stewart solvers on well-conditioned random models and closed forms."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis._h2_exact import exact_h2_squared


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_matches_scipy_on_well_conditioned_models(n, m, p, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    B = rng.standard_normal((n, m))
    C = rng.standard_normal((p, n))
    Ac = A - (np.max(np.linalg.eigvals(A).real) + 0.5) * np.eye(n)
    P = scipy.linalg.solve_continuous_lyapunov(Ac, -B @ B.T)
    assert float(exact_h2_squared(Ac, B, C)) == pytest.approx(np.trace(C @ P @ C.T), rel=1e-9)
    Ad = A / (1.5 * np.max(np.abs(np.linalg.eigvals(A))))
    P = scipy.linalg.solve_discrete_lyapunov(Ad, B @ B.T)
    value = float(exact_h2_squared(Ad, B, C, discrete=True))
    assert value == pytest.approx(np.trace(C @ P @ C.T), rel=1e-9)


def test_closed_forms():
    # 1 / (s + a): 1 / (2 a); 1 / (s^2 + 2 zeta s + 1): 1 / (4 zeta); x+ = x / 2 + u: 4 / 3
    assert exact_h2_squared(np.array([[-0.25]]), np.ones((1, 1)), np.ones((1, 1))) == 2
    zeta = 2.0**-30
    A = np.array([[0.0, 1.0], [-1.0, -2.0 * zeta]])
    value = exact_h2_squared(A, np.array([[0.0], [1.0]]), np.array([[1.0, 0.0]]))
    assert value == Fraction(2**30, 4)
    assert exact_h2_squared(np.array([[0.5]]), np.ones((1, 1)), np.ones((1, 1)), True) == Fraction(
        4, 3
    )


def test_singular_equation_gives_none():
    # poles +-1: lambda_1 + lambda_2 = 0, the continuous Lyapunov operator is singular
    A = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert exact_h2_squared(A, np.array([[0.0], [1.0]]), np.array([[1.0, 0.0]])) is None
    # discrete: a pole on the unit circle
    assert exact_h2_squared(np.array([[1.0]]), np.ones((1, 1)), np.ones((1, 1)), True) is None
