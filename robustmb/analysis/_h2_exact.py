"""The H2 norm of a small stored realisation in exact rational arithmetic.

For poles that coalesce close to the boundary (identical lightly damped modes in
series) neither the modal sum nor a Gramian refined in double-double reaches rounding
level: the Lyapunov operator's condition number exceeds ``1 / eps``.  The matrices are
dyadic rationals, so the Lyapunov equation can be solved without any rounding: with
``A = M / 2^k``, ``B = B' / 2^b`` (``M``, ``B'`` integer, see
:func:`.exact_stability.integer_matrix`) and ``P = 2^k X / 4^b``,

    continuous:  M X + X M^T = -B' B'^T,
    discrete:    M X M^T - 4^k X = -B' B'^T   (with ``P = 4^k X / 4^b``),

an integer linear system in the ``n (n + 1) / 2`` entries of the symmetric ``X``,
solved by fraction-free (Bareiss) elimination and exact back substitution.  Then
``||G||_2^2 - ||D||_F^2 = trace(C P C^T)`` is a fraction, rounded once to a float.  The
cost grows like ``n^6`` (the system has ``n^2 / 2`` unknowns), so the caller limits it to
a few states.
"""

from __future__ import annotations

from fractions import Fraction

from robustmb.analysis.exact_stability import integer_matrix

__all__ = ["EXACT_H2_MAX_ORDER", "exact_h2_squared"]

# Largest order solved exactly: 36 unknowns, 0.07-0.3 s at 8 states on a loaded machine
# (benchmarks/bench_exact_stability.py), a few ms at 6.
EXACT_H2_MAX_ORDER = 8


def exact_h2_squared(A, B, C, discrete=False):
    """``trace(C P C^T)`` with ``P`` the exact Gramian of the stored real ``(A, B)``.

    Parameters
    ----------
    A, B, C : numpy.ndarray
        Real, finite state-space matrices with ``A`` stable (continuous: open left
        half-plane; discrete: open unit disc), so that the Gramian is unique.
    discrete : bool, optional
        Solve ``A P A^T - P + B B^T = 0`` instead of ``A P + P A^T + B B^T = 0``.

    Returns
    -------
    fractions.Fraction or None
        The exact value for the stored matrices; None when the linear system is
        singular (``A`` not stable).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.0, 1.0], [-1.0, -0.5]])       # 1 / (s^2 + 0.5 s + 1)
    >>> exact_h2_squared(A, np.array([[0.0], [1.0]]), np.array([[1.0, 0.0]]))
    Fraction(1, 1)
    """
    n = A.shape[0]
    M, k = integer_matrix(A)
    Bi, b = integer_matrix(B)
    Ci, c = integer_matrix(C)
    index = {}
    for i in range(n):
        for j in range(i, n):
            index[(i, j)] = len(index)
    unknowns = len(index)

    def at(i, j):
        return index[(i, j)] if i <= j else index[(j, i)]

    rows = []
    for i, j in index:
        row = [0] * (unknowns + 1)
        if discrete:
            # (M X M^T)_ij = sum_{p, q} M_ip X_pq M_jq
            for p in range(n):
                if M[i][p]:
                    for q in range(n):
                        if M[j][q]:
                            row[at(p, q)] += M[i][p] * M[j][q]
            row[at(i, j)] -= 1 << (2 * k)
        else:
            for p in range(n):
                row[at(p, j)] += M[i][p]
                row[at(i, p)] += M[j][p]
        row[unknowns] = -sum(x * y for x, y in zip(Bi[i], Bi[j], strict=True))
        rows.append(row)
    solutions = bareiss_solve(rows, unknowns)
    if solutions is None:
        return None
    X = solutions[0]
    weights = {}
    for r in range(len(Ci)):
        for i in range(n):
            for j in range(n):
                if Ci[r][i] and Ci[r][j]:
                    weights[at(i, j)] = weights.get(at(i, j), 0) + Ci[r][i] * Ci[r][j]
    total = sum((w * X[u] for u, w in weights.items()), Fraction(0))
    scale = Fraction(1 << (2 * k if discrete else k), 1 << (2 * (b + c)))
    return total * scale


def bareiss_solve(rows, size, nrhs=1):
    """Solutions of the integer system ``rows`` (augmented ``size x (size + nrhs)``, one
    column per right-hand side) as fractions, ``[x_1, ..., x_nrhs]``, or None if
    singular: fraction-free elimination (every division exact), then back substitution.
    """
    width = size + nrhs
    previous = 1
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r][col] != 0), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        top = rows[col]
        p = top[col]
        for r in range(col + 1, size):
            row = rows[r]
            f = row[col]
            # Bareiss step: the division by the previous pivot is exact
            rows[r] = [
                (p * row[j] - f * top[j]) // previous if j > col else 0 for j in range(width)
            ]
        previous = p
    solutions = []
    for k in range(size, width):
        x = [Fraction(0)] * size
        for r in range(size - 1, -1, -1):
            row = rows[r]
            s = Fraction(row[k]) - sum(
                (row[j] * x[j] for j in range(r + 1, size) if row[j]), Fraction(0)
            )
            x[r] = s / row[r]
        solutions.append(x)
    return solutions
