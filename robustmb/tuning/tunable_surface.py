"""Gain-scheduled tunable surfaces ``M0 + sum_i Mi f_i(sigma)`` over scheduling ureals."""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from ..errors import ArgumentError, DimensionError, UncertainTypeError
from ..lft.elements import UncertainElement
from ..lft.model import umat, uss
from ..lft.simplify import simplify
from .realp import realp
from .tunable_gain import _block_dt, _block_name

BASES = ("affine", "polynomial")


def _basis_terms(scheduling, basis, degree):
    """Monomials of the normalised scheduling variables (the constant excluded), as
    tuples of powers: by total degree, and within one degree in decreasing powers of
    the first element, then the second, ... (degree 1: ``s_1, s_2, ...``, the order
    of ``"affine"``)."""
    k = len(scheduling)
    if basis == "affine":
        return [tuple(int(i == j) for i in range(k)) for j in range(k)]
    out = []
    for total in range(1, degree + 1):
        out += sorted(
            (p for p in itertools.product(range(total + 1), repeat=k) if sum(p) == total),
            reverse=True,
        )
    return out


def tunable_surface(name, shape, scheduling, *, basis="affine", states=0, degree=2, dt=None):
    """Gain-scheduled matrix ``M0 + sum_i Mi f_i(sigma)`` with tunable coefficient matrices.

    The scheduling elements are ``ureal`` objects: the surface uses *them* (same name,
    same Delta channel as in the plant), so the plant and the controller are scheduled
    by one parameter.  Each basis function is a monomial of the normalised variables
    ``s = (sigma - centre) / half_width`` (in [-1, 1] over the range): ``s_j`` for
    ``basis="affine"``, all monomials up to ``degree`` for ``basis="polynomial"``.

    Coefficient order: ``M1, M2, ...`` multiply the monomials by increasing total
    degree, and within one degree in decreasing powers of the first scheduling element,
    then the second, and so on.  For ``[v, w]`` and degree 2: ``M1 s_v``, ``M2 s_w``,
    ``M3 s_v^2``, ``M4 s_v s_w``, ``M5 s_w^2``; the degree-1 coefficients are those of
    ``"affine"`` (``Mj`` multiplies the j-th element).

    Parameters
    ----------
    name : str
        Name; the coefficients are realps ``name.M0``, ``name.M1``, ...
    shape : (int, int)
        ``(ny, nu)`` of the gain, or with ``states > 0`` the controller's ``(ny, nu)``.
    scheduling : ureal or list of ureal
        Scheduling elements, each named once.
    basis : {"affine", "polynomial"}
    states : int
        ``0``: a static gain; ``> 0``: the surface is ``[[A, B], [C, D]]`` of a
        state-space controller of that order (``A`` starts at ``-I``, or ``0.5 I`` in
        discrete time).
    degree : int
        Total degree of the polynomial basis (an integer >= 1, checked for every
        basis; only used by ``"polynomial"``).
    dt : float, optional
        Sample time (> 0): a discrete block, whose states are delayed by one sample
        (``x[k+1] = A(sigma) x[k] + B(sigma) u[k]``, the states on ``z^-1``); ``None``:
        continuous.

    Returns
    -------
    UncertainSystem
        With ``tunables`` the coefficient matrices and ``uncertainty`` the scheduling
        elements.

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.tuning import tunable_surface
    >>> v = rmb.ureal("v", 10.0, range=(5.0, 15.0))
    >>> K = tunable_surface("K", (1, 1), v)
    >>> sorted(K.tunables), list(K.uncertainty)
    (['K.M0', 'K.M1'], ['v'])
    >>> G = K.usubs({"K.M0": [[1.0]], "K.M1": [[2.0]], "v": 15.0})
    >>> float(G.D[0, 0])  # 1 + 2 * (15 - 10) / 5
    3.0
    >>> Kd = tunable_surface("Kd", (1, 1), v, states=1, dt=0.1)
    >>> Kd.dt, Kd.tunables["Kd.M0"].value.tolist()
    (0.1, [[0.5, 0.0], [0.0, 0.0]])
    """
    name = _block_name("tunable_surface", name)
    if isinstance(scheduling, UncertainElement):
        sched = [scheduling]
    elif isinstance(scheduling, list | tuple):
        sched = list(scheduling)
    else:
        raise ArgumentError(
            f"tunable_surface '{name}': scheduling must be a ureal or a list of them, got "
            f"{scheduling!r}"
        )
    if not sched:
        raise ArgumentError(f"tunable_surface '{name}': scheduling lists no element")
    for s in sched:
        if not (isinstance(s, UncertainElement) and s.kind == "real" and not s.tunable):
            raise UncertainTypeError(
                f"tunable_surface '{name}': scheduling elements must be ureal, got {s!r}"
            )
    seen = set()
    for s in sched:
        if s.name in seen:
            # [v, v] would be one Delta channel with two coefficients per monomial
            raise ArgumentError(
                f"tunable_surface '{name}': scheduling lists {s.name!r} twice; give each "
                "element once (use basis='polynomial' for powers of it)"
            )
        seen.add(s.name)
    if basis not in BASES:
        raise DimensionError(f"tunable_surface '{name}': basis must be one of {BASES}")
    try:
        ny, nu = shape
    except (TypeError, ValueError):
        raise DimensionError(f"tunable_surface '{name}': shape must be (ny, nu)") from None
    for what, v in (("ny", ny), ("nu", nu)):
        if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Integral) or v < 1:
            raise DimensionError(
                f"tunable_surface '{name}': shape {shape!r}: {what} must be an integer >= 1"
            )
    ny, nu = int(ny), int(nu)
    integer = isinstance(degree, numbers.Integral) and not isinstance(degree, bool | np.bool_)
    # checked for every basis: a bad value is a mistake even where it is unused
    if not (integer and degree >= 1):
        raise ArgumentError(
            f"tunable_surface '{name}': degree must be an integer >= 1, got {degree!r}"
        )
    if isinstance(states, bool) or not isinstance(states, numbers.Integral) or states < 0:
        raise DimensionError(f"tunable_surface '{name}': states must be an integer >= 0")
    ts = _block_dt("tunable_surface", name, dt)
    rows, cols = ny + states, nu + states
    m0 = np.zeros((rows, cols))
    if states:
        m0[:states, :states] = (0.5 if ts else -1.0) * np.eye(states)
    surface = umat(realp(f"{name}.M0", m0))
    normalised = [(umat(s) - s.center) * (1.0 / s.half_width) for s in sched]
    for i, powers in enumerate(_basis_terms(sched, basis, degree), start=1):
        f = None
        for s, p in zip(normalised, powers, strict=True):
            for _ in range(p):
                f = s if f is None else f * s
        surface = surface + f * umat(realp(f"{name}.M{i}", np.zeros((rows, cols))))
    if states:
        n = states
        # Selecting the four blocks repeats every Delta channel; simplify merges them.
        sys = simplify(
            uss(surface[:n, :n], surface[:n, n:], surface[n:, :n], surface[n:, n:], dt=ts)
        )
    else:
        sys = uss(surface, dt=ts if ts else None)
    sys.input_names = [f"u[{i}]" for i in range(nu)] if nu > 1 else ["u"]
    sys.output_names = [f"y[{i}]" for i in range(ny)] if ny > 1 else ["y"]
    sys.name = name
    return sys
