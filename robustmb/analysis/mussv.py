"""Structured singular value ``mu``: certified upper and lower bounds (``rmb.mussv``).

``mu_Delta(M) = 1 / min{ max_i sigma_max(Delta_i) : Delta in the structure, det(I - M Delta) = 0 }``
(0 when no structured ``Delta`` makes ``I - M Delta`` singular).  Computing ``mu`` exactly
is NP-hard, so :func:`mussv` returns a bracket ``lower <= mu <= upper`` together with the
evidence for both ends:

* ``upper`` comes with D,G scalings (see :mod:`robustmb.analysis.mu_upper`), re-checked
  by :func:`~robustmb.analysis.mu_upper.verify_upper_bound`;
* ``lower`` comes with a structured perturbation ``delta`` of norm ``1 / lower`` that makes
  ``I - M delta`` singular (see :mod:`robustmb.analysis.mu_lower`), re-checked by
  :func:`~robustmb.analysis.mu_lower.verify_lower_bound`; it is reduced by a bound on the
  rounding error of the eigenvalue that makes ``delta`` singular
  (:func:`~robustmb.analysis.mu_lower.certified_lower`), so it is not above ``mu``.
  Real blocks on a complex ``M`` have no exact check when ``M`` has more than 10 rows,
  or when ``delta``'s complex blocks are zero and the structure is not made of real
  scalars with two of them non-repeated: there ``delta`` counts only when
  ``I - M delta`` is singular to rounding (see
  :func:`~robustmb.analysis.mu_lower.certified_lower`).

For complex structures with ``2 S + F <= 3`` (``S`` repeated scalars, ``F`` full blocks) the
D-scaling bound equals ``mu`` (Packard & Doyle 1993), and the two bounds meet.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._blas import single_blas_thread
from ..errors import ArgumentError, DimensionError, FloatRangeError, UncertainTypeError
from .mu_lower import certified_lower, lower_bound, verify_lower_bound
from .mu_rounding import certify_scalings
from .mu_structure import BlockStructure, as_matrix_stack
from .mu_upper import (
    _gevp_form,
    expand_scalings,
    scaling_parametrization,
    upper_bound_fast,
    upper_bound_lmi,
    verify_upper_bound,
)

__all__ = ["MussvResult", "mussv", "mussv_stack", "verify_lower_bound", "verify_upper_bound"]

_METHODS = ("fast", "lmi")


@dataclass
class MussvResult:
    """Bounds on the structured singular value and their certificates.

    Attributes
    ----------
    upper : float or numpy.ndarray
        Upper bound(s) on ``mu`` (one per frequency for a stack).
    lower : float or numpy.ndarray
        Lower bound(s) on ``mu``.
    D : numpy.ndarray, shape (n, n) or (nw, n, n)
        Left D scaling of the upper bound (block diagonal, commuting with the structure).
        :meth:`scalings` gives the right one.
    G : numpy.ndarray, shape (n, n) or (nw, n, n)
        Left G scaling of the upper bound (Hermitian blocks on the real scalar blocks).
    delta : numpy.ndarray or None, or a list of them for a stack
        Perturbation ``(m, n)`` in the structure with ``det(I - M delta) = 0`` and
        ``max_i sigma_max(delta_i) = 1 / lower``; ``None`` where ``lower = 0``.
    blk : list of (int, int)
        The block structure, MATLAB ``mussv`` convention.
    method : str
        Upper-bound method used (``"fast"`` or ``"lmi"``).
    """

    upper: float | np.ndarray
    lower: float | np.ndarray
    D: np.ndarray
    G: np.ndarray
    delta: np.ndarray | None | list
    blk: list = field(default_factory=list)
    method: str = "fast"

    def scalings(self):
        """``(Dl, Dr, Gl, Gm, Gr)``: all five matrices of the upper-bound certificate.

        Examples
        --------
        >>> r = mussv(np.array([[1.0, 2.0], [3.0, 4.0]]), [(1, 1), (1, 1)])
        >>> [a.shape for a in r.scalings()]
        [(2, 2), (2, 2), (2, 2), (2, 2), (2, 2)]
        """
        return expand_scalings(self.blk, self.D, self.G)

    def __repr__(self) -> str:
        if np.ndim(self.upper) == 0:
            return (
                f"MussvResult(lower={self.lower:.6g}, upper={self.upper:.6g}, "
                f"blk={self.blk}, method={self.method!r})"
            )
        if np.size(self.upper) == 0:
            return f"MussvResult(0 frequencies, blk={self.blk}, method={self.method!r})"
        return (
            f"MussvResult({np.size(self.upper)} frequencies, max lower="
            f"{np.max(self.lower):.6g}, max upper={np.max(self.upper):.6g}, "
            f"blk={self.blk}, method={self.method!r})"
        )


def _check_normal_range(Ms, single):
    # The LAPACK SVD does not converge on a matrix of subnormal numbers, and their
    # relative precision is below what a certificate needs.
    big = np.abs(Ms).max(axis=(-2, -1), initial=0.0)
    tiny = (big > 0) & (big < np.finfo(float).tiny)
    if tiny.any():
        k = int(np.flatnonzero(tiny)[0])
        where = "M" if single else f"M[{k}]"
        raise FloatRangeError(
            f"{where}: its largest entry {big[k]:.3g} is below the normal range of double "
            "precision; scale it (mu(c M) = |c| mu(M))"
        )


def mussv(M, blk, *, method="fast", lower=True, options="", seed=0):
    """Bounds on the structured singular value of a matrix or a frequency stack.

    Parameters
    ----------
    M : array_like, shape (n, m) or (nw, n, m)
        Complex (or real) matrix, or a stack of them (e.g. a frequency response
        ``M(j w_k)``); ``n = sum c`` rows and ``m = sum r`` columns.
    blk : list of (r, c)
        Uncertainty structure, MATLAB ``mussv`` convention: ``(-r, 0)`` real repeated
        scalar ``delta I_r``, ``(r, 0)`` complex repeated scalar, ``(r, c)`` complex full
        block of size ``r x c`` (so ``Delta`` is ``(sum r) x (sum c)``).
    method : {"fast", "lmi"}
        Upper bound: ``"fast"`` (Osborne balancing, then a batched BFGS on the D,G bound,
        vectorised over the stack) or ``"lmi"`` (the fast result refined to the optimal
        D,G bound by semidefinite programming with cvxpy, one frequency at a time).
    lower : bool
        Compute the lower bound (power iteration, plus a boundary search for real
        blocks).  When False, ``lower`` is 0 and ``delta`` is None.
    options : str
        MATLAB-style letters, applied after ``method``/``lower``: ``"a"`` LMI upper bound,
        ``"f"`` fast upper bound, ``"U"`` upper bound only, ``"s"`` silent (nothing is
        printed in any case).  MATLAB's other letters are refused.
    seed : int
        Seed of the random starting points (results are reproducible); non-negative.

    Returns
    -------
    MussvResult
        ``upper``, ``lower`` (floats, or arrays of length ``nw`` for a stack) with the
        certificates ``D``, ``G`` and ``delta``.

    Raises
    ------
    ArgumentError
        ``method`` is not one of ``"fast"``, ``"lmi"``; an ``options`` letter is not one
        of the above; ``lower`` is not a bool; ``seed`` is not a non-negative integer.
    UncertainTypeError
        ``options`` is not a string.
    DimensionError
        ``blk`` is malformed or does not fit the shape of ``M`` (the message lists what
        every block reads and drives).
    IllPosedError
        ``M`` has non-finite entries.
    FloatRangeError
        A nonzero matrix of ``M`` has all its entries below the normal range of double
        precision (``|m_ij| < 2.2e-308``): scale it, ``mu(c M) = |c| mu(M)``.

    Notes
    -----
    Upper bound: ``mu(M) <= beta`` when
    ``sigma_max((I + Gl^2)^(-1/4) (Dl M Dr^-1 / beta - j Gm)(I + Gr^2)^(-1/4)) <= 1``
    (Fan, Tits & Doyle 1991; Young, Newlin & Doyle 1995).  An upper bound of exactly 0
    (possible only with real blocks) is certified by the ``beta -> 0`` form described
    in :func:`~robustmb.analysis.mu_upper.upper_bound_margin`.

    With ``lower=True``, a matrix whose upper bound stays more than 1000 times above its
    lower bound is bounded again from a balancing that may spread the D scalings up to
    ``e^600`` (as long as the similarity by powers of two stays exact): a block-triangular
    ``M`` with off-diagonal entries 60 orders above its diagonal (``mu`` its largest
    diagonal entry) needs that.  With ``lower=False`` (no gap known) this retry does
    not run, and the bound may stay loose by that much.  A real block whose optimal G
    scaling makes the certificate fail its rounding test (a nearly real ``M``, as at
    very low frequency) falls back on the D scalings of the structure relaxed to
    complex blocks before ``sigma_max(M)``.

    Examples
    --------
    A single full block gives the largest singular value, a repeated complex scalar
    the spectral radius:

    >>> import numpy as np
    >>> M = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> r = mussv(M, [(2, 2)])
    >>> round(r.upper, 6), round(r.lower, 6)
    (5.464986, 5.464986)
    >>> r = mussv(M, [(2, 0)])
    >>> round(r.upper, 6), round(r.lower, 6)
    (5.372281, 5.372281)

    The certificates are checked independently:

    >>> from robustmb.analysis.mu_upper import verify_upper_bound
    >>> from robustmb.analysis.mu_lower import verify_lower_bound
    >>> bool(verify_upper_bound(M, [(2, 0)], r.upper, r.D, r.G))
    True
    >>> bool(verify_lower_bound(M, [(2, 0)], r.delta, lower=r.lower))
    True

    A real scalar that no real value can destabilise has ``mu = 0``:

    >>> r = mussv(np.array([[3.0 - 4.0j]]), [(-1, 0)])
    >>> r.upper, r.lower, r.delta
    (0.0, 0.0, None)
    """
    struct = BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    _check_normal_range(Ms, single)
    if method not in _METHODS:
        raise ArgumentError(f"mussv: method must be one of {_METHODS}, got {method!r}")
    if not isinstance(options, str):
        raise UncertainTypeError(f"mussv: options must be a string of letters, got {options!r}")
    for letter in options:
        if letter == "a":
            method = "lmi"
        elif letter == "f":
            method = "fast"
        elif letter == "U":
            lower = False
        elif letter != "s":  # "s" (silent): nothing is printed anyway
            raise ArgumentError(
                f"mussv: options letter {letter!r} is not supported; the letters are 'a' "
                "(LMI upper bound), 'f' (fast upper bound), 'U' (upper bound only) and 's' "
                "(silent)"
            )
    if not isinstance(lower, bool | np.bool_):
        raise ArgumentError(f"mussv: lower must be True or False, got {lower!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ArgumentError(f"mussv: seed must be a non-negative integer, got {seed!r}")
    with single_blas_thread():
        return _mussv(Ms, single, struct, method, lower, seed)


def mussv_stack(M, blk, *, lower=True, lower_floor=0.0, target=None, rel_target=None, seed=0):
    """:func:`mussv` (fast method) on a frequency stack, tuned for a sweep over frequency.

    Used by :func:`~robustmb.analysis.mu_sweep.certified_mu_peak`, which needs tight
    bounds only where ``mu`` is large and only the largest lower bound.  The certificates
    are those of :func:`mussv` (and are checked the same way); only the effort changes.

    Parameters
    ----------
    M : array_like, shape (nw, n, m)
    blk : list of (r, c)
    lower : bool or "peak"
        ``"peak"``: lower bounds only where they can raise the largest one: matrices are
        taken by decreasing upper bound, a few at a time, and the search stops once every
        remaining upper bound is below the best lower bound found (which is then the
        largest lower bound of the stack that the search would find).  Elsewhere
        ``lower`` is 0 and ``delta`` None.
    lower_floor : float
        With ``"peak"``: a lower bound already known to the caller (matrices whose upper
        bound does not exceed it are skipped).
    target : float or array_like, optional
        The optimisation of a matrix's upper bound may stop once it is at or below
        ``target`` (the bound is still a valid, certified one).
    rel_target : float, optional
        Same, relative to the largest upper bound of the stack.
    seed : int

    Returns
    -------
    MussvResult

    Raises
    ------
    ArgumentError
        ``lower`` is not True, False or ``"peak"``; ``lower_floor``, ``target`` or
        ``rel_target`` is negative or nan; ``seed`` is not a non-negative integer.

    Examples
    --------
    >>> import numpy as np
    >>> M = np.array([[[1.0, 2.0], [3.0, 4.0]], [[0.1, 0.0], [0.0, 0.1]]])
    >>> r = mussv_stack(M, [(1, 0), (1, 0)], lower="peak", lower_floor=1.0)
    >>> np.round(r.upper, 4), np.round(r.lower, 4)
    (array([5.3723, 0.1   ]), array([5.3723, 0.    ]))
    """
    struct = BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    _check_normal_range(Ms, single)
    _check_stack_options(lower, lower_floor, target, rel_target, seed)
    with single_blas_thread():
        return _mussv(
            Ms,
            single,
            struct,
            "fast",
            lower,
            seed,
            lower_floor=lower_floor,
            target=target,
            rel_target=rel_target,
        )


def _check_stack_options(lower, lower_floor, target, rel_target, seed):
    """Refuse the :func:`mussv_stack` options that would silently change its result."""
    if not (isinstance(lower, bool | np.bool_) or (isinstance(lower, str) and lower == "peak")):
        raise ArgumentError(f"mussv_stack: lower must be True, False or 'peak', got {lower!r}")
    for name, value in (
        ("lower_floor", lower_floor),
        ("target", target),
        ("rel_target", rel_target),
    ):
        if value is None and name != "lower_floor":
            continue
        try:
            v = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ArgumentError(f"mussv_stack: {name} must be a number, got {value!r}") from None
        if not np.all(v >= 0):  # also catches nan
            raise ArgumentError(f"mussv_stack: {name} must be >= 0 (not nan), got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ArgumentError(f"mussv_stack: seed must be a non-negative integer, got {seed!r}")


def warm_upper_bounds(M, blk, *, target=None, x0=None, seed=0, polish_target=None):
    """Certified D,G upper bounds of a stack, the optimiser started from given scalings.

    For a sequence of closely related stacks (the levels of a bisection, neighbouring
    frequencies): the optimiser's parameters returned for one stack start the next.
    The start only changes the effort; every bound is certified as in :func:`mussv`
    (the D,G certificate is rebuilt and checked by
    :func:`~robustmb.analysis.mu_upper.upper_bound_margin`, ``upper`` nudged up past
    any rounding), whatever ``x0`` holds.

    Parameters
    ----------
    M : array_like, shape (nw, n, m)
    blk : list of (r, c)
    target : float or array_like, optional
        The optimisation of a matrix's bound may stop once it is at or below ``target``
        (``>= 0``, one value or one per matrix; ``ArgumentError`` otherwise).
    x0 : numpy.ndarray, shape (nw, p), optional
        Starting parameters (as returned here for a stack of the same structure); rows
        with a non-finite entry, or no ``x0``, start from Osborne balancing.
    seed : int
    polish_target : float, optional
        Bounds at or below it after the BFGS stages are not polished by block Newton
        (structures with repeated scalars and at least 200 parameters, see
        :func:`~robustmb.analysis.mu_upper.upper_bound_fast`): the polish costs 8-23 times
        the BFGS stages there and is only needed where a bound must still come down.

    Returns
    -------
    upper : numpy.ndarray, shape (nw,)
    x : numpy.ndarray, shape (nw, p)
        The optimiser's parameters at the bounds (zero rows where ``M`` is zero).

    Examples
    --------
    >>> import numpy as np
    >>> M = np.array([[[1.0, 2.0], [3.0, 4.0]]])
    >>> up, x = warm_upper_bounds(M, [(1, 0), (1, 0)])
    >>> up2, _ = warm_upper_bounds(1.01 * M, [(1, 0), (1, 0)], x0=x)
    >>> bool(abs(up2[0] / up[0] - 1.01) < 1e-6)
    True
    """
    struct = BlockStructure(blk)
    Ms, _ = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    nw = Ms.shape[0]
    param = scaling_parametrization(struct)
    p = param.p
    out = np.zeros((nw, p))
    cold = np.ones(nw, dtype=bool)
    if x0 is not None:
        x0 = np.asarray(x0, dtype=float)
        if x0.shape != (nw, p):
            raise DimensionError(f"x0: expected shape {(nw, p)}, got {x0.shape}")
        cold = ~np.all(np.isfinite(x0), axis=1)
    upper = np.zeros(nw)
    tgt = None
    if target is not None:
        try:
            tgt = np.broadcast_to(np.asarray(target, dtype=float), (nw,))
        except (TypeError, ValueError):
            raise ArgumentError(
                f"warm_upper_bounds: target must be a number or an array of {nw} numbers; "
                f"got {target!r}"
            ) from None
        if not np.all(tgt >= 0):  # also catches nan
            raise ArgumentError(
                f"warm_upper_bounds: target must be >= 0 (inf allowed), not nan; got {target!r}"
            )
    with single_blas_thread():
        for rows, start in ((np.flatnonzero(cold), None), (np.flatnonzero(~cold), x0)):
            if rows.size == 0:
                continue
            fast = None
            sub = np.zeros((rows.size, p))
            if start is not None:
                scale = np.linalg.norm(Ms[rows], 2, axis=(-2, -1))
                xs = start[rows].copy()
                xs[:, param.n_d :] /= np.where(scale > 0, scale, 1.0)[:, None]
                # from a near-optimal start the coarse smoothing stage would only move away
                fast = {"x0": xs, "smoothing": (1e3, 1e5), "jitter": 0.0}
            res = _mussv(
                Ms[rows],
                False,
                struct,
                "fast",
                False,
                seed,
                target=None if tgt is None else tgt[rows],
                fast=fast,
                scalings=sub,
                polish_target=polish_target,
            )
            upper[rows] = res.upper
            out[rows] = sub
    return upper, out


def warm_certificates(M, blk, x0, target=None, *, with_scalings=False, polish_target=None):
    """:func:`warm_upper_bounds` with the certificates: ``(upper, D, G)`` of a stack.

    ``D`` and ``G`` are the sigma_max-form scalings of :class:`MussvResult`, rebuilt from
    the optimiser's parameters and checked (``upper`` nudged past rounding) by the same
    test as every bound of :func:`mussv`.  Rows of ``x0`` with a non-finite entry start
    cold (Osborne balancing).  With ``with_scalings`` the optimiser's parameters are
    returned too, ``(upper, D, G, x)``, to start a later, related stack.
    ``polish_target`` is passed on to :func:`warm_upper_bounds`.

    Examples
    --------
    >>> M = np.array([[[1.0, 2.0], [3.0, 4.0]]])
    >>> _, x = warm_upper_bounds(M, [(1, 0), (1, 0)])
    >>> up, D, G = warm_certificates(1.01 * M, [(1, 0), (1, 0)], x)
    >>> from robustmb.analysis.mu_upper import verify_upper_bound
    >>> bool(verify_upper_bound(1.01 * M, [(1, 0), (1, 0)], up, D, G, tol=1e-12)[0])
    True
    """
    struct = BlockStructure(blk)
    Ms, _ = as_matrix_stack(M)
    upper, x = warm_upper_bounds(Ms, blk, target=target, x0=x0, polish_target=polish_target)
    Dl, _, Gh = scaling_parametrization(struct).matrices(x)
    with single_blas_thread():
        upper, D, G = _certify(Ms, struct, upper, Dl, Gh)
    return (upper, D, G, x) if with_scalings else (upper, D, G)


def _mussv(
    Ms,
    single,
    struct,
    method,
    lower,
    seed,
    *,
    lower_floor=0.0,
    target=None,
    rel_target=None,
    fast=None,
    scalings=None,
    polish_target=None,
):
    nw = Ms.shape[0]
    n = struct.n_z
    scale = np.linalg.norm(Ms, 2, axis=(-2, -1))
    nz = scale > 0
    upper = np.zeros(nw)
    lower_v = np.zeros(nw)
    D = np.broadcast_to(np.eye(n, dtype=complex), (nw, n, n)).copy()
    G = np.zeros((nw, n, n), dtype=complex)
    deltas: list = [None] * nw
    if nz.any():
        idx = np.flatnonzero(nz)
        Mn = Ms[idx] / scale[idx, None, None]
        s = scale[idx]
        stop = _stop_rule(
            s, target if target is None else np.broadcast_to(target, (nw,))[idx], rel_target
        )
        opts = dict(fast or {})
        if opts.get("x0") is not None:
            opts["x0"] = opts["x0"][idx]
        if polish_target is not None:
            opts["polish_stop"] = _stop_rule(s, np.broadcast_to(polish_target, (nw,))[idx], None)
        phi, x, param = upper_bound_fast(Mn, struct, seed=seed, stop=stop, **opts)
        if scalings is not None:
            # the optimiser's parameters in the coordinates of the unnormalised stack
            # (G scales with the matrix, D does not)
            xs = x.copy()
            xs[:, param.n_d :] *= s[:, None]
            scalings[idx] = xs
        Dl, Dr, Gh = param.matrices(x)
        if method == "lmi":
            for j in range(len(idx)):
                phi[j], Dl[j], Dr[j], Gh[j] = upper_bound_lmi(Mn[j], struct, Dl[j], Dr[j], Gh[j])
        beta_n = np.sqrt(np.maximum(phi, 0.0))
        beta, Dc, Gc = _certify(Ms[idx], struct, beta_n * s, Dl, Gh * s[:, None, None])
        _relaxed_fallback(Ms[idx], Mn, s, struct, seed, beta, Dc, Gc)
        upper[idx], D[idx], G[idx] = beta, Dc, Gc
        if lower:
            todo = np.flatnonzero(beta > 0)
            for chunk in _lower_chunks(todo, beta, lower == "peak", lower_floor, lower_v):
                b_init, w_init = _top_vectors(Mn[chunk], Dl[chunk], Dr[chunk], Gh[chunk])
                lo, dl = lower_bound(Mn[chunk], struct, b_init, w_init, seed=seed)
                for j, k in enumerate(chunk):
                    if dl[j] is not None:
                        # the bound from the unnormalised matrix (Ms / s rounds), with
                        # the eigenvalue's rounding error taken off (never above mu)
                        lower_v[idx[k]], deltas[idx[k]] = certified_lower(
                            Ms[idx[k]], struct, dl[j] / s[k]
                        )
                        if lower_v[idx[k]] > upper[idx[k]]:
                            # above the certified upper bound: the lower one is wrong
                            lower_v[idx[k]], deltas[idx[k]] = 0.0, None
    if nz.any() and lower is True:
        _wide_retry(Ms, Mn, idx, s, struct, seed, upper, lower_v, D, G)
    blk_list = [b.blk for b in struct.blocks]
    if single:
        return MussvResult(
            float(upper[0]), float(lower_v[0]), D[0], G[0], deltas[0], blk_list, method
        )
    return MussvResult(upper, lower_v, D, G, deltas, blk_list, method)


def _relaxed_fallback(Ms, Mn, s, struct, seed, beta, D, G):
    """Rows whose D,G scalings failed the rounding test of the certificate (their bound
    fell back to ``sigma_max(M)``, with ``D = I``): the D scalings of the structure with
    every real block relaxed to a complex one (``G = 0``), certified for the real
    structure, replace them where lower.  Updates ``beta, D, G`` in place.

    The optimal G of a real block on a nearly real ``M`` grows as the inverse of its
    imaginary part (a loop at very low frequency, e.g. through an integrator): such
    scalings fail the test, while the D-only bound is often far below ``sigma_max``.
    """
    if not struct.has_real:
        return
    redo = np.flatnonzero(beta >= s)
    if redo.size == 0:
        return
    relaxed = BlockStructure([(abs(r), c) for r, c in (b.blk for b in struct.blocks)])
    phi, x, param = upper_bound_fast(Mn[redo], relaxed, seed=seed)
    Dl, _, _ = param.matrices(x)
    trial = np.sqrt(np.maximum(phi, 0.0)) * s[redo]
    zero = np.zeros((redo.size,) + G.shape[1:], dtype=complex)
    bc, Dc, Gc = _certify(Ms[redo], struct, trial, Dl, zero)
    better = bc < beta[redo]
    rows = redo[better]
    beta[rows], D[rows], G[rows] = bc[better], Dc[better], Gc[better]


# Ratio of the upper to the lower bound above which the upper bound is tried again from
# the wide prescaling of :func:`~robustmb.analysis.mu_upper.upper_bound_fast`.
_WIDE_GAP = 1e3


def _wide_retry(Ms, Mn, idx, s, struct, seed, upper, lower, D, G):
    """Rows whose upper bound stayed above ``_WIDE_GAP`` times the lower one: the D,G
    bound again from the wide prescaling (a block-triangular ``M`` whose D scalings
    must spread beyond ``e^80``), certified, kept where lower.  In place."""
    redo = np.flatnonzero((lower[idx] > 0) & (upper[idx] > _WIDE_GAP * lower[idx]))
    if redo.size == 0:
        return
    phi, x, param = upper_bound_fast(Mn[redo], struct, seed=seed, wide=True)
    Dl, _, Gh = param.matrices(x)
    trial = np.sqrt(np.maximum(phi, 0.0)) * s[redo]
    bc, Dc, Gc = _certify(Ms[idx[redo]], struct, trial, Dl, Gh * s[redo, None, None])
    better = bc < upper[idx[redo]]
    rows = idx[redo[better]]
    upper[rows], D[rows], G[rows] = bc[better], Dc[better], Gc[better]


def _stop_rule(s, target, rel_target):
    """``stop(phi)`` for :func:`upper_bound_fast` (``phi`` normalised by ``s^2``)."""
    if target is None and rel_target is None:
        return None
    goal = None if target is None else (np.asarray(target, float) / s) ** 2

    def stop(phi):
        out = np.zeros(phi.shape, dtype=bool)
        if goal is not None:
            out |= phi <= goal
        if rel_target is not None:
            beta2 = np.maximum(phi, 0.0) * s**2
            out |= beta2 <= rel_target**2 * np.max(beta2)
        return out

    return stop


def _lower_chunks(todo, beta, peak_only, floor, found):
    """Index sets for the lower-bound search (all at once, or by decreasing upper bound).

    ``found`` is the lower-bound array being filled (read before every chunk).
    """
    if not peak_only:
        if todo.size:
            yield todo
        return
    order = todo[np.argsort(-beta[todo], kind="stable")]
    size = 3
    while order.size:
        best = max(floor, float(np.max(found, initial=0.0)))
        order = order[beta[order] > best]
        if order.size == 0:
            return
        yield order[:size]
        order = order[size:]
        size *= 2


def _top_vectors(Mn, Dl, Dr, Gh):
    """Starting vectors of the power iteration from the optimal scaling.

    The top eigenvector ``v`` of ``A^H A + j(A^H Gh - Gh^H A)`` (``A = Dl M Dr^-1``)
    maps back to ``b = Dr^-1 v`` and ``w = Dr^H v``.
    """
    _, X = _gevp_form(Mn, Dl, Dr, Gh)
    _, V = np.linalg.eigh(X)
    v = V[:, :, -1]
    b = np.linalg.solve(Dr, v[..., None])[..., 0]
    w = np.einsum("bji,bj->bi", Dr.conj(), v)
    return b, w


def _certify(M, struct, beta, Dl, Gh):
    """Certificates in the sigma_max form, ``beta`` raised past rounding: the test of
    :func:`~robustmb.analysis.mu_rounding.certify_scalings` (shared with the frequency
    certificates), which also keeps ``beta = 0`` only with a proof of ``mu = 0``."""
    return certify_scalings(M, struct, beta, Dl, Gh)
