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
    _matrix,
    _scaled,
    uncertain_line_jacobian,
    uncertain_mechanical_plant,
)
from robustmb.errors import ArgumentError, DimensionError

__all__ = [
    "collocated_manipulator",
    "gravimeter",
    "suspended_mass_variant",
    "uncertain_gravimeter",
]


_SIGNS = {
    "positive": (lambda v: v > 0, "positive"),
    "non-negative": (lambda v: v >= 0, "non-negative"),
    "finite": (lambda v: True, "finite"),
}


def _check_value(fn, name, v, sign, *, uncertain=False, entry=""):
    """Raise naming ``name`` unless ``v`` is a finite real number of the sign ``sign``
    ("positive", "non-negative" or "finite"), or, with ``uncertain=True``, a ``ureal``
    whose whole range has that sign or a static scalar expression of ureals that has it
    at every point of the box of its ureals (:func:`_check_expression`).  ``entry``
    ends the messages (e.g. ``" (entry 1 of 3)"``)."""
    from robustmb.lft import UncertainElement, UncertainModel, ureal

    ok, words = _SIGNS[sign]
    if uncertain and isinstance(v, ureal):
        lo, hi = v.range
        if not (ok(lo) and ok(hi)):
            raise ArgumentError(
                f"{fn}: {name} must be {words} over its whole range, got ureal "
                f"{v.name!r} with range [{lo!r}, {hi!r}]{entry}"
            )
        return
    if uncertain and isinstance(v, UncertainElement | UncertainModel):
        _check_expression(fn, name, v, sign, entry)
        return
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        kind = "a number or a ureal" if uncertain else "a number"
        raise ArgumentError(f"{fn}: {name} must be {kind}, got {v!r}{entry}")
    if not (np.isfinite(v) and ok(v)):
        words = "finite" if sign == "finite" else f"{words} and finite"
        raise ArgumentError(f"{fn}: {name} must be {words}, got {v!r}{entry}")


def _check_expression(fn, name, v, sign, entry):
    """Check an uncertain scalar that is not a plain ``ureal`` over the box of its ureals.

    It must be static, 1x1 and depend on real parameters only.  Its values at the box
    points of :func:`robustmb.multibody.parameter_box.box_samples` (the nominal and
    every vertex, which decide the sign on the whole box when the expression is affine
    in each ureal; a grid besides otherwise) must be finite and of the sign ``sign``;
    ``"non-negative"`` is :func:`robustmb.multibody.bodies.check_nonnegative` itself.
    When the samples do not decide the sign a :class:`~robustmb.errors.RobustMBWarning`
    says what was checked.
    """
    from robustmb.errors import UncertainTypeError, warn
    from robustmb.lft import UncertainElement
    from robustmb.multibody.bodies import check_nonnegative
    from robustmb.multibody.parameter_box import box_samples

    what = f"{fn}: {name}"
    if isinstance(v, UncertainElement) and v.kind != "real":
        raise ArgumentError(
            f"{what} must be real: a number, a ureal or a ureal expression, got the "
            f"{v.kind} element {v.name!r}{entry}"
        )
    if not isinstance(v, UncertainElement):
        if v.nstates or getattr(v, "is_system", False):
            raise ArgumentError(
                f"{what} must be a static value, got a system with {v.nstates} states{entry}"
            )
        if v.shape != (1, 1):
            raise ArgumentError(f"{what} must be a scalar, got an object of shape {v.shape}{entry}")
    try:
        samples, exact, description = box_samples(v)
    except UncertainTypeError as err:  # a ucomplex or ultidyn inside the expression
        raise ArgumentError(f"{what}{entry}: {err}") from None
    for where, val in samples:
        x = float(val.reshape(-1)[0])
        if not np.isfinite(x):
            raise ArgumentError(f"{what} must be finite, got {x}{where}{entry}")
    if sign == "non-negative":
        try:
            check_nonnegative(v, what, entry.strip())
        except DimensionError as err:  # a wrong sign, not a wrong shape
            raise ArgumentError(str(err)) from None
        return
    if sign == "positive":
        for where, val in samples:
            x = float(val.reshape(-1)[0])
            if not x > 0:
                raise ArgumentError(f"{what} must be positive, got {x}{where}{entry}")
        if not exact:
            warn(f"{what}: positivity is not proved on the box: {description}")


def _check_positive(fn, **values):
    """Raise naming the argument unless each value is a finite positive number."""
    for name, v in values.items():
        _check_value(fn, name, v, "positive")


