"""Loads of a mechanism's LFT beyond gravity: applied wrenches, compliant closures, joint laws.

:meth:`.mechanism.Mechanism.trim` and :meth:`~.mechanism.Mechanism.linearize` build the
exact LFT of the tree (:mod:`.lft_assembly`).  Constant applied wrenches and compliant
loop closures enter the trim as loads and, around it, as a static feedback through
internal wrench inputs and port outputs (:func:`_with_loads`); a joint law enters as a
spring and damper at a numeric equilibrium.  What the LFT cannot model exactly raises,
naming the item and pointing to ``linearize_at``.
"""

from __future__ import annotations

import copy

import numpy as np

from .. import lft
from ..errors import IllPosedError
from . import _generic as g
from .joints import GROUND, PrismaticJoint
from .lft_assembly import LinearAssembly
from .mechanism_trim import applied_in_body_axes


def _numeric_equilibrium(joint):
    """The equilibrium angle or displacement of a 1-dof joint as a float, or None if uncertain."""
    if isinstance(joint, PrismaticJoint):
        x = joint.displacement
    else:
        x = joint.tan_half if joint.tan_half is not None else joint.tan_quarter
        if x is None:
            return float(joint.angle)
        if not g.is_number(x):
            return None
        return float((2.0 if joint.tan_half is not None else 4.0) * np.arctan(float(x)))
    return float(x) if g.is_number(x) else None


def _shifted(x, c):
    """``x + c`` for a number or an uncertain scalar (kept as it is when ``c`` is zero)."""
    if c == 0.0:
        return x
    return float(x) + c if g.is_number(x) else x + c


def _skew_column(c):
    """Skew matrix of a 3x1 column (numbers or uncertain)."""
    if g.is_number(c):
        return g.skew(np.asarray(c, dtype=float).reshape(3))
    return g.skew([c[i, 0] for i in range(3)])


def _add(x, y):
    """``x + y`` for numeric or uncertain matrices (``None``: zero)."""
    if x is None:
        return y
    if g.is_number(x) and not g.is_number(y):
        return y + x
    return x + y


def _selector(offset):
    """3x18 selection of a port output triple (pose: d 0, r 3; twist: v 6, w 9)."""
    s = np.zeros((3, 18))
    s[:, offset : offset + 3] = np.eye(3)
    return s


def _path_rotation(parent_joint, body):
    """Up to the root of ``body``: the root, the bodies on the way and the joint DCMs.

    ``rotations[i]`` is the child-in-parent rotation of the joint above ``path[i]``
    (``P_k = P_parent rotations[i]``, the trim's recurrence), numeric or not.
    """
    path, rotations = [], []
    while body in parent_joint:
        j = parent_joint[body]
        path.append(body)
        rotations.append(g.tr(j.dcm()))
        body = j.parent[0]
    return body, path, rotations


def _relative_rotation(tr, parent_joint, a, b):
    """``P_a^T P_b`` along the tree path between bodies ``a`` and ``b``, or None.

    Only the joints below the common ancestor enter (what lies above it turns
    both bodies alike); None if one of them has an uncertain rotation.  Two
    roots (the ground and a floating base) take their own numeric DCMs.
    """
    root_a, path_a, rot_a = _path_rotation(parent_joint, a)
    root_b, path_b, rot_b = _path_rotation(parent_joint, b)
    if root_a == root_b:
        chain_a, chain_b = [*path_a, root_a], [*path_b, root_b]
        common = next(k for k in chain_a if k in chain_b)
        rot_a, rot_b = rot_a[: chain_a.index(common)], rot_b[: chain_b.index(common)]
        top_a = top_b = np.eye(3)
    else:
        top_a, top_b = tr.dcm[root_a], tr.dcm[root_b]
    out = []
    for top, rots in ((top_a, rot_a), (top_b, rot_b)):
        if not (g.is_number(top) and all(g.is_number(r) for r in rots)):
            return None
        m = np.asarray(top, dtype=float)
        for r in reversed(rots):  # from the common ancestor (or root) down
            m = m @ np.asarray(r, dtype=float)
        out.append(m)
    return out[0].T @ out[1]


