"""Exact linearisation of the nonlinear mechanism at any point (Lin & Yae, seed 002).

The linearised equations ``M dq'' = P1 dq' + P2 dq + P3 du`` (seed 002, Eq. 39)
are the exact derivative of inverse dynamics -- computed for all bodies at once
in world axes by :func:`~robustmb.multibody.rnea_derivatives.rnea_derivatives`
(the variation of each kinematic relation, digest Sec. 2.8, summed over
subtrees) -- plus the joint springs, dampers, laws and compliant closures, and
``P3`` the generalised forces of the efforts and wrench inputs.  A floating base
is perturbed in body axes like Pinocchio's free-flyer tangent, so its
coordinates in the linear model are the small displacement and rotation of its
origin in body axes (the linear TITOP convention at an equilibrium).
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np
from scipy.linalg import cho_factor, cho_solve

from ..errors import IllPosedError
from .dynamics import joint_law_derivatives
from .loop_closure import closure_derivatives
from .rnea_derivatives import rnea_derivatives, wrench_input_columns
from .tree import FREE


def crm(v):
    """Motion cross-product matrix ``[[w^, v^], [0, w^]]``.

    Examples
    --------
    A unit spin about z acting on a unit velocity along x turns it towards y.

    >>> crm(np.array([0, 0, 0, 0, 0, 1.0])) @ [1.0, 0, 0, 0, 0, 0]
    array([0., 1., 0., 0., 0., 0.])
    """
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
    q0: np.ndarray
    v0: np.ndarray
    a0: np.ndarray
    tau0: np.ndarray
    coordinate_names: list
    input_names: list

    @property
    def ss(self):
        """``control.StateSpace`` ``(A, B, I, 0)`` with named states, inputs and outputs
        (built on first use: python-control's named systems cost more than the rest)."""
        sys = self.__dict__.get("_ss")
        if sys is None:
            states = self.coordinate_names + [f"{c}_dot" for c in self.coordinate_names]
            sys = control.ss(
                self.A,
                self.B,
                np.eye(self.A.shape[0]),
                np.zeros((self.A.shape[0], self.B.shape[1])),
                states=states,
                inputs=list(self.input_names),
                outputs=states,
            )
            self.__dict__["_ss"] = sys
        return sys

    @property
    def E(self):
        """Descriptor matrix ``blkdiag(I, M)``."""
        n = self.M.shape[0]
        e = np.eye(2 * n)
        e[n:, n:] = self.M
        return e


def input_matrix(tree, q):
    """Generalised forces of unit efforts (identity) and of unit wrench inputs (body axes).

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> mech.add_wrench_input("push", "bob", "P")
    >>> input_matrix(mech.rigid_tree(), np.zeros(1))  # a wrench at the pivot: only Tx acts
    array([[1., 0., 0., 0., 1., 0., 0.]])
    """
    if not tree.inputs:
        return np.eye(tree.nv)
    return np.hstack([np.eye(tree.nv), wrench_input_columns(tree, q)])


def linearize_tree(tree, q0, v0, a0, tau0, wrenches, effort_names, forward, inverse):
    """Assemble :class:`Linearization` (see :meth:`Mechanism.linearize_at`).

    Examples
    --------
    A 2 kg bob hanging 1 m below its pivot: ``theta'' = -(g / l) theta + tau / (m l^2)``.

    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> z = np.zeros(1)
    >>> lin = linearize_tree(tree, z, z, None, None, None, ["J_effort"],
    ...                      mech.forward_dynamics, mech.inverse_dynamics)
    >>> lin.A, lin.B
    (array([[ 0.  ,  1.  ],
           [-9.81,  0.  ]]), array([[0. ],
           [0.5]]))
    """
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
    _, jq, jv, jm = rnea_derivatives(tree, q0, v0, a0, wrenches)
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
        factor = cho_factor(mass, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise IllPosedError(
            "linearize_at: the mass matrix is not positive definite at q0 "
            "(a joint moves no inertia)"
        ) from None
    a_mat = np.zeros((2 * nv, 2 * nv))
    a_mat[:nv, nv:] = np.eye(nv)
    for i in range(tree.n):
        if tree.kind[i] == FREE:  # d/dt of a body-axes tangent: dv - ad(v0) dq
            k = tree.vi[i]
            a_mat[k : k + 6, k : k + 6] = -crm(v0[k : k + 6])
    rows = cho_solve(factor, np.hstack([p2, p1, p3]), check_finite=False)  # one solve
    a_mat[nv:] = rows[:, : 2 * nv]
    b_mat = np.vstack([np.zeros((nv, p3.shape[1])), rows[:, 2 * nv :]])
    coords = tree.tangent_names()
    inputs = list(effort_names)
    for name, *_ in tree.inputs:
        inputs += [f"{name}_{c}" for c in ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")]
    return Linearization(
        M=mass,
        P1=p1,
        P2=p2,
        P3=p3,
        A=a_mat,
        B=b_mat,
        q0=q0,
        v0=v0,
        a0=np.asarray(a0, dtype=float),
        tau0=np.asarray(tau0, dtype=float),
        coordinate_names=coords,
        input_names=inputs,
    )
