"""hinfsyn flags a gamma that no norm computation bounds from above (``gamma_certified``).

A plant with a repeated, very lightly damped pair, ``1 / (s^2 + 2e-4 s + 1)^2``, under
``mixsyn`` with ``W1 = (s + 1) / (s + 0.01)``: the closed loop's repeated poles lie within
rounding of the axis and ``hinfnorm`` proves no upper bound in either realisation.  The
gamma returned then lies below the true norm: mpmath at 50 digits on the stored
closed loop finds a larger gain near 1.0001 rad/s (a check sharing no code with the package),
so the result must say that gamma is not certified.
"""

import control
import mpmath
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import RobustMBWarning


def _gain(cl, w):
    # |C (jw I - A)^-1 B + D| of the SISO closed loop in 50-digit arithmetic
    with mpmath.workdps(50):
        A, B, C, D = (
            mpmath.matrix(np.asarray(m, float).tolist()) for m in (cl.A, cl.B, cl.C, cl.D)
        )
        n = A.rows
        G = C * mpmath.lu_solve(1j * w * mpmath.eye(n) - A, B) + D
        return float(abs(G[0, 0]))


def test_an_uncertified_gamma_is_flagged_and_lies_below_the_true_norm():
    s = control.tf("s")
    with pytest.warns(RobustMBWarning, match="gamma_certified = False"):
        res = rmb.mixsyn(1 / (s**2 + 2e-4 * s + 1) ** 2, (s + 1) / (s + 0.01))
    assert res.gamma_certified is False
    peak = max(_gain(res.closed_loop, w) for w in np.linspace(1.0000, 1.0003, 31))
    assert peak > 1.02 * res.gamma  # the claim gamma >= ||cl|| would be false


def test_an_ordinary_design_is_certified():
    s = control.tf("s")
    res = rmb.mixsyn(1 / (s**2 + 0.02 * s + 1), (s + 1) / (s + 0.01))
    assert res.gamma_certified is True
    w = np.geomspace(1e-3, 1e4, 20001)
    grid = np.abs(control.frequency_response(res.closed_loop, w).magnitude).max()
    assert grid <= res.gamma
