"""Compliant loop closure for closed chains (seed 001, Sec. 3.4, Figs. 13-14).

A closed chain is opened at one connection and the two ends -- port ``a`` on one
body, port ``b`` on another -- are tied by a spring-damper (the paper's closure
block ``L_C``, a penalty method, not an exact constraint)::

    F_on_a = k (p_b - p_a) + d (v_b - v_a)                 (inertial components)
    T_on_a = k_r rotvec(P_a^T P_b) + d_r (w_b - w_a)      (rotational part optional)

and the opposite wrench acts on ``b``.  ``rotvec`` is the rotation vector of
the relative attitude of the two bodies' axes (in inertial components), valid
for large relative rotations, unlike the Euler-angle difference of the paper.
"""

from __future__ import annotations

import numpy as np

from .tree import FREE, generalized_forces, joint_transforms


def rotation_vector(r):
    """Rotation vector (axis * angle) of a rotation matrix, angle below pi.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.loop_closure import rotation_vector
    >>> from robustmb.multibody import rotation_matrix
    >>> np.round(rotation_vector(rotation_matrix([0, 0, 1], 0.3)), 12)
    array([0. , 0. , 0.3])
    """
    w = 0.5 * np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    s = np.linalg.norm(w)
    angle = np.arctan2(s, 0.5 * (np.trace(r) - 1.0))
    return w * (angle / s) if s > 1e-12 else w


def world_kinematics(tree, q, v, xs):
    """World orientation, origin, and twist (node axes) of every node."""
    rw, pw, vel = [], [], []
    for i in range(tree.n):
        x = xs[i]
        r = x[:3, :3].T  # X holds R^T
        # X[:3, 3:] = -R^T skew(p)  ->  skew(p) = -R X[:3, 3:]
        sk = -r @ x[:3, 3:]
        p = np.array([sk[2, 1], sk[0, 2], sk[1, 0]])
        j = tree.parent[i]
        if j < 0:
            rw.append(r)
            pw.append(p)
        else:
            rw.append(rw[j] @ r)
            pw.append(pw[j] + rw[j] @ p)
        k = tree.vi[i]
        if tree.kind[i] == FREE:
            vel.append(v[k : k + 6])
        else:
            vj = tree.S[i] * v[k]
            vel.append(vj if j < 0 else x @ vel[j] + vj)
    return rw, pw, vel


def _port_state(tree, rw, pw, vel, node, rb, pt):
    if node < 0:
        return rb, pt, np.zeros(3), np.zeros(3)
    r = rw[node]
    w = vel[node][3:]
    return (
        r @ rb,
        pw[node] + r @ pt,
        r @ (vel[node][:3] + np.cross(w, pt)),
        r @ w,
    )


def closure_forces(tree, q, v, xs):
    """Wrenches of the closures at each node origin, node axes: (n, 6)."""
    f = np.zeros((tree.n, 6))
    if not tree.closures:
        return f
    rw, pw, vel = world_kinematics(tree, q, v, xs)
    for _, ends, k, d, kr, dr in tree.closures:
        (na, rba, pta), (nb, rbb, ptb) = ends
        ra, pa, va, wa = _port_state(tree, rw, pw, vel, na, rba, pta)
        rb_, pb, vb, wb = _port_state(tree, rw, pw, vel, nb, rbb, ptb)
        force = k * (pb - pa) + d * (vb - va)
        torque = dr * (wb - wa)
        if kr:
            torque = torque + kr * (ra @ rotation_vector(ra.T @ rb_))
        for node, pt, sign in ((na, pta, 1.0), (nb, ptb, -1.0)):
            if node < 0:
                continue
            fl = rw[node].T @ (sign * force)
            f[node] += np.r_[fl, rw[node].T @ (sign * torque) + np.cross(pt, fl)]
    return f


def closure_energy(tree, q):
    """Potential energy of the closure springs."""
    if not tree.closures:
        return 0.0
    xs, _ = joint_transforms(tree, q)
    rw, pw, vel = world_kinematics(tree, q, np.zeros(tree.nv), xs)
    e = 0.0
    for _, ends, k, _, kr, _ in tree.closures:
        (na, rba, pta), (nb, rbb, ptb) = ends
        ra, pa, _, _ = _port_state(tree, rw, pw, vel, na, rba, pta)
        rb_, pb, _, _ = _port_state(tree, rw, pw, vel, nb, rbb, ptb)
        e += 0.5 * k * float((pb - pa) @ (pb - pa))
        if kr:
            th = rotation_vector(ra.T @ rb_)
            e += 0.5 * kr * float(th @ th)
    return e


def tangent_step(tree, q, dq):
    """``q (+) dq``: joints add, a floating base moves by a body-axes twist."""
    from .attitude import quaternion_from_dcm
    from .tree import quat_to_dcm, rodrigues

    out = np.array(q, dtype=float)
    for i in range(tree.n):
        k, m = tree.qi[i], tree.vi[i]
        if tree.kind[i] == FREE:
            quat = out[k + 3 : k + 7] / np.linalg.norm(out[k + 3 : k + 7])
            r = quat_to_dcm(quat)
            out[k : k + 3] += r @ dq[m : m + 3]
            rot = dq[m + 3 : m + 6]
            ang = np.linalg.norm(rot)
            step = rodrigues(rot / ang, ang) if ang > 0 else np.eye(3)
            new = quaternion_from_dcm(r @ step)
            out[k + 3 : k + 7] = new if new @ quat >= 0 else -new
        else:
            out[k] += dq[m]
    return out


def closure_derivatives(tree, q, v):
    """``dQ/dq`` (tangent) and ``dQ/dv`` of the closure efforts, by central differences."""
    nv = tree.nv
    dq, dv = np.zeros((nv, nv)), np.zeros((nv, nv))
    if not tree.closures:
        return dq, dv

    def gen(qq, vv):
        xs, _ = joint_transforms(tree, qq)
        return generalized_forces(tree, xs, closure_forces(tree, qq, vv, xs))

    for c in range(nv):
        e = np.zeros(nv)
        e[c] = 1e-6
        dq[:, c] = (gen(tangent_step(tree, q, e), v) - gen(tangent_step(tree, q, -e), v)) / 2e-6
        dv[:, c] = (gen(q, v + e) - gen(q, v - e)) / 2e-6
    return dq, dv
