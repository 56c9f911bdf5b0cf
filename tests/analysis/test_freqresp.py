"""Tests of robustmb.analysis.freqresp and robustmb.analysis._statespace.

References used (none produced by the code under test): direct ``np.linalg.solve`` per
frequency, closed forms of first/second-order systems, python-control's own evaluation.
"""

import importlib

import control
import numpy as np
import pytest
from _oracles import load_oracle

from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.freqresp import (
    ResponseEvaluator,
    freqresp,
    largest_singular_values,
    sigma_max_over_frequency,
)
from robustmb.errors import DimensionError, UncertainTypeError

# The package exports the function freqresp under the submodule's name.
freqresp_module = importlib.import_module("robustmb.analysis.freqresp")


def direct_response(A, B, C, D, omega, dt=0.0):
    """Reference: one dense solve per frequency."""
    n = A.shape[0]
    points = np.exp(1j * omega * dt) if dt > 0 else 1j * omega
    return np.array([C @ np.linalg.solve(s * np.eye(n) - A, B) + D for s in points])


def seeded_rss(seed, *args, **kwargs):
    """python-control's random stable model (it draws from numpy's global generator)."""
    np.random.seed(seed)  # noqa: NPY002
    return control.rss(*args, **kwargs)


def normwise_error(H, ref):
    return np.max(np.linalg.norm(H - ref, axis=(1, 2)) / np.linalg.norm(ref, axis=(1, 2)))


def random_system(rng, n, p, m, *, stable_margin=0.1, complex_data=False):
    def draw(*shape):
        X = rng.standard_normal(shape)
        return X + 1j * rng.standard_normal(shape) if complex_data else X

    A = draw(n, n)
    A = A - (np.max(np.linalg.eigvals(A).real) + stable_margin) * np.eye(n)
    return A, draw(n, m), draw(p, n), draw(p, m)


# -- accuracy against a direct solve ---------------------------------------------------------


@pytest.mark.parametrize("method", ["auto", "modal", "schur"])
@pytest.mark.parametrize("n,p,m", [(1, 1, 1), (6, 3, 2), (30, 2, 4), (60, 4, 4)])
def test_continuous_matches_direct_solve(method, n, p, m):
    G = seeded_rss(n * 100 + p * 10 + m, n, p, m, strictly_proper=False)
    omega = np.concatenate([[0.0], np.logspace(-3, 3, 300)])
    H = freqresp(G, omega, method=method)
    assert H.shape == (omega.size, p, m)
    ref = direct_response(G.A, G.B, G.C, G.D, omega)
    assert normwise_error(H, ref) < 1e-10


@pytest.mark.parametrize("method", ["modal", "schur"])
def test_discrete_matches_direct_solve(method):
    G = control.c2d(seeded_rss(7, 25, 3, 2, strictly_proper=False), 0.05)
    omega = np.linspace(0.0, np.pi / G.dt, 400)
    H = freqresp(G, omega, method=method)
    ref = direct_response(G.A, G.B, G.C, G.D, omega, G.dt)
    assert normwise_error(H, ref) < 1e-10


def test_complex_system_matches_direct_solve():
    rng = np.random.default_rng(3)
    A, B, C, D = random_system(rng, 12, 2, 3, complex_data=True)
    omega = np.linspace(-20.0, 20.0, 401)  # no symmetry for complex data
    for method in ("modal", "schur"):
        H = freqresp((A, B, C, D), omega, method=method)
        assert normwise_error(H, direct_response(A, B, C, D, omega)) < 1e-10


def test_matches_python_control_evaluation():
    G = seeded_rss(11, 15, 2, 3, strictly_proper=False)
    omega = np.logspace(-2, 2, 100)
    H = freqresp(G, omega)
    ref = np.moveaxis(G(1j * omega), -1, 0)  # python-control: (p, m, K)
    assert normwise_error(H, ref) < 1e-10


def test_defective_matrix_uses_schur_and_stays_accurate():
    # Jordan chain of length 4 hidden by a similarity: no eigenvector basis exists.
    rng = np.random.default_rng(5)
    J = -0.5 * np.eye(4) + np.diag(np.ones(3), 1)
    S = rng.standard_normal((4, 4))
    A = S @ J @ np.linalg.inv(S)
    B, C, D = rng.standard_normal((4, 2)), rng.standard_normal((2, 4)), np.zeros((2, 2))
    evaluator = ResponseEvaluator(A, B, C, D)
    assert evaluator.method == "schur"
    omega = np.logspace(-2, 2, 200)
    H = evaluator.at_frequencies(omega, 0.0)
    assert normwise_error(H, direct_response(A, B, C, D, omega)) < 1e-10
    with pytest.raises(DimensionError, match="diagonalisable"):
        ResponseEvaluator(-np.eye(2) + np.diag([1.0], 1), B[:2], C[:, :2], D, method="modal")


