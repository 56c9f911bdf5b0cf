"""Mixed-sensitivity H-infinity design ``min_K || [W1 S; W2 K S; W3 T] ||_inf``.

The generalised plant is python-control's ``augw`` (``z = [W1 e; W2 u; W3 G u]``,
``e = w - G u``, ``y = e``), solved by :func:`.hinfsyn.hinfsyn`.
"""

from __future__ import annotations

import control
import numpy as np

from robustmb.errors import DimensionError, IllPosedError

from .arguments import as_system, common_sampling_time
from .hinfsyn import hinfsyn
from .plant import _uncontrollable_modes
from .synthesis_options import check_options

__all__ = ["mixsyn"]


def mixsyn(G, W1=None, W2=None, W3=None, **options):
    """H-infinity mixed-sensitivity controller (``u = K e``, negative feedback on ``y``).

    Parameters
    ----------
    G : control.StateSpace, control.TransferFunction or array_like
        Plant (a matrix is a static gain), continuous or discrete time.  An uncertain
        system is refused: use :func:`robustmb.musyn` for a robust design, or
        ``G.nominal()`` for a nominal one.
    W1, W2, W3 : LTI, number, array_like or None
        Weights on the sensitivity ``S``, on ``K S`` and on ``T``; each must be proper and
        have ``G``'s sampling time (a static gain fits any).  ``W1`` and ``W3`` take
        ``G``'s outputs as inputs, ``W2`` its inputs; a number or a single-input
        single-output weight is applied to every channel (``W I``).
    **options
        Passed to :func:`hinfsyn` (``method``, ``rtol``, ...).

    Returns
    -------
    HinfsynResult
        As :func:`hinfsyn`; ``.closed_loop`` maps ``w`` to ``[W1 S; W2 K S; W3 T] w``.

    Raises
    ------
    FreeTunableError
        For a ``G`` or weight with free tunable parameters.
    UncertainTypeError
        For an uncertain ``G`` or weight.
    DimensionError
        For no weight, an improper weight, or a weight whose inputs do not fit ``G``.
    IllPosedError
        For a weight with a pole on or beyond the stability boundary (an integrator
        ``1/s`` included): the weights' states are not seen by the measurement ``e``, so
        no controller stabilises the augmented plant; shift such a pole slightly inside
        (``1/(s + 1e-4)``, as MATLAB's ``makeweight``).  Also as :func:`hinfsyn`.
    ArgumentError
        For a weight with another sampling time than ``G``, an argument that is neither a
        system nor a gain, a non-finite or complex entry in ``G`` or a weight (named), or
        an option :func:`hinfsyn` does not have (or a bad value of one).

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
    check_options("mixsyn", **options)
    G = as_system(G, "G", "mixsyn")
    sizes = {"W1": G.noutputs, "W2": G.ninputs, "W3": G.noutputs}
    w = {}
    for name, W in (("W1", W1), ("W2", W2), ("W3", W3)):
        if W is None:
            w[name] = None
            continue
        W = as_system(W, name, "mixsyn", size=sizes[name])
        if W.ninputs != sizes[name] and (W.ninputs, W.noutputs) != (1, 1):
            what = "outputs" if name != "W2" else "inputs"
            raise DimensionError(
                f"mixsyn: {name} must have G's {sizes[name]} {what} as inputs (or be a "
                f"single-input single-output weight); it is {W.noutputs}x{W.ninputs}"
            )
        w[name] = W
    if all(x is None for x in w.values()):
        raise DimensionError("mixsyn needs at least one of the weights W1, W2, W3")
    common_sampling_time("mixsyn", G, **w)
    for name, W in w.items():
        if W is not None:
            _refuse_unstable_weight(name, control.ss(W), G.dt)
    P = control.augw(G, w["W1"], w["W2"], w["W3"])
    return hinfsyn(P, G.noutputs, G.ninputs, **options)


def _refuse_unstable_weight(name, W, dt):
    """Raise for a weight pole on or beyond the stability boundary: in ``augw`` the
    weights' states are driven by ``e`` or ``u`` but never reach the measurement ``e``,
    so such a mode stays a closed-loop pole whatever the controller (PBH)."""
    bad = _uncontrollable_modes(W.A, np.zeros((W.A.shape[0], 0)), dt)
    if bad:
        where = "on or outside the unit circle" if dt else "on or right of the imaginary axis"
        raise IllPosedError(
            f"mixsyn: {name} has pole(s) {(np.round(bad, 6) + 0.0).tolist()} {where}: a weight's "
            "states are not seen by the measurement e, so no controller can stabilise the "
            "augmented plant; move the pole(s) slightly inside the stability region (e.g. "
            "an integrator 1/s as 1/(s + 1e-4))"
        )
