"""Slow/fast separation of a realisation by an exact-model similarity transform.

A loop whose eigenvalues fall into clusters of very different modulus (a weight's
near-integrator at ``-1e-6``, the controller's copy of it, controller poles near
``-3e4``) has a low-frequency response whose rounding error in one decomposition of the
whole ``A`` is of order ``eps ||A|| / |lambda_slow|``, and the nearly cancelling slow pair
amplifies it further.  Decoupling the clusters first -- ordered real Schur form, then the
Sylvester equation ``T11 X - X T22 = -T12`` for the coupling block -- lets each cluster be
evaluated on its own scale; the model is unchanged (a similarity transform only).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["separated_blocks"]

# Smallest ratio between consecutive eigenvalue moduli at which the spectrum is split.
SEPARATION_GAP = 1e3
# Largest entry of the Sylvester solution X accepted: the transform [[I, X], [0, I]] has
# condition number about (1 + ||X||)^2; beyond this the split is ill conditioned.
SEPARATION_XMAX = 1e8


def separated_blocks(
    A, B, C, *, gap=SEPARATION_GAP, xmax=SEPARATION_XMAX, depth=4, eigenvalues=None
):
    """Split ``(A, B, C)`` into decoupled blocks ``[(A_i, B_i, C_i)]`` by eigenvalue modulus.

    ``C (sI - A)^{-1} B = sum_i C_i (sI - A_i)^{-1} B_i`` exactly (in exact arithmetic):
    ``A`` is brought to ordered real (or complex) Schur form with the eigenvalues below
    the cut first, and the coupling block is removed by ``[[I, X], [0, I]]``.  The cut is
    placed at the largest ratio between consecutive moduli when it is at least ``gap``
    (a zero eigenvalue next to a nonzero one counts as an infinite ratio); each block is
    split again, up to ``depth`` levels.  No split is made (a single block, the input
    itself) when there is no such gap, the reordering fails, or ``max |X| > xmax``.

    Parameters
    ----------
    A, B, C : numpy.ndarray
        State-space matrices (real or complex).
    gap : float, optional
        Smallest ratio of consecutive eigenvalue moduli that is split.
    xmax : float, optional
        Largest accepted entry of the Sylvester solution (transform conditioning).
    depth : int, optional
        Largest number of nested splits.
    eigenvalues : numpy.ndarray, optional
        Eigenvalues of ``A`` when already known (saves one eigenvalue computation).

    Returns
    -------
    list of tuple
        Blocks ``(A_i, B_i, C_i)``, slowest first.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[-1e-6, 1.0], [0.0, -1e4]])
    >>> B, C = np.array([[0.0], [1.0]]), np.array([[1.0, 1.0]])
    >>> blocks = separated_blocks(A, B, C)
    >>> len(blocks)
    2
    >>> s = 1e-3j
    >>> G = sum((c @ np.linalg.solve(s * np.eye(len(a)) - a, b))[0, 0] for a, b, c in blocks)
    >>> bool(np.isclose(G, (C @ np.linalg.solve(s * np.eye(2) - A, B))[0, 0], rtol=1e-12))
    True
    """
    A, B, C = np.asarray(A), np.asarray(B), np.asarray(C)
    n = A.shape[0]
    if n < 2 or depth <= 0 or not np.all(np.isfinite(A)):
        return [(A, B, C)]
    try:
        mods = np.sort(np.abs(np.linalg.eigvals(A) if eigenvalues is None else eigenvalues))
    except np.linalg.LinAlgError:
        return [(A, B, C)]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(mods[:-1] > 0, mods[1:] / np.where(mods[:-1] > 0, mods[:-1], 1.0),
                          np.where(mods[1:] > 0, np.inf, 1.0))  # fmt: skip
    j = int(np.argmax(ratios))
    if not ratios[j] >= gap:
        return [(A, B, C)]
    cut = float(np.sqrt(mods[j] * mods[j + 1])) if mods[j] > 0 else mods[j + 1] / np.sqrt(gap)
    complex_case = np.iscomplexobj(A)
    try:
        if complex_case:
            T, Z, k = scipy.linalg.schur(A, output="complex", sort=lambda x: abs(x) < cut)
        else:
            T, Z, k = scipy.linalg.schur(A, output="real", sort=lambda x, y: np.hypot(x, y) < cut)
        if k in (0, n):
            return [(A, B, C)]
        X = scipy.linalg.solve_sylvester(T[:k, :k], -T[k:, k:], -T[:k, k:])
    except (np.linalg.LinAlgError, ValueError):  # reordering or solve failed
        return [(A, B, C)]
    if not np.all(np.isfinite(X)) or np.abs(X).max() > xmax:
        return [(A, B, C)]
    # x = Z W xi with W = [[I, X], [0, I]]:  W^-1 T W = diag(T11, T22).
    ZhB = Z.conj().T @ B
    CZ = C @ Z
    B1, B2 = ZhB[:k] - X @ ZhB[k:], ZhB[k:]
    C1, C2 = CZ[:, :k], CZ[:, :k] @ X + CZ[:, k:]
    return separated_blocks(T[:k, :k], B1, C1, gap=gap, xmax=xmax, depth=depth - 1) + (
        separated_blocks(T[k:, k:], B2, C2, gap=gap, xmax=xmax, depth=depth - 1)
    )
