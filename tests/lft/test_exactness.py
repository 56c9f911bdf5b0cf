"""Exactness of the LFT algebra, checked by property-based testing.

A random expression over uncertain elements, constant matrices and uncertain
state-space leaves is evaluated twice: as an LFT then substituted, and
directly on the substituted numbers (at a test frequency ``s``).  Every
operation of the core must give the same value to rounding; ``simplify`` must
not change it.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.errors import DimensionError, IllPosedError
from robustmb.lft.model import as_model

ELEMENTS = {
    "a": rmb.ureal("a", 1.0, range=(0.5, 1.5)),
    "b": rmb.ureal("b", 0.0, range=(-1.0, 1.0)),
    "c": rmb.ureal("c", 2.5, plusminus=(-0.5, 1.0)),
}
S_TEST = 0.3 + 0.7j


def _mat(seed):
    return np.random.default_rng(seed).uniform(-1, 1, (2, 2))


def _uss_leaf(seed):
    """A 2x2 uncertain system with uncertain entries in A, B, C and D."""
    r = np.random.default_rng(seed)
    a, b = ELEMENTS["a"], ELEMENTS["b"]
    A = [[-a, 0.3], [r.uniform(-1, 1), -2.0 + 0.5 * b]]
    B = [[1.0, b], [0.0, 1.0]]
    C = [[1.0, 0.0], [a * b, 1.0]]
    D = [[0.1, 0.0], [0.0, r.uniform(-0.5, 0.5)]]
    return rmb.uss(A, B, C, D), (A, B, C, D)


def _numeric(entry, vals):
    if isinstance(entry, rmb.UncertainElement):
        return vals[entry.name]
    if isinstance(entry, rmb.UncertainModel):
        return complex(entry.usubs({k: v for k, v in vals.items() if k in entry.blocks})[0, 0])
    return entry


def _num_uss(mats, vals, s):
    A, B, C, D = (
        np.array([[_numeric(e, vals) for e in row] for row in m], dtype=complex) for m in mats
    )
    return C @ np.linalg.solve(s * np.eye(2) - A, B) + D


leaf = st.one_of(
    st.tuples(st.just("const"), st.integers(0, 10**6)),
    st.tuples(st.just("elem"), st.sampled_from(sorted(ELEMENTS)), st.integers(0, 10**6)),
    st.tuples(st.just("entries"), st.integers(0, 10**6)),
    st.tuples(st.just("uss"), st.integers(0, 10**6)),
)


def _extend(children):
    binary = st.sampled_from(["add", "sub", "matmul", "mul", "hcat", "vcat"])
    unary = st.sampled_from(["neg", "T", "inv", "fb", "div", "scale"])
    return st.one_of(
        st.tuples(binary, children, children),
        st.tuples(unary, children),
    )


expressions = st.recursive(leaf, _extend, max_leaves=6)


def evaluate(expr, mode, vals=None, s=S_TEST):
    """Evaluate ``expr``: ``mode='lft'`` builds LFT objects, ``'num'`` uses numbers at ``s``."""
    kind = expr[0]
    if kind == "const":
        return _mat(expr[1]).astype(complex) if mode == "num" else _mat(expr[1])
    if kind == "elem":
        m = _mat(expr[2])
        return vals[expr[1]] * m if mode == "num" else ELEMENTS[expr[1]] * m
    if kind == "entries":
        r = np.random.default_rng(expr[1])
        a, b, c = ELEMENTS["a"], ELEMENTS["b"], ELEMENTS["c"]
        w = r.uniform(-1, 1, 4)
        ents = [[w[0] * a, b * c], [w[1] + a / c, w[2] * b * b + w[3]]]
        if mode == "lft":
            return rmb.umat(ents)
        av, bv, cv = vals["a"], vals["b"], vals["c"]
        return np.array([[w[0] * av, bv * cv], [w[1] + av / cv, w[2] * bv * bv + w[3]]], complex)
    if kind == "uss":
        sys, mats = _uss_leaf(expr[1])
        return sys if mode == "lft" else _num_uss(mats, vals, s)
    args = [evaluate(e, mode, vals, s) for e in expr[1:]]
    x = args[0]
    if kind == "add":
        return x + args[1]
    if kind == "sub":
        return x - args[1]
    if kind in ("matmul", "mul"):
        if mode == "num":
            return x @ args[1]
        # '*' is the matrix product for uncertain objects (as in python-control).
        return x @ args[1] if kind == "matmul" else as_model(x) * args[1]
    if kind == "hcat":  # [x, y] then keep a 2x2 slice of it
        if mode == "lft":
            return rmb.hstack(x, args[1])[:, 1:3]
        return np.hstack([x, args[1]])[:, 1:3]
    if kind == "vcat":
        if mode == "lft":
            return rmb.vstack(x, args[1])[1:3, :]
        return np.vstack([x, args[1]])[1:3, :]
    if kind == "neg":
        return -x
    if kind == "T":
        return x.T
    if kind == "inv":  # a shift keeps the inverse defined over the whole box
        return rmb.inv(x + 8 * np.eye(2)) if mode == "lft" else np.linalg.inv(x + 8 * np.eye(2))
    if kind == "fb":
        k = 0.05 * np.array([[1.0, 0.2], [0.0, 1.0]])
        if mode == "lft":
            return rmb.feedback(x, k)
        return np.linalg.solve(np.eye(2) + x @ k, x)
    if kind == "div":
        return x / 2.5
    if kind == "scale":
        return (ELEMENTS["c"] * x) if mode == "lft" else vals["c"] * x
    raise AssertionError(kind)


def value_at(obj, s=S_TEST):
    """Value of a substituted object (array or StateSpace) at ``s``."""
    if isinstance(obj, np.ndarray):
        return obj
    A, B, C, D = (np.asarray(m) for m in (obj.A, obj.B, obj.C, obj.D))
    if A.shape[0] == 0:
        return D
    return C @ np.linalg.solve(s * np.eye(A.shape[0]) - A, B) + D


def random_values(seed):
    r = np.random.default_rng(seed)
    return {n: float(r.uniform(*el.range)) for n, el in ELEMENTS.items()}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions, st.integers(0, 10**6))
def test_operations_are_exact(expr, seed):
    vals = random_values(seed)
    ref = evaluate(expr, "num", vals)
    assume(np.all(np.isfinite(ref)) and np.linalg.norm(ref) < 1e6)
    try:
        obj = as_model(evaluate(expr, "lft"))
    except (IllPosedError, DimensionError):
        assume(False)
    sub = (
        obj.usubs({n: v for n, v in vals.items() if n in obj.blocks})
        if obj.blocks
        else (obj.nominal())
    )
    got = value_at(sub)
    scale = max(1.0, np.linalg.norm(ref))
    assert np.linalg.norm(got - ref) <= 1e-10 * scale * 10

    red = rmb.simplify(obj)
    for n, r in red.blocks.items():
        assert r <= obj.blocks[n]
    sub2 = (
        red.usubs({n: v for n, v in vals.items() if n in red.blocks})
        if red.blocks
        else (red.nominal())
    )
    assert np.linalg.norm(value_at(sub2) - ref) <= 1e-9 * scale


@settings(max_examples=60, deadline=None)
@given(expressions, st.integers(0, 10**6))
def test_usample_matches_usubs(expr, seed):
    try:
        obj = as_model(evaluate(expr, "lft"))
    except (IllPosedError, DimensionError):
        assume(False)
    assume(obj.blocks)
    try:
        samples, values = obj.usample(3, seed=seed)
    except IllPosedError:
        assume(False)
    for smp, v in zip(samples, values, strict=True):
        direct = obj.usubs(v)
        ref = value_at(direct)
        assert np.allclose(value_at(smp), ref, rtol=1e-9, atol=1e-9 * max(1, np.abs(ref).max()))


def test_transpose_of_system_is_exact():
    sys, mats = _uss_leaf(3)
    vals = random_values(1)
    ref = _num_uss(mats, vals, S_TEST).T
    got = value_at(sys.T.usubs({"a": vals["a"], "b": vals["b"]}))
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_lft_upper_lower_star_match_formulas(seed):
    r = np.random.default_rng(seed)
    M = r.standard_normal((4, 5)) * 0.4
    a = ELEMENTS["a"]
    D = rmb.umat([[a, 0.2], [0.1, a * a]])
    vals = {"a": r.uniform(0.5, 1.5)}
    Dv = np.array([[vals["a"], 0.2], [0.1, vals["a"] ** 2]])
    # Fu(M, D): D closes M's first two outputs onto its first two inputs.
    M11, M12, M21, M22 = M[:2, :2], M[:2, 2:], M[2:, :2], M[2:, 2:]
    fu = M22 + M21 @ Dv @ np.linalg.solve(np.eye(2) - M11 @ Dv, M12)
    assert np.allclose(rmb.lft_upper(M, D).usubs(vals), fu, rtol=1e-12)
    # Fl(M, K): K closes M's last two outputs onto its last two inputs.
    K = np.array([[0.3, 0.1], [0.0, -0.2]])
    L11, L12, L21, L22 = M[:2, :3], M[:2, 3:], M[2:, :3], M[2:, 3:]
    fl = L11 + L12 @ K @ np.linalg.solve(np.eye(2) - L22 @ K, L21)
    assert np.allclose(rmb.lft_lower(M, K).nominal(), fl, rtol=1e-12)
    # Star product with one channel each way equals the same lower LFT.
    Q = np.block([[K, np.zeros((2, 1))], [np.zeros((1, 2)), np.eye(1)]])
    st_ = rmb.star(M, Q, 2, 2).nominal()
    assert st_.shape == (3, 4)
    assert np.allclose(st_[:2, :3], fl, rtol=1e-12)
