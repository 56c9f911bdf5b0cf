"""Certified full-order floor: exact arithmetic, and the floor against achieved levels.

The floor is a proven lower bound on the H-infinity norm of every controller of order
``<= n``; it is checked against levels *achieved* by controllers computed elsewhere
(hinfsyn's verified controller, static gains on a dense grid), whose closed-loop norms are
computed by python-control / SLICOT AB13DD (``control.norm``) or on a frequency grid.
"""

from fractions import Fraction

import control
import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.tuning._exact import (
    floor_float,
    is_positive_definite_exact,
    nullspace_exact,
    to_exact,
)
from robustmb.tuning.full_order_floor import full_order_floor, full_order_gamma


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 7))
def test_exact_definiteness_agrees_with_eigenvalues(seed, n):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, n))
    lam = rng.uniform(-1.0, 1.0, n)
    lam[np.abs(lam) < 1e-3] = 1e-3  # well away from the boundary: floats decide too
    S = (v * lam) @ v.T
    S = 0.5 * (S + S.T)
    assert is_positive_definite_exact(to_exact(S)) == bool(np.all(lam > 0))


def test_exact_definiteness_on_the_boundary():
    # Exactly singular PSD (rank one, integer) and exactly definite by a hair.
    v = np.array([[3.0], [1.0], [2.0]])
    S = to_exact(v @ v.T)
    assert not is_positive_definite_exact(S)
    S2 = S.copy()
    for i in range(3):
        S2[i, i] += Fraction(1, 2**80)
    assert is_positive_definite_exact(S2)
    with pytest.raises(ValueError, match="symmetric"):
        is_positive_definite_exact(to_exact([[1.0, 2.0], [0.0, 1.0]]))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(1, 4), n=st.integers(1, 7))
def test_exact_nullspace(seed, m, n):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((m, n))
    if m > 1:
        M[-1] = 0.5 * M[0]  # a dependent row (exact in binary)
    N = nullspace_exact(to_exact(M))
    assert np.all(to_exact(M) @ N == 0)
    assert N.shape[1] == n - np.linalg.matrix_rank(M)
    if N.shape[1]:
        assert np.linalg.matrix_rank(N.astype(float)) == N.shape[1]


def test_floor_float_rounds_down():
    q = Fraction(1, 3)
    f = floor_float(q)
    assert Fraction(f) <= q < Fraction(np.nextafter(f, np.inf))


def _closed_loop(P, K):
    """``Fl(P, K)`` by the textbook formulas (one measurement, one control, ``D22 = 0``)."""
    a, b, c, d = (np.asarray(x) for x in (P.A, P.B, P.C, P.D))
    b1, b2, c1, c2 = b[:, :-1], b[:, -1:], c[:-1], c[-1:]
    d11, d12, d21 = d[:-1, :-1], d[:-1, -1:], d[-1:, :-1]
    ak, bk, ck, dk = (np.asarray(x) for x in (K.A, K.B, K.C, K.D))
    nk = ak.shape[0]
    acl = np.block([[a + b2 @ dk @ c2, b2 @ ck], [bk @ c2, ak]])
    bcl = np.vstack([b1 + b2 @ dk @ d21, bk @ d21])
    ccl = np.hstack([c1 + d12 @ dk @ c2, d12 @ ck])
    dcl = d11 + d12 @ dk @ d21
    return control.ss(acl, bcl.reshape(a.shape[0] + nk, -1), ccl, dcl)


