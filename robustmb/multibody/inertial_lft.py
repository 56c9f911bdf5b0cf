"""Linearisation at any point as an exact LFT of inertial parameters (seed 002, Sec. 5.4).

With the reference fixed kinematically -- ``(q0, v0, a0)`` -- inverse dynamics
is linear in each body's inertial parameters, so ``M``, ``P1``, ``P2`` (and the
reference efforts ``tau0``) are affine in the masses, the inertia entries, the
rotor inertias and the joint springs and dampers::

    M(p) = M0 + sum_k (p_k - p_k0) M_k,  and likewise P1, P2.

The coefficients come from the recursive linearisation itself, evaluated at
the ends and the centre of each element's range (exact, since the dependence
is affine -- checked, with the absence of products between parameters); the
model is only evaluated where the parameters are legal.  Writing ``[M_k, -P2_k, -P1_k] =
U_k V_k^T`` (rank ``r_k``), the descriptor equations

    M0 dq'' + sum_k U_k (p_k - p_k0) V_k^T [dq''; dq; dv] = P2_0 dq + P1_0 dv + P3 du

are an LFT in ``diag((p_k - p_k0) I_{r_k})``: each parameter occurs ``r_k``
times, the rank of its coefficient, and no inverse of an uncertain matrix
appears.
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np

from .. import lft
from ..errors import ArgumentError, DimensionError, UncertainTypeError
from . import _generic as g


@dataclass
class UncertainLinearization:
    """Linearisation with uncertain inertial parameters (see :meth:`Mechanism.linearize_at`).

    Attributes
    ----------
    M, P1, P2, tau0 : UncertainMatrix
        Affine in the parameters.
    P3 : ndarray
    ss : UncertainSystem
        States ``[dq; dv]``, inputs the efforts (deviations from ``tau0``)
        then the wrench inputs, outputs the states.
    nominal : Linearization
        At the nominal parameter values.
    coefficients : dict[str, dict[str, ndarray]]
        ``{name: {"M": M_k, "P1": ..., "P2": ..., "tau0": ...}}`` per unit of the parameter.
    q0, v0, a0 : ndarray
    """

    M: object
    P1: object
    P2: object
    P3: np.ndarray
    tau0: object
    ss: object
    nominal: object
    coefficients: dict
    q0: np.ndarray
    v0: np.ndarray
    a0: np.ndarray


def _elements(x):
    """Uncertain elements in a parameter, by name."""
    if g.is_number(x):
        return {}
    if isinstance(x, lft.UncertainElement):
        return {x.name: x}
    m = lft.umat(x) if not isinstance(x, lft.UncertainModel) else x
    return {n: el for n, (el, _) in m._real.blocks.items()}


def affine_parameters(mech):
    """Uncertain elements of a mechanism, split into inertial (affine) ones and the others.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.multibody import Mechanism, RigidBody
    >>> from robustmb.multibody.inertial_lft import affine_parameters
    >>> mech = Mechanism()
    >>> L = rmb.ureal("L", 1.0)
    >>> mech.add_body(RigidBody("b", mass=rmb.ureal("m", 1.0), ports={"P": [L, 0, 0]}))
    >>> ok, other = affine_parameters(mech)
    >>> sorted(ok), other
    (['m'], {'L': "body 'b' geometry"})
    """
    allowed, other = {}, {}
    for b in mech.bodies.values():
        for e in [b.mass] + [x for row in b.inertia for x in row]:
            allowed.update(_elements(e))
        for e in list(b.cog) + [x for p in b.ports.values() for x in p]:
            other.update({k: f"body {b.name!r} geometry" for k in _elements(e)})
    for j in mech.joints.values():
        for attr in ("stiffness", "damping", "inertia"):
            allowed.update(_elements(getattr(j, attr, 0.0)))
        for attr in ("displacement", "tan_half", "tan_quarter"):
            x = getattr(j, attr, None)
            if x is not None:
                other.update({k: f"joint {j.name!r} {attr}" for k in _elements(x)})
    for name, (_, _, gains) in getattr(mech, "loop_closures", {}).items():
        for e in gains:
            other.update({k: f"loop closure {name!r}" for k in _elements(e)})
    for name, (_, _, w, _) in getattr(mech, "applied_wrenches", {}).items():
        for e in w:
            other.update({k: f"applied wrench {name!r}" for k in _elements(e)})
    return allowed, other


def uncertain_linearization(mech, q0, v0, a0, tau0, values, wrenches):
    """Build :class:`UncertainLinearization` (see :meth:`Mechanism.linearize_at`).

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=rmb.ureal("m", 2.0, percent=20),
    ...                         ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> ul = mech.linearize_at([0.0], [0.0], uncertain=True)
    >>> ul.ss.blocks, float(ul.M.usubs({"m": 2.4})[0, 0])
    ({'m': 1}, 2.4)
    """
    values = dict(values or {})
    allowed, other = affine_parameters(mech)
    bad = {k: where for k, where in other.items() if k not in values}
    if bad:
        k, where = next(iter(bad.items()))
        raise UncertainTypeError(
            f"linearize_at(uncertain=True): parameter {k!r} ({where}) does not enter "
            "affinely; only masses, inertias, rotor inertias, springs and dampers may stay "
            "uncertain -- give its value in values="
        )
    free = {k: el for k, el in allowed.items() if k not in values}
    base = {**{k: el.nominal for k, el in free.items()}, **values}
    lin0 = mech.linearize_at(q0, v0, a0=a0, tau0=tau0, values=base, wrenches=wrenches)
    a0 = lin0.a0

    def at(vals):
        lin = mech.linearize_at(lin0.q0, lin0.v0, a0=a0, values=vals, wrenches=wrenches)
        return {"M": lin.M, "P1": lin.P1, "P2": lin.P2, "tau0": lin.tau0}

    ref = {"M": lin0.M, "P1": lin0.P1, "P2": lin0.P2, "tau0": lin0.tau0}
    # The coefficients are read from models at points of each element's own range (its ends
    # and its centre): the model is legal there, whatever the parameter's units or size (a
    # fixed step of +1 could make a small inertia indefinite, or be lost in a large stiffness).
    coef, steps, half, seen = {}, {}, {}, {}
    for k, el in free.items():
        lo, hi = (float(x) for x in el.range)
        if hi <= lo:  # a range of zero width: the parameter is fixed
            coef[k] = {f: np.zeros_like(ref[f]) for f in ref}
            steps[k] = 0.0
            continue
        nom, mid = float(base[k]), 0.5 * (lo + hi)
        ends = at({**base, k: lo}), at({**base, k: hi})
        coef[k] = {f: (ends[1][f] - ends[0][f]) / (hi - lo) for f in ref}
        # toward the farther end, so that the step is never zero
        steps[k] = hi - nom if hi - nom >= nom - lo else lo - nom
        # halfway from the nominal to that end: the mean of two legal points (see below)
        half[k] = at({**base, k: nom + 0.5 * steps[k]})
        seen[k] = ((lo, ends[0]), (mid, at({**base, k: mid})), (nom + 0.5 * steps[k], half[k]))
    # rounding is relative to the terms an entry sums: each parameter's whole share p_k c_k
    # (a zero entry such as tau0 at a balanced reference is a sum of large opposite shares)
    share = {
        f: sum(
            (max(abs(float(x)) for x in free[k].range) * np.abs(coef[k][f]) for k in seen),
            np.abs(ref[f]),
        )
        for f in ref
    }
    # tau0 at a free-motion reference is zero for every mass: its rounding follows M a0
    share["tau0"] = share["tau0"] + np.abs(lin0.M) @ np.abs(a0)
    # an entry zero by structure (the velocity terms of one revolute joint) is computed from
    # inertia times velocities, accelerations or gravity: it keeps rounding 1e-13 of those
    v, g = np.abs(lin0.v0).max(initial=0.0), np.abs(mech.acceleration).max()
    acc = np.abs(a0).max(initial=0.0) + v * v + g
    unit = 1e-4 * np.abs(lin0.M).max(initial=0.0)
    floor = {"M": unit, "P1": unit * (1 + v), "P2": unit * (1 + acc), "tau0": unit * (1 + acc)}
    share = {f: np.maximum(x, floor[f]) for f, x in share.items()}
    for k, pts in seen.items():
        for f in ref:  # affine in this parameter? (four distinct points, and the nominal)
            for x, val in pts:
                pred = ref[f] + coef[k][f] * (x - float(base[k]))
                if _departs(val[f] - pred, share[f], val[f]):
                    raise UncertainTypeError(
                        f"linearize_at(uncertain=True): {f} is not affine in parameter {k!r}"
                    )
    _check_no_products(at, base, ref, coef, steps, half, share)
    nv = lin0.M.shape[0]
    us, vs, deltas = [], [], []
    for k, el in free.items():
        c = coef[k]
        big = np.hstack([c["M"], -c["P2"], -c["P1"]])
        u, s, vh = np.linalg.svd(big)
        r = int(np.sum(s > 1e-12 * max(1.0, s[0] if s.size else 0.0)))
        if r == 0:
            continue
        us.append(u[:, :r] * s[:r])
        vs.append(vh[:r].T)
        deltas.append((el - float(el.nominal)) * np.eye(r))
    ss = _lft_system(lin0, us, vs, deltas, nv)

    def affine(f):
        out = lft.umat(ref[f]) if f != "tau0" else lft.umat(ref[f].reshape(-1, 1))
        for k, el in free.items():
            ck = coef[k][f] if f != "tau0" else coef[k][f].reshape(-1, 1)
            if np.abs(ck).max() > 0:
                out = out + (el - float(el.nominal)) * ck
        return out

    return UncertainLinearization(
        M=affine("M"),
        P1=affine("P1"),
        P2=affine("P2"),
        P3=lin0.P3,
        tau0=affine("tau0"),
        ss=ss,
        nominal=lin0,
        coefficients=coef,
        q0=lin0.q0,
        v0=lin0.v0,
        a0=a0,
    )


def _check_no_products(at, base, ref, coef, steps, half, share):
    """Refuse a product between parameters, each of which enters affinely on its own.

    With ``a_i = steps_i / 2`` the model is jointly affine only if every mixed difference
    ``f(x + a_i e_i + a_j e_j) - f(x + a_i e_i) - f(x + a_j e_j) + f(x)`` vanishes: each pair
    is checked at its own corner, so no sum of cross terms can cancel.  One more point with
    distinct random fractions of every step catches terms of higher order (``d_1 d_2 d_3``
    vanishes on every pair through the nominal).  All these points are legal: each is an
    average of the nominal and of range-end points with the other parameters nominal, and a
    mass matrix or an inertia is affine in the parameters while positive (semi)definiteness
    is convex.
    """
    moved = [k for k in steps if steps[k] != 0.0]

    def legal(vals, names):
        # illegal (an indefinite inertia) at an average of legal points: not affine
        try:
            return at(vals)
        except (ArgumentError, DimensionError) as exc:
            raise UncertainTypeError(
                f"linearize_at(uncertain=True): parameters {names} multiply each other (the "
                f"model is illegal at an average of legal points: {exc})"
            ) from None

    for n, i in enumerate(moved):
        for j in moved[n + 1 :]:
            pair = {i: base[i] + 0.5 * steps[i], j: base[j] + 0.5 * steps[j]}
            both = legal({**base, **pair}, f"{i!r} and {j!r}")
            for f in ref:
                mixed = both[f] - half[i][f] - half[j][f] + ref[f]
                if _departs(mixed, share[f], both[f], half[i][f], half[j][f]):
                    raise UncertainTypeError(
                        f"linearize_at(uncertain=True): parameters {i!r} and {j!r} multiply "
                        f"each other in {f}; only an affine dependence can stay uncertain"
                    )
    if len(moved) > 1:
        # weights summing to one: a convex combination of the one-parameter range ends
        w = np.random.default_rng(len(moved)).uniform(0.5, 1.5, len(moved))
        w /= w.sum()
        names = ", ".join(repr(k) for k in moved)
        some = {k: base[k] + wk * steps[k] for k, wk in zip(moved, w, strict=True)}
        some = legal({**base, **some}, names)
        for f in ref:
            summed = ref[f] + sum(
                wk * steps[k] * coef[k][f] for k, wk in zip(moved, w, strict=True)
            )
            if _departs(some[f] - summed, share[f], some[f]):
                raise UncertainTypeError(
                    f"linearize_at(uncertain=True): parameters {names} multiply each other in "
                    f"{f}; only an affine dependence can stay uncertain"
                )


def _departs(diff, *vals, rtol=1e-9):
    """Whether a residual exceeds rounding, entry by entry.

    Entry ``(i, j)`` is compared with ``rtol * sqrt(R_i C_j)``, ``R_i`` and ``C_j`` the
    largest magnitudes in row ``i`` and column ``j`` over the evaluated models: a large
    stiffness in one entry does not hide a product of masses in another, and an entry
    summed from larger terms of its row and column keeps room for their rounding.
    """
    diff = np.atleast_1d(np.abs(diff))
    size = np.max([np.abs(np.atleast_1d(v)) for v in vals], axis=0)
    if diff.ndim == 1:  # a vector: its own largest entry is the row/column scale
        diff, size = diff[:, None], size[:, None]
    rows, cols = size.max(axis=1), size.max(axis=0)
    return bool(np.any(diff > rtol * np.sqrt(np.outer(rows, cols))))


def _lft_system(lin0, us, vs, deltas, nv):
    """``Fu(N, diag(delta_k I))`` with ``N``: ``[w; du] -> [z; dq; dv]`` around the nominal."""
    minv = np.linalg.inv(lin0.M)
    p3 = lin0.P3
    nu = p3.shape[1]
    a = lin0.A
    if not us:
        sys = control.ss(a, lin0.B, np.eye(2 * nv), np.zeros((2 * nv, nu)))
        out = lft.uss(sys)
    else:
        u_all = np.hstack(us)
        v_all = np.hstack(vs)
        nr = u_all.shape[1]
        va, vq, vv = v_all[:nv].T, v_all[nv : 2 * nv].T, v_all[2 * nv :].T
        b = np.zeros((2 * nv, nr + nu))
        b[nv:, :nr] = -minv @ u_all
        b[nv:, nr:] = minv @ p3
        c = np.vstack([np.hstack([vq + va @ a[nv:, :nv], vv + va @ a[nv:, nv:]]), np.eye(2 * nv)])
        d = np.zeros((nr + 2 * nv, nr + nu))
        d[:nr, :nr] = -va @ minv @ u_all
        d[:nr, nr:] = va @ minv @ p3
        out = lft.lft_upper(control.ss(a, b, c, d), lft.block_diag(*deltas))
    out.input_names = list(lin0.input_names)
    out.output_names = list(lin0.ss.output_labels)
    return out
