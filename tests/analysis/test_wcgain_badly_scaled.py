"""wcgain on a closed loop whose LFT is badly scaled at high frequency.

MathWorks' two-mass example (https://www.mathworks.com/help/robust/ref/dynamicsystem.wcgain.html)
written as in MATLAB, ``C = 100*ss(...)^3; T = feedback(P*C, 1)``: the coefficient matrix
spans 1e-13 .. 3.6e10 near 1000 rad/s, where the fast mu bound was four times mu, and
the certified upper bound 2.3157 for a worst-case gain of 1.0475.  Reference: a brute
force over the corners of the box and a dense grid with python-control.
"""

import control
import numpy as np
import pytest

import robustmb as rmb


def _two_mass():
    s = control.tf("s")
    m1 = rmb.ureal("m1", 1.0, percent=20)
    m2 = rmb.ureal("m2", 1.0, percent=20)
    k = rmb.ureal("k", 1.0, percent=20)
    G1 = control.ss(1 / s**2) / m1
    G2 = control.ss(1 / s**2) / m2
    F = rmb.vstack(0, G1) * rmb.hstack(1, -1) + rmb.vstack(1, -1) * rmb.hstack(0, G2)
    P = rmb.lft_lower(F, k)
    C3 = control.ss((s + 1) / (0.001 * s + 1)) ** 3
    return rmb.feedback(P * (100 * C3), 1)


def _brute_force_peak():
    s = control.tf("s")
    C = 100 * ((s + 1) / (0.001 * s + 1)) ** 3
    w = np.logspace(-2, 4, 4001)
    best = 0.0
    for m1 in (0.8, 1.2):
        for m2 in (0.8, 1.2):
            for k in (0.8, 1.2):
                # force on one mass, position of the other, spring k between them
                P = k / (m1 * m2 * s**4 + k * (m1 + m2) * s**2)
                T = control.feedback(P * C, 1)
                resp = control.frequency_response(T, w)
                best = max(best, float(np.max(np.abs(resp.complex))))
    return best


@pytest.mark.slow
def test_wcgain_bracket_on_the_badly_scaled_two_mass_loop():
    reference = _brute_force_peak()
    assert 1.04 < reference < 1.06
    wc = rmb.wcgain(_two_mass())
    assert wc.certified
    assert wc.lower <= reference * (1 + 1e-6)
    assert wc.lower >= reference * (1 - 1e-3)
    assert wc.upper >= reference
    # 2.3157 before
    assert wc.upper < 1.5
