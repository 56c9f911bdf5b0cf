"""The demonstration closed loop: the two-link arm under a baseline joint PID controller.

The plant is :func:`robustmb.examples.two_link_arm` at a fixed configuration
with its five physical parameters uncertain (+-20 %).  The controller is
designed here, on the nominal arm: a PID with matrix gains built from the
nominal inertia ``M``, damping ``D`` and stiffness ``K`` (gravity included)
places every joint's closed-loop poles at ``(s + w)(s^2 + 2 zeta w s + w^2)``
(:func:`baseline_pid`); the nominal loop's stability is then checked.

Performance channels follow the robust design of the LFT-multibody paper
(seed 000, eq. 27): the weighted tracking error ``W_e S`` with
``W_e = (s + 1) / (2 s + 0.02)`` and the weighted torque ``W_T K S`` with
``W_T = 1/1500``, both from the joint-angle references; a worst-case gain
below 1 meets the specification.
"""

from __future__ import annotations

import copy

import control
import numpy as np

from ..errors import DimensionError

#: Fixed configuration of the demo (radians): theta1 = 70 deg, theta2 = 30 deg.
DEMO_ANGLES = (float(np.radians(70.0)), float(np.radians(30.0)))
#: Weights of the paper's robust design (seed 000, section 5.4).
TRACKING_WEIGHT = ([1.0, 1.0], [2.0, 0.02])
EFFORT_WEIGHT = 1.0 / 1500.0


def joint_axis_model(plant):
    """Inertia, damping and stiffness matrices of a linearised mechanism.

    ``plant`` has states ``[q, q_dot]``, torque inputs and ``q`` outputs:
    ``A = [[0, I], [-M^-1 K, -M^-1 D]]`` and ``B = [[0], [M^-1]]``.

    Returns
    -------
    M, D, K : numpy.ndarray

    Examples
    --------
    >>> import numpy as np
    >>> import control
    >>> P = control.ss([[0, 1], [-3.0, -0.5]], [[0], [0.5]], [[1, 0]], [[0]])
    >>> M, D, K = joint_axis_model(P)
    >>> float(M[0, 0]), float(D[0, 0]), float(K[0, 0])
    (2.0, 1.0, 6.0)
    """
    if hasattr(plant, "nominal"):  # an uncertain (or certain-valued) robustmb system
        plant = plant.nominal()
    a, b = np.asarray(plant.A, float), np.asarray(plant.B, float)
    n = a.shape[0] // 2
    if a.shape[0] != 2 * n or b.shape[1] != n:
        raise DimensionError(
            f"joint_axis_model: expected states [q, q_dot] with {b.shape[1]} joints, "
            f"got {a.shape[0]} states"
        )
    minv = b[n:]
    m = np.linalg.inv(minv)
    return m, -m @ a[n:, n:], -m @ a[n:, :n]


