"""The reduction robstab / wcgain / robgain apply never changes the map they certify.

``A(k) = A0 + g (k r1) - g (k r2)`` with ``g = [1e8, 0]^T``, ``r1 = [1 + 1e-14, 1]``,
``r2 = [1, 1]``: the element enters ``A[0, 0]`` through a direction that is 1e-14 on the
input side and 1e8 on the output side, ``A00 = -4e-7 + 1e-6 k``.  References are brute
force over ``k`` with numpy on the user's matrices.
"""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.occurrence_reduction import reduce_occurrences

G = np.array([[1e8], [0.0]])
R1, R2 = np.array([[1.0 + 1e-14, 1.0]]), np.array([[1.0, 1.0]])
A0 = np.array([[-4e-7, 1.0], [-1.0, -4e-7]])
B, C = np.array([[300.0], [0.0]]), np.array([[300.0, 0.0]])


def _model(k):
    return rmb.uss(A0 + (G @ (k * R1) - G @ (k * R2)), B, C, np.zeros((1, 1)))


def _a_user(kv):
    return A0 + G @ (kv * R1) - G @ (kv * R2)


def test_robstab_certificate_holds_against_brute_force():
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    model = _model(k)
    reduced, dropped = reduce_occurrences(model)
    # the reduction would change A00 by more than its rounding: the model is kept
    assert reduced.blocks == model.blocks and dropped == {}
    ks = np.linspace(-1.0, 1.0, 20001)
    unstable = [kv for kv in ks if np.linalg.eigvals(_a_user(kv)).real.max() > 0]
    margin = min(abs(kv) for kv in unstable)  # 0.7945
    res = rmb.robstab(model)
    assert res.lower <= margin
    if res.certified and np.isfinite(res.upper):
        assert margin <= res.upper * (1 + 1e-3)


def _peak(a):
    """Peak gain near the lightly damped mode (the peak is within 1e-6 rad/s of it)."""
    w0 = abs(np.linalg.eigvals(a).imag).max()
    ws = w0 + np.linspace(-2e-6, 2e-6, 4001)
    return max(abs((C @ np.linalg.solve(1j * w * np.eye(2) - a, B))[0, 0]) for w in ws)


@pytest.mark.slow
def test_wcgain_certificate_holds_against_brute_force():
    k = rmb.ureal("k", 0.0, range=(-1.0, 0.5))
    model = _model(k)
    brute = max(_peak(_a_user(kv)) for kv in np.linspace(-1.0, 0.5, 31))  # 2.969e11
    res = rmb.wcgain(model)
    if res.certified:
        assert res.upper >= brute * (1 - 1e-3)
    # lower is the gain of worst, a point of the box
    assert res.lower <= brute * (1 + 1e-3) or res.lower == np.inf


def test_an_element_that_cancels_exactly_is_dropped_at_its_nominal_value():
    k = rmb.ureal("k", 2.0, range=(1.5, 3.0))
    c = rmb.ureal("c", 0.4, range=(0.2, 0.6))
    z = rmb.ureal("z", 5.0, range=(4.0, 7.0))  # enters as z - z only
    model = rmb.uss([[0.0, 1.0], [-k, -c + (z - z)]], [[0.0], [k]], [[1.0, 0.0]], [[0.0]])
    reduced, dropped = reduce_occurrences(model)
    assert dropped == {"z": 5.0} and "z" not in reduced.blocks
    for kv, cv in [(1.5, 0.2), (3.0, 0.6), (2.2, 0.3)]:
        a = np.asarray(reduced.usubs({"k": kv, "c": cv}).A)
        np.testing.assert_allclose(a, [[0.0, 1.0], [-kv, -cv]], rtol=1e-14, atol=1e-15)
    wc = rmb.wcgain(model)
    assert wc.worst["z"] == 5.0
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0)
    assert reduce_occurrences(b - b + 3 * a)[1] == {"b": 2.0}


def test_unstable_centre_reports_the_centre_values_as_worst():
    k = rmb.ureal("k", 1.0, range=(-0.5, 3.0))
    m = rmb.ureal("m", 1.0, range=(0.5, 1.5))
    model = rmb.uss([[1.0, 1.0], [-k * m, -0.5 * m]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])
    centre = {"k": 1.25, "m": 1.0}
    # the loop at the centre, by numpy: unstable
    assert np.linalg.eigvals(np.array([[1.0, 1.0], [-1.25, -0.5]])).real.max() > 0
    wc = rmb.wcgain(model)
    assert wc.lower == wc.upper == np.inf
    assert wc.worst == pytest.approx(centre)
    rg = rmb.robgain(model, 5.0)
    assert rg.lower == rg.upper == 0.0
    assert rg.worst == pytest.approx(centre)


def test_an_entry_small_beside_its_row_and_column_is_kept():
    # A[1, 0] = 1e8 (1 + 5e-15) k - 1e8 k = 5.07e-7 k beside A[0, 1] = 1e7 and B, C entries
    # of 1e8: the entry decides stability (unstable from k = 0.193 at m = 0), so dropping
    # it certified a margin of 9.995.  Reference: numpy eigenvalues of the user's matrices.
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    m = rmb.ureal("m", 0.0, range=(-1.0, 1.0))
    g = np.array([[0.0], [1e8]])
    r1, r2 = np.array([[1.0 + 5e-15, 1.0]]), np.array([[1.0, 1.0]])
    a0, e = np.array([[-1.0, 1e7], [0.0, -1.0]]), np.array([[0.1, 0.0], [0.0, 0.0]])
    b, c = np.array([[0.0], [1e8]]), np.array([[1e8, 0.0]])
    usys = rmb.uss(a0 + e * m + (g @ (k * r1) - g @ (k * r2)), b, c, np.zeros((1, 1)))
    assert reduce_occurrences(usys)[0].blocks["k"] == 2

    def unstable(kv):
        a = a0 + g @ (kv * r1) - g @ (kv * r2)
        return np.linalg.eigvals(a).real.max() > 0

    ks = np.linspace(0.0, 1.0, 2001)
    first = ks[np.argmax([unstable(kv) for kv in ks])]
    assert 0.19 < first < 0.2
    res = rmb.robstab(usys, sensitivity=False)
    assert res.lower <= first
