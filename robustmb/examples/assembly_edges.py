"""Edges of the on-orbit assembly study posed, and their mu cost (Eq. 20).

Available as ``robustmb.examples.assembly_edges``; the models are those of
:mod:`robustmb.examples.assembly`.  Every edge of a planning graph is two quintic
joint trajectories gridded at ``z`` waypoints (digest 003, Sec. 4.2):

- **walk** ``(j, a) -> (k, 3 - a)``: the free leg aligns with tile ``k``; the first
  trajectory on the model of the start node, the second (back to zero angles) on the
  model of the end node, the docked leg switching at the aligned pose;
- **pick-up** ``(j, a) -> 0``: arm R3 aligns with the stack (the stack's cell next to
  tiles 1 and 2, in the plane of the tiles: Eq. 13 ignores the stacking offsets), then
  comes back carrying the tile, on the same node;
- **assembly** ``(j, a) -> "*"``: R3, carrying, aligns with the slot of tile ``n + 1``,
  then comes back on ``F_{n+1}`` without the tile.

The mu cost of an edge is the sum over its ``2 z`` frozen closed loops of the peak over
frequency of mu for ``Delta_omega = delta I2`` (the first solar-array frequency,
+-20 %).  Two ways are given: :func:`mu_upper_peak`, the largest certified ``mussv``
upper bound over a frequency grid (what the paper computes, with MATLAB's ``mussv``),
and :func:`real_mu_peak`, the exact supremum over all frequencies for a single real
parameter (``1 / the parameter's stability margin``, from a generalized eigenvalue
problem).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import ArgumentError, ResidualMassWarning
from . import assembly as a

#: The stack's cell from P2 (structure axes): the stack CoM at P3 + ``STACK_COM``, in
#: the plane of the tiles -- body (1, 0), the cell next to tiles 1 and 2.
STACK_CELL = (
    np.asarray(a.HUB["ports"]["P3"]) + a.STACK_COM - np.asarray(a.HUB["ports"]["P2"])
) * np.array([1.0, 1.0, 0.0])

#: Frequency grid of :func:`mu_upper_peak` (rad/s): 0 (where ``omega_1 -> 0`` gives the
#: structural peak) and 40 points per decade-ish from 1e-3 to 1e2.
MU_GRID = np.r_[0.0, np.logspace(-3, 2, 40)]


def edge_poses(n, u, v, *, carrying=False, z=None):
    """The ``2 z`` frozen configurations of an edge of the planning graphs of ``F_n``.

    Parameters
    ----------
    n : int
        Structure ``F_n``.
    u : (tile, leg)
        Start node.
    v : (tile, leg), 0 or "*"
        End node: a tile node (walk), the stack ``0`` (pick-up) or the next tile's slot
        ``"*"`` (assembly).
    carrying : bool
        For a walk: whether the robot carries a tile (the walks of the assembly graphs).
    z : int, optional
        Waypoints per trajectory (default ``assembly.Z_WAYPOINTS``).

    Returns
    -------
    list of dict
        ``{"n", "tile", "leg", "carrying", "angles"}`` per frozen model, in trajectory
        order (the arguments of :func:`assembly.spacecraft`).

    Examples
    --------
    >>> from robustmb.examples import assembly_edges as e
    >>> poses = e.edge_poses(3, (1, 1), 0, z=2)        # pick up from tile 1, leg R1
    >>> [(p["n"], p["tile"], p["carrying"]) for p in poses]
    [(3, 1, False), (3, 1, False), (3, 1, True), (3, 1, True)]
    """
    offs = a.tile_offsets(a.N_TILES)
    j, leg = u
    if not (1 <= n <= a.N_TILES and 1 <= j <= n and leg in (1, 2)):
        raise ArgumentError(f"edge_poses: start node {u!r} is not a node of F_{n}")
    here = offs[j - 1]
    if v == 0:
        moving, target = 3, STACK_CELL - here
        first, second = (n, j, leg, False), (n, j, leg, True)
    elif v == "*":
        if n >= a.N_TILES:
            raise ArgumentError(f"edge_poses: F_{n} has no next tile to assemble")
        moving, target = 3, offs[n] - here
        first, second = (n, j, leg, True), (n + 1, j, leg, False)
    else:
        k, leg_v = v
        if not (1 <= k <= n and leg_v == 3 - leg):
            raise ArgumentError(f"edge_poses: {u!r} -> {v!r} is not a walk of F_{n}")
        moving, target = leg_v, offs[k - 1] - here
        first, second = (n, j, leg, bool(carrying)), (n, k, leg_v, bool(carrying))
    if np.max(np.abs(target[:2])) != 1.0:
        raise ArgumentError(
            f"edge_poses: {u!r} -> {v!r} is not an edge of F_{n}: the target is not one of "
            "the 8 neighbours of the start tile"
        )
    aligned = a.align_effector(moving, target, leg=leg)
    zero = np.zeros((3, 5))
    out = []
    for (nn, tile, lg, carry), path in (
        (first, a.quintic(zero, aligned, z)),
        (second, a.quintic(aligned, zero, z)),
    ):
        out += [
            {"n": nn, "tile": tile, "leg": lg, "carrying": carry, "angles": ang} for ang in path
        ]
    return out


def pose_closed_loop(pose, *, uncertain=True):
    """Attitude closed loop (:func:`assembly.closed_loop`) of one frozen configuration.

    Examples
    --------
    >>> from robustmb.examples import assembly_edges as e
    >>> cl = e.pose_closed_loop(e.edge_poses(2, (1, 1), (2, 2), z=2)[0])
    >>> cl.shape, cl.blocks
    ((9, 9), {'w_sa1': 2})
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResidualMassWarning)
        plant = a.spacecraft(
            pose["n"],
            pose["tile"],
            carrying=pose["carrying"],
            leg=pose["leg"],
            angles=pose["angles"],
            uncertain=uncertain,
        )
    return a.closed_loop(plant)


