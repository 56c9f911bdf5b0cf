"""Step 3 of seed 000: the linear blocks of a tree mechanism and their exact interconnection.

One static block per body (inverse dynamics, Fig. 1a) and per joint (eqs. 22-23
as corrected in the digest) -- the same maps as the public blocks of
:mod:`.body_blocks`, :mod:`.joint_blocks` and :mod:`.base_blocks` --, the trim
LFTs re-injected as gains, all interconnected by one exact feedback (motion
flows down, wrenches flow up, the algebraic loops through the joint
accelerations are eliminated exactly), then closed by the joint integrators.
Used by :meth:`~robustmb.multibody.Mechanism.linearize`.
"""

from __future__ import annotations

import numpy as np

from .. import lft
from ..errors import IllPosedError
from . import _generic as g
from ._coordinates import close_coordinates
from .base_blocks import forward_dynamics_static
from .body_blocks import inverse_dynamics_static
from .joint_blocks import joint_static
from .joints import GROUND, PrismaticJoint, RevoluteJoint
from .signals import MOTION_COMPONENTS, POSE_COMPONENTS, WRENCH_COMPONENTS


class LinearAssembly:
    """Step 3: the linear blocks and their interconnection.

    The blocks are the static maps of :mod:`.body_blocks`, :mod:`.joint_blocks`
    and :mod:`.base_blocks` on structured signal keys; the joint and base
    acceleration loops use the nominal inertia they move as preconditioner.
    """

    def __init__(self, mech, parent_joint, children, order, tr, ports):
        self.mech, self.parent_joint, self.children = mech, parent_joint, children
        self.order, self.tr, self.ports = order, tr, ports
        self.nm = 21 if ports else 9
        self.fixed = mech._grounded(parent_joint, order)
        self.blocks = []  # (D, inputs, outputs); inputs/outputs: lists of (key, size)
        self.coords = []  # (kind, owner, index, output name)
        base = mech.floating_base
        if base:
            for i, c in enumerate(POSE_COMPONENTS):
                self.coords.append(("base", base, i, f"{base}_{c}"))
        for k in order:
            j = parent_joint.get(k)
            if j is not None and j.ndof:
                self.coords.append(("joint", j.name, 0, j.output_name))
        self.efforts = [
            parent_joint[k] for k in order if k in parent_joint and parent_joint[k].ndof
        ]

    def _moving(self, body):
        return body not in self.fixed

    # nominal composite inertias for the loop preconditioners ------------------
    def _composites(self):
        comp = {}
        for k in reversed(self.order):
            body = self.mech.bodies[k]
            j = self.parent_joint.get(k)
            ref = body.port(j.child[1]) if j is not None else (0.0, 0.0, 0.0)
            ref_n = np.array([g.nominal(e)[0, 0] for e in ref])
            total = body.nominal_spatial_inertia_at(ref)
            for cj in self.children[k]:
                child = comp[cj.name]
                c_n = np.array([g.nominal(e)[0, 0] for e in body.port(cj.parent[1])])
                tcp = _tau_num(ref_n - c_n)  # motion at C from motion at P
                total = total + tcp.T @ child @ tcp
            if j is None:
                comp[k] = total
                continue
            p6 = np.kron(np.eye(2), g.nominal(j.dcm()))
            if isinstance(j, RevoluteJoint):
                ra = j.orientation.T @ j.axis
                r6 = np.r_[np.zeros(3), ra]
                total = total + float(g.nominal(j.inertia)[0, 0]) * np.outer(r6, r6)
                comp[j.name] = p6.T @ total @ p6
                comp[("mu", j.name)] = float(r6 @ total @ r6)
            elif isinstance(j, PrismaticJoint):
                x = float(g.nominal(j.displacement)[0, 0])
                t = _tau_num(-x * j.axis)
                comp[j.name] = t.T @ p6.T @ total @ p6 @ t
                ta = np.r_[j.dcm() @ j.axis, np.zeros(3)]
                comp[("mu", j.name)] = float(ta @ total @ ta)
            else:
                comp[j.name] = p6.T @ total @ p6
        return comp

    # blocks ---------------------------------------------------------------------
    def _motion_ports(self, k):
        """Ports of body k whose motion some block or output needs."""
        need = [cj.parent[1] for cj in self.children[k]]
        need += [p for b, p in self.ports if b == k]
        j = self.parent_joint.get(k)
        own = j.child[1] if j is not None else None  # provided by the parent joint
        return [p for p in dict.fromkeys(need) if p != own]

    def _wrench_ports(self, k):
        """Ports of body k where children or external inputs apply wrenches."""
        need = [cj.parent[1] for cj in self.children[k]]
        need += [p for b, p in self.mech.wrench_inputs.values() if b == k]
        return list(dict.fromkeys(need))

    def _body_block(self, k):
        body = self.mech.bodies[k]
        parent_port = self.parent_joint[k].child[1]
        self.blocks.append(
            inverse_dynamics_static(
                body, parent_port, self._wrench_ports(k), self._motion_ports(k), self.nm
            )
        )

    def _joint_block(self, j, mu):
        b_name = j.parent[0]
        self.blocks.append(
            joint_static(
                j,
                nm=self.nm,
                mu=mu,
                child_acceleration=self.tr.frame_acceleration[j.child[0]],
                parent_wrench=self.tr.parent_wrench[j.name],
                moving_parent=b_name != GROUND and self._moving(b_name),
            )
        )

    def _base_block(self, big_m):
        k = self.mech.floating_base
        self.blocks.append(
            forward_dynamics_static(
                self.mech.bodies[k],
                self.tr.frame_acceleration[k],
                self._wrench_ports(k),
                self._motion_ports(k),
                self.nm,
                big_m,
            )
        )

    # interconnection -------------------------------------------------------------
    def build(self, *, rates, simplify):
        mech = self.mech
        comp = self._composites()
        scale = max([1.0] + [abs(v) for key, v in comp.items() if isinstance(key, tuple)])
        for k in self.order:
            j = self.parent_joint.get(k)
            if j is None:
                continue
            if j.ndof:
                mu = comp[("mu", j.name)]
                if not mu > 1e-12 * scale:
                    raise IllPosedError(
                        f"joint {j.name!r}: the bodies it moves have no inertia along its "
                        "axis, so the mass matrix is singular"
                    )
                self._joint_block(j, mu)
            elif self._moving(k):
                self._joint_block(j, 1.0)
            if self._moving(k):
                self._body_block(k)
        if mech.floating_base:
            big_m = comp[mech.floating_base]
            if np.linalg.matrix_rank(big_m) < 6:
                raise IllPosedError(
                    f"floating base {mech.floating_base!r}: the total spatial "
                    "inertia is singular (a free body needs mass and inertia)"
                )
            self._base_block(big_m)
        sys = self._interconnect(rates)
        return lft.simplify(sys) if simplify else sys

    def _coordinate_signals(self, kind):
        out = []
        for ckind, owner, i, _ in self.coords:
            out.append(((kind, owner), i if ckind == "base" else 0))
        return out

    def _interconnect(self, rates):
        mech = self.mech
        out_sig = [(key, i) for _, _, outs in self.blocks for key, n in outs for i in range(n)]
        in_sig = [(key, i) for _, ins, _ in self.blocks for key, n in ins for i in range(n)]
        index = {}
        for r, s in enumerate(out_sig):
            index.setdefault(s, []).append(r)
        for s, rows in index.items():  # wrenches at one port add up; nothing else may repeat
            if len(rows) > 1 and s[0][0] != "wrench":  # pragma: no cover - invariant
                raise IllPosedError(f"duplicate internal signal {s!r}")
        qsig, qdsig = self._coordinate_signals("q"), self._coordinate_signals("qd")
        usig = [(("effort", j.name), 0) for j in self.efforts]
        for name, (b, p) in mech.wrench_inputs.items():
            usig += [(("wrench", b, p), i, name) for i in range(6)]
        ext = qsig + qdsig + usig
        ext_rows = {}
        for e, s in enumerate(ext):
            ext_rows.setdefault(s[:2], []).append(e)
        ny, nin, ne = len(out_sig), len(in_sig), len(ext)
        sel = np.zeros((nin, ny))
        rin = np.zeros((nin, ne))
        for r, s in enumerate(in_sig):
            sel[r, index.get(s, [])] = 1.0
            rin[r, ext_rows.get(s, [])] = 1.0
            if s not in index and s not in ext_rows:  # pragma: no cover - invariant
                raise IllPosedError(f"internal signal {s!r} has no source")
        port_rows = []
        for b, p in self.ports:
            key = ("motion", b, p)
            port_rows += [
                index[(key, i)][0] if self._moving(b) else None
                for i in list(range(15, 21)) + list(range(9, 15)) + list(range(3, 9))
            ]
        qddsig = self._coordinate_signals("qdd")
        lout = np.zeros((len(qddsig) + len(port_rows), ny))
        for r, s in enumerate(qddsig):
            lout[r, index[s][0]] = 1.0
        for r, i in enumerate(port_rows):
            if i is not None:
                lout[len(qddsig) + r, i] = 1.0
        dbig = g.bdiag(*[d for d, _, _ in self.blocks])
        nominal_loop = np.eye(ny) - g.nominal(dbig) @ sel
        if np.linalg.cond(nominal_loop) > 1e12:
            raise IllPosedError(
                "the mass matrix is singular at the nominal parameters (coordinates "
                f"{[c[3] for c in self.coords]})"
            )
        if g.is_number(dbig):
            static = lout @ np.linalg.solve(nominal_loop, dbig @ rin)
        else:
            static = g.mm(lout, lft.feedback(dbig, sel, sign=1), rin)
        sys = close_coordinates(static, len(qsig), len(usig), len(port_rows), rates=rates)
        sys.input_names = self._input_names()
        sys.output_names = self._output_names(rates)
        return sys

    def _input_names(self):
        names = [j.input_name for j in self.efforts]
        for w in self.mech.wrench_inputs:
            names += [f"{w}_{c}" for c in WRENCH_COMPONENTS]
        return names

    def _output_names(self, rates):
        names = [c[3] for c in self.coords]
        if rates:
            names += [f"{c[3]}_dot" for c in self.coords]
        for b, p in self.ports:
            names += [f"{b}_{p}_{c}" for c in MOTION_COMPONENTS[15:21] + MOTION_COMPONENTS[9:15]]
            names += [f"{b}_{p}_{c}" for c in MOTION_COMPONENTS[3:9]]
        return names


def _tau_num(pc):
    t = np.eye(6)
    t[:3, 3:] = g.skew(np.asarray(pc, dtype=float))
    return t
