"""hinfsyn and h2syn do not depend on the absolute scale of the performance channels.

Plant of :func:`robustmb.synthesis.gamma_bracket.bisect`'s example: ``x' = -x + w1 + u``,
``z = [x; u]``, ``y = x + w2``.  Its H-infinity optimum is the root ``sqrt(3) - 1`` of
``gamma^2 + 2 gamma - 2`` (``X = Y = 1 / (1 + sqrt(2 - gamma^-2))``, ``rho(X Y) = gamma^2``);
its H2 optimum is ``sqrt(X + X^3)`` with ``X = Y = sqrt(2) - 1`` (``tr(B1' X B1)`` plus
``tr(F Y F')``, ``F = -X``).  Scaling ``z`` by ``c`` (or ``w``) scales every closed loop by
``c`` and leaves the optimal controllers unchanged.
"""

import control
import numpy as np
import pytest

import robustmb as rmb

HINF_OPT = np.sqrt(3.0) - 1.0
_X = np.sqrt(2.0) - 1.0
H2_OPT = np.sqrt(_X + _X**3)
# 0.5: the first geometric midpoint of the level search is then exactly the level
# 1/sqrt(2) c where X stops existing (an undecided test)
SCALES = (1e-12, 1e-9, 3e-9, 1e-6, 0.5, 1.0, 1e3, 1e6)


def _plant(cz=1.0, cw=1.0):
    """z scaled by ``cz``, w by ``cw`` (inputs [w1, w2, u], outputs [z1, z2, y])."""
    B = np.array([[cw, 0.0, 1.0]])
    C = np.array([[cz], [0.0], [1.0]])
    D = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, cz], [0.0, cw, 0.0]])
    return control.ss([[-1.0]], B, C, D)


def _check_hinf(res, c, rtol):
    assert res.gamma / c <= HINF_OPT * (1 + rtol)
    assert res.gamma / c >= HINF_OPT * (1 - 1e-9)  # no controller beats the optimum
    lo, hi = res.gamma_bracket
    assert lo / c <= HINF_OPT * (1 + 1e-9) and hi / c >= HINF_OPT * (1 - 1e-9)
    # the reported norm is the closed loop's, in the plant's units (SLICOT AB13DD)
    assert np.isclose(control.norm(res.closed_loop, "inf"), res.gamma, rtol=1e-5)


@pytest.mark.parametrize("c", SCALES)
@pytest.mark.parametrize("method", ["auto", "riccati", "lmi"])
def test_hinfsyn_level_follows_the_scale_of_z(c, method):
    _check_hinf(rmb.hinfsyn(_plant(cz=c), 1, 1, method=method), c, 0.01)


@pytest.mark.parametrize("c", (1e-12, 1e-9, 1e6))
def test_hinfsyn_level_follows_the_scale_of_w(c):
    _check_hinf(rmb.hinfsyn(_plant(cw=c), 1, 1, method="riccati"), c, 0.01)


@pytest.mark.parametrize("c", SCALES)
def test_h2syn_norm_follows_the_scale_of_z_and_w(c):
    for P in (_plant(cz=c), _plant(cw=c)):
        res = rmb.h2syn(P, 1, 1)
        assert res.method == "riccati"  # a regular plant with D11 = 0 at any scale
        assert np.isclose(res.norm / c, H2_OPT, rtol=1e-7)
        assert np.isclose(rmb.h2norm(res.closed_loop), res.norm, rtol=1e-7)