def _omega_channel(closed_loop):
    """``(A, B, C, D)`` of ``w -> z`` of the loop's single real parameter (normalised,
    ``delta I_r``): ``w_omega -> z_omega`` (2 x 2) for the study's loops."""
    from ..lft import lftdata

    M, blocks = lftdata(closed_loop)
    if len(blocks) != 1 or blocks[0][1] != "real":
        raise ArgumentError(
            f"closed_loop: expected a single real parameter (the study's w_sa1), got {blocks}"
        )
    r = blocks[0][2]
    A, B, C, D = (np.asarray(X, dtype=float) for X in (M.A, M.B, M.C, M.D))
    return A, B[:, :r], C[:r], D[:r, :r]


def real_mu_peak(closed_loop):
    """Exact ``sup_omega mu(M(j omega))`` for a loop with a single real parameter.

    For ``Delta = delta I_r`` (the study: ``delta I2``) with ``delta`` real, the
    supremum over frequency of mu is ``1 / min |delta|`` over the values at which the
    loop ``A(delta) = A + B delta (I - D delta)^-1 C`` gets an eigenvalue on the
    imaginary axis (or loses well-posedness).  ``A(delta)`` has eigenvalues
    ``l_i + l_j = 0`` (a pair ``+-j w`` or a zero) exactly when its Kronecker sum is
    singular, a generalized eigenvalue problem in ``delta``; each real root is kept if
    ``A(delta)`` has an eigenvalue on the
    axis.  No frequency grid: the value is the peak wherever it is attained.

    Returns
    -------
    peak : float
        ``0`` when no real ``delta`` destabilises.
    delta : float
        The smallest destabilising ``delta`` (``inf`` if none).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.examples import assembly_edges as e
    >>> cl = e.pose_closed_loop(e.edge_poses(2, (1, 1), (2, 2), z=2)[0])
    >>> peak, delta = e.real_mu_peak(cl)
    >>> round(peak, 9), round(delta, 9)       # omega_1 -> 0 at delta = -1 / 0.2
    (0.2, -5.0)
    """
    import scipy.linalg

    A, B, C, D = _omega_channel(closed_loop)
    n, m = A.shape[0], B.shape[1]
    In, Im = np.eye(n), np.eye(m)
    # Kronecker sum K(delta) = K0 + Bk delta (I - Dk delta)^-1 Ck, and the pencil
    # [K0 Bk; 0 -I] + delta [0 0; Ck Dk] of its singular values of delta
    K0 = np.kron(A, In) + np.kron(In, A)
    Bk = np.hstack([np.kron(B, In), np.kron(In, B)])
    Ck = np.vstack([np.kron(C, In), np.kron(In, C)])
    Dk = scipy.linalg.block_diag(np.kron(D, In), np.kron(In, D))
    q = Bk.shape[1]
    E0 = np.block([[K0, Bk], [np.zeros((q, n * n)), -np.eye(q)]])
    E1 = np.block([[np.zeros((n * n, n * n)), np.zeros((n * n, q))], [Ck, Dk]])
    roots = scipy.linalg.eigvals(E0, -E1)
    roots = roots[np.isfinite(roots)]
    signed = roots.real[np.abs(roots.imag) <= 1e-8 * (1.0 + np.abs(roots))]
    # ill-posedness: I - D delta singular
    lam = np.linalg.eigvals(D)
    real_lam = lam.real[(np.abs(lam.imag) <= 1e-12) & (np.abs(lam) > 0)]
    signed = np.r_[signed, 1.0 / real_lam]
    size = np.linalg.norm(A, 1)
    for d in signed[np.argsort(np.abs(signed))]:
        if d == 0.0:
            continue
        X = Im - D * d
        if np.linalg.cond(X) > 1e12:
            return float(1.0 / abs(d)), float(d)
        Ad = A + B @ (d * np.linalg.solve(X, C))
        ev = np.linalg.eigvals(Ad)
        if np.min(np.abs(ev.real)) <= 1e-7 * (size + 1.0):
            return float(1.0 / abs(d)), float(d)
    return 0.0, np.inf