def _closure_rotations(tr, parent_joint, closures, method):
    """A rotational closure spring must be at rest at equilibrium, numerically, for the LFT.

    The relative rotation of its two bodies is taken along the tree path between
    them: an uncertain angle above both turns them alike and is allowed, one on
    the path is not (the spring's rest would depend on it).
    """
    for name, a, b, (_, _, kr, _) in closures:
        if g.is_number(kr) and float(kr) == 0.0:
            continue
        rel = _relative_rotation(tr, parent_joint, a[0], b[0])
        if rel is None or not np.allclose(rel, np.eye(3), rtol=0, atol=1e-12):
            raise IllPosedError(
                f"{method}: loop closure {name!r}: the LFT models a rotational spring only at "
                "rest at the equilibrium (the two bodies' axes aligned, with no uncertain "
                "angle between them); use linearize_at(q0, v0, ...) instead"
            )


def _with_loads(mech, topology, tr, applied, closures, ports, rates, simplify):
    """The LFT of a mechanism with constant applied wrenches and compliant closures.

    Both enter the trim as loads; around it, to first order, with ``P`` a body's
    equilibrium DCM and ``r`` its small rotation (equilibrium axes):

    - a wrench of constant inertial components, ``Wb = P^T W`` in body axes, turns
      to ``(I - skew(r)) Wb``: the wrench ``[skew(Fb) r; skew(Tb) r]`` at its port
      (a wrench in body axes has no such term);
    - a closure's force on its end ``a``, ``F = k (p_b - p_a) + d (v_b - v_a)``
      (inertial axes), moves by ``k (P_b d_b - P_a d_a) + d (P_b v_b - P_a v_a)``
      (``d``, ``v``: port displacement and velocity in body axes) and turns with
      the body like an applied force; a rotational spring at rest at equilibrium
      gives ``kr P_a (r_b - r_a) + dr (P_b w_b - P_a w_a)``; the opposite acts on ``b``.

    Each moving end gets an internal wrench input and port output, closed by the
    static feedback of these terms and removed from the result.
    """
    parent_joint, children, order = topology
    grounded = mech._grounded(parent_joint, order)
    inner = copy.copy(mech)
    inner.wrench_inputs = dict(mech.wrench_inputs)
    ends, terms = [], []  # terms: (wrench input end, port output end, 6x18 gain)
    d_sel, r_sel, v_sel, w_sel = (_selector(o) for o in (0, 3, 6, 9))
    zero = np.zeros((3, 18))

    def end(body, port):
        if body == GROUND or body in grounded:
            return None
        name = f"load{len(ends)}"
        while name in inner.wrench_inputs:
            name = "_" + name
        inner.wrench_inputs[name] = (body, port)
        ends.append((body, port))
        return len(ends) - 1

    for body, port, w, frame in applied:
        i = end(body, port) if frame == "inertial" else None
        if i is not None:
            fb, tb = applied_in_body_axes(tr.dcm[body], w, frame)
            terms.append((i, i, g.mm(g.vcat(_skew_column(fb), _skew_column(tb)), r_sel)))
    for name, a, b, (k, d, kr, dr) in closures:
        idx = {"a": end(*a), "b": end(*b)}
        dcm = {x: np.eye(3) if e[0] == GROUND else tr.dcm[e[0]] for x, e in (("a", a), ("b", b))}
        for x, sx in (("a", 1.0), ("b", -1.0)):  # the wrench on end x
            i = idx[x]
            if i is None:
                continue
            pt = g.tr(dcm[x])
            f_x = g.smul(sx, g.mm(pt, tr.closure_force[name]))
            terms.append((i, i, g.vcat(g.mm(_skew_column(f_x), r_sel), zero)))
            for y, sy in (("a", -1.0), ("b", 1.0)):
                j = idx[y]
                if j is None:
                    continue
                df = _add(g.smul(k, g.mm(dcm[y], d_sel)), g.smul(d, g.mm(dcm[y], v_sel)))
                dt = _add(g.smul(kr, g.mm(dcm["a"], r_sel)), g.smul(dr, g.mm(dcm[y], w_sel)))
                terms.append((i, j, g.smul(sx * sy, g.vcat(g.mm(pt, df), g.mm(pt, dt)))))
    asm = LinearAssembly(inner, parent_joint, children, order, tr, ports + ends)
    sys = asm.build(rates=rates, simplify=False)
    if ends:
        n = len(ends)
        gain = [[None] * n for _ in range(n)]
        for i, j, block in terms:
            gain[i][j] = _add(gain[i][j], block)
        names_in, names_out = sys.input_names, sys.output_names
        sys = lft.lft_lower(sys, g.block(gain, [6] * n, [18] * n))
        sys.input_names = names_in[: len(names_in) - 6 * n]
        sys.output_names = names_out[: len(names_out) - 18 * n]
    return lft.simplify(sys) if simplify else sys
