"""robstab on loops whose centre poles double precision cannot tell from the boundary.

A pole within rounding of the unit circle (a discrete Euler model of a very slow pole)
used to stop robstab with ``IllPosedError`` (the mu sweep evaluated ``M`` "on" that
pole); such loops now give ``lower = 0`` with a reason naming the pole, and an ``upper``
realised by a perturbation that puts a pole beyond the boundary by more than its
rounding error.  Every check is exact: rational arithmetic on the stored doubles.
"""

from fractions import Fraction

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.robstab_rounding import unresolved_centre
from robustmb.analysis.uncertain_problem import uncertain_problem

POLE = 1 - 2**-52  # |z| = 1 - 2.2e-16: an Euler step of a pole at -2.2e-14 / dt


def _coupled_loop():
    """``A(k) = [[POLE, 0.01], [1e-4 k, 0]]``: ``det(zI - A) = z^2 - POLE z - 1e-6 k``."""
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    a0 = np.array([[POLE, 0.01], [0.0, 0.0]])
    u = np.array([[0.0, 0.0], [1e-4, 0.0]])
    b, c = np.array([[1.0], [0.0]]), np.array([[1.0, 0.0]])
    return rmb.uss(a0 + k * u, b, c, np.zeros((1, 1)), dt=0.01)


def _exact_unstable_2x2(a):
    """A real 2x2 matrix has an eigenvalue > 1 when ``det(I - A) < 0`` (exactly)."""
    f = [[Fraction(float(x)) for x in row] for row in a]
    return (1 - f[0][0]) * (1 - f[1][1]) - f[0][1] * f[1][0] < 0


def test_discrete_pole_within_rounding_of_the_unit_circle_gives_lower_zero():
    loop = _coupled_loop()
    # exact margin: the real root through z = 1 at k = (1 - POLE) / fl(0.01 * 1e-4)
    # (z = -1 needs k = 2e6; a complex pair needs |z|^2 = -1e-6 k = 1)
    exact = float((1 - Fraction(POLE)) / (Fraction(0.01) * Fraction(1e-4)))
    assert exact == pytest.approx(2.220446e-10, rel=1e-6)
    res = rmb.robstab(loop, sensitivity=False)  # was IllPosedError
    assert res.lower == 0.0 <= exact
    assert "no margin is proved" in res.reason and "|z| - 1 = -2.22e-16" in res.reason
    assert exact <= res.upper < np.inf
    # the witness: the substituted loop has a real pole beyond z = 1 (exact test)
    assert res.upper == pytest.approx(abs(res.destabilizing["k"]), rel=1e-12)
    assert _exact_unstable_2x2(np.asarray(loop.usubs(res.destabilizing).A))


def test_discrete_euler_model_with_a_slow_pole_the_uncertainty_does_not_reach():
    # x+ = (I + dt Ac(k)) x, a slow pole 1 - 2.2e-16 beside a damped mode moved by k
    dt = 0.01
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    ac = np.array([[-2e-14, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -4.0, -0.4]])
    shift = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, -dt, 0.0]])
    a = np.eye(3) + dt * ac
    assert abs(a[0, 0]) == POLE
    loop = rmb.uss(a + k * shift, np.array([[1.0], [0], [1]]), np.array([[1.0, 1, 0]]),
                   np.zeros((1, 1)), dt=dt)  # fmt: skip
    # the mode's block [[1, dt], [-(4 + k) dt, 1 - 0.4 dt]]: a root at z = 1 needs k = -4
    # (normalised 10); |z| = 1 for a complex pair needs (4 + k) dt^2 = 0.4 dt, k = 36 (70)
    res = rmb.robstab(loop, sensitivity=False)  # was IllPosedError
    assert 0.0 <= res.lower <= 10.0 <= res.upper * (1 + 1e-9)
    assert "1 pole(s) within their rounding error" in res.reason


def test_a_band_on_such_a_loop_gives_lower_zero_and_no_upper():
    res = rmb.robstab(_coupled_loop(), band=(1.0, 100.0))
    assert res.lower == 0.0 and res.upper == np.inf
    assert "no search on a band" in res.reason