def _random_plant(seed, n):
    """A regular random plant (D12, D21 of full rank), with w, u, z, y of size 2, 1, 2, 1."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    b1, b2 = rng.standard_normal((n, 2)), rng.standard_normal((n, 1))
    c1, c2 = rng.standard_normal((2, n)), rng.standard_normal((1, n))
    d = np.zeros((3, 3))
    d[1, 2] = 1.0  # D12
    d[2, 1] = 1.0  # D21
    d[:2, :2] = 0.3 * rng.standard_normal((2, 2))  # D11
    return control.ss(a, np.hstack([b1, b2]), np.vstack([c1, c2]), d)


def _achieved_level(P, K):
    """A level the closed loop ``Fl(P, K)`` provably reaches, and its H-infinity norm.

    SLICOT AB13DD (``control.linfnorm``) locates the peak frequency; the largest singular
    value of the closed loop evaluated there by NumPy is a value the norm is at least (no
    tolerance of AB13DD enters), so ``floor <= sigma_peak`` is a strict soundness check.
    """
    cl = _closed_loop(P, K)
    assert np.max(cl.poles().real) < 0
    gpeak, fpeak = control.linfnorm(cl)
    sigma_peak = np.linalg.svd(np.atleast_2d(cl(1j * fpeak)), compute_uv=False)[0]
    return float(sigma_peak), float(gpeak)


def _check_floor_below_hinfsyn(seed, n):
    P = _random_plant(seed, n)
    fl = full_order_floor(P, 1, 1)
    sigma_peak, gpeak = _achieved_level(P, rmb.hinfsyn(P, 1, 1).controller)
    assert fl.certified  # regular plants (D12, D21 of full rank) are certified
    assert fl.lower <= sigma_peak  # soundness, no slack
    return fl, gpeak


@pytest.mark.parametrize("seed, n", [(0, 1), (1, 2), (2, 3), (3, 1), (4, 2)])
def test_certified_floor_below_a_verified_controller(seed, n):
    """Soundness and tightness of the floor against hinfsyn's verified controller.

    ``gpeak / lower - 1`` bounds the floor's relative gap to the full-order optimum from
    above (the optimum is at most what hinfsyn achieves).  On these plants it is measured
    at 0.5e-5 to 1.1e-4 (the dual certificate loses little and hinfsyn is close to the
    optimum); 1e-3 leaves margin for solver versions while still catching a floor that
    lost its value.
    """
    fl, gpeak = _check_floor_below_hinfsyn(seed, n)
    assert gpeak / fl.lower - 1.0 <= 1e-3


def test_certified_floor_sound_where_the_certificate_loses_value():
    # A plant (seed 12302, n = 3) where the first certified dual margin costs ~2.8 %
    # (floor 96.47 against an achieved 99.25): sound, and no tightness is claimed.
    _check_floor_below_hinfsyn(12302, 3)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 3))
def test_certified_floor_below_a_verified_controller_property(seed, n):
    """Soundness on derandomised draws (no tightness: some draws lose a few per cent)."""
    _check_floor_below_hinfsyn(seed, n)


def test_certified_floor_below_the_static_optimum_on_a_grid():
    """One state, static gains on a dense grid: the grid's best norm is achieved."""
    # x' = x + w1 + u, z = [x; 0.1 u], y = x + 0.1 w2 (the scalar example of hinfstruct).
    d = [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    P = control.ss([[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], d)
    fl = full_order_floor(P, 1, 1)
    ks = np.linspace(-30.0, -1.05, 2000)
    w = np.logspace(-3, 4, 600)
    jw = 1j * w[None, :]
    k = ks[:, None]
    res_x = 1.0 / (jw - (1.0 + k))
    T = np.stack(
        [
            np.stack([res_x, 0.1 * k * res_x], -1),
            np.stack([0.1 * k * res_x, 0.01 * k * k * res_x + 0.01 * k], -1),
        ],
        -2,
    )
    # The grid only picks a good gain; what is compared is its exact norm (AB13DD).
    best = ks[np.argmin(np.linalg.svd(T, compute_uv=False)[..., 0].max(axis=1))]
    cl = control.ss([[1.0 + best]], [[1.0, 0.1 * best]], [[1.0], [0.1 * best]],
                    [[0.0, 0.0], [0.0, 0.01 * best]])  # fmt: skip
    achieved = control.norm(cl, "inf")
    assert fl.certified
    assert fl.lower <= achieved
    assert fl.estimate == pytest.approx(full_order_gamma(P, 1, 1), rel=1e-5)


def test_floor_bad_input():
    with pytest.raises(rmb.errors.DimensionError, match="no performance"):
        full_order_floor(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]), 1, 1)
    Pd = control.ss([[0.5]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]], 0.1)
    with pytest.raises(rmb.errors.DimensionError, match="continuous"):
        full_order_floor(Pd, 1, 1)


def _achieved_general(P, K):
    """A level ``Fl(P, K)`` provably reaches (any channel sizes): python-control's ``lft``,
    SLICOT AB13DD on the balanced loop for the peak frequency, and the largest singular
    value there evaluated by NumPy (the norm is at least that value)."""
    cl = P.lft(K)
    assert np.max(cl.poles().real) < 0
    _, (s, _) = scipy.linalg.matrix_balance(cl.A, permute=False, separate=True)
    bal = control.ss(cl.A / s[:, None] * s[None, :], cl.B / s[:, None], cl.C * s[None, :], cl.D)
    gpeak, fpeak = control.linfnorm(bal)
    resp = np.atleast_2d(bal(1j * fpeak)) if np.isfinite(fpeak) else np.atleast_2d(bal.D)
    return float(np.linalg.svd(resp, compute_uv=False)[0]), float(gpeak)


