"""The optimiser's inner H-infinity value never underestimates the norm (ill-scaled loops)."""

import numpy as np
import pytest
from _compleib import compleib, static_loop
from _hidden_loops import hidden_loop, hidden_seeds, mp_abscissa
from hypothesis import example, given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.tuning.gradients import hinf_gradient

# A static gain visited by hinfstruct on COMPleib REA2 (random_start=3, seed=0): the
# closed loop has entries up to 2.5e6 next to unit ones and a pole at -9.9e5.  The inner
# level set used to miss the crossing at w ~ 0.82 (its eigenvalue computed 4.6e-4 off
# the axis), returning sigma(G(0)) = 1.147917 for a norm of 1.148967 (9e-4 below).
K_REA2 = np.array([[-436628.00304908, -388318.79322132], [-386532.98243491, -343772.56005963]])


def _dense_peak(a, b, c, d):
    """Largest singular value over a dense grid, by pivoted solves (no Hamiltonian)."""
    n = a.shape[0]
    w = np.r_[0.0, np.geomspace(1e-4, 1e7, 40001)]
    rhs = np.broadcast_to(b, (w.size, *b.shape))
    g = c @ np.linalg.solve(1j * w[:, None, None] * np.eye(n) - a, rhs) + d
    return float(np.linalg.svd(g, compute_uv=False)[:, 0].max())


def _ill_scaled_model(seed, n, spread, feed, damping=None):
    """A random stable 2x2 model ``(a, b, c, d)`` (optionally a lightly damped mode of
    ``damping`` decoupled from the rest), an ill-scaled realisation ``(at, bt, ct)`` of
    it (state scalings 10^-spread .. 10^spread, a B/C imbalance) and its norm by
    ``hinfnorm`` at 1e-10 on the well-scaled one."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    a -= (np.max(np.linalg.eigvals(a).real) + rng.uniform(0.05, 1.0)) * np.eye(n)
    if damping is not None:
        wn = 10.0 ** rng.uniform(-1, 2)
        a[:2, :2] = [[0.0, wn], [-wn, -2 * damping * wn]]
        a[2:, :2] = 0.0
    b, c = rng.standard_normal((n, 2)), rng.standard_normal((2, n))
    d = rng.standard_normal((2, 2)) if feed else np.zeros((2, 2))
    ref, _ = rmb.hinfnorm((a, b, c, d), tol=1e-10)
    t = 10.0 ** rng.uniform(-spread, spread, n)
    k = 10.0 ** rng.uniform(-spread, spread)
    scaled = (a * t[None, :] / t[:, None], b / t[:, None] * k, c * t[None, :] / k)
    return (a, b, c, d), scaled, ref


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(2, 6),
    spread=st.floats(0.0, 7.0),
    feed=st.booleans(),
)
def test_inner_value_is_invariant_under_ill_scaled_coordinates(seed, n, spread, feed):
    """A diagonal change of state coordinates (entries 10^-spread .. 10^spread) and a
    B/C imbalance do not change the norm; the inner value must stay within its
    tolerance of hinfnorm on the well-scaled model (or below it only by that)."""
    (a, b, c, d), (at, bt, ct), ref = _ill_scaled_model(seed, n, spread, feed)
    g, _, _ = hinf_gradient(at, bt, ct, d)
    assert g >= ref * (1 - 1e-6)
    assert g <= ref * (1 + 1e-6)


def test_hinfstruct_run_values_are_true_norms():
    """Every run's reported value is at least the hinfnorm of its closed loop."""
    P, _, _ = compleib("REA2")
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", 2, 2), random_start=1, seed=0, maxiter=60)
    assert res.verify() == pytest.approx(res.gamma, rel=1e-9)
    for r in res.runs:
        if not np.isfinite(r.value):
            continue
        true, _ = rmb.hinfnorm(static_loop(P, r.x.reshape(2, 2)), tol=1e-10)
        assert r.value >= true * (1 - 1e-9)


