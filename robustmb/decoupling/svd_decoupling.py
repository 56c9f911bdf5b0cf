"""SVD (data-driven) decoupling at one frequency, and static decoupling.

The plant's response ``H = G(j w0)`` is replaced by a real matrix ``H_r`` that best
aligns with it (the "ALIGN" construction of the characteristic-locus method, MacFarlane
and Kouvaritakis 1977), ``H_r = U S V^T`` is decomposed, and the
plant is decoupled as ``U^T G V`` (``U^{-1} = U^T``, ``V^{-T} = V``). The channels come
out ordered from the largest to the smallest gain at ``w0``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from robustmb.decoupling.decoupling_result import Decoupling
from robustmb.decoupling.plant_data import (
    PoleFrequencyError,
    evaluate,
    frequency_response,
    is_lti,
    is_uncertain,
)
from robustmb.errors import ArgumentError, DimensionError, IllPosedError, UncertainTypeError

__all__ = [
    "real_approximation",
    "SVDDecoupling",
    "svd_decouple",
    "static_decouple",
]


def real_approximation(H) -> np.ndarray:
    """Real matrix approximating a complex matrix ``H`` up to a phase per row.

    The ALIGN construction: with row phases ``phi``, the real ``X`` that minimises
    ``||H X - diag(exp(j phi))||_F`` is ``X = D Re(H^H diag(exp(j phi)))`` with
    ``D = Re(H^H H)^+``; the phases are ``phi = angle(diag(H D H^T)) / 2`` (plain
    transpose) and the result is ``pinv(X)``. For a square nonsingular ``H`` the
    pseudo-inverses are ordinary inverses.

    ``H^H H`` is never formed: the real least-squares problem is the one of the stacked
    real matrix ``H_s = [Re H; Im H] = W S Z^T`` (thin SVD), so ``D = Z S^-2 Z^T``,
    ``H D H^T = (H Z S^-1)(H Z S^-1)^T`` and ``pinv(X) = pinv(W^T P) S Z^T`` with
    ``P = [diag(cos phi); diag(sin phi)]`` (when ``W^T P`` has full row rank; otherwise
    ``pinv(X)`` is taken directly). The rounding error is of the order of
    ``eps cond(H) ||H||``, not ``eps cond(H)^2 ||H||`` as through the normal equations.
    A real ``H`` is returned as it is (``phi = 0`` and ``X = pinv(H)``: the minimiser
    gives ``H`` back exactly); a real matrix whose rows are rotated by phases is
    recovered to rounding, up to the sign of each row.

    Parameters
    ----------
    H : array_like ``(p, m)``
        Complex response at one frequency.

    Returns
    -------
    numpy.ndarray ``(p, m)``, real

    Raises
    ------
    ArgumentError
        ``H`` has a non-finite entry.
    IllPosedError
        The phase of some row is not determined (every phase is matched exactly, as
        for any complex ``H`` with at least twice as many columns as rows): the real
        approximation is not unique.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[2.0, 1.0], [0.5, 3.0]])
    >>> np.allclose(real_approximation(H), H)
    True
    >>> np.allclose(real_approximation(1j * H), H) or np.allclose(real_approximation(1j * H), -H)
    True
    """
    if is_uncertain(H):
        raise UncertainTypeError(
            "real_approximation: H must be a numeric matrix, got an uncertain "
            f"{type(H).__name__}; pass the nominal response (or use svd_decouple, which "
            "decomposes the nominal response of an uncertain plant)"
        )
    H = np.asarray(H)
    if H.dtype == object:
        raise UncertainTypeError(
            f"real_approximation: H must be a numeric matrix, got {type(H).__name__} of objects"
        )
    if H.ndim != 2:
        raise DimensionError(f"real_approximation expects one (p, m) matrix, got {H.shape}")
    if not np.all(np.isfinite(H)):
        i, j = np.argwhere(~np.isfinite(H))[0]
        raise ArgumentError(
            f"H (the response G(j w0)) has a non-finite entry {H[i, j].item()!r} at ({i}, {j})"
        )
    if not np.iscomplexobj(H) or not np.any(H.imag):
        # phi = 0 and X = pinv(H): the minimiser gives H back exactly
        return np.array(H.real, dtype=float)
    H = H.astype(complex)
    p, m = H.shape
    Hs = np.vstack([H.real, H.imag])
    W, S, Zt = np.linalg.svd(Hs, full_matrices=False)
    # numerical rank of the real least-squares problem (numpy's pinv tolerance)
    tol = max(Hs.shape) * np.finfo(float).eps * (S[0] if S.size else 0.0)
    r = int(np.count_nonzero(S > tol))
    if r == 0:
        return np.zeros((p, m))
    W, S, Z = W[:, :r], S[:r], Zt[:r].T
    HZ = (H @ Z) / S  # H Z S^-1
    q = np.sum(HZ * HZ, axis=1)  # diag(H D H^T)
    # |q_i| at the rounding level of its terms: every phase of row i is matched (almost)
    # exactly, so its phase, and the result, would be set by rounding alone (always the
    # case when m >= 2p, where [Re H; Im H] has full row rank)
    free = np.abs(q) <= 1e-8 * np.sum(np.abs(HZ) ** 2, axis=1)
    if np.any(free):
        raise IllPosedError(
            f"real_approximation: H: the phase of row(s) {np.flatnonzero(free).tolist()} is "
            "not determined (a real matrix matches it exactly for every phase, as always "
            "when H has at least twice as many columns as rows): the real approximation is "
            "not unique; decompose Re H instead (svd_decouple(..., real=False))"
        )
    phi = 0.5 * np.angle(q)
    P = np.vstack([np.diag(np.cos(phi)), np.diag(np.sin(phi))])
    B = W.T @ P  # (r, p)
    if r <= p and np.linalg.matrix_rank(B) == r:
        # X = Z S^-1 B with Z S^-1 of full column rank and B of full row rank
        return np.linalg.pinv(B) @ (S[:, None] * Z.T)
    return np.linalg.pinv((Z / S) @ B)


def _sign_normalize(U, V, k):
    """Flip (u_i, v_i) pairs so that the largest-magnitude entry of u_i is positive."""
    U, V = U.copy(), V.copy()
    for i in range(U.shape[1]):
        j = int(np.argmax(np.abs(U[:, i]) + 1e-12 * np.arange(U.shape[0])[::-1]))
        if U[j, i] < 0:
            U[:, i] *= -1
            if i < k:
                V[:, i] *= -1
    return U, V


def _align_degenerate(U, sigma, V, rtol):
    """Rotate singular vectors inside clusters of equal singular values onto the axes.

    Within a cluster the singular vectors are only defined up to a rotation ``R``
    (``U_c R``, ``V_c R`` leave ``H`` unchanged). Choose ``R`` by orthogonal Procrustes so
    that ``U_c R`` is closest to the output axes that the cluster's subspace contains
    most, making the decomposition reproducible.

    Two singular values belong to one cluster when they differ by at most ``rtol``
    times the larger of the two, or by the roundoff level ``max(p, m) eps sigma_max``
    of the decomposition.
    """
    U, V = U.copy(), V.copy()
    k = sigma.size
    floor = max(U.shape[0], V.shape[0]) * np.finfo(float).eps * (sigma[0] if k else 0.0)
    i = 0
    while i < k:
        j = i + 1
        # relative to the pair (and to the roundoff of the decomposition), not to
        # sigma_max: 3e-6 and 2e-6 are distinct however small they are next to 1
        while j < k and abs(sigma[j] - sigma[i]) <= rtol * max(sigma[i], sigma[j]) + floor:
            j += 1
        if j - i > 1:
            Uc = U[:, i:j]
            weight = np.linalg.norm(Uc, axis=1)
            axes = np.sort(np.argsort(-weight, kind="stable")[: j - i])
            E = np.eye(U.shape[0])[:, axes]
            W, _, Zt = np.linalg.svd(Uc.T @ E)
            R = W @ Zt
            U[:, i:j] = Uc @ R
            V[:, i:j] = V[:, i:j] @ R
        i = j
    return U, V


@dataclass
class SVDDecoupling(Decoupling):
    """Result of :func:`svd_decouple`.

    Attributes
    ----------
    w0 : float or None
        Decoupling frequency (rad/s); ``None`` when a matrix was given directly.
    response : numpy.ndarray
        Complex ``H = G(j w0)``.
    real_response : numpy.ndarray
        Its real approximation (decomposed).
    U, V : numpy.ndarray
        Full orthogonal factors ``real_response = U[:, :k] diag(sigma) V[:, :k]^T``.
    sigma : numpy.ndarray
        Singular values, decreasing.
    imaginary_ratio : float
        ``||Im H||_F / ||Re H||_F``: small when the real approximation is good.
    """

    w0: float | None = None
    response: np.ndarray | None = None
    real_response: np.ndarray | None = None
    U: np.ndarray | None = None
    sigma: np.ndarray | None = None
    V: np.ndarray | None = None
    imaginary_ratio: float = float("nan")


def _response_at(G, w0, omega=None):
    """The complex response used for the decomposition and the frequency it was taken at."""
    if is_uncertain(G):
        return _response_at(G.nominal(), w0)
    if w0 is not None:
        try:
            w0 = float(w0)
        except (TypeError, ValueError):
            raise ArgumentError(f"w0 must be a frequency in rad/s, got {w0!r}") from None
        if not np.isfinite(w0) or w0 < 0:
            raise ArgumentError(f"w0 must be a finite frequency >= 0 rad/s, got {w0!r}")
    if is_lti(G):
        if w0 is None:
            raise ArgumentError("w0 (rad/s) is required to decouple an LTI system by SVD")
        try:
            return frequency_response(G, [w0])[0], w0
        except PoleFrequencyError:
            raise ArgumentError(
                f"w0 = {w0!r} rad/s is a pole of G on the imaginary axis (its response is "
                "infinite there): choose another decoupling frequency"
            ) from None
    H = evaluate(G)
    if H.ndim == 3:
        # measured frequency-response data: take the grid point nearest to w0
        if w0 is None or omega is None:
            missing = "w0" if w0 is None else "omega"
            raise ArgumentError(
                f"{missing} is missing: a frequency-response stack needs w0 and its grid "
                "omega (rad/s)"
            )
        w = np.asarray(omega, dtype=float)
        if w.shape != (H.shape[0],):
            raise DimensionError(f"omega has {w.size} points but the stack has {H.shape[0]}")
        k = int(np.argmin(np.abs(w - float(w0))))
        return H[k], float(w[k])
    if w0 is not None:
        raise ArgumentError(
            "w0 must not be given with a matrix: pass the response G(j w0) itself, "
            "or an LTI system or frequency-response stack with w0"
        )
    return H, None


def svd_decouple(
    G,
    w0=None,
    *,
    keep=None,
    real=True,
    align_degenerate=True,
    degenerate_rtol=1e-6,
    plant=None,
    omega=None,
):
    """Decouple a plant with the singular vectors of its (real-approximated) response at ``w0``.

    Parameters
    ----------
    G : LTI system, uncertain system, array_like ``(p, m)`` or ``(nw, p, m)``
        The plant, or directly its complex response at the decoupling frequency (then
        ``w0`` is omitted), or a measured frequency-response stack on the grid ``omega``
        (the grid point nearest to ``w0`` is used; ``.w0`` records it). For an uncertain
        system the decomposition uses the nominal response and the decoupled plant stays
        uncertain.
    w0 : float, optional
        Decoupling frequency (rad/s).
    keep : int, optional
        Number of decoupled channels (default ``min(p, m)``); the trailing outputs of a
        tall plant correspond to its left null space and are dropped.
    real : bool
        Use the real approximation (default). ``False`` decomposes ``Re H``.
    align_degenerate : bool
        Make singular vectors of repeated singular values reproducible (Procrustes onto
        the coordinate axes); see :func:`_align_degenerate`.
    degenerate_rtol : float
        Two singular values closer than this relative to the larger of the two count as
        repeated (values within the roundoff ``max(p, m) eps sigma_max`` always do).
    plant : object, optional
        Plant to decouple when ``G`` is a matrix (for example the full LTI model or
        frequency-response stack); default ``G`` itself.
    omega : array_like, optional
        Grid (rad/s) of a frequency-response stack ``G``.

    Returns
    -------
    SVDDecoupling
        ``input_matrix = V[:, :keep]``, ``output_matrix = U[:, :keep].T``; pairs
        ``(u_i, v_i)`` are signed so that the largest entry of ``u_i`` is positive.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[3.0, 1.0], [1.0, 3.0]])
    >>> d = svd_decouple(H)
    >>> np.allclose(d.plant, np.diag([4.0, 2.0]))
    True
    """
    H, w_used = _response_at(G, w0, omega)
    H = np.asarray(H)
    p, m = H.shape
    if keep is not None and (isinstance(keep, bool) or not isinstance(keep, numbers.Integral)):
        raise ArgumentError(f"keep must be an integer number of channels, got {keep!r}")
    k = min(p, m) if keep is None else int(keep)
    if not 1 <= k <= min(p, m):
        raise DimensionError(f"keep must be between 1 and {min(p, m)}, got {keep}")
    Hr = real_approximation(H) if real else H.real.copy()
    U, sigma, Vt = np.linalg.svd(Hr)
    V = Vt.T
    if align_degenerate:
        U, V = _align_degenerate(U, sigma, V, degenerate_rtol)
    U, V = _sign_normalize(U, V, min(p, m))
    re = np.linalg.norm(H.real)
    res = SVDDecoupling(
        method="svd",
        input_matrix=V[:, :k].copy(),
        output_matrix=U[:, :k].T.copy(),
        input_names=[f"u{i + 1}" for i in range(k)],
        output_names=[f"y{i + 1}" for i in range(k)],
        w0=w_used,
        response=H,
        real_response=Hr,
        U=U,
        sigma=sigma,
        V=V,
        imaginary_ratio=float(np.linalg.norm(H.imag) / re) if re > 0 else float("inf"),
    )
    target = plant if plant is not None else G
    res.plant = res.apply(target)
    return res


def static_decouple(G, w0=0.0, *, plant=None):
    """Decouple at one frequency by inverting the real approximation of ``G(j w0)``.

    With ``w0 = 0`` this is DC decoupling, ``G_dec = G(s) G(0)^{-1}``, which equals the
    identity at steady state.

    Parameters
    ----------
    G : LTI system, uncertain system, or array_like ``(p, m)``
        Plant (or its response at ``w0``; then pass ``w0=None``).
    w0 : float or None
        Frequency (rad/s).
    plant : object, optional
        Plant to decouple when ``G`` is a matrix.

    Returns
    -------
    Decoupling
        ``input_matrix = pinv(real_approximation(G(j w0)))``, ``output_matrix = I``.

    Examples
    --------
    >>> import numpy as np
    >>> d = static_decouple(np.array([[1.0, 2.0], [0.0, 1.0]]), None)
    >>> np.allclose(d.plant, np.eye(2))
    True
    """
    H = np.asarray(_response_at(G, w0)[0])
    Hr = real_approximation(H)
    rank = int(np.linalg.matrix_rank(Hr))
    if rank < min(Hr.shape):
        # pinv would invert only part of the response: channels mixed, silently
        where = "the given response" if w0 is None else f"G(j w0) at w0 = {w0:g} rad/s"
        raise IllPosedError(
            f"static_decouple: the real approximation of {where} has rank {rank} < "
            f"{min(Hr.shape)}: it cannot be inverted (choose another w0, or svd_decouple)"
        )
    res = Decoupling(
        method="static",
        input_matrix=np.linalg.pinv(Hr),
        output_matrix=np.eye(H.shape[0]),
    )
    res.plant = res.apply(plant if plant is not None else G)
    return res
