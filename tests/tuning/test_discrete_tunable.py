"""Discrete-time tunable blocks (``dt``, MATLAB's ``Ts``): realisations against
python-control, tuning on a discrete plant against a numpy brute force, and the
subgradient against finite differences."""

import control
import numpy as np
import pytest
from _finite_differences import central_differences
from _loops import error_feedback_loop

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.tuning import WeightedGain, tunable_surface
from robustmb.tuning.parametrization import ParameterVector, TunableLFT
from robustmb.tuning.tuning_term import Term

TS = 0.1
# Plant G(z) = 0.2 / (z - 0.9); weights WS(z) = 0.2 / (z - 0.95) on e, 0.3 on u.
A_G, B_G, A_W, C_W, W_U = 0.9, 0.2, 0.95, 0.2, 0.3


def _circle(n):
    """``n`` unit-circle points ``exp(j theta)``, a third of them log-spaced near ``z = 1``."""
    th = np.concatenate([np.logspace(-5, 0, n // 3), np.linspace(1e-5, np.pi, n - n // 3)])
    return np.exp(1j * np.unique(th))


def _mixed_response(kp, ki, th):
    """``||[WS S; wu K S]||`` at ``z = exp(j th)`` of the discrete PI ``Kp + Ki Ts/(z - 1)``
    (``kp``, ``ki`` of shape ``(m, 1)``, ``th`` of shape ``(m, k)`` or ``(k,)``)."""
    z = np.exp(1j * th)
    g = B_G / (z - A_G)
    k = kp + ki * TS / (z - 1)
    s = 1 / (1 + k * g)
    return np.sqrt(np.abs(C_W / (z - A_W) * s) ** 2 + np.abs(W_U * k * s) ** 2)


def _mixed_cost(kp, ki):
    """``max_z ||[WS S; wu K S]||`` over the unit circle, inf where the closed loop
    ``(z - a)(z - 1) + b (Kp (z - 1) + Ki Ts)`` has a root off the open unit disc.

    A grid dense near ``z = 1`` finds the four highest local maxima, and two zooms of 64
    points each around every one of them give its height to a relative ~1e-12."""
    shape = np.shape(kp)
    kp, ki = np.reshape(kp, (-1, 1)), np.reshape(ki, (-1, 1))
    th = np.unique(np.concatenate([np.logspace(-5, 0, 1000), np.linspace(1e-5, np.pi, 2000)]))
    r = _mixed_response(kp, ki, th)
    local = np.full(r.shape, -np.inf)
    inner = (r[:, 1:-1] >= r[:, :-2]) & (r[:, 1:-1] >= r[:, 2:])
    local[:, 1:-1] = np.where(inner, r[:, 1:-1], -np.inf)
    local[:, -1] = np.where(r[:, -1] >= r[:, -2], r[:, -1], -np.inf)  # z = -1
    local[:, 0] = np.where(r[:, 0] >= r[:, 1], r[:, 0], -np.inf)
    best = np.zeros(len(kp))
    for j in np.argsort(-local, axis=1)[:, :4].T:
        lo, hi = th[np.maximum(j - 1, 0)], th[np.minimum(j + 1, len(th) - 1)]
        for _ in range(2):
            grid = lo[:, None] + (hi - lo)[:, None] * np.linspace(0, 1, 64)
            v = _mixed_response(kp, ki, grid)
            i = np.argmax(v, axis=1)
            step = (hi - lo) / 63
            centre = grid[np.arange(len(kp)), i]
            lo, hi = np.maximum(centre - step, 1e-9), np.minimum(centre + step, np.pi)
        best = np.maximum(best, v.max(axis=1))
    c1, c0 = B_G * kp[:, 0] - A_G - 1, A_G - B_G * kp[:, 0] + B_G * TS * ki[:, 0]
    root = np.sqrt(c1.astype(complex) ** 2 - 4 * c0)
    rho = np.maximum(np.abs(-c1 + root), np.abs(-c1 - root)) / 2
    return np.where(rho < 1, best, np.inf).reshape(shape)


def _brute_force():
    """The grid minimiser of ``_mixed_cost``: a 41 x 41 grid over a window, zoomed in
    to +-10 grid steps around its best point until the step is below 1e-6."""
    lo, hi = np.array([-2.0, -5.0]), np.array([10.0, 30.0])
    while True:
        kp, ki = np.meshgrid(np.linspace(lo[0], hi[0], 41), np.linspace(lo[1], hi[1], 41))
        c = _mixed_cost(kp, ki)
        i = np.unravel_index(np.argmin(c), c.shape)
        best, step = np.array([kp[i], ki[i]]), (hi - lo) / 40
        if step.max() < 1e-6:
            return best, c[i]
        lo, hi = best - 10 * step, best + 10 * step


def _plant():
    """Generalised plant, inputs ``[r, u]``, outputs ``[WS e, wu u, e]``, ``e = r - G u``."""
    a = [[A_G, 0.0], [-B_G, A_W]]
    b = [[0.0, 1.0], [1.0, 0.0]]
    c = [[0.0, C_W], [0.0, 0.0], [-B_G, 0.0]]
    d = [[0.0, 0.0], [0.0, W_U], [1.0, 0.0]]
    return control.ss(a, b, c, d, TS)


@pytest.fixture(scope="module")
def reference():
    return _brute_force()


def test_systune_discrete_pi_matches_brute_force(reference):
    (kp, ki), cost = reference
    G = rmb.uss(control.ss([[A_G]], [[1.0]], [[B_G]], [[0.0]], TS))
    C = rmb.tunable_pid("C", form="pi", dt=TS)
    CL = error_feedback_loop(G, C, outputs=("e", "u"))
    W = control.ss(control.append(control.tf([C_W], [1, -A_W], TS), control.tf([W_U], [1], TS)))
    # was: connect failed, "cannot combine systems with different sampling times [0, 0.1]"
    res = rmb.systune(CL, WeightedGain("r", ["e", "u"], wl=W))
    assert res.values["C.Kp"] == pytest.approx(kp, abs=1e-3)
    assert res.values["C.Ki"] == pytest.approx(ki, abs=1e-3)
    # the tuned value is the brute force's cost at the tuned gains, no higher than the
    # grid's minimum (the valley is flat along Ki: 0.59449189035 tuned at Ki = 1.39455,
    # 0.59449189804 on the grid at Ki = 1.39496)
    tuned = _mixed_cost(res.values["C.Kp"], res.values["C.Ki"])
    assert res.verify()["soft"][0] == pytest.approx(float(tuned), rel=1e-9)
    assert tuned <= cost * (1 + 1e-9)


def test_hinfstruct_discrete_pi_matches_brute_force(reference):
    (kp, ki), cost = reference
    res = rmb.hinfstruct(_plant(), rmb.tunable_pid("C", form="pi", dt=TS))
    assert res.values["C.Kp"] == pytest.approx(kp, abs=1e-3)
    assert res.values["C.Ki"] == pytest.approx(ki, abs=1e-3)
    tuned = _mixed_cost(res.values["C.Kp"], res.values["C.Ki"])
    assert res.gamma == pytest.approx(float(tuned), rel=1e-9)
    assert res.gamma <= cost * (1 + 1e-9)
    assert res.closed_loop.dt == TS


def _pid_reference(kp, ki, kd, tf):
    """MATLAB's forward-Euler PID ``Kp + Ki Ts/(z-1) + Kd/(Tf + Ts/(z-1))`` as a
    python-control transfer function."""
    ie = control.tf([TS], [1, -1], TS)
    return kp + ki * ie + kd * control.tf([1, -1], [tf, TS - tf], TS)


def _initial(block):
    """The block at its parameters' initial values."""
    return block.usubs({n: p.value for n, p in block.tunables.items()})


def _same_response(sys, ref):
    # away from z = 1, where rounding in z - 1 makes an integrator's response inexact
    z = np.exp(1j * np.linspace(0.01, np.pi, 400))
    got = np.moveaxis(np.atleast_3d(control.ss(sys)(z)).reshape(*sys.shape, -1), -1, 0)
    want = np.moveaxis(np.atleast_3d(ref(z)).reshape(*ref.shape, -1), -1, 0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_tuned_discrete_pid_realisation_equals_python_control():
    res = rmb.hinfstruct(_plant(), rmb.tunable_pid("C", dt=TS), maxiter=60)
    v = {k: float(np.squeeze(x)) for k, x in res.values.items()}
    assert res.controller.dt == TS
    _same_response(res.controller, _pid_reference(v["C.Kp"], v["C.Ki"], v["C.Kd"], v["C.Tf"]))


@pytest.mark.parametrize("form", ["p", "i", "pi", "pd", "pid"])
def test_discrete_pid_forms_equal_matlab_formula(form):
    C = rmb.tunable_pid("C", form=form, dt=TS, tf=0.3 if "d" in form else None)
    vals = {"C.Kp": 1.7, "C.Ki": -0.6, "C.Kd": 0.45}
    K = C.usubs({k: v for k, v in vals.items() if k in C.tunables})
    ref = _pid_reference(
        vals["C.Kp"] if "p" in form else 0.0,
        vals["C.Ki"] if "i" in form else 0.0,
        vals["C.Kd"] if "d" in form else 0.0,
        0.3,
    )
    if form != "p":
        assert K.dt == TS
    _same_response(K if form != "p" else control.ss([], [], [], K.D, TS), ref)


def test_tuned_discrete_tf_and_ss_equal_python_control():
    F = rmb.tunable_tf("F", 1, 2, dt=TS)
    res = rmb.hinfstruct(_plant(), F, maxiter=40)
    num, den = np.ravel(res.values["F.num"]), np.ravel(res.values["F.den"])
    assert res.controller.dt == TS
    _same_response(res.controller, control.tf(num, np.r_[1.0, den], TS))
    # initial block: poles at z = 0.5, unit DC gain
    G0 = _initial(F)
    np.testing.assert_allclose(np.linalg.eigvals(G0.A), [0.5, 0.5], atol=1e-7)
    assert control.evalfr(G0, 1.0) == pytest.approx(1.0, rel=1e-12)
    for form in ("full", "companion", "diag"):
        K = rmb.tunable_ss("K", 2, 1, 1, form=form, dt=TS)
        assert np.max(np.abs(np.linalg.eigvals(_initial(K).A))) < 1
        res = rmb.hinfstruct(_plant(), K, maxiter=40)
        ref = control.ss(*(res.values[f"K.{m}"] for m in "ABCD"), TS)
        _same_response(res.controller, ref)


def test_discrete_surface_states_are_delays():
    v = rmb.ureal("v", 1.0, range=(0.5, 1.5))
    K = tunable_surface("K", (1, 1), v, states=1, dt=TS)
    m0 = np.array([[0.7, 0.4], [1.5, -0.2]])
    m1 = np.array([[0.1, 0.3], [-0.5, 0.25]])
    G = K.usubs({"K.M0": m0, "K.M1": m1, "v": 1.5})  # normalised s = 1
    m = m0 + m1
    assert G.dt == TS
    _same_response(G, control.ss(m[:1, :1], m[:1, 1:], m[1:, :1], m[1:, 1:], TS))


@pytest.mark.parametrize("dt", [-0.1, 0, 0.0, np.nan, np.inf, True, False, "0.1", 1j])
def test_bad_dt_is_an_argument_error(dt):
    v = rmb.ureal("v", 1.0, range=(0.5, 1.5))
    for make in (
        lambda: rmb.tunable_pid("C", dt=dt),
        lambda: rmb.tunable_tf("F", 0, 1, dt=dt),
        lambda: rmb.tunable_ss("S", 1, 1, 1, dt=dt),
        lambda: tunable_surface("K", (1, 1), v, states=1, dt=dt),
    ):
        with pytest.raises(ArgumentError, match="dt must be None"):
            make()


def test_fixed_filter_outside_unit_circle_is_refused():
    with pytest.raises(ArgumentError, match="tf must exceed dt/2"):
        rmb.tunable_pid("C", dt=TS, tf=0.05)
    assert rmb.tunable_pid("C", dt=TS, tf=0.051).dt == TS


@pytest.mark.parametrize("block", ["pid", "tf", "ss"])
def test_discrete_subgradient_equals_finite_differences(block):
    K = {
        "pid": lambda: rmb.tunable_pid("C", dt=TS),
        "tf": lambda: rmb.tunable_tf("C", 1, 2, dt=TS),
        "ss": lambda: rmb.tunable_ss("C", 2, 1, 1, dt=TS),
    }[block]()
    CL = rmb.lft_lower(_plant(), K)
    pv = ParameterVector(CL.tunables)
    lft = TunableLFT(CL, pv)
    assert lft.dt == TS
    x = pv.initial() + 0.05 * np.random.default_rng(3).standard_normal(pv.size)
    if block == "pid":
        for name, v in {"C.Kp": 1.5, "C.Ki": 1.2, "C.Kd": 0.05, "C.Tf": 0.3}.items():
            x[pv.offsets[name]] = v
    A, B, Cm, D = lft.statespace(x)
    assert np.max(np.abs(np.linalg.eigvals(A))) < 0.99
    f0, g = Term(lft).evaluate(x)
    # the value against a dense unit-circle grid (a unique, simple peak)
    z = _circle(20001)
    sv = np.linalg.svd(np.moveaxis(control.ss(A, B, Cm, D, TS)(z), -1, 0), compute_uv=False)
    assert f0 == pytest.approx(sv[:, 0].max(), rel=1e-6)
    top = sv[:, 0]  # one input: one singular value; one local maximum near the peak
    peaks = (top[1:-1] >= top[:-2]) & (top[1:-1] >= top[2:]) & (top[1:-1] > 0.99 * f0)
    assert peaks.sum() + (top[-1] > 0.99 * f0) == 1
    fd = central_differences(lambda y: rmb.hinfnorm((*lft.statespace(y), TS), tol=1e-12)[0], x)
    np.testing.assert_allclose(g, fd, rtol=2e-4, atol=2e-5 * max(1.0, f0))


# MATLAB pid's discrete integrator formulas (IFormula/DFormula) as transfer functions
_IF = {
    "ForwardEuler": control.tf([TS], [1, -1], TS),
    "BackwardEuler": control.tf([TS, 0], [1, -1], TS),
    "Trapezoidal": control.tf([TS / 2, TS / 2], [1, -1], TS),
}


@pytest.mark.parametrize("iformula", list(_IF))
@pytest.mark.parametrize("dformula", list(_IF))
@pytest.mark.parametrize("fixed", [False, True])
def test_discrete_pid_formulas_equal_matlab(iformula, dformula, fixed):
    C = rmb.tunable_pid("C", dt=TS, iformula=iformula, dformula=dformula, tf=0.3 if fixed else None)
    vals = {"C.Kp": 1.7, "C.Ki": -0.6, "C.Kd": 0.45, "C.Tf": 0.3}
    K = C.usubs({k: v for k, v in vals.items() if k in C.tunables})
    # Kp + Ki IF(z) + Kd / (Tf + DF(z))
    ref = 1.7 + (-0.6) * _IF[iformula] + 0.45 / (0.3 + _IF[dformula])
    _same_response(K, ref)
    # filter pole 1 - Ts/Tf, Tf/(Tf + Ts), (Tf - Ts/2)/(Tf + Ts/2)
    pole = {"ForwardEuler": 1 - TS / 0.3, "BackwardEuler": 0.3 / 0.4, "Trapezoidal": 0.25 / 0.35}
    assert np.sort(np.linalg.eigvals(K.A)) == pytest.approx(np.sort([1.0, pole[dformula]]))


def test_formula_arguments_are_checked():
    with pytest.raises(ArgumentError, match="iformula applies to discrete blocks"):
        rmb.tunable_pid("C", iformula="BackwardEuler")
    with pytest.raises(ArgumentError, match="dformula must be one of"):
        rmb.tunable_pid("C", dt=TS, dformula="Tustin")
    # a fixed tf <= Ts/2 is fine where the filter is stable for every Tf
    assert rmb.tunable_pid("C", dt=TS, tf=0.01, dformula="BackwardEuler").dt == TS


def test_hinfstruct_with_trapezoidal_pid_tunes_a_stable_loop():
    C = rmb.tunable_pid("C", dt=TS, iformula="Trapezoidal", dformula="Trapezoidal")
    res = rmb.hinfstruct(_plant(), C, maxiter=60)
    assert np.max(np.abs(np.linalg.eigvals(res.closed_loop.A))) < 1
    v = {k: float(np.squeeze(x)) for k, x in res.values.items()}
    ref = v["C.Kp"] + v["C.Ki"] * _IF["Trapezoidal"] + v["C.Kd"] / (v["C.Tf"] + _IF["Trapezoidal"])
    _same_response(res.controller, ref)
    # the tuned PID is no worse than the tuned PI (a PI is the PID with Kd = 0)
    assert res.gamma <= rmb.hinfstruct(_plant(), rmb.tunable_pid("C", form="pi", dt=TS)).gamma
