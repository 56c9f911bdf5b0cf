"""Error bounds of :class:`CheckedResponse` against 60-digit mpmath solves.

``checked_response_ill_conditioned_287.npz``: a 3-state continuous model with
``||A|| = 2.4e13`` and ``cond(A) = 1e17`` from a randomised accuracy survey (random
orthogonal similarity of a block-diagonal model with a pole spread of ten decades).
Refinement does not contract there: the computed ``M(0)`` entry ``(1, 0)`` was
``2.76e4`` with a bound of ``3.2e4`` against the exact ``3.78e6``.  A bound must hold or
be ``inf`` (the point then does not count as checked).
"""

from pathlib import Path

import mpmath
import numpy as np

from robustmb.analysis.checked_response import CheckedResponse

DATA = Path(__file__).resolve().parents[1] / "data"


def _exact(A, B, C, D, w):
    with mpmath.workdps(60):
        n = A.shape[0]
        pencil = mpmath.mpc(0, w) * mpmath.eye(n) - mpmath.matrix(A.tolist())
        X = mpmath.inverse(pencil) * mpmath.matrix(B.tolist())
        G = mpmath.matrix(C.tolist()) * X
        return np.array(
            [[complex(G[i, j]) + D[i, j] for j in range(B.shape[1])] for i in range(C.shape[0])]
        )


def _model():
    z = np.load(DATA / "checked_response_ill_conditioned_287.npz")
    return z["A"], z["B"], z["C"], z["D"]


def test_bounds_hold_on_a_model_with_cond_beyond_one_over_eps():
    A, B, C, D = _model()
    omega = np.array([0.0, 1.0, 1e3, 1e6, 1e9])
    resp, err = CheckedResponse((A, B, C, D))(omega)
    for k, w in enumerate(omega):
        exact = _exact(A, B, C, D, w)
        assert np.all(np.abs(resp[k] - exact) <= err[k]), (w, resp[k], exact, err[k])
    # the reference itself: M(0)[1, 0] is 3.78e6, far from the double-precision solve
    exact0 = _exact(A, B, C, D, 0.0)
    assert abs(exact0[1, 0] - 3.779391910791947e6) < 1.0


def test_fast_error_estimate_holds_there_too():
    A, B, C, D = _model()
    omega = np.array([0.0, 1.0, 1e3])
    checked = CheckedResponse((A, B, C, D))
    err = checked.fast_errors(omega)
    # any backward-stable evaluation: here a plain LU solve in double precision
    for k, w in enumerate(omega):
        lu = C @ np.linalg.solve(1j * w * np.eye(3) - A, B) + D
        assert np.all(np.abs(lu - _exact(A, B, C, D, w)) <= err[k])


def test_ordinary_model_keeps_tight_bounds():
    """A well-conditioned model is still checked, to a few eps relative."""
    rng = np.random.default_rng(3)
    A = np.diag([-1.0, -2.0, -5.0]) + 0.3 * rng.standard_normal((3, 3))
    B, C, D = rng.standard_normal((3, 2)), rng.standard_normal((2, 3)), np.zeros((2, 2))
    omega = np.array([0.0, 0.7, 3.0, 40.0])
    resp, err = CheckedResponse((A, B, C, D))(omega)
    for k, w in enumerate(omega):
        exact = _exact(A, B, C, D, w)
        assert np.all(np.abs(resp[k] - exact) <= err[k])
        assert np.all(err[k] <= 1e-13 * np.abs(exact).max())
