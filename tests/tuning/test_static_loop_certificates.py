"""Goal certificates of tuned loops without states: ``loop_stability`` proves the
well-posedness (and, with ``ultidyn`` elements, the stability) of a static loop by mu of
its constant LFT coefficient, or no goal is certified.  Margins are checked against
the closed forms of scalar loops ``1 / (1 + k delta)``, and a destabilising ``ultidyn``
value is checked by python-control's poles of the substituted loop."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.tuning.systune_result import NOT_ROBUSTLY_STABLE, certify_goals, loop_stability


def _one():
    return rmb.uss(control.ss([], [], [], [[1.0]]))


def _loop(z):
    """``[y; z]`` from ``r``: goal path ``y = (1 + 0.1 c) r``, ``c`` in [0.5, 1.5]
    (worst gain 1.15), beside a static loop ``z`` that no goal sees."""
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    T = rmb.vstack((1 + 0.1 * c) * _one(), z)
    T.input_names = ["r"]
    T.output_names = ["y", "z"]
    return T


def _certify(T):
    return certify_goals(T, [rmb.tuning.WeightedGain("r", "y")], rmb.wcgain)


def test_static_ultidyn_loop_that_can_be_destabilised_is_not_certified():
    # z = 1 / (1 + 2 D): 1 + 2 D(s) = 0 at |D| = 1/2, so the margin is 0.5
    T = _loop(rmb.feedback(_one(), 2 * rmb.ultidyn("D", (1, 1))))
    assert T.nstates == 0
    certs, stab = _certify(T)
    assert not certs[0].certified
    assert certs[0].upper == np.inf
    assert certs[0].reason.startswith(NOT_ROBUSTLY_STABLE)
    assert stab.lower <= 0.5 <= stab.upper
    assert stab.upper == pytest.approx(0.5, rel=1e-6)
    assert "D" in stab.reason
    # an admissible D (||D||_inf = 0.6 <= 1) with an unstable closed loop
    dv = control.ss(control.tf([0.6, -0.6], [1.0, 1.0]))
    assert rmb.hinfnorm(dv)[0] <= 1.0
    poles = np.linalg.eigvals(control.ss(rmb.usubs(T, {"D": dv, "c": 1.0})).A)
    assert np.max(poles.real) > 0
    # same loop closed by python-control: pole at 1/11
    zz = control.feedback(control.ss([], [], [], [[1.0]]), 2 * dv)
    assert np.linalg.eigvals(zz.A).real.max() == pytest.approx(1 / 11)


def test_systune_does_not_certify_the_reviewed_static_ultidyn_loop():
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    K = rmb.tunable_gain("K", 1, 1, value=[[1.0]])
    T = rmb.vstack((1 + 0.1 * c) * K, rmb.feedback(_one(), 2 * rmb.ultidyn("D", (1, 1))))
    T.input_names = ["r"]
    T.output_names = ["y", "z"]
    res = rmb.systune(T, rmb.tuning.WeightedGain("r", "y"), seed=0)
    cert = res.certified[0]
    assert not cert.certified
    assert cert.upper == np.inf
    assert res.robust_stability is not None
    assert res.robust_stability.upper == pytest.approx(0.5, rel=1e-6)


def test_static_ultidyn_loop_with_a_small_gain_keeps_its_certificate():
    # z = 1 / (1 + 0.4 D): |0.4 D| <= 0.4 < 1, margin 2.5
    T = _loop(rmb.feedback(_one(), 0.4 * rmb.ultidyn("D", (1, 1))))
    certs, stab = _certify(T)
    assert stab.lower > 1.0
    assert stab.lower <= 2.5 <= stab.upper
    assert stab.lower == pytest.approx(2.5, rel=1e-6)
    assert certs[0].certified
    assert certs[0].lower <= 1.15 + 1e-9 <= certs[0].upper + 2e-9
    assert certs[0].upper == pytest.approx(1.15, rel=1e-2)


def test_static_ureal_loop_singular_inside_the_box_is_not_certified():
    # z = 1 / (1 + a), a in [-1.5, 0.5]: singular at a = -1, normalised
    # a = -0.5 + delta, so the margin is 0.5 (delta = -0.5)
    a = rmb.ureal("a", -0.5, range=(-1.5, 0.5))
    T = _loop(rmb.feedback(_one(), a))
    certs, stab = _certify(T)
    assert not certs[0].certified
    assert certs[0].upper == np.inf
    # the certified side of the margin is below the closed form 0.5, and tight
    assert stab.lower <= 0.5 <= stab.upper
    assert stab.lower == pytest.approx(0.5, rel=1e-6)


def test_static_ureal_loop_well_posed_on_the_box_keeps_its_certificate():
    # z = 1 / (1 + a), a in [0, 1]: a = 0.5 + 0.5 delta, singular at delta = -3
    a = rmb.ureal("a", 0.5, range=(0.0, 1.0))
    T = _loop(rmb.feedback(_one(), a))
    res, proved = loop_stability(T)
    assert proved
    assert res.lower <= 3.0 <= res.upper
    assert res.lower == pytest.approx(3.0, rel=1e-6)
    certs, _ = _certify(T)
    assert certs[0].certified
    assert certs[0].lower <= 1.15 + 1e-9 <= certs[0].upper + 2e-9
    assert certs[0].upper == pytest.approx(1.15, rel=1e-2)


def test_static_loop_margin_scales_with_the_ultidyn_bound():
    # 1 + 2 D = 0 at |D| = 0.5; with ||D|| <= 0.4 the normalised margin is 0.5 / 0.4
    T = rmb.feedback(_one(), 2 * rmb.ultidyn("D", (1, 1), bound=0.4))
    res, proved = loop_stability(T)
    assert proved
    assert res.lower <= 1.25 <= res.upper
    assert res.lower == pytest.approx(1.25, rel=1e-6)


def test_static_loop_with_a_full_ultidyn_block_has_the_small_gain_margin():
    # I + M D singular for a full 2x2 D first at ||D|| = 1 / sigma_max(M)
    m = np.array([[0.3, 0.2], [0.1, 0.4]])
    eye = rmb.uss(control.ss([], [], [], np.eye(2)))
    T = rmb.feedback(eye, rmb.uss(control.ss([], [], [], m)) * rmb.ultidyn("D", (2, 2)))
    res, proved = loop_stability(T)
    margin = 1.0 / np.linalg.svd(m, compute_uv=False)[0]
    assert proved
    assert res.lower <= margin * (1 + 1e-12) and margin <= res.upper * (1 + 1e-12)
    assert res.lower == pytest.approx(margin, rel=1e-6)
