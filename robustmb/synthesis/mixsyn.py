"""Mixed-sensitivity H-infinity design ``min_K || [W1 S; W2 K S; W3 T] ||_inf``.

The generalised plant is python-control's ``augw`` (``z = [W1 e; W2 u; W3 G u]``,
``e = w - G u``, ``y = e``), solved by :func:`.hinfsyn.hinfsyn`.
"""

from __future__ import annotations

import control
import numpy as np

from robustmb.errors import DimensionError

from .hinfsyn import hinfsyn

__all__ = ["mixsyn"]


def _weight(W, name):
    if W is None:
        return None
    if isinstance(W, control.TransferFunction):
        for i in range(W.noutputs):
            for j in range(W.ninputs):
                num, den = np.trim_zeros(W.num[i][j], "f"), np.trim_zeros(W.den[i][j], "f")
                if len(num) > len(den):
                    raise DimensionError(f"weight {name} is not proper (entry {i},{j})")
        return control.ss(W)
    if isinstance(W, control.StateSpace):
        return W
    return control.ss([], [], [], np.atleast_2d(np.asarray(W, float)))


def mixsyn(G, W1=None, W2=None, W3=None, **options):
    """H-infinity mixed-sensitivity controller (``u = K e``, negative feedback on ``y``).

    Parameters
    ----------
    G : control.StateSpace or control.TransferFunction
        Plant.
    W1, W2, W3 : LTI, array_like or None
        Weights on the sensitivity ``S``, on ``K S`` and on ``T``; each must be proper.
    **options
        Passed to :func:`hinfsyn` (``method``, ``rtol``, ...).

    Returns
    -------
    HinfsynResult
        As :func:`hinfsyn`; ``.closed_loop`` maps ``w`` to ``[W1 S; W2 K S; W3 T] w``.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> G = control.tf([200.0], [0.025, 1.0025, 10.1, 1.0])
    >>> W1 = control.tf([1 / 1.5, 10.0], [1.0, 10.0 * 1e-4])
    >>> res = rmb.mixsyn(G, W1, 0.1)
    >>> round(float(res.gamma_opt), 3)
    0.923
    """
    if isinstance(G, control.TransferFunction):
        G = control.ss(G)
    w = [_weight(W, nm) for W, nm in ((W1, "W1"), (W2, "W2"), (W3, "W3"))]
    if all(x is None for x in w):
        raise DimensionError("mixsyn needs at least one of the weights W1, W2, W3")
    P = control.augw(G, *w)
    return hinfsyn(P, G.noutputs, G.ninputs, **options)
