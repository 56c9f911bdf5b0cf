"""Rounding allowance of the D,G certificate test of the mu upper bound.

:func:`~robustmb.analysis.mu_upper.upper_bound_margin` evaluates the certificate
condition ``lambda_max(W) <= 1`` in floating point.  :func:`margin_rounding_allowance`
adds a first-order bound ``delta`` on the rounding error of the computed
``lambda_max(W)``, so that ``margin^2 + delta <= 1`` proves the exact condition for the
floating-point data: the solve with ``Dr`` (whose error grows with the conditioning of
``D`` as it acts on ``M``), the block-wise ``(I + G^2)^(-+1/4)`` (Daleckii-Krein divided
differences), the products and the eigenvalue are bounded entrywise.

:func:`certificate_excess` turns the margin and its allowance into one accept/reject
number; :func:`certify_scalings` raises a bound until its certificate passes (the upper
bounds of :func:`~robustmb.analysis.mussv.mussv`, of the frequency certificates of
:mod:`~robustmb.analysis.frequency_certificate`), and
:func:`~robustmb.analysis.mu_upper.verify_upper_bound` accepts by the same test.
"""

from __future__ import annotations

import numpy as np

from .mu_margin import _margin, _scaled_matrix, certificate_from_gevp
from .mu_structure import REAL, BlockStructure, as_matrix_stack, dagger

__all__ = ["certificate_excess", "certify_scalings", "margin_rounding_allowance"]

_EPS = np.finfo(float).eps
_TINY = 2.0**-1074  # the absolute error of a product that underflows
# a generous floor for the underflows after the solve (entries of order 1 there)
_FLOOR = 2.0**-1000
# largest rounding allowance accepted.  The solve's error is bounded a posteriori and the
# products of error bounds are in the allowance, so what it leaves out is relative g
# whatever delta is (no term of order delta^2); the limit keeps bounds whose margin is
# mostly rounding out, and would contain an error of the model
_DELTA_MAX = 0.25
# largest matrix whose nilpotency is decided exactly (integer powers of the matrix)
_EXACT_N = 10