def test_ill_scaled_loop_is_evaluated_by_the_stiff_path_not_hinfnorm(monkeypatch):
    """The REA2 loop defeats the modal level set (its ||H|| test fails); the balanced,
    LU-solved level set of ``_stiff_hinf`` evaluates it, without ``hinfnorm``, to the
    inner tolerance of two independent references (hinfnorm at 1e-10, a dense grid)."""
    from robustmb.tuning import gradients

    P, _, _ = compleib("REA2")
    cl = static_loop(P, K_REA2)
    a, b, c, d = (np.asarray(m, float) for m in (cl.A, cl.B, cl.C, cl.D))
    ref, _ = rmb.hinfnorm(cl, tol=1e-10)
    grid = _dense_peak(a, b, c, d)
    assert grid <= ref * (1 + 1e-9)  # the two independent references agree
    assert grid >= ref * (1 - 1e-6)
    assert gradients._modal_hinf(a, b, c, d, 1e-7) is None  # the stiff case

    def refuse(*args, **kwargs):
        raise AssertionError("hinfnorm called by the inner loop")

    monkeypatch.setattr(gradients, "hinfnorm", refuse)
    g, w, _ = hinf_gradient(a, b, c, d)
    # the inner tol (1e-7) only; the modal level set used to return 9e-4 below
    assert ref * (1 - 2e-7) <= g <= ref * (1 + 1e-9)
    assert g >= grid * (1 - 2e-7)
    resp = c @ np.linalg.solve(1j * w * np.eye(a.shape[0]) - a, b) + d
    assert np.linalg.svd(resp, compute_uv=False)[0] == pytest.approx(g, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(2, 6),
    spread=st.floats(0.0, 7.0),
    feed=st.booleans(),
    damping=st.sampled_from([None, 1e-3, 1e-2]),
)
@example(seed=1, n=3, spread=5.0, feed=True, damping=1e-3)  # hands off to hinfnorm
def test_stiff_path_peak_against_hinfnorm_of_the_well_scaled_model(seed, n, spread, feed, damping):
    """``_stiff_hinf`` on an ill-scaled realisation (state scalings 10^-spread ..
    10^spread, B/C imbalance, optionally a lightly damped mode) returns the norm of the
    well-scaled model within the inner tolerance, attained at its frequency; where it
    hands the model to ``hinfnorm`` (``None``), ``hinf_gradient`` is still right."""
    from robustmb.tuning.gradients import _stiff_hinf

    (a, b, c, d), (at, bt, ct), ref = _ill_scaled_model(seed, n, spread, feed, damping)
    out = _stiff_hinf(at, bt, ct, d, 1e-7)
    if not np.isfinite(ref):  # the damped block over an unstable remainder
        assert out is None or out[0] == np.inf
        return
    if out is None:
        # The documented hand-off to hinfnorm: a pole inside its band on the balanced
        # realisation (dgebal cannot undo a scaled triangular coupling) or a singular
        # level set.  The public entry point must then still be right.
        g, w, _ = hinf_gradient(at, bt, ct, d)
        assert ref * (1 - 1e-6) <= g <= ref * (1 + 1e-6)
        return
    g, w = out
    assert ref * (1 - 1e-6) <= g <= ref * (1 + 1e-9)
    if np.isfinite(w):
        resp = c @ np.linalg.solve(1j * w * np.eye(n) - a, b) + d
        assert np.linalg.svd(resp, compute_uv=False)[0] >= ref * (1 - 1e-6)
    else:
        assert np.linalg.svd(d, compute_uv=False)[0] >= ref * (1 - 1e-6)


@pytest.mark.parametrize(("zeta", "cond"), [(-1e-7, 1e5), (-1e-5, 1e6)])
def test_stiff_path_does_not_call_a_hidden_unstable_loop_stable(zeta, cond):
    """Ill-conditioned eigenvectors (the case the stiff path is for) put the computed
    spectral abscissa on the stable side of an unstable loop: the value must be inf
    (or left to hinfnorm), never a finite gain (it was 884480 and 1.24e6).  The loop is
    the family's first member with that premise on this build (``hidden_seeds``)."""
    from robustmb.tuning.gradients import _stiff_hinf

    a, b, c, d = hidden_loop(hidden_seeds(zeta, cond, 1)[0], zeta, cond)
    assert mp_abscissa(a) > 0  # truly unstable: the stored matrix's poles to 50 digits
    assert np.max(np.linalg.eigvals(a).real) < 0  # what the old test trusted
    out = _stiff_hinf(a, b, c, d, 1e-7)
    assert out is None or out[0] == np.inf
    assert hinf_gradient(a, b, c, d)[0] == np.inf


