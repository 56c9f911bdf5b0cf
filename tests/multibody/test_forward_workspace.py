"""Forward and hybrid dynamics reuse per-tree buffers: calls must not leak into each other.

Reference: ``M(q)^{-1} (tau - h(q, v))`` from the composite-inertia mass matrix and the
Newton-Euler inverse dynamics (recursions that share no buffers with the condensation).
"""

import numpy as np
import pytest
from mechanism_specs import build_mechanism, random_chain
from nonlinear_specs import random_tree


def _reference(mech, q, v, tau):
    h = mech.inverse_dynamics(q, v, np.zeros_like(v))
    return np.linalg.solve(mech.mass_matrix(q), tau - h)


@pytest.mark.parametrize("floating", [False, True])
def test_interleaved_calls_do_not_share_results(floating):
    rng = np.random.default_rng(21)
    mech = build_mechanism(random_tree(rng, 9, floating=floating))
    tree = mech.rigid_tree()
    states = []
    for _ in range(3):
        q = rng.normal(size=tree.nq)
        if floating:
            q[3:7] /= np.linalg.norm(q[3:7])
        states.append((q, rng.normal(size=tree.nv), rng.normal(size=tree.nv)))
    first = [mech.forward_dynamics(*s) for s in states]
    kept = [a.copy() for a in first]
    # a hybrid call (imposed joint: its block goes up whole) between forward calls
    name = next(tree.names[i] for i in range(tree.n) if tree.kind[i] != 0)
    mech.hybrid_dynamics(*states[0], {name: 0.3})
    second = [mech.forward_dynamics(*s) for s in reversed(states)][::-1]
    for a, k, b, s in zip(first, kept, second, states, strict=True):
        assert np.array_equal(a, k)  # earlier results are not views of reused storage
        ref = _reference(mech, *s)
        assert np.abs(b - ref).max() <= 1e-10 * max(1.0, np.abs(ref).max())
        assert np.abs(a - b).max() <= 1e-13 * max(1.0, np.abs(ref).max())


def test_two_mechanisms_keep_their_own_buffers():
    rng = np.random.default_rng(5)
    m1 = build_mechanism(random_chain(rng, 4, uncertain=False, rotor=False))
    m2 = build_mechanism(random_chain(rng, 7, prismatic=(2,), uncertain=False, rotor=False))
    s1 = tuple(rng.normal(size=(3, 4)))
    s2 = tuple(rng.normal(size=(3, 7)))
    for _ in range(2):
        a1, a2 = m1.forward_dynamics(*s1), m2.forward_dynamics(*s2)
        r1, r2 = _reference(m1, *s1), _reference(m2, *s2)
        assert np.abs(a1 - r1).max() <= 1e-10 * max(1.0, np.abs(r1).max())
        assert np.abs(a2 - r2).max() <= 1e-10 * max(1.0, np.abs(r2).max())


def test_threads_calling_one_mechanism_get_their_own_buffers():
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(8)
    mech = build_mechanism(random_tree(rng, 12, floating=True))
    tree = mech.rigid_tree()
    states = []
    for _ in range(16):
        q = rng.normal(size=tree.nq)
        q[3:7] /= np.linalg.norm(q[3:7])
        states.append((q, rng.normal(size=tree.nv), rng.normal(size=tree.nv)))
    refs = [_reference(mech, *s) for s in states]

    def run(k):
        return [mech.forward_dynamics(*states[k]) for _ in range(20)]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, range(len(states))))
    for runs, ref in zip(results, refs, strict=True):
        for a in runs:
            assert np.abs(a - ref).max() <= 1e-10 * max(1.0, np.abs(ref).max())
