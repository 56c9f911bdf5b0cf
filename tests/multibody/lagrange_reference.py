"""Independent reference: Lagrangian linearisation from numerical kinematics.

Shares no code with ``robustmb.multibody``.  A mechanism is a plain dict (see
``mechanism_specs.py``).  Forward kinematics gives each body's rotation and
origin as functions of the coordinate deviations ``q``; then

- ``M = sum m Jv^T Jv + Jw^T (R I R^T) Jw (+ rotor inertias)`` with Jacobians by
  complex-step differentiation of the kinematics (exact to rounding);
- ``V(q) = sum m a . p_G``; its gradient uses the geometric Jacobian
  (analytic in q) and the Hessian is the complex step of that gradient;
- a floating base is held by a body-fixed wrench ``W_b`` solved from
  equilibrium; its generalised force ``Q(q)`` is differentiated the same way;
- linear model ``M q'' + D q' + K q = B u`` with ``K = Hess V - dQ/dq + Kp``.
"""

from __future__ import annotations

import numpy as np

H = 1e-30  # complex-step size


def skew(u):
    return np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]], dtype=u.dtype)


def rot(axis, angle):
    """Active rotation about a unit axis (works for complex angles)."""
    s = skew(np.asarray(axis, dtype=complex))
    return np.eye(3) + np.sin(angle) * s + (1 - np.cos(angle)) * (s @ s)


def _rx(a):
    return rot(np.array([1.0, 0, 0]), a)


def _ry(a):
    return rot(np.array([0, 1.0, 0]), a)


def _rz(a):
    return rot(np.array([0, 0, 1.0]), a)


