"""The D,G certificate of the mu upper bound: its sigma_max form and its margin.

A certificate of ``mu(M) <= beta`` is a pair of scalings ``(D, G)`` (left matrices; the
right ones follow from the block structure, :func:`expand_scalings`) for which
``sigma_max((I + Gl^2)^(-1/4) (Dl M Dr^-1 / beta - j Gm) (I + Gr^2)^(-1/4)) <= 1``
(Fan, Tits & Doyle 1991; Young, Newlin & Doyle 1995).  :func:`certificate_from_gevp`
turns the optimiser's internal scalings into that form, :func:`upper_bound_margin`
evaluates the condition (the value compared with 1), and
:mod:`~robustmb.analysis.mu_rounding` bounds the rounding error of that value.
"""

from __future__ import annotations

import numpy as np

from .mu_structure import REAL, BlockStructure, as_matrix_stack, dagger, hermitian_power

__all__ = ["certificate_from_gevp", "expand_scalings", "upper_bound_margin"]


def _scaled_matrix(M, Dl, Dr):
    """``Dl M Dr^-1`` (a stack), by a solve rather than an inverse."""
    return dagger(np.linalg.solve(dagger(Dr), dagger(Dl @ M)))


def certificate_from_gevp(struct: BlockStructure, beta, Dl, Gh):
    """Turn the internal scaling ``(Dl, Gh)`` at bound ``beta`` into the sigma_max form.

    With ``G' = -Gh / beta`` the internal condition is
    ``sigma_max((Dl M Dr^-1/beta - j G')(I + G'^H G')^(-1/2)) <= 1``; the symmetric
    Young-Newlin-Doyle form follows with ``D = (I + Gl'^2)^(1/4) Dl``.
    For ``beta = 0`` the scalings are returned unchanged with ``G = -Gh`` (see
    :func:`verify_upper_bound`).
    """
    beta = np.asarray(beta, dtype=float)
    B = Dl.shape[0]
    Gl = np.zeros((B, struct.n_z, struct.n_z), dtype=complex)
    for b in struct.blocks:
        if b.kind == REAL:
            Gl[:, b.z, b.z] = Gh[:, b.z, b.w]
    pos = beta > 0
    scale = np.where(pos, 1.0 / np.where(pos, beta, 1.0), 1.0)
    Gl = -Gl * scale[:, None, None]
    D = Dl.copy()
    if struct.has_real and pos.any():
        F = hermitian_power(Gl[pos], 0.25)
        D[pos] = F @ Dl[pos]
    return D, Gl


def expand_scalings(blk, D, G=None):
    """The five scaling matrices ``(Dl, Dr, Gl, Gm, Gr)`` of a certificate ``(D, G)``.

    ``D`` and ``G`` are the left (``n_z x n_z``) matrices stored in a
    :class:`~robustmb.analysis.mussv.MussvResult`; the right ones follow from
    the block structure (MATLAB's ``mussvunwrap`` returns the same five matrices).

    Examples
    --------
    >>> Dl, Dr, Gl, Gm, Gr = expand_scalings([(1, 2), (-1, 0)], np.diag([2.0, 2.0, 1.0]))
    >>> Dr.real
    array([[2., 0.],
           [0., 1.]])
    >>> Gm.shape
    (3, 2)
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    D = np.asarray(D)
    G = np.zeros(D.shape, dtype=complex) if G is None else np.asarray(G)
    return D, struct.right_scaling(D), G, struct.middle_g(G), struct.right_g(G)


def upper_bound_margin(M, blk, beta, D, G=None):
    """Value that :func:`verify_upper_bound` compares with 1 (or with 0 when ``beta = 0``).

    For ``beta > 0`` the condition is ``sigma_max(Y) <= 1`` with::

        Y = (I + Gl^2)^(-1/4) (Dl M Dr^-1 / beta - j Gm) (I + Gr^2)^(-1/4),

    evaluated in the equivalent form ``lambda_max(W) <= 1``, ``W = B^H B + j(Gm^H B -
    B^H Gm)``, ``B = (I + Gl^2)^(-1/4) (Dl M Dr^-1 / beta) (I + Gr^2)^(1/4)``; the value
    returned is ``sign(l) sqrt(|l|)``, ``l = lambda_max(W)``.  It equals ``sigma_max(Y)``
    when ``G = 0`` and is on the same side of 1 in general, but unlike ``sigma_max(Y)``
    it moves with ``beta`` like ``beta_min / beta``: for large ``G``, ``sigma_max(Y)`` is
    ``1 - O(1/G^2)`` whatever ``beta`` is, so a rounding error (or a tolerance) on it
    would stand for a ``G^2`` times larger error in the certified ``beta``.

    For ``beta = 0`` (a certificate of ``mu = 0``, possible with real blocks only) it is
    ``lambda_max(A^H A - j(A^H Gm - Gm^H A)) / s^2`` with ``A = Dl M Dr^-1`` and ``s`` the
    power of two in ``(sigma_max(A), 2 sigma_max(A)]`` (``A``, ``Gm`` are divided by it,
    exactly, before the product): the ``beta -> 0`` limit of the condition above with ``G``
    scaled by ``beta``; ``mu = 0`` is proven when it is ``<= 0``.

    Works on one matrix or on a stack (``M``: ``(nw, n, m)``, ``beta``: ``(nw,)``,
    ``D``, ``G``: ``(nw, n, n)``), returning a float or an array.

    Examples
    --------
    >>> M = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> round(float(upper_bound_margin(M, [(2, 2)], 5.5, np.eye(2))), 4)
    0.9936
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    out, _ = _margin(Ms, struct, beta, D, G)
    return float(out[0]) if single else out


