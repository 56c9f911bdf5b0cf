"""Lower bound of the structured singular value: a destabilising perturbation.

Any ``Delta`` in the structure with ``det(I - M Delta) = 0`` proves
``mu(M) >= 1 / max_i sigma_max(Delta_i)``.  Three searches produce one
(each in its own module):

* **power iteration** (:mod:`.mu_power_iteration`) for complex structures (Packard,
  Fan & Doyle 1988; Packard & Doyle 1993): the aligned vectors give ``Delta = Q / lambda``
  with ``lambda`` an eigenvalue of ``M Q``;
* **boundary search** (:mod:`.mu_boundary_search`) for structures with real blocks
  (mixed mu, Young & Doyle 1997): the smallest structured ``Delta`` on the singular set
  ``lambda(M Delta) = 1``, from the complex-relaxation solution and random real starts;
* **real-parameter search** (:mod:`.mu_real_lft`) for real scalar blocks around one
  complex block (robust performance): the real blocks closed as an LFT, the singular
  scaling minimised over the box of real parameters.

Everything is vectorised over the frequency stack and the starting points.  The result is
re-checked by :func:`verify_lower_bound`; a search that finds no valid perturbation
gives ``lower = 0`` and ``delta = None``.
"""

from __future__ import annotations

import numpy as np

from .mu_boundary_search import _best_per_owner, _block_sizes, _MixedParams, boundary_search
from .mu_power_iteration import _TINY, block_norm_stack, power_iteration
from .mu_real_lft import _lft_candidates, _RealLft
from .mu_structure import REAL, BlockStructure, as_matrix_stack

__all__ = ["verify_lower_bound", "lower_bound_residual"]


# --------------------------------------------------------------------------- driver
def lower_bound(Ms, struct: BlockStructure, b_init=None, w_init=None, **options):
    """Best certified lower bound per matrix of the stack ``Ms``.

    The search runs on the balanced matrices ``D_z M D_w^-1`` (Osborne scaling over the
    blocks' channels, which commutes with the structure, so ``mu`` is unchanged): with
    entries spread over 1e-10..1e10 the unbalanced problem loses every perturbation to
    rounding.  A perturbation ``Delta'`` of the balanced matrix maps back to
    ``D_w^-1 Delta' D_z``, the same structured matrix with the same block norms.
    ``b_init``, ``w_init`` (nw, n_w) seed the first start (the upper bound's top singular
    vectors are a good choice).  Returns ``(lower, delta)`` with ``delta`` a list of
    ``(n_w, n_z)`` arrays or ``None`` where no perturbation was found.

    Examples
    --------
    Two real scalars: ``det(I - M diag(d1, d2)) = 1 - d1 - d2`` vanishes first at
    ``d1 = d2 = 1/2``, so mu = 2.

    >>> from robustmb.analysis.mu_structure import BlockStructure
    >>> M = np.array([[[1.0, 2.0], [0.5, 1.0]]], dtype=complex)
    >>> lower, delta = lower_bound(M, BlockStructure([(-1, 0), (-1, 0)]))
    >>> lower.round(9), np.diag(delta[0]).real.round(9)
    (array([2.]), array([0.5, 0.5]))
    """
    from .mu_upper_start import _balancing_units, osborne_scaling

    logd = osborne_scaling(Ms, struct)
    dz = np.zeros((Ms.shape[0], struct.n_z))
    dw = np.zeros((Ms.shape[0], struct.n_w))
    for u, (zs, ws) in enumerate(_balancing_units(struct)):
        dz[:, zs] = logd[:, [u]]
        dw[:, ws] = logd[:, [u]]
    Mb = Ms * np.exp(dz)[:, :, None] * np.exp(-dw)[:, None, :]
    nb = np.linalg.norm(Mb, 2, axis=(1, 2))
    nb = np.where(nb > 0, nb, 1.0)
    Mb = Mb / nb[:, None, None]
    if b_init is not None:
        b_init, w_init = b_init * np.exp(dw), w_init * np.exp(-dw)
    lo, deltas = _lower_bound_balanced(Mb, struct, b_init, w_init, **options)
    out = []
    for k, dl in enumerate(deltas):
        out.append(
            None if dl is None else (dl / nb[k]) * np.exp(-dw[k])[:, None] * np.exp(dz[k])[None, :]
        )
    return lo * nb, out


