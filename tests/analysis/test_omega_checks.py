"""Frequency arguments of diskmargin and freqresp: bad input raises, near-pole points warn."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError

L = control.tf(25, [1, 10, 10, 10])


@pytest.mark.parametrize("omega", [[1j], [1.0, np.inf], [np.nan], [-1.0], [], [[1.0, 2.0]]])
def test_diskmargin_rejects_bad_omega(omega):
    with pytest.raises(DimensionError, match="omega"):
        rmb.diskmargin(L, omega=omega)


def test_discrete_omega_above_nyquist_is_refused_and_nyquist_is_legal():
    # exp(j omega dt) has period 2 pi / dt: a frequency above pi/dt only names an alias
    Ld = control.c2d(control.ss(L), 0.1)
    w, alias = 3.0, 3.0 + 2 * np.pi / 0.1
    expected = complex(control.evalfr(Ld, np.exp(1j * w * 0.1)))
    np.testing.assert_allclose(rmb.freqresp(Ld, [w])[0, 0, 0], expected, rtol=1e-9)
    for call in (lambda: rmb.freqresp(Ld, [alias]), lambda: rmb.diskmargin(Ld, omega=[alias])):
        with pytest.raises(ArgumentError, match="omega .*Nyquist frequency pi/dt"):
            call()
    nyquist = np.pi / 0.1
    at_nyquist = complex(control.evalfr(Ld, -1.0))
    np.testing.assert_allclose(rmb.freqresp(Ld, [nyquist])[0, 0, 0], at_nyquist, rtol=1e-9)
    # balanced disk margin (sigma = 0) at one frequency: 1 / |S - 1/2| with S = 1 / (1 + L),
    # L from python-control's evalfr at z = -1
    s_at = (1 - at_nyquist) / (2 * (1 + at_nyquist))
    assert rmb.diskmargin(Ld, omega=[nyquist]).alpha == pytest.approx(1 / abs(s_at), rel=1e-9)


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
