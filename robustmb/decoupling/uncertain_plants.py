"""Mechanical plants with uncertain geometry or stiffness, as exact LFTs.

The equations ``M q'' = f``, ``f = W [q; q'; u]`` with ``W = [-K, -C, F]`` are an upper LFT
of a nominal double integrator closed by the (uncertain) static matrix ``W``. Each
uncertain element therefore appears only as often as it appears in ``K``, ``C`` and ``F``,
and :func:`robustmb.simplify` removes the remaining redundancy. The mass matrix and the
sensor matrix are numeric.
"""

from __future__ import annotations

import numbers

import control
import numpy as np

from robustmb.decoupling.geometry import normalize_directions
from robustmb.decoupling.plant_data import is_uncertain, numeric_array
from robustmb.decoupling.second_order import _KINDS
from robustmb.errors import ArgumentError, DimensionError, UncertainTypeError

__all__ = [
    "uncertain_line_jacobian",
    "uncertain_mechanical_plant",
]


def _lft():
    import robustmb.lft as lft

    return lft


def _is_number(x):
    return isinstance(x, numbers.Real | np.floating | np.integer)


def _scaled(coef, x):
    """``coef * x`` that drops exact zeros so that they add no uncertainty occurrences."""
    if _is_number(coef) and float(coef) == 0.0:
        return 0.0
    if _is_number(x) and float(x) == 0.0:
        return 0.0
    return coef * x


def _sum(*terms):
    out = 0.0
    for t in terms:
        if _is_number(t) and float(t) == 0.0:
            continue
        out = t if (_is_number(out) and float(out) == 0.0) else out + t
    return out


def _matrix(rows):
    """numpy array when every entry is a number, otherwise an uncertain matrix."""
    if all(_is_number(e) for r in rows for e in r):
        return np.array(rows, dtype=float)
    return _lft().umat([[e if not _is_number(e) else float(e) for e in r] for r in rows])


def uncertain_line_jacobian(points, directions, origin=None):
    """Jacobian of line elements whose attachment points may be uncertain.

    Same rows as :func:`robustmb.decoupling.geometry.line_jacobian`: planar
    ``[s_x, s_y, b_x s_y - b_y s_x]``, spatial ``[s^T, (b x s)^T]``. The directions are
    numeric; points (and ``origin``) may hold :func:`robustmb.ureal` elements or
    expressions of them.

    Returns
    -------
    numpy.ndarray or robustmb.UncertainMatrix

    Examples
    --------
    >>> import robustmb as rmb
    >>> ha = rmb.ureal("ha", 0.85, percent=10)
    >>> J = uncertain_line_jacobian([[-0.5, -ha]], [[1.0, 0.0]])
    >>> J.shape, J.blocks
    ((1, 3), {'ha': 1})
    >>> float(J.usubs({"ha": 0.8})[0, 2])
    0.8
    """
    s = normalize_directions(directions, what="uncertain_line_jacobian: directions:")
    pts = [list(p) for p in points]
    if len(pts) != s.shape[0] or any(len(p) != s.shape[1] for p in pts):
        raise DimensionError(
            f"{len(pts)} points of {[len(p) for p in pts]} coordinates do not match "
            f"directions of shape {s.shape}"
        )
    d = s.shape[1]
    if d not in (2, 3):
        raise DimensionError(f"coordinates must be 2-D or 3-D, got {d}")
    if origin is not None:
        o = list(origin)
        if len(o) != d:
            raise DimensionError(
                f"uncertain_line_jacobian: origin must have {d} coordinates, got {len(o)}"
            )
        pts = [[_sum(p[j], _scaled(-1.0, o[j])) for j in range(d)] for p in pts]
    rows = []
    for b, si in zip(pts, s, strict=True):
        if d == 2:
            arm = _sum(_scaled(si[1], b[0]), _scaled(-si[0], b[1]))
            rows.append([si[0], si[1], arm])
        else:
            cross = [
                _sum(_scaled(si[2], b[1]), _scaled(-si[1], b[2])),
                _sum(_scaled(si[0], b[2]), _scaled(-si[2], b[0])),
                _sum(_scaled(si[1], b[0]), _scaled(-si[0], b[1])),
            ]
            rows.append([*si, *cross])
    return _matrix(rows)


def _as_model_or_array(X, name):
    if X is None:
        return None
    if is_uncertain(X):
        if getattr(X, "is_system", False):
            raise UncertainTypeError(f"{name} must be a static (uncertain) matrix, not a system")
        return X
    A = np.asarray(X)
    if A.dtype == object:
        return _lft().umat(X)
    return A.astype(float)


