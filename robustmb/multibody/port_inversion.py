"""Channel (port) inversion of a TITOP model, exact on the LFT (seed 003, Sec. 2).

Inverting a port swaps the roles of its input and output: a direct dynamic
model at a port (acceleration -> wrench) becomes the inverse model there, so a
chain of bodies can be rooted at either end.  On the augmented LFT system
``[x'; z; y] = M [x; w; u]`` the swap of inputs ``u_s`` with outputs ``y_s``
is the exchange operator on ``M``::

    [y_k]   [M_kk - M_ks M_ss^-1 M_sk   M_ks M_ss^-1] [u_k]
    [u_s] = [      -M_ss^-1 M_sk          M_ss^-1   ] [y_s]

which keeps states and Delta channels, so it is exact for every value of the
uncertainty.  It exists iff the feedthrough ``M_ss`` from the swapped inputs
to the swapped outputs is invertible: e.g. a single port of a rigid two-port
body has ``M_ss = 0`` and cannot be inverted alone, while both ports together
(double-port inversion) can.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import ArgumentError, DimensionError, IllPosedError, SignalError
from ..lft.model import as_model
from ..lft.realization import make_realization


def _indices(spec, names, what):
    if isinstance(spec, str | int | np.integer):
        spec = [spec]
    try:
        spec = list(spec)
    except TypeError:
        raise SignalError(
            f"invert_channels: {what}s must be a name, an index or a list of them, got {spec!r}"
        ) from None
    out = []
    for s in spec:
        if isinstance(s, str):
            if s not in names:
                raise SignalError(f"invert_channels: unknown {what} {s!r}")
            out.append(names.index(s))
        else:
            # int(0.7) would swap channel 0 and int(True) channel 1 without a word
            if isinstance(s, bool | np.bool_) or not isinstance(s, numbers.Integral):
                raise SignalError(
                    f"invert_channels: {what}s must be names or integer indices, got {s!r}"
                )
            k = int(s)
            if not 0 <= k < len(names):
                raise SignalError(
                    f"invert_channels: {what} index {k} out of range 0..{len(names) - 1}"
                )
            out.append(k)
    if len(set(out)) != len(out):
        raise SignalError(f"invert_channels: repeated {what}s {list(spec)}")
    return out


def invert_channels(sys, inputs, outputs, *, rtol=1e-10):
    """Swap the given inputs with the given outputs (exact, keeps the uncertainty).

    Parameters
    ----------
    sys : UncertainModel or python-control system
    inputs, outputs : list of str or int
        Equally many input and output names (or indices); the k-th listed
        input becomes an output in place of the k-th listed output, and
        vice versa.
    rtol : float, optional
        The feedthrough from ``inputs`` to ``outputs`` is declared singular
        when its smallest singular value is below ``rtol`` times its largest.

    Returns
    -------
    UncertainModel
        Same states and uncertainty blocks; names swapped with the channels.

    Raises
    ------
    IllPosedError
        When the feedthrough between the swapped channels is singular (the
        port cannot be inverted alone; invert more ports together).

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import invert_channels
    >>> G = rmb.umat([[2.0, 1.0], [0.0, 4.0]])
    >>> H = invert_channels(G, [0], [0])
    >>> np.round(H.nominal(), 3)
    array([[ 0.5, -0.5],
           [ 0. ,  4. ]])
    """
    if (
        isinstance(rtol, bool | np.bool_)
        or not isinstance(rtol, numbers.Real)
        or not 0.0 <= rtol < 1.0
    ):
        raise ArgumentError(f"invert_channels: rtol must be a number in [0, 1), got {rtol!r}")
    model = as_model(sys)
    real = model._real
    ins, outs = list(model.input_names), list(model.output_names)
    ii = _indices(inputs, ins, "input")
    oo = _indices(outputs, outs, "output")
    if len(ii) != len(oo):
        raise DimensionError(
            f"invert_channels: {len(ii)} inputs but {len(oo)} outputs; give equally many"
        )
    nx, nw, nz = real.nx, real.nw, real.nz
    top = np.hstack([real.a, real.b])
    bot = np.hstack([real.c, real.d])
    m = np.vstack([top, bot])
    cs = [nx + nw + k for k in ii]
    rs = [nx + nz + k for k in oo]
    ck = [k for k in range(m.shape[1]) if k not in set(cs)]
    rk = [k for k in range(m.shape[0]) if k not in set(rs)]
    mss = m[np.ix_(rs, cs)]
    sv = np.linalg.svd(mss, compute_uv=False) if mss.size else np.zeros(0)
    if mss.size and (sv[-1] <= rtol * max(sv[0], np.finfo(float).tiny)):
        names = ", ".join(f"{ins[i]}->{outs[o]}" for i, o in zip(ii, oo, strict=True))
        raise IllPosedError(
            "invert_channels: the feedthrough between the swapped channels is singular "
            f"(singular values {np.array2string(sv, precision=3)}); channels {names}. "
            "Invert more ports together (e.g. both ports of a rigid body)."
        )
    inv_ss = np.linalg.inv(mss)
    mks, msk = m[np.ix_(rk, cs)], m[np.ix_(rs, ck)]
    new = np.empty_like(m)
    new[np.ix_(rk, ck)] = m[np.ix_(rk, ck)] - mks @ inv_ss @ msk
    new[np.ix_(rk, cs)] = mks @ inv_ss
    new[np.ix_(rs, ck)] = -inv_ss @ msk
    new[np.ix_(rs, cs)] = inv_ss
    a, b = new[:nx, :nx], new[:nx, nx:]
    c, d = new[nx:, :nx], new[nx:, nx:]
    new_ins, new_outs = list(ins), list(outs)
    for i, o in zip(ii, oo, strict=True):
        new_ins[i], new_outs[o] = outs[o], ins[i]
    return type(model)(
        make_realization(a, b, c, d, real.blocks),
        dt=model.dt,
        input_names=new_ins,
        output_names=new_outs,
        name=model.name,
    )