def _strut_entries(fn, name, v):
    """The entries of ``k`` or ``c`` as a list: one value, or one per strut (3).

    Built entry by entry: ``np.asarray(v, dtype=object)`` would try to iterate an
    uncertain expression (it has a length) and fail.  A static 3x1 or 1x3 uncertain
    matrix is read as its 3 entries."""
    from robustmb.lft import UncertainModel

    if isinstance(v, UncertainModel):
        if v.nstates or getattr(v, "is_system", False) or v.shape == (1, 1):
            return [v]  # a system or a scalar: checked as one value
        if v.shape in ((3, 1), (1, 3)):
            return [v[i, 0] if v.shape == (3, 1) else v[0, i] for i in range(3)]
        raise DimensionError(f"{fn}: {name} must be one value or 3, got shape {v.shape}")
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return [v.item() if v.dtype == object else v[()]]
        if v.shape != (3,):
            raise DimensionError(f"{fn}: {name} must be one value or 3, got shape {v.shape}")
        entries = [e.item() if isinstance(e, np.ndarray) and e.ndim == 0 else e for e in v]
    elif isinstance(v, list | tuple):
        if len(v) != 3:
            try:  # numbers: the full shape, e.g. (1, 3) for [[k1, k2, k3]]
                shape = np.shape(v)
            except (TypeError, ValueError):
                shape = (len(v),)
            raise DimensionError(f"{fn}: {name} must be one value or 3, got shape {shape}")
        entries = list(v)
    else:
        return [v]
    for i, e in enumerate(entries):
        if isinstance(e, list | tuple | np.ndarray):
            raise DimensionError(
                f"{fn}: {name} must be one value or 3, got a nested sequence (entry {i} "
                f"is a {type(e).__name__})"
            )
    return entries


def _check_struts(fn, la, ha, k, c, *, uncertain=False):
    """Check the actuator positions and the strut stiffness and damping (one value, or
    one per strut), naming the argument at fault; return ``k`` and ``c`` as lists of
    entries (1 or 3)."""
    _check_value(fn, "la", la, "positive", uncertain=uncertain)
    _check_value(fn, "ha", ha, "finite", uncertain=uncertain)
    out = []
    for name, v in (("k", k), ("c", c)):
        entries = _strut_entries(fn, name, v)
        for i, x in enumerate(entries):
            entry = f" (entry {i} of 3)" if len(entries) == 3 else ""
            _check_value(fn, name, x, "non-negative", uncertain=uncertain, entry=entry)
        out.append(entries)
    return out


def _strut_diag(entries):
    """``diag(e1, e2, e3)`` of the strut entries (one value is every strut's): an array
    when all are numbers, an uncertain matrix otherwise."""
    vals = entries * 3 if len(entries) == 1 else entries
    return _matrix([[vals[i] if i == j else 0.0 for j in range(3)] for i in range(3)])


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
        Actuator positions (m), default ``l/2`` and ``h/2``; ``la`` positive, ``ha``
        finite (negative: strut 1 above the centre of mass).
    m, I : float
        Mass (kg) and moment of inertia (kg m^2).
    k, c : float or sequence of 3 floats
        Strut stiffness (N/m) and damping (N s/m), non-negative.

    Returns
    -------
    InstrumentedManipulator

    Raises
    ------
    ArgumentError
        For a value of the wrong sign or a non-finite one, naming the argument.
    DimensionError
        For ``k`` or ``c`` that is neither one value nor 3.

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
    _check_struts("gravimeter", la, ha, k, c)
    pm = _three_struts(l, h, la, ha, m, I, k, c)
    pts = np.array([[-l / 2, -h / 2], [0.0, h / 2]])
    sensors = pm.accelerometers(pts, names=["Ax1", "Ay1", "Ax2", "Ay2"])
    return InstrumentedManipulator(pm, sensors, pts)


