"""Robust and sampled tuning: certificates cover the whole loop, goals on part of the
uncertainty, and runs that end with a violated worst case say so."""

import warnings

import control
import numpy as np
import pytest
from test_robust_tuning import _static_gain_loop, _unstable_pole_loop

import robustmb as rmb
from robustmb.tuning import WeightedGain

GOALS = (("d", "y", 2.5), ("r", "u", 0.25))


def _goals():
    return [WeightedGain(i, o, wl=w) for i, o, w in GOALS]


def _hidden_mode_loop(c_range):
    # Loop 1: G = 1 / (s - a) under the tunable K (every goal is on it).  Loop 2:
    # G2 = 1 / (s - c) under the fixed gain 2, its pole c - 2: unstable for c > 2,
    # whatever K.  No goal's transfer sees loop 2.
    s = control.tf("s")
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    c = rmb.ureal("c", 1.0, range=c_range)
    G = rmb.uss(1 / (s - a))
    G.input_names, G.output_names, G.name = ["v"], ["y"], "G"
    G2 = rmb.uss(1 / (s - c))
    G2.input_names, G2.output_names, G2.name = ["v2"], ["y2"], "G2"
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["e"], ["u"]
    S = control.ss(
        [],
        [],
        [],
        [[1, -1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, -2, 1]],
        name="S",
        inputs=["r", "y", "u", "d", "y2", "r2"],
        outputs=["e", "v", "v2"],
    )
    return rmb.connect([G, G2, K, S], None, ["r", "d", "r2"], ["y", "u", "y2"])


def _brute_force(k, a_hi=1.5):
    """Worst goal values over (a, w) from the closed-form transfers of loop 1."""
    av = np.linspace(0.5, a_hi, 401)[:, None]
    sw = 1j * np.r_[0.0, np.logspace(-3, 6, 3000)][None, :]
    return 2.5 * np.abs(1 / (sw + k - av)).max(), 0.25 * np.abs(k * (sw - av) / (sw + k - av)).max()


