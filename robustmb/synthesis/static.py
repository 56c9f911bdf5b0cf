"""Synthesis on plants without states: the closed loop is the matrix ``D11 + D12 Q D21``.

For a static generalised plant (``n = 0``) every controller ``K(s)`` gives
``Fl(P, K)(s) = D11 + D12 Q(s) D21`` with ``Q = K (I - D22 K)^-1``, so both problems
reduce to matrix problems in ``Q`` (a constant ``Q`` is optimal, ``K = Q (I + D22 Q)^-1``):

- H-infinity: ``min_Q sigma_max(D11 + D12 Q D21)``.  In the bases of the singular vectors
  of ``D12`` and ``D21`` this is the completion of ``[[R11 + X, R12], [R21, R22]]`` with a
  free block ``X``; its optimum is Parrott's bound ``max(||[R21, R22]||, ||[R12; R22]||)``
  (Davis, Kahan & Weinberger 1982), the same bound for dynamic controllers since it holds
  at every frequency.  The completion used is the central one,
  ``R11 + X = -R12 (g^2 I - R22' R22)^-1 R22' R21``, at levels ``g`` at and just above
  the bound, and the best verified one is kept.  When it cannot be realised
  (``I + D22 Q`` singular or ill-conditioned), other optimal ``Q`` are tried: the
  non-central completions ``X = -K R22' L + g (I - K K')^1/2 W (I - L' L)^1/2``,
  ``||W|| <= 1``, with ``R12 = K (g^2 I - R22' R22)^1/2`` and
  ``R21 = (g^2 I - R22 R22')^1/2 L`` (all the completions of norm at most ``g``, Davis,
  Kahan & Weinberger 1982), ``Q = 0``, and terms in the null spaces of ``D12`` and of
  ``D21'`` that leave ``D11 + D12 Q D21`` unchanged.
- H2, continuous time: finite only when ``D11 + D12 Q D21 = 0`` has a solution (then the
  optimum is 0); discrete time: the H2 norm of a static system is the Frobenius norm of its
  matrix, minimised by the least-squares ``Q = -D12^+ D11 D21^+``; the same null-space
  terms give the other minimisers when ``I + D22 Q`` is singular for that one.
"""

from __future__ import annotations

import control
import numpy as np

from robustmb.errors import IllPosedError

from .plant import Plant, closed_loop, shift_back

__all__ = ["static_h2", "static_hinf"]

# Relative tolerance of the ranks of D12 and D21.
_RANK_TOL = 1e-12
# Largest condition number of I + D22 Q accepted without looking for another optimal Q.
_COND_MAX = 1e6


def _range_basis(M):
    """``(U, s, Vh, r)``: full SVD of ``M`` and its numerical rank."""
    U, s, Vh = np.linalg.svd(M)
    r = int(np.sum(s > _RANK_TOL * s[0])) if s.size and s[0] > 0 else 0
    return U, s, Vh, r


def _controller(plant: Plant, Q):
    """Static controller ``(Ak, Bk, Ck, Dk)`` with zero states for the shifted ``Q``."""
    m2, p2 = Q.shape
    return shift_back((np.zeros((0, 0)), np.zeros((0, p2)), np.zeros((m2, 0)), Q), plant.D22)


def _shifted(plant: Plant, K):
    """``Q = Dk (I - D22 Dk)^-1`` of a static controller ``K``."""
    Dk = K[3]
    if not Dk.size:
        return Dk
    return Dk @ np.linalg.inv(np.eye(plant.D22.shape[0]) - plant.D22 @ Dk)


def _rounding(plant: Plant, Dk) -> float:
    """Bound on the rounding of ``D11 + D12 Dk (I - D22 Dk)^-1 D21`` formed in floating point:
    a few units in the last place of the sizes of its terms."""
    size = np.linalg.norm(plant.D11, 2) if plant.D11.size else 0.0
    if Dk.size and plant.D12.size and plant.D21.size:
        E = np.linalg.inv(np.eye(plant.D22.shape[0]) - plant.D22 @ Dk)
        size += (
            np.linalg.norm(plant.D12, 2) * np.linalg.norm(Dk @ E, 2) * np.linalg.norm(plant.D21, 2)
        )
    dim = sum(plant.D11.shape) + plant.D12.shape[1] + plant.D21.shape[0]
    return 4.0 * dim * np.finfo(float).eps * size


