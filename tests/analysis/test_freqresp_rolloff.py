"""Relative accuracy of frequency responses that roll off steeply, single models and families.

References (none produced by robustmb): the response of the same double-precision
matrices solved by LU in mpmath with 80 digits, and for the Butterworth filter the exact
rational value of its transfer function's (double) coefficients.  A 6th-order
Butterworth filter falls to ``|G| = 1e-36`` at 1e6 rad/s and a 3-mass chain (force on the
first mass, position of the last) to ``2.5e-25``: there the terms of a modal or Schur sum
are 1e30 times larger than the result, and only a solve that keeps the realisation's
zeros (LU) is accurate.
"""

import importlib
import warnings

import control
import mpmath
import numpy as np
import pytest
import scipy.signal

from robustmb.analysis.freqresp import ResponseEvaluator, freqresp
from robustmb.analysis.model_family import freqresp_stack, h2norm_stack, hinfnorm_stack
from robustmb.analysis.model_stack import as_statespace_stack
from robustmb.errors import DimensionError

# The package exports the function freqresp under the submodule's name.
freqresp_module = importlib.import_module("robustmb.analysis.freqresp")

OMEGA = np.logspace(-1, 6, 43)


def mp_response(A, B, C, omega):
    """``C (j omega I - A)^{-1} B`` of the double matrices (SISO), solved with 80 digits."""
    with mpmath.workdps(80):
        pencil = mpmath.mpc(0, omega) * mpmath.eye(A.shape[0]) - mpmath.matrix(A.tolist())
        x = mpmath.lu_solve(pencil, mpmath.matrix(B.tolist()))
        return complex((mpmath.matrix(C.tolist()) * x)[0])


def butterworth():
    b, a = scipy.signal.butter(6, 1.0, analog=True)
    G = control.ss(control.tf(b, a))
    return G.A, G.B, G.C


def mass_chain(masses=(1.0, 1.0, 1.0), stiffness=100.0, damping=0.005):
    """Masses in a row joined by springs (``stiffness``) and dampers (``damping *
    stiffness``), the last one free; force on the first mass, position of the last."""
    q = len(masses)
    K = stiffness * (2 * np.eye(q) - np.eye(q, k=1) - np.eye(q, k=-1))
    K[-1, -1] = stiffness
    M_inv = np.diag(1 / np.asarray(masses))
    A = np.block([[np.zeros((q, q)), np.eye(q)], [-M_inv @ K, -damping * M_inv @ K]])
    B = np.zeros((2 * q, 1))
    B[q, 0] = 1 / masses[0]
    C = np.zeros((1, 2 * q))
    C[0, q - 1] = 1.0
    return A, B, C


def repeated_pole():
    """``1 / (s + 1)^6`` in companion form: defective, evaluated on the Schur path."""
    G = control.ss(control.tf([1.0], np.poly(-np.ones(6))))
    return G.A, G.B, G.C


def close_poles(delta=1e-3):
    """``1 / ((s + 1)(s + 1 + delta))``: ``||V^-1||_F = 2.8e3``, large opposite residues."""
    G = control.ss(control.tf([1.0], np.polymul([1.0, 1.0], [1.0, 1.0 + delta])))
    return G.A, G.B, G.C


MODELS = {
    "butterworth": butterworth,
    "3-mass chain": mass_chain,
    "4-mass chain, unequal": lambda: mass_chain((1.0, 0.3, 2.0, 0.7), 50.0, 0.01),
    "(s+1)^-6": repeated_pole,
    "close poles": close_poles,
}


def relative_errors(H, ref):
    return np.abs(H - ref) / np.abs(ref)


@pytest.mark.parametrize("name", MODELS)
def test_rolled_off_response_is_accurate_to_rounding(name):
    A, B, C = MODELS[name]()
    D = np.zeros((1, 1))
    ref = np.array([mp_response(A, B, C, w) for w in OMEGA])
    single = freqresp((A, B, C, D), OMEGA)[:, 0, 0]
    stacked = freqresp_stack((A[None], B[None], C[None], D[None]), OMEGA)[0, :, 0, 0]
    assert np.max(relative_errors(single, ref)) <= 1e-12
    assert np.max(relative_errors(stacked, ref)) <= 1e-12


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_chains_with_inputs_and_outputs_anywhere(seed):
    """Chains of 4 random masses, springs and dampers with the force and the measured
    position at random masses (relative degree 2 to 8), 2 outputs: every point within
    1e-12 of its largest entry, in both routines."""
    rng = np.random.default_rng(seed)
    A, _, _ = mass_chain(rng.uniform(0.2, 3.0, 4), rng.uniform(10.0, 200.0), 0.01)
    B = np.zeros((8, 1))
    B[4 + rng.integers(4), 0] = 1.0
    C = np.zeros((2, 8))
    C[0, rng.integers(4)] = C[1, rng.integers(4)] = 1.0
    D = np.zeros((2, 1))
    ref = np.array([[mp_response(A, B, C[i : i + 1], w) for i in range(2)] for w in OMEGA])
    single = freqresp((A, B, C, D), OMEGA)[:, :, 0]
    stacked = freqresp_stack((A[None], B[None], C[None], D[None]), OMEGA)[0, :, :, 0]
    for H in (single, stacked):
        error = np.max(np.abs(H - ref), axis=1) / np.max(np.abs(ref), axis=1)
        assert np.max(error) <= 1e-12