# The stiff level set is not a certificate: it stops when no tested candidate beats
# lower (1 + tol), and its LU responses on a realisation with ||A|| ~ 1e9 are ~1e-6 off.
# Measured below the norm by up to 8.1e-6 (267 random stiff cases); the bound documented
# in ``_stiff_hinf`` and tested here is 2e-5.  Reported values are hinfnorm's.
STIFF_BOUND = 2e-5


def _sigma(a, b, c, d, w):
    w = np.atleast_1d(np.asarray(w, float))
    rhs = np.broadcast_to(b, (w.size, *b.shape))
    g = c @ np.linalg.solve(1j * w[:, None, None] * np.eye(a.shape[0]) - a, rhs) + d
    return np.linalg.svd(g, compute_uv=False)[:, 0]


def _reference_peak(a, b, c, d, centres):
    """Peak of sigma_max on a well-conditioned realisation: a dense log grid plus grids
    around each ``centre``, then golden-section refinement around the best points."""
    w = np.r_[0.0, np.geomspace(1e-4, 1e6, 4001)]
    for wc in centres:
        w = np.r_[w, wc * (1 + np.linspace(-0.05, 0.05, 4001))]
    f = _sigma(a, b, c, d, w)
    best = float(f.max())
    gr = (np.sqrt(5) - 1) / 2
    for k in np.argsort(f)[-4:]:
        lo, hi = w[max(k - 1, 0)], w[min(k + 1, w.size - 1)]
        lo, hi = min(lo, hi), max(lo, hi)
        for _ in range(80):
            x1, x2 = hi - gr * (hi - lo), lo + gr * (hi - lo)
            if _sigma(a, b, c, d, x1)[0] > _sigma(a, b, c, d, x2)[0]:
                hi = x2
            else:
                lo = x1
        best = max(best, float(_sigma(a, b, c, d, 0.5 * (lo + hi))[0]))
    return best


@pytest.mark.parametrize("case", ["t250", "t266"])
def test_stiff_value_within_its_documented_bound_on_review_cases(case):
    """Two stiff cases (tests/data/inner_hinf_stiff_low.json) where the stiff value was
    1.4e-6 and 8.1e-6 below the norm: within the documented bound, never above it by
    more than rounding; the reference (hinfnorm at 1e-10) is attained per 30-digit mpmath."""
    import mpmath as mp

    from robustmb.tuning.gradients import _stiff_hinf

    data = _stiff_cases()[case]
    a, b, c, d = (np.array(data[k], float) for k in "ABCD")
    ref, wref = rmb.hinfnorm((a, b, c, d), tol=1e-10)
    with mp.workdps(30):
        am, bm, cm, dm = (mp.matrix(x.tolist()) for x in (a, b, c, d))
        gm = cm * mp.inverse(mp.mpc(0, wref) * mp.eye(a.shape[0]) - am) * bm + dm
        attained = float(max(mp.svd_c(gm, compute_uv=False)))
    assert attained == pytest.approx(ref, rel=1e-9)  # ref is a lower bound, attained
    out = _stiff_hinf(a, b, c, d, 1e-7)
    assert out is None or ref * (1 - STIFF_BOUND) <= out[0] <= ref * (1 + 1e-6)
    assert ref * (1 - STIFF_BOUND) <= hinf_gradient(a, b, c, d)[0] <= ref * (1 + 1e-6)


def _stiff_cases():
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "inner_hinf_stiff_low.json"
    return json.loads(path.read_text())["cases"]


