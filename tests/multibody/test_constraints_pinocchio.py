"""Exact loop constraints against Pinocchio's constrained forward dynamics.

Random branching trees (fixed or floating base, revolute and prismatic joints, full
inertias; seeds whose loop keeps independent constraint rows) closed between the two
bodies farthest apart in the tree by a weld (6-D: point and attitude rows) or a
spherical joint (3-D), at a random configuration with rates on the constraints;
Pinocchio's ``constraintDynamics`` with the same frames fixed on both bodies is the
reference (optional dependency ``pin``).
"""

import itertools

import numpy as np
import pytest
from lagrange_reference import LagrangeReference
from mechanism_specs import build_mechanism
from nonlinear_specs import pin_maps, random_state, random_tree
from scipy.linalg import null_space

from robustmb.multibody.constraints import constraint_terms

pin = pytest.importorskip("pinocchio")
pinocchio_reference = pytest.importorskip("pinocchio_reference")


def _ancestors(spec, body):
    parent = {j["child"][0]: j["parent"][0] for j in spec["joints"]}
    out = [body]
    while out[-1] in parent:
        out.append(parent[out[-1]])
    return set(out)


def closed_chain(seed, *, floating, rotations):
    """Spec, mechanism, state and Pinocchio constraint frame of a random closed chain."""
    rng = np.random.default_rng(seed)
    spec = random_tree(rng, 10, p_weld=0.0, floating=floating)
    names = [b for b in spec["bodies"] if b != "base"]
    a_body, b_body = max(  # the longest loop
        itertools.combinations(names, 2),
        key=lambda ab: len(_ancestors(spec, ab[0]) ^ _ancestors(spec, ab[1])),
    )
    tree = build_mechanism(spec).rigid_tree()
    q = random_state(rng, tree)[0]
    rw, pw = tree.world_poses(q)
    ra, pa = tree.body_pose(a_body, rw, pw)
    rb, pb = tree.body_pose(b_body, rw, pw)
    point = pa + ra @ np.asarray(spec["bodies"][a_body]["ports"]["P"], float)
    spec["bodies"][b_body]["ports"]["X"] = list(rb.T @ (point - pb))  # coincident at q
    mech = build_mechanism(spec)
    mech.add_loop_constraint(
        "loop", (a_body, "P"), (b_body, "X"), rotations=rotations, orientation=ra.T @ rb
    )
    tree = mech.rigid_tree()
    jac = constraint_terms(tree, q, np.zeros(tree.nv))[1]
    v = null_space(jac) @ rng.normal(size=tree.nv - np.linalg.matrix_rank(jac))
    tau = rng.normal(size=tree.nv)
    return spec, mech, (q, v, tau), (a_body, b_body, pin.SE3(ra, point))


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("rotations", ["xyz", ""])
@pytest.mark.parametrize("seed", [0, 1, 3])
def test_constrained_accelerations_match_pinocchio(seed, rotations, floating):
    spec, mech, (q, v, tau), (a_body, b_body, frame) = closed_chain(
        seed, floating=floating, rotations=rotations
    )
    tree = mech.rigid_tree()
    g, jac, _ = constraint_terms(tree, q, v)
    assert np.abs(g).max() < 1e-13 and np.abs(jac @ v).max() < 1e-12
    # independent rows (some random loops are locked with a redundant row: the
    # accelerations stay unique but both solvers then agree only to rounding / sigma_min)
    assert np.linalg.svd(jac, compute_uv=False).min() > 1e-3
    acc = mech.forward_dynamics(q, v, tau)

    model, _ = pinocchio_reference.build_model(LagrangeReference(spec))
    data = model.createData()
    qmap, vmap = pin_maps(model, tree)
    qp, vp, tp = np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv)
    qp[qmap], vp[vmap], tp[vmap] = q, v, tau
    pin.forwardKinematics(model, data, qp)
    ja, jb = (
        model.getJointId(next(j["name"] for j in spec["joints"] if j["child"][0] == b))
        for b in (a_body, b_body)
    )
    kind = pin.ContactType.CONTACT_6D if rotations else pin.ContactType.CONTACT_3D
    cm = pin.RigidConstraintModel(
        kind,
        model,
        ja,
        data.oMi[ja].inverse() * frame,
        jb,
        data.oMi[jb].inverse() * frame,
        pin.ReferenceFrame.LOCAL,
    )
    models = pin.StdVec_RigidConstraintModel()
    models.append(cm)
    datas = pin.StdVec_RigidConstraintData()
    datas.append(cm.createData())
    pin.initConstraintDynamics(model, data, models, datas)
    ref = pin.constraintDynamics(
        model, data, qp, vp, tp, models, datas, pin.ProximalSettings(1e-14, 1e-12, 50)
    )[vmap]
    assert np.abs(acc - ref).max() <= 1e-10 * np.abs(ref).max()