def _lower_bound_balanced(
    Ms,
    struct: BlockStructure,
    b_init=None,
    w_init=None,
    *,
    starts=4,
    real_starts=3,
    keep_starts=3,
    seed=0,
):
    """:func:`lower_bound` on a balanced, normalised stack."""
    nw, n, m = Ms.shape
    rng = np.random.default_rng(seed)
    S = starts
    b0 = rng.standard_normal((nw, S, m)) + 1j * rng.standard_normal((nw, S, m))
    w0 = rng.standard_normal((nw, S, m)) + 1j * rng.standard_normal((nw, S, m))
    if b_init is not None:
        b0[:, 0], w0[:, 0] = b_init, w_init
    owner = np.repeat(np.arange(nw), S)
    Mb = Ms[owner]
    Q = power_iteration(Mb, struct, b0.reshape(nw * S, m), w0.reshape(nw * S, m))
    if struct.has_real:
        # starts for the boundary search: the complex-relaxation solution rotated so that
        # its dominant eigenvalue is real, with its real blocks made real, and random
        # interior points of the real parameters (the singular set of a complex M with
        # real blocks is thin, so several starts are needed), each scaled so that the
        # eigenvalue of M Delta nearest the positive real axis has modulus 1
        lam_c = np.linalg.eigvals(Mb @ Q)
        lam1 = lam_c[np.arange(nw * S), np.argmax(np.abs(lam_c), axis=1)]
        rot = np.conj(lam1) / np.maximum(np.abs(lam1), _TINY)
        Qr = Q * rot[:, None, None]
        Qv = np.repeat(Qr, real_starts, axis=0)
        for blk in struct.blocks:
            if blk.kind == REAL:
                Qr[:, blk.w, blk.z] = Qr[:, blk.w, blk.z].real
                val = rng.uniform(-1.0, 1.0, size=len(Qv))
                idx = np.arange(blk.rows)
                Qv[:, blk.w, blk.z] = 0.0
                Qv[:, blk.w.start + idx, blk.z.start + idx] = val[:, None]
        owner = np.concatenate([owner, np.repeat(owner, real_starts)])
        Q0 = np.concatenate([Qr, Qv])
        # a start whose real parts vanished (phases +-j) gets random real parameters
        rows = np.flatnonzero(block_norm_stack(Q0, struct) < 1e-8)
        for blk in struct.blocks:
            if blk.kind == REAL and rows.size:
                idx = np.arange(blk.rows)
                val = rng.uniform(-1.0, 1.0, size=rows.size)
                Q0[rows[:, None], blk.w.start + idx, blk.z.start + idx] = val[:, None]
        lam0 = np.linalg.eigvals(Ms[owner] @ Q0)
        score = np.abs(lam0) * np.cos(0.5 * np.angle(lam0)) ** 4  # favour lambda near R+
        pick = lam0[np.arange(len(Q0)), np.argmax(score, axis=1)]
        Q0 = Q0 / np.where(np.abs(pick) > 0, np.abs(pick), 1.0)[:, None, None]
        par = _MixedParams(struct)
        groups = [(p0, cnt) for _, p0, cnt in par.kinds]
        # short first stage from every start, then the best few per matrix go on
        x, lam = boundary_search(
            Ms[owner], struct, par.from_matrix(Q0), iters=20, p_range=(4.0, 32.0), equalize=0
        )
        nu = _block_sizes(x, groups).max(axis=1)
        merit = -nu * (1.0 + 10.0 * np.abs(lam - 1.0))
        keep = _best_per_owner(merit, owner, keep_starts)
        owner = owner[keep]
        x, lam = boundary_search(
            Ms[owner], struct, x[keep], iters=60, p_range=(32.0, 4096.0), equalize=0
        )
        # the exact minimax step helps when the active blocks were found and can jump to a
        # worse branch otherwise: keep both results as candidates
        x_eq, lam_eq = boundary_search(Ms[owner], struct, x, iters=0, equalize=25)
        owner = np.concatenate([owner, owner])
        x, lam = np.concatenate([x, x_eq]), np.concatenate([lam, lam_eq])
        Qc = par.matrix(x)
        ok = np.abs(lam - 1.0) <= 1e-9
        lam = np.ones(len(Qc), dtype=complex)
    else:
        Qc = Q
        lam_all = np.linalg.eigvals(Mb @ Qc)
        lam = lam_all[np.arange(len(Qc)), np.argmax(np.abs(lam_all), axis=1)]
        ok = np.abs(lam) > 0
    nq = block_norm_stack(Qc, struct)
    val = np.where(ok & (nq > 0), np.abs(lam) / np.maximum(nq, _TINY), 0.0)
    D = Qc / np.where(val > 0, lam, 1.0)[:, None, None]
    for blk in struct.blocks:
        if blk.kind == REAL:
            D[:, blk.w, blk.z] = D[:, blk.w, blk.z].real
    if _RealLft.applies(struct):
        D, val, owner = _lft_candidates(Ms, struct, D, val, owner, rng)
    # re-check every candidate (singularity of I - M Delta), then keep the best per matrix
    cand = np.flatnonzero(val > 0)
    if cand.size:
        res = _residuals(Ms[owner[cand]], D[cand])
        val[cand[res > 1e-10]] = 0.0
    order = np.lexsort((-val, owner))  # by matrix, best first
    first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
    first = first[val[first] > 0]
    best = np.zeros(nw)
    best[owner[first]] = 1.0 / block_norm_stack(D[first], struct)
    delta: list = [None] * nw
    for i in first:
        delta[owner[i]] = D[i]
    return best, delta