def _margin(Ms, struct, beta, D, G, *, allowance=None):
    """:func:`upper_bound_margin` on a stack, and its rounding bound by ``allowance``
    (:func:`~robustmb.analysis.mu_rounding.margin_rounding_allowance`) when given."""
    nw = Ms.shape[0]
    beta = np.broadcast_to(np.asarray(beta, dtype=float), (nw,))
    D = np.broadcast_to(np.asarray(D, dtype=complex), (nw, struct.n_z, struct.n_z))
    if G is None:
        G = np.zeros_like(D)
    G = np.broadcast_to(np.asarray(G, dtype=complex), (nw, struct.n_z, struct.n_z))
    Dl, Dr, Gl, Gm, Gr = expand_scalings(struct, D, G)
    A = _scaled_matrix(Ms, Dl, Dr)
    out = np.empty(nw)
    delta = np.zeros(nw)
    pos = beta > 0
    if pos.any():
        # ||Y|| <= 1  <=>  (A/beta - jGm)^H Fl^-2 (A/beta - jGm) <= Fr^2 (F = (I + G^2)^(1/4));
        # with Fl^-1 Gm Fr = Gm and Fr^2 - Gm^H Fl^-2 Gm = Fr^-2 this is lambda_max(W) <= 1,
        # W = B^H B + j(Gm^H B - B^H Gm), B = Fl^-1 (A/beta) Fr.  W is evaluated, not Y:
        # for large G, ||Y|| = 1 - O(1/G^2) whatever beta is, so rounding (or a tolerance)
        # on ||Y|| would move the certified beta by G^2 times as much.  sqrt(lambda_max(W))
        # equals ||Y|| when G = 0 and is on the same side of 1 in general.
        # block by block (G is zero outside the real blocks): the identity elsewhere is
        # exact, and the rounding of each block stays in it (see mu_rounding)
        Lf = _block_power(struct, Gl[pos], -0.25, "z")
        Rf = _block_power(struct, Gr[pos], 0.25, "w")
        Gp = Gm[pos]
        Bm = Lf @ (A[pos] / beta[pos, None, None]) @ Rf
        GhB = dagger(Gp) @ Bm
        W = dagger(Bm) @ Bm + 1j * (GhB - dagger(GhB))
        lam = np.linalg.eigvalsh(0.5 * (W + dagger(W)))[:, -1]
        out[pos] = np.sign(lam) * np.sqrt(np.abs(lam))
        if allowance is not None:
            delta[pos] = allowance(
                struct, Ms[pos], Dl[pos], Dr[pos], A[pos], beta[pos], Lf, Rf, Gl[pos], Gp, Bm, W
            )
    if (~pos).any():
        # X / ||A||^2, from A and Gm divided by the power of two nearest ||A|| (exact;
        # X <= 0 is invariant under that scaling, and A^H A of a tiny A would underflow)
        # (ldexp, not a division: a complex division by a subnormal gives inf + nan j)
        nA = np.linalg.norm(A[~pos], 2, axis=(-2, -1))
        e = -np.frexp(np.where(nA > 0, nA, 1.0))[1][:, None, None]
        Az, Gz, Dz = (_pow2(Z[~pos], e) for Z in (A, Gm, Dl))
        AhG = dagger(Az) @ Gz
        X = dagger(Az) @ Az - 1j * (AhG - dagger(AhG))
        out[~pos] = np.linalg.eigvalsh(0.5 * (X + dagger(X)))[:, -1]
        if allowance is not None:
            # the same bound with B = Az, Gm -> -Gz and no (I + G^2) factors (beta = 1)
            one = np.ones(Az.shape[0])
            eye_z, eye_w = (np.broadcast_to(np.eye(k, dtype=complex), (one.size, k, k))
                            for k in Az.shape[-2:])  # fmt: skip
            Gl0 = np.zeros_like(Gl[~pos])
            # A's own scaling need not be exact (the allowance bounds A a posteriori),
            # but G's and Dl's must: the certificate is (Dl, G) scaled back
            exact = np.all((_pow2(Gz, -e) == Gm[~pos]) & np.isfinite(Gz), axis=(-2, -1))
            exact &= np.all(_pow2(Dz, -e) == Dl[~pos], axis=(-2, -1))
            dz = allowance(struct, Ms[~pos], Dz, Dr[~pos], Az, one, eye_z, eye_w, Gl0, -Gz, Az, X)
            delta[~pos] = np.where(exact, dz, np.inf)
    return out, delta


def _pow2(X, e):
    """``X 2^e`` by ``ldexp`` on the real and imaginary parts (``e`` broadcast)."""
    out = np.empty(X.shape, dtype=complex)
    out.real, out.imag = np.ldexp(X.real, e), np.ldexp(X.imag, e)
    return out


def _block_power(struct, G, p, side):
    """``(I + G^2)^p`` of a block-diagonal ``G`` (nonzero on the real blocks only)."""
    n = G.shape[-1]
    F = np.broadcast_to(np.eye(n, dtype=complex), G.shape).copy()
    for b in struct.blocks:
        if b.kind == REAL:
            sl = getattr(b, side)
            F[:, sl, sl] = hermitian_power(G[:, sl, sl], p)
    return F