def uncertain_mechanical_plant(
    M,
    K,
    C=None,
    *,
    input_matrix,
    output_matrix,
    output_kind="position",
    input_names=None,
    output_names=None,
    simplify=True,
):
    """Uncertain state space of ``M q'' + C q' + K q = F u``, ``y = S q^(k)``.

    Parameters
    ----------
    M : array_like ``(n, n)``
        Numeric, nonsingular mass matrix.
    K, C : array_like or uncertain matrix ``(n, n)``
        Stiffness and damping (``C`` optional); may be uncertain.
    input_matrix : array_like or uncertain matrix ``(n, m)``
        ``F`` (for struts ``J^T``); may be uncertain.
    output_matrix : array_like ``(p, n)``
        Numeric ``S``.
    output_kind : {"position", "velocity", "acceleration"}
    input_names, output_names : list of str, optional
    simplify : bool
        Apply :func:`robustmb.simplify` (fewer repetitions of each element).

    Returns
    -------
    robustmb.UncertainSystem
        ``2 n`` states; substituting the elements gives the same model as
        :class:`~robustmb.decoupling.second_order.SecondOrderSystem`.

    Examples
    --------
    >>> import numpy as np, robustmb as rmb
    >>> k = rmb.ureal("k", 4.0, percent=25)
    >>> G = uncertain_mechanical_plant(np.eye(1), rmb.umat([[k]]), input_matrix=[[1.0]],
    ...                                output_matrix=[[1.0]])
    >>> float(G.usubs({"k": 5.0}).dcgain())
    0.2
    """
    lft = _lft()
    where = "uncertain_mechanical_plant: "
    M = np.atleast_2d(numeric_array(M, "M", where).astype(float))
    n = M.shape[0]
    if M.shape != (n, n) or np.linalg.matrix_rank(M) < n:
        raise ArgumentError(f"M must be a nonsingular square matrix, got shape {M.shape}")
    Kx = _as_model_or_array(K, "K")
    Cx = _as_model_or_array(C, "C") if C is not None else np.zeros((n, n))
    Fx = _as_model_or_array(input_matrix, "input_matrix")
    for name, X, shape in (("K", Kx, (n, n)), ("C", Cx, (n, n))):
        if tuple(X.shape) != shape:
            raise DimensionError(f"{name} must be {shape}, got {tuple(X.shape)}")
    if Fx.shape[0] != n:
        raise DimensionError(f"input_matrix must have {n} rows, got {tuple(Fx.shape)}")
    m = Fx.shape[1]
    S = np.atleast_2d(numeric_array(output_matrix, "output_matrix", where).astype(float))
    if S.shape[1] != n:
        raise DimensionError(f"output_matrix must have {n} columns, got {S.shape}")
    if output_kind not in _KINDS:
        raise ArgumentError(f"output_kind must be one of {sorted(_KINDS)}, got {output_kind!r}")
    p = S.shape[0]
    Mi = np.linalg.inv(M)
    # nominal double integrator N: inputs [f; u], outputs [q; v; u; y]
    Z = np.zeros
    A = np.block([[Z((n, n)), np.eye(n)], [Z((n, n)), Z((n, n))]])
    B = np.block([[Z((n, n)), Z((n, m))], [Mi, Z((n, m))]])
    Cy = {0: np.hstack([S, Z((p, n))]), 1: np.hstack([Z((p, n)), S]), 2: Z((p, 2 * n))}
    Dy = {0: Z((p, n + m)), 1: Z((p, n + m)), 2: np.hstack([S @ Mi, Z((p, m))])}
    order = _KINDS[output_kind]
    Cn = np.vstack([np.eye(2 * n), Z((m, 2 * n)), Cy[order]])
    Dn = np.vstack([Z((2 * n, n + m)), np.hstack([Z((m, n)), np.eye(m)]), Dy[order]])
    N = control.ss(A, B, Cn, Dn)
    W = lft.hstack(-1.0 * Kx, -1.0 * Cx, Fx)
    if not is_uncertain(W):
        W = lft.umat(np.asarray(W, dtype=float))
    G = lft.lft_upper(N, W)
    if simplify and G.blocks:
        G = lft.simplify(G)
    G = lft.uss(G) if not getattr(G, "is_system", True) else G
    if input_names is not None:
        G.input_names = list(input_names)
    if output_names is not None:
        G.output_names = list(output_names)
    return G
