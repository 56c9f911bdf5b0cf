"""Stiffness and mass matrices of parallel mechanisms in chosen frames.

For struts with stiffnesses ``k_i``, the stiffness in frame {K} is
``K_K = J_K^T diag(k) J_K`` (seed 004, sections 4-6). With the rows of ``J`` made of the
strut direction ``s_i`` and the moment arm ``b_i x s_i``, the matrix has the blocks

``[[sum k s s^T, sum k s (b x s)^T], [sum k (b x s) s^T, sum k (b x s)(b x s)^T]]``.

It is diagonal when (1) ``sum k s s^T`` is diagonal (frame independent), (2) the
rotational block is diagonal and (3) the coupling block vanishes. Condition (3) is
linear in the origin of {K}: :func:`center_of_stiffness` solves it in closed form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robustmb.decoupling.geometry import line_jacobian, normalize_directions, skew
from robustmb.decoupling.second_order import _check_mechanical_matrices, _finite
from robustmb.errors import ArgumentError, DimensionError

__all__ = [
    "stiffness_matrix",
    "center_of_stiffness",
    "StiffnessConditions",
    "diagonal_stiffness_conditions",
    "legs_frame_matrices",
    "leg_mass_conditions",
    "frame_change",
    "is_diagonal",
]


def is_diagonal(X, *, rtol=1e-9) -> bool:
    """True when every off-diagonal entry is below ``rtol`` times the largest entry.

    Examples
    --------
    >>> import numpy as np
    >>> is_diagonal(np.array([[2.0, -2.2e-16], [-2.2e-16, 3.0]]))
    True
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise DimensionError(f"is_diagonal expects a matrix, got shape {X.shape}")
    scale = np.abs(X).max(initial=0.0)
    off = np.abs(X - np.diag(np.diag(X))).max(initial=0.0)
    return bool(off <= rtol * scale)


def stiffness_matrix(J, k) -> np.ndarray:
    """``J^T diag(k) J``.

    Parameters
    ----------
    J : array_like ``(n, d)``
        Strut Jacobian in the chosen frame.
    k : float or array_like ``(n,)``
        Strut stiffnesses (or dampings, for the damping matrix): finite, non-negative.

    Raises
    ------
    DimensionError
        ``k`` has neither one value nor one per row of ``J``.
    ArgumentError
        A non-finite entry in ``J`` or ``k``, or a negative ``k``.

    Examples
    --------
    >>> import numpy as np
    >>> stiffness_matrix(np.array([[1.0, 0.0, 1.7], [0, 1, -0.5], [0, 1, 0.5]]), 15e3)
    array([[15000.,     0., 25500.],
           [    0., 30000.,     0.],
           [25500.,     0., 50850.]])
    """
    J = np.atleast_2d(np.asarray(J, dtype=float))
    if J.ndim != 2:
        raise DimensionError(f"stiffness_matrix: J must be a 2-D matrix, got shape {J.shape}")
    _finite(J, "J", "stiffness_matrix: ")
    kv = _element_values(k, J.shape[0], "k", "stiffness_matrix")
    return J.T @ (kv[:, None] * J)


def _element_values(k, n, name, where):
    """One finite, non-negative value per strut (a scalar is repeated)."""
    a = np.asarray(k, dtype=float)
    if a.ndim > 1 or (a.ndim == 1 and a.size != n):
        raise DimensionError(
            f"{where}: {name} must be one value or {n} (one per strut), got shape {a.shape}"
        )
    kv = np.broadcast_to(a, (n,)).copy()
    _finite(kv, name, f"{where}: ")
    if np.any(kv < 0):
        bad = np.flatnonzero(kv < 0)
        raise ArgumentError(
            f"{where}: {name} must be non-negative (a strut cannot store negative energy), "
            f"got {kv[bad].tolist()} at index(es) {bad.tolist()}"
        )
    return kv


def _geometry(points, directions, stiffness, where, name="stiffness"):
    b = np.atleast_2d(np.asarray(points, dtype=float))
    s = normalize_directions(directions, what="strut")
    if b.shape != s.shape or b.shape[1] not in (2, 3):
        raise DimensionError(
            f"{where}: points {b.shape} and directions {s.shape} must both be (n, 2) or (n, 3)"
        )
    _finite(b, "points", f"{where}: ")
    k = _element_values(stiffness, b.shape[0], name, where)
    return b, s, k


