"""Nonlinear models of a Mechanism against Pinocchio (rnea, aba, crba and their derivatives).

Pinocchio models are built from the same plain specs by ``pinocchio_reference``
(no robustmb code); random branching trees with revolute, prismatic and weld
joints, full inertias, random axes and placements, fixed or floating base.
"""

import numpy as np
import pytest
from lagrange_reference import LagrangeReference
from mechanism_specs import build_mechanism
from nonlinear_specs import pin_maps, random_state, random_tree

pinocchio_reference = pytest.importorskip("pinocchio_reference")
pin = pinocchio_reference.pin

CASES = [
    (seed, n, floating)
    for seed, n, floating in [
        (0, 2, False),
        (1, 5, False),
        (2, 8, False),
        (3, 15, False),
        (4, 3, True),
        (5, 7, True),
        (6, 15, True),
    ]
]


def _setup(seed, n, floating):
    rng = np.random.default_rng(seed)
    spec = random_tree(rng, n, floating=floating)
    mech = build_mechanism(spec)
    model, _ = pinocchio_reference.build_model(LagrangeReference(spec))
    tree = mech.rigid_tree()
    qmap, vmap = pin_maps(model, tree)
    return rng, mech, model, tree, qmap, vmap


def _rel(x, ref):
    return np.abs(x - ref).max() / max(1.0, np.abs(ref).max())


@pytest.mark.parametrize(("seed", "n", "floating"), CASES)
def test_dynamics_match_pinocchio(seed, n, floating):
    rng, mech, model, tree, qmap, vmap = _setup(seed, n, floating)
    data = model.createData()
    for _ in range(3):
        q, v, a = random_state(rng, tree)
        qp, vp, ap = np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv)
        qp[qmap], vp[vmap], ap[vmap] = q, v, a
        tau_pin = pin.rnea(model, data, qp, vp, ap)[vmap]
        assert _rel(mech.inverse_dynamics(q, v, a), tau_pin) <= 1e-11
        tau = rng.normal(size=tree.nv)
        tp = np.zeros(model.nv)
        tp[vmap] = tau
        assert (
            _rel(mech.forward_dynamics(q, v, tau), pin.aba(model, data, qp, vp, tp)[vmap]) <= 1e-10
        )
        mp = pin.crba(model, data, qp)
        mp = np.triu(mp) + np.triu(mp, 1).T
        assert _rel(mech.mass_matrix(q), mp[np.ix_(vmap, vmap)]) <= 1e-11


@pytest.mark.parametrize(("seed", "n", "floating"), CASES)
def test_linearisation_matches_pinocchio_derivatives(seed, n, floating):
    rng, mech, model, tree, qmap, vmap = _setup(seed, n, floating)
    data = model.createData()
    q, v, a = random_state(rng, tree)
    qp, vp, ap = np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv)
    qp[qmap], vp[vmap], ap[vmap] = q, v, a
    lin = mech.linearize_at(q, v, a0=a)
    pin.computeRNEADerivatives(model, data, qp, vp, ap)
    ix = np.ix_(vmap, vmap)
    assert _rel(-lin.P2, data.dtau_dq[ix]) <= 1e-10
    assert _rel(-lin.P1, data.dtau_dv[ix]) <= 1e-10
    assert _rel(lin.tau0, pin.rnea(model, data, qp, vp, ap)[vmap]) <= 1e-11
    tau = rng.normal(size=tree.nv)
    lin = mech.linearize_at(q, v, tau0=tau)
    tp = np.zeros(model.nv)
    tp[vmap] = tau
    pin.computeABADerivatives(model, data, qp, vp, tp)
    nv = tree.nv
    assert _rel(lin.a0, data.ddq[vmap]) <= 1e-10
    assert _rel(lin.A[nv:, :nv], data.ddq_dq[ix]) <= 1e-10
    assert _rel(lin.A[nv:, nv:], data.ddq_dv[ix]) <= 1e-10
    minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
    assert _rel(lin.B[nv:, :nv], minv[ix]) <= 1e-10


def test_state_space_matches_finite_differences_of_pinocchio_integration():
    """The tangent kinematics of a floating base (dq' = dv - ad(v0) dq) against pin.integrate."""
    rng, mech, model, tree, qmap, vmap = _setup(7, 4, True)
    data = model.createData()
    q, v, _ = random_state(rng, tree)
    tau = rng.normal(size=tree.nv)
    lin = mech.linearize_at(q, v, tau0=tau)
    nv = tree.nv
    qp, vp, tp = np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv)
    qp[qmap], vp[vmap], tp[vmap] = q, v, tau
    h, dt = 1e-6, 1e-6

    def flow(x):  # one explicit Euler step from the perturbed state, as a tangent difference
        qq = pin.integrate(model, qp, x[:nv])
        vv = vp + x[nv:]
        acc = pin.aba(model, data, qq, vv, tp)
        q1 = pin.integrate(model, qq, vv * dt)
        q0 = pin.integrate(model, qp, vp * dt)
        return np.r_[pin.difference(model, q0, q1), vv + acc * dt - vp]

    perm = np.r_[vmap, nv + vmap]
    fd = np.zeros((2 * nv, 2 * nv))
    for c in range(2 * nv):
        e = np.zeros(2 * nv)
        e[perm[c]] = h
        fd[:, c] = ((flow(e) - flow(-e)) / (2 * h))[perm]
    a_pred = np.eye(2 * nv) + dt * lin.A
    assert np.abs(fd - a_pred).max() <= 1e-6 * max(1.0, np.abs(lin.A).max()) * dt + 1e-8


@pytest.mark.parametrize(("seed", "n", "floating"), [(11, 9, False), (12, 12, True)])
def test_pointer_jumping_path_matches_pinocchio(seed, n, floating, monkeypatch):
    """Above ``DENSE_MAX`` nodes the prefix sums and accelerations use pointer jumping
    instead of one matrix product / triangular solve: force that path on small trees."""
    from robustmb.multibody import articulated

    monkeypatch.setattr(articulated, "DENSE_MAX", 0)
    rng, mech, model, tree, qmap, vmap = _setup(seed, n, floating)
    assert not articulated._tree_layout(tree)["dense"]
    data = model.createData()
    q, v, _ = random_state(rng, tree)
    qp, vp = np.zeros(model.nq), np.zeros(model.nv)
    qp[qmap], vp[vmap] = q, v
    tau = rng.normal(size=tree.nv)
    tp = np.zeros(model.nv)
    tp[vmap] = tau
    a = mech.forward_dynamics(q, v, tau)
    assert _rel(a, pin.aba(model, data, qp, vp, tp)[vmap]) <= 1e-10
    joints = [tree.names[i] for i in range(tree.n) if tree.kind[i] != 0]
    some = {name: a[tree.vi[tree.names.index(name)]] for name in joints[1::2]}
    qdd, eff = mech.hybrid_dynamics(q, v, tau, some)
    assert _rel(qdd, a) <= 1e-10 and _rel(eff, tau) <= 1e-10
