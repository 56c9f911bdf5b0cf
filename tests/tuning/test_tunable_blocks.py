"""Tunable parameters and blocks: exact LFTs of the maps they stand for."""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.errors import DimensionError, FreeTunableError, UncertainElementError

finite = st.floats(-5, 5, allow_nan=False)


def _fr(sys, w):
    return np.atleast_2d(control.evalfr(sys, 1j * w))


def test_realp_validation():
    with pytest.raises(UncertainElementError, match="'k'"):
        rmb.realp("k", 2.0, minimum=3.0)
    with pytest.raises(UncertainElementError, match="finite"):
        rmb.realp("k", np.nan)
    with pytest.raises(UncertainElementError, match="identifier"):
        rmb.realp("a b", 1.0)
    with pytest.raises(UncertainElementError, match="minimum exceeds maximum"):
        rmb.realp("k", 0.0, minimum=1.0, maximum=-1.0)
    with pytest.raises(UncertainElementError, match="shape"):
        rmb.realp("K", np.zeros((2, 2)), minimum=np.zeros(3))


# the fast mu bound's BFGS once overflowed (rho^2 with tiny steps) on this model
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_tunables_are_not_uncertain():
    k = rmb.realp("k", 2.0)
    g = rmb.ureal("g", 1.0, percent=10)
    X = rmb.uss(rmb.umat([[k * g]]))
    assert list(X.tunables) == ["k"] and list(X.uncertainty) == ["g"]
    # nominal substitutes only the uncertain element; k stays free.
    nom = X.nominal()
    assert list(nom.tunables) == ["k"] and not nom.uncertainty
    # usample never samples a tunable.
    samples, values = X.usample(3, seed=1)
    assert all(set(v) == {"g"} for v in values)
    for smp, v in zip(samples, values, strict=True):
        assert np.isclose(smp.usubs({"k": 3.0}).D[0, 0], 3.0 * v["g"])
    for fn in (rmb.robstab, rmb.wcgain):
        with pytest.raises(FreeTunableError, match=r"tunable parameters \['k'\]"):
            fn(X)
    # Once the tunable is substituted the analysis runs.
    wc = rmb.wcgain(X.usubs({"k": 3.0}))
    assert wc.lower == pytest.approx(3.3, rel=1e-6) and wc.upper >= 3.3 * (1 - 1e-9)


def test_two_declarations_under_one_name_conflict():
    with pytest.raises(rmb.errors.NameConflictError):
        rmb.realp("k", 1.0) + rmb.realp("k", 2.0)


@settings(max_examples=25, deadline=None)
@given(kp=finite, ki=finite, kd=finite, tf=st.floats(0.01, 2.0), w=st.floats(0.01, 100))
def test_pid_matches_formula(kp, ki, kd, tf, w):
    C = rmb.tunable_pid("C")
    K = C.usubs({"C.Kp": kp, "C.Ki": ki, "C.Kd": kd, "C.Tf": tf})
    s = 1j * w
    ref = kp + ki / s + kd * s / (tf * s + 1)
    assert np.isclose(_fr(K, w), ref, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("form", ["p", "i", "pi", "pd"])
def test_pid_forms(form):
    C = rmb.tunable_pid("C", form=form, tf=0.05 if "d" in form else None)
    names = {"p": "Kp", "i": "Ki", "d": "Kd"}
    assert sorted(C.tunables) == sorted(f"C.{names[c]}" for c in form)
    vals = {f"C.{names[c]}": v for c, v in zip(form, (1.5, 0.7), strict=False)}
    K = C.usubs(vals)
    s = 2j
    ref = vals.get("C.Kp", 0) + vals.get("C.Ki", 0) / s + vals.get("C.Kd", 0) * s / (0.05 * s + 1)
    assert np.isclose(_fr(K, 2.0), ref)


@settings(max_examples=20, deadline=None)
@given(
    nz=st.integers(0, 3),
    npol=st.integers(0, 3),
    data=st.lists(finite, min_size=8, max_size=8),
    w=st.floats(0.1, 10),
)
def test_tunable_tf_matches_polynomials(nz, npol, data, w):
    if nz > npol:
        with pytest.raises(DimensionError, match="nzeros"):
            rmb.tunable_tf("F", nz, npol)
        return
    F = rmb.tunable_tf("F", nz, npol)
    num = np.array(data[: nz + 1])
    den = np.array(data[4 : 4 + npol])
    vals = {"F.num": [num]}
    if npol:
        vals["F.den"] = [den]
    G = F.usubs(vals)
    s = 1j * w
    dval = np.polyval(np.r_[1.0, den], s)
    if abs(dval) < 1e-3:
        return
    assert np.isclose(_fr(G, w), np.polyval(num, s) / dval, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("form", ["full", "companion", "diag"])
def test_tunable_ss_substitution(form):
    rng = np.random.default_rng(4)
    C = rmb.tunable_ss("C", 3, 2, 2, form=form)
    a, b, c, d = (rng.standard_normal(s) for s in ((3, 3), (3, 2), (2, 3), (2, 2)))
    K = C.usubs({"C.A": a, "C.B": b, "C.C": c, "C.D": d})
    ref = control.ss(a, b, c, d)
    for w in (0.3, 3.0):
        np.testing.assert_allclose(_fr(K, w), _fr(ref, w), rtol=1e-10, atol=1e-12)
    free = C.tunables["C.A"].free
    expected = {"full": np.ones((3, 3), bool), "diag": np.eye(3, dtype=bool)}
    if form in expected:
        assert np.array_equal(free, expected[form])
    else:
        assert free[-1].all() and not free[:-1].any()
    # The initial value is stable: A = -I (full), else the distinct poles -1, -4/3, -5/3
    # (a companion matrix with a repeated pole would be defective).
    a0 = C.tunables["C.A"].value
    want = -np.ones(3) if form == "full" else -np.array([1.0, 4 / 3, 5 / 3])
    np.testing.assert_allclose(np.sort(np.linalg.eigvals(a0).real)[::-1], want, atol=1e-9)


def test_feedback_with_tunable_gain_and_uncertainty_is_exact():
    """A tunable gain in a loop with an uncertain plant: substitute everything and compare."""
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    s = control.tf("s")
    G = rmb.uss(1.0 / (s + a))
    K = rmb.tunable_gain("K", 1, 1)
    T = rmb.feedback(G @ K, 1.0)
    assert set(T.tunables) == {"K"} and set(T.uncertainty) == {"a"}
    for av, kv in [(0.7, 3.0), (1.9, -0.3)]:
        got = T.usubs({"a": av, "K": [[kv]]})
        ref = control.feedback(control.tf([kv], [1.0, av]), 1)
        for w in (0.1, 1.0, 10.0):
            assert np.isclose(_fr(got, w)[0, 0], _fr(ref, w)[0, 0])


def test_tunable_gain_in_connect():
    G = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]], inputs="u", outputs="y", name="G")
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["e"], ["u"]
    S = rmb.uss(rmb.umat([[1.0, -1.0]]))
    S.input_names, S.output_names, S.name = ["r", "y"], ["e"], "S"
    CL = rmb.connect([G, K, S], None, ["r"], ["y"])
    assert list(CL.tunables) == ["K"]
    got = CL.usubs({"K": [[4.0]]})
    assert np.isclose(_fr(got, 0.0)[0, 0], 4.0 / 5.0)


