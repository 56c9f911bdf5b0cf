"""Serial arm of rigid links and locked revolute joints, rooted at either end (seed 003, Fig. 4).

Link ``k`` has its frame at joint point ``J_k``; its parent port is ``J_k``
and its child port ``J_{k+1}`` when the chain is rooted at the base ``J_0``.
Joint ``k`` (between links ``k-1`` and ``k``, at ``J_k``) is a frame change
``[v]_{k-1} = P(alpha_k) [v]_k`` with ``tau_k = tan(alpha_k / 4)``
(:func:`revolute_frame_block`, ``tau I16``).  Rooted at the tip the same
links are used with their ports swapped and the joints reversed
(``alpha -> -alpha``), which is what a double-port inversion of the
base-rooted chain gives (tested).
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, DimensionError
from ..lft import connect
from .connection import revolute_frame_block
from .flexible_body import ACCELERATION_COMPONENTS as ACC
from .nport_body import rigid_titop
from .signals import WRENCH_COMPONENTS as WR
from .signals import check_name


def arm_chain(name, links, axes, taus, *, root="base"):
    """Two-port TITOP model of a serial arm with locked revolute joints.

    Parameters
    ----------
    name : str
    links : list of dict
        Each with ``mass``, ``inertia`` (3x3 at the CoM), ``com`` (vector
        ``J_k`` to the CoM) and ``length`` (vector ``J_k`` to ``J_{k+1}``), in
        the link frame.
    axes : list of 3-vectors
        Axis of joint ``k = 1 .. len(links) - 1``.
    taus : list of ureal or numbers
        ``tan(alpha_k / 4)`` of each joint.
    root : {"base", "tip"}
        ``"base"``: parent port ``J_0`` (inputs ``{name}_tip_Fx..Tz`` then
        ``{name}_base_ax..alphaz``; outputs ``{name}_tip_ax..alphaz`` then
        ``{name}_base_to_parent_Fx..Tz``).  ``"tip"``: the same with base and
        tip exchanged; signals of the base in link 0's frame, of the tip in
        the last link's frame.

    Returns
    -------
    UncertainMatrix (12 x 12)

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import arm_chain
    >>> link = {"mass": 5.0, "inertia": 0.2 * np.eye(3), "com": [0, 0, 0.06],
    ...         "length": [0, 0, 0.12]}
    >>> t = rmb.ureal("t1", 0.0, range=(-1, 1))
    >>> Z = arm_chain("arm", [link, link], [[1, 0, 0]], [t])
    >>> Z.shape, Z.blocks
    ((12, 12), {'t1': 16})
    """
    check_name(name, "arm name")
    if root not in ("base", "tip"):
        raise ArgumentError(f"arm_chain {name!r}: root must be 'base' or 'tip', got {root!r}")
    nl = len(links)
    if nl < 1 or len(axes) != nl - 1 or len(taus) != nl - 1:
        raise DimensionError(
            f"arm_chain {name!r}: {nl} links need {max(nl - 1, 0)} axes and taus, "
            f"got {len(axes)} and {len(taus)}"
        )
    blocks, conns = [], []
    rev = root == "tip"
    for k, lk in enumerate(links):
        try:
            com = np.asarray(lk["com"], dtype=float)
            length = np.asarray(lk["length"], dtype=float)
            mass, inertia = lk["mass"], lk["inertia"]
        except KeyError as exc:
            raise ArgumentError(f"arm_chain {name!r}: link {k} lacks {exc}") from None
        if rev:  # parent port at J_{k+1}, child port at J_k
            blocks.append(rigid_titop(f"{name}L{k}", mass, inertia, com - length, -length))
        else:
            blocks.append(rigid_titop(f"{name}L{k}", mass, inertia, com, length))
    for k in range(1, nl):
        up_l, dn_l = (
            (f"{name}L{k}", f"{name}L{k - 1}") if rev else (f"{name}L{k - 1}", f"{name}L{k}")
        )
        tau = -taus[k - 1] if rev else taus[k - 1]
        jn = f"{name}J{k}"
        blocks.append(
            revolute_frame_block(
                jn,
                axes[k - 1],
                tau,
                down=([f"{up_l}_C_{c}" for c in ACC], [f"{dn_l}_P_{c}" for c in ACC]),
                up=([f"{dn_l}_P_to_parent_{c}" for c in WR], [f"{up_l}_C_{c}" for c in WR]),
            )
        )
        conns += [[f"{jn}.{up_l}_C_{c}", f"{up_l}.{up_l}_C_{c}"] for c in ACC]
        conns += [[f"{dn_l}.{dn_l}_P_{c}", f"{jn}.{dn_l}_P_{c}"] for c in ACC]
        conns += [[f"{jn}.{dn_l}_P_to_parent_{c}", f"{dn_l}.{dn_l}_P_to_parent_{c}"] for c in WR]
        conns += [[f"{up_l}.{up_l}_C_{c}", f"{jn}.{up_l}_C_{c}"] for c in WR]
    first, last = (f"{name}L{nl - 1}", f"{name}L0") if rev else (f"{name}L0", f"{name}L{nl - 1}")
    far, near = ("base", "tip") if rev else ("tip", "base")
    sys = connect(
        blocks,
        connections=conns,
        inputs=[f"{last}.{last}_C_{c}" for c in WR] + [f"{first}.{first}_P_{c}" for c in ACC],
        outputs=[f"{last}.{last}_C_{c}" for c in ACC]
        + [f"{first}.{first}_P_to_parent_{c}" for c in WR],
        check_unused=False,
    )
    sys.input_names = [f"{name}_{far}_{c}" for c in WR] + [f"{name}_{near}_{c}" for c in ACC]
    sys.output_names = [f"{name}_{far}_{c}" for c in ACC] + [
        f"{name}_{near}_to_parent_{c}" for c in WR
    ]
    sys.name = name
    return sys
