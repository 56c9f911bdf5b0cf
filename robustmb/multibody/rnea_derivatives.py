"""Derivatives of inverse dynamics in world axes, every body at once (seed 002, vectorised).

All quantities are world-axes spatial vectors at the inertial origin
(``[linear; angular]``, :mod:`.articulated`): ``S_k`` the motion subspace of joint
``k`` (the six columns of the adjoint for a floating base), ``v_i``, ``a_i`` the
twists and accelerations (gravity as the ground's upward acceleration), ``I_i``
the world inertias, ``f_i = I_i a_i + v_i x* I_i v_i - f_ext,i`` the body
residuals and ``F_j`` their sums over the subtree of ``j``, so ``tau_j = S_j . F_j``.

Perturbing ``q_k`` moves the subtree of ``k`` rigidly by ``S_k``: a spatial
quantity ``m`` of it varies by ``S_k x m``, except for the parts that come from
above the joint (the parent's twist ``v_p`` and acceleration ``a_p``).  With
``w_k = S_k x v_p`` and ``c_k = -S_k x a_p + w_k x v_p`` this gives, for bodies
``i`` below ``k``::

    d v_i = S_k x v_i - w_k,      d a_i = S_k x a_i + c_k + v_i x w_k,
    d f_i = S_k x* f_i + I_i c_k + B_i w_k + L_i S_k,
    B_i   = I_i [v_i x] - [I_i v_i x*]bar - [v_i x*] I_i

(``L_i``: the inertially fixed loads, which do not turn with the body).  The
rigid part cancels in ``tau_j = S_j . F_j`` when ``k`` is ``j`` or above it, so
with the subtree sums ``IC``, ``BC``, ``LC``::

    dtau_j/dq_k = S_j . (IC_j c_k + BC_j w_k + LC_j S_k)                  (k above j)
                = S_j . (S_k x* F_k + IC_k c_k + BC_k w_k + LC_k S_k)     (k below j)

and likewise ``dtau_j/dqd_k`` with ``-B S_k + I G_k`` (``G_k = 2 v_p x S_k``; for
the six columns of a floating base ``G = v_0 x S``) and the mass matrix with
``I S_k``.  Each is one product of an (nv x 18) by an (18 x nv) matrix, masked
by the ancestry: O(n^2) flops in a fixed number of NumPy calls.  The rates of a
floating base are its body-axes twist, its tangent coordinates a displacement
and rotation in body axes (Pinocchio's free-flyer convention).
"""

from __future__ import annotations

import numpy as np

from .articulated import (
    _CRM_MAP,
    _SWAP,
    _prefix_sum,
    _tree_layout,
    _world_state,
    cross_force_rows,
    cross_motion_rows,
)
from .dynamics import external_forces
from .tree import FREE, skew3

#: crm(v) = sum_k v_k E[k]
_E = _CRM_MAP.reshape(6, 6, 6).transpose(0, 2, 1)


def rate_layout(tree):
    """Per-rate node indices and ancestry masks, cached on the tree.

    ``node[r]``: the node of rate ``r``; ``above[j, k]``: rate ``k``'s joint is ``j``'s
    or above it; ``below`` the strict converse; ``desc[j, i]``: node ``i`` in the
    subtree of ``j``.

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> from robustmb.multibody.rnea_derivatives import rate_layout
    >>> mech = Mechanism()
    >>> for k, parent in enumerate([("ground", "O"), ("b0", "P")]):
    ...     mech.add_body(RigidBody(f"b{k}", mass=1.0, inertia=1.0, ports={"P": [0, 0, 1]}))
    ...     mech.add_joint(RevoluteJoint(f"J{k}", parent, (f"b{k}", "P"), [1, 0, 0]))
    >>> rate_layout(mech.rigid_tree())["above"]        # J0 carries J1
    array([[1., 0.],
           [1., 1.]])
    """
    lay = getattr(tree, "_deriv_layout", None)
    if lay is not None:
        return lay
    n, nv = tree.n, tree.nv
    node = np.zeros(nv, dtype=int)
    for i in range(n):
        k = tree.vi[i]
        node[k : k + (6 if tree.kind[i] == FREE else 1)] = i
    anc = np.zeros((n, n), dtype=bool)  # anc[i, j]: j is i or one of its ancestors
    for i in range(n):
        j = i
        while j >= 0:
            anc[i, j] = True
            j = tree.parent[j]
    above = anc[np.ix_(node, node)]  # [j, k]: joint k is j's or above it
    below = anc[np.ix_(node, node)].T & (node[:, None] != node[None, :])
    par = np.array(tree.parent, dtype=int)
    lay = {
        "node": node,
        "above": above.astype(float),
        "below": below.astype(float),
        "desc": anc.T.astype(float),  # desc[j, i]: i in the subtree of j
        "par": par[node],
        "free": [i for i in range(n) if tree.kind[i] == FREE],
        "inertial": [
            (nd, w, pt) for _, nd, _, pt, w, fr in tree.loads if fr == "inertial" and nd >= 0
        ],
    }
    tree._deriv_layout = lay
    return lay


