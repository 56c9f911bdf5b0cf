"""Transfer functions whose leading denominator coefficient is uncertain.

``1 / (m s^2 + c s + k)`` is the textbook mass-spring-damper.  Its LFT needs each of
``m``, ``c`` and ``k`` once (``x2' = (u - k x1 - c x2) / m``: one ``1/m``); the values
are checked against the rational function evaluated directly with numpy.
"""

import control
import numpy as np
import pytest

import robustmb as rmb

s = control.tf("s")


def _response(sys, x):
    """The 1x1 frequency response of a substituted system at the complex point ``x``."""
    if isinstance(sys, control.StateSpace):
        a, b, c, d = (np.asarray(m, dtype=complex) for m in (sys.A, sys.B, sys.C, sys.D))
    else:  # ComplexStateSpace
        a, b, c, d = sys.A, sys.B, sys.C, sys.D
    return (c @ np.linalg.solve(x * np.eye(a.shape[0]) - a, b) + d)[0, 0]


def _check_values(model, direct, points, names, seed=0, dt=0):
    rng = np.random.default_rng(seed)
    elements = model.uncertainty
    for _ in range(6):
        values = {}
        for name in names:
            el = elements[name]
            if el.kind == "real":
                values[name] = rng.uniform(*el.range)
            else:
                r = el.radius * np.sqrt(rng.uniform())
                values[name] = el.nominal + r * np.exp(2j * np.pi * rng.uniform())
        sub = model.usubs(values)
        for w in points:
            x = 1j * w if dt == 0 else np.exp(1j * w * dt)
            ref = direct(values, x)
            got = _response(sub, x)
            assert abs(got - ref) <= 1e-12 * abs(ref)


def test_mass_spring_damper_uses_each_parameter_once():
    m = rmb.ureal("m", 2.0, percent=20)
    c = rmb.ureal("c", 0.5, range=(0.3, 0.9))
    k = rmb.ureal("k", 4.0, plusminus=(-1.0, 2.0))
    G = 1 / (m * s * s + c * s + k)
    assert G.blocks == {"m": 1, "c": 1, "k": 1}
    assert G.nstates == 2

    def direct(v, x):
        return 1.0 / (v["m"] * x * x + v["c"] * x + v["k"])

    _check_values(G, direct, [0.05, 0.9, 1.4, 7.0, 60.0], "mck")
    # the nominal model is the nominal transfer function
    ref = control.tf([1.0], [2.0, 0.5, 4.0])
    for w in (0.3, 1.4, 5.0):
        assert abs(_response(G.nominal(), 1j * w) - ref(1j * w)) <= 1e-12 * abs(ref(1j * w))


def test_proper_ratio_with_uncertain_leads():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    b = rmb.ureal("b", 3.0, percent=(-20, 40))
    G = a * s * s / (b * s * s + s + a)
    # v = (u - a x1 - x2) / b, y = a v: a twice (numerator and denominator), b once
    assert G.blocks == {"a": 2, "b": 1}

    def direct(v, x):
        return v["a"] * x * x / (v["b"] * x * x + x + v["a"])

    _check_values(G, direct, [0.05, 0.7, 5.0, 40.0], "ab", seed=1)


def test_gain_and_third_order():
    k = rmb.ureal("k", 2.0, percent=10)
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    b = rmb.ureal("b", 3.0, range=(2.0, 4.0))
    G = k / (a * s**3 + b * s**2 + s + 2.0)
    assert G.blocks["k"] == 1 and G.blocks["a"] == 1 and G.blocks["b"] == 1

    def direct(v, x):
        return v["k"] / (v["a"] * x**3 + v["b"] * x**2 + x + 2.0)

    _check_values(G, direct, [0.1, 0.6, 3.0], "kab", seed=2)


def test_complex_lead_coefficient():
    q = rmb.ucomplex("q", 0.5 + 0.2j, radius=0.1)
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    G = (s + a) / (q * s * s + s + 1)
    assert G.blocks == {"q": 1, "a": 1}

    def direct(v, x):
        return (x + v["a"]) / (v["q"] * x * x + x + 1)

    _check_values(G, direct, [0.2, 1.0, 9.0], "qa", seed=3)


@pytest.mark.parametrize("dt", [0.1, 0.5])
def test_discrete_time(dt):
    m = rmb.ureal("m", 2.0, percent=20)
    c = rmb.ureal("c", 0.5, range=(0.3, 0.9))
    z = control.tf([1.0, 0.0], [1.0], dt)
    G = (z + c) / (m * z * z - z + c)
    assert G.dt == dt
    # c x1 feeds both y and v: one occurrence carries it
    assert G.blocks == {"m": 1, "c": 1}

    def direct(v, x):
        return (x + v["c"]) / (v["m"] * x * x - x + v["c"])

    _check_values(G, direct, [0.3, 2.0, 5.0], "mc", seed=4, dt=dt)
