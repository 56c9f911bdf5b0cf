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
