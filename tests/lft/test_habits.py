"""numpy and MATLAB habits: stacking lists, dividing by polynomials in s, sumblk, usubs, usample.

References are computed with python-control transfer functions and numpy on the
substituted numbers, independently of the LFT algebra.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import DimensionError, SignalError, UncertainElementError, UncertainTypeError


def test_vstack_hstack_accept_a_list_as_numpy_does():
    a = rmb.ureal("a", 1.0)
    assert rmb.vstack([a, 1.0]).shape == (2, 1)
    assert rmb.hstack((a, 2 * a, 3.0)).shape == (1, 3)
    np.testing.assert_array_equal(
        rmb.vstack([[1.0, 2.0], [3.0, 4.0]]).nominal(), np.vstack([[1.0, 2.0], [3.0, 4.0]])
    )
    np.testing.assert_array_equal(rmb.vstack([a, 1.0]).usubs({"a": 0.5}), [[0.5], [1.0]])


def test_vstack_of_a_list_of_systems():
    a = rmb.ureal("a", 1.0)
    G = rmb.uss(control.tf([1.0], [1.0, 1.0]) * a)
    S = rmb.vstack([G, 2 * G])
    assert S.shape == (2, 1)
    B = rmb.block_diag([G, G])
    assert B.shape == (2, 2)
    g = S.usubs({"a": 1.5})
    np.testing.assert_allclose(g.dcgain().ravel(), [1.5, 3.0], rtol=1e-13)


def test_division_by_an_uncertain_polynomial_in_s():
    s = control.tf("s")
    W = control.tf([1.0, 1.0], [0.1, 1.0])
    D = rmb.ultidyn("D", 1)
    k = rmb.ureal("k", 2.0)
    tau = rmb.ureal("tau", 0.1, percent=10)
    L = k * (1 + W * D) / (s * (tau * s + 1))
    assert L.shape == (1, 1) and L.nstates == 3
    for kv, tv, dv in ((2.5, 0.105, 0.5), (1.2, 0.092, -0.8)):
        got = L.usubs({"k": kv, "tau": tv, "D": np.array([[dv]])})
        ref = kv * (1 + W * dv) / (s * (tv * s + 1))
        for w in (0.1, 2.0, 30.0):
            assert complex(got(1j * w)) == pytest.approx(complex(ref(1j * w)), rel=1e-12)


def test_improper_product_names_the_operation():
    s = control.tf("s")
    k = rmb.ureal("k", 2.0)
    a = rmb.ureal("a", 1.0)
    G = rmb.uss(control.tf([1.0], [1.0, 1.0]) * k)
    with pytest.raises(UncertainTypeError, match=r"cannot compute .*\*.*improper"):
        G * (s + a)


def test_ultidyn_integer_shape_and_fractional_refused():
    assert rmb.ultidyn("D", 1).shape == (1, 1)
    assert rmb.ultidyn("D", 3).shape == (3, 3)
    assert rmb.ultidyn("D", (2, np.int64(3))).shape == (2, 3)
    with pytest.raises(UncertainElementError, match="'D'.*ny.*integer.*1.5"):
        rmb.ultidyn("D", (1.5, 1))
    with pytest.raises(UncertainElementError, match="'D'.*nu.*integer"):
        rmb.ultidyn("D", (1, 2.5))


def test_sumblk_in_connect():
    k = rmb.ureal("k", 2.0, percent=10)
    G = rmb.uss(control.tf([1.0], [1.0, 1.0]) * k)
    G.name, G.input_names, G.output_names = "G", ["u"], ["y"]
    C = rmb.uss(control.ss([], [], [], [[3.0]]))
    C.name, C.input_names, C.output_names = "C", ["e"], ["u"]
    T = rmb.connect([G, C, rmb.sumblk("e = r - y")], inputs=["r"], outputs=["y"])
    # 3k/(s + 1 + 3k) at dc: 3k / (1 + 3k)
    assert float(T.usubs({"k": 2.2}).dcgain()) == pytest.approx(6.6 / 7.6, rel=1e-13)


def test_sumblk_vector_and_signs():
    S = rmb.sumblk("e = -r + y - w", 2)
    assert S.output_names == ["e[0]", "e[1]"]
    np.testing.assert_array_equal(S.nominal(), np.hstack([-np.eye(2), np.eye(2), -np.eye(2)]))


@pytest.mark.parametrize(
    ("expr", "match"),
    [("e - r", "one '='"), ("e = r y", "cannot read"), ("1e = r", "'1e'"), ("e = ", "no input")],
)
def test_sumblk_bad_expressions(expr, match):
    with pytest.raises(SignalError, match=match):
        rmb.sumblk(expr)


def test_top_level_usubs_and_usample():
    a = rmb.ureal("a", 1.0, range=(0.0, 2.0))
    X = rmb.umat([[a, 2 * a]])
    np.testing.assert_array_equal(rmb.usubs(X, {"a": 0.5}), [[0.5, 1.0]])
    np.testing.assert_array_equal(rmb.usubs(X, "a", 1.5), [[1.5, 3.0]])
    samples, values = rmb.usample(X, 5, seed=3)
    assert len(samples) == 5
    for smp, v in zip(samples, values, strict=True):
        np.testing.assert_allclose(smp, [[v["a"], 2 * v["a"]]], rtol=1e-15)
    with pytest.raises(SignalError, match="pairs"):
        rmb.usubs(X, "a", 1.0, "b")


def test_usample_without_uncertainty_returns_n_samples():
    samples, values = rmb.usample(rmb.umat([[1.0, 2.0]]), 4)
    assert len(samples) == 4 and values == [{}] * 4
    sys = rmb.uss(control.tf([1.0], [1.0, 1.0]))
    samples, _ = sys.usample(3)
    assert len(samples) == 3 and all(isinstance(x, control.StateSpace) for x in samples)
    with pytest.raises(DimensionError, match="n must be a positive integer"):
        rmb.usample(sys, 0)


def test_indexing_by_a_name_two_outputs_carry_is_refused():
    """``T["e", "r"]`` with two outputs named "e" used to return the first one silently."""
    k = rmb.ureal("k", 2.0, percent=10)
    T = rmb.vstack(
        rmb.uss(control.tf([1.0], [1.0, 1.0])) * k, 3 * rmb.uss(control.tf([1.0], [1.0, 2.0]))
    )
    T.input_names, T.output_names = ["r"], ["e", "e"]
    with pytest.raises(SignalError, match=r"'e' is the name of outputs \[0, 1\]"):
        T["e", "r"]
    # positions still pick either channel: the second is 3 / (s + 2), 1.5 at s = 0
    np.testing.assert_allclose(control.dcgain(T[1, "r"].nominal()), 1.5, rtol=1e-14)
    np.testing.assert_allclose(control.dcgain(T[0, "r"].usubs({"k": 2.2})), 2.2, rtol=1e-14)
