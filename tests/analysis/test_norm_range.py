"""Norms of models with very large or very small gains are exact (closed forms), and a
norm beyond the float range is a clear error instead of ``inf`` or a LinAlgError."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import FloatRangeError, UncertainElementError

GAINS = [1e-300, 1e-200, 1e-150, 1e-100, 1e100, 1e150, 1e200, 1e300]


@pytest.mark.parametrize("g", GAINS)
def test_first_order_lag_norms(g):
    """g/(s + 1): ||.||_2 = g / sqrt(2), ||.||_inf = g at w = 0."""
    for sys in (
        control.tf([g], [1.0, 1.0]),
        control.ss([[-1.0]], [[g]], [[1.0]], [[0.0]]),
        control.ss([[-1.0]], [[1.0]], [[g]], [[0.0]]),
        control.ss([[-1.0]], [[np.sqrt(g)]], [[np.sqrt(g)]], [[0.0]]),
    ):
        assert rmb.h2norm(sys) == pytest.approx(g / np.sqrt(2.0), rel=1e-12)
        gamma, w = rmb.hinfnorm(sys)
        assert gamma == pytest.approx(g, rel=1e-10)
        assert w == 0.0


@pytest.mark.parametrize("g", GAINS)
def test_resonator_and_discrete_norms(g):
    """g/(s^2 + 0.1 s + 1): H2 = g sqrt(5), Hinf = g / (2 z sqrt(1 - z^2)), z = 0.05;
    discrete g/(z - 0.5): H2 = g / sqrt(0.75), Hinf = g / 0.5 (at w = 0)."""
    R = control.ss([[0, 1], [-1, -0.1]], [[0], [g]], [[1, 0]], [[0]])
    assert rmb.h2norm(R) == pytest.approx(g * np.sqrt(5.0), rel=1e-10)
    z = 0.05
    assert rmb.hinfnorm(R)[0] == pytest.approx(g / (2 * z * np.sqrt(1 - z**2)), rel=1e-8)
    Dz = control.ss([[0.5]], [[g]], [[1.0]], [[0.0]], 1.0)
    assert rmb.h2norm(Dz) == pytest.approx(g / np.sqrt(0.75), rel=1e-12)
    assert rmb.hinfnorm(Dz)[0] == pytest.approx(2 * g, rel=1e-10)


def test_feedthrough_dominated_gain():
    """1e300 + 1e-300/(s + 1): the peak is the DC value 1e300 (+ negligible)."""
    sys = control.ss([[-1.0]], [[1e-150]], [[1e-150]], [[1e300]])
    assert rmb.hinfnorm(sys)[0] == pytest.approx(1e300, rel=1e-12)


def test_norm_beyond_float_range_is_an_error():
    sys = control.ss([[-1.0]], [[1e200]], [[1e200]], [[0.0]])  # 1e400 / (s + 1)
    with pytest.raises(FloatRangeError, match=r"H-infinity norm of sys is about 1e400"):
        rmb.hinfnorm(sys)
    with pytest.raises(FloatRangeError, match=r"H2 norm of sys is about 1e400"):
        rmb.h2norm(sys)


def test_ureal_range_that_overflows_is_refused():
    with pytest.raises(UncertainElementError, match="ureal 'q'.*overflows"):
        rmb.ureal("q", 1e308, percent=100)
    with pytest.raises(UncertainElementError, match="ureal 'p'.*overflows"):
        rmb.ureal("p", 0.0, range=(-1.5e308, 1.5e308))