def _rate_subspaces(tree, lay, ws):
    """World twist of each unit rate (nv, 6): the joints' subspaces and, for a floating
    base, the six columns of its adjoint (``xf`` with its halves swapped)."""
    s_rate = ws["s"][lay["node"]]
    for i in lay["free"]:
        k = tree.vi[i]
        s_rate[k : k + 6] = ws["xf"][i][np.ix_(_SWAP, _SWAP)].T
    return s_rate


def mass_matrix(tree, q):
    """Joint-space mass matrix from the world-axes composite inertias, all at once.

    ``M[j, k] = S_j . IC_j S_k`` when ``k`` carries ``j`` (and symmetrically), with
    ``IC_j`` the world inertia of the subtree of ``j``; used by the constrained
    dynamics (:mod:`.constraints`) and :meth:`Mechanism.mass_matrix
    <robustmb.multibody.Mechanism.mass_matrix>`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> from robustmb.multibody.rnea_derivatives import mass_matrix
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> mass_matrix(mech.rigid_tree(), np.array([0.7]))      # m l^2
    array([[2.]])
    """
    lay = rate_layout(tree)
    ws = _world_state(tree, q, np.zeros(tree.nv))
    xf, n = ws["xf"], tree.n
    s_rate = _rate_subspaces(tree, lay, ws)
    iw = xf @ tree.inertia @ np.swapaxes(xf, 1, 2)
    ic = (lay["desc"] @ iw.reshape(n, 36)).reshape(n, 6, 6)[lay["node"]]
    rows = (s_rate[:, None, :] @ ic)[:, 0]  # S_j^T IC_j
    cols = (ic @ s_rate[:, :, None])[:, :, 0]  # IC_k S_k
    m = (rows @ s_rate.T) * lay["above"] + (s_rate @ cols.T) * lay["below"]
    return 0.5 * (m + m.T)


def _crm_batch(v):
    return np.einsum("nk,kij->nij", v, _E)


def _fbar_batch(f):
    """``fbar(f) a = crf(a) f``: column k is ``-E_k^T f``."""
    return -np.einsum("kji,nj->nik", _E, f)


