"""Frequencies above the Nyquist frequency pi/dt of a discrete-time model are refused.

The reference value at pi/dt is the closed form ``1 / (z - 0.5)`` at ``z = -1``.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.freqresp import response_function
from robustmb.analysis.model_family import freqresp_stack
from robustmb.errors import ArgumentError

DT = 0.1
NYQUIST = np.pi / DT


def _plant():
    return control.ss([[0.5]], [[1.0]], [[1.0]], [[0.0]], DT)


def _uncertain():
    a = rmb.ureal("a", 1.0, percent=20)
    return rmb.uss(_plant()) * a


CALLS = {
    "freqresp": lambda w: rmb.freqresp(_plant(), w),
    "response_function": lambda w: response_function(_plant())(w),
    "freqresp_stack": lambda w: freqresp_stack([_plant(), _plant()], w),
    "wcgain": lambda w: rmb.wcgain(_uncertain(), omega=w),
    "robstab": lambda w: rmb.robstab(_uncertain(), omega=w),
    "robgain": lambda w: rmb.robgain(_uncertain(), 2.0, omega=w),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("above", [NYQUIST * (1 + 1e-9), 40.0])
def test_above_nyquist_is_refused(name, above):
    with pytest.raises(ArgumentError, match=r"omega .*Nyquist frequency pi/dt = 31\.4159") as info:
        CALLS[name]([1.0, above])
    assert name in str(info.value) and "index 1" in str(info.value)


def test_at_nyquist_is_legal_and_exact():
    h = rmb.freqresp(_plant(), [0.0, NYQUIST]).ravel()
    assert np.allclose(h, [1 / (1 - 0.5), 1 / (-1 - 0.5)], rtol=1e-12, atol=1e-15)
    # the worst case of a * 1/(z - 0.5) at z = -1 over a in [0.8, 1.2] is 1.2 / 1.5
    res = rmb.wcgain(_uncertain(), omega=[NYQUIST])
    assert res.lower <= 0.8 + 1e-12 <= res.upper + 2e-12 and res.lower > 0.8 - 1e-9


def test_continuous_models_take_any_finite_frequency():
    G = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])
    h = rmb.freqresp(G, [1e3]).ravel()
    assert np.isclose(h[0], 1 / (1e3j + 1), rtol=1e-12)


def test_disk_margins_refuse_omega_above_nyquist_under_their_own_name():
    G = control.ss([[0.5]], [[1.0]], [[1.0]], [[0.0]], 0.1)
    with pytest.raises(rmb.errors.ArgumentError, match=r"^diskmargin: omega has 40"):
        rmb.diskmargin(G, omega=[40.0])
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    with pytest.raises(rmb.errors.ArgumentError, match=r"^wcdiskmargin: omega has 40"):
        rmb.wcdiskmargin(rmb.uss(G) * k, omega=[40.0])
    # pi / dt itself is legal: L(-1) = 1/(-1 - 0.5) = -2/3, S = 3, alpha = 1/|S - 1/2| = 0.4
    assert rmb.diskmargin(G, omega=[np.pi / 0.1]).alpha == pytest.approx(0.4, rel=1e-12)