def test_long_chain_against_its_second_order_form():
    """30 random masses (60 states, relative degree 60 to the last one), sparse ``A``:
    the points above the modes (the response falls to 1e-96) and those near the lightly
    damped modes are solved by banded LU.  Reference: ``(s^2 I + s C_v + K_v) x = b``
    with the stiffness and damping blocks of the double ``A``, solved with 150 digits.
    At the first mode (0.46 rad/s, damping ratio 0.2 %) the modal sum alone is 2.4e-12
    off (the eigenvalues' rounding), LU 1.5e-13."""
    rng = np.random.default_rng(7)
    q = 30
    A, B, _ = mass_chain(rng.uniform(0.5, 2.0, q), 100.0, 0.01)
    C = np.zeros((2, 2 * q))
    C[0, q - 1] = C[1, 9] = 1.0  # last mass and mass 10
    assert freqresp_module._band_plan(*freqresp_module._balanced(A, B, C)) is not None
    omega = np.logspace(-1, 3, 25)  # 0.46 rad/s is the 5th point
    with mpmath.workdps(150):
        K, Cv = mpmath.matrix((-A[q:, :q]).tolist()), mpmath.matrix((-A[q:, q:]).tolist())
        b = mpmath.matrix(B[q:].tolist())
        ref = []
        for w in omega:
            s = mpmath.mpc(0, w)
            x = mpmath.lu_solve(s**2 * mpmath.eye(q) + s * Cv + K, b)
            ref.append([complex(x[q - 1]), complex(x[9])])
    ref = np.array(ref)
    D = np.zeros((2, 1))
    single = freqresp((A, B, C, D), omega)[:, :, 0]
    stacked = freqresp_stack((A[None], B[None], C[None], D[None]), omega)[0, :, :, 0]
    for H in (single, stacked):
        error = np.max(np.abs(H - ref), axis=1) / np.max(np.abs(ref), axis=1)
        assert np.max(error) <= 1e-12


def test_butterworth_against_its_exact_rational_transfer_function():
    b, a = scipy.signal.butter(6, 1.0, analog=True)
    G = control.tf(b, a)
    num, den = G.num[0][0], G.den[0][0]  # the double coefficients the realisation carries
    with mpmath.workdps(60):
        ref = []
        for w in OMEGA:
            s = mpmath.mpc(0, w)
            ref.append(complex(mpmath.polyval(num.tolist(), s) / mpmath.polyval(den.tolist(), s)))
    H = freqresp(G, OMEGA)[:, 0, 0]
    assert np.max(relative_errors(H, np.array(ref))) <= 1e-12


def test_evaluator_for_repeated_sweeps_is_accurate_on_the_schur_path():
    A, B, C = repeated_pole()
    evaluator = ResponseEvaluator(A, B, C, np.zeros((1, 1)))
    assert evaluator.method == "schur"
    ref = np.array([mp_response(A, B, C, w) for w in OMEGA])
    H = evaluator.at_points(1j * OMEGA)[:, 0, 0]
    assert np.max(relative_errors(H, ref)) <= 1e-12


def test_high_gain_loop_far_above_its_bandwidth():
    """Two carts closed through ``100 ((s + 1) / (0.001 s + 1))^3`` (``||A|| ~ 1e11``): at
    1e4 to 1e6 rad/s the Schur sum cancelled to 3e-12 and worse relative."""
    s = control.tf("s")
    loop = control.feedback(
        control.ss(1 / (s**2 * (s**2 + 2))) * 100 * control.ss(((s + 1) / (0.001 * s + 1)) ** 3),
        1,
    )
    A, B, C = loop.A, loop.B, loop.C
    omega = np.array([1e4, 1e5, 1e6])
    ref = np.array([mp_response(A, B, C, w) for w in omega])
    H = freqresp(loop, omega)[:, 0, 0] - loop.D[0, 0]
    assert np.max(relative_errors(H, ref)) <= 1e-12