def center_of_stiffness(points, directions, stiffness, *, exact=True, rtol=1e-9):
    """Origin of the frame {K} (axes parallel to {M}) without force-rotation coupling.

    Planar: solves ``A O = sum k_i (b_ix s_iy - b_iy s_ix) s_i`` with
    ``A = [sum k s_y s, -sum k s_x s]``. Spatial: ``[O]x = (sum k (b x s) s^T)
    (sum k s s^T)^{-1}``, which must be skew-symmetric for {K} to exist.

    Parameters
    ----------
    points, directions : array_like ``(n, 2)`` or ``(n, 3)``
        Strut attachment points in {M} and directions.
    stiffness : float or array_like ``(n,)``
    exact : bool
        With ``True`` (default) raise when no frame cancels the coupling exactly or the
        frame is not unique; with ``False`` return the least-squares (minimum-coupling,
        minimum-norm) origin.
    rtol : float
        Relative tolerance for the exactness check.

    Returns
    -------
    numpy.ndarray
        ``O_K`` in {M} coordinates.

    Raises
    ------
    ArgumentError
        ``exact=True`` and no unique centre of stiffness exists; a non-finite point or a
        negative stiffness.

    Examples
    --------
    >>> import numpy as np
    >>> center_of_stiffness([[-1, 0.2], [-1, -0.2], [1, 0.2], [1, 0.2]],
    ...                     [[1, 0], [0, 1], [-1, 0], [0, 1]], [1, 2, 1, 1]).round(6)
    array([-0.333333,  0.2     ])
    """
    b, s, k = _geometry(points, directions, stiffness, "center_of_stiffness")
    if b.shape[1] == 2:
        A = np.column_stack([(k * s[:, 1]) @ s, -(k * s[:, 0]) @ s])
        arm = b[:, 0] * s[:, 1] - b[:, 1] * s[:, 0]
        rhs = (k * arm) @ s
    else:
        S = (k[:, None] * s).T @ s  # sum k s s^T
        R = (k[:, None] * np.cross(b, s)).T @ s  # sum k (b x s) s^T
        # [O]x S = R is linear in O: stack the three basis contributions
        A = np.column_stack([(skew(e) @ S).ravel() for e in np.eye(3)])
        rhs = R.ravel()
    O, _, rank, _ = np.linalg.lstsq(A, rhs, rcond=None)
    if exact:
        if rank < A.shape[1]:
            raise ArgumentError(
                "center_of_stiffness: directions: the centre of stiffness is not unique (the "
                "struts' directions, weighted by their stiffness, do not span the "
                "plane/space); pass exact=False for the minimum-norm choice"
            )
        resid = np.linalg.norm(A @ O - rhs)
        scale = max(np.linalg.norm(rhs), np.linalg.norm(A) * np.linalg.norm(O), 1e-300)
        if resid > rtol * scale + 1e-300:
            raise ArgumentError(
                f"center_of_stiffness: points, directions: no frame cancels the "
                f"force-rotation coupling of this strut geometry (residual {resid:.3g}); "
                "pass exact=False for the minimum-coupling origin"
            )
    return O


@dataclass
class StiffnessConditions:
    """Block structure of ``K_K = J_K^T diag(k) J_K`` and its diagonality conditions.

    Attributes
    ----------
    K : numpy.ndarray
        Full stiffness matrix in the frame.
    translational, coupling, rotational : numpy.ndarray
        Blocks ``sum k s s^T``, ``sum k s (b x s)^T`` and ``sum k (b x s)(b x s)^T``.
    translational_diagonal, no_coupling, rotational_diagonal : bool
        Conditions (1), (3) and (2) of the seed's section 5 (numbered as in its equations).
    diagonal : bool
        All three hold.
    """

    K: np.ndarray
    translational: np.ndarray
    coupling: np.ndarray
    rotational: np.ndarray
    translational_diagonal: bool
    no_coupling: bool
    rotational_diagonal: bool

    @property
    def diagonal(self) -> bool:
        """True when the stiffness matrix is diagonal."""
        return self.translational_diagonal and self.no_coupling and self.rotational_diagonal


