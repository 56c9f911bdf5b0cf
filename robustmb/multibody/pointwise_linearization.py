"""Exact linearisation of the nonlinear mechanism at any point (seed 002), on the
constraint manifold when exact loop constraints close the chain.

:func:`linearize_at` is the method :meth:`Mechanism.linearize_at
<robustmb.multibody.Mechanism.linearize_at>` (bound in :mod:`.mechanism`);
``self`` is the mechanism.  The recursive derivatives live in
:mod:`.linearization`, the projection onto the constraints in :mod:`.constraints`.
"""

from __future__ import annotations

import numpy as np

from ..errors import IllPosedError
from .nonlinear_models import check_values, effort_names


def linearize_at(
    self,
    q0,
    v0,
    *,
    a0=None,
    tau0=None,
    values=None,
    wrenches=None,
    uncertain=False,
    independent=None,
):
    """Exact linearisation of the nonlinear mechanism at any point (seed 002).

    Parameters
    ----------
    q0, v0 : reference coordinates and rates
    a0 : reference accelerations, optional
    tau0 : reference efforts, optional (default: zero; ``a0`` then follows
        from the forward dynamics; give ``a0`` or ``tau0``, not both unless
        they agree)
    values, wrenches : as :meth:`inverse_dynamics`
    uncertain : bool
        Keep the ureals not given in ``values`` -- masses, inertias, rotor
        inertias, springs and dampers -- uncertain: the reference is then
        fixed kinematically (``a0``, computed at the nominal values when only
        ``tau0`` is given) and the result is an exact LFT
        (:class:`~robustmb.multibody.inertial_lft.UncertainLinearization`:
        ``.M, .P1, .P2, .tau0`` uncertain matrices, ``.ss`` an uncertain
        system; each parameter occurs as often as the rank of its coefficient).
    independent : list of str, optional
        With exact loop constraints (:meth:`add_loop_constraint`): the
        coordinates that parametrise the constrained motion (default: chosen
        by a pivoted QR of the constraint null space, ties to the coordinate
        listed first).  The result is then a
        :class:`~robustmb.multibody.constraints.ConstrainedLinearization` on
        the constraint manifold, states ``[dz; dz']``.

    Returns
    -------
    Linearization
        ``.M, .P1, .P2, .P3`` (``M dq'' = P1 dq' + P2 dq + P3 du``) and
        ``.ss`` with states ``[dq; dv]`` (tangent coordinates: a floating
        base gives ``{base}_dx ... _rz``, small displacement and rotation in
        body axes), inputs the efforts then the wrench inputs, outputs the
        states.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> lin = mech.linearize_at([0.0], [0.0])
    >>> lin.M, lin.P2                      # m l^2 and -m g l
    (array([[2.]]), array([[-19.62]]))
    """
    from .dynamics import check_wrenches
    from .linearization import linearize_tree

    values = check_values(self, values)
    wrenches = check_wrenches(self.rigid_tree(values), wrenches)
    if uncertain:
        from .inertial_lft import uncertain_linearization

        if getattr(self, "loop_constraints", None):
            raise IllPosedError(
                "linearize_at: uncertain=True is not available with exact loop constraints"
            )

        return uncertain_linearization(self, q0, v0, a0, tau0, values, wrenches)
    tree = self.rigid_tree(values)
    q0, v0 = tree.check_state(q0, v0, "v0", what_q="q0")
    if tree.constraints:
        return _linearize_constrained(self, tree, q0, v0, a0, tau0, wrenches, independent)
    if a0 is not None:
        a0 = tree.check_rates(a0, "a0", accelerations=True)
    if tau0 is not None:
        tau0 = tree.check_rates(tau0, "tau0", efforts=True)

    def forward(q, v, tau):
        return self.forward_dynamics(q, v, tau, values=values, wrenches=wrenches)

    def inverse(q, v, a):
        return self.inverse_dynamics(q, v, a, values=values, wrenches=wrenches)

    return linearize_tree(
        tree, q0, v0, a0, tau0, wrenches, effort_names(self, tree), forward, inverse
    )


def _linearize_constrained(self, tree, q0, v0, a0, tau0, wrenches, independent):
    from .constraints import linearize_constrained
    from .dynamics import aba, external_forces, joint_law, joint_transforms, rnea
    from .linearization import linearize_tree

    if a0 is not None:
        raise IllPosedError(
            "linearize_at: with exact loop constraints give tau0 (the accelerations "
            "follow from the constraints)"
        )
    tau0 = np.zeros(tree.nv) if tau0 is None else tree.check_rates(tau0, "tau0", efforts=True)

    def forward(q, v, tau):
        xs, rw = joint_transforms(tree, q)
        f = external_forces(tree, q, rw, wrenches, v, xs)
        return aba(tree, q, v, tau + joint_law(tree, q, v), f)

    def inverse(q, v, a):
        xs, rw = joint_transforms(tree, q)
        f = external_forces(tree, q, rw, wrenches, v, xs)
        return rnea(tree, q, v, a, f, xs, rw) - joint_law(tree, q, v)

    def lin_free(a):
        return linearize_tree(
            tree,
            q0,
            v0,
            a,
            tau0 if a is None else None,
            wrenches,
            effort_names(self, tree),
            forward,
            inverse,
        )

    return linearize_constrained(tree, q0, v0, tau0, lin_free, independent)
