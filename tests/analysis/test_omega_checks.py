"""Frequency arguments of diskmargin and freqresp: bad input raises, near-pole points warn."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import DimensionError

L = control.tf(25, [1, 10, 10, 10])


@pytest.mark.parametrize("omega", [[1j], [1.0, np.inf], [np.nan], [-1.0], [], [[1.0, 2.0]]])
def test_diskmargin_rejects_bad_omega(omega):
    with pytest.raises(DimensionError, match="omega"):
        rmb.diskmargin(L, omega=omega)


def test_discrete_omega_above_nyquist_equals_its_alias():
    # exp(j omega dt) has period 2 pi / dt: both functions evaluate the given frequency
    Ld = control.c2d(control.ss(L), 0.1)
    w, alias = 3.0, 3.0 + 2 * np.pi / 0.1
    z = np.exp(1j * w * 0.1)
    expected = complex(control.evalfr(Ld, z))
    np.testing.assert_allclose(rmb.freqresp(Ld, [alias])[0, 0, 0], expected, rtol=1e-9)
    a = rmb.diskmargin(Ld, omega=[w]).alpha
    b = rmb.diskmargin(Ld, omega=[alias]).alpha
    assert a == pytest.approx(b, rel=1e-9)


def test_freqresp_warns_within_rounding_of_a_pole():
    # pole at -2^-60, far inside eps ||A||: G(0) = 2^60 is set by that rounding-level entry
    A = np.array([[-(2.0**-60), 0.0], [0.0, -1.0]])
    G = (A, np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1)))
    with pytest.warns(RuntimeWarning, match="within rounding distance of a pole"):
        H = rmb.freqresp(G, [0.0, 1.0])
    assert H[0, 0, 0] == pytest.approx(2.0**60 + 1.0, rel=1e-12)  # exact: 1/2^-60 + 1
    # 1 rad/s is far from every pole: no warning there
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rmb.freqresp(G, [1.0])