def rnea_derivatives(tree, q, v, a, wrenches=None):
    """``(tau, dtau/dq, dtau/dv, dtau/da)`` of the rigid inverse dynamics, external loads included.

    Same contract as :func:`robustmb.multibody.linearization.inverse_dynamics_derivatives`
    (``dtau/dq`` in the tangent coordinates); see the module docstring for the formulas.

    Examples
    --------
    A pendulum: ``tau = m l^2 a + m g l sin(q)``.

    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> from robustmb.multibody.rnea_derivatives import rnea_derivatives
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tau, dq, dv, da = rnea_derivatives(mech.rigid_tree(), np.zeros(1), np.zeros(1), np.ones(1))
    >>> tau, dq.round(12), da
    (array([2.]), array([[19.62]]), array([[2.]]))
    """
    lay, art = rate_layout(tree), _tree_layout(tree)
    node = lay["node"]
    ws = _world_state(tree, q, v)
    xf, vel = ws["xf"], ws["vel"]
    s_rate = _rate_subspaces(tree, lay, ws)
    aj = ws["s"] * a[art["vi"]][:, None] + ws["c"]
    for i in lay["free"]:
        k = tree.vi[i]
        aj[i] = s_rate[k : k + 6].T @ a[k : k + 6]
    a_ground = art["a_ground"]
    acc = a_ground + _prefix_sum(art, aj)
    iw = xf @ tree.inertia @ np.swapaxes(xf, 1, 2)
    va = np.empty((tree.n, 6, 2))
    va[:, :, 0], va[:, :, 1] = vel, acc
    mom = iw @ va
    h = mom[:, :, 0]
    f = mom[:, :, 1] + cross_force_rows(vel, h)
    rw = xf[:, :3, :3]
    if tree.inputs or tree.loads:
        fext = external_forces(tree, q, rw, wrenches)
        f = f - (xf @ fext[:, :, None])[:, :, 0]
    crm_v = _crm_batch(vel)
    n = tree.n
    # per body [I | B | L | f] (n, 6, 19), summed over subtrees by one product
    per = np.zeros((n, 6, 19))
    per[:, :, :6] = iw
    per[:, :, 6:12] = iw @ crm_v - _fbar_batch(h) + np.swapaxes(crm_v, 1, 2) @ iw
    per[:, :, 18] = f
    for nd, wl, pt in lay["inertial"]:  # constant world force at a moving point
        origin = _vee(xf[nd, 3:, :3] @ rw[nd].T)  # xf's lower block is [p]x R
        point = origin + rw[nd] @ pt
        fw = np.r_[wl[:3], np.cross(point, wl[:3]) + wl[3:]]
        true = np.zeros((6, 6))
        true[3:] = -skew3(wl[:3]) @ np.hstack([np.eye(3), -skew3(point)])
        # f_i carries -f_ext: remove the rigid variation, add the true one
        per[nd, :, 12:18] += _fbar_batch(fw[None])[0] - true
    comp = (lay["desc"] @ per.reshape(n, 114)).reshape(n, 6, 19)[node]  # per rate
    fc = comp[:, :, 18]
    # per rate: the parent's twist and acceleration
    par = lay["par"]
    has_par = par >= 0
    v_par = np.where(has_par[:, None], vel[np.maximum(par, 0)], 0.0)
    a_par = np.where(has_par[:, None], acc[np.maximum(par, 0)], a_ground)
    for i in lay["free"]:  # a floating base moves with respect to the ground
        k = tree.vi[i]
        v_par[k : k + 6], a_par[k : k + 6] = 0.0, a_ground
    nv = tree.nv
    # per-joint vectors [c, w, s] (q), [G, -s] (qd), s (qdd), laid out to meet [IC, BC, LC]
    w = cross_motion_rows(s_rate, v_par)
    vec = np.empty((nv, 18, 3))
    vec[:, :6, 0] = cross_motion_rows(w, v_par) - cross_motion_rows(s_rate, a_par)
    vec[:, 6:12, 0] = w
    vec[:, 12:, 0] = s_rate
    vec[:, :6, 1] = -2.0 * w
    for i in lay["free"]:
        k = tree.vi[i]
        vec[k : k + 6, :6, 1] = cross_motion_rows(
            np.repeat(vel[i][None], 6, axis=0), s_rate[k : k + 6]
        )
    vec[:, 6:12, 1] = -s_rate
    vec[:, 12:, 1] = 0.0
    vec[:, :6, 2] = s_rate
    vec[:, 6:, 2] = 0.0
    mats = comp[:, :, :18]
    rows = (s_rate[:, None, :] @ mats)[:, 0]  # S_j^T [IC_j, BC_j, LC_j]
    cols = mats @ vec  # (nv, 6, 3): [IC, BC, LC] of k times k's vectors
    cols[:, :, 0] += cross_force_rows(s_rate, fc)
    # k above j: rows_j . vec_k ; k below j: s_j . cols_k
    up = (rows @ vec.transpose(1, 0, 2).reshape(18, nv * 3)).reshape(nv, nv, 3)
    down = (s_rate @ cols.transpose(1, 0, 2).reshape(6, nv * 3)).reshape(nv, nv, 3)
    full = up * lay["above"][:, :, None] + down * lay["below"][:, :, None]
    d_q, d_v, d_a = full[:, :, 0], full[:, :, 1], full[:, :, 2]
    tau = np.einsum("rk,rk->r", s_rate, fc)
    return tau, d_q, d_v, d_a


def _vee(m):
    """The vector of a skew-symmetric 3 x 3 matrix."""
    return np.array([m[2, 1], m[0, 2], m[1, 0]])


def wrench_input_columns(tree, q):
    """Generalised forces (nv x 6 per input) of unit wrench inputs, body axes at their port.

    A wrench ``f`` (world, at the origin) on body ``i`` gives ``S_j . f`` at every
    joint ``j`` that carries ``i``.

    Examples
    --------
    A bob hanging 1 below its pivot: a force along y at the bob and a torque about x
    each give a unit torque about the joint's x axis.

    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> from robustmb.multibody.rnea_derivatives import wrench_input_columns
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0], "C": [0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> mech.add_wrench_input("w", "bob", "C")
    >>> wrench_input_columns(mech.rigid_tree(), np.zeros(1)).round(12) + 0.0
    array([[0., 1., 0., 1., 0., 0.]])
    """
    lay = rate_layout(tree)
    node = lay["node"]
    ws = _world_state(tree, q, np.zeros(tree.nv))
    xf = ws["xf"]
    s_rate = _rate_subspaces(tree, lay, ws)
    anc = lay["desc"].T  # anc[i, j]: j carries i
    cols = []
    for _, nd, rb, pt in tree.inputs:
        blk = np.zeros((tree.nv, 6))
        if nd >= 0:
            # unit wrenches in body axes at the port -> node axes at the node origin -> world
            to_node = np.zeros((6, 6))
            to_node[:3, :3] = to_node[3:, 3:] = rb
            to_node[3:, :3] = skew3(pt) @ rb
            blk = (s_rate @ (xf[nd] @ to_node)) * anc[nd, node][:, None]
        cols.append(blk)
    return np.hstack(cols)