def baseline_pid(plant, *, bandwidth=4.0, damping=0.7, filter_ratio=5.0):
    """Joint PID designed by pole placement on the nominal plant.

    With the nominal inertia ``M``, damping ``D`` and stiffness ``K`` (gravity
    included) of ``plant``, the gains

    ``Kd = M (2 zeta + 1) w - D``, ``Kp = M (1 + 2 zeta) w^2 - K``, ``Ki = M w^3``

    make the nominal loop ``M s^3 + (D + Kd) s^2 + (K + Kp) s + Ki`` equal to
    ``M (s + w)(s^2 + 2 zeta w s + w^2)``: every joint gets the poles
    ``-w`` and ``w (-zeta +- j sqrt(1 - zeta^2))`` (before the derivative filter,
    which is placed at ``filter_ratio * w``).

    Parameters
    ----------
    plant : control.StateSpace or UncertainSystem
        Linearised mechanism, states ``[q, q_dot]`` (its nominal value is used).
    bandwidth : float
        ``w`` (rad/s).
    damping : float
        ``zeta``.
    filter_ratio : float
        The derivative is filtered by ``1 / (s / (filter_ratio * w) + 1)``.

    Returns
    -------
    control.StateSpace
        Inputs ``e1, e2, ...`` (joint errors), outputs ``u1, u2, ...`` (torques);
        ``2 n`` states (integrators and derivative filters).

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> P = rmb.examples.two_link_arm(*DEMO_ANGLES, uncertain=False)
    >>> K = baseline_pid(P, filter_ratio=1e6)
    >>> K.ninputs, K.noutputs, K.nstates
    (2, 2, 4)
    >>> import control
    >>> poles = control.feedback(P.nominal() * K, np.eye(2)).poles()
    >>> target = np.roots(np.polymul([1, 4], [1, 2 * 0.7 * 4, 16]))
    >>> bool(all(np.min(abs(poles - p)) < 1e-3 for p in target))
    True
    """
    m, d, k = joint_axis_model(plant)
    w, z = float(bandwidth), float(damping)
    n = m.shape[0]
    kd = m * (2 * z + 1) * w - d
    kp = m * (1 + 2 * z) * w**2 - k
    ki = m * w**3
    wf = filter_ratio * w
    eye, zero = np.eye(n), np.zeros((n, n))
    # States: x_i (integral of e) and x_f (filter state); the derivative term is
    # Kd * wf * (e - x_f) with x_f' = wf * (e - x_f).
    a = np.block([[zero, zero], [zero, -wf * eye]])
    b = np.vstack([eye, wf * eye])
    c = np.hstack([ki, -wf * kd])
    dmat = kp + wf * kd
    return control.ss(
        a,
        b,
        c,
        dmat,
        inputs=[f"e{i + 1}" for i in range(n)],
        outputs=[f"u{i + 1}" for i in range(n)],
        name="K",
    )


def arm_closed_loop(theta1=DEMO_ANGLES[0], theta2=DEMO_ANGLES[1], **design):
    """The uncertain two-link arm under :func:`baseline_pid`, with weighted outputs.

    Parameters
    ----------
    theta1, theta2 : float
        Configuration (radians) at which the arm is linearised.
    **design
        Passed to :func:`baseline_pid`.

    Returns
    -------
    loop : UncertainSystem
        Inputs ``r1, r2`` (angle references); outputs ``we1, we2`` (``W_e``
        times the tracking errors), ``wu1, wu2`` (``W_T`` times the torques),
        ``theta1, theta2``.
    channels : dict
        ``{"tracking W_e S": (["we1", "we2"], ["r1", "r2"]),
        "effort W_T K S": (["wu1", "wu2"], ["r1", "r2"])}``.
    controller : control.StateSpace

    Examples
    --------
    >>> import numpy as np
    >>> loop, channels, K = arm_closed_loop()
    >>> loop.input_names, loop.output_names
    (['r1', 'r2'], ['we1', 'we2', 'wu1', 'wu2', 'theta1', 'theta2'])
    >>> sorted(loop.blocks)
    ['J1', 'L2', 'm1', 'm3', 'rho1']
    >>> bool(np.all(np.linalg.eigvals(loop.nominal().A).real < 0))
    True
    """
    from ..examples import two_link_arm

    plant = two_link_arm(theta1, theta2)
    controller = baseline_pid(plant.nominal(), **design)
    loop, channels = close_arm_loop(plant, controller)
    return loop, channels, controller


