"""freqresp's "auto" check covers the realisation's conditioning on the Schur path: an
ill-conditioned 4-state loop (cond(A) = 4.5e13) was 1.5e-3 off at every frequency."""

import control
import mpmath
import numpy as np
import pytest
from rank_one_loops import rank_one_loop

import robustmb as rmb


def _mp_response(A, B, C, w, dps=60):
    """``C (jw I - A)^{-1} B`` (single input and output) solved with ``dps`` digits."""
    with mpmath.workdps(dps):
        pencil = mpmath.mpc(0, w) * mpmath.eye(A.shape[0]) - mpmath.matrix(A.tolist())
        x = mpmath.lu_solve(pencil, mpmath.matrix(B[:, 0].tolist()))
        return complex(sum(mpmath.mpf(float(C[0, i])) * x[i] for i in range(A.shape[0])))


@pytest.mark.parametrize("w", [0.0, 0.398, 1.0, 100.0, 1e4])
def test_ill_conditioned_loop_matches_60_digit_solve(w):
    _, (A, B, C) = rank_one_loop(304)
    assert np.linalg.cond(A) > 1e13
    G = rmb.freqresp(control.ss(A, B, C, np.zeros((1, 1))), [w])[0, 0, 0]
    exact = _mp_response(A, B, C, w)
    assert abs(G - exact) <= 1e-11 * abs(exact)