def _residuals(M, D):
    """Batched ``sigma_min(I - M D) / (1 + ||M|| ||D||)``."""
    K = np.eye(M.shape[1]) - M @ D
    smin = np.linalg.svd(K, compute_uv=False)[:, -1]
    return smin / (1.0 + np.linalg.norm(M, 2, axis=(1, 2)) * np.linalg.norm(D, 2, axis=(1, 2)))


# --------------------------------------------------------------------------- verification
def lower_bound_residual(M, blk, delta):
    """``sigma_min(I - M Delta) / (1 + sigma_max(M) sigma_max(Delta))`` (0 when singular).

    Examples
    --------
    >>> M = np.array([[0.0, 1.0], [-1.0, 0.0]])
    >>> lower_bound_residual(M, [(-1, 0), (-1, 0)], np.diag([1.0, -1.0])) < 1e-15  # singular
    True
    >>> round(lower_bound_residual(M, [(-1, 0), (-1, 0)], np.diag([1.0, 1.0])), 12)
    0.707106781187
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    M = np.asarray(M)
    delta = np.asarray(delta)
    K = np.eye(struct.n_z) - M @ delta
    smin = np.linalg.svd(K, compute_uv=False)[-1]
    return float(smin / (1.0 + np.linalg.norm(M, 2) * np.linalg.norm(delta, 2)))


def verify_lower_bound(M, blk, delta, *, lower=None, tol=1e-8):
    """Check a destabilising perturbation ``Delta`` (the lower-bound certificate).

    Parameters
    ----------
    M : array_like, shape (n, m) or (nw, n, m)
        Matrix or frequency stack; ``n = sum c`` and ``m = sum r``.
    blk : list of (r, c)
        Block structure (MATLAB ``mussv`` convention).
    delta : array_like (m, n), or a list of them (``None`` entries are skipped) for a stack
        The perturbation.
    lower : float or array_like, optional
        Claimed lower bound; when given, ``1 / max_i sigma_max(Delta_i)`` must match it.
    tol : float
        Tolerance of the structure, norm and singularity tests (relative).

    Returns
    -------
    bool or numpy.ndarray of bool
        True when ``Delta`` has the block structure (repeated scalars ``delta I``, real
        blocks real, zero outside the blocks), ``det(I - M Delta) = 0`` in the sense
        ``sigma_min(I - M Delta) <= tol (1 + sigma_max(M) sigma_max(Delta))`` and, if
        ``lower`` is given, ``|1/||Delta|| - lower| <= tol lower`` (``sqrt(tol)`` floor
        of ``1e-6``).  ``None`` entries of a stack give True only if ``lower`` is 0 there.

    Examples
    --------
    >>> M = np.array([[0.0, 1.0], [-1.0, 0.0]])
    >>> bool(verify_lower_bound(M, [(-1, 0), (-1, 0)], np.diag([1.0, -1.0]), lower=1.0))
    True
    >>> bool(verify_lower_bound(M, [(-1, 0), (-1, 0)], np.diag([1.0, 1.0])))
    False
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    deltas = [delta] if single else list(delta)
    if len(deltas) != Ms.shape[0]:
        from ..errors import DimensionError

        raise DimensionError(f"{len(deltas)} perturbations for a stack of {Ms.shape[0]} matrices")
    lowers = (
        [None] * len(deltas)
        if lower is None
        else list(np.broadcast_to(np.asarray(lower, dtype=float), (len(deltas),)))
    )
    out = np.zeros(len(deltas), dtype=bool)
    for k, (Mk, Dk, lk) in enumerate(zip(Ms, deltas, lowers, strict=True)):
        if Dk is None:
            out[k] = lk is not None and lk == 0.0
            continue
        Dk = np.asarray(Dk)
        if Dk.shape != (struct.n_w, struct.n_z):
            out[k] = False
            continue
        viol, _ = struct.delta_violation(Dk)
        nrm = struct.block_norm(Dk)
        good = viol <= tol and nrm > 0
        good = good and lower_bound_residual(Mk, struct, Dk) <= tol
        if good and lk is not None:
            good = abs(1.0 / nrm - lk) <= max(tol, 1e-6) * lk
        out[k] = good
    return bool(out[0]) if single else out
