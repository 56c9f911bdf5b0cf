"""Forward and hybrid dynamics in world axes: the condensation of the TITOP loop, vectorised.

The articulated-body recursion (digest 001, Sec. 5.3 option B) has one step per
body that is truly sequential: the articulated inertia a joint passes to its
parent.  Everything else is either a function of one body (its pose, its world
inertia, its velocity-product acceleration, its bias force) or a prefix
operation along the tree (world poses, velocities, accelerations).  Here the
per-body parts are formed for all bodies at once, the prefix operations by
pointer jumping (``ceil(log2(depth))`` batched steps, O(n log n) work), and
only the condensation runs body by body -- in *world axes at the inertial
origin*, where a wrench passes to the parent without any transform.

Quantities per node ``i`` (world axes, inertial origin, ``[linear; angular]``):

- ``s_i`` its motion subspace, ``v_i = v_parent + s_i qd_i`` its twist,
  ``c_i = v_i x s_i qd_i`` its velocity-product acceleration;
- ``G_i = [I^A_i | p^A_i]`` (6 x 7): articulated inertia and bias force.  A
  joint effort is folded into the biases as the equal and opposite wrench pair
  ``f = s tau / |s|^2`` on the child and ``-f`` on the parent (its power is
  ``tau qd``; the joint's constraint wrench absorbs the rest), so one row
  ``s^T G_i = [u^T, s.p^A - tau] = [u^T, -u_e]`` carries the whole step:

      G_parent += (G_i - u (s^T G_i) / d) T_i,   d = s.u,   T_i = [[I, c_i], [0, 1]].

- accelerations ``a_i = P_i a_parent + b_i`` with ``P_i = I - s u^T / d``:
  an affine recursion, composed by pointer jumping.

Gravity is the uniform upward acceleration of the ground ``[-g; 0]``, the same
spatial vector for every body in world axes.
"""

from __future__ import annotations

import threading

import numpy as np
from scipy.linalg.blas import daxpy, dger
from scipy.linalg.lapack import dtrtrs

from ..errors import IllPosedError
from .tree import FREE, REVOLUTE, quat_to_dcm, skew3

DENSE_MAX = 128


def _tree_layout(tree):
    """Index arrays of the vectorised passes, cached on the tree."""
    lay = getattr(tree, "_layout", None)
    if lay is not None:
        return lay
    n = tree.n
    par = np.array([n if j < 0 else j for j in tree.parent] + [n], dtype=int)
    depth = np.zeros(n + 1, dtype=int)
    for i in range(n):
        depth[i] = 1 + (depth[par[i]] if par[i] < n else 0)
    steps = int(np.ceil(np.log2(max(1, depth.max())))) if n else 0
    free = [i for i in range(n) if tree.kind[i] == FREE]
    if any(i != 0 for i in free):  # pragma: no cover - compile_tree puts the base first
        raise IllPosedError("a floating base must be the first node of the tree")
    s_local = np.zeros((n, 6))
    for i in range(n):
        if tree.kind[i] != FREE:
            s_local[i] = tree.S[i]
    one = np.array([tree.kind[i] != FREE for i in range(n)], dtype=bool)
    # fold: e = s * fold has s.e = 1 in any pose (|s_angular| of a revolute and
    # |s_linear| of a prismatic joint are invariant under rigid motions)
    fold = np.zeros((n, 6))
    for i in range(n):
        if tree.kind[i] == REVOLUTE:
            fold[i, 3:] = 1.0 / (s_local[i, 3:] @ s_local[i, 3:])
        elif tree.kind[i] != FREE:
            fold[i, :3] = 1.0 / (s_local[i, :3] @ s_local[i, :3])
    # below DENSE_MAX nodes the prefix sums and the acceleration substitution are one
    # matrix product / triangular solve each (O(n^2) flops, but a single call)
    dense = n <= DENSE_MAX
    anc = np.zeros((n, n))
    if dense:
        for i in range(n):
            j = i
            while j < n:
                anc[i, j] = 1.0
                j = par[j]
    inc = np.zeros((n + 1, n))
    inc[par[:n], np.arange(n)] = 1.0
    lay = {
        "dense": dense,
        "anc": anc,
        "strict": anc - np.eye(n),
        "inc": inc,
        "par": par,
        "fold": fold,
        "diag": np.diag_indices(n),
        "a_ground": np.r_[-tree.gravity, 0.0, 0.0, 0.0],
        "steps": steps,
        "free": bool(free),
        "one": one,
        "vi": np.array(tree.vi, dtype=int),
        "s_local": s_local,
        "s_swapped": s_local[:, [3, 4, 5, 0, 1, 2]].copy(),
        "order": [(i, int(par[i])) for i in reversed(range(n)) if tree.kind[i] != FREE],
        "forward": [(i, tree.parent[i]) for i in range(n) if tree.kind[i] != FREE],
    }
    tree._layout = lay
    return lay