def diagonal_stiffness_conditions(points, directions, stiffness, origin=None, *, rtol=1e-9):
    """Evaluate the diagonal-stiffness conditions in the frame at ``origin``.

    Examples
    --------
    >>> c = diagonal_stiffness_conditions([[-1, 0.5], [-2, -1], [0, -1]],
    ...                                   [[1, 0], [0, 1], [0, 1]], [5, 1, 2],
    ...                                   origin=[-2 / 3, 0.5])
    >>> c.diagonal, c.K.diagonal().round(4)
    (True, array([5.    , 3.    , 2.6667]))
    """
    b, s, k = _geometry(points, directions, stiffness, "diagonal_stiffness_conditions")
    J = line_jacobian(b, s, origin)
    K = stiffness_matrix(J, k)
    d = b.shape[1]
    T, Cp, R = K[:d, :d], K[:d, d:], K[d:, d:]
    scale = np.abs(K).max(initial=0.0)
    return StiffnessConditions(
        K=K,
        translational=T,
        coupling=Cp,
        rotational=R,
        translational_diagonal=is_diagonal(T, rtol=rtol * scale / max(np.abs(T).max(), 1e-300)),
        no_coupling=bool(np.abs(Cp).max(initial=0.0) <= rtol * scale),
        rotational_diagonal=is_diagonal(R, rtol=rtol * scale / max(np.abs(R).max(), 1e-300)),
    )


def leg_mass_conditions(points, directions, leg_masses, mass_matrix, *, rtol=1e-9):
    """Conditions for a diagonal mass matrix in the legs' frame (seed 004, section 6.3).

    ``M_L = J^{-T} M J^{-1}`` equals ``diag(m_i)`` exactly when ``J^T diag(m_i) J = M``,
    i.e. (blocks as in :func:`diagonal_stiffness_conditions`)
    ``sum m_i s_i s_i^T = m I``, ``sum m_i s_i (b_i x s_i)^T = 0`` and
    ``sum m_i (b_i x s_i)(b_i x s_i)^T = diag(I_x, I_y, I_z)``.

    Parameters
    ----------
    points, directions : array_like ``(n, 2)`` or ``(n, 3)``
        Leg attachment points in the centre-of-mass frame {M}, and directions.
    leg_masses : array_like ``(n,)``
        Candidate diagonal ``M_L``.
    mass_matrix : array_like
        Rigid-body mass matrix in {M} (``diag(m, m, I)`` or ``diag(m, m, m, Ix, Iy, Iz)``).

    Returns
    -------
    StiffnessConditions
        The blocks of ``J^T diag(m_i) J`` (in the ``K``/block fields) and whether each block
        equals the corresponding block of ``mass_matrix``; ``.diagonal`` is True when
        ``M_L = diag(leg_masses)``.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.sqrt(1.0 / 10.0)                    # I = m a^2
    >>> c = leg_mass_conditions([[0, 0], [-a, -1], [a, -1]], [[1, 0], [0, 1], [0, 1]],
    ...                         [10.0, 5.0, 5.0], np.diag([10.0, 10.0, 1.0]))
    >>> c.diagonal
    True
    """
    b, s, mvec = _geometry(points, directions, leg_masses, "leg_mass_conditions", "leg_masses")
    J = line_jacobian(b, s)
    X = stiffness_matrix(J, mvec)
    Mm = np.asarray(mass_matrix, dtype=float)
    if Mm.shape != X.shape:
        raise DimensionError(f"mass_matrix must be {X.shape}, got {Mm.shape}")
    d = b.shape[1]
    scale = max(np.abs(Mm).max(), 1e-300)

    def same(A, B):
        return bool(np.abs(A - B).max(initial=0.0) <= rtol * scale)

    return StiffnessConditions(
        K=X,
        translational=X[:d, :d],
        coupling=X[:d, d:],
        rotational=X[d:, d:],
        translational_diagonal=same(X[:d, :d], Mm[:d, :d]),
        no_coupling=same(X[:d, d:], Mm[:d, d:]),
        rotational_diagonal=same(X[d:, d:], Mm[d:, d:]),
    )


