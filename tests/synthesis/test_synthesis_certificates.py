"""Reported levels of the synthesis functions against evaluations that share no code with
the package (numpy frequency responses, scipy scalar maximisation)."""

import control
import numpy as np
import pytest
import scipy.optimize

import robustmb as rmb
from robustmb.errors import IllPosedError


def _four_block_peak(G, K):
    """Peak of ``sigma_max([I; K] (I - G K)^-1 [I, G])`` on the axis: dense grid, then a
    scalar maximisation around the best grid point (numpy only)."""
    p = G.noutputs

    def gain(w):
        Gw, Kw = np.atleast_2d(G(1j * w)), np.atleast_2d(K(1j * w))
        X = np.linalg.solve(np.eye(p) - Gw @ Kw, np.hstack([np.eye(p), Gw]))
        return np.linalg.svd(np.vstack([X, Kw @ X]), compute_uv=False)[0]

    w = np.logspace(-3, 3, 6000)
    v = np.array([gain(x) for x in w])
    i = int(np.clip(v.argmax(), 1, w.size - 2))
    opt = scipy.optimize.minimize_scalar(
        lambda x: -gain(x), bounds=(w[i - 1], w[i + 1]), method="bounded",
        options={"xatol": 1e-12},
    )  # fmt: skip
    return max(v.max(), -opt.fun)


def test_ncfsyn_achieved_level_is_an_upper_bound_on_the_controllers_norm():
    # a random 3-state plant with feedthrough: hinfnorm's attained value 7.996006974 lay
    # 4.4e-9 below the true four-block norm 7.996007010 (30-digit check), so that
    # margin_achieved overstated the margin the controller achieves
    rng = np.random.default_rng(1)
    for trial in range(6):
        A, B = rng.standard_normal((3, 3)), rng.standard_normal((3, 2))
        C, D = rng.standard_normal((2, 3)), rng.standard_normal((2, 2)) * (trial % 2)
    G = control.ss(A, B, C, D)
    res = rmb.ncfsyn(G)
    peak = _four_block_peak(G, res.controller)
    assert res.gamma_achieved >= peak
    assert res.margin_achieved <= 1 / peak
    assert res.gamma_achieved <= peak * (1 + 1e-7)  # still tight


@pytest.mark.parametrize(
    ("weights", "name"),
    [
        ((control.tf([1.0, 1.0], [1.0, 0.0]), 0.1), "W1"),  # an integral-action weight 1/s
        ((control.tf([1.0, 1.0], [1.0, 1e-4]), control.tf([1.0], [1.0, -1.0])), "W2"),
        ((1.0, 0.1, control.tf([1.0, 0.0, 1.0], [1.0, 0.0, 4.0])), "W3"),  # poles at +-2j
    ],
)
def test_mixsyn_refuses_a_weight_with_a_pole_on_the_boundary_and_names_it(weights, name):
    # the weights' states never reach the measurement e of augw: such a mode is a pole of
    # every closed loop.  The error named the augmented plant's measurement 'y[2]' (a
    # signal the user never made) instead of the weight.
    G = control.tf([1.0], [1.0, 0.0]) * control.tf([1.0], [1.0, 1.0])
    with pytest.raises(IllPosedError, match=f"mixsyn: {name} has pole"):
        rmb.mixsyn(G, *weights)


def test_mixsyn_refuses_a_discrete_weight_pole_on_the_unit_circle():
    G = control.c2d(control.tf([1.0], [1.0, 1.0]), 0.1)
    with pytest.raises(IllPosedError, match=r"mixsyn: W1 has pole\(s\) \[1.0\] on or outside"):
        rmb.mixsyn(G, control.tf([1.0], [1.0, -1.0], 0.1), 0.1)
    # a pole just inside is a legal weight
    assert rmb.mixsyn(G, control.tf([1.0], [1.0, -0.99], 0.1), 0.1).gamma > 0


def _sampled_peak(cl):
    w = np.r_[0.0, np.logspace(-4, 6, 4000)]
    return max(np.linalg.norm(np.atleast_2d(cl(1j * x)), 2) for x in w)


def test_hinfsyn_lower_bound_from_a_zero_d12_at_infinity():
    # z = x + 0.5 w, y = x + w, D12 = 0: z(inf) = 0.5 w whatever the controller, so the
    # optimum is at least 0.5; the bracket's lower end was 0 (Parrott bound skipped for
    # a rank-deficient D12)
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.5, 0.0], [1.0, 0.0]])
    res = rmb.hinfsyn(P, 1, 1)
    assert res.gamma_bracket[0] == 0.5
    assert res.lower_certified
    # the supremum 0.5 is approached at infinity
    assert _sampled_peak(res.closed_loop) <= res.gamma <= 0.5 * (1 + 1e-3)


