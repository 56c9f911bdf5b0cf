"""Interaction measures: RGA, Gershgorin ratios, RGA-numbers, condition numbers.

Checked against identities, closed forms and the Skogestad & Postlethwaite oracle file.
"""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.decoupling import (
    condition_number,
    gershgorin_ratios,
    minimized_condition_number,
    rga,
    rga_abs_sum_minus_n,
    rga_number,
)
from robustmb.errors import ArgumentError, DimensionError, UncertainTypeError


@pytest.fixture
def rga_cases(oracle):
    """The Skogestad & Postlethwaite RGA / condition-number examples, by name."""
    return {c["name"]: c for c in oracle("rga_svd_skogestad_examples")["cases"]}


def _random_complex(rng, n, nw=None):
    shape = (n, n) if nw is None else (nw, n, n)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# -- RGA identities -----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 6])
def test_rga_rows_and_columns_sum_to_one(n):
    rng = np.random.default_rng(n)
    H = _random_complex(rng, n, nw=50)
    L = rga(H)
    assert L.shape == H.shape
    np.testing.assert_allclose(L.sum(axis=-1), 1.0, atol=1e-10)
    np.testing.assert_allclose(L.sum(axis=-2), 1.0, atol=1e-10)


def test_rga_is_invariant_to_diagonal_scalings_and_permutes_with_the_plant():
    rng = np.random.default_rng(1)
    H = _random_complex(rng, 4)
    D1 = np.diag(rng.uniform(0.1, 10, 4) * np.exp(1j * rng.uniform(0, 6, 4)))
    D2 = np.diag(rng.uniform(0.1, 10, 4))
    np.testing.assert_allclose(rga(D1 @ H @ D2), rga(H), atol=1e-10)
    P = np.eye(4)[[2, 0, 3, 1]]
    np.testing.assert_allclose(rga(P @ H @ P.T), P @ rga(H) @ P.T, atol=1e-12)


def test_rga_of_triangular_and_diagonal_plants_is_identity():
    np.testing.assert_allclose(rga(np.array([[1.0, 100.0], [0.0, 1.0]])), np.eye(2), atol=1e-14)
    np.testing.assert_allclose(rga(np.diag([3.0, -2.0, 1e-3])), np.eye(3), atol=1e-14)


def test_rga_2x2_closed_form():
    # lambda_11 = 1 / (1 - g12 g21 / (g11 g22)) for a 2x2 plant
    rng = np.random.default_rng(7)
    H = _random_complex(rng, 2, nw=20)
    lam = 1 / (1 - H[:, 0, 1] * H[:, 1, 0] / (H[:, 0, 0] * H[:, 1, 1]))
    np.testing.assert_allclose(rga(H)[:, 0, 0], lam, rtol=1e-12)


def test_rga_of_an_lti_system_needs_omega_and_matches_pointwise():
    G = control.ss(
        [[-1.0, 0.2], [0.0, -2.0]],
        [[1.0, 0.5], [0.3, 1.0]],
        [[1.0, 0.0], [0.4, 1.0]],
        np.zeros((2, 2)),
    )
    w = np.array([0.1, 1.0, 10.0])
    L = rga(G, omega=w)
    for k, wk in enumerate(w):
        H = np.asarray(G(1j * wk))
        np.testing.assert_allclose(L[k], H * np.linalg.inv(H).T, rtol=1e-12)
    with pytest.raises(ValueError, match="omega"):
        rga(G)


def test_rga_errors_are_clear():
    with pytest.raises(DimensionError, match="square"):
        rga(np.ones((3, 2)))
    with pytest.raises(ArgumentError, match=r"plant G is singular at stack index/indices \[1\]"):
        rga(np.stack([np.eye(2), np.ones((2, 2))]))
    with pytest.raises(ValueError, match="must not be given"):
        rga(np.eye(2), omega=[1.0])
    a = rmb.ureal("a", 1.0)
    with pytest.raises(UncertainTypeError, match="nominal"):
        rga(rmb.umat([[a, 1.0], [0.0, 1.0]]))