def legs_frame_matrices(J, M, K=None, C=None):
    """Mass, stiffness and damping seen in the legs' frame: ``X_L = J^{-T} X J^{-1}``.

    Parameters
    ----------
    J : array_like ``(n, n)``
        Square, nonsingular strut Jacobian at the frame where ``M``, ``K``, ``C`` are
        expressed.
    M, K, C : array_like ``(n, n)``
        ``M`` symmetric positive definite; ``K`` and ``C`` (optional) symmetric, ``C``
        positive semidefinite.

    Returns
    -------
    tuple
        ``(M_L, K_L, C_L)`` with ``None`` for the matrices not given. When
        ``K = J^T diag(k) J``, ``K_L = diag(k)``.

    Examples
    --------
    >>> import numpy as np
    >>> J = np.array([[1.0, 0, 1.7], [0, 1, -0.5], [0, 1, 0.5]])
    >>> ML, KL, _ = legs_frame_matrices(J, np.diag([400.0, 400, 115]),
    ...                                 J.T @ (15e3 * J))
    >>> ML.round(0)
    array([[  400.,   680.,  -680.],
           [  680.,  1371., -1171.],
           [ -680., -1171.,  1371.]])
    """
    J = np.asarray(J, dtype=float)
    if J.ndim != 2 or J.shape[0] != J.shape[1]:
        raise DimensionError(f"legs_frame_matrices needs a square Jacobian, got {J.shape}")
    where = "legs_frame_matrices: "
    _finite(J, "J", where)
    n = J.shape[0]
    mats = {}
    for name, X in (("M", M), ("K", K), ("C", C)):
        if X is None:
            continue
        X = np.asarray(X, dtype=float)
        if X.shape != (n, n):
            raise DimensionError(f"{where}{name} must be {n}x{n}, got shape {X.shape}")
        mats[name] = _finite(X, name, where)
    _check_mechanical_matrices(mats["M"], mats.get("K"), mats.get("C"), where=where)
    rank = int(np.linalg.matrix_rank(J))
    if rank < n:
        raise ArgumentError(
            f"{where}J is singular (rank {rank} < {n}): the struts do not define coordinates "
            "of the frame, so there is no legs' frame"
        )
    Ji = np.linalg.inv(J)

    def tr(X):
        return None if X is None else Ji.T @ X @ Ji

    return tr(mats["M"]), tr(mats.get("K")), tr(mats.get("C"))


def frame_change(X, J_from, J_to) -> np.ndarray:
    """Express a mass, stiffness or damping matrix in another frame.

    Returns ``J_to^T J_from^{-T} X J_from^{-1} J_to``, where ``J_from`` and ``J_to`` are the
    Jacobians of the same struts in the two frames.

    Raises
    ------
    ArgumentError
        ``J_from`` has rank below its number of columns (the struts do not fix the frame
        coordinates), or ``J_to`` is not ``J_from`` times a change of coordinates
        (detectable when there are more struts than coordinates).
    DimensionError
        Shapes of ``J_from``, ``J_to`` and ``X`` do not agree.

    Examples
    --------
    >>> import numpy as np
    >>> JM = np.array([[1.0, 0, 1.7], [0, 1, -0.5], [0, 1, 0.5]])
    >>> JK = np.array([[1.0, 0, 0], [0, 1, -0.5], [0, 1, 0.5]])
    >>> frame_change(np.diag([400.0, 400, 115]), JM, JK).round(6) + 0.0
    array([[ 400.,    0., -680.],
           [   0.,  400.,    0.],
           [-680.,    0., 1271.]])
    """
    where = "frame_change: "
    J_from = _finite(J_from, "J_from", where)
    J_to = _finite(J_to, "J_to", where)
    X = _finite(X, "X", where)
    if J_from.ndim != 2 or J_from.shape != J_to.shape:
        raise DimensionError(
            f"{where}J_from {J_from.shape} and J_to {J_to.shape} must be (n, d) matrices "
            "of the same shape"
        )
    d = J_from.shape[1]
    if X.shape != (d, d):
        raise DimensionError(f"{where}X must be {d}x{d} (the frame coordinates), got {X.shape}")
    rank = int(np.linalg.matrix_rank(J_from))
    if rank < d:
        # the least-squares map would be the minimum-norm one, not the frame change
        raise ArgumentError(
            f"{where}J_from has rank {rank} < {d}: the struts do not determine the {d} "
            "frame coordinates, so the change of frame cannot be recovered from them"
        )
    # J_from^{-1} J_to (least squares for redundant struts: the frame map is exact anyway)
    P = np.linalg.lstsq(J_from, J_to, rcond=None)[0]
    resid = float(np.linalg.norm(J_from @ P - J_to))
    if resid > 1e-8 * max(float(np.linalg.norm(J_to)), 1.0):
        raise ArgumentError(
            f"{where}J_to is not J_from seen from another frame (no coordinate change "
            f"maps one onto the other, residual {resid:.3g}): give the Jacobians of the "
            "same struts"
        )
    return P.T @ X @ P
