"""Interaction measures: Gershgorin ratios, relative gain array, RGA-numbers.

All functions take one matrix, an ``(nw, n, n)`` stack of matrices, or an LTI system
together with ``omega`` (rad/s), and are vectorised over the stack.
"""

from __future__ import annotations

import numpy as np

from robustmb.decoupling.plant_data import as_matrix_stack, evaluate
from robustmb.errors import ArgumentError, DimensionError

__all__ = [
    "gershgorin_ratios",
    "rga",
    "rga_number",
    "rga_abs_sum_minus_n",
]


def _stack(G, omega):
    H = evaluate(G, omega)
    S, single = as_matrix_stack(H)
    if not np.all(np.isfinite(S)):
        raise ArgumentError("the plant G (its frequency response) contains non-finite values")
    return S, single


def _unstack(X, single):
    return X[0] if single else X


def gershgorin_ratios(G, *, omega=None, axis="rows"):
    """Gershgorin radius of each row (or column) divided by the diagonal element.

    For row ``i``: ``zeta_i = sum_{j != i} |G_ij| / |G_ii|``. Row ``i`` is diagonally
    dominant when ``zeta_i < 1``.

    Parameters
    ----------
    G : array_like ``(p, m)`` or ``(nw, p, m)``, or LTI system
        The plant. A non-square ``p x m`` matrix gives ``min(p, m)`` ratios: for row ``i``
        the sum runs over all ``m`` columns except ``i`` (this is how the gravimeter's
        ``4 x 3`` accelerometer plant is judged, its 4th row being ignored).
    omega : array_like, optional
        Frequencies (rad/s), required when ``G`` is an LTI system.
    axis : {"rows", "columns"}
        ``"columns"`` gives ``sum_{i != j} |G_ij| / |G_jj|`` for each column ``j``.

    Returns
    -------
    numpy.ndarray
        ``(min(p, m),)`` for one matrix, ``(nw, min(p, m))`` for a stack. A zero diagonal
        element gives ``inf``, also when its off-diagonal sum is zero (an all-zero row):
        the row is then not diagonally dominant, ``sum_{j != i} |G_ij| < |G_ii|`` fails
        (its Gershgorin disc, the point 0, contains the origin), and ``inf`` keeps the
        test ``zeta_i < 1`` and the maximum over a frequency grid meaningful, where
        ``0 / 0`` would give ``nan``.

    Examples
    --------
    >>> import numpy as np
    >>> gershgorin_ratios(np.array([[2.0, 1.0], [-0.5, 1.0]]))
    array([0.5, 0.5])
    >>> gershgorin_ratios(np.array([[2.0, 1.0], [-0.5, 1.0]]), axis="columns")
    array([0.25, 1.  ])
    >>> gershgorin_ratios(np.array([[2.0, 1.0], [0.0, 0.0]]))  # a zero row: not dominant
    array([0.5, inf])
    """
    if axis not in ("rows", "columns"):
        raise ArgumentError(f"axis must be 'rows' or 'columns', got {axis!r}")
    S, single = _stack(G, omega)
    A = np.abs(S)
    if axis == "columns":
        A = np.swapaxes(A, -1, -2)
    k = min(A.shape[-2], A.shape[-1])
    diag = np.diagonal(A, axis1=-2, axis2=-1)[..., :k]
    # the off-diagonal entries summed on their own: the row sum minus the diagonal
    # would lose a small coupling beside a large diagonal entry to cancellation
    rows = A[..., :k, :].copy()
    idx = np.arange(k)
    rows[..., idx, idx] = 0.0
    off = rows.sum(axis=-1)
    with np.errstate(divide="ignore"):
        ratio = off / np.where(diag > 0, diag, 1.0)
    ratio = np.where(diag > 0, ratio, np.inf)  # a zero diagonal (and a zero row): inf
    return _unstack(ratio, single)


def _square(S, what):
    if S.shape[-1] != S.shape[-2]:
        raise DimensionError(
            f"{what} needs a square plant, got {S.shape[-2]} outputs x {S.shape[-1]} inputs"
        )


