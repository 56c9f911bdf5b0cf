"""Gershgorin ratios of rows without a diagonal; the worst-case bounds against brute force.

``zeta_i = sum_{j != i} |G_ij| / |G_ii|`` and row ``i`` is diagonally dominant when
``sum_{j != i} |G_ij| < |G_ii|``, i.e. ``zeta_i < 1``.  An all-zero row fails that test
(``0 < 0``): its ratio is ``inf``, like any row with a zero diagonal (it was ``nan``).
"""

import itertools

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.decoupling import gershgorin_ratios, worst_case_gershgorin


def _dominant(G):
    """Strict row dominance by its definition, per row (numpy)."""
    A = np.abs(np.asarray(G))
    k = min(A.shape)
    return np.array([A[i, :].sum() - A[i, i] < A[i, i] for i in range(k)])


def test_an_all_zero_row_is_not_dominant_and_its_ratio_is_inf():
    G = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.0, 1.0]])
    r = gershgorin_ratios(G)
    assert r[0] == 0.5 and r[2] == 0.5
    assert r[1] == np.inf  # was nan
    # the ratio test agrees with the definition of dominance on every row
    np.testing.assert_array_equal(r < 1, _dominant(G))
    # columns: the zero column 1 likewise
    assert gershgorin_ratios(G.T, axis="columns")[1] == np.inf


def test_zero_rows_on_a_frequency_grid():
    # G(s) = [[1/(s+1), 0.1], [s/(s+1), 0]]: row 1 has no diagonal; at w = 0 it is all
    # zero (a zero at s = 0), elsewhere |jw/(jw+1)| / 0: inf at every frequency
    num = [[[1.0], [0.1]], [[1.0, 0.0], [0.0]]]
    den = [[[1.0, 1.0], [1.0]], [[1.0, 1.0], [1.0]]]
    G = control.tf(num, den)
    w = np.array([0.0, 1.0, 10.0])
    R = gershgorin_ratios(G, omega=w)
    assert R.shape == (3, 2) and not np.any(np.isnan(R))
    assert np.all(R[:, 1] == np.inf)
    np.testing.assert_allclose(R[:, 0], 0.1 * np.abs(1j * w + 1.0), rtol=1e-12)
    # the maximum over the grid says row 1 is never dominant (it was nan)
    assert R.max(axis=0)[1] == np.inf


def test_a_stack_with_a_zero_matrix():
    S = np.stack([np.eye(2), np.zeros((2, 2)), [[1.0, 2.0], [0.0, 4.0]]])
    R = gershgorin_ratios(S)
    np.testing.assert_array_equal(R, [[0.0, 0.0], [np.inf, np.inf], [2.0, 0.0]])


def test_worst_case_bounds_bracket_a_dense_brute_force():
    # G(a, b) = [[1 + a, b, 0.3 a], [0.3 a, 2, a b]] with a, b in their boxes: the upper
    # bound is certified (never below the brute force), the lower bound realised (never
    # above it)
    a = rmb.ureal("a", 1.0, plusminus=0.5)
    b = rmb.ureal("b", 0.2, plusminus=0.1)
    G = rmb.umat([[1.0 + a, b, 0.3 * a], [0.3 * a, 2.0, a * b]])
    r = worst_case_gershgorin(G, [1.0])
    brute = np.zeros(2)
    for av, bv in itertools.product(np.linspace(0.5, 1.5, 201), np.linspace(0.1, 0.3, 201)):
        H = np.array([[1 + av, bv, 0.3 * av], [0.3 * av, 2.0, av * bv]])
        A = np.abs(H)
        brute = np.maximum(brute, [(A[0, 1] + A[0, 2]) / A[0, 0], (A[1, 0] + A[1, 2]) / A[1, 1]])
    assert np.all(r.upper[0] >= brute * (1 - 1e-12))
    assert np.all(r.lower[0] <= brute * (1 + 1e-12))
    assert np.all(r.upper[0] <= 1.1 * brute)
    assert r.verify(G).all()


def test_worst_case_documents_what_the_upper_bound_covers():
    # the upper bound is certified, not an estimate, and ratios at rounding level are out
    # of its resolution: both are said in the docstrings a user reads
    from robustmb.decoupling import robust_coupling
    from robustmb.decoupling.robust_coupling import WorstCaseGershgorin

    assert "not an estimate" in worst_case_gershgorin.__doc__
    assert "rounding level" in worst_case_gershgorin.__doc__
    assert "rounding level" in WorstCaseGershgorin.__doc__
    assert "never an estimate" in robust_coupling.__doc__
    assert "zero row" in gershgorin_ratios.__doc__ or "all-zero row" in gershgorin_ratios.__doc__


@pytest.mark.parametrize("axis", ["rows", "columns"])
def test_ratios_match_the_definition_on_random_matrices(axis):
    rng = np.random.default_rng(7)
    for _ in range(20):
        G = rng.standard_normal((4, 4)) * (rng.uniform(size=(4, 4)) > 0.4)
        G[rng.integers(4)] = 0.0  # one zero row
        A = np.abs(G if axis == "rows" else G.T)
        ref = np.array(
            [np.inf if A[i, i] == 0 else (A[i].sum() - A[i, i]) / A[i, i] for i in range(4)]
        )
        np.testing.assert_allclose(gershgorin_ratios(G, axis=axis), ref, rtol=1e-14)
