"""The gravimeter of the decoupling study (seed 004), its collocated test model and its
spurious-resonance variant: a planar payload on three struts.

Geometry and parameters follow the seed and its digest (``shared/digests/004_decoupling.md``,
section 4), which reconstructs what the seed's missing figures contained. All models use
counter-clockwise positive rotations and the frame {M} at the payload's centre of mass.
:func:`uncertain_gravimeter` is the same plant with uncertain actuator positions or
stiffnesses, as an exact LFT.
"""

from __future__ import annotations

import numbers

import numpy as np

from robustmb.decoupling.geometry import point_sensor_jacobian
from robustmb.decoupling.instrumented_manipulator import InstrumentedManipulator
from robustmb.decoupling.parallel_manipulator import ParallelManipulator
from robustmb.decoupling.second_order import SecondOrderSystem
from robustmb.decoupling.uncertain_plants import (
    _diag,
    _scaled,
    uncertain_line_jacobian,
    uncertain_mechanical_plant,
)
from robustmb.errors import ArgumentError

__all__ = [
    "collocated_manipulator",
    "gravimeter",
    "suspended_mass_variant",
    "uncertain_gravimeter",
]


def _check_positive(fn, **values):
    """Raise naming the argument unless each numeric value is finite and positive."""
    for name, v in values.items():
        if isinstance(v, numbers.Real) and not (np.isfinite(v) and v > 0):
            raise ArgumentError(f"{fn}: {name} must be positive, got {v!r}")


def _three_struts(l, h, la, ha, m, I, k, c):
    """The planar payload of seed 004: strut 1 horizontal at ``(-l/2, -ha)``, struts 2
    and 3 vertical at ``(-la, -h/2)`` and ``(la, -h/2)``, actuators ``F1, F2, F3``."""
    return ParallelManipulator(
        mass=m,
        inertia=I,
        spring_points=[[-l / 2, -ha], [-la, -h / 2], [la, -h / 2]],
        spring_directions=[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]],
        stiffness=k,
        damping=c,
        actuator_names=["F1", "F2", "F3"],
    )


def gravimeter(*, l=1.0, h=1.7, la=None, ha=None, m=400.0, I=115.0, k=15e3, c=20.0):
    """Planar gravimeter: 3 struts, 2 biaxial accelerometers (seed 004, section 1).

    Strut 1 horizontal at ``(-l/2, -ha)``; struts 2, 3 vertical at ``(-la, -h/2)`` and
    ``(la, -h/2)``; accelerometers at ``(-l/2, -h/2)`` (outputs ``Ax1, Ay1``) and
    ``(0, h/2)`` (``Ax2, Ay2``); actuators ``F1, F2, F3`` in the struts.

    Parameters
    ----------
    l, h : float
        Width and height of the payload (m).
    la, ha : float, optional
        Actuator positions (default ``l/2`` and ``h/2``).
    m, I : float
        Mass (kg) and moment of inertia (kg m^2).
    k, c : float
        Strut stiffness (N/m) and damping (N s/m).

    Returns
    -------
    InstrumentedManipulator

    Examples
    --------
    >>> import numpy as np
    >>> p = gravimeter().model().poles()
    >>> np.allclose(sorted(p.imag[p.imag > 0]), [3.6493, 8.6601, 13.551], rtol=1e-4)
    True
    """
    _check_positive("gravimeter", l=l, h=h, m=m, I=I)
    la = l / 2 if la is None else la
    ha = h / 2 if ha is None else ha
    pm = _three_struts(l, h, la, ha, m, I, k, c)
    pts = np.array([[-l / 2, -h / 2], [0.0, h / 2]])
    sensors = pm.accelerometers(pts, names=["Ax1", "Ay1", "Ax2", "Ay2"])
    return InstrumentedManipulator(pm, sensors, pts)


def collocated_manipulator(*, l=1.0, h=3.4, la=0.5, ha=1.7, m=400.0, I=115.0, k=15e3, c=20.0):
    """Planar 3-strut manipulator with collocated force actuators and elongation sensors.

    The test model of the seed's sections 2-3 (``h = 3.4``, ``ha = 1.7``); the plant
    maps ``tau`` to the strut elongations ``L = J q``.

    Examples
    --------
    >>> cm = collocated_manipulator()
    >>> cm.actuator_jacobian()
    array([[ 1. ,  0. ,  1.7],
           [ 0. ,  1. , -0.5],
           [ 0. ,  1. ,  0.5]])
    """
    _check_positive("collocated_manipulator", l=l, h=h, m=m, I=I)
    pm = _three_struts(l, h, la, ha, m, I, k, c)
    return InstrumentedManipulator(pm, pm.elongation_sensors(["L1", "L2", "L3"]))