@pytest.mark.parametrize("seed", range(12))
def test_inner_value_under_non_diagonal_ill_conditioning(seed):
    """Lightly damped modes spread over decades, two nearly equal peaks (1e-8..1e-6
    apart), seen through a random non-diagonal similarity of condition 1e2..1e6 (which
    balancing cannot undo): the inner value is within the documented bound of an
    independent reference (grid + golden section on the block-diagonal realisation)."""
    from scipy.linalg import block_diag

    from robustmb.tuning.gradients import _stiff_hinf

    rng = np.random.default_rng(1000 + seed)
    nm = int(rng.integers(2, 4))
    ws = np.sort(10 ** rng.uniform(-1, 3, nm))
    zs = 10 ** rng.uniform(-4, -1.5, nm)
    blocks = [np.array([[0.0, w], [-w, -2 * z * w]]) for w, z in zip(ws, zs, strict=True)]
    a = block_diag(*blocks)
    n = a.shape[0]
    b, c = rng.standard_normal((n, 2)), rng.standard_normal((2, n))
    d = rng.standard_normal((2, 2)) * 0.1 if seed % 3 == 0 else np.zeros((2, 2))
    # the first two modes' peaks made nearly equal
    wd = ws * np.sqrt(np.maximum(1 - 2 * zs**2, 0.0))
    p = [
        float(_sigma(blocks[i], b[2 * i : 2 * i + 2], c[:, 2 * i : 2 * i + 2], 0 * d, wd[i])[0])
        for i in range(2)
    ]
    b[2:4] *= p[0] / p[1] * (1 + 10 ** rng.uniform(-8, -6))
    ref = _reference_peak(a, b, c, d, wd)
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    t = u @ np.diag(np.logspace(0, rng.uniform(2, 6), n)) @ v
    ti = np.linalg.inv(t)
    at, bt, ct = ti @ a @ t, ti @ b, c @ t
    g, w, _ = hinf_gradient(at, bt, ct, d)
    assert ref * (1 - STIFF_BOUND) <= g <= ref * (1 + STIFF_BOUND)
    out = _stiff_hinf(at, bt, ct, d, 1e-7)
    assert out is None or ref * (1 - STIFF_BOUND) <= out[0] <= ref * (1 + STIFF_BOUND)


def test_hinfnorm_fallback_returns_hinfnorms_value(monkeypatch):
    """Where both lean paths hand the loop over (``None``), the inner value is at least
    ``hinfnorm``'s, not the given realisation's response at its peak frequency, which an
    ill-conditioned realisation can put below it.  A stand-in hinfnorm reporting 1 %
    more than the true norm (the closed form 1.5 of 3 / (s + 2)) makes the two differ."""
    from robustmb.tuning import gradients

    a, b, c, d = (np.array([[v]]) for v in (-2.0, 1.0, 3.0, 0.0))
    monkeypatch.setattr(gradients._slicot, "ENABLED", False)
    monkeypatch.setattr(gradients, "_modal_hinf", lambda *args, **kw: None)
    monkeypatch.setattr(gradients, "_stiff_hinf", lambda *args, **kw: None)
    monkeypatch.setattr(gradients, "hinfnorm", lambda sys, tol: (1.5 * 1.01, 0.0))
    gamma, w, g = hinf_gradient(a, b, c, d)
    assert gamma == 1.5 * 1.01 and w == 0.0
    # the gradient is still the response's at that frequency: d sigma / d A = (c/4)(b/4)
    np.testing.assert_allclose(g, [[0.75, 1.5], [0.5, 1.0]])


@pytest.mark.slow
def test_inner_value_at_a_barely_stable_rea1_gain_is_not_below_hinfnorm():
    """COMPleib REA1 at K0 = t Kopt with the closed loop's abscissa at -2e-7: the band
    verdict is undecided, the inner value falls back to hinfnorm and must not be below
    its value on the same realisation (it was 5.8e-4 low: the realisation's response at
    hinfnorm's frequency)."""
    from robustmb.lft.algebra import lft_lower
    from robustmb.lft.model import as_model
    from robustmb.tuning.hinfstruct import _balanced
    from robustmb.tuning.parametrization import ParameterVector, TunableLFT
    from robustmb.tuning.tuning_term import Term

    P, _, parts = compleib("REA1")
    ny, nu = parts[4].shape[0], parts[2].shape[1]
    ref = rmb.hinfstruct(P, rmb.tunable_gain("K", nu, ny), random_start=1, seed=0, zero_tol=0)
    kopt = ref.values["K"]

    def abscissa(k):
        return np.max(np.linalg.eigvals(static_loop(P, k).A).real)

    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if abscissa(mid * kopt) < -2e-7 else (mid, hi)
    km = as_model(rmb.tunable_gain("K", nu, ny, value=hi * kopt))
    params = ParameterVector(km.tunables)
    lft = TunableLFT(lft_lower(as_model(_balanced(P)), km), params)
    x = params.initial()
    a, b, c, d = lft.statespace(x)
    inner = Term(lft).evaluate(x)[0]
    assert inner >= rmb.hinfnorm((a, b, c, d, 0.0), tol=1e-12)[0] * (1 - 1e-7)
    assert hinf_gradient(a, b, c, d)[0] >= rmb.hinfnorm((a, b, c, d, 0.0))[0]