def parrott(D11, D12, D21):
    """``(bound, R, parts)``: Parrott's bound on ``min_Q ||D11 + D12 Q D21||`` and the
    rotated ``R = U12' D11 V21`` with the bases needed to recover ``Q`` from its block."""
    U1, s1, V1h, r1 = _range_basis(D12)
    U2, s2, V2h, r2 = _range_basis(D21)
    R = U1.T @ D11 @ V2h.T
    lower = R[r1:, :]
    right = R[:, r2:]
    bound = 0.0
    for M in (lower, right):
        if M.size:
            bound = max(bound, float(np.linalg.norm(M, 2)))
    return bound, R, (U1, s1, V1h, r1, U2, s2, V2h, r2)


def _loop_cond(plant: Plant, Q) -> float:
    """Condition number of ``I + D22 Q`` (``inf`` when singular): how well ``Q`` is
    realised by ``K = Q (I + D22 Q)^-1``."""
    if not Q.size:
        return 1.0
    with np.errstate(all="ignore"):
        c = np.linalg.cond(np.eye(plant.D22.shape[0]) + plant.D22 @ Q)
    return float(c) if np.isfinite(c) else np.inf


def _null_variants(plant: Plant, Q, parts):
    """``Q + N1 Z1 + Z2 N2'`` with ``D12 N1 = 0`` and ``N2' D21 = 0``: the same closed
    loop ``D11 + D12 Q D21``, another ``I + D22 Q``.  A few fixed (seeded) directions at
    scales around that of the loop, enough for ``det(I + D22 Q)`` not to vanish unless it
    does on the whole family."""
    U1, s1, V1h, r1, U2, s2, V2h, r2 = parts
    N1, N2t = V1h[r1:].T, U2[:, r2:].T
    if not (N1.size or N2t.size):
        return []
    m2, p2 = Q.shape
    rng = np.random.default_rng(0)
    d22 = np.linalg.norm(plant.D22, 2)
    base = max(np.linalg.norm(Q, 2), 1.0 / d22 if d22 > 0 else 1.0)
    out = []
    for scale in (0.5, 1.0, 2.0):
        for sign in (1.0, -1.0):
            E = np.zeros((m2, p2))
            if N1.size:
                E += N1 @ rng.standard_normal((N1.shape[1], p2))
            if N2t.size:
                E += rng.standard_normal((m2, N2t.shape[0])) @ N2t
            out.append(Q + sign * scale * base * E / max(np.linalg.norm(E, 2), 1e-300))
    return out


def _psd_power(M, power):
    """``M^power`` of a symmetric positive semidefinite ``M``; zero on its null space."""
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    keep = w > 1e-14 * max(w.max(initial=0.0), 1e-300)
    wp = np.zeros_like(w)
    wp[keep] = w[keep] ** power
    return (V * wp) @ V.T


def _noncentral_blocks(R12, R21, R22, g, rng):
    """``R11 + X`` of completions of norm at most ``g``: ``-K R22' L`` plus
    ``g (I - K K')^1/2 W (I - L' L)^1/2`` for a few contractions ``W`` (Davis, Kahan &
    Weinberger 1982)."""
    r1, r2 = R12.shape[0], R21.shape[1]
    M = g**2 * np.eye(R22.shape[1]) - R22.T @ R22
    N = g**2 * np.eye(R22.shape[0]) - R22 @ R22.T
    K = R12 @ _psd_power(M, -0.5) if R22.size else R12 / g
    L = _psd_power(N, -0.5) @ R21 if R22.size else R21 / g
    centre = -K @ R22.T @ L if R22.size else np.zeros((r1, r2))
    left = _psd_power(np.eye(r1) - K @ K.T, 0.5)
    right = _psd_power(np.eye(r2) - L.T @ L, 0.5)
    Ws = [np.eye(r1, r2), -np.eye(r1, r2)]
    for _ in range(4):
        W = rng.standard_normal((r1, r2))
        Ws.append(W / np.linalg.norm(W, 2))
    out = []
    for W in Ws:
        for t in (1.0, 0.5):
            out.append(centre + g * left @ (t * W) @ right)
    return out


def _q_of_block(block, R11, parts):
    """``Q`` whose rotated block ``R11 + X`` is ``block``."""
    U1, s1, V1h, r1, U2, s2, V2h, r2 = parts
    X = block - R11
    return V1h[:r1].T @ (X / s1[:r1, None] / s2[None, :r2]) @ U2[:, :r2].T