def margin_rounding_allowance(M, blk, beta, D, G=None):
    """The margin of :func:`~robustmb.analysis.mu_upper.upper_bound_margin` and a bound on
    its rounding error: ``(margin, delta)``.

    For ``beta > 0`` the certificate condition is ``lambda_max(W) <= 1`` (see
    :func:`~robustmb.analysis.mu_upper.upper_bound_margin`); ``delta`` bounds the error of
    the computed ``lambda_max(W)`` (up to terms ``delta`` times a rounding, see below), so
    that ``margin^2 + delta <= 1`` (``margin >= 0``) or ``margin <= 0`` proves the exact
    condition for the given floating-point ``M``, ``D``, ``G``.  The analysis
    (``g = 4 n eps``, ``n`` the larger side of ``M``; ``|.|`` entrywise):

    * ``A = Dl M Dr^-1`` by a solve with ``Dr``: its error is bounded a posteriori (no
      assumption on the growth of the factorisation), entrywise by ``|R| |Dr^-1|``,
      ``R = Dl M - A Dr`` the residual (its own rounding and underflow included) and
      ``|Dr^-1|`` bounded through a computed inverse ``X`` and ``|| |I - Dr X| ||_inf < 1``;
      its 2-norm ``dA`` grows with the conditioning of ``D`` as it acts on ``M`` (1 for
      a diagonal ``D``: every entry of ``A`` is then a product of three numbers);
    * ``Lf = (I + Gl^2)^(-1/4)``, ``Rf = (I + Gr^2)^(1/4)`` (eigendecompositions):
      ``dLf``, ``dRf`` by the divided differences of ``(1 + x^2)^(-+1/4)`` over the
      eigenvalues of ``G`` (about ``g`` relative to ``||Lf||``, ``||Rf||`` for a large ``G``);
    * ``B = Lf (A / beta) Rf``: ``dB = ||Lf|| ||Rf|| dA / beta + (dLf ||Rf|| + ||Lf|| dRf)
      ||A|| / beta + g || |Lf| |A / beta| |Rf| ||``;
    * ``W = B^H B + j(Gm^H B - B^H Gm)`` and its largest eigenvalue:
      ``2 (||B|| + ||Gm||) dB + dB^2 + g (||B||^2 + 2 ||Gm|| ||B||) + g ||W||``,
      with ``dB`` entrywise, including the products of two error bounds (``dLf dA Rf``
      and the like), times ``1 + 1e-3`` for what is left out (second-order terms of
      relative size ``g``, whatever ``delta`` is), plus a floor for underflow.

    ``beta = 0`` rows (the ``mu = 0`` form of
    :func:`~robustmb.analysis.mu_upper.upper_bound_margin`, ``lambda_max(X) / ||A||^2``):
    ``delta`` bounds the error of that ratio in the same way (``B = A / ||A||``, no
    ``(I + G^2)`` factors), so that ``margin + delta <= 0`` proves ``X <= 0``.

    Examples
    --------
    A diagonal scaling with condition number ``1e10`` costs nothing: the scaled entries
    are exact to a few roundings.

    >>> M = np.array([[0.5, 1e-10], [1e10, 0.5]])
    >>> m, d = margin_rounding_allowance(M, [(1, 0), (1, 0)], 1.6, np.diag([1.0, 1e-10]))
    >>> bool(m < 1), bool(d < 1e-13)
    (True, True)
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    out, delta = _margin(Ms, struct, beta, D, G, allowance=_allowance)
    return (float(out[0]), float(delta[0])) if single else (out, delta)


def _norm2(X):
    return np.linalg.norm(X, 2, axis=(-2, -1))


def _power_error(G, p, g):
    """Bound on the error of ``(I + G^2)^p`` (a stack) computed by
    :func:`~robustmb.analysis.mu_structure.hermitian_power`.

    The eigendecomposition is exact for ``G + E``, ``||E|| <= g ||G||``, with
    eigenvectors unitary to ``g``.  By the Daleckii-Krein formula ``f(G + E) - f(G)`` has
    the entries ``f[w_i, w_j] (V^H E V)_ij`` in the eigenbasis (``f[.,.]`` the divided
    differences of ``f(x) = (1 + x^2)^p``), so its norm is at most
    ``sqrt(n) max |f[w_i, w_j]| ||E||``; the eigenvectors add ``3 g ||f(G)||``.  For large
    ``G`` this is ``g`` relative to ``f(G)``, not ``g ||G||``.
    """
    w = np.linalg.eigvalsh(0.5 * (G + dagger(G)))
    f = np.hypot(1.0, w) ** (2 * p)
    df = np.abs(2 * p * w * np.hypot(1.0, w) ** (2 * p - 2))
    wi, wj = w[:, :, None], w[:, None, :]
    gap = np.abs(wi - wj)
    near = gap <= 1e-3 * (1.0 + np.minimum(np.abs(wi), np.abs(wj)))
    with np.errstate(divide="ignore", invalid="ignore"):
        quot = np.abs(f[:, :, None] - f[:, None, :]) / gap * (1.0 + 1e-10)
    # on a short interval f' changes by less than a factor 2 (it varies on the scale
    # 1 + |x|); on any interval |f'(x)| <= 2 |p| |x| and (p = +-1/4) below 0.4
    wmax = np.maximum(np.abs(wi), np.abs(wj))
    close = np.minimum(2 * abs(p) * wmax, 0.4)
    local = 2.0 * np.maximum(df[:, :, None], df[:, None, :])
    close = np.where(wi * wj > 0, np.minimum(close, local), close)
    dd = np.where(near, close, quot)
    n = G.shape[-1]
    nG = np.max(np.abs(w), axis=-1)
    return np.sqrt(n) * np.max(dd, axis=(-2, -1)) * g * nG + 3 * g * np.max(f, axis=-1)


def _block_power_error(struct, G, p, g, side):
    """Entrywise bound on the error of :func:`_block_power` (uniform within a block)."""
    E = np.zeros(G.shape)
    for b in struct.blocks:
        if b.kind == REAL:
            sl = getattr(b, side)
            E[:, sl, sl] = _power_error(G[:, sl, sl], p, g)[:, None, None]
    return E


def _allowance(struct, M, Dl, Dr, A, beta, Lf, Rf, Gl, Gm, B, W):
    """Bound on the error of the computed ``lambda_max(W)`` (see
    :func:`margin_rounding_allowance`), by entrywise bounds: rounding errors then stay
    with the rows and columns that a large ``G`` scales down."""
    n = max(M.shape[-2:])
    g = 4 * n * _EPS
    b = beta[:, None, None]
    EA = _solve_error(M, Dl, Dr, A) / b
    aA, aL, aR = np.abs(A) / b, np.abs(Lf), np.abs(Rf)
    Gr = struct.right_g(Gl)
    EL = _block_power_error(struct, Gl, -0.25, g, "z")
    ER = _block_power_error(struct, Gr, 0.25, g, "w")
    # (Lf + dL)(A + dA)(Rf + dR) - Lf A Rf term by term, the products of errors included
    EB = aL @ EA @ aR + EL @ aA @ aR + aL @ aA @ ER + g * (aL @ aA @ aR)
    EB = EB + EL @ EA @ aR + aL @ EA @ ER + EL @ (aA + EA) @ ER
    aB, aG = np.abs(B), np.abs(Gm)
    EW = dagger(aB) @ EB + dagger(aG) @ EB
    # dB^H dB: the one product of two errors that is not a rounding times a first-order term
    EW = EW + dagger(EW) + dagger(EB) @ EB + g * (dagger(aB) @ aB + 2.0 * dagger(aG) @ aB)
    out = _norm2(EW) + g * _norm2(W)
    # left out: the second-order terms of the G-powers' perturbation (relative g^2) and
    # of the roundings of B and W (g times the terms above); 1 + 1e-3 covers them.
    # Products and sums that underflow err by an absolute 2^-1074 each: the floor
    # bounds those of B and W (entries of order 1 when the certificate can pass)
    scale = (1.0 + _norm2(aL) * _norm2(aR)) * (1.0 + _norm2(aB) + _norm2(aG))
    out = out * (1.0 + 1e-3) + n**3 * _FLOOR * scale**2
    return np.where(np.isfinite(out), out, np.inf)


def _solve_error(M, Dl, Dr, A):
    """Entrywise bound on ``|Dl M Dr^-1 - A|``, ``A`` the computed scaled matrix, a
    posteriori (no assumption on the growth of the factorisation).

    With the residual ``R = Dl M - A Dr`` (its rounding bounded by ``gamma (|Dl| |M| +
    |A| |Dr|)`` and an absolute ``2^-1074`` per product for underflow), the exact error
    is ``R Dr^-1``.  ``|Dr^-1|`` is bounded through a computed inverse ``X``: with
    ``E = I - Dr X`` and ``theta >= || |E| ||_inf`` (rounding included) below 1,
    ``Dr^-1 = X (I - E)^-1`` and ``|(I - E)^-1| <= I + theta / (1 - theta) J``
    (``J`` all ones: every entry of ``sum_k |E|^k``, ``k >= 1``, is at most its row sum).
    ``inf`` where ``theta >= 1``.
    """
    n = max(M.shape[-2:])
    nw = Dr.shape[-1]
    gam = 8 * (n + 2) * _EPS
    tiny = 4 * (n + 2) * _TINY
    aDr, aA = np.abs(Dr), np.abs(A)
    R = Dl @ M - A @ Dr
    Rb = np.abs(R) + gam * (np.abs(Dl) @ np.abs(M) + aA @ aDr) + tiny
    X = _inverse(Dr)
    aX = np.abs(X)
    eye = np.eye(nw)
    Eb = np.abs(eye - Dr @ X) + gam * (eye + aDr @ aX) + tiny
    theta = np.max(np.sum(Eb, axis=-1), axis=-1) * (1.0 + gam)
    ok = theta < 1.0
    tau = np.where(ok, theta / np.where(ok, 1.0 - theta, 1.0), np.inf)
    Y = aX + tau[:, None, None] * np.sum(aX, axis=-1, keepdims=True)
    return (Rb @ Y) * (1.0 + gam) + tiny


def _inverse(Dr):
    """``Dr^-1`` of a stack; ``inf`` for a matrix that is singular to the factorisation."""
    try:
        return np.linalg.inv(Dr)
    except np.linalg.LinAlgError:
        out = np.empty(Dr.shape, dtype=complex)
        for k in range(Dr.shape[0]):
            try:
                out[k] = np.linalg.inv(Dr[k])
            except np.linalg.LinAlgError:
                out[k] = np.inf
        return out


def certificate_excess(M, blk, beta, D, G=None):
    """How far a D,G certificate of ``mu(M) <= beta`` is from passing, rounding included:
    ``(over, load)``; the certificate proves the bound where ``over <= 0``.

    ``M`` and ``beta`` are first multiplied by a power of two near ``1 / sigma_max(M)``,
    and ``D`` by one near ``1 / max |D_ij|`` (the certificate condition is unchanged), when
    that is exact: a scaling that would lose a nonzero entry to underflow (or overflow) is
    not made.  Then, with ``margin`` and ``delta`` of :func:`margin_rounding_allowance`:

    * ``beta > 0``: ``over = margin - sqrt(1 - delta)``, so ``over <= 0`` is
      ``margin^2 + delta <= 1``; ``load = margin^2 + delta``, the factor by which
      ``beta`` is raised when the allowance is large;
    * ``beta = 0`` (``mu = 0`` claimed): ``over = margin + delta`` (the largest
      eigenvalue of the ``mu = 0`` form, relative, plus its rounding bound), or ``0`` for
      ``M = 0``; ``load = 0``.

    ``over = inf`` where ``delta > 1/4``: a bound whose margin is mostly rounding is not
    kept (the allowance itself needs no such limit: it leaves out terms of relative size
    ``eps`` only); ``load`` is then at least ``sqrt(4 delta)``, which brings ``delta``
    towards the limit (it falls at least like ``1 / beta``) without overshooting where it
    falls like ``1 / beta^2``.

    Works on one matrix or a stack; non-finite data give ``over = inf``.

    Examples
    --------
    >>> M = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> over, _ = certificate_excess(M, [(2, 2)], 5.47, np.eye(2))
    >>> bool(over <= 0)
    True
    >>> bool(certificate_excess(M, [(2, 2)], 5.46, np.eye(2))[0] <= 0)
    False
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    nw, n = Ms.shape[0], struct.n_z
    beta = np.array(np.broadcast_to(np.asarray(beta, dtype=float), (nw,)))
    D = np.broadcast_to(np.asarray(D, dtype=complex), (nw, n, n))
    G = np.zeros_like(D) if G is None else np.broadcast_to(np.asarray(G, dtype=complex), D.shape)
    over, load = np.full(nw, np.inf), np.zeros(nw)
    fin = np.isfinite(beta) & (beta >= 0)
    fin &= np.all(np.isfinite(Ms), axis=(1, 2)) & np.all(np.isfinite(D), axis=(1, 2))
    fin &= np.all(np.isfinite(G), axis=(1, 2))
    if fin.any():
        idx = np.flatnonzero(fin)
        Mi, Di, Gi, bi = Ms[idx], D[idx], G[idx], beta[idx]
        sig = np.linalg.norm(Mi, 2, axis=(-2, -1))
        zero = sig == 0
        pos = bi > 0
        # M, beta by 2^e ~ 1 / sigma_max(M), D by 2^f ~ 1 / max|D| (the certificate
        # condition is unchanged); the mu = 0 form's G scales with M, the sigma_max form's
        # is relative to beta.  A scaling that is not exact (an entry lost to underflow or
        # overflow, checked by scaling back) is not made
        e = -np.frexp(np.where(zero, 1.0, sig))[1]
        e = np.where(_exact(Mi, e) & _exact(bi[:, None, None], e), e, 0)
        e = np.where(pos | _exact(Gi, e), e, 0)
        f = -np.frexp(np.max(np.abs(Di), axis=(-2, -1)))[1]
        f = np.where(_exact(Di, f), f, 0)
        Gs = np.where(pos[:, None, None], Gi, _pow2(Gi, e))
        margin, delta = _checked_margin(_pow2(Mi, e), struct, np.ldexp(bi, e), _pow2(Di, f), Gs)
        small = delta <= _DELTA_MAX
        room = np.sqrt(np.clip(1.0 - delta, 0.0, None))
        out = np.where(small, np.maximum(margin, 0.0) - room, np.inf)
        out = np.where(pos, out, np.where(small, margin + delta, np.inf))
        out = np.where(zero, np.where(pos, -1.0, 0.0), out)  # mu(0) = 0, proven exactly
        over[idx] = np.where(np.isnan(out), np.inf, out)
        with np.errstate(over="ignore", invalid="ignore"):
            raise_by = np.maximum(margin, 0.0) ** 2 + delta
            raise_by = np.where(small, raise_by, np.maximum(raise_by, np.sqrt(delta / _DELTA_MAX)))
            load[idx] = np.where(pos & ~zero, raise_by, 0.0)
    return (float(over[0]), float(load[0])) if single else (over, load)