def _jump_compose(mats, par, steps, left):
    """Prefix products along the tree: ``left`` -> ``C_i = C_anc @ C_i`` else ``C_i @ C_anc``.

    ``mats`` has a sentinel last entry (the ground), a fixed point of the product.
    """
    anc = par
    for _ in range(steps):
        mats = mats[anc] @ mats if left else mats @ mats[anc]
        anc = anc[anc]
    return mats


def _prefix_sum(lay, vals):
    """Sums over each node and its ancestors of the rows of ``vals`` (n, k)."""
    if lay["dense"]:
        return lay["anc"] @ vals
    z = np.zeros((1, vals.shape[1]), dtype=vals.dtype)
    return _jump_sum(np.vstack([vals, z]), lay["par"], lay["steps"])[:-1]


def _jump_sum(vals, par, steps):
    """Sums over each node and its ancestors (sentinel row zero)."""
    anc = par
    for _ in range(steps):
        vals = vals + vals[anc]
        anc = anc[anc]
    return vals


def _local_poses(tree, q):
    """Local poses ``[[R_i, p_i], [0, 1]]`` and the ground's identity: (n + 1, 4, 4).

    The pose is affine in ``(1, sin x, 1 - cos x, x)`` with the constant basis of
    :func:`~robustmb.multibody.tree.batch_homogeneous` (its sine/cosine parts vanish
    for a prismatic joint and its ``x`` part for a revolute one), so one batched
    product into a buffer kept on the tree gives them all; the caller's pointer
    jumping makes new arrays, so the buffer never leaves this module.
    """
    n = tree.n
    buf = _own_buffers(tree, "_pose_buffers")
    if buf is None:
        coef = np.zeros((n, 1, 4))
        coef[:, 0, 0] = 1.0
        poses = np.zeros((n + 1, 4, 4))
        poses[n] = np.eye(4)
        buf = (coef, poses, poses[:n].reshape(n, 1, 16), np.empty(n))
        tree._pose_buffers = threading.get_ident(), buf
    coef, poses, flat, tmp = buf
    x = q[tree.batch["qidx"]]
    np.sin(x, out=coef[:, 0, 1])
    np.cos(x, out=tmp)
    np.subtract(1.0, tmp, out=coef[:, 0, 2])
    coef[:, 0, 3] = x
    np.matmul(coef, tree.batch["h_basis"], out=flat)
    for i in tree.batch["free"]:
        k = tree.qi[i]
        quat = q[k + 3 : k + 7] / np.sqrt(np.sum(q[k + 3 : k + 7] ** 2))
        poses[i, :3, :3], poses[i, :3, 3] = quat_to_dcm(quat), q[k : k + 3]
    return poses


