"""freqresp where ``D + C x`` cancels after the LU solve: refined in double-double.

References are 60-digit mpmath solves of the stored double matrices (independent of the
package's arithmetic).
"""

from __future__ import annotations

import sys
import warnings

import mpmath
import numpy as np
import pytest
import scipy.linalg
import scipy.signal

from robustmb.analysis.freqresp import ResponseEvaluator, freqresp


def _mp_response(A, B, C, D, omega, dt=0.0):
    """``C (z I - A)^{-1} B + D`` of the double matrices with 60 digits (SISO)."""
    with mpmath.workdps(60):
        n = A.shape[0]
        if dt > 0:
            z = mpmath.expj(mpmath.mpf(float(omega)) * mpmath.mpf(float(dt)))
        else:
            z = mpmath.mpc(0, float(omega))
        pencil = z * mpmath.eye(n) - mpmath.matrix(A.tolist())
        x = mpmath.lu_solve(pencil, mpmath.matrix(B.tolist()))
        return complex((mpmath.matrix(C.tolist()) * x)[0] + mpmath.mpf(float(D[0, 0])))


def _relative_errors(A, B, C, D, omega, dt=0.0):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no accuracy warning is expected here
        H = freqresp((A, B, C, D, dt) if dt else (A, B, C, D), omega)[:, 0, 0]
    exact = np.array([_mp_response(A, B, C, D, w, dt) for w in omega])
    return np.abs(H - exact) / np.abs(exact), np.abs(exact)


def test_highpass_butterworth_far_below_cutoff():
    # D = 1 cancelled by C x ~ -1 down to |G| = omega^6 (1e-18 at omega = 1e-3)
    b, a = scipy.signal.butter(6, 1.0, btype="high", analog=True)
    A, B, C, D = scipy.signal.tf2ss(b, a)
    omega = np.array([1e-3, 1e-2, 0.1, 0.5, 1.0, 10.0])
    errors, sizes = _relative_errors(A, B, C, D, omega)
    assert sizes[0] < 1e-17  # the cancellation is real
    assert np.all(errors < 1e-12), errors


def test_discrete_butterworth_companion_near_nyquist():
    # stopband of a 10th-order low-pass: |G| down to 7e-29 near omega = pi
    b, a = scipy.signal.butter(10, 0.05)
    A, B, C, D = scipy.signal.tf2ss(b, a)
    omega = np.array([2.0, 2.8, 3.0, 3.1, 3.13, 3.14])
    errors, sizes = _relative_errors(A, B, C, D, omega, dt=1.0)
    assert sizes.min() < 1e-27
    assert np.all(errors < 1e-12), errors


def test_discrete_butterworth_sampling_time_scales_frequency():
    b, a = scipy.signal.butter(10, 0.05)
    A, B, C, D = scipy.signal.tf2ss(b, a)
    dt = 0.01
    omega = np.array([280.0, 310.0])
    errors, _ = _relative_errors(A, B, C, D, omega, dt=dt)
    assert np.all(errors < 1e-12), errors


@pytest.mark.parametrize("seed", [0, 1])
def test_ordinary_model_unchanged_against_lu(seed):
    # a dense random model takes no refinement; agreement with a plain solve to rounding
    rng = np.random.default_rng(seed)
    n = 8
    A = rng.standard_normal((n, n))
    A -= (np.max(np.linalg.eigvals(A).real) + 0.5) * np.eye(n)
    B, C, D = rng.standard_normal((n, 2)), rng.standard_normal((2, n)), rng.standard_normal((2, 2))
    omega = np.logspace(-2, 2, 15)
    H = freqresp((A, B, C, D), omega)
    direct = np.array([C @ np.linalg.solve(1j * w * np.eye(n) - A, B) + D for w in omega])
    assert np.max(np.abs(H - direct)) <= 1e-11 * np.max(np.abs(direct))


def test_warns_where_refinement_does_not_converge(monkeypatch):
    # the refinement's own accuracy estimate above the tolerance must not pass silently
    module = sys.modules["robustmb.analysis.freqresp"]

    original = module.refined_response

    def unconverged(*args, **kwargs):
        values, accuracy = original(*args, **kwargs)
        return values, np.full_like(accuracy, 1e-6)

    monkeypatch.setattr(module, "refined_response", unconverged)
    b, a = scipy.signal.butter(6, 1.0, btype="high", analog=True)
    A, B, C, D = scipy.signal.tf2ss(b, a)
    with pytest.warns(RuntimeWarning, match=r"first: 0\.001\).*double-double"):
        freqresp((A, B, C, D), [1e-3, 1.0])


def test_highpass_beside_a_separated_fast_cluster():
    # a triple pole at -1e4 (no modal form, Schur path with separated clusters): the slow
    # points are solved by LU in the balanced coordinates, and D + C x still cancels there
    b, a = scipy.signal.butter(6, 1.0, btype="high", analog=True)
    A1, B1, C1, D = scipy.signal.tf2ss(b, a)
    A2, B2, C2, _ = scipy.signal.tf2ss([1.0], np.poly([-1e4] * 3))
    A = scipy.linalg.block_diag(A1, A2)
    B = np.vstack([B1, B2])
    C = np.hstack([C1, 1e-9 * C2])
    evaluator = ResponseEvaluator(A, B, C, D)
    assert evaluator.method == "schur" and evaluator._parts is not None
    omega = np.array([1e-3, 1e-2, 0.1])
    errors, sizes = _relative_errors(A, B, C, D, omega)
    assert sizes[0] < 1e-17
    assert np.all(errors < 1e-12), errors


def test_stack_of_highpass_filters_matches_mpmath():
    # freqresp_stack solves the same cancelling points by LU and refines them as freqresp
    from robustmb.analysis.model_family import freqresp_stack

    stack = []
    for cutoff in (1.0, 2.0, 0.5):
        b, a = scipy.signal.butter(6, cutoff, btype="high", analog=True)
        stack.append(scipy.signal.tf2ss(b, a))
    A, B, C, D = (np.array([m[i] for m in stack]) for i in range(4))
    omega = np.array([1e-3, 1e-2, 0.1, 1.0, 10.0])
    H = freqresp_stack((A, B, C, D), omega)[:, :, 0, 0]
    for k, (Ak, Bk, Ck, Dk) in enumerate(stack):
        exact = np.array([_mp_response(Ak, Bk, Ck, Dk, w) for w in omega])
        assert np.all(np.abs(H[k] - exact) <= 1e-12 * np.abs(exact)), (k, H[k], exact)