def _evaluate(plant: Plant, candidates, measure):
    """``(K, cl, value, cond)`` of each realisable candidate ``Q``."""
    out = []
    for Q in candidates:
        c = _loop_cond(plant, Q)
        if not np.isfinite(c):
            continue
        try:
            K = _controller(plant, Q)
            cl = closed_loop(plant, K)
        except (IllPosedError, np.linalg.LinAlgError):
            continue
        value = measure(cl, K)
        if np.isfinite(value):
            out.append((K, cl, value, c))
    return out


def _optimal(plant: Plant, found, optimum):
    """The fallback candidates whose value is the optimum up to the ``1e-6`` of the levels
    tried above the bound and the rounding of their closed loop."""
    return [
        f for f in found if f[2] <= optimum * (1 + 2e-6) + 2 * _rounding(plant, f[0][3]) + 1e-300
    ]


def _choose(found, rel=0.0):
    """The best value; among those within a relative ``rel`` of it, the best conditioned
    loop."""
    if not found:
        return None
    best = min(f[2] for f in found)
    near = [f for f in found if f[2] <= best * (1 + rel)]
    return min(near, key=lambda f: f[3])[:3]


def static_hinf(plant: Plant):
    """Optimal static controller of a plant with no states, H-infinity norm.

    Returns
    -------
    K : tuple
        ``(Ak, Bk, Ck, Dk)`` with zero states.
    cl : control.StateSpace
        The closed loop ``Fl(P, K)`` (a matrix).
    norm : float
        ``sigma_max`` of the closed loop plus a bound on its rounding: an upper bound.
    bound : float
        Parrott's bound, the optimum (valid for dynamic controllers too).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> e = np.zeros((0, 0))
    >>> z = lambda p, m: np.zeros((p, m))
    >>> P = Plant(e, z(0, 2), z(0, 1), z(2, 0), z(1, 0), np.array([[2.0, 0.0], [0.0, 0.0]]),
    ...           np.array([[1.0], [0.0]]), np.array([[0.0, 1.0]]), np.zeros((1, 1)))
    >>> K, cl, norm, bound = static_hinf(P)    # Fl = [[2, Dk], [0, 0]]: optimum 2 at Dk = 0
    >>> bool(abs(norm - 2.0) < 1e-12 and bound == 2.0 and abs(K[3][0, 0]) < 1e-12)
    True
    """
    D11, D12, D21 = plant.D11, plant.D12, plant.D21
    m2, p2 = D12.shape[1], D21.shape[0]
    bound, R, (U1, s1, V1h, r1, U2, s2, V2h, r2) = parrott(D11, D12, D21)
    R11, R12, R21, R22 = R[:r1, :r2], R[:r1, r2:], R[r1:, :r2], R[r1:, r2:]
    parts = (U1, s1, V1h, r1, U2, s2, V2h, r2)
    candidates = []
    if r1 == 0 or r2 == 0:
        candidates.append(np.zeros((m2, p2)))  # Q cannot reach z: any Q is optimal
    else:
        for g in (bound * (1 + d) for d in (0.0, 1e-12, 1e-9, 1e-6)):
            # central completion; pinv covers g = bound with ||R22|| = bound
            M = g**2 * np.eye(R22.shape[1]) - R22.T @ R22
            full = -R12 @ np.linalg.pinv(M, rcond=1e-14) @ R22.T @ R21 if R22.size else 0.0
            candidates.append(_q_of_block(full, R11, parts))

    def measure(cl, K):
        sv = np.linalg.svd(cl.D, compute_uv=False)
        return float(sv[0] if sv.size else 0.0) + _rounding(plant, K[3])

    found = _evaluate(plant, candidates, measure)
    best = _choose(found)
    if best is None or _loop_cond(plant, _shifted(plant, best[0])) > _COND_MAX:
        # the central completion is not realised (I + D22 Q singular) or poorly: other
        # optimal Q, all verified
        others = [np.zeros((m2, p2))]
        if r1 and r2:
            rng = np.random.default_rng(0)
            for g in (bound * (1 + d) for d in (0.0, 1e-9, 1e-6)):
                for block in _noncentral_blocks(R12, R21, R22, g, rng):
                    others.append(_q_of_block(block, R11, parts))
        for Q in list(candidates) + others[:1]:
            others.extend(_null_variants(plant, Q, parts))
        # only optimal Q count (up to the 1e-6 of the levels above the bound): a worse one
        # would hide that the optimum is approached by unbounded controllers only
        found = _optimal(plant, found + _evaluate(plant, others, measure), bound)
        # the completions at g = bound are optimal up to rounding: prefer conditioning there
        best = _choose(found, rel=1e-9)
    if best is None:
        raise IllPosedError(
            "static plant: every optimal Q = K (I - D22 K)^-1 tried (central and non-central "
            "completions, null-space terms of D12 and D21) gives a singular or nearly "
            "singular I + D22 Q, no controller realises the optimum"
        )
    return (*best, bound)