def _world_state(tree, q, v):
    """World-axes kinematics of every node.

    Returns a dict with ``xf (n, 6, 6)`` -- the wrench transform node (node axes,
    node origin) -> world, ``[[R, 0], [p^ R, R]]``, whose transpose maps world
    twists to node twists --, ``s (n, 6)`` the motion subspaces (zero rows for a
    floating base), ``vel (n, 6)`` the twists and ``c (n, 6)`` the velocity-product
    accelerations ``v_i x s_i qd_i``.
    """
    lay = _tree_layout(tree)
    n, par, steps = tree.n, lay["par"], lay["steps"]
    h = _jump_compose(_local_poses(tree, q), par, steps, left=True)
    rw = h[:n, :3, :3]
    sk = np.zeros((n, 9))
    sk[:, _SKEW_AT] = h[:n, _SKEW_OF, 3] * _SKEW_SIGN
    xf = np.zeros((n, 6, 6))
    xf[:, :3, :3], xf[:, 3:, 3:], xf[:, 3:, :3] = rw, rw, sk.reshape(n, 3, 3) @ rw
    # X = xf^{-T} = [[R, p^ R], [0, R]] (node twist -> world twist) is xf with its
    # halves swapped: X m = swap(xf swap(m))
    s = (xf @ lay["s_swapped"][:, :, None])[:, _SWAP, 0]
    vj = s * v[lay["vi"]][:, None]
    if lay["free"]:
        k = tree.vi[0]
        vj[0] = (xf[0] @ v[k : k + 6][_SWAP])[_SWAP]
    vel = _prefix_sum(lay, vj)
    return {"xf": xf, "s": s, "vel": vel, "c": cross_motion_rows(vel, vj)}


_SWAP = np.array([3, 4, 5, 0, 1, 2])
# skew(p) as flat 3 x 3 entries: position <- sign * p[index]
_SKEW_AT = np.array([1, 2, 3, 5, 6, 7])
_SKEW_OF = np.array([2, 1, 2, 0, 1, 0])
_SKEW_SIGN = np.array([-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])


def _bilinear_maps():
    """Constant (36, 6) matrices of ``crm(v) m`` and ``crf(v) f`` acting on ``vec(v m^T)``."""
    e = np.zeros((6, 6, 6))  # crm(v) = sum_k v_k E_k = [[w^, v^], [0, w^]]
    for k in range(3):
        sk = skew3(np.eye(3)[k])
        e[k, :3, 3:] = sk
        e[k + 3, :3, :3] = e[k + 3, 3:, 3:] = sk
    return e.transpose(0, 2, 1).reshape(36, 6), -e.reshape(36, 6)


_CRM_MAP, _CRF_MAP = _bilinear_maps()


def cross_motion_rows(v, m):
    """Row-wise ``crm(v_i) m_i`` (n, 6): the outer products, then one constant map.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.articulated import cross_motion_rows
    >>> cross_motion_rows(np.array([[0, 0, 0, 0, 0, 1.0]]), np.array([[1.0, 0, 0, 0, 0, 0]]))
    array([[0., 1., 0., 0., 0., 0.]])
    """
    return (v[:, :, None] * m[:, None, :]).reshape(-1, 36) @ _CRM_MAP


def cross_force_rows(v, f):
    """Row-wise ``crf(v_i) f_i = -crm(v_i)^T f_i`` (n, 6).

    Examples
    --------
    Duality with :func:`cross_motion_rows`: ``(crf(v) f) . m = -f . (crm(v) m)``.

    >>> import numpy as np
    >>> from robustmb.multibody.articulated import cross_force_rows, cross_motion_rows
    >>> v, f, m = np.random.default_rng(0).standard_normal((3, 4, 6))
    >>> lhs = np.sum(cross_force_rows(v, f) * m, axis=1)
    >>> bool(np.allclose(lhs, -np.sum(f * cross_motion_rows(v, m), axis=1)))
    True
    """
    return (v[:, :, None] * f[:, None, :]).reshape(-1, 36) @ _CRF_MAP


def _biases(tree, ws, fext, shift):
    """World inertias and biases ``crf(v) I v - f_ext + I C`` of every node."""
    xf = ws["xf"]
    iw = xf @ tree.inertia @ np.swapaxes(xf, 1, 2)
    # crf(v) I v = -crm(v)^T (I v); the shift C moves the velocity products into the bias
    mom = iw @ np.stack([ws["vel"], shift], axis=2)
    pa = mom[:, :, 1] + cross_force_rows(ws["vel"], mom[:, :, 0])
    if fext is not None and fext.any():
        pa -= (xf @ fext[:, :, None])[:, :, 0]
    return iw, pa


