"""The certified mu sweep evaluates M(jw) on the balanced realisation.

Reference: M(jw) = C (jw I - A)^-1 B + D of the very same double-precision data, computed
with 40-digit arithmetic (mpmath), on the two-cart loop whose ``||A||`` is about 1e11.
"""

import mpmath
import numpy as np

import robustmb as rmb
from robustmb.analysis.mu_sweep import balanced_response_function
from robustmb.analysis.uncertain_problem import uncertain_problem


def _exact(a, b, c, d, w):
    mpmath.mp.dps = 40
    n = a.shape[0]
    k = 1j * w * mpmath.eye(n) - mpmath.matrix(a.tolist())
    cm, bm = mpmath.matrix(c.tolist()), mpmath.matrix(b.tolist())
    out = np.zeros(d.shape, complex)
    for j in range(b.shape[1]):
        x = mpmath.lu_solve(k, bm[:, j])
        col = cm * x
        out[:, j] = [complex(col[i]) + d[i, j] for i in range(d.shape[0])]
    return out


def test_probe_responses_keep_their_digits_on_a_stiff_loop():
    a, b, c, d = uncertain_problem(rmb.examples.two_carts_loop()).m11
    assert np.abs(a).max() > 1e10  # the stiffness that costs digits unbalanced
    ws = np.array([0.01, 1.0, 10.0, 70.0, 300.0, 1e3, 1e4])
    got = balanced_response_function(a, b, c, d)(ws)
    for w, m in zip(ws, got, strict=True):
        ref = _exact(a, b, c, d, w)
        err = np.abs(m - ref).max() / np.abs(ref).max()
        # unbalanced: about 2e-4 from 3 to 70 rad/s (the peak of mu); balanced: 1e-8 or better
        assert err < (1e-8 if w >= 10 else 1e-5), (w, err)