@pytest.mark.parametrize("robust", [True, False])
def test_a_mode_no_goal_sees_blocks_every_certificate(robust):
    CL = _hidden_mode_loop((0.5, 3.0))
    kw = {"max_rounds": 2, "n_random": 4} if robust else {"samples": [{"a": 1.5}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = rmb.systune(CL, _goals(), seed=0, **kw)
    # Independent check: at c = 2.5 the tuned loop has the eigenvalue c - 2 = 0.5.
    lam = np.linalg.eigvals(np.asarray(res.closed_loop.usubs({"a": 1.0, "c": 2.5}).A, float))
    assert lam.real.max() == pytest.approx(0.5, abs=1e-9)
    assert not res.robust_stability.is_robustly_stable
    for cert in res.certified:
        assert not cert.certified and np.isinf(cert.upper)
        assert "not proved robustly stable" in cert.reason
    if robust:
        assert all(np.isinf(v) for v in res.certified_values)


def test_a_stable_hidden_mode_keeps_the_certificates():
    # c in [0.5, 1.9]: loop 2's pole c - 2 < 0 over the box, so the goals are certified,
    # and above the brute-force worst values of loop 1's closed-form transfers.
    CL = _hidden_mode_loop((0.5, 1.9))
    res = rmb.systune(CL, _goals(), seed=0)
    k = float(res.values["K"][0, 0])
    assert k == pytest.approx(4.0, abs=1e-3)  # the analytic optimum, see test_robust_tuning
    assert res.robust_stability.is_robustly_stable and res.converged
    for cert, cv, b in zip(res.certified, res.certified_values, _brute_force(k), strict=True):
        assert cert.certified and b * (1 - 1e-9) <= cv <= b * 1.01


def _partial_loop():
    # z = c y is an output no goal uses: the goals' transfers do not involve c.
    s = control.tf("s")
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    c = rmb.ureal("c", 1.0, range=(0.5, 2.0))
    Z = rmb.uss(c * control.ss([], [], [], [[1.0]]))
    Z.input_names, Z.output_names, Z.name = ["y"], ["z"], "Z"
    return _static_gain_loop(rmb.uss(1 / (s - a)), Z, outputs=("y", "u", "z"))


@pytest.mark.parametrize(
    "kw, k_ref",
    [
        # robust: 2.5 / (k - 1.5) = 0.25 k at the vertex a = 1.5: k = 4
        ({"max_rounds": 3, "n_random": 4}, 4.0),
        # nominal a = 1: 2.5 / (k - 1) = 0.25 k, k^2 - k - 10 = 0
        ({"robust": False}, (1 + np.sqrt(41.0)) / 2),
        # sampled at a = 1.5 (and c = 2, which the goals do not involve): k = 4
        ({"samples": [{"a": 1.5, "c": 2.0}]}, 4.0),
    ],
)
def test_goals_on_part_of_the_uncertainty(kw, k_ref):
    CL = _partial_loop()
    assert set(CL.uncertainty) == {"a", "c"}
    res = rmb.systune(CL, _goals(), seed=0, certify=False, **kw)
    assert float(res.values["K"][0, 0]) == pytest.approx(k_ref, abs=1e-3)


def test_a_run_that_stops_with_a_violation_says_so():
    # One round, tuned on the nominal a = 1 only: k = (1 + sqrt 41) / 2, whose worst
    # d -> y value 2.5 / (k - 1.5) at a = 1.5 is above the active-set objective.
    CL = _unstable_pole_loop()
    with pytest.warns(RuntimeWarning, match="did not converge") as rec:
        res = rmb.systune(CL, _goals(), seed=0, max_rounds=1, polish=False, certify=False)
    k = (1 + np.sqrt(41.0)) / 2
    assert float(res.values["K"][0, 0]) == pytest.approx(k, abs=1e-4)
    assert not res.converged and res.violated == [0]
    worst = 2.5 / (k - 1.5)
    assert res.worst_found[0].value == pytest.approx(worst, rel=1e-6)
    assert res.soft[0] < worst  # the active-set value understates the worst case
    msg = str(rec[0].message)
    assert repr(_goals()[0]) in msg and f"{worst:.6g}" in msg
    # the full run converges and says so
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ok = rmb.systune(CL, _goals(), seed=0, certify=False)
    assert ok.converged and ok.violated == []


def test_a_certificate_below_the_worst_case_found_is_a_contradiction(monkeypatch):
    # A certifier returning half of the true bound: the search's realised worst case
    # (2.5 / (k - 1.5) = 1 at k = 4, closed form) is above it, so it is refused.
    import robustmb.tuning.robust_tuning as rt
    from robustmb.analysis.worst_case_gain import WcgainResult

    real = rt.certify_goal

    def halved(model, **kw):
        r = real(model, **kw)
        return WcgainResult(r.lower / 2, r.upper / 2, r.critical_frequency, r.worst, True)

    monkeypatch.setattr(rt, "certify_goal", halved)
    with pytest.warns(RuntimeWarning, match="contradiction"):
        res = rmb.systune(_unstable_pole_loop(), _goals(), seed=0)
    assert res.worst_found[0].value == pytest.approx(1.0, rel=1e-6)
    assert all(np.isnan(v) for v in res.certified_values)
    assert not any(c.certified for c in res.certified)


@pytest.mark.slow
def test_a_complex_worst_case_already_in_the_active_set_is_not_met():
    # G = (1 + 0.3 c) / (s - a), |c| <= 1: the hard goal 2.5 ||d -> y|| is worst at
    # g = 1 + 0.3 c = 0.7, a = 1.5: 2.5 * 0.7 / (0.7 k - 1.5).  The active set holds c
    # at its nominal, so the tuning cannot see it; the result must not call it met.
    s = control.tf("s")
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    c = rmb.ucomplex("c", 0.0, radius=1.0)
    CL = _static_gain_loop(rmb.uss((1 + 0.3 * c) / (s - a)))
    with pytest.warns(RuntimeWarning, match="NOT met over the box"):
        res = rmb.systune(
            CL,
            [WeightedGain("r", "u", wl=0.25)],
            [WeightedGain("d", "y", wl=2.5)],
            seed=0,
            n_random=8,
            max_rounds=6,
        )
    k = float(res.values["K"][0, 0])
    worst = 2.5 * 0.7 / (0.7 * k - 1.5)
    assert worst > 1 and not res.converged and 1 in res.violated
    assert res.worst_found[1].value == pytest.approx(worst, rel=1e-3)
    assert res.certified_values[1] >= worst * (1 - 1e-9)