def _workspace(tree, lay):
    """Condensation storage reused from call to call, with its per-body views made once.

    ``gt`` (n + 1, 7, 6) holds ``G_i^T``; ``steps`` lists, leaves to base, each node,
    the row ``s_i`` of ``sbuf``, the Fortran-ordered 6 x 7 views ``G_i`` and
    ``G_parent`` (for BLAS ``dger``) and the flat 42-entry views of both (for
    ``daxpy``).  Only :func:`forward_world` uses it; it returns no view of it.
    """
    ws = _own_buffers(tree, "_workspace")
    if ws is not None:
        return ws
    n = tree.n
    gt = np.zeros((n + 1, 7, 6))
    g6, flat = gt.transpose(0, 2, 1), gt.reshape(n + 1, 42)
    sbuf = np.zeros((n, 6))
    steps = [(i, sbuf[i], g6[i], g6[j], flat[i], flat[j]) for i, j in lay["order"]]
    ws = {"gt": gt, "s": sbuf, "steps": steps, "zero_row": np.zeros(7)}
    tree._workspace = (threading.get_ident(), ws)
    return ws


def _own_buffers(tree, attribute):
    """The buffers kept on ``tree`` under ``attribute`` if this thread made them, else None.

    Buffers are tagged with the thread that made them and handed to that thread only,
    so calls on one mechanism from several threads never share storage (a thread that
    finds another's buffers makes and keeps its own; the other's call still holds its
    own reference).
    """
    tagged = getattr(tree, attribute, None)
    if tagged is not None and tagged[0] == threading.get_ident():
        return tagged[1]
    return None


def _condense(tree, lay, s, iw, pa, tau, imposed):
    """Leaves-to-base condensation.

    Returns ``gt`` (n + 1, 7, 6): ``G_i^T = [I^A_i; p^A_i^T]`` (stored transposed so
    that each ``G_i`` is a Fortran-ordered 6 x 7 block for BLAS ``dger``), the rows
    ``s^T G`` (n, 7) and the pivots ``d`` (n,).  ``gt`` is the reused workspace.
    """
    n = tree.n
    one, vi = lay["one"], lay["vi"]
    tq = tau[vi] * one if lay["free"] or imposed else tau  # node efforts (none on a base)
    if imposed:
        tq = tq.copy()
    for i in imposed:
        tq[i] = 0.0  # an imposed joint's effort is an output
    # the effort as a wrench pair: f = tau e on the child, -f on the parent, s.e = 1
    # (e: the joint's axis direction, angular for a revolute, linear for a prismatic)
    f = s * lay["fold"] * tq[:, None]
    work = _workspace(tree, lay)
    gt = work["gt"]
    gt[:n, :6], gt[:n, 6] = iw, pa - f
    gt[n] = 0.0
    gt[:, 6] += lay["inc"] @ f  # the reactions on the parents (row n: ground)
    work["s"][...] = s
    rows, d = [work["zero_row"]] * n, np.ones(n)
    scale = 1e-12 * tree.inertia_scale
    # the one sequential step, 4 BLAS-level calls per body on views made once per tree:
    # G_parent += G_i (daxpy on the flat blocks), then G_parent -= u row^T / d (dger on
    # the Fortran-ordered 6 x 7 view); G_i itself is not needed after its step
    for i, si, gi, gj, fi, fj in work["steps"]:
        if imposed and i in imposed:  # joint-inverse mode: nothing to condense
            daxpy(fi, fj)
            gj[:, 6] += gi[:, :6].dot(si * imposed[i])
            continue
        row = si.dot(gi)
        u = row[:6]
        di = u.dot(si)
        if not di > scale:
            raise IllPosedError(
                f"joint {tree.names[i]!r}: the bodies it moves have no inertia along its "
                f"axis (articulated inertia {di:.3g}), so its acceleration is undetermined"
            )
        rows[i], d[i] = row, di
        daxpy(fi, fj)
        dger(-1.0 / di, u, row, a=gj, overwrite_a=1)
    return gt, np.array(rows), d


def _base_acceleration(tree, xf, g, tau):
    """World acceleration of a floating base from its articulated inertia."""
    k = tree.vi[0]
    tw = xf[0] @ tau[k : k + 6]
    try:
        chol = np.linalg.cholesky(g[0, :6])
    except np.linalg.LinAlgError:
        raise IllPosedError(
            f"floating base {tree.names[0]!r}: the total spatial inertia is not "
            "positive definite (a free body needs mass and rotational inertia)"
        ) from None
    return np.linalg.solve(chol.T, np.linalg.solve(chol, tw - g[0, 6]))


