"""Lower bound of the structured singular value: a destabilising perturbation.

Any ``Delta`` in the structure with ``det(I - M Delta) = 0`` proves
``mu(M) >= 1 / max_i sigma_max(Delta_i)``.  Four searches produce one
(each in its own module):

* **power iteration** (:mod:`.mu_power_iteration`) for complex structures (Packard,
  Fan & Doyle 1988; Packard & Doyle 1993): the aligned vectors give ``Delta = Q / lambda``
  with ``lambda`` an eigenvalue of ``M Q``;
* **boundary search** (:mod:`.mu_boundary_search`) for structures with real blocks
  (mixed mu, Young & Doyle 1997): the smallest structured ``Delta`` on the singular set
  ``lambda(M Delta) = 1``, from the complex-relaxation solution and random real starts;
* **real-parameter search** (:mod:`.mu_real_lft`) for real scalar blocks around one
  complex block (robust performance): the real blocks closed as an LFT, the singular
  scaling minimised over the box of real parameters;
* **closed forms** (:mod:`.mu_real_exact`) for real scalar blocks only: the exact
  singular points with two parameters free (the others zero), and the vertices of the
  box for a real ``M``.

Everything is vectorised over the frequency stack and the starting points.  The result is
re-checked by :func:`verify_lower_bound`; a search that finds no valid perturbation
gives ``lower = 0`` and ``delta = None``.  :func:`certified_lower` then turns the
perturbation found into a bound that rounding cannot push above ``mu`` (see there).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import scipy.linalg

from .mu_boundary_search import _best_per_owner, _block_sizes, _MixedParams, boundary_search
from .mu_power_iteration import _TINY, block_norm_stack, power_iteration
from .mu_real_exact import real_scalar_candidates
from .mu_real_lft import _lft_candidates, _RealLft
from .mu_real_pair import real_pair_lower
from .mu_structure import REAL, BlockStructure, as_matrix_stack

__all__ = ["verify_lower_bound", "lower_bound_residual", "certified_lower"]

_EPS = np.finfo(float).eps
_BIG = 1e300
# random real starts of the boundary search, at least, when every block is real
_ALL_REAL_STARTS = 12
# matrices up to this size get the exact (rational) root check when the floating-point
# eigenvalue bound is too loose (a defective or nearly defective eigenvalue)
_EXACT_MAX_N = 10
# candidates per matrix offered to the certificate, best first (real scalar structures)
_CERTIFY_TRIES = 6


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
    # the searches may leave the range of doubles on a matrix spanning 1e-300..1e300
    # (every perturbation found is re-checked, a non-finite one is dropped)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        lo, deltas = _lower_bound_balanced(Mb, struct, b_init, w_init, **options)
        out = []
        for k, dl in enumerate(deltas):
            if dl is not None:
                dl = (dl / nb[k]) * np.exp(-dw[k])[:, None] * np.exp(dz[k])[None, :]
                if not np.all(np.isfinite(dl)):  # beyond the range of doubles
                    dl, lo[k] = None, 0.0
            out.append(dl)
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
    if struct.all_real:
        # with no complex block the complex-relaxation start is often far from the real
        # singular set (on a complex ``M`` that set has codimension 2), and three random
        # starts missed it on about one matrix in five (lower bound 0 where mu > 1)
        real_starts = max(real_starts, _ALL_REAL_STARTS)
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
        viol = np.abs(lam - 1.0)
        # a start that has not reached the singular set is ranked below every one that
        # has, whatever its size: a tracked eigenvalue stuck at 0 (a channel M does not
        # reach) shrinks Delta towards 0 and would otherwise look like the best start
        merit = np.where(
            viol <= 0.1, -nu * (1.0 + 10.0 * viol), -_BIG * (1.0 + np.minimum(viol, 1.0))
        )
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
    # exact candidates for real scalars (pairs of parameters, vertices of a real M):
    # the local searches above can miss the isolated singular points entirely
    Dx, val_x, owner_x = real_scalar_candidates(Ms, struct)
    if val_x.size:
        D = np.concatenate([D, Dx.astype(D.dtype)])
        val = np.concatenate([val, val_x])
        owner = np.concatenate([owner, owner_x])
    # re-check every candidate (singularity of I - M Delta), then keep the best per matrix
    cand = np.flatnonzero(val > 0)
    if cand.size:
        res = _residuals(Ms[owner[cand]], D[cand])
        val[cand[~(res <= 1e-10)]] = 0.0  # a nan residual fails too
    order = np.lexsort((-val, owner))  # by matrix, best first
    if struct.all_real:
        first = _first_certified(Ms, struct, D, val, owner, order)
    else:
        first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
        first = first[val[first] > 0]
    best = np.zeros(nw)
    best[owner[first]] = 1.0 / block_norm_stack(D[first], struct)
    delta: list = [None] * nw
    for i in first:
        delta[owner[i]] = D[i]
    return best, delta


def _first_certified(Ms, struct, D, val, owner, order):
    """Per matrix, the best candidate that :func:`certified_lower` accepts.

    With real blocks only, a candidate singular to the search's tolerance need not be near
    an exact real root (on a nearly real ``M`` the real part's singular set is hit, where
    the complex ``M`` has none): the best one by value can fail the certificate while a
    smaller one (an exact candidate of :mod:`.mu_real_exact`) passes.  The first
    ``_CERTIFY_TRIES`` distinct candidates of each matrix are tried in order of value.
    """
    picked, failed = [], {}
    done = set()
    for i in order:
        k = int(owner[i])
        tried = failed.setdefault(k, [])
        if k in done or not val[i] > 0 or len(tried) >= _CERTIFY_TRIES:
            continue
        # many starts converge to the same point: a copy of a failed one fails too
        if any(np.linalg.norm(D[i] - f) <= 1e-6 * np.linalg.norm(f) for f in tried):
            continue
        if certified_lower(Ms[k], struct, D[i])[0] > 0:
            picked.append(i)
            done.add(k)
        else:
            tried.append(D[i])
    return np.array(picked, dtype=int)


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


# --------------------------------------------------------------------------- rounding
def certified_lower(M, blk, delta):
    """A lower bound on ``mu(M)`` from the direction of ``delta`` that rounding cannot lift.

    Every ``t delta`` with ``1 / t`` an eigenvalue ``lambda`` of ``A = M delta`` makes
    ``I - M t delta`` singular, so ``mu(M) >= |lambda| / ||delta||`` (``||.||`` the largest
    block norm) whenever ``t delta`` is in the structure: always for a complex structure,
    for real ``lambda`` only when there are real blocks.  The bound returned is this
    quotient for the best admissible eigenvalue, reduced by a bound on the error of the
    computed eigenvalue ``lambda_hat``, so that it is not above ``mu`` of the floating-point
    ``M`` given:

    * first-order bound: ``A`` is balanced by an exact (power-of-two) diagonal similarity
      ``A_b = T^-1 A T``; LAPACK's eigenvalues are exact for ``A_b + E`` with
      ``||E||_F <= 10 n eps ||A_b||_F``, the product ``M delta`` carries at most
      ``n eps |M| |delta|`` entrywise, and an eigenvalue of condition number ``kappa``
      (left and right eigenvectors) moves by at most ``r = kappa eta`` (``eta`` the sum of
      both).  Overlapping discs of radius ``r`` form clusters that hold as many exact
      eigenvalues as computed ones; a cluster gives the smallest ``|lambda_hat| - r`` of
      its members (with real blocks: a cluster of an odd number of real eigenvalues, which
      holds a real one);
    * exact check (``n <= 10``, when the first-order bound loses more than ``1e-8``,
      i.e. near a defective eigenvalue): ``p(t) = det(I - t A)`` is evaluated in rational
      arithmetic, ``A = M delta`` formed exactly from the floating-point entries, at
      ``t_hat = 1 / lambda_hat``.  ``p(t_hat) =
      0`` is a root; for a complex structure a root lies within ``n |p / p'|`` of
      ``t_hat`` (``p'/p = sum 1 / (t - t_i)``); for a real one a sign change of ``p``
      over ``t_hat (1 -+ tau)`` (``tau = 2^-40, 2^-30, 2^-20``) brackets a real root.

    * triangular ``M`` and ``delta`` (both lower or both upper, any ``n``): the exact
      eigenvalues ``M_ii delta_ii`` of ``A``.

    The block norm (an SVD) is taken ``(1 + 10 n eps)`` larger and the quotient one more
    ``4 eps`` smaller.

    With real blocks and a complex ``M delta`` (a complex ``M``, or a real ``M`` with a
    complex ``delta`` on its complex blocks) no real multiple of ``delta`` need be
    singular.  If the real blocks of ``delta`` are zero, every complex multiple is in the
    structure and the complex analysis above applies.  Otherwise the real part is kept
    and the complex part rescaled by a root of ``det(I - M delta_R - z M delta_C)``,
    certified in exact arithmetic for ``n <= 10`` (triangular pairs: the exact
    eigenvalues; real blocks only: an exact real root in two non-repeated real scalars);
    what no check covers (no complex block active on a non-triangular pair and no such
    pair of real scalars, or ``n > 10``) is the search's value reduced by ``1e-8``
    relative, not a certificate (see :func:`_mixed_lower`).

    Parameters
    ----------
    M : array_like, shape (n, m)
    blk : list of (r, c) or BlockStructure
    delta : array_like, shape (m, n)
        A perturbation in the structure (a search's destabilising one).

    Returns
    -------
    lower : float
        ``0.0`` when no admissible eigenvalue is certified.
    delta : numpy.ndarray or None
        ``delta / lambda_hat`` (norm about ``1 / lower``), or None with ``lower = 0``.

    Examples
    --------
    A real repeated scalar on a Jordan block with eigenvalue ``1e-12``: ``mu = 1e-12``
    exactly, and the bound does not exceed it.

    >>> e = 1e-12
    >>> M = np.array([[e, 0, 0], [1, e, 0], [0, 1, e]])
    >>> lower, d = certified_lower(M, [(-3, 0)], 1e12 * np.eye(3))
    >>> bool(lower <= e), bool(lower > e * (1 - 1e-12))
    (True, True)
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    M = np.asarray(M)
    delta = np.asarray(delta)
    n = struct.n_z
    if not np.all(np.isfinite(delta)):
        return 0.0, None
    try:
        nrm = struct.block_norm(delta) * (1.0 + 10 * n * _EPS)
    except np.linalg.LinAlgError:  # entries near the overflow threshold
        return 0.0, None
    if not (np.isfinite(nrm) and nrm > 0):
        return 0.0, None
    with np.errstate(over="ignore", invalid="ignore"):
        A = M @ delta
    if not np.all(np.isfinite(A)):  # the product leaves the range of doubles
        return 0.0, None
    real_a = not np.iscomplexobj(A) or not np.any(A.imag)
    real = struct.has_real
    if real and not real_a:
        real_part = np.zeros(delta.shape, dtype=bool)
        for blk in struct.blocks:
            if blk.kind == REAL:
                real_part[blk.w, blk.z] = True
        if np.any(delta[real_part]):
            return _mixed_lower(M, struct, delta, real_part)
        # the real blocks of delta are zero: every complex multiple of delta is in the
        # structure, the complex analysis applies
        real = False
    if real_a:
        # a real eigenvalue of a real matrix comes out with a zero imaginary part
        A = A.real
    with np.errstate(invalid="ignore"):  # scipy casts its permutation of a wide-range A
        Ab, (tsc, _) = scipy.linalg.matrix_balance(A, permute=False, separate=True)
    prod = (np.abs(M) @ np.abs(delta)) / tsc[:, None] * tsc[None, :]
    eta = 10 * n * _EPS * np.linalg.norm(Ab) + n * _EPS * np.linalg.norm(prod)
    if not np.isfinite(eta):
        return 0.0, None
    w, vl, vr = scipy.linalg.eig(Ab, left=True, right=True)
    dots = np.abs(np.sum(vl.conj() * vr, axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.linalg.norm(vl, axis=0) * np.linalg.norm(vr, axis=0) / dots
    r = np.where(np.isfinite(kappa), kappa * eta, np.inf)
    admissible = w.imag == 0 if real else np.ones(len(w), dtype=bool)
    admissible &= w != 0
    if not admissible.any():
        return 0.0, None
    val, i = _cluster_values(w, r, real)
    lower = max(float(val[i]), 0.0)
    top = int(np.argmax(np.where(admissible, np.abs(w), -1.0)))
    if lower < np.abs(w[top]) * (1.0 - 1e-8):
        exact = _triangular_modulus(M, delta, real=real)
        if exact <= lower and n <= _EXACT_MAX_N:
            exact = _exact_root_modulus(M, delta, w[top], real=real)
        if exact > lower:
            lower, i = exact, top
    if lower <= 0:
        return 0.0, None
    lam = w[i].real if real else w[i]
    return float(lower / nrm * (1.0 - 4 * _EPS)), delta / lam


# relative deflation of a search's value that no check covers (see _mixed_lower)
_UNCHECKED_DEFLATION = 1e-8
# ``sigma_min(I - M delta) <= _SINGULAR_ROUNDING n eps (1 + ||M|| ||delta||)``: the
# rounding-level singularity test of a perturbation that no exact check covers
_SINGULAR_ROUNDING = 16


def _mixed_lower(M, struct, delta, real_part):
    """:func:`certified_lower` for a complex ``M delta`` whose real blocks are not zero.

    No real multiple of ``delta`` need be singular then.  With complex blocks the real
    part ``delta_R`` is kept and the complex part ``delta_C`` scaled by a complex ``z``:
    ``p(z) = det(I - M delta_R - z M delta_C)`` has degree at most ``n``, so a root lies
    within ``rho = n |p / p'|`` of the computed root ``z_hat`` (exact rational
    arithmetic on the floating-point entries, ``n <= 10``), and
    ``delta_R + z delta_C`` is in the structure with block norm at most
    ``max(||delta_R||, (|z_hat| + rho) ||delta_C||)``.  A triangular pair gives its exact
    eigenvalues (:func:`_triangular_modulus`).  With real blocks only (``n <= 10``, at
    least two of them non-repeated) two real scalars are freed and an exact real root
    is bracketed near ``delta`` (:func:`~robustmb.analysis.mu_real_pair.real_pair_lower`).
    When such a pair exists and no root is bracketed, the bound is 0.
    Otherwise (no complex block active and no such pair,
    ``n > 10``, or ``p'(z_hat) = 0``) nothing is certified: the search's perturbation
    counts only when ``I - M delta`` is singular to rounding (``sigma_min <= 16 n eps
    (1 + ||M|| ||delta||)``; real ``mu`` is discontinuous in ``M``, so a larger residual,
    such as the search's tolerance ``|lambda - 1| <= 1e-9``, proves nothing: a real
    ``delta`` on a complex ``M`` needs the determinant's imaginary part to vanish too),
    and its value is then reduced by ``1e-8`` relative; else the bound is 0.
    """
    n = struct.n_z
    if np.any(delta[real_part].imag):
        return 0.0, None
    grow = 1.0 + 10 * n * _EPS
    dR = np.where(real_part, delta.real, 0.0)
    dC = np.where(real_part, 0.0, delta)
    exact = _triangular_modulus(M, delta, real=True)
    if exact > 0:
        w = np.linalg.eigvals(M @ delta)
        lam = w[np.argmin(np.abs(np.abs(w) - exact) + np.abs(w.imag))].real
        return float(exact / (struct.block_norm(delta) * grow) * (1.0 - 4 * _EPS)), delta / lam
    if np.any(dC) and n <= _EXACT_MAX_N:
        B0 = np.eye(n) - M @ dR
        with np.errstate(all="ignore"):
            z = scipy.linalg.eigvals(B0, M @ dC)
        z = z[np.isfinite(z)]
        if z.size:
            z_hat = complex(z[np.argmin(np.abs(z - 1.0))])
            Mr = [[_cfrac(v) for v in row] for row in M]
            Rr = [[_cfrac(v) for v in row] for row in dR]
            Cr = [[_cfrac(v) for v in row] for row in dC]
            one = (Fraction(1), Fraction(0))
            MR, MC = _rmatmul(Mr, Rr), _rmatmul(Mr, Cr)
            Br = [
                [_csub(one if i == j else (Fraction(0), Fraction(0)), MR[i][j]) for j in range(n)]
                for i in range(n)
            ]
            p, dp = _char_det(MC, _cfrac(z_hat), derivative=True, base=Br)
            den = dp[0] ** 2 + dp[1] ** 2
            if p == (0, 0) or den != 0:
                rho = np.sqrt(float(n * n * (p[0] ** 2 + p[1] ** 2) / den)) if den else 0.0
                zr = (abs(z_hat) + rho * (1.0 + 4 * _EPS)) * (1.0 + 4 * _EPS)
                nrm = max(struct.block_norm(dR), zr * struct.block_norm(dC)) * grow
                if np.isfinite(nrm) and nrm > 0:
                    return float(1.0 / nrm * (1.0 - 4 * _EPS)), dR + z_hat * dC
    if struct.all_real and n <= _EXACT_MAX_N:
        # two non-repeated real scalars free, the others fixed: an exact real root
        lower, d = real_pair_lower(M, struct, delta)
        if lower > 0:
            return lower, d
        if sum(b.rows == 1 for b in struct.blocks) >= 2:
            # the exact check applied and found no real root near ``delta``: on a nearly
            # real ``M`` the rounding-level test below would accept the real part's mu,
            # which can exceed the complex M's (1.6078 where mu = 0, imaginary parts 1e-14)
            return 0.0, None
    # Unchecked: the search's perturbation counts only if ``I - M delta`` is singular to
    # the rounding of the data.  With no complex block active, ``delta`` is real and the
    # determinant's real and imaginary parts must vanish together, which a complex ``M``
    # generally rules out (``mu = 0``): a residual of the search's tolerance is no root.
    # The test runs on a balanced ``D M D^-1`` (scalings of the structure's units, which
    # commute with ``delta``, so ``I - M delta`` is similar to ``I - D M D^-1 delta``): a
    # normwise test on a badly scaled ``M`` passes for any residual its small entries
    # carry (a triangular ``M`` with a 1e12 coupling accepted a ``delta`` with
    # ``det = 1e-9 j``, where ``mu = 0``).
    Ms = _unit_balanced(M, struct)
    nrm = struct.block_norm(delta)
    scale = 1.0 + float(np.linalg.norm(Ms, 2)) * float(np.linalg.norm(delta, 2))
    resid = float(np.linalg.svd(np.eye(n) - Ms @ delta, compute_uv=False)[-1])
    if not resid <= _SINGULAR_ROUNDING * n * _EPS * scale:
        return 0.0, None
    return float(1.0 / nrm * (1.0 - _UNCHECKED_DEFLATION)), delta


def _unit_balanced(M, struct, sweeps=60, cap=200.0):
    """``D M D^-1`` with Osborne's balancing of the block norms between the structure's
    units carried to convergence (no floor): a zero block coupling drives its scaling
    to ``exp(+-cap)``, so a block-triangular ``M`` becomes block diagonal to rounding."""
    from .mu_upper_start import _balancing_units

    units = _balancing_units(struct)
    absM2 = np.abs(M) ** 2
    N2 = np.array([[absM2[zi, wj].sum() for (_, wj) in units] for (zi, _) in units])
    np.fill_diagonal(N2, 0.0)
    logd = np.zeros(len(units))
    for _ in range(sweeps):
        before = logd.copy()
        for u in range(len(units)):
            d2 = np.exp(2 * logd)
            into = float(N2[:, u] @ d2)  # sum_i d_i^2 ||M_iu||^2
            out = float(N2[u, :] @ (1.0 / d2))  # sum_j ||M_uj||^2 / d_j^2
            if into == 0.0 and out == 0.0:
                continue
            if into == 0.0 or out == 0.0:
                logd[u] = -cap if into == 0.0 else cap
            else:
                logd[u] = np.clip(0.25 * (np.log(into) - np.log(out)), -cap, cap)
        if np.max(np.abs(logd - before)) < 1e-6:
            break
    dz, dw = np.ones(M.shape[0]), np.ones(M.shape[1])
    for (zu, wu), ld in zip(units, logd, strict=True):
        dz[zu] = np.exp(ld)
        dw[wu] = np.exp(ld)
    return M * dz[:, None] / dw[None, :]


def _rmatmul(Ar, Br):
    """Exact product of two rational complex matrices (lists of pairs)."""
    zero = (Fraction(0), Fraction(0))
    out = []
    for row in Ar:
        new = []
        for j in range(len(Br[0])):
            acc = zero
            for k, a in enumerate(row):
                if a != zero and Br[k][j] != zero:
                    acc = _cadd(acc, _cmul(a, Br[k][j]))
            new.append(acc)
        out.append(new)
    return out


def _cluster_values(w, r, real):
    """Certified ``|lambda|`` per computed eigenvalue ``w_i`` with error radius ``r_i``.

    The discs ``|z - w_i| <= r_i`` that overlap form clusters; by continuity a cluster of
    ``k`` discs holds ``k`` exact eigenvalues (to first order), each of modulus at least
    the smallest ``|w_i| - r_i`` of the cluster.  With real blocks a cluster counts only
    if its computed eigenvalues are all real and odd in number (the exact ones of a real
    matrix come in conjugate pairs, and the discs are symmetric about the real axis).
    Returns the value of each eigenvalue's cluster (0 where none) and the index of the
    largest |w_i| among the best clusters.
    """
    m = len(w)
    over = r[:, None] + r[None, :] >= np.abs(w[:, None] - w[None, :])
    label = np.arange(m)
    for _ in range(m):  # connected components of the overlap graph
        new = np.min(np.where(over, label[None, :], m), axis=1)
        if np.array_equal(new, label):
            break
        label = new
    val = np.zeros(m)
    for c in np.unique(label):
        mem = label == c
        if real and not (np.all(w[mem].imag == 0) and mem.sum() % 2 == 1):
            continue
        if np.any(w[mem] == 0):
            continue
        val[mem] = max(float(np.min(np.abs(w[mem]) - r[mem])), 0.0)
    i = int(np.lexsort((np.abs(w), val))[-1])
    return val, i


def _triangular_modulus(M, delta, *, real):
    """The largest admissible ``|lambda|`` of ``M delta`` when both are triangular alike.

    The product of two lower (or two upper) triangular matrices is triangular, with the
    exact eigenvalues ``M_ii delta_ii`` (products of two floating-point numbers, taken
    in rational arithmetic); with ``real`` only real ones count.  A bound for any ``n``
    at ``O(n^2)`` cost, where a multiple eigenvalue defeats the first-order analysis
    (``2 I``: one cluster of twelve real eigenvalues, even in number).  0.0 otherwise.
    """
    if M.ndim != 2 or M.shape[0] != M.shape[1] or delta.shape != M.shape:
        return 0.0
    lower_tri = not np.any(np.triu(M, 1)) and not np.any(np.triu(delta, 1))
    upper_tri = not np.any(np.tril(M, -1)) and not np.any(np.tril(delta, -1))
    if not (lower_tri or upper_tri):
        return 0.0
    best = 0.0
    for m, d in zip(np.diag(M), np.diag(delta), strict=True):
        lam = _cmul(_cfrac(m), _cfrac(d))
        if real and lam[1] != 0:
            continue
        try:  # each part rounded once, the modulus once more: within 4 eps below
            best = max(best, math.hypot(float(lam[0]), float(lam[1])) * (1.0 - 4 * _EPS))
        except OverflowError:
            continue
    return best


def _exact_root_modulus(M, delta, lam_hat, *, real):
    """A lower bound on ``|lambda|`` for an eigenvalue ``lambda`` of ``M delta`` near
    ``lam_hat``.

    Rational arithmetic on the floating-point entries of ``M`` and ``delta``, whose
    product is formed exactly (the computed ``M delta`` carries rounding that can move a
    near-defective eigenvalue by far more than ``eps``; see :func:`certified_lower`);
    ``lambda`` is real when ``real``.  0.0 when nothing is shown.
    """
    n, m = M.shape
    Mr = [[_cfrac(M[i, k]) for k in range(m)] for i in range(n)]
    Dr = [[_cfrac(delta[k, j]) for j in range(n)] for k in range(m)]
    zero = (Fraction(0), Fraction(0))
    Ar = []
    for i in range(n):
        row = []
        for j in range(n):
            acc = zero
            for k in range(m):
                if Mr[i][k] != zero and Dr[k][j] != zero:
                    acc = _cadd(acc, _cmul(Mr[i][k], Dr[k][j]))
            row.append(acc)
        Ar.append(row)
    t_hat = _cdiv((Fraction(1), Fraction(0)), _cfrac(lam_hat))
    p0 = _char_det(Ar, t_hat)
    mod_lam = abs(lam_hat) * (1.0 - 4 * _EPS)  # |1 / t_hat| rounded down
    if p0 == (0, 0):
        return mod_lam
    # the sign test needs a real polynomial: a real exact product (the computed one may
    # be real where the exact one is not)
    if real and any(a[1] != 0 for row in Ar for a in row):
        return 0.0
    if real:
        t = t_hat[0]
        s0 = _char_det(Ar, (t, Fraction(0)))[0]
        for tau in (Fraction(1, 2**40), Fraction(1, 2**30), Fraction(1, 2**20)):
            lo = _char_det(Ar, (t * (1 - tau), Fraction(0)))[0]
            hi = _char_det(Ar, (t * (1 + tau), Fraction(0)))[0]
            signs = {int(np.sign(lo)), int(np.sign(s0)), int(np.sign(hi))}
            if 0 in signs or len(signs) > 1:
                # a real root between t (1 - tau) and t (1 + tau)
                return mod_lam / (1.0 + float(tau)) * (1.0 - 4 * _EPS)
        return 0.0
    p, dp = _char_det(Ar, t_hat, derivative=True)
    num = p[0] ** 2 + p[1] ** 2
    den = dp[0] ** 2 + dp[1] ** 2
    if den == 0:
        return 0.0
    # a root within n |p / p'| of t_hat: |t_root| <= |t_hat| + rad
    rad = np.sqrt(float(n * n * num / den)) * (1.0 + 4 * _EPS)
    t_abs = (1.0 / abs(lam_hat)) * (1.0 + 4 * _EPS)
    return 1.0 / (t_abs + rad) * (1.0 - 4 * _EPS)


def _cfrac(z):
    z = complex(z)
    return (Fraction(z.real), Fraction(z.imag))


def _cmul(a, b):
    return (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


def _cadd(a, b):
    return (a[0] + b[0], a[1] + b[1])


def _csub(a, b):
    return (a[0] - b[0], a[1] - b[1])


def _cdiv(a, b):
    d = b[0] * b[0] + b[1] * b[1]
    return ((a[0] * b[0] + a[1] * b[1]) / d, (a[1] * b[0] - a[0] * b[1]) / d)


def _char_det(Ar, t, *, derivative=False, base=None):
    """``det(I - t A)`` (and its derivative in ``t``) exactly, by Gaussian elimination;
    ``det(B - t A)`` with ``base`` a rational matrix ``B``.

    With ``derivative`` the entries are dual numbers ``a + b e`` (``e^2 = 0``): the
    determinant of ``K(t) + e K'(t)`` is ``p(t) + e p'(t)``; pivots are chosen with a
    nonzero ``a`` (``p(t) != 0`` is required then).
    """
    n = len(Ar)
    zero = (Fraction(0), Fraction(0))
    one = (Fraction(1), Fraction(0))
    K = []
    for i in range(n):
        row = []
        for j in range(n):
            b0 = (one if i == j else zero) if base is None else base[i][j]
            a = _csub(b0, _cmul(t, Ar[i][j]))
            b = _csub(zero, Ar[i][j]) if derivative else zero
            row.append((a, b))
        K.append(row)
    det = (one, zero)
    for c in range(n):
        piv = next((i for i in range(c, n) if K[i][c][0] != zero), None)
        if piv is None:
            return (zero, zero) if derivative else zero
        if piv != c:
            K[c], K[piv] = K[piv], K[c]
            det = ((-det[0][0], -det[0][1]), (-det[1][0], -det[1][1]))
        pa, pb = K[c][c]
        det = (_cmul(det[0], pa), _cadd(_cmul(det[0], pb), _cmul(det[1], pa)))
        inv_a = _cdiv(one, pa)
        for i in range(c + 1, n):
            ia, ib = K[i][c]
            if ia == zero and ib == zero:
                continue
            # factor f = K[i][c] / K[c][c] as a dual number
            fa = _cmul(ia, inv_a)
            fb = _cmul(_csub(ib, _cmul(fa, pb)), inv_a)
            for j in range(c + 1, n):
                ca, cb = K[c][j]
                xa, xb = K[i][j]
                K[i][j] = (
                    _csub(xa, _cmul(fa, ca)),
                    _csub(_csub(xb, _cmul(fa, cb)), _cmul(fb, ca)),
                )
    return det if derivative else det[0]
