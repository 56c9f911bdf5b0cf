"""Tunable state-space controllers in full, companion or diagonal form."""

from __future__ import annotations

import numpy as np

from ..errors import DimensionError
from ..lft.model import UncertainSystem, uss
from .realp import realp
from .tunable_gain import _block_dt, _block_name, _positive

FORMS = ("full", "companion", "diag")


def tunable_ss(name, nx, ny, nu, *, form="full", dt=None) -> UncertainSystem:
    """Tunable state-space model ``(A, B, C, D)`` of order ``nx``.

    The parameters are the realps ``name.A``, ``name.B``, ``name.C``, ``name.D``.
    ``form="companion"`` fixes the structure of ``A`` to a companion matrix (its
    last row free, ones on the superdiagonal); ``form="diag"`` keeps only the
    diagonal of ``A`` free.  ``B = C = D = 0`` initially, and ``A`` starts with the
    distinct real poles ``-1, -(1 + 1/nx), ..., -(2 - 1/nx)``: ``diag`` of them
    (diagonal form), the companion matrix of their polynomial (companion form), or
    ``A = -I`` (full form).  A companion matrix with a repeated pole is defective: its
    poles are not Lipschitz in the coefficients (a pole goal's gradient would be
    unbounded there, and the mean of the repeated pole, the only bounded derivative,
    can point the wrong way), hence the distinct poles.  ``-I`` is not defective
    (every direction is an eigenvector, and a pole goal's multi-peak step sees each
    pole as a piece); it stays the full form's start, from which stored designs were
    tuned.  With a sample time ``dt`` the block is ``x[k+1] = A x[k] + B u[k]``,
    ``y[k] = C x[k] + D u[k]`` (MATLAB's ``tunableSS(name, nx, ny, nu, Ts)``); its
    initial poles are ``0.5, 0.5 (1 - 1/(2 nx)), ..., 0.5 (1 - (nx-1)/(2 nx))``
    (distinct, inside the unit circle) in the diagonal and companion forms, and
    ``A = 0.5 I`` in the full form (``-I`` would put every pole on the unit circle).

    Parameters
    ----------
    name : str
        Name of the block (its parameters are ``name.A`` ...).
    nx, ny, nu : int
        Order, numbers of outputs and of inputs.
    form : {"full", "companion", "diag"}
        Structure of ``A``.
    dt : float, optional
        Sample time (> 0) of a discrete block; ``None``: continuous.

    Returns
    -------
    UncertainSystem

    Examples
    --------
    >>> import robustmb as rmb
    >>> C = rmb.tunable_ss("C", 2, 1, 1, form="companion")
    >>> sorted(C.tunables), C.nstates
    (['C.A', 'C.B', 'C.C', 'C.D'], 2)
    >>> C.tunables["C.A"].free.astype(int).tolist()
    [[0, 0], [1, 1]]
    >>> Cd = rmb.tunable_ss("Cd", 2, 1, 1, form="diag", dt=0.05)
    >>> Cd.dt, Cd.tunables["Cd.A"].value.diagonal().tolist()
    (0.05, [0.5, 0.375])
    """
    name = _block_name("tunable_ss", name)
    nx = _positive(name, "nx", nx)
    ny = _positive(name, "ny", ny)
    nu = _positive(name, "nu", nu)
    if form not in FORMS:
        raise DimensionError(f"tunable_ss '{name}': form must be one of {FORMS}, got {form!r}")
    ts = _block_dt("tunable_ss", name, dt)
    if ts:
        start = 0.5 * (1.0 - np.arange(nx) / (2 * nx))  # distinct, inside the unit circle
    else:
        start = -(1.0 + np.arange(nx) / nx)  # distinct poles (see the docstring)
    if form == "full":
        a0, free = (0.5 if ts else -1.0) * np.eye(nx), True
    elif form == "diag":
        a0, free = np.diag(start), np.eye(nx, dtype=bool)
    else:
        a0 = np.eye(nx, k=1)
        a0[-1] = -np.polynomial.polynomial.polyfromroots(start)[:-1]
        free = np.zeros((nx, nx), dtype=bool)
        free[-1] = True
    pa = realp(f"{name}.A", a0, free=free)
    pb = realp(f"{name}.B", np.zeros((nx, nu)))
    pc = realp(f"{name}.C", np.zeros((ny, nx)))
    pd = realp(f"{name}.D", np.zeros((ny, nu)))
    sys = uss(pa._to_model(), pb._to_model(), pc._to_model(), pd._to_model(), dt=ts)
    sys.input_names = [f"u[{i}]" for i in range(nu)] if nu > 1 else ["u"]
    sys.output_names = [f"y[{i}]" for i in range(ny)] if ny > 1 else ["y"]
    sys.name = name
    return sys
