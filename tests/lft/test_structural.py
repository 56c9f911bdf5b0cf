"""Structural minimal realization (sminreal) and channel selection of stacked models."""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.errors import DimensionError
from robustmb.lft.model import UncertainSystem
from robustmb.lft.realization import make_realization
from robustmb.lft.structural import sminreal

s = control.tf("s")


def _stacked_loop():
    k = rmb.ureal("k", 2.0, percent=30)
    tau = rmb.ureal("tau", 0.2, percent=40)
    plant = k / (s * (tau * s + 1))
    ctrl = control.ss(2 * (s + 1) / (0.05 * s + 1))
    loop = plant * ctrl
    sens = rmb.feedback(1, loop)
    stack = rmb.vstack(rmb.feedback(loop, 1), sens, ctrl * sens)
    stack.input_names = ["r"]
    stack.output_names = ["y", "e", "u"]
    return stack, sens


def _sens_exact(k, tau, w):
    """S(jw) of the loop above, from its transfer function (no LFT code)."""
    sj = 1j * w
    loop = k / (sj * (tau * sj + 1)) * 2 * (sj + 1) / (0.05 * sj + 1)
    return 1 / (1 + loop)


def test_channel_of_a_stack_is_the_channel_built_alone():
    stack, sens = _stacked_loop()
    assert stack.nstates == 10 and stack.blocks == {"k": 3, "tau": 3}
    sub = stack["e", "r"]
    assert sub.nstates == sens.nstates == 3
    assert sub.blocks == sens.blocks == {"k": 1, "tau": 1}
    w = np.array([0.1, 1.0, 7.0, 40.0])
    for kk, tt in [(1.4, 0.12), (2.6, 0.28), (2.0, 0.2), (1.7, 0.25)]:
        g = sub.usubs({"k": kk, "tau": tt})
        resp = np.array([control.evalfr(g, 1j * wi) for wi in w]).ravel()
        np.testing.assert_allclose(resp, _sens_exact(kk, tt, w), rtol=1e-10)


def test_indexing_drops_elements_a_channel_does_not_use():
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0)
    g = rmb.block_diag(a / (s + 1), b * b / (s + 2))
    assert g[0, 0].blocks == {"a": 1} and g[0, 0].nstates == 1
    assert g[1, 1].blocks == {"b": 2} and g[1, 1].nstates == 1
    assert g[0, 1].blocks == {} and g[0, 1].nstates == 0
    np.testing.assert_allclose(g[0, 1].nominal().D, 0.0)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    nx=st.integers(0, 5),
    reps=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    density=st.floats(0.1, 0.6),
)
def test_sminreal_keeps_the_map(seed, nx, reps, density):
    # random sparse realization with one ureal and one 1x2 ultidyn (3 occurrences max)
    rng = np.random.default_rng(seed)
    a_el = rmb.ureal("a", 0.5, range=(0.0, 1.0))
    d_el = rmb.ultidyn("D", (1, 2), bound=0.3)
    blocks = {}
    if reps[0]:
        blocks["a"] = (a_el, reps[0])
    if reps[1]:
        blocks["D"] = (d_el, reps[1])
    nw = reps[0] + reps[1] * 1
    nz = reps[0] + reps[1] * 2
    nu, ny = 2, 2

    def sparse(r, c):
        m = rng.standard_normal((r, c)) * (rng.random((r, c)) < density)
        return 0.2 * m

    a = sparse(nx, nx) - 3 * np.eye(nx)
    real = make_realization(
        a, sparse(nx, nw + nu), sparse(nz + ny, nx), sparse(nz + ny, nw + nu), blocks
    )
    g = UncertainSystem(real, dt=0)
    red = sminreal(g)
    assert red.nstates <= g.nstates
    assert all(red.blocks[n] <= g.blocks[n] for n in red.blocks)
    vals = {}
    if reps[0]:
        vals["a"] = 0.8
    if reps[1]:
        vals["D"] = control.ss([[-2.0]], [[1.0, 0.5]], [[0.4]], [[0.1, -0.2]])
    full = g.usubs({n: v for n, v in vals.items() if n in g.blocks}) if g.blocks else g.nominal()
    part = (
        red.usubs({n: v for n, v in vals.items() if n in red.blocks})
        if red.blocks
        else red.nominal()
    )
    for w in (0.0, 0.7, 5.0):
        np.testing.assert_allclose(
            control.evalfr(part, 1j * w), control.evalfr(full, 1j * w), atol=1e-12
        )


@pytest.mark.slow
def test_worst_case_of_an_indexed_channel_matches_brute_force():
    stack, _ = _stacked_loop()
    res = rmb.wcgain(stack["e", "r"])
    w = np.geomspace(1e-2, 1e3, 3000)
    brute = max(
        np.abs(_sens_exact(kk, tt, w)).max()
        for kk in np.linspace(1.4, 2.6, 25)
        for tt in np.linspace(0.12, 0.28, 25)
    )
    assert res.upper >= brute
    assert res.lower >= brute * (1 - 1e-3)
    assert res.upper <= res.lower * 1.01


def test_simplify_keeps_the_structure_indexing_relies_on():
    stack, sens = _stacked_loop()
    simple = rmb.simplify(stack)
    # nothing to remove here: simplify must leave the realization as it is
    np.testing.assert_array_equal(simple._real.d, stack._real.d)
    np.testing.assert_array_equal(simple._real.b, stack._real.b)
    sub = simple["e", "r"]
    assert sub.nstates == sens.nstates and sub.blocks == sens.blocks


def test_a_boolean_index_is_a_mask_as_in_numpy():
    a = rmb.ureal("a", 1.0, range=(0.0, 2.0))
    G = rmb.uss(control.ss(-np.diag([1.0, 2.0, 3.0]), np.eye(3), np.eye(3), 0)) * a
    for mask in ([True, False, True], np.array([True, False, True])):
        picked = G[mask, :]
        assert picked.shape == (2, 3)
        ref = G[[0, 2], :]
        np.testing.assert_array_equal(
            np.asarray(picked.usubs({"a": 0.5})(1j)), np.asarray(ref.usubs({"a": 0.5})(1j))
        )
    with pytest.raises(DimensionError, match="one entry per output"):
        G[[True, False], :]
    with pytest.raises(DimensionError, match="boolean is not a position"):
        G[True, :]