def forward_world(tree, q, v, tau, fext, imposed=None):
    """Accelerations (and, with ``imposed``, every effort) by condensation in world axes.

    ``imposed`` maps node index -> acceleration of joints in joint-inverse mode.
    Returns ``(qdd, tau_out)``.

    The recursion runs on the shifted accelerations ``a~_i = a_i - C_i`` with
    ``C_i`` the sum of the velocity products ``c`` from the root to ``i``: then
    ``a~_i = a~_parent + s_i qdd_i`` has no velocity term and each body's bias
    gains ``I_i C_i`` (one batched product instead of one per body).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> from robustmb.multibody.articulated import forward_world
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> qdd, _ = forward_world(mech.rigid_tree(), np.array([0.3]), np.zeros(1), np.zeros(1), None)
    >>> qdd.round(6)                                  # -g sin(q) / l
    array([-2.899053])
    """
    imposed = imposed or {}
    lay = _tree_layout(tree)
    n, par, steps = tree.n, lay["par"], lay["steps"]
    ws = _world_state(tree, q, v)
    s = ws["s"]
    shift = _prefix_sum(lay, ws["c"])
    iw, pa = _biases(tree, ws, fext, shift)
    g, rows, d = _condense(tree, lay, s, iw, pa, tau, imposed)
    a_ground = lay["a_ground"]
    u, ue = rows[:, :6], -rows[:, 6]
    qdd = np.zeros(tree.nv)
    a_top = a_ground
    if lay["free"]:
        a_top = _base_acceleration(tree, ws["xf"], g, tau)
        k = tree.vi[0]
        # body-axes acceleration minus the field: X^{-1} (a0 - a_ground), X^{-1} = xf^T
        qdd[k : k + 6] = ws["xf"][0].T @ (a_top - a_ground)
    one, vi = lay["one"], lay["vi"]
    if lay["dense"]:
        # a~_parent = a_top + sum over proper ancestors k of s_k qdd_k, so
        # d_i qdd_i + sum_k (u_i . s_k) qdd_k = u_e,i - u_i . a_top: lower triangular
        low = (u @ s.T) * lay["strict"]
        low[lay["diag"]] = d
        rhs = ue - u @ a_top
        for i, a in imposed.items():
            low[i] = 0.0
            low[i, i], rhs[i] = 1.0, a
        qq = dtrtrs(low, rhs, lower=1)[0]  # LAPACK directly: scipy's wrapper costs more
        acc = (a_top + _prefix_sum(lay, s * qq[:, None])) if imposed else None
    else:
        # affine maps a~_i = P_i a~_parent + b_i, P_i = I - s u^T / d, b_i = s u_e / d;
        # the ground (sentinel) and a floating base are constant maps
        m = np.zeros((n + 1, 7, 7))
        m[:n, :6, :6] = np.eye(6) - s[:, :, None] * (u / d[:, None])[:, None, :]
        m[:n, :6, 6] = s * (ue / d)[:, None]
        for i, a in imposed.items():
            m[i, :6, :6], m[i, :6, 6] = np.eye(6), s[i] * a
        m[:, 6, 6] = 1.0
        m[n, :6, 6] = a_ground
        if lay["free"]:
            m[0, :6, :6], m[0, :6, 6] = 0.0, a_top
        acc = _jump_compose(m, par, steps, left=False)[:, :6, 6]
        qq = (ue - np.einsum("ni,ni->n", u, acc[par[:n]])) / d
        for i, a in imposed.items():
            qq[i] = a
    if not lay["free"]:  # nodes are the joints, in order
        qdd = qq
    else:
        qdd[vi[one]] = qq[one]
    if not imposed:
        return qdd, tau
    tau_out = np.array(tau, dtype=float)
    for i in imposed:  # s . (I^A a~ + p^A), the joint's own effort (no fold for it)
        tau_out[vi[i]] = s[i] @ (g[i, :6] @ acc[i] + g[i, 6])
    return qdd, tau_out