@pytest.mark.parametrize("delta", [1e-2, 1e-4, 1e-6])
def test_nearly_defective_automatic_choice_is_accurate(delta):
    # Pairs of eigenvalues delta apart with a unit coupling: cond(V) ~ 1/delta.
    rng = np.random.default_rng(9)
    n = 10
    J = np.diag(-rng.uniform(0.2, 3.0, n))
    for k in range(0, n - 1, 2):
        J[k + 1, k + 1] = J[k, k] + delta
        J[k, k + 1] = 1.0
    S = rng.standard_normal((n, n))
    A = S @ J @ np.linalg.inv(S)
    B, C, D = rng.standard_normal((n, 2)), rng.standard_normal((3, n)), rng.standard_normal((3, 2))
    omega = np.logspace(-2, 2, 200)
    H = freqresp((A, B, C, D), omega)
    assert normwise_error(H, direct_response(A, B, C, D, omega)) < 1e-10


def _exact_response(A, B, C, D, w):
    """``C (jwI - A)^-1 B + D`` of the stored floats in 40-digit arithmetic (mpmath)."""
    import mpmath as mp

    n, m = B.shape
    with mp.workdps(40):
        lhs = mp.mpc(0, w) * mp.eye(n) - mp.matrix(A.tolist())
        cols = [mp.lu_solve(lhs, mp.matrix(B[:, j].tolist())) for j in range(m)]
        X = mp.matrix([[cols[j][i] for j in range(m)] for i in range(n)])
        return np.array((mp.matrix(C.tolist()) * X).tolist(), dtype=complex) + D


@pytest.mark.parametrize("method", ["auto", "schur"])
def test_high_gain_loop_is_accurate_to_its_componentwise_condition(method):
    """Two carts closed through ``100 ((s + 1) / (0.001 s + 1))^3``: states spread over
    eleven orders of magnitude (``||A|| ~ 1e11``).  The reference is the exact response of
    the same float matrices; the tolerance is ``n eps`` times the componentwise condition
    number ``|| |C||R|(|A| + w)|R||B| + 2|C||R||B| + |D| || / ||G||`` (``R = (jwI - A)^-1``),
    which diagonal state scaling does not change.  Decomposing the unbalanced ``A`` gave
    6e-11 at 700 rad/s against a bound of 3e-13 (and 3e-4 on the two-cart mu problem at
    50 rad/s); balanced, the errors are 1.7e-7 (0.3 rad/s) down to 4e-15.  Not checked
    far above the bandwidth: at 1e4 rad/s (``|G| ~ 1e-5``) the Schur sum cancels to 3e-12
    relative, above this bound, though a dense solve reaches 1e-16 there."""
    s = control.tf("s")
    plant = control.ss(1 / (s**2 * (s**2 + 2)))
    ctrl = 100 * control.ss(((s + 1) / (0.001 * s + 1)) ** 3)
    A, B, C, D, _ = as_statespace_data(control.feedback(plant * ctrl, 1))
    n, eps = A.shape[0], np.finfo(float).eps
    for w in [0.3, 5.0, 20.0, 51.3, 94.8, 700.0]:
        ref = _exact_response(A, B, C, D, w)
        H = freqresp((A, B, C, D), np.array([w]), method=method)[0]
        R = np.abs(np.linalg.inv(1j * w * np.eye(n) - A))
        aC, aB = np.abs(C), np.abs(B)
        first = aC @ R @ (np.abs(A) + w * np.eye(n)) @ R @ aB + 2 * aC @ R @ aB + np.abs(D)
        kappa = np.linalg.norm(first, 2) / np.linalg.norm(ref, 2)
        assert np.linalg.norm(H - ref, 2) <= n * kappa * eps * np.linalg.norm(ref, 2)


def test_blocked_evaluation_equals_single_block(monkeypatch):
    G = seeded_rss(2, 20, 3, 2, strictly_proper=False)
    omega = np.logspace(-2, 2, 257)
    whole = {method: freqresp(G, omega, method=method) for method in ("modal", "schur")}
    monkeypatch.setattr(freqresp_module, "_BLOCK_ELEMENTS", 100)  # forces many blocks
    for method, H in whole.items():
        np.testing.assert_allclose(freqresp(G, omega, method=method), H, rtol=1e-13)


# -- closed forms --------------------------------------------------------------------------


