"""The exact stability test of a stored matrix (integer characteristic polynomial,
Routh array, bilinear map in discrete time).

References: polynomials built from chosen roots (the verdict is known by construction),
numpy's roots and eigenvalues where every root is far from the boundary, and exact
rational arithmetic (``fractions.Fraction``) for the scaling and the coefficients.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis.exact_stability import (
    EXACT_MAX_ORDER,
    characteristic_polynomial,
    exact_stable,
    hurwitz_stable,
    integer_matrix,
)


def _from_roots(real_roots, pairs):
    """Integer coefficients (highest first) of prod (s - r) prod (s^2 - 2 a s + a^2 + b^2)."""
    poly = np.array([1], dtype=object)
    for r in real_roots:
        poly = np.convolve(poly, np.array([1, -r], dtype=object))
    for a, b in pairs:
        poly = np.convolve(poly, np.array([1, -2 * a, a * a + b * b], dtype=object))
    return [int(c) for c in poly]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(-9, 9).filter(bool), max_size=5),
    st.lists(st.tuples(st.integers(-9, 9).filter(bool), st.integers(1, 9)), max_size=4),
    st.integers(1, 7),
)
def test_routh_matches_the_roots_it_was_built_from(real_roots, pairs, scale):
    coefficients = _from_roots(real_roots, pairs)
    if len(coefficients) == 1:
        return
    expected = all(r < 0 for r in real_roots) and all(a < 0 for a, _ in pairs)
    assert hurwitz_stable(coefficients) is expected
    # a positive or negative multiple has the same roots
    assert hurwitz_stable([scale * c for c in coefficients]) is expected
    assert hurwitz_stable([-scale * c for c in coefficients]) is expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=2, max_size=9).filter(lambda c: c[0] != 0))
def test_routh_matches_numpy_roots_on_well_separated_polynomials(coefficients):
    roots = np.roots(np.array(coefficients, dtype=float))
    scale = max(1.0, float(np.max(np.abs(roots))))
    if np.min(np.abs(roots.real)) < 1e-3 * scale:
        return  # too close to the axis for numpy's roots to be a reference
    assert hurwitz_stable(coefficients) is bool(np.all(roots.real < 0))


def test_roots_on_the_axis_are_not_stable():
    assert hurwitz_stable([1, 0, 1]) is False  # +-j
    assert hurwitz_stable([1, 1, 0]) is False  # 0
    assert hurwitz_stable(_from_roots([-1, -2], [(0, 3)])) is False  # one pair on the axis
    assert hurwitz_stable([1, 2, 2, 1]) is True  # (s + 1)(s^2 + s + 1)
    with pytest.raises(ValueError):
        hurwitz_stable([0, 1])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**32 - 1))
def test_characteristic_polynomial_is_exact(n, seed):
    rng = np.random.default_rng(seed)
    M = rng.integers(-30, 31, size=(n, n))
    c = characteristic_polynomial(M)
    # the determinant and the trace, in exact arithmetic
    assert c[1] == -int(np.trace(M))
    assert c[-1] == (-1) ** n * _exact_determinant(M)
    # and numpy's polynomial of the eigenvalues (small integers: close in double)
    assert np.allclose(np.array(c, dtype=float), np.poly(M.astype(float)), rtol=1e-9, atol=1e-6)


def _exact_determinant(M):
    """Gaussian elimination in fractions."""
    rows = [[Fraction(int(x)) for x in row] for row in M]
    n, det = len(rows), Fraction(1)
    for j in range(n):
        p = next((i for i in range(j, n) if rows[i][j] != 0), None)
        if p is None:
            return 0
        if p != j:
            rows[j], rows[p] = rows[p], rows[j]
            det = -det
        det *= rows[j][j]
        for i in range(j + 1, n):
            f = rows[i][j] / rows[j][j]
            rows[i] = [x - f * y for x, y in zip(rows[i], rows[j], strict=True)]
    return int(det)


def test_integer_matrix_is_an_exact_scaling():
    A = np.array([[1e-30, -3.5], [2.0**-60, 1e3]])
    M, k = integer_matrix(A)
    for i in range(2):
        for j in range(2):
            assert Fraction(M[i][j], 2**k) == Fraction(float(A[i, j]))
    assert integer_matrix(np.array([[2.0, 4.0]])) == ([[2, 4]], 0)


def _random_matrix(rng, n, complex_entries):
    A = rng.standard_normal((n, n))
    if complex_entries:
        A = A + 1j * rng.standard_normal((n, n))
    return A


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_exact_stable_matches_numpy_eigenvalues(n, seed, discrete, complex_entries):
    rng = np.random.default_rng(seed)
    A = _random_matrix(rng, n, complex_entries)
    if discrete:
        A = A / (0.6 * np.max(np.abs(np.linalg.eigvals(A))) + 1e-3) * rng.uniform(0.3, 1.0)
        distance = np.abs(np.linalg.eigvals(A)) - 1.0
    else:
        A = A - rng.uniform(0.0, 3.0) * np.eye(n)
        distance = np.linalg.eigvals(A).real
    if np.min(np.abs(distance)) < 1e-6:
        return  # numpy's eigenvalues are no reference there
    expected = bool(np.all(distance < 0))
    assert exact_stable(A, 0.1 if discrete else 0.0) is expected


def test_exact_stable_on_the_boundary_and_just_inside():
    rotation = np.array([[0.0, 1.0], [-1.0, 0.0]])
    assert exact_stable(rotation) is False  # +-j
    assert exact_stable(rotation - 2.0**-60 * np.eye(2)) is True
    assert exact_stable(rotation + 2.0**-60 * np.eye(2)) is False
    # discrete: a pole exactly at z = -1, at z = 1, and just inside
    assert exact_stable(np.array([[-1.0, 5.0], [0.0, 0.5]]), dt=1.0) is False
    assert exact_stable(np.array([[1.0, 0.0], [3.0, 0.5]]), dt=1.0) is False
    assert exact_stable(np.array([[1.0 - 2.0**-50]]), dt=1.0) is True
    # a complex pole just inside the circle: |0.6 + 0.8j| = 1 exactly, scaled by 1 - 2^-40
    z = (0.6 + 0.8j) * (1.0 - 2.0**-40)
    A = np.array([[z]])
    assert (exact_stable(A, dt=1.0), exact_stable(np.array([[0.0 + 1.0j]]))) == (
        abs(Fraction(z.real) ** 2 + Fraction(z.imag) ** 2) < 1,
        False,
    )


def test_limits_give_no_verdict():
    n = EXACT_MAX_ORDER + 1
    assert exact_stable(-np.eye(n)) is None
    assert exact_stable(-np.eye(n), max_order=n) is True
    assert exact_stable(np.array([[-1e-200, 1e200], [0.0, -1.0]])) is None  # ~1300 bits
    assert exact_stable(np.array([[np.nan]])) is None
    assert exact_stable(np.zeros((0, 0))) is True
