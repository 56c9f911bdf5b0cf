"""hinfsyn flags a gamma that no norm computation bounds from above (``gamma_certified``).

A plant with a repeated, very lightly damped pair, ``1 / (s^2 + 2e-4 s + 1)^2``, under
``mixsyn`` with ``W1 = (s + 1) / (s + 0.01)``: the closed loop's repeated poles lie within
rounding of the axis and ``hinfnorm`` proves no upper bound in either realisation.  The
gamma returned then lies below the true norm: mpmath at 50 digits on the stored
closed loop finds a larger gain near 1.0001 rad/s (a check sharing no code with the package),
so the result must say that gamma is not certified.
"""

from pathlib import Path

import control
import mpmath
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import RobustMBWarning
from robustmb.synthesis.norm_certificate import norm_certified, second_realisation_norm


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
    # (a lightly damped plant, 1 / (s^2 + 0.02 s + 1), gave a stiff loop, pole near -7e7
    # and a level just above sigma_max(D) = 1, whose bound rested on a search of the
    # response alone: no longer certified)
    s = control.tf("s")
    res = rmb.mixsyn(1 / (s + 1), (s + 1) / (s + 0.01))
    assert res.gamma_certified is True
    w = np.geomspace(1e-3, 1e4, 20001)
    grid = np.abs(control.frequency_response(res.closed_loop, w).magnitude).max()
    assert grid <= res.gamma


def test_a_proof_on_the_decoupled_realisation_is_no_proof_for_the_closed_loop():
    # a stiff 7-state loop (tests/data/hinf_gate_sec_stiff_71_7.npz): hinfnorm proves
    # nothing on the stored realisation, and the decoupled one's norm (about 305073.6)
    # lies below the stored loop's gain near 4.3716e-6 rad/s (mpmath: 305110.659): the
    # split's rounding changed the system, so its proof must not certify this loop.
    # (hinfnorm now withholds a proof on the decoupled realisation too, with a warning,
    # so ``second`` is None; a norm it does return must lie below the loop's gain.)
    z = np.load(Path(__file__).resolve().parents[1] / "data" / "hinf_gate_sec_stiff_71_7.npz")
    cl = control.ss(z["A"], z["B"], z["C"], z["D"])
    second = second_realisation_norm(cl)
    peak = max(_gain(cl, w) for w in np.linspace(4.3710e-6, 4.3720e-6, 21))
    assert second is None or second < peak * (1 - 1e-5)
    assert norm_certified(cl) is False