def test_generalized_rga_columns_sum_to_one_for_tall_plants():
    # For a full-column-rank tall G, pinv(G) G = I, so each column of G .* pinv(G)^T sums to 1
    rng = np.random.default_rng(3)
    H = rng.standard_normal((4, 3))
    L = rga(H, generalized=True)
    np.testing.assert_allclose(L.sum(axis=0), 1.0, atol=1e-12)


# -- RGA-numbers --------------------------------------------------------------------------
def test_rga_number_definitions_differ_on_the_blending_plant():
    # RGA [[0.2, 0.8], [0.8, 0.2]]: sum |L - I| = 0.8 * 4 = 3.2, sum |L| - n = 0
    G = np.array([[1.0, 1.0], [0.4, -0.1]])
    assert rga_number(G) == pytest.approx(3.2, rel=1e-12)
    assert rga_abs_sum_minus_n(G) == pytest.approx(0.0, abs=1e-12)


def test_rga_numbers_vectorised_and_zero_for_diagonal_plants():
    H = np.stack([np.diag([1.0, 2.0]), np.diag([1j, -3.0])])
    np.testing.assert_allclose(rga_number(H), [0.0, 0.0], atol=1e-15)
    assert rga_number(H).shape == (2,)


# -- Gershgorin ---------------------------------------------------------------------------
def test_gershgorin_ratios_by_hand():
    G = np.array([[2.0, -1.0, 0.5], [0.1, -4.0, 0.3], [1.0, 1.0, 0.5j]])
    np.testing.assert_allclose(gershgorin_ratios(G), [1.5 / 2, 0.4 / 4, 2.0 / 0.5])
    np.testing.assert_allclose(gershgorin_ratios(G, axis="columns"), [1.1 / 2, 2.0 / 4, 0.8 / 0.5])


def test_gershgorin_ratios_of_a_tall_plant_use_its_first_rows():
    G = np.array([[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]])
    np.testing.assert_allclose(gershgorin_ratios(G), [2.0, 0.75])


def test_gershgorin_small_coupling_beside_a_large_diagonal_is_not_cancelled():
    # (1 + 1e-17) - 1 is 0 in double precision; the coupling itself is not
    np.testing.assert_array_equal(
        gershgorin_ratios(np.array([[1.0, 1e-17], [0.0, 1.0]])), [1e-17, 0]
    )
    np.testing.assert_allclose(
        gershgorin_ratios(np.array([[1e20, 1.0], [1.0, 1.0]])), [1e-20, 1.0], rtol=1e-15
    )


def test_gershgorin_zero_diagonal_is_infinite_and_diagonal_plant_is_zero():
    with np.errstate(divide="ignore"):
        r = gershgorin_ratios(np.array([[0.0, 1.0], [0.0, 1.0]]))
    assert np.isinf(r[0]) and r[1] == 0.0
    np.testing.assert_array_equal(gershgorin_ratios(np.diag([1.0, 2.0, 3.0])), 0.0)


def test_gershgorin_of_lti_matches_stack():
    G = control.tf([[[1], [0.5]], [[0.2, 1], [1, 3]]], [[[1, 1], [1, 2]], [[1, 5], [1, 1]]])
    w = np.logspace(-1, 2, 7)
    H = np.moveaxis(np.asarray(G(1j * w)), -1, 0)
    np.testing.assert_allclose(gershgorin_ratios(G, omega=w), gershgorin_ratios(H), rtol=1e-12)


# -- Skogestad & Postlethwaite oracle ------------------------------------------------------
def test_rga_oracle_distillation_column(rga_cases):
    case = rga_cases["distillation LV steady state"]
    G = np.array(case["G"])
    L = rga(G)
    np.testing.assert_allclose(L, case["expected"]["RGA_rounded_1dp"], atol=0.051)
    # max row sum of |RGA| (S&P "norm(rga(G0),'inf')") and the closed-form sum-norm
    assert np.abs(L).sum(axis=1).max() == pytest.approx(
        case["expected"]["RGA_infinity_norm_max_row_sum"], abs=0.05
    )
    assert np.abs(L).sum() == pytest.approx(138.2752, rel=1e-6)
    assert condition_number(G) == pytest.approx(case["analytic"]["condition_number"], rel=1e-5)
    assert L[0, 0] == pytest.approx(35.0688, rel=1e-5)


