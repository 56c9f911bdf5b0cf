"""Recursive analytic linearisation at any point (Lin & Yae, seed 002).

The linearised equations ``M dq'' = P1 dq' + P2 dq + P3 du`` (seed 002, Eq. 39)
are the exact derivative of inverse dynamics, propagated through the tree with
the first-order variation of every kinematic relation (digest Sec. 2.8):
spatial quantities are world-frame twists and wrenches at the inertial origin
``O`` (``[linear; angular]``); for a joint ``j`` with parent ``i`` and motion
subspace ``B_j``::

    dB_j  = -crm(B_j) dZ_i,             dZ_j = dZ_i + B_j dq_j
    dY_j  = dY_i + dB_j v_j + B_j dv_j
    dYd_j = dYd_i + dB_j a_j + B_j da_j + dD_j
    dW_j  = dM_j[Yd_j] + M_j dYd_j - dQ_j         (body residual W = M Yd - Q)
    dtau_j = B_j^T dF_j + dB_j^T F_j              (F_j: sum of W over the subtree)

Each d-quantity is a 6 x 3n matrix (one column per entry of ``[dq; dv; da]``).
A floating base is a 6-dof joint whose subspace is the adjoint of its pose
(``B_0 = Ad``), perturbed in body axes like Pinocchio's free-flyer tangent, so
its coordinates in the linear model are the small displacement and rotation
of its origin in body axes (the linear TITOP convention at an equilibrium).
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np

from ..errors import IllPosedError
from .dynamics import external_forces, joint_law_derivatives, joint_transforms
from .loop_closure import closure_derivatives
from .tree import FREE, motion_transform, skew3


def crm(v):
    """Motion cross-product matrix ``[[w^, v^], [0, w^]]``."""
    a, b, c, x, y, z = v.tolist()
    return np.array(
        [
            [0.0, -z, y, 0.0, -c, b],
            [z, 0.0, -x, c, 0.0, -a],
            [-y, x, 0.0, -b, a, 0.0],
            [0.0, 0.0, 0.0, 0.0, -z, y],
            [0.0, 0.0, 0.0, z, 0.0, -x],
            [0.0, 0.0, 0.0, -y, x, 0.0],
        ]
    )


def crf(v):
    """Force cross-product matrix ``-crm(v)^T``."""
    return -crm(v).T


def fbar(f):
    """``crf(a) f = fbar(f) a``: ``[[0, -f_l^], [-f_l^, -f_a^]]``."""
    a, b, c, x, y, z = f.tolist()
    return np.array(
        [
            [0.0, 0.0, 0.0, 0.0, c, -b],
            [0.0, 0.0, 0.0, -c, 0.0, a],
            [0.0, 0.0, 0.0, b, -a, 0.0],
            [0.0, c, -b, 0.0, z, -y],
            [-c, 0.0, a, -z, 0.0, x],
            [b, -a, 0.0, y, -x, 0.0],
        ]
    )


@dataclass
class Linearization:
    """Linearised mechanism at a point (see :meth:`Mechanism.linearize_at`).

    Attributes
    ----------
    M, P1, P2, P3 : ndarray
        ``M dq'' = P1 dq' + P2 dq + P3 du`` (seed 002, Eq. 39).
    A, B : ndarray
        State space with ``x = [dq; dv]`` (tangent coordinates and rates).
    ss : control.StateSpace
        ``(A, B, I, 0)`` with named states, inputs and outputs.
    q0, v0, a0, tau0 : ndarray
        The reference point (``tau0``: the efforts that hold ``a0``).
    coordinate_names, input_names : list of str
    """

    M: np.ndarray
    P1: np.ndarray
    P2: np.ndarray
    P3: np.ndarray
    A: np.ndarray
    B: np.ndarray
    ss: control.StateSpace
    q0: np.ndarray
    v0: np.ndarray
    a0: np.ndarray
    tau0: np.ndarray
    coordinate_names: list
    input_names: list

    @property
    def E(self):
        """Descriptor matrix ``blkdiag(I, M)``."""
        n = self.M.shape[0]
        e = np.eye(2 * n)
        e[n:, n:] = self.M
        return e


def _ad(r, p):
    """Adjoint: node twist (node axes, node origin) -> world twist at O."""
    a = np.zeros((6, 6))
    a[:3, :3] = r
    a[3:, 3:] = r
    a[:3, 3:] = skew3(p) @ r
    return a


def inverse_dynamics_derivatives(tree, q, v, a, wrenches=None):
    """``(tau, dtau/dq, dtau/dv, dtau/da)`` of the rigid inverse dynamics (external loads included).

    ``dtau/dq`` is taken in the tangent coordinates (body-axes twist for a floating base).
    """
    nv, n = tree.nv, tree.n
    ncol = 3 * nv
    xs, rw = joint_transforms(tree, q)
    rw_list, pw = tree.world_poses(q)
    fext_node = external_forces(tree, q, rw, wrenches)
    inertial = [(node, w, pt) for _, node, _, pt, w, fr in tree.loads if fr == "inertial"]
    ag = np.r_[tree.gravity, 0.0, 0.0, 0.0]
    zero6, zero6n = np.zeros(6), np.zeros((6, ncol))
    bmat, dbmat, dz, y, dy, yd, dyd = ([None] * n for _ in range(7))
    w_res, dw_res = [None] * n, [None] * n
    for i in range(n):
        r, p = rw_list[i], pw[i]
        ad = _ad(r, p)
        xw = motion_transform(r, p)  # world twist at O -> node twist
        j = tree.parent[i]
        k = tree.vi[i]
        if tree.kind[i] == FREE:
            b = ad
            dz[i] = np.zeros((6, ncol))
            dz[i][:, k : k + 6] = b
            y[i] = b @ v[k : k + 6]
            yd[i] = b @ a[k : k + 6]
            dy[i] = -crm(y[i]) @ dz[i]
            dy[i][:, nv + k : nv + k + 6] += b
            dyd[i] = -crm(yd[i]) @ dz[i]
            dyd[i][:, 2 * nv + k : 2 * nv + k + 6] += b
            bmat[i], dbmat[i] = b, None
        else:
            yp, ydp = (zero6, zero6) if j < 0 else (y[j], yd[j])
            dzp, dyp, dydp = (zero6n, zero6n, zero6n) if j < 0 else (dz[j], dy[j], dyd[j])
            b = ad @ tree.S[i]
            db = -crm(b) @ dzp
            qd, qdd = v[k], a[k]
            dz[i] = dzp.copy()
            dz[i][:, k] += b
            y[i] = yp + b * qd
            dy[i] = dyp + db * qd
            dy[i][:, nv + k] += b
            crm_yp = crm(yp)
            d_term = crm_yp @ b * qd
            dd = -crm(b * qd) @ dyp + crm_yp @ db * qd
            dd[:, nv + k] += crm_yp @ b
            yd[i] = ydp + b * qdd + d_term
            dyd[i] = dydp + db * qdd + dd
            dyd[i][:, 2 * nv + k] += b
            bmat[i], dbmat[i] = b, db
        mh = xw.T @ tree.inertia[i] @ xw
        h = mh @ y[i]
        f_body = xw.T @ fext_node[i]
        df_ext = fbar(f_body) @ dz[i]  # body-fixed loads turn with the body
        for node, wl, pt in inertial:
            if node == i:  # constant inertial force at a moving point: only its moment changes
                pworld = p + r @ pt
                fl_body = r.T @ wl[:3]
                # remove the body-fixed treatment of this load, add the inertial one
                fb = xw.T @ np.r_[fl_body, r.T @ wl[3:] + np.cross(pt, fl_body)]
                df_ext -= fbar(fb) @ dz[i]
                dp = np.hstack([np.eye(3), -skew3(pworld)]) @ dz[i]
                df_ext[3:] += -skew3(wl[:3]) @ dp

        def dmw(w, mh=mh, dzi=dz[i]):
            return (fbar(mh @ w) + mh @ crm(w)) @ dzi

        q_hat = mh @ ag + f_body - crf(y[i]) @ h
        dq_hat = dmw(ag) + df_ext - fbar(h) @ dy[i] - crf(y[i]) @ (dmw(y[i]) + mh @ dy[i])
        w_res[i] = mh @ yd[i] - q_hat
        dw_res[i] = dmw(yd[i]) + mh @ dyd[i] - dq_hat
    tau = np.zeros(nv)
    jac = np.zeros((nv, ncol))
    f, df = list(w_res), list(dw_res)
    for i in reversed(range(n)):
        k = tree.vi[i]
        if tree.kind[i] == FREE:
            b = bmat[i]
            tau[k : k + 6] = b.T @ f[i]
            jac[k : k + 6] = b.T @ df[i] + b.T @ fbar(f[i]).T @ dz[i]
        else:
            tau[k] = bmat[i] @ f[i]
            jac[k] = f[i] @ dbmat[i] + bmat[i] @ df[i]
        j = tree.parent[i]
        if j >= 0:
            f[j] = f[j] + f[i]
            df[j] = df[j] + df[i]
    return tau, jac[:, :nv], jac[:, nv : 2 * nv], jac[:, 2 * nv :]


def input_matrix(tree, q):
    """Generalised forces of unit efforts (identity) and of unit wrench inputs (body axes)."""
    rw_list, pw = tree.world_poses(q)
    cols = []
    for _, node, rb, pt in tree.inputs:
        blk = np.zeros((tree.nv, 6))
        if node >= 0:
            xw = motion_transform(rw_list[node], pw[node])
            for m in range(6):
                w = np.eye(6)[m]
                fl = rb @ w[:3]
                fhat = xw.T @ np.r_[fl, rb @ w[3:] + np.cross(pt, fl)]
                i = node
                while i >= 0:
                    k = tree.vi[i]
                    if tree.kind[i] == FREE:
                        blk[k : k + 6, m] = _ad(rw_list[i], pw[i]).T @ fhat
                    else:
                        blk[k, m] = (_ad(rw_list[i], pw[i]) @ tree.S[i]) @ fhat
                    i = tree.parent[i]
        cols.append(blk)
    return np.hstack([np.eye(tree.nv)] + cols)


def linearize_tree(tree, q0, v0, a0, tau0, wrenches, effort_names, forward, inverse):
    """Assemble :class:`Linearization` (see :meth:`Mechanism.linearize_at`)."""
    nv = tree.nv
    if a0 is None:
        tau0 = np.zeros(nv) if tau0 is None else tau0
        a0 = forward(q0, v0, tau0)
    elif tau0 is None:
        tau0 = inverse(q0, v0, a0)
    else:
        resid = inverse(q0, v0, a0) - tau0
        if np.abs(resid).max() > 1e-8 * max(1.0, np.abs(tau0).max()):
            raise IllPosedError(
                "linearize_at: a0 and tau0 are both given but do not satisfy the equations "
                f"of motion (residual {np.abs(resid).max():.3g}); give one of them"
            )
    _, jq, jv, jm = inverse_dynamics_derivatives(tree, q0, v0, a0, wrenches)
    kd = np.zeros(nv)
    dd = np.zeros(nv)
    for i in range(tree.n):
        if tree.kind[i] != FREE:
            kd[tree.vi[i]] = tree.stiffness[i]
            dd[tree.vi[i]] = tree.damping[i]
    law_q, law_v = joint_law_derivatives(tree, q0, v0)
    kd -= law_q
    dd -= law_v
    mass = 0.5 * (jm + jm.T)
    cl_q, cl_v = closure_derivatives(tree, q0, v0)  # zero without loop closures
    p2 = -jq - np.diag(kd) + cl_q
    p1 = -jv - np.diag(dd) + cl_v
    p3 = input_matrix(tree, q0)
    try:
        chol = np.linalg.cholesky(mass)
    except np.linalg.LinAlgError:
        raise IllPosedError(
            "linearize_at: the mass matrix is not positive definite at q0 "
            "(a joint moves no inertia)"
        ) from None

    def msolve(x):
        return np.linalg.solve(chol.T, np.linalg.solve(chol, x))

    a_mat = np.zeros((2 * nv, 2 * nv))
    a_mat[:nv, nv:] = np.eye(nv)
    for i in range(tree.n):
        if tree.kind[i] == FREE:  # d/dt of a body-axes tangent: dv - ad(v0) dq
            k = tree.vi[i]
            a_mat[k : k + 6, k : k + 6] = -crm(v0[k : k + 6])
    a_mat[nv:, :nv] = msolve(p2)
    a_mat[nv:, nv:] = msolve(p1)
    b_mat = np.vstack([np.zeros((nv, p3.shape[1])), msolve(p3)])
    coords = tree.tangent_names()
    states = coords + [f"{c}_dot" for c in coords]
    inputs = list(effort_names)
    for name, *_ in tree.inputs:
        inputs += [f"{name}_{c}" for c in ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")]
    sys = control.ss(
        a_mat,
        b_mat,
        np.eye(2 * nv),
        np.zeros((2 * nv, b_mat.shape[1])),
        states=states,
        inputs=inputs,
        outputs=states,
    )
    return Linearization(
        M=mass,
        P1=p1,
        P2=p2,
        P3=p3,
        A=a_mat,
        B=b_mat,
        ss=sys,
        q0=q0,
        v0=v0,
        a0=np.asarray(a0, dtype=float),
        tau0=np.asarray(tau0, dtype=float),
        coordinate_names=coords,
        input_names=inputs,
    )
