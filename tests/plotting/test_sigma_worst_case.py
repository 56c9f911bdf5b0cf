"""plotting.sigma with a wcgain result draws the certified bound and the worst-case dot."""

import control
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import robustmb as rmb  # noqa: E402
from robustmb import plotting  # noqa: E402


@pytest.mark.parametrize(("dB", "Hz"), [(False, False), (True, True)])
def test_sigma_draws_the_worst_case_dot(dB, Hz):
    c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    s = control.tf("s")
    G = 1 / (s**2 + c * s + 1)
    res = rmb.wcgain(G)
    out = plotting.sigma(G, n=2, seed=0, worst=res, dB=dB, Hz=Hz)
    (dot,) = out.lines["peak"]
    x, y = dot.get_xdata()[0], dot.get_ydata()[0]
    wc = res.critical_frequency
    assert x == pytest.approx(wc / (2 * np.pi) if Hz else wc, rel=1e-12)
    # the dot is the gain of the worst case at its frequency (python-control evaluation)
    cw = res.worst["c"]
    gain = abs(control.evalfr(control.tf([1.0], [1.0, cw, 1.0]), 1j * wc))
    assert (10 ** (y / 20) if dB else y) == pytest.approx(gain, rel=1e-9)
    # 1 / (s^2 + c s + 1) peaks at 1 / (c sqrt(1 - c^2 / 4)): the dot is below the bound
    assert gain <= res.upper
    assert len(out.lines["bound"]) == 1