def suspended_mass_variant(
    base: InstrumentedManipulator | None = None, *, mr=5.0, fr=10.0, cr=10.0
) -> SecondOrderSystem:
    """Collocated manipulator with a spurious mode: a point mass on x/y springs at the CoM.

    The payload mass is reduced by ``mr`` so that the total stays the same (seed 004,
    section 3.6, in the digest's reading of the Simscape model). Coordinates
    ``[x, y, Rz, xr, yr]``; inputs ``F1..F3``; use ``Measurement([J, 0], "position")``
    for the strut elongations.

    Parameters
    ----------
    base : InstrumentedManipulator, optional
        Default :func:`collocated_manipulator` with ``m = 400``.
    mr : float
        Suspended point mass (kg).
    fr : float
        Natural frequency of the point mass on its springs (Hz): ``kr = (2 pi fr)^2 mr``.
    cr : float
        Damping of the point-mass springs (N s/m).

    Examples
    --------
    >>> import numpy as np
    >>> s = suspended_mass_variant()
    >>> f = np.sort(np.abs(s.poles()))[::2] / (2 * np.pi)   # undamped frequencies (Hz)
    >>> f.round(3)
    array([ 0.361,  1.378,  3.467, 10.064, 10.064])
    """
    base = collocated_manipulator() if base is None else base
    pm = base.manipulator
    main = ParallelManipulator(
        mass=pm.mass - mr,
        inertia=pm.inertia,
        spring_points=pm.spring_points,
        spring_directions=pm.spring_directions,
        stiffness=pm.stiffness,
        damping=pm.damping,
        actuator_names=pm.actuator_names,
    )
    kr = (2 * np.pi * fr) ** 2 * mr
    M = np.diag([main.mass, main.mass, main.inertia, mr, mr])
    K = np.zeros((5, 5))
    C = np.zeros((5, 5))
    K[:3, :3] = main.stiffness_matrix()
    C[:3, :3] = main.damping_matrix()
    for i, j in ((0, 3), (1, 4)):
        for X, v in ((K, kr), (C, cr)):
            X[i, i] += v
            X[j, j] += v
            X[i, j] -= v
            X[j, i] -= v
    F = np.vstack([main.actuator_jacobian().T, np.zeros((2, 3))])
    return SecondOrderSystem(
        M,
        K,
        C,
        input_matrix=F,
        input_names=pm.actuator_names,
        coordinate_names=["x", "y", "Rz", "xr", "yr"],
    )


def uncertain_gravimeter(*, l=1.0, h=1.7, la=None, ha=None, m=400.0, I=115.0, k=15e3, c=20.0):
    """Gravimeter plant ``tau -> a`` with uncertain actuator positions and/or stiffnesses.

    Same model as :func:`gravimeter`; ``la``, ``ha`` and ``k`` (one
    value, or one per strut) may be :func:`robustmb.ureal` elements. The accelerometers
    stay at ``(-l/2, -h/2)`` and ``(0, h/2)``.

    Returns
    -------
    robustmb.UncertainSystem
        Inputs ``F1..F3``, outputs ``Ax1, Ay1, Ax2, Ay2``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> G = uncertain_gravimeter(ha=rmb.ureal("ha", 0.85, percent=30))
    >>> G.shape, G.nstates, G.blocks
    ((4, 3), 6, {'ha': 2})
    """
    _check_positive("uncertain_gravimeter", l=l, h=h, m=m, I=I)
    la = l / 2 if la is None else la
    ha = h / 2 if ha is None else ha
    pts = [[-l / 2, _scaled(-1.0, ha)], [_scaled(-1.0, la), -h / 2], [la, -h / 2]]
    J = uncertain_line_jacobian(pts, [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    JT = J.T
    K = JT @ _diag(k, 3, "uncertain_gravimeter: k") @ J
    C = JT @ _diag(c, 3, "uncertain_gravimeter: c") @ J
    S = point_sensor_jacobian([[-l / 2, -h / 2], [0.0, h / 2]])
    return uncertain_mechanical_plant(
        np.diag([m, m, I]),
        K,
        C,
        input_matrix=JT,
        output_matrix=S,
        output_kind="acceleration",
        input_names=["F1", "F2", "F3"],
        output_names=["Ax1", "Ay1", "Ax2", "Ay2"],
    )
