"""Frequency responses of loops with widely separated poles, against 40-digit mpmath.

The loops carry a weight's near-integrator (pole ``-slow``), the controller's copy of it
and controller poles near ``-fast``, as musyn's closed loops do.  References: the
response of the same double-precision matrices solved in mpmath with 40 digits, and mu
of that reference matrix by a brute-force phase search (two scalar complex blocks:
``mu(M) = max_theta rho(diag(1, e^{j theta}) M)``), neither produced by robustmb.
"""

import control
import mpmath
import numpy as np
import pytest

from robustmb.analysis import mussv
from robustmb.analysis._separation import separated_blocks
from robustmb.analysis.freqresp import ResponseEvaluator, freqresp
from robustmb.analysis.mu_sweep import certified_mu_peak


def mp_response(A, B, C, D, s):
    """``C (sI - A)^{-1} B + D`` of the given double matrices, solved with 40 digits."""
    with mpmath.workdps(40):
        n = A.shape[0]
        pencil = mpmath.mpc(s) * mpmath.eye(n) - mpmath.matrix(A.tolist())
        Bm, Cm = mpmath.matrix(B.tolist()), mpmath.matrix(C.tolist())
        out = np.empty((C.shape[0], B.shape[1]), dtype=complex)
        for j in range(B.shape[1]):
            x = mpmath.lu_solve(pencil, Bm.column(j))
            y = Cm * x
            for i in range(C.shape[0]):
                out[i, j] = complex(y[i])
    return out + D


def rp_loop(slow=1e-6, fast=3e4):
    """Robust-performance loop (input uncertainty channel, weighted error) of a 3rd-order
    plant with a near-integrating controller and two fast controller poles."""
    s = control.tf("s")
    G = control.ss(2.0 / ((s + 1.0) * (s**2 + 0.5 * s + 4.0)), inputs="up", outputs="y")
    Wi = control.ss(0.2 * (s + 0.2) / (0.5 * s + 1.0), inputs="u", outputs="z")
    We = control.ss(0.5 * (s / 2 + 1) / (s + slow), inputs="v", outputs="e")
    K = control.ss(
        40.0 * (s + 1) / (s + slow) * (fast / (s + fast)) * (1.1 * fast / (s + 1.1 * fast)),
        inputs="v",
        outputs="u",
    )
    sum_u = control.summing_junction(inputs=["u", "w"], output="up")
    sum_v = control.summing_junction(inputs=["r", "-y"], output="v")
    N = control.interconnect([G, Wi, We, K, sum_u, sum_v], inputs=["w", "r"], outputs=["z", "e"])
    return np.asarray(N.A), np.asarray(N.B), np.asarray(N.C), np.asarray(N.D)


def brute_mu_two_scalars(M, grid=4001):
    """mu of a 2x2 matrix for two scalar complex blocks: max over a phase of rho(U M)."""
    theta = np.linspace(0.0, 2 * np.pi, grid)
    best = 0.0
    for _ in range(3):  # refine around the best phase
        rho = [np.max(np.abs(np.linalg.eigvals(np.diag([1.0, np.exp(1j * t)]) @ M))) for t in theta]
        k = int(np.argmax(rho))
        best = max(best, rho[k])
        step = theta[1] - theta[0]
        theta = np.linspace(theta[k] - step, theta[k] + step, 201)
    return best


def relative_error(H, R):
    return np.linalg.norm(H - R, 2) / np.linalg.norm(R, 2)


@pytest.mark.parametrize(("slow", "fast"), [(1e-6, 3e4), (1e-7, 3e4), (1e-8, 1e5)])
@pytest.mark.parametrize("method", ["auto", "schur"])
def test_separated_loop_matches_mpmath(slow, fast, method):
    A, B, C, D = rp_loop(slow, fast)
    omega = np.array([0.0, 1e-7, 1e-4, 1e-2, 1.0, 30.0, 3e4, 1e6])
    H = freqresp((A, B, C, D), omega, method=method)
    errors = [relative_error(H[k], mp_response(A, B, C, D, 1j * w)) for k, w in enumerate(omega)]
    # The realisation's own componentwise conditioning at omega = 0 grows like 1/slow.
    assert max(errors) < 1e-10 * max(1.0, 1e-6 / slow), errors


