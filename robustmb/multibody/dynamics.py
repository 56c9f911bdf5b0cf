"""Nonlinear rigid-tree dynamics: inverse (RNEA), forward (articulated, O(n)), mass matrix.

These are the TITOP blocks of seed 001 evaluated in their two modes and
assembled: each body's Newton-Euler equation at its origin (digest eq. 29),

    W_ext = D_O (xdot' - [g; 0]) + C(x') D_O x',      C(x') = [[w^, 0], [v^, w^]],

with the spatial acceleration ``xdot'`` (body-frame derivative of the twist).
*Joint-inverse mode* (every joint's acceleration imposed) needs no loop
solve: motion goes down the tree, wrenches come up -- the recursive
Newton-Euler algorithm.  *Joint-forward mode* closes the algebraic loop of
the block diagram exactly by condensation (digest Sec. 5.3, option B): each
block returns the wrench on its parent as ``-M_A xdot'_port + w_A``
(articulated inertia ``M_A`` and bias ``w_A``), leaves to base, and a second
pass base to leaves gives the accelerations -- O(n), no dense solve.

Everything is written for one :class:`~robustmb.multibody.tree.RigidTree`;
the public entry points are the :class:`~robustmb.multibody.Mechanism`
methods ``inverse_dynamics``, ``forward_dynamics`` and ``mass_matrix``.
Generalised efforts: a joint's torque or force on its child; for a floating
base, the wrench on the base at its origin in body axes.  Joint springs and
dampers act about the equilibrium coordinate of the linear model.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import ArgumentError, DimensionError, SignalError
from .articulated import forward_world
from .loop_closure import closure_energy, closure_forces
from .tree import FREE, generalized_forces, joint_transforms


def _cross(a, b):
    """Cross product of two 3-vectors (``np.cross`` costs ~30 us a call; this ~2 us)."""
    a0, a1, a2 = a.tolist()
    b0, b1, b2 = b.tolist()
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def cross_motion(v, m):
    """``crm(v) m``: ``[w x m_l + v_l x m_a; w x m_a]``."""
    v0, v1, v2, w0, w1, w2 = v.tolist()
    l0, l1, l2, a0, a1, a2 = m.tolist()
    return np.array(
        [
            w1 * l2 - w2 * l1 + v1 * a2 - v2 * a1,
            w2 * l0 - w0 * l2 + v2 * a0 - v0 * a2,
            w0 * l1 - w1 * l0 + v0 * a1 - v1 * a0,
            w1 * a2 - w2 * a1,
            w2 * a0 - w0 * a2,
            w0 * a1 - w1 * a0,
        ]
    )


def cross_force(v, f):
    """``crf(v) f``: ``[w x f_l; v_l x f_l + w x f_a]`` (the TITOP ``C(x') f``)."""
    v0, v1, v2, w0, w1, w2 = v.tolist()
    l0, l1, l2, a0, a1, a2 = f.tolist()
    return np.array(
        [
            w1 * l2 - w2 * l1,
            w2 * l0 - w0 * l2,
            w0 * l1 - w1 * l0,
            v1 * l2 - v2 * l1 + w1 * a2 - w2 * a1,
            v2 * l0 - v0 * l2 + w2 * a0 - w0 * a2,
            v0 * l1 - v1 * l0 + w0 * a1 - w1 * a0,
        ]
    )


def finite_entries(x, what, size, names, t=None, noun="entries"):
    """``x`` as ``size`` finite floats, else an error naming the entry (and the time ``t``).

    ``names``: a callable giving the entries' names, only called on failure.  A
    non-finite effort would spread NaN through the dynamics (or make an
    integrator shrink its step for ever).

    Raises
    ------
    ArgumentError
        If an entry is not a real number or not finite.
    DimensionError
        If ``x`` does not hold ``size`` entries.

    Examples
    --------
    >>> finite_entries([1, 2], "tau", 2, lambda: ["a", "b"])
    array([1., 2.])
    >>> try:
    ...     finite_entries([1, float("nan")], "tau", 2, lambda: ["a", "b"])
    ... except ArgumentError as err:
    ...     print(err)
    tau[1] (b) is not finite: nan
    """
    at = "" if t is None else f" at t = {t:.6g}"
    try:
        u = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must give real numbers{at}, got {x!r}") from None
    if u.size != size:
        raise DimensionError(f"{what} gave {u.size} {noun}{at}, need {size}")
    bad = np.flatnonzero(~np.isfinite(u))
    if bad.size:
        k = bad[0]
        raise ArgumentError(f"{what}[{k}] ({names()[k]}) is not finite{at}: {u[k]}")
    return u


def wrench_components(name):
    """Names of the 6 components of the wrench input ``name`` (a callable, for messages).

    Examples
    --------
    >>> wrench_components("push")()[3:]
    ['push_Tx', 'push_Ty', 'push_Tz']
    """
    return lambda: [f"{name}_{c}" for c in ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")]


def check_wrenches(tree, wrenches, *, callables=False):
    """Values of the wrench inputs as ``{declared name: 6 finite floats}``.

    A misspelt name would silently leave its wrench at zero, so every name
    must be a wrench input of the mechanism (:meth:`Mechanism.add_wrench_input`);
    ``callables=True`` (simulation) passes callables ``f(t, q, v)`` through,
    to be checked at each call.

    Raises
    ------
    ArgumentError
        If ``wrenches`` is not a mapping, or a component is not a finite real number
        (names the input and the component).
    SignalError
        If a name is not a declared wrench input (lists the declared ones).
    DimensionError
        If a wrench does not have 6 components.

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0], "c": [0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> mech.add_wrench_input("push", "bob", "c")
    >>> check_wrenches(mech.rigid_tree(), {"push": [0, 1, 0, 0, 0, 0]})["push"]
    array([0., 1., 0., 0., 0., 0.])
    >>> try:
    ...     check_wrenches(mech.rigid_tree(), {"Push": [0, 1, 0, 0, 0, 0]})
    ... except SignalError as err:
    ...     print(err)
    wrenches: unknown wrench input 'Push' (declared: ['push'])
    """
    if wrenches is None:
        return {}
    if not isinstance(wrenches, Mapping):
        kind = "6 numbers or f(t, q, v)" if callables else "6 numbers"
        raise ArgumentError(
            f"wrenches must be a mapping {{wrench input: {kind}}}, got {type(wrenches).__name__}"
        )
    known = [name for name, *_ in tree.inputs]
    out = {}
    for name, w in wrenches.items():
        if name not in known:
            raise SignalError(
                f"wrenches: unknown wrench input {name!r} (declared: {sorted(known)})"
            )
        if callables and callable(w):
            out[name] = w
        else:
            out[name] = finite_entries(w, f"wrenches[{name!r}]", 6, wrench_components(name))
    return out


def external_forces(tree, q, rw, wrenches=None, v=None, xs=None):
    """Applied wrenches at each node origin, node axes: (n, 6).

    ``wrenches`` maps wrench-input names to 6 numbers (body axes, at the port),
    as checked by :func:`check_wrenches`;
    the mechanism's applied wrenches (e.g. buoyancy) are added, and with the rates
    ``v`` (and transforms ``xs``) the loop-closure spring-dampers.
    """
    f = np.zeros((tree.n, 6), dtype=np.result_type(q, float))
    wrenches = wrenches or {}
    for name, node, rb, pt in tree.inputs:
        w = wrenches.get(name)
        if w is None or node < 0:
            continue
        w = np.asarray(w, dtype=float).reshape(6)
        fl = rb @ w[:3]
        f[node] += np.r_[fl, rb @ w[3:] + _cross(pt, fl)]
    for _, node, rb, pt, w, frame in tree.loads:
        if node < 0:
            continue
        if frame == "inertial":
            fl, tl = rw[node].T @ w[:3], rw[node].T @ w[3:]
        else:
            fl, tl = rb @ w[:3], rb @ w[3:]
        f[node] += np.concatenate([fl, tl + _cross(pt, fl)])
    if v is not None and tree.closures:
        f = f + closure_forces(tree, q, v, xs)
    return f


def _rates(tree, i, x):
    k = tree.vi[i]
    return x[k : k + 6] if tree.kind[i] == FREE else x[k]


def joint_law(tree, q, v):
    """Spring and damper efforts ``-k (q - q_eq) - d v`` of the 1-dof joints (length nv)."""
    b = tree.batch
    out = np.zeros(tree.nv, dtype=np.result_type(q, v, float))
    qi, vi = b["law_q"], b["law_v"]
    out[vi] = -b["law_k"] * (q[qi] - b["law_q_eq"]) - b["law_d"] * v[vi]
    for k, m, fn in tree.laws:  # user laws (Mechanism.add_joint_law)
        try:
            effort = fn(q[k], v[m])
        except Exception as err:  # the user's code: say which joint and state it was given
            i = next(i for i in range(tree.n) if tree.kind[i] != FREE and tree.vi[i] == m)
            coord = tree.joint_names[i]
            raise ArgumentError(
                f"the joint law of {tree.names[i]!r} raised {type(err).__name__} ({err}) "
                f"at {coord} = {q[k].item()!r}, {coord}_dot = {v[m].item()!r}"
            ) from err
        try:
            ok = np.size(effort) == 1 and bool(np.isfinite(effort).all())
        except TypeError:
            ok = False
        if not ok:  # NaN would spread silently, or pass for a body without inertia
            i = next(i for i in range(tree.n) if tree.kind[i] != FREE and tree.vi[i] == m)
            coord = tree.joint_names[i]
            shown = np.asarray(effort).tolist() if not callable(effort) else effort
            raise ArgumentError(
                f"the joint law of {tree.names[i]!r} returned {shown!r} at {coord} = "
                f"{q[k].item()!r}, {coord}_dot = {v[m].item()!r}: it must return one finite number"
            )
        out[m] += effort
    return out


def joint_law_derivatives(tree, q, v):
    """``d law / dq`` and ``d law / dv`` of the user laws (diagonal entries, length nv).

    Complex step when the law accepts complex numbers (exact), central differences otherwise.
    """
    dq, dv = np.zeros(tree.nv), np.zeros(tree.nv)
    for k, m, fn in tree.laws:
        try:
            gq, gv = law_derivatives(fn, q[k], v[m])
        except Exception as err:  # the user's code, at points next to the state
            i = next(i for i in range(tree.n) if tree.kind[i] != FREE and tree.vi[i] == m)
            coord = tree.joint_names[i]
            raise ArgumentError(
                f"the joint law of {tree.names[i]!r} raised {type(err).__name__} ({err}) "
                f"while differentiated at {coord} = {q[k].item()!r}, "
                f"{coord}_dot = {v[m].item()!r}"
            ) from err
        dq[m] += gq
        dv[m] += gv
    return dq, dv


def law_derivatives(fn, x, y):
    """``(d fn / dx, d fn / dy)`` of a scalar law ``fn(x, y)`` at a point.

    Complex step when the law accepts complex numbers and agrees with central
    differences (then exact to rounding), central differences otherwise.

    Examples
    --------
    >>> [float(d) for d in law_derivatives(lambda q, qd: -3.0 * q**3 - 0.5 * qd, 2.0, 0.0)]
    [-36.0, -0.5]
    """
    x, y = float(x), float(y)
    hq, hv = 1e-6 * max(1.0, abs(x)), 1e-6 * max(1.0, abs(y))
    gq = (fn(x + hq, y) - fn(x - hq, y)) / (2 * hq)
    gv = (fn(x, y + hv) - fn(x, y - hv)) / (2 * hv)
    try:  # exact when the law is complex-analytic; a law with abs() etc. fails the check
        cq = np.imag(complex(fn(x + 1e-30j, y))) / 1e-30
        cv = np.imag(complex(fn(x, y + 1e-30j))) / 1e-30
        if abs(cq - gq) <= 1e-5 * max(1.0, abs(gq)) and abs(cv - gv) <= 1e-5 * max(1.0, abs(gv)):
            gq, gv = cq, cv
    except (TypeError, ValueError):
        pass
    return gq, gv


def rnea(tree, q, v, a, fext, xs=None, rw=None):
    """Rigid inverse dynamics: generalised efforts that give ``a`` (joint-inverse mode)."""
    if xs is None:
        xs, rw = joint_transforms(tree, q)
    n = tree.n
    # gravity as an upward acceleration of the ground (a uniform field): each body's
    # acceleration below is its true one minus the field, so no attitude is needed
    a_ground = np.r_[-tree.gravity, 0.0, 0.0, 0.0]
    vel, acc, f = [None] * n, [None] * n, [None] * n
    for i in range(n):
        j = tree.parent[i]
        if tree.kind[i] == FREE:
            vi = _rates(tree, i, v)
            ai = _rates(tree, i, a) + xs[i] @ a_ground
        else:
            s = tree.S[i]
            vj = s * v[tree.vi[i]]
            if j < 0:
                vi, ai = vj, xs[i] @ a_ground + s * a[tree.vi[i]]
            else:
                vi = xs[i] @ vel[j] + vj
                ai = xs[i] @ acc[j] + s * a[tree.vi[i]] + cross_motion(vi, vj)
        vel[i], acc[i] = vi, ai
        inertia = tree.inertia[i]
        f[i] = inertia @ ai + cross_force(vi, inertia @ vi) - fext[i]
    return generalized_forces(tree, xs, f)


def aba(tree, q, v, tau, fext, xs=None, rw=None):
    """Forward dynamics by condensation of the TITOP loop (articulated-body recursion,
    in world axes: :func:`~robustmb.multibody.articulated.forward_world`)."""
    return forward_world(tree, q, v, tau, fext)[0]


def hybrid(tree, q, v, tau, imposed, fext, xs=None):
    """Mixed modes: joints of ``imposed`` (node -> acceleration) in joint-inverse mode,
    the others in joint-forward mode (seed 001's two modes of a joint block).

    Returns ``(qdd, tau)``: every acceleration and every effort; an imposed joint is
    not condensed, its wrench goes up the tree whole and its effort is read at the end.
    """
    return forward_world(tree, q, v, tau, fext, imposed)


def crba(tree, q, xs=None):
    """Joint-space mass matrix by composite inertias (the TITOP blocks at rest, g = 0)."""
    if xs is None:
        xs, _ = joint_transforms(tree, q)
    n = tree.n
    ic = [tree.inertia[i].copy() for i in range(n)]
    for i in reversed(range(n)):
        j = tree.parent[i]
        if j >= 0:
            ic[j] = ic[j] + xs[i].T @ ic[i] @ xs[i]
    m = np.zeros((tree.nv, tree.nv))
    for i in range(n):
        free = tree.kind[i] == FREE
        s = np.eye(6) if free else tree.S[i][:, None]
        ki = tree.vi[i]
        sl_i = slice(ki, ki + s.shape[1])
        f = ic[i] @ s
        m[sl_i, sl_i] = s.T @ f
        j = i
        while tree.parent[j] >= 0:
            f = xs[j].T @ f
            j = tree.parent[j]
            sj = np.eye(6) if tree.kind[j] == FREE else tree.S[j][:, None]
            kj = tree.vi[j]
            blk = sj.T @ f
            m[kj : kj + sj.shape[1], sl_i] = blk
            m[sl_i, kj : kj + sj.shape[1]] = blk.T
    return m


def kinetic_energy(tree, q, v):
    """``1/2 sum v_i^T D_i v_i`` over the nodes."""
    xs, _ = joint_transforms(tree, q)
    e = 0.0
    vel = [None] * tree.n
    for i in range(tree.n):
        j = tree.parent[i]
        if tree.kind[i] == FREE:
            vi = _rates(tree, i, v)
        else:
            vj = tree.S[i] * v[tree.vi[i]]
            vi = vj if j < 0 else xs[i] @ vel[j] + vj
        vel[i] = vi
        e += 0.5 * vi @ tree.inertia[i] @ vi
    return float(e)


def potential_energy(tree, q):
    """Gravity, joint springs and constant inertial forces (buoyancy) as a potential."""
    rw, pw = tree.world_poses(q)
    e = 0.0
    for body, m in tree.masses.items():
        r, p = tree.body_pose(body, rw, pw)
        e -= m * tree.gravity @ (p + r @ tree.coms[body])
    for i in range(tree.n):
        if tree.kind[i] != FREE:
            e += 0.5 * tree.stiffness[i] * (q[tree.qi[i]] - tree.q_eq[i]) ** 2
    for _, node, _, pt, w, frame in tree.loads:
        if frame == "inertial" and node >= 0:
            e -= w[:3] @ (pw[node] + rw[node] @ pt)
    if tree.closures:
        e += closure_energy(tree, q)
    return float(e)


def system_com(tree, q):
    """Centre of mass of the whole mechanism (inertial frame)."""
    rw, pw = tree.world_poses(q)
    tot, mom = 0.0, np.zeros(3)
    for body, m in tree.masses.items():
        r, p = tree.body_pose(body, rw, pw)
        tot += m
        mom += m * (p + r @ tree.coms[body])
    return mom / tot if tot > 0 else mom