def _pow2(X, e):
    """``X 2^e`` (a stack, ``e`` one integer a matrix) by ``ldexp`` on the real and
    imaginary parts: exact unless a part underflows or overflows (a complex division by
    a subnormal power of two is not: it gives ``inf + nan j``)."""
    X = np.asarray(X)
    e = np.asarray(e).reshape((-1,) + (1,) * (X.ndim - 1))
    if not np.iscomplexobj(X):
        return np.ldexp(X, e)
    out = np.empty(X.shape, dtype=complex)
    out.real, out.imag = np.ldexp(X.real, e), np.ldexp(X.imag, e)
    return out


def _exact(X, e):
    """Rows of the stack ``X`` that ``2^e`` scales exactly (scaled back unchanged)."""
    with np.errstate(over="ignore", invalid="ignore"):
        back = _pow2(_pow2(X, e), -np.asarray(e))
    return np.all(back == X, axis=tuple(range(1, np.ndim(X))))


def _checked_margin(M, struct, beta, D, G):
    """:func:`margin_rounding_allowance` of a stack; ``inf`` for a row whose ``D`` is
    singular to the solve."""
    with np.errstate(all="ignore"):
        try:
            return margin_rounding_allowance(M, struct, beta, D, G)
        except np.linalg.LinAlgError:
            margin, delta = np.full(len(beta), np.inf), np.full(len(beta), np.inf)
            for k in range(len(beta)):
                try:
                    out = margin_rounding_allowance(M[k : k + 1], struct, beta[k : k + 1],
                                                    D[k : k + 1], G[k : k + 1])  # fmt: skip
                except np.linalg.LinAlgError:
                    continue
                margin[k], delta[k] = out[0][0], out[1][0]
            return margin, delta


