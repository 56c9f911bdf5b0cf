"""``uss`` and ``umat``: copies of uncertain objects, sampling times, entries at fault.

References are python-control transfer functions and numpy evaluated at the
substituted numbers.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, UncertainTypeError


def _k():
    return rmb.ureal("k", 2.0, range=(1.0, 4.0))


def test_uss_of_an_uncertain_system_is_a_copy():
    s = control.tf("s")
    G = rmb.uss(_k() / (s + 1))
    G.name, G.input_names, G.output_names = "plant", ["u"], ["y"]
    M = rmb.uss(G)
    assert M is not G
    assert (M.name, M.input_names, M.output_names, M.dt) == ("plant", ["u"], ["y"], 0)
    M.name, M.output_names = "model", ["ym"]
    assert (G.name, G.output_names) == ("plant", ["y"])
    # the copy and the original can be connected together (names unique)
    T = rmb.connect([G, M, rmb.sumblk("e = r - ym")], None, ["u", "r"], ["y", "e"])
    kv = 3.0
    t = T.usubs({"k": kv})
    for w in (0.2, 1.0, 7.0):
        g = kv / (1j * w + 1)
        np.testing.assert_allclose(t(1j * w), [[g, 0.0], [-g, 1.0]], rtol=1e-12, atol=1e-14)


def test_umat_of_an_uncertain_matrix_is_a_copy():
    X = rmb.umat([[_k(), 1.0]])
    names = X.input_names
    Y = rmb.umat(X)
    assert Y is not X and Y.input_names == names
    Y.input_names, Y.name = ["p", "q"], "Y"
    assert X.input_names == names and X.name != "Y"
    np.testing.assert_array_equal(Y.usubs({"k": 3.0}), [[3.0, 1.0]])


def test_uss_dt_is_applied_or_refused_never_ignored():
    tf_c = control.tf([1.0], [1.0, 1.0])
    tf_d = control.tf([1.0], [1.0, 0.5], 0.1)
    with pytest.raises(ArgumentError, match=r"uss: dt=0\.1 differs from the sampling time 0\b"):
        rmb.uss(tf_c, dt=0.1)
    with pytest.raises(ArgumentError, match=r"dt=0\.2 .* sampling time 0\.1"):
        rmb.uss(tf_d, dt=0.2)
    assert rmb.uss(tf_d).dt == 0.1
    assert rmb.uss(tf_d, dt=0.1).dt == 0.1
    X = rmb.umat([[_k()]])
    assert rmb.uss(X).dt is None  # a static system combines with any sampling time
    G = rmb.uss(X, dt=0.1)
    assert G.dt == 0.1 and G.is_system
    with pytest.raises(DimensionError, match="sampling times"):
        G + rmb.uss(tf_c)
    np.testing.assert_array_equal(G.usubs({"k": 3.0}).D, [[3.0]])


def test_non_finite_entry_of_a_mixed_matrix_is_named():
    a = _k()
    with pytest.raises(DimensionError, match=r"umat\(\): entry \(0, 1\) is nan"):
        rmb.umat([[a, np.nan]])
    with pytest.raises(DimensionError, match=r"entry \(1, 0\) is inf"):
        rmb.umat([[a, 1.0], [np.inf, a]])


def test_dynamic_entry_names_the_element_and_the_matrix():
    d = rmb.ultidyn("d", 1)
    msg = r"uss\(\): matrix A: the ultidyn 'd' in entry \(0, 0\).*arithmetic"
    with pytest.raises(UncertainTypeError, match=msg):
        rmb.uss([[d]], [[1.0]], [[1.0]], [[0.0]])
    with pytest.raises(UncertainTypeError, match=r"matrix D: the ultidyn 'd' in entry \(0, 1\)"):
        rmb.uss([[-1.0]], [[1.0]], [[1.0]], [[0.0, d]])
    with pytest.raises(UncertainTypeError, match=r"umat\(\): the ultidyn 'd' is a dynamic"):
        rmb.umat(d)


def test_usubs_refuses_a_boolean_value():
    X = rmb.umat([[_k()]])
    for flag in (True, np.True_):
        with pytest.raises(ArgumentError, match=r"'k'.*boolean"):
            X.usubs({"k": flag})


def test_usubs_outside_the_range_is_exact():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    X = rmb.umat([[a * a + 1 / a, a]])
    for v in (10.0, -3.0, 0.1):
        np.testing.assert_allclose(X.usubs({"a": v}), [[v * v + 1 / v, v]], rtol=1e-13)
    d = rmb.ultidyn("d", 1, bound=0.5)
    G = rmb.uss(control.tf([1.0], [1.0, 1.0])) * (1 + d)
    g = G.usubs({"d": 5.0})  # ten times the bound
    for w in (0.3, 2.0):
        assert complex(g(1j * w)) == pytest.approx(6.0 / (1j * w + 1), rel=1e-13)