def test_first_order_closed_form_continuous_and_discrete():
    omega = np.array([0.0, 0.3, 1.0, 10.0])
    H = freqresp(control.tf([2.0], [1.0, 4.0]), omega)[:, 0, 0]
    np.testing.assert_allclose(H, 2.0 / (1j * omega + 4.0), rtol=1e-14)
    a, dt = 0.8, 0.1
    Hd = freqresp(control.tf([1.0], [1.0, -a], dt), omega)[:, 0, 0]
    np.testing.assert_allclose(Hd, 1.0 / (np.exp(1j * omega * dt) - a), rtol=1e-14)


def test_second_order_peak_closed_form():
    zeta = 0.05
    w_peak = np.sqrt(1 - 2 * zeta**2)
    sigma = sigma_max_over_frequency(control.tf([1.0], [1.0, 2 * zeta, 1.0]), [w_peak])
    np.testing.assert_allclose(sigma, 1 / (2 * zeta * np.sqrt(1 - zeta**2)), rtol=1e-13)


def test_infinite_frequency_gives_feedthrough():
    G = control.tf([3.0, 1.0], [1.0, 2.0])
    H = freqresp(G, [np.inf, -np.inf, 1e12])
    np.testing.assert_allclose(H[:, 0, 0], [3.0, 3.0, 3.0], rtol=1e-10)


def test_static_gain_and_empty_frequency_list():
    K = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    H = freqresp(K, [0.0, 1.0, 5.0])
    assert H.shape == (3, 3, 2)
    assert np.all(H == K)
    assert freqresp(control.tf([1.0], [1.0, 1.0]), []).shape == (0, 1, 1)
    assert freqresp(2.0, 1.0).shape == (1, 1, 1)


def test_dt_true_means_unit_sampling_time():
    G = control.ss([[0.5]], [[1.0]], [[1.0]], [[0.0]], True)
    H = freqresp(G, [1.0])[0, 0, 0]
    np.testing.assert_allclose(H, 1.0 / (np.exp(1j) - 0.5), rtol=1e-14)


# -- frequencies on poles ------------------------------------------------------------------


def test_frequency_on_pole_gives_inf_and_warns():
    with pytest.warns(RuntimeWarning, match="pole"):
        H = freqresp(control.tf([1.0], [1.0, 0.0]), [0.0, 1.0])
    assert np.isinf(H[0, 0, 0])
    np.testing.assert_allclose(H[1, 0, 0], 1 / 1j)
    for method in ("modal", "schur"):
        with pytest.warns(RuntimeWarning, match="pole"):
            H = freqresp(control.tf([1.0], [1.0, 0.0, 1.0]), [0.5, 1.0], method=method)
        assert np.all(np.isfinite(H[0])) and np.all(np.isinf(H[1]))


def test_discrete_oracle_loop_with_integrators():
    # RobustAndOptimalControl.jl loop L3 (Ts = 0.01): A has eigenvalues exactly at z = 1.
    data = load_oracle("mu_julia_L3_discrete_3_complex_scalars")["system"]
    A, B, C, D = (np.array(data[k], dtype=float) for k in "ABCD")
    dt = data["Ts"]
    with pytest.warns(RuntimeWarning, match="pole"):
        H = freqresp((A, B, C, D, dt), [0.0, 0.01, 1.0, 100.0])
    assert np.all(np.isinf(H[0]))
    ref = direct_response(A, B, C, D, np.array([0.01, 1.0, 100.0]), dt)
    assert normwise_error(H[1:], ref) < 1e-10


def test_sigma_max_matches_svd_and_is_inf_on_pole():
    G = seeded_rss(4, 8, 3, 2, strictly_proper=False)
    omega = np.logspace(-1, 1, 50)
    ref = np.linalg.svd(direct_response(G.A, G.B, G.C, G.D, omega), compute_uv=False)[:, 0]
    np.testing.assert_allclose(sigma_max_over_frequency(G, omega), ref, rtol=1e-12)
    assert np.isinf(sigma_max_over_frequency(control.tf([1.0], [1.0, 0.0]), [0.0])[0])
    stack = np.array([[[3.0, 0.0], [0.0, -4.0]], [[np.nan, 0.0], [0.0, 1.0]]])
    np.testing.assert_array_equal(largest_singular_values(stack), [4.0, np.inf])


# -- input handling ------------------------------------------------------------------------


