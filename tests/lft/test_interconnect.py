"""Name-based connect, feedback, signal names, dimension errors and rational expressions."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import DimensionError, IllPosedError, SignalError


def _named(sys, name, inputs, outputs):
    m = rmb.uss(sys)
    m.name, m.input_names, m.output_names = name, inputs, outputs
    return m


def _loop(k_value=None):
    k = rmb.ureal("k", 2.0, percent=20)
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    s = control.tf("s")
    G = _named(k / (s + a), "G", ["u"], ["y"])
    C = _named(control.tf([3.0, 1.0], [1.0, 5.0]), "C", ["e"], ["u"])
    S = _named(control.ss([], [], [], [[1.0, -1.0]]), "S", ["r", "y"], ["e"])
    return G, C, S


def test_connect_by_names_equals_feedback_formula():
    G, C, S = _loop()
    T = rmb.connect([G, C, S], inputs=["r"], outputs=["y", "u"])
    assert T.input_names == ["r"] and T.output_names == ["y", "u"]
    assert T.blocks == {"k": 1, "a": 1}
    T2 = rmb.feedback(G @ C, 1.0)
    for vals in ({"k": 1.7, "a": 0.6}, {"k": 2.3, "a": 1.9}):
        Tv, T2v = T.usubs(vals), T2.usubs(vals)
        g = control.tf([vals["k"]], [1, vals["a"]])
        c = control.tf([3.0, 1.0], [1.0, 5.0])
        for s in (0.2j, 1j, 7j):
            ref = complex(g(s) * c(s) / (1 + g(s) * c(s)))
            assert np.isclose(complex(np.asarray(Tv(s))[0, 0]), ref, rtol=1e-12)
            assert np.isclose(complex(T2v(s)), ref, rtol=1e-12)
            assert np.isclose(complex(np.asarray(Tv(s))[1, 0]), ref / complex(g(s)), rtol=1e-12)


def test_connect_explicit_connections_with_sign():
    G, C, _ = _loop()
    G.input_names = ["uG"]
    C.input_names = ["eC"]
    T = rmb.connect(
        [G, C], connections=[["G.uG", "C.u"], ["C.eC", "-G.y"]], inputs=[["C.eC"]], outputs=["G.y"]
    )
    ref = rmb.feedback(G @ C, 1.0)
    v = {"k": 2.1, "a": 1.3}
    assert np.isclose(complex(T.usubs(v)(1j)), complex(ref.usubs(v)(1j)), rtol=1e-12)


def test_algebraic_loop_eliminated_exactly():
    k = rmb.ureal("k", 0.5, range=(0.1, 0.9))
    A = _named(rmb.umat([[k]]), "A", ["e"], ["v"])
    B = _named(control.ss([], [], [], [[1.0, 1.0]]), "B", ["r", "v"], ["e"])
    T = rmb.connect([A, B], inputs=["r"], outputs=["v"])
    for kv in (0.1, 0.4, 0.9):  # v = k (r + v)  =>  v = k / (1 - k) r
        assert np.isclose(float(np.asarray(T.usubs({"k": kv}).D)[0, 0]), kv / (1 - kv), rtol=1e-12)


def test_ill_posed_loop_names_its_signals():
    A = _named(control.ss([], [], [], [[1.0]]), "A", ["e"], ["v"])
    B = _named(control.ss([], [], [], [[1.0, 1.0]]), "B", ["r", "v"], ["e"])
    with pytest.raises(IllPosedError) as exc:
        rmb.connect([A, B], inputs=["r"], outputs=["v"])
    assert "A.v" in str(exc.value) and "B.e" in str(exc.value)


def test_a_scalar_loop_singular_to_rounding_at_the_nominal_is_ill_posed():
    # k / (1 - k/3) at the nominal k = 3: 1 - 3 * (1/3) is 1.1e-16, not 0, and the
    # condition number of a 1 x 1 loop is 1 whatever it is; the cancellation is measured
    k = rmb.ureal("k", 3.0, plusminus=(-0.5, 2.0))
    with pytest.raises(IllPosedError, match="nominal"):
        rmb.feedback(rmb.umat([[k]]), 1 / 3.0, sign=1)
    F = rmb.feedback(rmb.umat([[k]]), 1 / 3.5, sign=1)  # singular at 3.5, inside the range
    assert np.isclose(float(np.asarray(F.nominal())[0, 0]), 3.0 / (1 - 3.0 / 3.5), rtol=1e-12)


def test_unknown_and_ambiguous_signals():
    G, C, S = _loop()
    with pytest.raises(SignalError, match="'nope'"):
        rmb.connect([G, C, S], inputs=["nope"], outputs=["y"])
    with pytest.raises(SignalError, match="'G.zz'"):
        rmb.connect([G, C, S], inputs=["r"], outputs=["G.zz"])
    C2 = _named(control.tf([1.0], [1.0, 2.0]), "C2", ["x"], ["y"])
    with pytest.raises(SignalError, match="ambiguous"):
        rmb.connect([G, C2], inputs=["u"], outputs=["y"])
    with pytest.raises(SignalError, match="unique"):
        rmb.connect([G, G], inputs=["u"], outputs=["G.y"])


def test_dimension_errors_name_shapes():
    a = rmb.ureal("a", 1.0)
    X = rmb.umat([[a, 1.0]])
    with pytest.raises(DimensionError, match=r"\(1, 2\).*\(3, 3\)"):
        X + np.ones((3, 3))
    with pytest.raises(DimensionError, match="2 inputs vs 3 outputs"):
        X @ np.ones((3, 1))
    with pytest.raises(DimensionError, match="operand 1 has 2"):
        rmb.hstack(X, np.ones((2, 1)))
    with pytest.raises(DimensionError, match="non-finite"):
        X + np.array([[np.nan, 0.0]])
    with pytest.raises(DimensionError, match="expected 2 names"):
        X.input_names = ["only_one"]


def test_signal_names_flow_through_operations():
    G, C, S = _loop()
    L = G @ C
    assert L.input_names == ["e"] and L.output_names == ["y"]
    assert G[0, "u"].input_names == ["u"]
    H = rmb.block_diag(G, C)
    assert H.input_names == ["u", "e"] and H.output_names == ["y", "u"]
    assert H.T.input_names == ["y", "u"]


def test_rational_expressions_with_s():
    s = control.tf("s")
    k = rmb.ureal("k", 2.0, percent=10)
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    z = rmb.ureal("z", 3.0, percent=30)
    H = k * (s + z) / (s * s + a * s + 4)
    assert isinstance(H, rmb.UncertainSystem)
    assert rmb.simplify(H).blocks == {"k": 1, "z": 1, "a": 1}
    v = {"k": 1.9, "a": 0.7, "z": 2.5}
    ref = control.tf([1.9, 1.9 * 2.5], [1, 0.7, 4])
    for w in (0.0, 0.5, 2.0, 40.0):
        assert np.isclose(complex(H.usubs(v)(1j * w)), complex(ref(1j * w)), rtol=1e-12)
    with pytest.raises(Exception, match="improper"):
        rmb.uss((s + a) * s / (s + 1))


def test_discrete_systems_keep_their_sampling_time():
    a = rmb.ureal("a", 0.5, range=(0.2, 0.8))
    G = rmb.uss([[a]], [[1.0]], [[1.0]], [[0.0]], dt=0.1)
    assert G.nominal().dt == 0.1
    H = rmb.uss(control.ss(0.3, 1.0, 1.0, 0.0, 0.2))
    with pytest.raises(DimensionError, match="sampling times"):
        G + H


def test_a_vector_input_shared_by_two_systems_stays_a_vector():
    # 'r' of width 2 feeds a summing junction and a feedforward block: two external
    # channels, each driving both systems (python-control's interconnect as reference)
    k = rmb.ureal("k", 4.0, range=(3.0, 5.0))
    S = rmb.sumblk("e = r - y", 2)
    F = rmb.uss(rmb.umat([[k, 0.0], [0.0, 2.0]]))
    F.name, F.input_names, F.output_names = "F", ["r[0]", "r[1]"], ["f[0]", "f[1]"]
    T = rmb.connect([S, F], inputs=["r"], outputs=["e", "f"], ignore_inputs=["y"])
    assert T.input_names == ["r[0]", "r[1]"]
    Sn = control.summing_junction(inputs=["r", "-y"], output="e", dimension=2, name="S")
    Fn = control.ss(
        [], [], [], [[4.0, 0.0], [0.0, 2.0]], inputs=["r[0]", "r[1]"], outputs=["f[0]", "f[1]"]
    )
    Tn = control.interconnect([Sn, Fn], inputs=["r"], outputs=["e", "f"])
    np.testing.assert_array_equal(np.asarray(rmb.usubs(T, {"k": 4.0}).D), Tn.D)


def test_summed_inputs_of_different_widths_name_both():
    G = rmb.uss(control.ss(-np.eye(2), np.eye(2), np.eye(2), 0))
    G.name, G.input_names, G.output_names = "G", ["u[0]", "u[1]"], ["y[0]", "y[1]"]
    K = rmb.uss(control.ss(-np.eye(3), np.eye(3), np.eye(3), 0))
    K.name, K.input_names, K.output_names = "K", ["e[0]", "e[1]", "e[2]"], ["v[0]", "v[1]", "v[2]"]
    with pytest.raises(SignalError, match=r"summed inputs.*2 and 3 channels"):
        rmb.connect([G, K], inputs=[["G.u", "K.e"]], outputs=["G.y"], check_unused=False)


def _response(x, s):
    """Value at ``s`` of a substituted object (a matrix when static)."""
    return complex(np.asarray(x(s) if callable(x) else x).item())


def test_a_transfer_function_divided_by_an_uncertain_object():
    # python-control's TransferFunction.__truediv__ raises on operands it cannot convert;
    # robustmb's wrapper leaves them to the uncertain divisor (reference: G(s) / y(s)
    # evaluated pointwise after substitution)
    a = rmb.ureal("a", 2.0, range=(1.0, 3.0))
    G = control.tf(1, [1, 1])
    divisors = ((a, 2.5), (rmb.umat([[a]]), 1.5), (rmb.uss(control.tf([1, 3], [1, 2])) * a, 3.0))
    for divisor, at in divisors:
        got, y = rmb.usubs(G / divisor, {"a": at}), rmb.usubs(divisor, {"a": at})
        for w in (0.1, 1.0, 7.0):
            s = 1j * w
            expect = (1 / (s + 1)) / _response(y, s)
            np.testing.assert_allclose(_response(got, s), expect, rtol=1e-12)
    half = G / 2.0  # numbers still go to python-control
    assert isinstance(half, control.TransferFunction)
    assert np.isclose(_response(half, 1j), 0.5 / (1j + 1), rtol=1e-14)
    with pytest.raises(DimensionError, match="strictly proper"):
        G / (rmb.uss(control.tf(1, [1, 2])) * a)