def test_a_pole_near_the_axis_placed_by_a_verified_inclusion_keeps_its_certificate():
    # Re s = -1e-17 is inside its rounding band, but the triangular matrix's poles are
    # placed exactly by the Gershgorin inclusion: the mu sweep's bound stands, below the
    # exact margin 1e-17 (det(-A(k)) = -1e-17 * -1 - k vanishes at k = 1e-17)
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    a0, u = np.array([[-1e-17, 1.0], [0.0, -1.0]]), np.array([[0.0, 0.0], [1.0, 0.0]])
    loop = rmb.uss(a0 + k * u, np.array([[1.0], [1.0]]), np.array([[1.0, 1.0]]), np.zeros((1, 1)))
    assert unresolved_centre(uncertain_problem(loop)) is None
    res = rmb.robstab(loop, sensitivity=False)
    assert 0.0 < res.lower <= 1e-17


def test_well_conditioned_and_stiff_loops_are_not_flagged():
    c = rmb.ureal("c", 3.0, range=(2.0, 4.0))
    stiff = np.array([[-2.3e9, 1e9, 0.0], [0.0, -3.0, 1e4], [0.0, -1e-4, -3.0]])
    shift = np.diag([0.0, 1.0, 1.0])
    loop = rmb.uss(stiff + (3.0 - c) * shift, np.ones((3, 1)), np.ones((1, 3)), np.zeros((1, 1)))
    assert unresolved_centre(uncertain_problem(loop)) is None
    # the slow pair -3 + (3 - c) +- j reaches the axis at c = 0: normalised margin 3
    res = rmb.robstab(loop, sensitivity=False)
    assert 2.9 < res.lower <= 3.0 <= res.upper


#: A nearly defective 4-state matrix in a badly conditioned basis (cond 4.8e16): the
#: stored doubles are stable (poles -0.69 +- 9024j, -0.58 +- 0.25j to 150 digits), while
#: double precision computes poles 5193 and 0.27.
NEARLY_DEFECTIVE = [
    [25057558885.16496, -315266270853.41595, 49748250869.72139, 125457445221.20035],
    [53128125379.653824, -668441330002.0317, 105478407808.02486, 266000365285.04282],
    [48776592533.88466, -613691741880.0566, 96839053813.52693, 244213248578.12524],
    [109161114531.43309, -1373430737503.5527, 216724013218.0311, 546544717300.81244],
]
U = [[-2.9644924252799093e-11], [-1.4872531570711102e-11], [2.1822692131099065e-12],
     [1.1553906253209947e-10]]  # fmt: skip
V = [[0.6805109746331383, 0.3826002677279928, -0.5635713933532417, -1.3819687200064654]]


def test_a_centre_unstable_only_by_rounding_is_not_reported_unstable():
    import mpmath

    a0, u, v = np.array(NEARLY_DEFECTIVE), np.array(U), np.array(V)

    def max_real_pole(k):  # exact eigenvalues of the stored doubles (150 digits)
        with mpmath.workdps(150):
            m = mpmath.matrix(a0.tolist()) + mpmath.mpf(k) * mpmath.matrix(u.tolist()) * (
                mpmath.matrix(v.tolist())
            )
            return max(mpmath.re(z) for z in mpmath.eig(m, left=False, right=False))

    assert -0.7 < max_real_pole(0.0) < -0.5  # the centre is stable
    assert np.max(np.linalg.eigvals(a0).real) > 1.0  # double precision says otherwise
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    loop = rmb.uss(a0 + k * (u @ v), np.ones((4, 1)), np.ones((1, 4)), np.zeros((1, 1)))
    res = rmb.robstab(loop, sensitivity=False)
    # was: "unstable at the centre", lower = upper = 0 (the upper bound false)
    assert "unstable at the centre" not in res.reason
    assert res.lower == 0.0 and "no margin is proved" in res.reason
    assert res.upper > 0.0
    if np.isfinite(res.upper):
        assert max_real_pole(res.destabilizing["k"]) > 0
