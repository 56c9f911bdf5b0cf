"""nominal, usubs (full, partial, uncertain and dynamic values), usample, lftdata."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import IllPosedError, SignalError, UncertainElementError


def _peak_gain_on_grid(sys, w):
    resp = sys(1j * w) if sys.dt == 0 else sys(np.exp(1j * w * sys.dt))
    resp = np.asarray(resp).reshape(sys.noutputs, sys.ninputs, -1)
    return max(np.linalg.norm(resp[:, :, i], 2) for i in range(resp.shape[2]))


def test_nominal_uses_declared_nominal_not_centre():
    k = rmb.ureal("k", 1.0, range=(0.0, 4.0))
    X = rmb.umat([[k, k * k], [1 / (k + 1), 3]])
    assert np.allclose(X.nominal(), [[1, 1], [0.5, 3]])


def test_partial_substitution_keeps_the_rest():
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0)
    X = rmb.umat([[a * b, a + b]])
    Y = X.usubs({"a": 0.5})
    assert isinstance(Y, rmb.UncertainMatrix) and set(Y.blocks) == {"b"}
    assert np.allclose(Y.usubs({"b": 3.0}), [[1.5, 3.5]])


def test_substituting_an_uncertain_expression():
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 0.5, range=(0.0, 1.0))
    X = rmb.umat([[a * a + 1]])
    Y = X.usubs({"a": 2 * b})
    assert set(Y.blocks) == {"b"}
    assert np.allclose(Y.usubs({"b": 0.3}), [[0.36 + 1]])


def test_ultidyn_substitution_static_and_dynamic():
    d = rmb.ultidyn("d", (1, 2), bound=0.5)
    H = rmb.uss(control.ss(-2.0, 1.0, 1.0, 0.0))
    P = H @ d  # 1x2
    val = np.array([[0.2, -0.1]])
    assert np.allclose(P.usubs({"d": val}).D, 0.0)
    Pv = P.usubs({"d": val})
    w = np.array([0.0, 1.0, 10.0])
    ref = np.array([1 / (1j * wi + 2) for wi in w])[:, None] * val
    got = np.array([np.asarray(Pv(1j * wi)).reshape(1, 2) for wi in w])
    assert np.allclose(got[:, 0, :], ref, atol=1e-12)
    dyn = control.ss(-3.0, [[1.0, 1.0]], [[0.3]], [[0.0, 0.1]])
    Pd = P.usubs({"d": dyn})
    got = np.asarray(Pd(2j)).reshape(1, 2)
    ref = (1 / (2j + 2)) * np.asarray(dyn(2j)).reshape(1, 2)
    assert np.allclose(got, ref, atol=1e-12)
    with pytest.raises(UncertainElementError, match="'d'.*shape"):
        P.usubs({"d": np.ones((2, 2))})


def test_ultidyn_samples_respect_the_bound():
    d = rmb.ultidyn("d", (2, 3), bound=0.7)
    X = rmb.uss(d)
    samples, values = X.usample(20, seed=4)
    w = np.logspace(-3, 3, 200)
    for smp in samples:
        assert np.all(np.linalg.eigvals(smp.A).real < 0)
        assert _peak_gain_on_grid(smp, w) <= 0.7 + 1e-12


def test_usample_reproducible_and_consistent():
    a = rmb.ureal("a", 1.0, range=(0.5, 3.0))
    b = rmb.ureal("b", -1.0, percent=50)
    s = control.tf("s")
    G = rmb.uss(a / (s + b * b + 1))
    s1, v1 = G.usample(5, seed=11)
    s2, v2 = G.usample(5, seed=11)
    assert v1 == v2
    for smp, v in zip(s1, v1, strict=True):
        assert 0.5 <= v["a"] <= 3.0 and -1.5 <= v["b"] <= -0.5
        ref = control.tf([v["a"]], [1, v["b"] ** 2 + 1])
        assert np.isclose(complex(smp(1j)), complex(ref(1j)), rtol=1e-12)


def test_usubs_errors():
    a = rmb.ureal("a", 1.0)
    X = rmb.umat([[a]])
    with pytest.raises(SignalError, match="'zz'"):
        X.usubs({"zz": 1.0})
    with pytest.raises(UncertainElementError, match="'a'.*complex"):
        X.usubs({"a": 1j})


def test_ill_posed_at_nominal_is_reported():
    a = rmb.ureal("a", 0.0, range=(-1.0, 2.0))  # centre 0.5, nominal 0
    with pytest.raises(IllPosedError, match="'a'|\\['a'\\]"):
        rmb.inv(rmb.umat(a))


def test_inverse_undefined_at_centre_is_reported():
    a = rmb.ureal("a", 0.5, range=(-1.0, 1.0))
    with pytest.raises(ValueError, match="singular"):
        1 / a


def test_lftdata_of_system_reconstructs_it():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    G = rmb.uss([[-a, 1.0], [0.0, -2 * a]], [[0.0], [1.0]], [[1.0, a]], [[0.0]])
    M, blocks = rmb.lftdata(G)
    assert [b[0] for b in blocks] == ["a"]
    r = blocks[0][2]
    delta = 0.3
    val = {"a": float(G.uncertainty["a"].denormalize(delta))}
    ref = G.usubs(val)
    # Close w = delta z on M's first r channels by hand.
    A, B, C, D = (np.asarray(x) for x in (M.A, M.B, M.C, M.D))
    Dz = D[:r, :r]
    k = delta * np.linalg.inv(np.eye(r) - Dz * delta)
    A2 = A + B[:, :r] @ k @ C[:r]
    B2 = B[:, r:] + B[:, :r] @ k @ D[:r, r:]
    C2 = C[r:] + D[r:, :r] @ k @ C[:r]
    D2 = D[r:, r:] + D[r:, :r] @ k @ D[:r, r:]
    sys = control.ss(A2, B2, C2, D2)
    for s in (0.1j, 1j, 3 + 1j):
        assert np.isclose(complex(sys(s)), complex(ref(s)), rtol=1e-12)


def test_complex_values_in_systems_are_kept():
    import robustmb.lft.complex_statespace as css

    c = rmb.ucomplex("c", 1.0, radius=0.5)
    G = rmb.uss([[-2.0]], [[1.0]], [[c]], [[0.0]])
    sub = G.usubs({"c": 1 + 0.3j})
    assert isinstance(sub, css.ComplexStateSpace)
    assert np.isclose(complex(sub(1j)[0, 0]), (1 + 0.3j) / (1j + 2), rtol=1e-14)
    samples, values = G.usample(4, seed=0)
    for smp, v in zip(samples, values, strict=True):
        assert np.isclose(complex(smp(0.5j)[0, 0]), v["c"] / (0.5j + 2), rtol=1e-13)


def test_division_by_an_improper_transfer_function():
    s = control.tf("s")
    k = rmb.ureal("k", 2.0)
    H = rmb.uss(k / (s + 1)) / (s + 3)
    ref = control.tf([2.5], [1, 4, 3])
    assert np.isclose(complex(H.usubs({"k": 2.5})(1j)), complex(ref(1j)), rtol=1e-12)


def test_concatenated_channels_round_trip_through_python_control():
    # hstack(G, G) repeats G's input name; python-control keeps one label per name,
    # so the names must be made unique for nominal() to convert back.
    a = rmb.ureal("a", 2.0, range=(1.0, 4.0))
    G = rmb.uss(a * control.tf([1.0], [1.0, 1.0]))
    G.input_names, G.output_names = ["u"], ["y"]
    for X in (rmb.hstack(G, G), rmb.vstack(G, G), rmb.block_diag(G, G)):
        nom = X.nominal()
        assert nom.input_labels == X.input_names and nom.output_labels == X.output_names
        back = rmb.lft.model.as_model(nom)
        assert back.shape == X.shape and back.input_names == X.input_names
        # Same transfer: 2/(s+1) per channel, evaluated independently at s = 1j.
        expected = 2.0 / (1j + 1.0)
        got = np.asarray(nom(1j)).reshape(X.shape)
        ref = expected * (np.eye(2) if X.shape == (2, 2) else np.ones(X.shape))
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert rmb.hstack(G, G).input_names == ["u[0]", "u[1]"]
    # Names set by hand to repeat are also made unique on the way to python-control.
    H = rmb.hstack(G, G)
    H.input_names = ["v", "v"]
    assert H.nominal().input_labels == ["v[0]", "v[1]"]
    # A python-control system whose repeated names were merged is a clear error.
    merged = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0]], [[0.0, 0.0]], inputs=["w", "w"])
    with pytest.raises(SignalError, match="distinct input names"):
        rmb.lft.model.as_model(merged)
    names = ["u[0]", "u", "u", "u[0]", "d"]
    out = rmb.lft.model.unique_names(names)
    assert len(set(out)) == len(names) and out[4] == "d"
