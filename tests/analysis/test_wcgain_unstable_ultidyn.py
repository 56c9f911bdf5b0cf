"""wcgain of a loop that an ``ultidyn`` destabilises: infinite bounds, a destabilising system.

Reference: the small-gain theorem, exact for one SISO complex block: the loop
``S = 1 / (1 + P (1 + W Delta) C)`` is robustly stable for every ``||Delta|| <= 1`` iff
``||W T||_inf < 1`` with ``T`` the nominal complementary sensitivity; here the peak is
about 4 (dense grid).  The destabilising ``Delta`` returned is checked by the poles of
the loop rebuilt with python-control.
"""

import control
import numpy as np

import robustmb as rmb


def test_an_ultidyn_that_destabilises_gives_infinite_bounds_and_a_destabilising_system():
    m1, m2, k, b = 1.0, 0.5, 20.0, 0.2
    a = [[0, 0, 1, 0], [0, 0, 0, 1], [-k / m1, k / m1, -b / m1, b / m1]]
    a.append([k / m2, -k / m2, b / m2, -b / m2])
    plant = control.ss(a, [[0], [0], [1 / m1], [0]], [[1, 0, 0, 0]], 0)
    s = control.tf("s")
    weight = 0.2 * (s + 2) / (s / 40 + 1)
    ctrl = 30 * (1 + 0.8 * s / (1 + 0.02 * s))
    t_nom = control.feedback(plant * ctrl, 1)
    w = np.logspace(-2, 4, 20001)
    assert np.max(np.abs((weight * t_nom)(1j * w))) > 3.0  # not robustly stable
    delta = rmb.ultidyn("Din", 1, bound=1.0)
    sens = rmb.feedback(1, plant * (1 + weight * delta) * ctrl)
    res = rmb.wcgain(sens)  # used to raise TypeError formatting the system-valued worst case
    assert res.lower == np.inf and res.upper == np.inf
    assert "Din = an LTI system with" in res.reason
    worst = res.worst["Din"]
    assert np.max(np.abs(control.frequency_response(worst, w).magnitude)) <= 1.0 + 1e-9
    loop = control.feedback(1, plant * (1 + weight * worst) * ctrl)
    assert np.max(np.linalg.eigvals(control.ss(loop).A).real) > 0