def certify_scalings(M, blk, beta, Dl, Gh):
    """Certified bounds from the optimiser's scalings: ``(beta, D, G)`` in the sigma_max
    form, ``beta`` raised until :func:`certificate_excess` passes.

    The internal scalings ``(Dl, Gh)`` at ``beta`` are turned into the sigma_max form
    (:func:`~robustmb.analysis.mu_upper.certificate_from_gevp`) and kept only when
    ``margin^2 + delta <= 1`` (or ``margin <= 0``), ``delta`` a first-order bound on the
    rounding error of the computed margin.  The margin alone is not enough: the scaled
    matrix ``Dl M Dr^-1`` is computed by a solve with ``Dr``, whose error grows with the
    conditioning of ``D`` (optimal scalings of near-Jordan ``M`` have condition numbers
    of ``1e16`` to ``1e46``), so a fixed tolerance on the margin can accept a bound below
    ``mu``.  ``delta`` is a few ``eps`` for a diagonal ``D`` (every scaled entry is then
    a product of three numbers) and large only where ``D`` acts badly on ``M``, or where
    rounding in a large ``G`` is not scaled down.

    ``beta`` is raised until the test passes (by ``1 + 2 over``, or by the factor
    ``lambda_max(W) + delta`` when the allowance is large); a row that still fails after
    five raises gets ``inf``, and every row whose bound is above ``sigma_max(M)`` (raised
    past its own allowance) gets that bound with ``D = I``, ``G = 0`` when it passes the
    same test.

    ``beta = 0`` (``mu = 0``) is kept only with a proof: ``M = 0``, the ``mu = 0`` form of
    the certificate with its rounding allowance, or, for one repeated scalar block
    (``mu = 0`` when ``M`` is nilpotent) of size at most 10, ``M^n = 0`` in exact integer
    arithmetic.  Otherwise the row starts from ``beta = sqrt(lambda_max(X) + delta)``
    (the same scalings, ``X`` the ``mu = 0`` form) and is raised as above.

    Parameters
    ----------
    M : ndarray, shape (k, n, m)
    blk : list of (r, c) or BlockStructure
    beta : array_like, shape (k,)
    Dl, Gh : ndarray, shape (k, n, n) and (k, n, m)
        The optimiser's scalings (see :func:`~robustmb.analysis.mu_upper._gevp_form`).

    Returns
    -------
    beta : ndarray, shape (k,)
    D, G : ndarray, shape (k, n, n)

    Examples
    --------
    A real repeated scalar on a nilpotent ``2 x 2`` block has ``mu = 0``; with an
    ``e = 1e-100`` diagonal it has ``mu = e`` and the claim ``0`` is raised:

    >>> blk = [(-2, 0)]
    >>> N = np.array([[[0.0, 0.0], [1.0, 0.0]]])
    >>> Dl, Gh = np.eye(2)[None].astype(complex), np.zeros((1, 2, 2), complex)
    >>> float(certify_scalings(N, blk, [0.0], Dl, Gh)[0][0])
    0.0
    >>> b = certify_scalings(N + 1e-100 * np.eye(2), blk, [0.0], Dl, Gh)[0][0]
    >>> bool(b >= 1e-100)
    True
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    # rows with overflowing scalings end as inf (or the sigma_max bound), without warnings
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _certify_scalings(M, struct, np.array(beta, dtype=float), Dl, Gh)


def _certify_scalings(M, struct, beta, Dl, Gh):
    D, G = certificate_from_gevp(struct, beta, Dl, Gh)
    zero = np.flatnonzero(beta == 0)
    if zero.size:
        start = _zero_rows(M[zero], struct, D[zero], G[zero], Dl[zero], Gh[zero])
        beta[zero] = start
        moved = zero[start > 0]
        D[moved], G[moved] = certificate_from_gevp(struct, beta[moved], Dl[moved], Gh[moved])
    live = beta != 0  # zeros left here are proven; nan (a failed optimiser row) is not
    for k in range(5):
        over, load = certificate_excess(M, struct, beta, D, G)
        bad = live & ~(over <= 0)
        if not bad.any():
            break
        # X <= beta^2 holds with room at a slightly larger beta: rebuild those certificates.
        # The margin moves like beta_min / beta, so 1 + over is usually enough; along any
        # vector lambda(W) = s^2 p + s q (s = 1 / beta, p >= 0) falls at least like s,
        # so the margin at least like sqrt(s), and 1 + 2 over always is (later rounds).
        # A large rounding allowance (over > 1/2) takes the factor lambda_max(W) + delta.
        step = 1.0 + (1.0 if k == 0 else 2.0) * over[bad] + 1e-14
        big = ~(over[bad] <= 0.5)
        step[big] = load[bad][big] * (1.0 + 1e-14)
        raised = beta[bad] * step
        beta[bad] = np.where(np.isfinite(raised) & (raised > 0), raised, np.inf)
        D[bad], G[bad] = certificate_from_gevp(struct, beta[bad], Dl[bad], Gh[bad])
    else:
        bad = live & ~(certificate_excess(M, struct, beta, D, G)[0] <= 0)
    beta[bad] = np.inf
    # the unscaled bound sigma_max(M) (D = I, G = 0), raised past its own rounding
    # allowance, where it is smaller
    n = struct.n_z
    eye = np.broadcast_to(np.eye(n, dtype=complex), M.shape[:1] + (n, n))
    zero_g = np.zeros_like(eye)
    sig = np.linalg.norm(M, 2, axis=(-2, -1))
    worse = np.flatnonzero((beta > 0) & (beta > sig) & (sig > 0))
    if worse.size:
        e = -np.frexp(sig[worse])[1]
        _, delta = margin_rounding_allowance(
            _pow2(M[worse], e), struct, np.ldexp(sig[worse], e), eye[worse], zero_g[worse]
        )
        safe = sig[worse] * (1.0 + delta + 64 * max(M.shape[-2:]) * _EPS)
        over = certificate_excess(M[worse], struct, safe, eye[worse], zero_g[worse])[0]
        ok = (over <= 0) & (safe < beta[worse])
        worse, safe = worse[ok], safe[ok]
        beta[worse], D[worse], G[worse] = safe, eye[worse], zero_g[worse]
    return beta, D, G


def _zero_rows(M, struct, D, G, Dl, Gh):
    """``0`` where ``mu(M) = 0`` is proven for a row claimed ``mu = 0``, else a positive
    starting bound ``sqrt(lambda_max(X) + delta)`` (``X`` the ``mu = 0`` form)."""
    over, _ = certificate_excess(M, struct, np.zeros(M.shape[0]), D, G)
    out = np.zeros(M.shape[0])
    todo = np.flatnonzero(~(over <= 0))
    for k in todo:
        if not _nilpotent_proof(M[k], struct):
            out[k] = np.nan
    todo = np.flatnonzero(np.isnan(out))
    if todo.size:
        with np.errstate(all="ignore"):
            A = _scaled_matrix(M[todo], Dl[todo], struct.right_scaling(Dl[todo]))
            # over = (lambda_max(X) + delta) / ||A||^2, X the mu = 0 form of (Dl, Gh)
            start = np.sqrt(over[todo]) * np.linalg.norm(A, 2, axis=(-2, -1))
        sig = np.linalg.norm(M[todo], 2, axis=(-2, -1))
        bad = ~(np.isfinite(start) & (start > 0))
        start[bad] = sig[bad]
        out[todo] = np.maximum(start, np.finfo(float).tiny)
    return out


def _nilpotent_proof(M, struct):
    """True when ``mu(M) = 0`` is proven exactly: one repeated scalar block (real or
    complex; ``det(I - delta M) = 1`` for every ``delta`` iff ``M`` is nilpotent) and
    ``M^n = 0`` in integer arithmetic (floats are integers times a common power of two)."""
    n = M.shape[0]
    if len(struct.blocks) != 1 or not struct.blocks[0].is_scalar or n > _EXACT_N:
        return False
    parts = [np.real(M), np.imag(M)]
    ratios = [[float(v).as_integer_ratio() for v in P.ravel()] for P in parts]
    den = max(q for r in ratios for _, q in r)
    # (Re + j Im) as two integer matrices, scaled by the common power of two
    re, im = (np.array([p * (den // q) for p, q in r], dtype=object).reshape(n, n) for r in ratios)
    power = 1
    while power < n:
        re, im = re @ re - im @ im, re @ im + im @ re
        power *= 2
    return not (np.any(re != 0) or np.any(im != 0))
