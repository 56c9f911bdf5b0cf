"""robstab / wcgain / robgain reduce redundant occurrences before the analysis.

Reference: a 3-state matrix ``A(a, b)`` written entry by entry (every entry repeats the
elements), whose robust stability margin is found by brute force: bisection on the
scaling ``alpha`` of the box, with the eigenvalues of ``A`` on a dense grid of the box's
boundary (the smallest destabilising box has its crossing on its boundary).
"""

import numpy as np
import pytest

import robustmb as rmb

A0 = np.array(
    [
        [-1.7066840090091842, 0.6404226504432821, 0.10490011715303971],
        [-0.535669373161111, -1.2129840908083973, 1.3040000451301372],
        [0.9470809631292422, -0.7037352358069926, -2.840000616763935],
    ]
)
A1 = np.diag([-2.3250307746388343, -0.5442589828573099, 0.0])
A2 = np.array(
    [
        [0.0, -0.15922500991447772, 0.0],
        [0.2146591225063409, 0.3553727090399214, 0.0],
        [-0.12961363369276946, 0.0, 1.4934311452207607],
    ]
)
A22 = np.array(
    [
        [-0.00445413312008323, 0.6564749350763358, 0.0],
        [0.39512206018200824, 0.0, 0.6960427239628685],
        [0.0, -0.6617025720390349, -0.43643524714322124],
    ]
)


def _entry_by_entry():
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    b = rmb.ureal("b", -2.0, range=(-4.0, 0.0))
    qa, qb = (a - 1.0) / 0.5, (b + 2.0) / 2.0
    rows = [
        [A0[i, j] + A1[i, j] * qa + A2[i, j] * qb + A22[i, j] * qb * qb for j in range(3)]
        for i in range(3)
    ]
    return rmb.uss(rmb.umat(rows), np.eye(3)[:, :1], np.eye(3)[:1], np.zeros((1, 1)))


def _brute_force_margin():
    t = np.linspace(-1.0, 1.0, 4001)
    one = np.ones_like(t)
    edges = np.concatenate([np.stack([t, one], 1), np.stack([t, -one], 1), np.stack([one, t], 1)])
    edges = np.concatenate([edges, np.stack([-one, t], 1)])

    def unstable(alpha):
        qa, qb = alpha * edges[:, 0], alpha * edges[:, 1]
        mats = A0 + qa[:, None, None] * A1 + qb[:, None, None] * (A2 + qb[:, None, None] * A22)
        return np.linalg.eigvals(mats).real.max() >= 0

    lo, hi = 0.0, 4.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if unstable(mid) else (mid, hi)
    return hi


def test_robstab_of_a_model_written_entry_by_entry_reduces_and_brackets_the_margin():
    usys = _entry_by_entry()
    assert usys.blocks["a"] >= 2 and usys.blocks["b"] >= 10  # every entry repeats them
    margin = _brute_force_margin()  # 0.62156 (the grid finds a point at most this far)
    rs = rmb.robstab(usys, sensitivity=False)
    assert rs.lower <= margin * (1 + 1e-6) and margin <= rs.upper * (1 + 1e-3)
    assert rs.upper / rs.lower - 1 < 5e-3
    # the destabilising values, substituted in the model as written, put a pole on the axis
    poles = np.linalg.eigvals(usys.usubs(rs.destabilizing).A)
    assert abs(poles.real.max()) < 1e-6


def test_elements_the_model_does_not_depend_on_are_reported_at_their_nominal_values():
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    q = rmb.ureal("q", 2.0, range=(1.0, 3.0))
    usys = rmb.uss([[-a + 0 * q * q]], [[1.0]], [[1.0]], [[0.0]])
    assert usys.blocks == {"a": 1, "q": 2}
    rs = rmb.robstab(usys)
    assert rs.destabilizing["q"] == 2.0 and rs.sensitivity["q"] == 0.0
    assert rs.lower == pytest.approx(2.0, rel=5e-3)  # a = 0 at twice the half-width
    wc = rmb.wcgain(usys)
    assert wc.worst["q"] == 2.0 and wc.worst["a"] == pytest.approx(0.5)
    assert wc.lower == pytest.approx(2.0, rel=1e-9)  # 1 / a at a = 0.5
    sys = usys.usubs(wc.worst)  # a complete substitution: a plain system
    assert sys.A[0, 0] == pytest.approx(-0.5)
    rg = rmb.robgain(usys, 1.5)
    assert rg.worst["q"] == 2.0
