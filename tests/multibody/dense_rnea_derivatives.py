"""The dense recursion of seed 002 (Lin & Yae, digest Sec. 2.8) for the derivatives of
inverse dynamics: 6 x 3n derivative matrices carried body by body.

It was the package's implementation before the vectorised world-axes formulas of
:mod:`robustmb.multibody.rnea_derivatives`; a different algorithm (forward
propagation of first-order variations, no subtree composites), kept here as a
second reference for them.
"""

import numpy as np

from robustmb.multibody.dynamics import external_forces, joint_transforms
from robustmb.multibody.linearization import crm
from robustmb.multibody.tree import FREE, motion_transform, skew3


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