def test_auto_modal_falls_back_where_slow_modes_are_sensitive():
    A, B, C, D = rp_loop()
    ev = ResponseEvaluator(A, B, C, D)
    assert ev.method == "modal"  # well-conditioned eigenvectors: the check does the work
    H = ev.at_frequencies(np.array([0.0, 1e-3]), 0.0)
    for k, w in enumerate([0.0, 1e-3]):
        assert relative_error(H[k], mp_response(A, B, C, D, 1j * w)) < 1e-9


def test_mu_at_zero_frequency_matches_mpmath():
    A, B, C, D = rp_loop(1e-7, 3e4)
    blk = [(1, 1), (1, 1)]
    M = freqresp((A, B, C, D), [0.0])[0]
    reference = brute_mu_two_scalars(mp_response(A, B, C, D, 0.0))
    bounds = mussv(M, blk)
    assert abs(float(bounds.upper) - reference) <= 1e-8 * reference
    assert abs(float(bounds.lower) - reference) <= 1e-8 * reference


def test_certified_mu_peak_bounds_mpmath_mu_on_separated_loop():
    A, B, C, D = rp_loop()
    blk = [(1, 1), (1, 1)]
    peak = certified_mu_peak((A, B, C, D), blk)
    assert peak.covered
    for w in [0.0, 1e-3, 1.0, float(peak.lower_frequency)]:
        mu = brute_mu_two_scalars(mp_response(A, B, C, D, 1j * w))
        assert peak.upper >= mu * (1 - 1e-9)
    assert peak.lower <= peak.upper


def test_separated_blocks_same_response_and_decoupled():
    A, B, C, D = rp_loop()
    blocks = separated_blocks(A, B, C)
    moduli = [np.abs(np.linalg.eigvals(a)) for a, _, _ in blocks]
    assert len(blocks) == 3
    for lower, upper in zip(moduli[:-1], moduli[1:], strict=True):
        assert upper.min() >= 1e3 * lower.max()
    # Same model: checked where the split realisation is well conditioned.  (At s = 0 the
    # orthogonal Schur transform of the whole A leaves an error eps ||A|| that the slow
    # modes amplify -- 4e-5 here -- which is why freqresp solves by LU below the fast
    # cluster instead of summing these blocks.)
    for s in [1j, 30j, 1e4j, 1e6j]:
        total = sum(c @ np.linalg.solve(s * np.eye(a.shape[0]) - a, b) for a, b, c in blocks)
        assert relative_error(total + D, mp_response(A, B, C, D, s)) < 1e-9


def test_separated_blocks_keeps_realisation_without_gap_or_when_ill_conditioned():
    A = np.array([[-1.0, 5.0], [0.0, -20.0]])
    B, C = np.ones((2, 1)), np.ones((1, 2))
    (block,) = separated_blocks(A, B, C)
    assert block[0] is A
    # Gap present, but the coupling solution (about 1e6) exceeds xmax.
    A = np.array([[-1e-3, 1e7], [0.0, -1e1]])
    assert len(separated_blocks(A, B, C)) == 2
    (block,) = separated_blocks(A, B, C, xmax=1e3)
    assert block[0] is A


def test_pole_hit_is_inf_even_where_the_pole_state_is_not_seen():
    # C has a zero column on the pole's state: C @ inf would be nan; the point is inf
    A = np.diag([0.0, -1.0, -3e4])
    B, C, D = np.ones((3, 1)), np.array([[0.0, 1.0, 1.0]]), np.zeros((1, 1))
    with pytest.warns(RuntimeWarning, match="on a pole"):
        H = freqresp((A, B, C, D), [0.0, 1.0], method="schur")
    assert np.isinf(H[0, 0, 0]) and not np.isnan(H[0, 0, 0])
    assert relative_error(H[1], mp_response(A, B, C, D, 1j)) < 1e-13


def test_zero_pole_cluster_and_pole_hit():
    A = np.diag([0.0, -1.0, -3e4])
    A[0, 2] = 1.0
    B, C, D = np.ones((3, 1)), np.ones((1, 3)), np.zeros((1, 1))
    with pytest.warns(RuntimeWarning, match="on a pole"):
        H = freqresp((A, B, C, D), [0.0, 1.0], method="schur")
    assert np.isinf(H[0, 0, 0])
    assert relative_error(H[1], mp_response(A, B, C, D, 1j)) < 1e-13