def test_accepted_input_forms_agree():
    G = control.tf([1.0, 2.0], [1.0, 3.0, 5.0])
    S = control.ss(G)
    omega = np.array([0.1, 1.0, 7.0])
    ref = freqresp(S, omega)
    np.testing.assert_allclose(freqresp(G, omega), ref, rtol=1e-12)
    np.testing.assert_allclose(freqresp((S.A, S.B, S.C, S.D), omega), ref, rtol=1e-14)
    np.testing.assert_allclose(freqresp((S.A, S.B, S.C, S.D, 0), omega), ref, rtol=1e-14)
    assert freqresp([[1.0, 2.0]], omega).shape == (3, 1, 2)


def test_statespace_data_conventions():
    A, B, C, D, dt = as_statespace_data(control.ss([], [], [], [[2.0]]))
    assert A.shape == (0, 0) and B.shape == (0, 1) and C.shape == (1, 0) and dt == 0.0
    *_, dt = as_statespace_data(control.tf([1.0], [1.0, 0.5], 0.2))
    assert dt == 0.2
    A, *_ = as_statespace_data(([[1j]], [[1.0]], [[1.0]], [[0.0]]))
    assert A.dtype == np.complex128
    A, B, C, D, dt = as_statespace_data(np.float64(3.0))
    assert D.shape == (1, 1) and D[0, 0] == 3.0


class _LooksUncertain:
    """Stand-in with the public members of an uncertain object (API.md)."""

    blocks = {"k": 1}
    uncertainty = {"k": None}

    def nominal(self):
        return np.eye(1)


def test_uncertain_objects_are_rejected_with_advice():
    with pytest.raises(UncertainTypeError, match=r"nominal\(\)"):
        freqresp(_LooksUncertain(), [1.0])
    with pytest.raises(UncertainTypeError, match="robstab"):
        as_statespace_data(_LooksUncertain())


def test_uncertain_lft_objects_are_rejected_if_available():
    import robustmb

    ureal, uss = getattr(robustmb, "ureal", None), getattr(robustmb, "uss", None)
    if ureal is None or uss is None:
        pytest.skip("robustmb.ureal / robustmb.uss not available yet")
    k = ureal("k", 2.0, percent=10)
    with pytest.raises(UncertainTypeError, match=r"nominal\(\)"):
        freqresp(uss([[-1.0]], [[1.0]], [[k]], [[0.0]]), [1.0])


@pytest.mark.parametrize(
    "bad, error, pattern",
    [
        (control.tf([1.0, 0.0, 1.0], [1.0, 1.0]), DimensionError, r"improper.*\(0, 0\)"),
        ("sys", UncertainTypeError, "not supported"),
        (([[1.0, 0.0]], [[1.0]], [[1.0]], [[0.0]]), DimensionError, "A of sys must be square"),
        (
            ([[-1.0]], [[1.0, 2.0]], [[1.0]], [[0.0]]),
            DimensionError,
            r"B of sys has shape \(1, 2\)",
        ),
        (
            ([[-1.0]], [[1.0]], [[1.0, 2.0]], [[0.0]]),
            DimensionError,
            r"C of sys has shape \(1, 2\)",
        ),
        (([[np.nan]], [[1.0]], [[1.0]], [[0.0]]), DimensionError, r"A of sys \(shape \(1, 1\)\)"),
        (([[-1.0]], [[1.0]], [[1.0]], [[np.inf]]), DimensionError, "D of sys .* non-finite"),
        (([[-1.0]], [[1.0]], [[1.0]], [[0.0]], -0.1), DimensionError, "sampling time"),
        ((1.0, 2.0), DimensionError, "length 2"),
        (np.ones(3), DimensionError, r"shape \(3,\)"),
        (np.array([["a"]]), UncertainTypeError, "non-numeric"),
    ],
)
def test_bad_models_raise_clear_errors(bad, error, pattern):
    with pytest.raises(error, match=pattern):
        freqresp(bad, [1.0])


@pytest.mark.parametrize(
    "omega, sys, error, pattern",
    [
        ([[1.0, 2.0]], control.tf([1.0], [1.0, 1.0]), DimensionError, "1-D"),
        ([1.0, np.nan], control.tf([1.0], [1.0, 1.0]), DimensionError, "NaN entry at index 1"),
        ([np.inf], control.tf([1.0], [1.0, 0.5], 0.1), DimensionError, "infinite entry"),
        ([1.0j], control.tf([1.0], [1.0, 1.0]), UncertainTypeError, "real frequencies"),
    ],
)
def test_bad_frequencies_raise_clear_errors(omega, sys, error, pattern):
    with pytest.raises(error, match=pattern):
        freqresp(sys, omega)


def test_bad_method_is_rejected():
    with pytest.raises(DimensionError, match="method"):
        freqresp(control.tf([1.0], [1.0, 1.0]), [1.0], method="hessenberg")
