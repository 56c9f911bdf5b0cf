"""Constant-orientation connection between two body frames (seed 003, Eq. 11).

Wrenches and acceleration twists change frame through ``P^x2 = diag(P, P)``;
in a parent -> child chain the acceleration goes down through
``(P^x2_{a/b})^T`` and the wrench comes back up through ``P^x2_{a/b}``.
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, DimensionError
from ..lft.model import UncertainMatrix, static_model


def frame_change_block(name, dcm, inputs, outputs):
    """Static block ``y = diag(P, P) u`` for one 6-vector (twist or wrench).

    Parameters
    ----------
    name : str
        Block name.
    dcm : (3, 3) array_like
        Proper orthogonal matrix ``P`` with ``[v]_out = P [v]_in``.
    inputs, outputs : list of 6 str
        Signal names of the 6-vector in the input frame and the output frame.

    Returns
    -------
    UncertainMatrix

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import frame_change_block
    >>> names = ["x", "y", "z", "rx", "ry", "rz"]
    >>> blk = frame_change_block("flip", np.diag([-1.0, -1.0, 1.0]), names,
    ...                          [n + "_b" for n in names])
    >>> blk.nominal() @ np.arange(6.0)
    array([ 0., -1.,  2., -3., -4.,  5.])
    """
    p = np.asarray(dcm, dtype=float)
    if p.shape != (3, 3):
        raise DimensionError(f"frame_change_block {name!r}: dcm must be 3x3, got {p.shape}")
    if not np.allclose(p @ p.T, np.eye(3), atol=1e-9) or np.linalg.det(p) < 0:
        raise ArgumentError(f"frame_change_block {name!r}: dcm must be a proper rotation")
    if len(inputs) != 6 or len(outputs) != 6:
        raise DimensionError(
            f"frame_change_block {name!r}: give 6 input and 6 output names, "
            f"got {len(inputs)} and {len(outputs)}"
        )
    blk = static_model(np.kron(np.eye(2), p))
    return UncertainMatrix(
        blk._real, input_names=list(inputs), output_names=list(outputs), name=name
    )


def revolute_frame_block(name, axis, tau, *, down, up):
    """Locked revolute joint as a frame change, exact LFT in ``tau = tan(alpha/4)`` (Eq. 12).

    With ``P(alpha)`` the rotation about ``axis`` by ``alpha`` (``[v]_parent =
    P [v]_child``), the acceleration twist goes down the chain through
    ``P^T`` and the wrench comes back up through ``P``: ``4 x 4 = 16``
    occurrences of ``tau`` (``tau I16``), valid for ``alpha`` in ``[-pi, pi]``
    with ``tau`` in ``[-1, 1]``.

    Parameters
    ----------
    name : str
        Block name.
    axis : 3 numbers
        Joint axis (common to both frames).
    tau : ureal or number
        ``tan(alpha / 4)``.
    down : (list of 6 str, list of 6 str)
        Names of the acceleration twist in the parent frame (inputs) and in
        the child frame (outputs).
    up : (list of 6 str, list of 6 str)
        Names of the wrench in the child frame (inputs) and in the parent
        frame (outputs).

    Returns
    -------
    UncertainMatrix (12 x 12), inputs ``down[0] + up[0]``, outputs ``down[1] + up[1]``.

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import revolute_frame_block
    >>> t = rmb.ureal("tau1", 0.0, range=(-1.0, 1.0))
    >>> acc = ["ax", "ay", "az", "alx", "aly", "alz"]
    >>> wr = ["Fx", "Fy", "Fz", "Tx", "Ty", "Tz"]
    >>> J = revolute_frame_block("j1", [0, 0, 1], t,
    ...     down=([a + "_p" for a in acc], [a + "_c" for a in acc]),
    ...     up=([w + "_c" for w in wr], [w + "_p" for w in wr]))
    >>> J.blocks
    {'tau1': 16}
    """
    from .. import lft
    from .dcm import rotation_lft

    (din, dout), (uin, uout) = down, up
    for what, names in (
        ("down inputs", din),
        ("down outputs", dout),
        ("up inputs", uin),
        ("up outputs", uout),
    ):
        if len(names) != 6:
            raise DimensionError(f"revolute_frame_block {name!r}: {what} need 6 names")
    # passive rotation = P^T (acceleration down), active = P (wrench up); same tau.
    pt = rotation_lft(axis, tau, quarter=True, passive=True)
    p = rotation_lft(axis, tau, quarter=True)
    blk = lft.block_diag(pt, pt, p, p) if not isinstance(p, np.ndarray) else None
    if blk is None:
        blk = static_model(
            np.kron(np.diag([1.0, 1.0, 0.0, 0.0]), pt) + np.kron(np.diag([0.0, 0.0, 1.0, 1.0]), p)
        )
    return UncertainMatrix(
        blk._real,
        input_names=list(din) + list(uin),
        output_names=list(dout) + list(uout),
        name=name,
    )