def static_h2(plant: Plant):
    """Optimal static controller of a plant with no states, H2 norm.

    Continuous time: the closed loop must vanish (its H2 norm is infinite otherwise).
    Discrete time: the least-squares ``Q`` minimises the Frobenius norm.  Returns
    ``(K, cl, norm, optimum)`` as :func:`static_hinf` (``norm`` the Frobenius norm of the
    closed loop's matrix as computed, 0 in continuous time).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> e, z = np.zeros((0, 0)), np.zeros((0, 1))
    >>> P = Plant(e, z, z, z.T, z.T, np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)),
    ...           np.zeros((1, 1)), 1.0)  # z = w + u, y = w: u = -y cancels z
    >>> K, cl, norm, opt = static_h2(P)
    >>> float(K[3][0, 0]), norm
    (-1.0, 0.0)
    """
    D11, D12, D21 = plant.D11, plant.D12, plant.D21
    _, (U1, s1, V1h, r1, U2, s2, V2h, r2) = parrott(D11, D12, D21)[::2]
    Q = np.zeros((D12.shape[1], D21.shape[0]))
    if r1 and r2:
        R11 = U1[:, :r1].T @ D11 @ V2h[:r2].T
        Q = -V1h[:r1].T @ (R11 / s1[:r1, None] / s2[None, :r2]) @ U2[:, :r2].T
    # the part of D11 outside range(D12) x rowspace(D21), which no Q reaches
    reach = U1[:, :r1] @ U1[:, :r1].T @ D11 @ V2h[:r2].T @ V2h[:r2]
    optimum = float(np.linalg.norm(D11 - reach))
    parts = (U1, s1, V1h, r1, U2, s2, V2h, r2)

    def measure(cl, K):
        return float(np.linalg.norm(cl.D))

    found = _evaluate(plant, [Q], measure)
    best = _choose(found)
    if best is None or _loop_cond(plant, Q) > _COND_MAX:
        # I + D22 Q singular (or nearly): the other minimisers Q + N1 Z1 + Z2 N2'
        found += _evaluate(plant, _null_variants(plant, Q, parts), measure)
        found = _optimal(plant, found, optimum)
        best = _choose(found, rel=1e-9)
    if best is None:
        raise IllPosedError(
            "h2syn: static plant: the optimal Q = K (I - D22 K)^-1 (least squares, and its "
            "variants in the null spaces of D12 and D21) gives a singular or nearly singular "
            "I + D22 Q, no controller realises the optimum"
        )
    K, cl, _ = best
    tol = _rounding(plant, K[3])
    if not plant.dt:
        if np.abs(cl.D).max(initial=0.0) > tol:
            # relative to D11: h2syn hands over a plant rescaled by powers of 2
            # (normalised_performance), whose absolute residual is not in the user's units
            size = float(np.linalg.norm(D11))
            raise IllPosedError(
                "h2syn: the plant has no states and D11 + D12 Q D21 = 0 has no solution "
                f"(the least residual, in Frobenius norm, is {optimum / size:.6g} times "
                "that of D11): every controller leaves a feedthrough in the closed loop, "
                "whose H2 norm is then infinite"
            )
        # the residual is the rounding of an exact cancellation: the loop is zero
        cl = control.StateSpace(cl.A, cl.B, cl.C, np.zeros_like(cl.D), cl.dt)
        return K, cl, 0.0, 0.0
    norm = float(np.linalg.norm(cl.D))  # as the other h2syn paths: the computed norm
    return K, cl, norm, min(optimum, norm)