def collocated_manipulator(*, l=1.0, h=3.4, la=None, ha=None, m=400.0, I=115.0, k=15e3, c=20.0):
    """Planar 3-strut manipulator with collocated force actuators and elongation sensors.

    The test model of the seed's sections 2-3: the gravimeter's layout (:func:`gravimeter`)
    with ``h = 2 x 1.7 = 3.4`` m, and the strut elongations ``L = J q`` as outputs
    (collocated with the forces ``tau``).

    Parameters
    ----------
    l, h : float
        Width and height of the payload (m).
    la, ha : float, optional
        Actuator positions (m): struts 2 and 3 at ``x = -la, +la``, strut 1 at
        ``y = -ha`` (negative: above the centre of mass).  Default ``l/2`` and ``h/2``,
        relative as in the seed's script of this model (``la = l/2; ha = h/2;`` with
        ``h = 2*1.7``), which gives ``la = 0.5``, ``ha = 1.7``.
    m, I : float
        Mass (kg) and moment of inertia about the centre of mass (kg m^2).
    k, c : float or sequence of 3 floats
        Strut stiffness (N/m) and damping (N s/m), one value or one per strut.

    Returns
    -------
    InstrumentedManipulator
        Inputs ``F1, F2, F3`` (N), outputs ``L1, L2, L3`` (m).

    Raises
    ------
    ArgumentError
        For a non-positive ``l``, ``h``, ``m``, ``I`` or ``la``, a non-finite ``ha`` or a
        negative ``k`` or ``c``, naming it.

    Examples
    --------
    >>> cm = collocated_manipulator()
    >>> cm.actuator_jacobian()
    array([[ 1. ,  0. ,  1.7],
           [ 0. ,  1. , -0.5],
           [ 0. ,  1. ,  0.5]])
    """
    _check_positive("collocated_manipulator", l=l, h=h, m=m, I=I)
    la = l / 2 if la is None else la
    ha = h / 2 if ha is None else ha
    _check_struts("collocated_manipulator", la, ha, k, c)
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
        Suspended point mass (kg), ``0 < mr <`` the base payload's mass.
    fr : float
        Natural frequency of the point mass on its springs (Hz, positive):
        ``kr = (2 pi fr)^2 mr``.
    cr : float
        Damping of the point-mass springs (N s/m, non-negative).

    Raises
    ------
    ArgumentError
        For a ``base`` that is not an ``InstrumentedManipulator`` or a value out of the
        ranges above, naming it.

    Examples
    --------
    >>> import numpy as np
    >>> s = suspended_mass_variant()
    >>> f = np.sort(np.abs(s.poles()))[::2] / (2 * np.pi)   # undamped frequencies (Hz)
    >>> f.round(3)
    array([ 0.361,  1.378,  3.467, 10.064, 10.064])
    """
    fn = "suspended_mass_variant"
    base = collocated_manipulator() if base is None else base
    if not isinstance(base, InstrumentedManipulator):
        raise ArgumentError(f"{fn}: base must be an InstrumentedManipulator, got {base!r}")
    pm = base.manipulator
    _check_value(fn, "mr", mr, "positive")
    if not mr < pm.mass:
        # the payload keeps m - mr: it must stay a positive mass
        raise ArgumentError(
            f"{fn}: mr must be less than the base payload's mass {pm.mass!r}, got {mr!r}"
        )
    _check_value(fn, "fr", fr, "positive")
    _check_value(fn, "cr", cr, "non-negative")
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

    Same model as :func:`gravimeter`; ``la``, ``ha``, ``k`` and ``c`` (one
    value, or one per strut) may be :func:`robustmb.ureal` elements or static scalar
    expressions of them (``2 * k``, ``k0 - 5e3``). The accelerometers stay at
    ``(-l/2, -h/2)`` and ``(0, h/2)``.

    Parameters
    ----------
    l, h : float
        Width and height of the payload (m).
    la, ha : float, ureal or ureal expression, optional
        Actuator positions (m), default ``l/2`` and ``h/2``; ``la`` positive (over the
        whole range of a ``ureal``, at every point of the box of an expression's
        ureals), ``ha`` finite.
    m, I : float
        Mass (kg) and moment of inertia (kg m^2).
    k, c : float, ureal, ureal expression, or 3 of them
        Strut stiffness (N/m) and damping (N s/m), non-negative over the box of their
        ureals.  Three values are a sequence (list, tuple, 1-D array) or a static 3x1
        or 1x3 uncertain matrix.

    Returns
    -------
    robustmb.UncertainSystem
        Inputs ``F1..F3``, outputs ``Ax1, Ay1, Ax2, Ay2``.

    Raises
    ------
    ArgumentError
        For a value of the wrong sign (a number, a ``ureal`` range, or an expression at a
        point of its box, which the message names), a non-finite number, or a value that
        is neither a number nor a static real uncertain scalar, naming the argument (and
        the entry of a sequence of 3).
    DimensionError
        For ``k`` or ``c`` that is neither one value nor 3.

    Warns
    -----
    RobustMBWarning
        For an expression that is not affine in each of its ureals: its sign is then
        checked on a grid of the box (:func:`robustmb.multibody.bodies.check_nonnegative`),
        not proved.

    Notes
    -----
    An expression affine in each of its ureals (``a + b k``, ``k1 k2``) takes its
    extreme values at the vertices of the box, so the sign checked at the nominal and
    the vertices holds on the whole box.

    Examples
    --------
    >>> import robustmb as rmb
    >>> G = uncertain_gravimeter(ha=rmb.ureal("ha", 0.85, percent=30))
    >>> G.shape, G.nstates, G.blocks
    ((4, 3), 6, {'ha': 2})

    Two struts of stiffness ``2 k``, the third ``15e3``:

    >>> k = rmb.ureal("k", 7.5e3, range=(6e3, 9e3))
    >>> uncertain_gravimeter(k=[15e3, 2 * k, 2 * k]).blocks
    {'k': 2}
    """
    _check_positive("uncertain_gravimeter", l=l, h=h, m=m, I=I)
    la = l / 2 if la is None else la
    ha = h / 2 if ha is None else ha
    k, c = _check_struts("uncertain_gravimeter", la, ha, k, c, uncertain=True)
    pts = [[-l / 2, _scaled(-1.0, ha)], [_scaled(-1.0, la), -h / 2], [la, -h / 2]]
    J = uncertain_line_jacobian(pts, [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    JT = J.T
    K = JT @ _strut_diag(k) @ J
    C = JT @ _strut_diag(c) @ J
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