def rga(G, *, omega=None, generalized=False):
    """Relative gain array ``Lambda = G .* (G^{-1})^T`` (element-wise product).

    Parameters
    ----------
    G : array_like ``(n, n)`` or ``(nw, n, n)``, or LTI system
        Square real or complex matrix, stack of matrices, or system evaluated on ``omega``.
    omega : array_like, optional
        Frequencies (rad/s), required when ``G`` is an LTI system.
    generalized : bool
        Allow a non-square plant, using the pseudo-inverse (the generalised RGA
        ``G .* pinv(G)^T``).

    Returns
    -------
    numpy.ndarray
        Same shape as the evaluated plant. Rows and columns of the RGA of a nonsingular
        square matrix sum to one.

    Raises
    ------
    DimensionError
        Non-square plant without ``generalized=True``.
    ArgumentError
        A singular matrix (its index in the stack is named).

    Examples
    --------
    >>> import numpy as np
    >>> rga(np.array([[1.0, 1.0], [0.4, -0.1]]))
    array([[0.2, 0.8],
           [0.8, 0.2]])
    """
    S, single = _stack(G, omega)
    if generalized:
        Ginv = np.linalg.pinv(S)
    else:
        _square(S, "the RGA")
        Ginv = _checked_inverse(S)
    L = S * np.swapaxes(Ginv, -1, -2)
    return _unstack(L, single)


def _checked_inverse(S):
    try:
        return np.linalg.inv(S)
    except np.linalg.LinAlgError:
        bad = [k for k in range(S.shape[0]) if np.linalg.matrix_rank(S[k]) < S.shape[-1]]
        raise ArgumentError(
            f"rga: the plant G is singular at stack index/indices {bad[:10]}; the RGA is "
            "undefined there (generalized=True uses the pseudo-inverse)"
        ) from None


def rga_number(G, *, omega=None):
    """RGA-number ``||Lambda(G) - I||_sum = sum_ij |Lambda_ij - delta_ij|``.

    This is the standard definition (Skogestad & Postlethwaite); it is zero exactly when
    the RGA is the identity. See :func:`rga_abs_sum_minus_n` for the variant plotted by the
    decoupling study's code.

    Parameters
    ----------
    G : array_like ``(n, n)`` or ``(nw, n, n)``, or LTI system
    omega : array_like, optional
        Frequencies (rad/s), required when ``G`` is an LTI system.

    Returns
    -------
    float or numpy.ndarray ``(nw,)``

    Examples
    --------
    >>> import numpy as np
    >>> round(float(rga_number(np.array([[1.0, 1.0], [0.4, -0.1]]))), 12)
    3.2
    """
    S, single = _stack(G, omega)
    L = rga(S)
    n = S.shape[-1]
    val = np.abs(L - np.eye(n)).sum(axis=(-2, -1))
    return float(val[0]) if single else val


def rga_abs_sum_minus_n(G, *, omega=None):
    """The quantity ``sum_ij |Lambda_ij| - n`` (the "RGA-number" curve of Dehaeze's code).

    It is *not* the RGA-number :func:`rga_number`. Since every row of the RGA sums to one,
    ``sum_j |Lambda_ij| >= 1`` and this quantity is ``>= 0``, with equality whenever all
    RGA entries are real and non-negative, however far the RGA is from the identity (the
    blending plant below is an example). Near resonances the two measures can differ by
    orders of magnitude. It is provided only to reproduce the decoupling study's
    Figure 11 (seed 004, digest section 3.5).

    Parameters
    ----------
    G : array_like ``(n, n)`` or ``(nw, n, n)``, or LTI system
    omega : array_like, optional

    Returns
    -------
    float or numpy.ndarray ``(nw,)``

    Examples
    --------
    >>> import numpy as np
    >>> round(float(rga_abs_sum_minus_n(np.array([[1.0, 1.0], [0.4, -0.1]]))), 12)
    0.0
    """
    S, single = _stack(G, omega)
    L = rga(S)
    val = np.abs(L).sum(axis=(-2, -1)) - S.shape[-1]
    return float(val[0]) if single else val
