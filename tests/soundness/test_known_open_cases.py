"""Certificates found false by the second review of stop 41, with exact references.

Data and source in ``tests/data/known_open_soundness_cases.json``; both were already false
before that stop.  The references are exact: mpmath at 60 digits on the stored doubles,
sharing no code with the package.  Both are fixed: the robstab case (a lower bound 1.70e-9
above the exact margin 1.397e-9 on a loop with ``cond(A0) = 1.3e16``) now gives
``lower = 0``, its centre poles being within rounding of the boundary
(:mod:`robustmb.analysis.robstab_rounding`).  The discrete loop with poles ``1e-10``
inside the unit circle (a lower bound 6.05516 above its exact margin 6.05214) is fixed
too: no frequency interval is extended into the window of a pole that close to the
boundary (:func:`robustmb.analysis.frequency_intervals._unresolved_windows`).
"""

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest

import robustmb as rmb

DATA = json.loads(
    (
        Path(__file__).resolve().parent.parent / "data" / "known_open_soundness_cases.json"
    ).read_text()
)


def test_robstab_lower_bound_on_a_numerically_singular_loop():
    d = {key: np.array(val) for key, val in DATA["singular_loop"].items()}
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    loop = rmb.uss(d["A0"] + k * (d["u"] @ d["v"]), d["B"], d["C"], np.zeros((1, 1)))
    # exact: det(sI - A0 - k u v) vanishes at s = 0 for k = 1 / (v (-A0)^-1 u)
    with mpmath.workdps(60):
        a0 = mpmath.matrix(d["A0"].tolist())
        g0 = (
            mpmath.matrix(d["v"].tolist()) * mpmath.lu_solve(-a0, mpmath.matrix(d["u"].tolist()))
        )[0]
        crossing = float(abs(1 / g0))
    assert crossing == pytest.approx(1.39745e-9, rel=1e-5)
    res = rmb.robstab(loop, sensitivity=False)
    assert res.lower <= crossing  # was 1.70e-9: the sweep's responses are rounding
    assert res.lower == 0.0 and "no margin is proved" in res.reason
    assert res.upper >= crossing
    if np.isfinite(res.upper):
        # the witness is exactly unstable: det(-A0 - k u v) = det(-A0) (1 - k g0) < 0 with
        # det(-A0) > 0 gives a real pole in the right half-plane
        kv = mpmath.mpf(res.destabilizing["k"])
        with mpmath.workdps(60):
            assert mpmath.det(-a0) > 0 and 1 - kv * g0 < 0


def _two_real_scalar_mu(m):
    """Exact mu of a complex 2x2 M for two real scalar blocks: the real (d1, d2) of least
    max(|d1|, |d2|) with det(I - M diag(d1, d2)) = 0 (real and imaginary parts)."""
    with mpmath.workdps(60):
        M = [[mpmath.mpc(complex(m[i, j])) for j in range(2)] for i in range(2)]
        det = M[0][0] * M[1][1] - M[0][1] * M[1][0]
        a11, a22, dr = M[0][0].real, M[1][1].real, det.real
        b11, b22, di = M[0][0].imag, M[1][1].imag, det.imag
        # imaginary part: d2 = b11 d1 / (di d1 - b22); the real part then gives
        # (1 - a11 d1)(di d1 - b22) - a22 b11 d1 + dr b11 d1^2 = 0, a quadratic in d1
        c2 = -a11 * di + dr * b11
        c1 = di + a11 * b22 - a22 * b11
        c0 = -b22
        best = mpmath.inf
        for d1 in mpmath.polyroots([c2, c1, c0]):
            if abs(mpmath.im(d1)) > mpmath.mpf(10) ** -40:
                continue
            d1 = mpmath.re(d1)
            d2 = b11 * d1 / (di * d1 - b22)
            best = min(best, max(abs(d1), abs(d2)))
        return float(1 / best)


#: A second nearly real matrix (imaginary parts 7e-15 … 1.3e-12) of the same review:
#: lower bound 2.2510968 where the exact mu is 2.2109852.
SECOND_NEARLY_REAL = np.array(
    [
        [1.0536953270047678 + 7.435714205585089e-15j, 0.7595242411251244 - 3.349931292186858e-14j],
        [
            -1.5700699101143192 - 1.2876524872303885e-12j,
            -1.2551851583545754 + 7.474152998469893e-13j,
        ],
    ]
)


@pytest.mark.parametrize("case", ["stored", "second"])
def test_mussv_lower_bound_on_a_nearly_real_matrix(case):
    # Fixed in stop 41: the real part's mu (0.07342525, 2.2510968) was taken as a lower
    # bound of the complex M's (exact 0.0702309, 2.2109852: real mu is discontinuous in M)
    # when the exact two-scalar check found no root near the search's perturbation.
    if case == "stored":
        m = np.array(DATA["nearly_real_M"]["re"]) + 1j * np.array(DATA["nearly_real_M"]["im"])
        expected = 0.0702309
    else:
        m, expected = SECOND_NEARLY_REAL, 2.2109852
    exact = _two_real_scalar_mu(m)
    assert exact == pytest.approx(expected, rel=1e-6)
    res = rmb.mussv(m, [(-1, 0), (-1, 0)])
    assert res.lower <= exact * (1 + 1e-12) <= res.upper * (1 + 1e-12)


def test_robstab_lower_bound_on_a_discrete_loop_near_the_unit_circle():
    d = DATA["discrete_near_circle"]
    A0, u, v = (np.array(d[key]) for key in ("A0", "u", "v"))
    # exact reference, no package code: at k the loop A0 + k u v has a pole outside the
    # unit circle (mpmath, 100 digits), so the margin is at most |k|
    k_bad = d["unstable_k"]
    with mpmath.workdps(100):
        M = mpmath.matrix(A0.tolist()) + mpmath.mpf(k_bad) * (
            mpmath.matrix(u.tolist()) * mpmath.matrix(v.tolist())
        )
        radius = max(abs(z) for z in mpmath.eig(M, left=False, right=False))
        assert radius > 1
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    loop = rmb.uss(A0 + k * (u @ v), np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1)), dt=d["dt"])
    res = rmb.robstab(loop, sensitivity=False)
    # was 6.05516 (exact margin 6.05214): a multiplier was extended across the sliver of
    # the resonance where the real-mu peak sits; no interval now enters the window of a
    # pole that close to the circle, so no whole-axis bound is claimed
    assert res.lower <= abs(k_bad)