def family_of_six_state_models():
    """Members on every path of ``freqresp_stack``: random (modal sum), rolled off (LU at
    the cancelling points), defective (single-model call)."""
    rng = np.random.default_rng(3)
    members = [butterworth(), mass_chain(), repeated_pole()]
    for _ in range(5):
        A = rng.standard_normal((6, 6))
        A -= (np.max(np.linalg.eigvals(A).real) + rng.uniform(0.05, 1.0)) * np.eye(6)
        members.append((A, rng.standard_normal((6, 1)), rng.standard_normal((1, 6))))
    D = np.array([np.zeros((1, 1))] * 5 + [rng.standard_normal((1, 1)) for _ in range(3)])
    return tuple(np.array([member[i] for member in members]) for i in range(3)) + (D,)


def test_stack_equals_the_single_model_responses():
    A, B, C, D = family_of_six_state_models()
    H = freqresp_stack((A, B, C, D), OMEGA)
    for k in range(A.shape[0]):
        single = freqresp((A[k], B[k], C[k], D[k]), OMEGA)
        ref = np.array([mp_response(A[k], B[k], C[k], w) for w in OMEGA]) + D[k, 0, 0]
        assert np.max(relative_errors(H[k, :, 0, 0], single[:, 0, 0])) <= 2e-12
        assert np.max(relative_errors(H[k, :, 0, 0], ref)) <= 1e-12


def test_stack_on_a_pole_gives_inf_and_the_warning_of_freqresp():
    family = [
        control.ss(control.tf([1.0, 0.5], [1.0, 0.0, 1.0])),  # poles at +-1j
        control.ss(control.tf([1.0, 0.5], [1.0, 0.2, 1.0])),
    ]
    omega = [0.5, 1.0, 2.0, -1.0]
    with pytest.warns(RuntimeWarning, match="on a pole") as stack_warnings:
        H = freqresp_stack(family, omega)
    with pytest.warns(RuntimeWarning, match="on a pole"):
        single = freqresp(family[0], omega)
    assert "member 0" in str(stack_warnings[0].message)
    assert np.all(np.isinf(H[0, [1, 3]])) and not np.any(np.isnan(H))
    np.testing.assert_array_equal(np.isinf(H[0]), np.isinf(single))
    finite = [0, 2]
    np.testing.assert_allclose(H[0, finite], single[finite], rtol=1e-13)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(H[1], freqresp(family[1], omega), rtol=1e-13)


def test_empty_stacked_tuple_is_a_dimension_error():
    empty = (np.zeros((0, 2, 2)), np.zeros((0, 2, 1)), np.zeros((0, 1, 2)), np.zeros((0, 1, 1)))
    with pytest.raises(DimensionError, match="empty family"):
        as_statespace_stack(empty)
    with pytest.raises(DimensionError, match="empty family"):
        freqresp_stack(empty, [1.0])
    with pytest.raises(DimensionError, match="empty family"):
        hinfnorm_stack(empty)
    with pytest.raises(DimensionError, match="empty family"):
        h2norm_stack(empty + (0.0,))


def test_banded_solve_of_a_scrambled_band_equals_dense_solves():
    """A pentadiagonal complex ``A`` behind a random symmetric permutation: the reverse
    Cuthill-McKee order finds a narrow band again, and the banded LU agrees with dense
    solves; a pencil that is exactly singular (a zero row of ``A`` at ``s = 0``) gives
    ``inf``."""
    rng = np.random.default_rng(11)
    n = 64
    band = sum(np.diag(rng.standard_normal(n - abs(k)), k) for k in range(-2, 3))
    band = band + 1j * sum(np.diag(rng.standard_normal(n - abs(k)), k) for k in (-1, 1))
    band[5] = 0.0
    perm = rng.permutation(n)
    A = band[np.ix_(perm, perm)]
    B, C = rng.standard_normal((n, 2)), rng.standard_normal((3, n))
    plan = freqresp_module._band_plan(A, B, C)
    assert plan is not None and plan[1] + plan[2] <= 8
    points = np.array([0.3j, 2.0 + 1.0j, -1.5, 40.0j])
    H = freqresp_module._banded_response(plan, points)
    dense = np.array([C @ np.linalg.solve(s * np.eye(n) - A, B) for s in points])
    np.testing.assert_allclose(H, dense, rtol=1e-10)
    assert np.all(np.isinf(freqresp_module._banded_response(plan, np.array([0.0]))))