@pytest.mark.parametrize(
    "name, key, atol",
    [
        ("blending process (S&P Example 3.9)", "RGA", 1e-12),
        ("3x3 plant (S&P Example 3.10)", "RGA_rounded_2dp", 0.0051),
        ("diagonal plant (S&P Example 3.12 in Skogestad-Python)", "RGA", 1e-14),
        ("triangular plant (S&P Example 6.12)", "RGA", 1e-14),
    ],
)
def test_rga_oracle_examples(name, key, atol, rga_cases):
    case = rga_cases[name]
    np.testing.assert_allclose(rga(np.array(case["G"], float)), case["expected"][key], atol=atol)


def test_condition_numbers_oracle(rga_cases):
    cases = rga_cases
    diag = cases["diagonal plant (S&P Example 3.12 in Skogestad-Python)"]
    G = np.array(diag["G"], float)
    assert condition_number(G) == pytest.approx(diag["expected"]["condition_number"])
    assert minimized_condition_number(G).value == pytest.approx(1.0, abs=1e-6)
    tri = cases["triangular plant (S&P Example 6.12)"]
    T = np.array(tri["G"], float)
    assert condition_number(T) == pytest.approx(10001.9999, rel=1e-8)
    assert minimized_condition_number(T).value == pytest.approx(1.0, abs=1e-6)
    r_in = minimized_condition_number(T, scaling="input")
    assert r_in.value == pytest.approx(
        tri["expected"]["input_minimized_condition_number"], rel=1e-3
    )


def test_minimized_condition_number_matches_the_2x2_closed_form(rga_cases):
    # For 2x2 plants gamma* = ||L||_1 + sqrt(||L||_1^2 - 1) (S&P appendix A.3.4)
    case = rga_cases["distillation LV steady state"]
    G = np.array(case["G"])
    n1 = np.abs(rga(G)).sum(axis=0).max()
    r = minimized_condition_number(G)
    assert r.value == pytest.approx(n1 + np.sqrt(n1**2 - 1), rel=1e-7)
    # the certificate: the returned scalings achieve the value
    assert condition_number(r.D_out @ G @ r.D_in) == pytest.approx(r.value, rel=1e-12)
    assert np.all(np.diag(r.D_out) > 0) and np.all(np.diag(r.D_in) > 0)


def test_minimized_condition_number_output_side_and_complex():
    rng = np.random.default_rng(11)
    H = _random_complex(rng, 3)
    both = minimized_condition_number(H)
    outp = minimized_condition_number(H, scaling="output")
    inp = minimized_condition_number(H, scaling="input")
    c0 = condition_number(H)
    # scaling both sides can only help; each one-sided optimum is no worse than unscaled
    assert both.value <= min(outp.value, inp.value) * (1 + 1e-6)
    assert max(outp.value, inp.value) <= c0 * (1 + 1e-9)
    assert condition_number(outp.D_out @ H) == pytest.approx(outp.value, rel=1e-12)
    np.testing.assert_array_equal(outp.D_in, np.eye(3))


def test_condition_number_of_rank_deficient_matrices_is_inf():
    # numpy.linalg.cond's convention: a singular matrix, the zero matrix included, has an
    # infinite condition number (0 / 0 is not a condition number)
    stack = np.stack([np.zeros((2, 2)), np.diag([3.0, 0.0]), np.eye(2)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = condition_number(stack)
    assert c[0] == np.inf and c[1] == np.inf and c[2] == 1.0
    assert np.linalg.cond(np.zeros((2, 2))) == np.inf