def _relative_degree_two_plant():
    # x1' = x2, x2' = -x1 - x2 + w + u, z = [x1; 0.5 u], y = x1 without noise: the
    # measurement has relative degree two (C2 B1 = 0), D21 = 0
    A = np.array([[0.0, 1.0], [-1.0, -1.0]])
    B = np.array([[0.0, 0.0], [1.0, 1.0]])
    C = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    D = np.array([[0.0, 0.0], [0.0, 0.5], [0.0, 0.0]])
    return control.ss(A, B, C, D)


def test_augmented_plant_is_a_relaxation():
    # every controller of the plant, padded with zeros, gives the augmented plant the same
    # closed loop: the augmented optimum (and any floor of it) is at most the plant's
    import importlib

    fof = importlib.import_module("robustmb.tuning.full_order_floor")
    P = _relative_degree_two_plant()
    m = fof._partition(P, 1, 1, "test")
    aug = fof._augmented(m)
    ny, nu = aug["c2"].shape[0], aug["b2"].shape[1]
    assert ny > 1 and nu == 1  # derivatives of y measured; D12 has full column rank
    # the plant's own numbers are kept exactly
    assert np.array_equal(aug["c2"][:1], m["c2"]) and np.array_equal(aug["d21"][:1], m["d21"])
    Pa = control.ss(
        aug["a"],
        np.hstack([aug["b1"], aug["b2"]]),
        np.vstack([aug["c1"], aug["c2"]]),
        np.block([[aug["d11"], aug["d12"]], [aug["d21"], np.zeros((ny, nu))]]),
    )
    K = rmb.hinfsyn(P, 1, 1).controller
    Kpad = control.ss(K.A, np.hstack([K.B, np.zeros((K.nstates, ny - 1))]), K.C,
                      np.hstack([K.D, np.zeros((1, ny - 1))]))  # fmt: skip
    w = np.logspace(-2, 3, 200)
    r0 = P.lft(K).frequency_response(w).fresp
    r1 = Pa.lft(Kpad).frequency_response(w).fresp
    assert np.allclose(r0, r1, rtol=1e-10, atol=1e-12)


@pytest.mark.slow
def test_floor_certified_on_a_measurement_of_relative_degree_two():
    # the dual's face from _bases alone has no interior point here; the augmented plant's
    # has (measured: floor 0.4588314 against hinfsyn's verified 0.4588323)
    P = _relative_degree_two_plant()
    fl = full_order_floor(P, 1, 1)
    sigma_peak, gpeak = _achieved_general(P, rmb.hinfsyn(P, 1, 1).controller)
    assert fl.certified
    assert fl.lower <= sigma_peak
    assert gpeak / fl.lower - 1.0 <= 1e-4


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["AC1", "AC2", "AC6", "AC7", "AC17", "HE1", "HE2", "REA1", "REA2", "DIS1"]
)
def test_floor_below_a_verified_controller_on_singular_compleib(name):
    """Soundness on the ten singular COMPleib plants: the floor never exceeds the level
    hinfsyn's controller reaches (re-verified here by python-control and AB13DD).

    Certified (measured gaps to the verified level): AC6 (1.0 %, the thin-face fallback),
    AC17, DIS1 (1e-4, on the augmented plant), HE2, REA1, REA2, and HE1 only through the
    full-control relaxation (0.05546 against 0.0736166: loose; its stable invariant zero of
    (A, B2, C1, D12), D12 square, makes the two-sided dual's face irrational, see
    ``robustmb.synthesis.lmi_dual``).  Not certified: AC7 (seven such zeros), AC1 (optimum
    about 3e-5) and AC2 (a stable invariant zero of (A, B1, C2, D21) and one at s = 0).
    """
    from _compleib import compleib

    P, _, (a, b1, b2, c1, c2, *_) = compleib(name)
    nmeas, ncon = c2.shape[0], b2.shape[1]
    fl = full_order_floor(P, nmeas, ncon)
    sigma_peak, _ = _achieved_general(P, rmb.hinfsyn(P, nmeas, ncon).controller)
    assert 0.0 <= fl.lower <= sigma_peak
    if name in ("AC6", "AC17", "DIS1", "HE2", "REA1", "REA2"):
        assert fl.certified and fl.lower >= 0.98 * sigma_peak
    if name == "HE1":
        # the full-control relaxation's floor: its own optimum, by the primal SDP of the
        # filter-side inequality alone, is 0.05585, above the floor
        assert fl.certified and 0.7 * sigma_peak <= fl.lower