class LagrangeReference:
    """Linearised equations of a tree mechanism described by a plain dict."""

    def __init__(self, spec, values=None):
        self.spec = spec
        self.values = dict(values or {})
        self.a = np.asarray(spec["acceleration"], dtype=float)
        self.base = spec.get("floating_base")
        self.bodies = spec["bodies"]
        self.joints = spec["joints"]
        self.ground = {"O": [0.0, 0.0, 0.0], **spec.get("ground_ports", {})}
        # coordinates: base (6) then actuated joints in the order given
        self.coord_names = []
        if self.base:
            self.coord_names += [f"{self.base}_{c}" for c in ("dx", "dy", "dz", "rx", "ry", "rz")]
        self.joint_coord = {}
        for j in self.joints:
            if j["type"] in ("revolute", "prismatic"):
                self.joint_coord[j["name"]] = len(self.coord_names)
                self.coord_names.append(j["output"])
        self.n = len(self.coord_names)
        self.parent_of = {j["child"][0]: j for j in self.joints}

    # parameters ---------------------------------------------------------------
    def val(self, x):
        if isinstance(x, str):
            return self.values.get(x, self.spec["params"][x][0])
        return float(x)

    def vec(self, v):
        return np.array([self.val(e) for e in v], dtype=float)

    def body_inertia(self, b):
        inertia = self.bodies[b].get("inertia", 0.0)
        arr = np.asarray(inertia, dtype=object)
        if arr.ndim == 0:
            return self.val(inertia) * np.eye(3)
        if arr.shape == (3,):
            return np.diag([self.val(e) for e in arr])
        return np.array([[self.val(e) for e in row] for row in arr], dtype=float)

    def port(self, body, name):
        if body == "ground":
            return np.asarray(self.ground[name], dtype=float)
        return self.vec(self.bodies[body]["ports"][name])

    # kinematics -----------------------------------------------------------------
    def kinematics(self, q):
        """Rotation (body to world) and origin of every body, for deviations q."""
        q = np.asarray(q)
        out = {"ground": (np.eye(3, dtype=complex), np.zeros(3, dtype=complex))}
        if self.base:
            rbar = np.asarray(self.spec["base_orientation"], dtype=float)
            pbar = np.asarray(self.spec.get("base_position", [0, 0, 0]), dtype=float)
            r = rbar @ _rx(q[3]) @ _ry(q[4]) @ _rz(q[5])
            out[self.base] = (r, pbar + rbar @ q[:3])
        pending = list(self.joints)
        while pending:
            rest = []
            for j in pending:
                pb, cb = j["parent"][0], j["child"][0]
                if pb not in out:
                    rest.append(j)
                    continue
                rp, pp = out[pb]
                r0 = np.asarray(j.get("orientation", np.eye(3)), dtype=float)
                c = self.port(*j["parent"])
                pa = self.port(*j["child"])
                if j["type"] == "revolute":
                    axis = np.asarray(j["axis"], float) / np.linalg.norm(j["axis"])
                    th = self.val(j["angle"]) + q[self.joint_coord[j["name"]]]
                    rc = rp @ rot(axis, th) @ r0
                    point = pp + rp @ c
                elif j["type"] == "prismatic":
                    axis = np.asarray(j["axis"], float) / np.linalg.norm(j["axis"])
                    x = self.val(j["displacement"]) + q[self.joint_coord[j["name"]]]
                    rc = rp @ r0
                    point = pp + rp @ (c + x * axis)
                else:
                    rc = rp @ r0
                    point = pp + rp @ c
                out[cb] = (rc, point - rc @ pa)
            if len(rest) == len(pending):
                raise ValueError("disconnected mechanism")
            pending = rest
        return out

    def _ancestors(self, body):
        """Joints from the root down to ``body`` (root first)."""
        chain = []
        while body in self.parent_of:
            j = self.parent_of[body]
            chain.append(j)
            body = j["parent"][0]
        return chain[::-1]

    def point_jacobian(self, q, body, point_local):
        """Geometric Jacobians (3xn linear velocity of a body point, 3xn angular)."""
        kin = self.kinematics(q)
        r, p = kin[body]
        x = p + r @ point_local
        jv = np.zeros((3, self.n), dtype=complex)
        jw = np.zeros((3, self.n), dtype=complex)
        for j in self._ancestors(body):
            k = self.joint_coord.get(j["name"])
            if k is None:
                continue
            rp, pp = kin[j["parent"][0]]
            axis = rp @ (np.asarray(j["axis"], float) / np.linalg.norm(j["axis"]))
            if j["type"] == "revolute":
                o = pp + rp @ self.port(*j["parent"])
                jv[:, k] = np.cross(axis, x - o)
                jw[:, k] = axis
            else:
                jv[:, k] = axis
        chain = self._ancestors(body)
        top = chain[0]["parent"][0] if chain else body
        if self.base and top == self.base:
            rbar = np.asarray(self.spec["base_orientation"], dtype=float)
            rb, pb = kin[self.base]
            jv[:, :3] = rbar
            q = np.asarray(q)
            w = [
                rbar @ np.array([1.0, 0, 0]),
                rbar @ _rx(q[3]) @ np.array([0, 1.0, 0]),
                rbar @ _rx(q[3]) @ _ry(q[4]) @ np.array([0, 0, 1.0]),
            ]
            for i in range(3):
                jv[:, 3 + i] = np.cross(w[i], x - pb)
                jw[:, 3 + i] = w[i]
        return jv, jw

    # energies and forces -----------------------------------------------------------
    def grad_potential(self, q):
        g = np.zeros(self.n, dtype=complex)
        for b, data in self.bodies.items():
            jv, _ = self.point_jacobian(q, b, self.vec(data.get("cog", [0, 0, 0])))
            g = g + self.val(data["mass"]) * (jv.T @ self.a)
        return g

    def base_wrench(self):
        """Body-fixed wrench at the base origin that holds the equilibrium."""
        return self.grad_potential(np.zeros(self.n)).real[:6]

    def base_force(self, q, wb):
        """Generalised force of the body-fixed base wrench ``wb``."""
        kin = self.kinematics(q)
        r, _ = kin[self.base]
        jv, jw = self.point_jacobian(q, self.base, np.zeros(3))
        return jv.T @ (r @ wb[:3]) + jw.T @ (r @ wb[3:])

    def mass_matrix(self):
        q0 = np.zeros(self.n)
        kin = self.kinematics(q0)
        m = np.zeros((self.n, self.n))
        for b, data in self.bodies.items():
            r = kin[b][0].real
            c = self.vec(data.get("cog", [0, 0, 0]))
            jv = np.zeros((3, self.n))
            jw = np.zeros((3, self.n))
            for k in range(self.n):
                dq = np.zeros(self.n, dtype=complex)
                dq[k] = 1j * H
                rk, pk = self.kinematics(dq)[b]
                jv[:, k] = (pk + rk @ c).imag / H
                wsk = (rk.imag / H) @ r.T
                jw[:, k] = [wsk[2, 1], wsk[0, 2], wsk[1, 0]]
            m += self.val(data["mass"]) * jv.T @ jv + jw.T @ (r @ self.body_inertia(b) @ r.T) @ jw
            j = self.parent_of.get(b)
            if j is not None and j["type"] == "revolute" and j.get("inertia", 0.0):
                rp = kin[j["parent"][0]][0].real
                axis = rp @ (np.asarray(j["axis"], float) / np.linalg.norm(j["axis"]))
                row = axis @ jw
                m += self.val(j["inertia"]) * np.outer(row, row)
        return m

    def stiffness(self):
        k = np.zeros((self.n, self.n))
        wb = self.base_wrench() if self.base else None
        for i in range(self.n):
            dq = np.zeros(self.n, dtype=complex)
            dq[i] = 1j * H
            col = self.grad_potential(dq).imag / H
            if self.base:
                col = col - self.base_force(dq, wb).imag / H
            k[:, i] = col
        for j in self.joints:
            if j["name"] in self.joint_coord:
                i = self.joint_coord[j["name"]]
                k[i, i] += self.val(j.get("stiffness", 0.0))
        return k

    def damping(self):
        d = np.zeros((self.n, self.n))
        for j in self.joints:
            if j["name"] in self.joint_coord:
                i = self.joint_coord[j["name"]]
                d[i, i] = self.val(j.get("damping", 0.0))
        return d

    def trim_efforts(self):
        g = self.grad_potential(np.zeros(self.n)).real
        return {
            j["name"]: g[self.joint_coord[j["name"]]]
            for j in self.joints
            if j["name"] in self.joint_coord
        }

    def port_jacobian(self, body, port):
        """6xn map from q to [displacement; rotation] of a port, in body axes."""
        q0 = np.zeros(self.n)
        r = self.kinematics(q0)[body][0].real
        jv, jw = self.point_jacobian(q0, body, self.port(body, port))
        return np.vstack([r.T @ jv.real, r.T @ jw.real])

    def input_matrix(self):
        """Columns: joint efforts (joint order), then 6 per wrench input."""
        cols = [
            np.eye(self.n)[:, self.joint_coord[j["name"]]]
            for j in self.joints
            if j["name"] in self.joint_coord
        ]
        for _, (body, port) in self.spec.get("wrench_inputs", {}).items():
            cols += list(self.port_jacobian(body, port))  # columns of J^T
        return np.column_stack(cols) if cols else np.zeros((self.n, 0))

    def transfer(self, s, outputs_ports=()):
        """Transfer matrix at complex s: coordinates, then 18 rows per port output."""
        m, d, k = self.mass_matrix(), self.damping(), self.stiffness()
        b = self.input_matrix()
        x = np.linalg.solve(m * s * s + d * s + k, b)
        rows = [x]
        for body, port in outputs_ports:
            jp = self.port_jacobian(body, port)
            rows += [jp @ x, s * jp @ x, s * s * jp @ x]
        return np.vstack(rows)
