"""Tunable transfer function with a monic denominator."""

from __future__ import annotations

import numpy as np

from ..errors import DimensionError
from ..lft.model import UncertainSystem, umat, uss
from .realp import realp
from .tunable_gain import _block_dt, _block_name, _positive


def tunable_tf(name, nzeros, npoles, *, dt=None) -> UncertainSystem:
    """Tunable SISO transfer function ``(b_m s^m + … + b_0) / (s^n + … + a_0)``.

    The parameters are ``name.num`` (``1 x (nzeros+1)``, highest power first) and
    ``name.den`` (``1 x npoles``, the non-leading coefficients, highest power
    first), realised in controllable canonical form.  Initial value: all poles at
    ``-1`` and unit DC gain.  With a sample time ``dt`` the same coefficients are
    those of polynomials in ``z`` (MATLAB's ``tunableTF(name, nz, np, Ts)``): the
    block is ``(b_m z^m + … + b_0) / (z^n + … + a_0)``, its state update
    ``x[k+1] = A x[k] + B u[k]``, and its initial poles are at ``z = 0.5`` with unit
    DC gain (at ``z = 1``).

    Parameters
    ----------
    name : str
    nzeros, npoles : int
        Numbers of zeros and poles, ``nzeros <= npoles`` (proper).
    dt : float, optional
        Sample time (> 0) of a discrete block; ``None``: continuous.

    Returns
    -------
    UncertainSystem

    Examples
    --------
    >>> import numpy as np, control
    >>> import robustmb as rmb
    >>> F = rmb.tunable_tf("F", 1, 2)
    >>> G = F.usubs({"F.num": [[2.0, 3.0]], "F.den": [[4.0, 5.0]]})
    >>> bool(np.isclose(control.evalfr(G, 1j), (2j + 3) / (-1 + 4j + 5)))
    True
    >>> Fd = rmb.tunable_tf("Fd", 1, 2, dt=0.1)
    >>> Gd = Fd.usubs({"Fd.num": [[2.0, 3.0]], "Fd.den": [[-0.5, 0.06]]})
    >>> z = np.exp(0.3j)
    >>> Gd.dt, bool(np.isclose(control.evalfr(Gd, z), (2 * z + 3) / (z**2 - 0.5 * z + 0.06)))
    (0.1, True)
    """
    name = _block_name("tunable_tf", name)
    npoles = _positive(name, "npoles", npoles, 0)
    nzeros = _positive(name, "nzeros", nzeros, 0)
    if nzeros > npoles:
        raise DimensionError(
            f"tunable_tf '{name}': nzeros ({nzeros}) must not exceed npoles ({npoles})"
        )
    ts = _block_dt("tunable_tf", name, dt)
    pole = 0.5 if ts else -1.0
    den_full = np.polynomial.polynomial.polyfromroots(pole * np.ones(npoles))[::-1]
    den0 = den_full[1:]
    num0 = np.zeros(nzeros + 1)
    # unit DC gain: the denominator's value at s = 0 (continuous) or z = 1 (discrete)
    num0[-1] = (den_full.sum() if ts else den0[-1]) if npoles else 1.0
    pnum = umat(realp(f"{name}.num", num0))
    if npoles == 0:
        sys = uss(pnum, dt=ts if ts else None)
    else:
        pden = umat(realp(f"{name}.den", den0))
        n = npoles
        # Controllable canonical form: the last row of A is -den reversed.
        rev = np.eye(n)[::-1]
        a = np.vstack([np.eye(n, k=1)[:-1], np.zeros((1, n))]) - np.eye(n)[:, [-1]] @ (pden @ rev)
        b = np.eye(n)[:, [-1]]
        # Pad the numerator to degree n; c = b_low - b_n * a_low (lowest power first).
        pad = np.zeros((nzeros + 1, n + 1))
        pad[np.arange(nzeros + 1), np.arange(n - nzeros, n + 1)] = 1.0
        full = pnum @ pad  # coefficients of s^n ... s^0
        bn = full[:, [0]]
        low = full @ np.eye(n + 1)[:, 1:][:, ::-1]  # s^0 ... s^(n-1)
        c = low - bn @ (pden @ rev)
        sys = uss(a, b, c, bn, dt=ts)
    sys.input_names = ["u"]
    sys.output_names = ["y"]
    sys.name = name
    return sys