def test_tunable_surface_values_and_shared_scheduling():
    v = rmb.ureal("v", 10.0, range=(5.0, 15.0))
    w = rmb.ureal("w", 0.0, range=(-2.0, 2.0))
    K = rmb.tunable_surface("K", (1, 1), [v, w], basis="polynomial", degree=2)
    # Monomials of degree 1 then 2: s_v, s_w, then s_v^2, s_v s_w, s_w^2 (as affine first).
    assert sorted(K.tunables) == [f"K.M{i}" for i in range(6)]
    rng = np.random.default_rng(3)
    coef = {f"K.M{i}": rng.standard_normal((1, 1)) for i in range(6)}
    for vv, ww in [(5.0, -2.0), (12.0, 0.5), (15.0, 2.0)]:
        got = K.usubs({**coef, "v": vv, "w": ww}).D[0, 0]
        sv, sw = (vv - 10.0) / 5.0, ww / 2.0
        # Reference value: M0 + sum of coefficient x monomial, monomials enumerated here.
        from robustmb.tuning.tunable_surface import _basis_terms

        mono = _basis_terms([v, w], "polynomial", 2)
        ref = coef["K.M0"][0, 0] + sum(
            coef[f"K.M{i + 1}"][0, 0] * sv ** p[0] * sw ** p[1] for i, p in enumerate(mono)
        )
        assert np.isclose(got, ref)
    assert sorted(_basis_terms([v, w], "polynomial", 2)) == sorted(
        [(1, 0), (0, 1), (2, 0), (1, 1), (0, 2)]
    )
    # Sharing with a plant: the scheduling element is one Delta channel, by name.
    s = control.tf("s")
    G = rmb.uss(1 / (s + v))
    L = G @ rmb.tunable_surface("Kv", (1, 1), v)
    assert set(L.uncertainty) == {"v"} and set(L.tunables) == {"Kv.M0", "Kv.M1"}
    got = L.usubs({"v": 7.0, "Kv.M0": [[1.0]], "Kv.M1": [[4.0]]})
    assert np.isclose(_fr(got, 1.0)[0, 0], (1.0 + 4.0 * (7.0 - 10.0) / 5.0) / (1j + 7.0))


def test_tunable_surface_state_space():
    v = rmb.ureal("v", 0.0, range=(-1.0, 1.0))
    K = rmb.tunable_surface("K", (1, 1), v, states=1)
    m0 = np.array([[-2.0, 1.0], [3.0, 0.5]])
    m1 = np.array([[0.5, 0.0], [1.0, 0.0]])
    G = K.usubs({"K.M0": m0, "K.M1": m1, "v": 0.4})
    m = m0 + 0.4 * m1
    ref = control.ss(m[:1, :1], m[:1, 1:], m[1:, :1], m[1:, 1:])
    assert np.isclose(_fr(G, 2.0)[0, 0], _fr(ref, 2.0)[0, 0])