def close_arm_loop(plant, controller):
    """Close ``plant`` (torques -> angles) with ``controller`` (errors -> torques).

    ``e = r - theta`` drives the controller; the loop's outputs are the weighted
    errors ``we``, weighted torques ``wu`` and the angles (see
    :func:`arm_closed_loop`).  Scheduling or uncertain elements of either side
    are kept (shared by name).

    Returns
    -------
    loop : UncertainSystem
    channels : dict
        ``{"tracking W_e S": (outputs, inputs), "effort W_T K S": (outputs, inputs)}``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> P = rmb.examples.two_link_arm(*DEMO_ANGLES, uncertain=False)
    >>> loop, channels = close_arm_loop(P, baseline_pid(P))
    >>> loop.nstates
    10
    """
    from ..lft import connect, uss

    # shallow copies: renaming must not touch the caller's objects
    plant = uss(plant) if not hasattr(plant, "blocks") else copy.copy(plant)
    plant.name = "G"
    if not hasattr(controller, "blocks"):
        k_unc = uss(controller)
        k_unc.input_names = list(controller.input_labels)
        k_unc.output_names = list(controller.output_labels)
    else:
        k_unc = copy.copy(controller)
    k_unc.name = "K"
    n = len(plant.input_names)
    eye = np.eye(n)
    # Error junction e = r - theta and output weights, as named static/dynamic blocks.
    junction = uss(control.ss([], [], [], np.hstack([eye, -eye])))
    junction.name = "E"
    junction.input_names = [f"r{i + 1}" for i in range(n)] + list(plant.output_names)
    junction.output_names = [f"e{i + 1}" for i in range(n)]
    we = control.ss(control.tf(*TRACKING_WEIGHT))
    w_e = uss(control.append(*[we] * n))
    w_e.name = "We"
    w_e.input_names = [f"e{i + 1}" for i in range(n)]
    w_e.output_names = [f"we{i + 1}" for i in range(n)]
    w_t = uss(control.ss([], [], [], EFFORT_WEIGHT * eye))
    w_t.name = "WT"
    w_t.input_names = [f"u{i + 1}" for i in range(n)]
    w_t.output_names = [f"wu{i + 1}" for i in range(n)]
    refs = [f"r{i + 1}" for i in range(n)]
    connections = [[f"G.{t}", f"K.u{i + 1}"] for i, t in enumerate(plant.input_names)]
    connections += [[f"E.{y}", f"G.{y}"] for y in plant.output_names]
    connections += [[f"K.e{i + 1}", f"E.e{i + 1}"] for i in range(n)]
    connections += [[f"We.e{i + 1}", f"E.e{i + 1}"] for i in range(n)]
    connections += [[f"WT.u{i + 1}", f"K.u{i + 1}"] for i in range(n)]
    loop = connect(
        [plant, k_unc, junction, w_e, w_t],
        connections,
        inputs=[f"E.{r}" for r in refs],
        outputs=[f"We.we{i + 1}" for i in range(n)]
        + [f"WT.wu{i + 1}" for i in range(n)]
        + [f"G.{y}" for y in plant.output_names],
    )
    loop.name = "arm_loop"
    loop.input_names = refs
    loop.output_names = (
        [f"we{i + 1}" for i in range(n)]
        + [f"wu{i + 1}" for i in range(n)]
        + list(plant.output_names)
    )
    channels = {
        "tracking W_e S": ([f"we{i + 1}" for i in range(n)], refs),
        "effort W_T K S": ([f"wu{i + 1}" for i in range(n)], refs),
    }
    return loop, channels


def loop_at_plant_inputs(theta1=DEMO_ANGLES[0], theta2=DEMO_ANGLES[1], **design):
    """Uncertain loop transfer ``L = K G`` broken at the arm's torque inputs.

    Its disk margins are the margins of :func:`arm_closed_loop` at the plant
    inputs (``feedback(L, I)`` has the same characteristic polynomial).

    Examples
    --------
    >>> L = loop_at_plant_inputs()
    >>> L.shape, sorted(L.blocks)
    ((2, 2), ['J1', 'L2', 'm1', 'm3', 'rho1'])
    """
    from ..examples import two_link_arm
    from ..lft import uss

    plant = two_link_arm(theta1, theta2)
    return uss(baseline_pid(plant.nominal(), **design)) * plant


def demo_loop():
    """``(loop, channels)`` of :func:`arm_closed_loop`: a ``robustmb report`` target.

    ``robustmb report robustmb.report.arm_demo:demo_loop`` writes the same
    report as ``robustmb demo --frozen``.

    Examples
    --------
    >>> loop, channels = demo_loop()
    >>> channels["tracking W_e S"]
    (['we1', 'we2'], ['r1', 'r2'])
    """
    loop, channels, _ = arm_closed_loop()
    return loop, channels