def _fl_peak_numpy(G, W1, K):
    """Peak of ``|W1 S|``, ``S = 1 / (1 + G K)``, from the three transfer functions
    evaluated separately (numpy polynomials: no state-space realisation), grid + zoom."""
    num = [np.poly1d(np.asarray(X.num[0][0], float)) for X in (G, W1, K)]
    den = [np.poly1d(np.asarray(X.den[0][0], float)) for X in (G, W1, K)]

    def gain(w):
        g, w1, k = (n(1j * w) / d(1j * w) for n, d in zip(num, den, strict=True))
        return abs(w1 / (1 + g * k))

    w = np.r_[0.0, np.logspace(-4, 4, 8000)]
    v = np.array([gain(x) for x in w])
    i = int(np.clip(v.argmax(), 1, w.size - 2))
    opt = scipy.optimize.minimize_scalar(
        lambda x: -gain(x), bounds=(w[i - 1], w[i + 1]), method="bounded",
        options={"xatol": 1e-12},
    )  # fmt: skip
    return max(v.max(), -opt.fun)


def test_mixsyn_without_control_weight_brackets_the_optimum_from_below():
    # ||W1 S|| with G = 1/(s+1)^2 strictly proper and no W2: S(inf) = 1, so the optimum
    # is at least W1(inf) = 1 (old lower end: 0).  The double pole of G is a Jordan
    # block in augw's realisation: the frequency-wise check of the verification took
    # all of [0, 100] rad/s as "on a pole" and saw nothing there, and the realisation's
    # norm alone was 1.0000236, below the true norm 1.0000282 (40-digit check) of the
    # controller returned
    G = control.tf([1.0], [1.0, 2.0, 1.0])
    W1 = control.tf([1.0, 1.0], [1.0, 0.01])
    res = rmb.mixsyn(G, W1)
    assert res.gamma_bracket[0] == pytest.approx(1.0, rel=1e-15)
    peak = _fl_peak_numpy(G, W1, control.tf(res.controller))
    assert res.gamma_bracket[0] <= peak <= res.gamma < 1.001
    assert _sampled_peak(res.closed_loop) <= res.gamma
    # the level of the loop with its slow and fast modes decoupled is proved by the
    # level-set test of G(1/s), but that is another system (the split's rounding changes
    # the response); the loop's own realisation proves nothing, so gamma, which lies
    # above the numpy peak of W1 S computed above, is not certified
    assert res.gamma_certified is False


def test_lft_response_is_finite_away_from_a_defective_plant_pole():
    # P with the Jordan block of 1/(s+1)^2: the response at w = 1 (distance 1.4 from the
    # double pole) is regular and was returned as nan
    from robustmb.synthesis.plant import lft_response, partition_plant

    G = control.tf([1.0], [1.0, 2.0, 1.0])
    P = partition_plant(control.augw(G, control.tf([1.0, 1.0], [1.0, 0.01]), None, None), 1, 1)
    z = np.zeros((1, 1))
    F = lft_response(P, (np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((1, 0)), z), [0.5, 1.0])
    # K = 0: Fl = P11 = W1 (the loop is open)
    ref = [abs((1j * w + 1) / (1j * w + 0.01)) for w in (0.5, 1.0)]
    assert np.allclose(np.abs(F[:, 0, 0]), ref, rtol=1e-12)


def test_musyn_refuses_a_bool_controller_order():
    # True was taken as the order 1 (bool is an int)
    d = rmb.ultidyn("d", (1, 1), bound=0.5)
    G = rmb.uss(control.tf([1.0], [1.0, 1.0])) * (1 + d)
    W = rmb.uss(control.tf([0.5, 0.5], [1.0, 0.01]))
    P = rmb.vstack(W, 1.0) * rmb.hstack(1.0, -G)
    with pytest.raises(rmb.errors.DimensionError, match="controller_order"):
        rmb.musyn(P, 1, 1, controller_order=True, max_iter=1)


def test_musyn_warns_when_a_k_step_fails_and_the_iteration_stops(monkeypatch):
    # a failing K-step (on a mass-spring-damper with real c, k and a dynamic input
    # uncertainty the scaled plant of iteration 3 had invariant zeros on the axis) ended
    # the iteration silently: only history[-1]["failed"] told that fewer iterations ran
    import importlib

    musyn_module = importlib.import_module("robustmb.synthesis.musyn")  # not the function

    real_hinfsyn, calls = musyn_module.hinfsyn, []

    def failing_second_k_step(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise IllPosedError("no controller passed the closed-loop verification")
        return real_hinfsyn(*args, **kwargs)

    monkeypatch.setattr(musyn_module, "hinfsyn", failing_second_k_step)
    d = rmb.ultidyn("d", (1, 1), bound=0.5)
    G = rmb.uss(control.tf([1.0], [1.0, 1.0])) * (1 + d)
    W = rmb.uss(control.tf([0.5, 0.5], [1.0, 0.01]))
    P = rmb.vstack(W, 1.0) * rmb.hstack(1.0, -G)
    with pytest.warns(rmb.errors.RobustMBWarning, match="K-step of iteration 2 failed"):
        res = rmb.musyn(P, 1, 1, max_iter=3)
    assert len(res.history) == 2 and "failed" in res.history[-1]
    assert np.isfinite(res.mu)