def mu_upper_peak(closed_loops, omega=None, *, seed=0):
    """Largest certified ``mussv`` upper bound of mu over a frequency grid, per loop.

    Eq. 20's per-model term as the paper computes it (an upper bound on a grid).  The
    loops' ``w_omega -> z_omega`` responses go through
    :func:`~robustmb.analysis.model_family.mu_peak_stack` in one batch.

    Parameters
    ----------
    closed_loops : list of UncertainSystem
        Loops with the block ``w_sa1`` (2 occurrences).
    omega : array_like, optional
        Frequencies in rad/s (default ``MU_GRID``, which includes 0).

    Returns
    -------
    peak, frequency : numpy.ndarray
        Per loop: the largest upper bound over the grid and where it is attained.

    Examples
    --------
    >>> from robustmb.examples import assembly_edges as e
    >>> cl = e.pose_closed_loop(e.edge_poses(2, (1, 1), (2, 2), z=2)[0])
    >>> peak, w = e.mu_upper_peak([cl], [0.0, 1.0])
    >>> bool(peak[0] >= 0.2 - 1e-9)       # mu(M(0)) = 0.2 exactly
    True
    """
    from ..analysis.model_family import freqresp_stack, mu_peak_stack

    w = MU_GRID if omega is None else np.asarray(omega, dtype=float).ravel()
    channels = [_omega_channel(cl) for cl in closed_loops]
    peak, index = np.zeros(len(channels)), np.zeros(len(channels), dtype=int)
    # one batch per state dimension (F_n and F_n+1 of an assembly edge may differ)
    for n in {ch[0].shape[0] for ch in channels}:
        rows = [k for k, ch in enumerate(channels) if ch[0].shape[0] == n]
        stack = tuple(np.array([channels[k][i] for k in rows]) for i in range(4))
        R = freqresp_stack(stack, w)
        peak[rows], index[rows] = mu_peak_stack(R, [(-2, 0)], seed=seed)
    return peak, w[index]


def edge_mu_cost(n, u, v, *, carrying=False, z=None, exact=True, omega=None):
    """Eq. 20 for one edge: the sum over its ``2 z`` frozen loops of the mu peak.

    ``exact=True`` sums :func:`real_mu_peak` (the supremum over all frequencies);
    ``exact=False`` sums :func:`mu_upper_peak` on ``omega``.

    Examples
    --------
    >>> from robustmb.examples import assembly_edges as e
    >>> round(e.edge_mu_cost(2, (1, 1), (2, 2), z=2), 9)     # 4 loops x 0.2
    0.8
    """
    loops = [pose_closed_loop(p) for p in edge_poses(n, u, v, carrying=carrying, z=z)]
    if exact:
        return float(sum(real_mu_peak(cl)[0] for cl in loops))
    return float(np.sum(mu_upper_peak(loops, omega)[0]))
