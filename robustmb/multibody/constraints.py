"""Exact holonomic loop-closure constraints for closed chains.

A closed chain is built as a tree (opened at one connection) and the two ends
-- port ``a`` of one body and port ``b`` of another, either may be the ground
-- are tied by the constraint that the chosen components of the position of
``b`` relative to ``a``, in the axes of ``a``'s body, vanish::

    g(q) = E^T R_a^T (p_b - p_a) = 0                 (E: the chosen axes, 3 x k)

(``components=("x", "y")`` for the pin of a planar four-bar, all three for a
spherical joint).  With ``d = p_b - p_a`` and ``w_a`` the angular velocity of
``a``::

    g'  = E^T R_a^T (d' + d x w_a)                    = J v
    g'' = E^T R_a^T (d'' + d' x w_a + d x w_a' - w_a x (d' + d x w_a)) = J v' + gamma

Attitude rows (revolute, universal and weld closures) hold the relative
rotation ``R_rel = R_a^T R_b`` (``b``'s axes aligned by the rest orientation)
about chosen axes of ``a`` through entries ``R_rel[i, j] = u_i . w_j`` of the two
bodies' axes (:func:`attitude_terms`), with
``d/dt (u_i . w_j) = (u_i x w_j) . (w_a - w_b)``.

Dynamics (index reduced to accelerations, Lagrange multipliers ``lambda``)::

    M v' + h = tau + J^T lambda,      J v' = -gamma - 2 alpha g' - beta^2 g

with Baumgarte's stabilisation ``(alpha, beta)`` (zero by default: the index-1
form is exact on the constraint manifold; the stabilisation only pulls a
numerically drifting state back).  Redundant constraints (a planar loop
constrained in 3-D) are handled by the minimum-norm multipliers: the
accelerations are unique.  :func:`assemble` projects coordinates and rates onto
the manifold (Gauss-Newton, minimum-norm steps).

All kinematics here are plain NumPy on any dtype, so complex steps give the
exact derivatives used by the linearisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ..errors import IllPosedError
from .articulated import _jump_compose, _tree_layout, cross_motion_rows
from .rnea_derivatives import mass_matrix, rate_layout
from .tree import FREE, REVOLUTE, batch_placements, quat_to_dcm, skew3

AXES = {"x": 0, "y": 1, "z": 2}
_I1, _I2 = np.array([1, 2, 0]), np.array([2, 0, 1])


def _cross(a, b):
    """Cross product over the last axis (``np.cross`` without its axis handling: it
    dominates the per-call cost of these small kinematics)."""
    if a.ndim == 1 and b.ndim == 1:
        a0, a1, a2 = a
        b0, b1, b2 = b
        return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return a.take(_I1, -1) * b.take(_I2, -1) - a.take(_I2, -1) * b.take(_I1, -1)


def node_kinematics(tree, q, v):
    """World poses, twists, velocity-product accelerations and twist Jacobians of every node.

    Returns ``rw, pw`` (rotations, origins), ``vel`` (world twists at the inertial
    origin), ``bias`` (spatial accelerations at zero ``v'``, field excluded) and
    ``jac`` (6 x nv each: ``vel = jac v``, ``acc = jac v' + bias``).

    Examples
    --------
    The bob spinning at 2 rad/s about x (the pivot, at the inertial origin).

    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> rw, pw, vel, bias, jac = node_kinematics(tree, np.array([0.4]), np.array([2.0]))
    >>> vel[0] + 0.0, jac[0][:, 0] + 0.0
    (array([0., 0., 0., 2., 0., 0.]), array([0., 0., 0., 1., 0., 0.]))
    """
    # every node at once (complex-safe: complex steps differentiate through it)
    art, lay = _tree_layout(tree), rate_layout(tree)
    n, node = tree.n, lay["node"]
    r, p = batch_placements(tree, q)
    dt = np.result_type(r, p, v, float)
    h = np.zeros((n + 1, 4, 4), dtype=dt)
    h[:n, :3, :3], h[:n, :3, 3], h[:, 3, 3] = r, p, 1.0
    h[n, :3, :3] = np.eye(3)
    h = _jump_compose(h, art["par"], art["steps"], left=True)  # world poses
    rw, pw = h[:n, :3, :3], h[:n, :3, 3]
    # node twist -> world twist: [[R, p^ R], [0, R]]
    sl = art["s_local"]
    ang = (rw @ sl[:, 3:, None])[:, :, 0]
    s_node = np.concatenate([(rw @ sl[:, :3, None])[:, :, 0] + _cross(pw, ang), ang], axis=1)
    s_rate = s_node[node]
    for i in lay["free"]:
        k = tree.vi[i]
        x = np.zeros((6, 6), dtype=dt)
        x[:3, :3], x[3:, 3:], x[:3, 3:] = rw[i], rw[i], skew3(pw[i]) @ rw[i]
        s_rate[k : k + 6] = x.T
    vj = s_node * v[art["vi"]][:, None]
    for i in lay["free"]:
        k = tree.vi[i]
        vj[i] = s_rate[k : k + 6].T @ v[k : k + 6]
    anc = lay["desc"].T  # anc[i, j]: j is i or above it
    vel = anc @ vj
    bias = anc @ cross_motion_rows(vel, vj)  # a floating base: v x v = 0
    jac = s_rate.T[None] * anc[:, node][:, None, :]
    return rw, pw, vel, bias, jac


def _end(tree, kin, end, dt):
    """Point kinematics of a constraint end: rotation, position, velocity, angular
    velocity, point Jacobian, angular Jacobian, acceleration bias, angular bias."""
    rw, pw, vel, bias, jac = kin
    node, rb, pt = end
    nv = tree.nv
    if node < 0:
        z3, zj = np.zeros(3, dtype=dt), np.zeros((3, nv), dtype=dt)
        return rb, pt.astype(dt), z3, z3, zj, zj, z3, z3
    r = rw[node] @ rb
    p = pw[node] + rw[node] @ pt
    w = vel[node][3:]
    pd = vel[node][:3] + _cross(w, p)
    jp = jac[node][:3] - skew3(p) @ jac[node][3:]
    acc = bias[node][:3] + _cross(bias[node][3:], p) + _cross(w, pd)
    return r, p, pd, w, jp, jac[node][3:], acc, bias[node][3:]


def _levi(i, j, k):
    return (i - j) * (j - k) * (k - i) / 2


@cache
def attitude_terms(rot):
    """Rows ``g_k = sum coef * R_rel[i, j]`` holding the rotation about the axes ``rot``.

    ``R_rel = R_a^T R_b`` (``b``'s aligned axes in ``a``'s); every row is the
    rotation angle ``theta_k`` to first order, and none loses rank along the
    motions the closure allows:

    - one free axis ``f`` (a revolute closure): ``b``'s ``f`` axis has no component
      along ``a``'s blocked axes, ``g_k = -eps_{m f k} R_rel[m, f]`` (``m`` the
      other blocked axis) -- regular at every angle about ``f``;
    - two free axes (a universal joint): ``a``'s ``i`` axis stays perpendicular to
      ``b``'s ``j`` axis, ``g_k = -R_rel[i, j]``, ``(i, j, k)`` cyclic;
    - no free axis (a weld): ``g = (R_rel - R_rel^T)^vee / 2``.

    Returns ``(coef, ii, jj)``: ``coef`` (rows x terms) and the entries of each term.

    Examples
    --------
    A revolute closure about ``z``: ``b``'s z axis has no x or y component in ``a``.

    >>> from robustmb.multibody.constraints import attitude_terms
    >>> coef, ii, jj = attitude_terms((0, 1))
    >>> coef, [(int(i), int(j)) for i, j in zip(ii, jj)]
    (array([[-1.,  0.],
           [ 0.,  1.]]), [(1, 2), (0, 2)])
    """
    free = [f for f in range(3) if f not in rot]
    terms, rows = [], []
    for r, k in enumerate(rot):
        i, j = (k + 1) % 3, (k + 2) % 3  # (i, j, k) cyclic
        if len(free) == 1:
            f = free[0]
            m = next(x for x in rot if x != k)
            new = [(-_levi(m, f, k), m, f)]
        elif len(free) == 2:
            new = [(-1.0, i, j)]
        else:
            new = [(0.5, j, i), (-0.5, i, j)]
        for c, a, b in new:
            rows.append(r)
            terms.append((c, a, b))
    coef = np.zeros((len(rot), len(terms)))
    coef[rows, np.arange(len(terms))] = [t[0] for t in terms]
    return coef, np.array([t[1] for t in terms]), np.array([t[2] for t in terms])


def _attitude_rows(ra, rb, wa, wb, rot):
    """Attitude rows of :func:`attitude_terms`, their Jacobian factor and its rate.

    With ``u_i``, ``w_j`` the columns of ``R_a``, ``R_b`` (world components),
    ``R_rel[i, j] = u_i . w_j`` and ``d/dt (u_i . w_j) = (u_i x w_j) . (w_a - w_b)``
    (``u' = w_a x u``, ``w' = w_b x w``), so ``g' = c (w_a - w_b)`` and
    ``g'' = c (alpha_a - alpha_b) + c' (w_a - w_b)``.  Returns ``g, c, c'``.
    """
    coef, ii, jj = attitude_terms(tuple(rot))
    u, w = ra[:, ii].T, rb[:, jj].T  # one row per term
    du, dw = _cross(wa, u), _cross(wb, w)
    g = coef @ np.sum(u * w, axis=1)
    c = coef @ _cross(u, w)
    cd = coef @ (_cross(du, w) + _cross(u, dw))
    return g, c, cd


def constraint_terms(tree, q, v):
    """``(g, J, gamma)`` of all exact constraints, stacked in declaration order.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> from robustmb.multibody.constraints import constraint_terms
    >>> mech = Mechanism(ground_ports={"B": [0.0, 1.0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    >>> g, jac, gamma = constraint_terms(mech.rigid_tree(), np.array([np.pi / 2]), np.ones(1))
    >>> np.abs(g).max() < 1e-15, jac.round(12)         # the tip moves along -x of the bar
    (np.True_, array([[ 0.],
           [-1.]]))
    """
    dt = np.result_type(q, v, float)
    kin = node_kinematics(tree, q, v)
    gs, js, cs = [], [], []
    for _, end_a, end_b, sel, rot in tree.constraints:
        ra, pa, pda, wa, jpa, jwa, acca, ala = _end(tree, kin, end_a, dt)
        rb, pb, pdb, wb, jpb, jwb, accb, alb = _end(tree, kin, end_b, dt)
        if sel:
            d, dd = pb - pa, pdb - pda
            e = ra[:, sel]  # chosen axes of a, world components
            y = dd + _cross(d, wa)
            gs.append(e.T @ d)
            js.append(e.T @ (jpb - jpa + skew3(d) @ jwa))
            cs.append(e.T @ (accb - acca + _cross(dd, wa) + _cross(d, ala) - _cross(wa, y)))
        if rot:
            g, c, cd = _attitude_rows(ra, rb, wa, wb, rot)
            w_rel = wa - wb
            gs.append(g)
            js.append(c @ (jwa - jwb))
            cs.append(c @ (ala - alb) + cd @ w_rel)
    if not gs:
        return np.zeros(0), np.zeros((0, tree.nv)), np.zeros(0)
    return np.concatenate(gs), np.vstack(js), np.concatenate(cs)


def _pinv_solve(a, b):
    """Minimum-norm solution of a symmetric positive semi-definite system (redundant rows)."""
    w, u = np.linalg.eigh(a)
    keep = w > 1e-12 * max(1.0, w.max(initial=0.0))
    wk = w[keep] if b.ndim == 1 else w[keep, None]
    return u[:, keep] @ ((u[:, keep].T @ b) / wk)


def constrained_accelerations(tree, q, v, qdd_free, mass):
    """Accelerations and multipliers under the constraints, from the unconstrained ones.

    ``qdd_free``: forward dynamics without constraints; ``mass``: the mass matrix.
    Used by :meth:`Mechanism.forward_dynamics <robustmb.multibody.Mechanism.forward_dynamics>`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> from robustmb.multibody.constraints import constrained_accelerations
    >>> mech = Mechanism(ground_ports={"B": [1.0, 0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="y")
    >>> t = mech.rigid_tree()
    >>> qdd, lam = constrained_accelerations(t, np.zeros(1), np.zeros(1), np.ones(1), np.eye(1))
    >>> qdd.round(12), lam.round(12)         # held: the multiplier cancels the push
    (array([0.]), array([1.]))
    """
    g, jac, gamma = constraint_terms(tree, q, v)
    if g.size == 0:
        return qdd_free, g
    alpha, beta = tree.baumgarte  # per constraint row
    chol = np.linalg.cholesky(mass)
    y = np.linalg.solve(chol.T, np.linalg.solve(chol, jac.T))  # M^{-1} J^T
    rhs = -(jac @ qdd_free + gamma + 2.0 * alpha * (jac @ v) + beta**2 * g)
    lam = _pinv_solve(jac @ y, rhs)
    return qdd_free + y @ lam, lam


def constrained_hybrid(tree, q, v, tau, imposed, bias, mass, names=None):
    """Mixed modes under the constraints: imposed accelerations, the rest free.

    ``imposed``: ``{rate index: acceleration}``; ``bias``: the efforts that give zero
    accelerations (``h(q, v)``, so ``M a + bias = tau + J^T lambda``); ``mass``: the
    mass matrix.  Unknowns: the free accelerations, the imposed joints' efforts and
    the multipliers; the free rows and the index-reduced constraints give the first
    and the last (a KKT system condensed on the free joints' mass matrix), the
    imposed rows the efforts.  When the imposed joints over-actuate a loop the
    efforts are not unique: the minimum-norm multipliers are taken.  Imposed
    accelerations that the constraints forbid raise an error naming ``names``.
    Used by :meth:`Mechanism.hybrid_dynamics <robustmb.multibody.Mechanism.hybrid_dynamics>`.

    Examples
    --------
    A bar pinned at both ends cannot turn: held at rest it needs no torque (the
    pin takes the loads), and a non-zero acceleration is refused.

    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism(ground_ports={"B": [1.0, 0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    >>> a, tau = mech.hybrid_dynamics([0.0], [0.0], [2.0], {"J": 0.0})
    >>> a, tau.round(12)
    (array([0.]), array([0.]))
    >>> mech.hybrid_dynamics([0.0], [0.0], [0.0], {"J": 1.0})
    Traceback (most recent call last):
    ...
    robustmb.errors.IllPosedError: hybrid_dynamics: the imposed accelerations of ['J'] violate ...
    """
    g, jac, gamma = constraint_terms(tree, q, v)
    alpha, beta = tree.baumgarte
    target = -(gamma + 2.0 * alpha * (jac @ v) + beta**2 * g)
    imp = np.array(sorted(imposed), dtype=int)
    free = np.setdiff1d(np.arange(tree.nv), imp)
    a = np.zeros(tree.nv)
    a[imp] = [imposed[k] for k in imp]
    jf = jac[:, free]
    rest = target - jac[:, imp] @ a[imp]
    lam = np.zeros(jac.shape[0])
    if free.size:
        chol = np.linalg.cholesky(mass[np.ix_(free, free)])

        def msolve(x):
            return np.linalg.solve(chol.T, np.linalg.solve(chol, x))

        rhs = tau[free] - bias[free] - mass[np.ix_(free, imp)] @ a[imp]
        y, a0 = msolve(jf.T), msolve(rhs)
        lam = _pinv_solve(jf @ y, rest - jf @ a0)
        a[free] = a0 + y @ lam
    miss = np.abs(jf @ a[free] - rest).max(initial=0.0)
    if miss > 1e-9 * max(1.0, np.abs(a).max(), np.abs(rest).max(initial=0.0)):
        raise IllPosedError(
            f"hybrid_dynamics: the imposed accelerations of {names or list(imp)} violate the "
            f"loop constraints ({', '.join(c[0] for c in tree.constraints)}) by {miss:.3g}"
        )
    efforts = tau.astype(float).copy()
    efforts[imp] = (mass[imp] @ a + bias[imp] - jac[:, imp].T @ lam) if imp.size else []
    return a, efforts


def assemble(tree, q, v=None, *, fixed=(), tol=1e-12, max_iter=50):
    """Project ``q`` (and ``v``) onto the constraint manifold from the guess ``q``.

    Gauss-Newton with minimum-norm steps in the tangent coordinates, each step
    halved until the residual norm decreases (an undamped step can jump to a
    far branch or several turns away); revolute angles are returned within
    ``pi`` of the guess (the same configuration, the nearest turn).  The result
    is a solution near the guess: the nearest one when the guess lies in its
    Newton basin.  ``fixed``: indices (in the tangent coordinates, i.e. the
    rates) of coordinates held at their given values (e.g. the crank).
    Used by :meth:`Mechanism.assemble <robustmb.multibody.Mechanism.assemble>`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism(ground_ports={"B": [0.0, 1.0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    >>> from robustmb.multibody.constraints import assemble
    >>> q, v = assemble(mech.rigid_tree(), [1.2], [0.5])
    >>> bool(np.isclose(q[0], np.pi / 2)), v      # tip on B; a pinned bar cannot turn
    (True, array([0.]))
    """
    guess = np.array(q, dtype=float)
    q = guess.copy()
    free = np.setdiff1d(np.arange(tree.nv), np.asarray(fixed, dtype=int))
    zero = np.zeros(tree.nv)
    quats = [tree.qi[i] + np.arange(3, 7) for i in range(tree.n) if tree.kind[i] == FREE]

    def moved(q, step):
        out = retract(tree, q, step)  # a tangent step (first order), then unit quaternions
        for k in quats:
            out[k] /= np.linalg.norm(out[k])
        return out

    g, jac, _ = constraint_terms(tree, q, zero)
    steps = 0
    while np.abs(g).max(initial=0.0) > tol and steps < max_iter:
        steps += 1
        jf = jac[:, free]
        step = np.zeros(tree.nv)
        step[free] = -jf.T @ _pinv_solve(jf @ jf.T, g)
        norm, alpha = np.linalg.norm(g), 1.0
        while True:  # backtrack: accept the first step that reduces the residual norm
            trial = moved(q, alpha * step)
            g_trial, jac_trial, _ = constraint_terms(tree, trial, zero)
            if np.linalg.norm(g_trial) < (1.0 - 1e-4 * alpha) * norm or alpha < 1e-10:
                break
            alpha /= 2.0
        if alpha < 1e-10:  # no descent along the Gauss-Newton direction: a stationary point
            break
        q, g, jac = trial, g_trial, jac_trial
    if not np.abs(g).max(initial=0.0) <= tol:
        raise IllPosedError(
            f"assemble: the loop constraints cannot be closed from this guess "
            f"(residual {np.abs(g).max():.3g} after {steps} damped Gauss-Newton steps)"
        )
    rev = np.array([tree.qi[i] for i in range(tree.n) if tree.kind[i] == REVOLUTE], dtype=int)
    # the same configuration, nearest the guess (whole turns change nothing but the
    # value of q, which a joint spring or a later linearisation would see)
    q[rev] = guess[rev] + (q[rev] - guess[rev] + np.pi) % (2.0 * np.pi) - np.pi
    _check_branch(tree, q)
    if v is None:
        return q
    v = np.array(v, dtype=float)
    _, jac, _ = constraint_terms(tree, q, v)
    jf = jac[:, free]
    v[free] -= jf.T @ _pinv_solve(jf @ jf.T, jac @ v)
    return q, v


def _check_branch(tree, q):
    """Refuse an attitude closure assembled on its flipped branch (the rows vanish there too)."""
    kin = node_kinematics(tree, q, np.zeros(tree.nv))
    for name, end_a, end_b, _, rot in tree.constraints:
        free = [f for f in range(3) if f not in rot]
        if len(free) == 2 or not rot:
            continue  # a universal joint: every solution is one of its configurations
        rel = _end(tree, kin, end_a, float)[0].T @ _end(tree, kin, end_b, float)[0]
        if len(free) == 1 and rel[free[0], free[0]] < 0:
            axis = "xyz"[free[0]]
            raise IllPosedError(
                f"assemble: loop constraint {name!r} closed with the {axis} axes of its two "
                "ends opposite (a flipped revolute); start nearer to the intended assembly"
            )
        if not free and np.trace(rel) < 1:
            angle = np.degrees(np.arccos(np.clip((np.trace(rel) - 1) / 2, -1, 1)))
            raise IllPosedError(
                f"assemble: loop constraint {name!r} closed {angle:.0f} deg away from its rest "
                "orientation (a flipped weld); start nearer to the intended assembly"
            )


def check_consistent(tree, q, v, what="q0, v0", tol=1e-8):
    """Raise if ``(q, v)`` violates the constraints by more than ``tol`` (scaled).

    The tolerance is scaled by ``max(1, |q|, |v|)``; ``what`` names the state in the
    :class:`~robustmb.errors.IllPosedError` message.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism(ground_ports={"B": [0.0, 1.0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    >>> from robustmb.multibody.constraints import check_consistent
    >>> check_consistent(mech.rigid_tree(), np.array([np.pi / 2]), np.zeros(1))  # on B: silent
    >>> check_consistent(mech.rigid_tree(), np.array([1.2]), np.zeros(1))
    Traceback (most recent call last):
    ...
    robustmb.errors.IllPosedError: q0, v0 violate ...pin... at position level by 0.362; ...
    """
    g, jac, _ = constraint_terms(tree, q, v)
    if g.size == 0:
        return
    gd = jac @ v
    bad = np.argmax(np.abs(np.r_[g, gd]))
    worst = np.abs(np.r_[g, gd])[bad]
    if worst > tol * max(1.0, np.abs(q).max(initial=0.0), np.abs(v).max(initial=0.0)):
        names = [c[0] for c in tree.constraints]
        sizes = [len(c[3]) + len(c[4]) for c in tree.constraints]
        owner = str(np.repeat(names, sizes)[bad % g.size])
        level = "position" if bad < g.size else "velocity"
        raise IllPosedError(
            f"{what} violate the loop constraint {owner!r} at {level} level by {worst:.3g}; "
            "use Mechanism.assemble to project them onto the constraints"
        )


@dataclass
class ConstrainedLinearization:
    """Linearisation on the loop-constraint manifold (see :meth:`Mechanism.linearize_at`).

    Attributes
    ----------
    A, B : ndarray
        ``x' = A x + B u`` with ``x = [dz; dz']``, ``z`` the independent coordinates.
    ss : control.StateSpace
        ``(A, B, I, 0)`` with named states and inputs.
    independent : list of str
        The independent coordinates ``z``.
    basis : ndarray (2 nv, 2 r)
        Full tangent state ``[dq; dv] = basis @ x`` (on the manifold).
    A_full, B_full : ndarray
        The index-reduced equations in all coordinates (their restriction to the
        manifold's tangent space is ``A``).
    M, P1, P2, P3 : ndarray
        Unconstrained terms at the reference (efforts including the constraint forces).
    J : ndarray
        Constraint Jacobian; ``multipliers``: the constraint forces ``lambda`` at the reference.
    q0, v0, a0, tau0 : ndarray
    """

    A: np.ndarray
    B: np.ndarray
    ss: object
    independent: list
    basis: np.ndarray
    A_full: np.ndarray
    B_full: np.ndarray
    M: np.ndarray
    P1: np.ndarray
    P2: np.ndarray
    P3: np.ndarray
    J: np.ndarray
    multipliers: np.ndarray
    q0: np.ndarray
    v0: np.ndarray
    a0: np.ndarray
    tau0: np.ndarray
    input_names: list


def retract(tree, q0, dq):
    """Coordinates displaced by the tangent vector ``dq`` (length ``nv``), to first order.

    Joints: ``q = q0 + dq``; a floating base: origin ``p0 + R0 dx`` and attitude
    ``R0 (I + [dr]x)`` (small displacement and rotation in body axes, the
    tangent coordinates of :meth:`Mechanism.linearize_at`).  Plain arithmetic
    on any dtype, so complex steps give exact derivatives in tangent coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody
    >>> from robustmb.multibody.constraints import retract
    >>> mech = Mechanism(floating_base="b")
    >>> mech.add_body(RigidBody("b", mass=1.0, inertia=1.0))
    >>> q0 = np.array([0, 0, 0, 0, 0, np.sin(0.5), np.cos(0.5)])   # turned 1 rad about z
    >>> retract(mech.rigid_tree(), q0, np.array([1e-3, 0, 0, 0, 0, 0]))[:3].round(6)
    array([0.00054 , 0.000841, 0.      ])
    """
    dt = np.result_type(q0, dq, float)
    if not tree.floating:
        return q0 + dq.astype(dt)
    q = q0.astype(dt)
    for i in range(tree.n):
        k, m = tree.qi[i], tree.vi[i]
        if tree.kind[i] == FREE:
            quat = q0[k + 3 : k + 7]
            q[k : k + 3] = q0[k : k + 3] + quat_to_dcm(quat) @ dq[m : m + 3]
            h = 0.5 * dq[m + 3 : m + 6]  # quat0 (x) (h, 1): body-axes rotation
            q[k + 3 : k + 6] = quat[3] * h + quat[:3] + _cross(quat[:3], h)
            q[k + 6] = quat[3] - quat[:3] @ h
        else:
            q[k] = q0[k] + dq[m]
    return q


def _complex_jacobian(fn, x0, h=1e-30):
    """Exact Jacobian of a complex-analytic ``fn`` at real ``x0`` by complex steps."""
    cols = []
    for c in range(x0.size):
        e = np.zeros(x0.size, dtype=complex)
        e[c] = 1j * h
        cols.append(np.imag(fn(x0 + e)) / h)
    return np.array(cols).T


def _pivoted_coordinates(basis, count, rtol=1e-8):
    """Indices of ``count`` rows of the orthonormal ``basis`` chosen by pivoted Gram-Schmidt.

    The row Gram matrix ``basis @ basis.T`` is the orthogonal projector onto the null
    space, so the choice does not depend on which orthonormal basis ``null_space``
    returned.  Each step takes the row with the largest residual norm; rows within
    ``rtol`` of that largest norm count as tied (equal in exact arithmetic, e.g. by a
    symmetry) and the first of them in coordinate order is taken -- the choice of
    LAPACK's pivoted QR in exact arithmetic, made independent of rounding.

    Examples
    --------
    Row 1 is the longest; rows 0 and 2 then tie (norm ``1/sqrt(2)``): the first is taken.

    >>> import numpy as np
    >>> from robustmb.multibody.constraints import _pivoted_coordinates
    >>> _pivoted_coordinates(np.array([[1, 0], [0, 2**0.5], [1, 0]]) / 2**0.5, 2)
    [0, 1]
    """
    rows = np.array(basis, dtype=float, copy=True)
    chosen = []
    for _ in range(count):
        norms = np.linalg.norm(rows, axis=1)
        norms[chosen] = -1.0
        top = norms.max()
        k = int(np.flatnonzero(norms >= (1.0 - rtol) * top)[0])
        chosen.append(k)
        unit = rows[k] / norms[k]
        for _ in range(2):  # Gram-Schmidt, twice for orthogonality to rounding
            rows -= np.outer(rows @ unit, unit)
    return sorted(chosen)


def linearize_constrained(tree, q0, v0, tau0, lin_free, independent=None):
    """Linearisation of the constrained dynamics, restricted to the constraint manifold.

    ``lin_free`` is a callable ``a0 -> Linearization`` of the unconstrained model at
    ``(q0, v0, a0)`` (efforts: those that hold ``a0`` -- constraint forces included).
    Called by :meth:`Mechanism.linearize_at <robustmb.multibody.Mechanism.linearize_at>`,
    which builds ``lin_free`` from the tree's dynamics; returns a
    :class:`ConstrainedLinearization`.

    Examples
    --------
    A constraint on the out-of-plane component only holds for every planar motion, so
    the bar stays free: ``A = [[0, 1], [0, 0]]``, ``B = [0, 1 / inertia]``.

    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism(ground_ports={"B": [0.0, 1.0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="z")
    >>> lin = mech.linearize_at(np.zeros(1), np.zeros(1))  # runs linearize_constrained
    >>> lin.independent, lin.A.round(12), lin.B.round(12)
    (['J_q'], array([[0., 1.],
           [0., 0.]]), array([[ 0.],
           [10.]]))
    """
    import control
    from scipy.linalg import null_space

    check_consistent(tree, q0, v0, "q0, v0")
    nv = tree.nv
    mass = mass_matrix(tree, q0)
    g, jac, _ = constraint_terms(tree, q0, v0)
    lin0 = lin_free(None)  # free dynamics at tau0 (gives the unconstrained a)
    a0, lam = constrained_accelerations(tree, q0, v0, lin0.a0, mass)
    lin = lin_free(a0)
    # second-order constraint terms, exact by complex steps in tangent coordinates
    zero = np.zeros(nv)

    def at(dq):
        return constraint_terms(tree, retract(tree, q0, dq), v0)

    def q_terms(dq):  # J^T lambda, J a0 + gamma and J v0 from one evaluation
        _, jq, gq = at(dq)
        return np.concatenate([jq.T @ lam, jq @ a0 + gq, jq @ v0])

    stacked = _complex_jacobian(q_terms, zero)
    nc = jac.shape[0]
    k_lam, g_q, jv_q = stacked[:nv], stacked[nv : nv + nc], stacked[nv + nc :]
    g_v = _complex_jacobian(lambda v: constraint_terms(tree, q0, v)[2], v0)
    chol = np.linalg.cholesky(lin.M)

    def msolve(x):
        return np.linalg.solve(chol.T, np.linalg.solve(chol, x))

    nu = lin.P3.shape[1]
    r = msolve(np.hstack([lin.P2 + k_lam, lin.P1, lin.P3]))
    y = msolve(jac.T)
    rhs = -(jac @ r + np.hstack([g_q, g_v, np.zeros((jac.shape[0], nu))]))
    rows = r + y @ _pinv_solve(jac @ y, rhs)
    a_full = np.zeros((2 * nv, 2 * nv))
    a_full[:nv] = lin.A[:nv]  # dq' = dv (- ad(v0) dq for a floating base's tangent)
    a_full[nv:] = rows[:, : 2 * nv]
    b_full = np.vstack([np.zeros((nv, nu)), rows[:, 2 * nv :]])
    # tangent space of {g = 0, J v = 0}, and the independent coordinates
    tangent = null_space(np.block([[jac, np.zeros_like(jac)], [jv_q, jac]]))
    nz = tangent.shape[1] // 2
    names = tree.tangent_names()
    if independent is None:
        idx = _pivoted_coordinates(null_space(jac), nz)
    else:
        independent = [independent] if isinstance(independent, str) else list(independent)
        for nm in independent:
            if nm not in names:
                raise IllPosedError(
                    f"linearize_at: unknown independent coordinate {nm!r} (coordinates: {names})"
                )
        if len(independent) != nz:
            raise IllPosedError(
                f"linearize_at: the constrained mechanism has {nz} degrees of freedom, "
                f"{len(independent)} independent coordinates given"
            )
        idx = [names.index(nm) for nm in independent]
    sel = np.r_[idx, np.asarray(idx, dtype=int) + nv]
    pt = tangent[sel]
    if np.linalg.cond(pt) > 1e10:
        raise IllPosedError(
            f"linearize_at: {[names[i] for i in idx]} do not parametrise the constrained "
            "motion at this point (choose other independent coordinates)"
        )
    basis = tangent @ np.linalg.inv(pt)
    a_mat, b_mat = a_full[sel] @ basis, b_full[sel]
    ind = [names[i] for i in idx]
    states = ind + [f"{c}_dot" for c in ind]
    sys = control.ss(
        a_mat,
        b_mat,
        np.eye(2 * nz),
        np.zeros((2 * nz, nu)),
        states=states,
        inputs=lin.input_names,
        outputs=states,
    )
    return ConstrainedLinearization(
        A=a_mat,
        B=b_mat,
        ss=sys,
        independent=ind,
        basis=basis,
        A_full=a_full,
        B_full=b_full,
        M=lin.M,
        P1=lin.P1,
        P2=lin.P2,
        P3=lin.P3,
        J=jac,
        multipliers=lam,
        q0=q0,
        v0=v0,
        a0=a0,
        tau0=np.asarray(tau0, dtype=float),
        input_names=lin.input_names,
    )
