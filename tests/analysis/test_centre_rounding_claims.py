"""A centre loop whose computed poles double precision cannot resolve gets no certified
stability or instability claim from wcgain, robgain or robstab.

The loop: a 4-state matrix ``A0`` in a basis with ``cond(A0) = 2.3e17``, exactly stable
(the largest real part of its poles, from 60-digit arithmetic on the stored floats, is
-0.0641), whose computed poles are 4461 and 0.80 besides two stable ones; one ``ureal``
moves it through a rank-one term.  wcgain called it unstable at the centre with a
certificate (lower = upper = inf), robgain gave a certified margin 0.
"""

import control
import mpmath
import numpy as np
import pytest

import robustmb as rmb

A0 = np.array(
    [
        [73559441272.96548, 14890300713.187067, -87435741944.5596, -308153015551.5426],
        [6856164865.869401, 1387719800.073074, -8149702899.389697, -28722352520.868797],
        [902406133457.0803, 182668285434.4004, -1072638781795.3379, -3780341108397.6665],
        [-238159175310.49628, -48209008350.378075, 283086283326.8672, 997691620614.6224],
    ]
)
B1 = np.array(
    [-4.789761465862727e-07, 1.3026385202868113e-06, -3.230330973704696e-08, 6.924654551448665e-08]
)
C1 = np.array([2.5126552433808187, -2.700001364583778, 1.0514045179277818, 2.6124835723665933])


def _loop():
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    return rmb.uss(A0 + k * np.outer(B1, C1), np.ones((4, 1)), np.ones((1, 4)), np.zeros((1, 1)))


def _max_real_part(a):
    """Largest real part of the eigenvalues of the stored floats, in 60 digits."""
    with mpmath.workdps(60):
        return max(
            mpmath.re(z) for z in mpmath.eig(mpmath.matrix(a.tolist()), left=False, right=False)
        )


def test_the_centre_is_stable_but_its_computed_poles_say_otherwise():
    ss, _ = rmb.lftdata(_loop())
    a = np.asarray(ss.A)
    assert np.array_equal(a, A0)
    assert _max_real_part(a) < -0.06  # exactly stable
    assert np.max(np.linalg.eigvals(a).real) > 0  # double precision says unstable


def test_wcgain_claims_no_certified_instability_on_a_stable_centre():
    res = rmb.wcgain(_loop())
    assert not (res.certified and res.upper == np.inf)
    assert not res.certified
    assert res.lower <= res.upper
    assert "rounding" in res.reason and "no bound is certified" in res.reason


def test_robgain_claims_no_certified_zero_margin_on_a_stable_centre():
    res = rmb.robgain(_loop(), 10.0)
    assert not (res.certified and res.upper == 0.0)
    assert not res.certified
    assert res.lower == 0.0 and res.upper == np.inf


def test_robstab_claims_no_certified_instability_on_a_stable_centre():
    res = rmb.robstab(_loop(), sensitivity=False)
    assert not (res.certified and res.upper == 0.0)
    assert res.lower == 0.0


@pytest.mark.parametrize("dt", [0.0, 0.1])
def test_a_clearly_unstable_centre_is_still_certified_unstable(dt):
    k = rmb.ureal("k", 0.0, range=(-0.1, 0.1))
    pole = 1.5 if dt else 1.0  # outside the unit circle / in the right half-plane
    loop = rmb.uss([[pole + k]], [[1.0]], [[1.0]], [[0.0]], dt=dt)
    g = rmb.wcgain(loop)
    assert g.certified and g.lower == g.upper == np.inf
    r = rmb.robgain(loop, 2.0)
    assert r.certified and r.lower == r.upper == 0.0
    s = rmb.robstab(loop, sensitivity=False)
    assert s.certified and s.lower == s.upper == 0.0


def test_an_ordinary_loop_keeps_its_worst_case_gain():
    # k / (s + 1), k in [0.5, 1.5]: the worst-case peak gain is 1.5 at w = 0
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    res = rmb.wcgain(k / (s + 1))
    assert res.certified
    assert res.lower == pytest.approx(1.5, rel=1e-9)
    assert 1.5 <= res.upper <= 1.5 * 1.006


# A 4-state loop exactly unstable at the centre (60-digit largest real part +0.0098)
# whose computed poles all lie in the open left half-plane, within rounding of the axis.
A_UNSTABLE = np.array(
    [
        [2300151.629146222, 1714249.5614642242, -4247157.824381433, -1309151.301761197],
        [1482454.5435205505, 1104880.954878828, -2737404.8491274873, -843754.90207432],
        [496496.64922897425, 370046.5939319899, -916810.6330599048, -282586.76269878447],
        [4371760.508472388, 3258164.3392859697, -8072301.852668122, -2488224.9795705457],
    ]
)
B_UNSTABLE = np.array(
    [-7.952924474912315e-10, 3.8648602566573896e-08, -3.440458000151995e-09, 2.556906880420588e-08]
)
C_UNSTABLE = np.array(
    [-2.853984402363616, 4.276692258883681, -1.4671166382349239, -0.8698824418760454]
)


def test_a_centre_proved_unstable_behind_stable_computed_poles_says_so():
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    loop = rmb.uss(
        A_UNSTABLE + k * np.outer(B_UNSTABLE, C_UNSTABLE),
        np.ones((4, 1)),
        np.ones((1, 4)),
        np.zeros((1, 1)),
    )
    assert _max_real_part(A_UNSTABLE) > 0.009  # exactly unstable
    assert np.max(np.linalg.eigvals(A_UNSTABLE).real) < 0  # double precision says stable
    g = rmb.wcgain(loop)
    assert g.certified and g.lower == g.upper == np.inf
    assert "exact integer test" in g.reason and "0 pole(s)" not in g.reason
    s = rmb.robstab(loop, sensitivity=False)
    assert s.certified and s.lower == s.upper == 0.0
