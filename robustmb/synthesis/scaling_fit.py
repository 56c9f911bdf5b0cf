"""Rational fits of mu-synthesis scalings (used by :func:`.musyn.musyn`).

* :func:`fit_magnitude`: stable minimum-phase scalar with a given magnitude on a grid;
* :func:`fit_factor`: stable, minimum-phase square ``F(s)`` with ``F^H F ~ P(w)`` (full D
  scalings of repeated scalars);
* :func:`fit_skew` and :func:`skew_coprime`: a real block's G scaling as an exact
  para-skew-Hermitian ``h = H - H~`` and its normalised coprime factors, through which it
  is absorbed in the K-step.

All results are returned in balanced (or diagonal) realisations: modal forms of nearly
equal poles carry large cancelling residues that the K-step would inherit.
"""

from __future__ import annotations

import warnings

import control
import numpy as np
import scipy.linalg
import scipy.optimize
import slycot

__all__ = ["fit_factor", "fit_magnitude", "fit_skew", "skew_coprime"]


# Log-parameters are optimised with this offset: finite-difference steps are relative to
# the parameter, and a corner frequency of 1 rad/s (log 0) would get a useless step.
_OFF = 50.0


def _rational(params, order, s):
    g = np.exp(params[0])
    z = np.exp(params[1 : 1 + order] - _OFF)
    p = np.exp(params[1 + order :] - _OFF)
    val = np.full(s.shape, g, dtype=complex)
    for zj, pj in zip(z, p, strict=True):
        val *= (s + zj) / (s + pj)
    return val


def _fit_magnitude_params(omega, mag, max_order, fit_tol, weight):
    """``(order, g, zeros, poles)`` of the magnitude fit of :func:`fit_magnitude`.

    Each order starts from the previous order's fit with a new zero/pole pair placed
    where the weighted residual is largest (both ways round), and from evenly spread
    corners; the error compared with ``fit_tol`` is the weighted RMS of the log ratio.
    """
    omega, logm = np.asarray(omega, float), np.log(np.asarray(mag, float))
    wts = np.ones_like(omega) if weight is None else np.asarray(weight, float)
    s = 1j * omega
    best, prev = None, None
    # Corner frequencies stay within a decade of the grid: a pole or zero far outside
    # it is not determined by the data and would only add stiff or near-axis modes.
    lo_c, hi_c = np.log(omega[0] / 10) + _OFF, np.log(omega[-1] * 10) + _OFF
    for order in range(max_order + 1):

        def resid(x, order=order):
            return wts * (np.log(np.abs(_rational(x, order, s))) - logm)

        corners = np.exp(np.linspace(np.log(omega[0]), np.log(omega[-1]), order + 2)[1:-1])
        starts = [
            np.concatenate(
                [[np.median(logm)], np.log(corners) + _OFF, np.log(corners * 1.5) + _OFF]
            )
        ]
        if prev is not None and order:
            r = resid(prev, order - 1)
            wk = np.log(omega[int(np.argmax(np.abs(r)))]) + _OFF
            zp, pp = prev[1:order], prev[order:]
            for sign in (1.0, -1.0):
                starts.append(
                    np.concatenate([[prev[0]], zp, [wk + 0.4 * sign], pp, [wk - 0.4 * sign]])
                )
        lo = np.full(2 * order + 1, lo_c)
        hi = np.full(2 * order + 1, hi_c)
        lo[0], hi[0] = -np.inf, np.inf
        cur = None
        for x0 in starts:
            x0 = np.clip(x0, lo + 1e-9, hi - 1e-9)
            sol = scipy.optimize.least_squares(resid, x0, bounds=(lo, hi))
            if cur is None or sol.cost < cur.cost:
                cur = sol
        prev = cur.x
        err = np.sqrt(2 * cur.cost / np.sum(wts**2))
        if best is None or err < best[0] * 0.8:
            best = (err, order, cur.x)
        if err <= fit_tol:
            break
    err, order, x = best
    return order, np.exp(x[0]), np.exp(x[1 : 1 + order] - _OFF), np.exp(x[1 + order :] - _OFF)


def fit_magnitude(omega, mag, *, max_order=4, fit_tol=0.05, weight=None):
    """Stable minimum-phase ``d(s)`` with ``|d(j w)| ~ mag`` (least squares in log scale).

    Returns a ``control.StateSpace`` (a static gain for order 0) and the order used.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.logspace(-2, 2, 40)
    >>> mag = np.abs((1j * w + 1) / (1j * w + 10))
    >>> d, order = fit_magnitude(w, mag)
    >>> order, bool(np.allclose(np.abs(d(1j * w)).ravel(), mag, rtol=1e-3))
    (1, True)
    """
    order, g, z, p = _fit_magnitude_params(omega, mag, max_order, fit_tol, weight)
    if order == 0:
        return _static([[g]]), 0
    A, b, d = _modal_scalar(g, z, p)
    F = _balanced(control.ss(A, b[:, None], np.ones((1, order)), [[d]]))
    return F, F.nstates


def _distinct(a):
    """Real poles nudged apart (relative 1e-6) so that partial fractions exist."""
    a = np.sort(np.asarray(a, float))
    for i in range(1, a.size):
        a[i] = max(a[i], a[i - 1] * (1 + 1e-6))
    return a


def _modal_scalar(g, z, p):
    """``(A, b, c, d)``, diagonal ``A``, of ``g prod (s + z_j) / (s + p_j)``."""
    p = _distinct(p)
    res = np.array([g * np.prod(z - pj) / np.prod(np.delete(p, j) - pj) for j, pj in enumerate(p)])
    return np.diag(-p), res, float(g)


def fit_factor(omega, P, *, max_order=4, fit_tol=0.05, weight=None):
    """Stable, minimum-phase ``F(s)`` (``r x r``) with ``F(jw)^H F(jw) ~ P(w)``.

    ``P(w)`` (Hermitian positive definite, ``P(-w) = conj(P(w))``) is factored as
    ``C^H C`` (Cholesky, ``C`` upper triangular); the diagonal of ``C`` is fitted in
    magnitude (:func:`fit_magnitude`), which fixes a phase ``phi_k(w)`` for each row, and
    the off-diagonal entries of row ``k`` are fitted to ``exp(j phi_k) C_kj`` with the
    denominator of that row's diagonal entry (linear least squares).  ``diag(exp(j phi))``
    is unitary, so the target still factors ``P``; ``F`` is upper triangular with a
    minimum-phase diagonal and proper entries, so it has a stable inverse.  A row whose
    off-diagonal entries the diagonal's poles do not fit to ``fit_tol`` (relative RMS)
    gets extra real poles (up to ``max_order``, placed by variable projection).

    Parameters
    ----------
    omega : array_like, shape (nw,)
    P : array_like, shape (nw, r, r)
    max_order, fit_tol, weight
        As in :func:`fit_magnitude` (per diagonal entry).

    Returns
    -------
    F : control.StateSpace
    target : numpy.ndarray, shape (nw, r, r)
        The phase-corrected factor ``diag(exp(j phi)) C`` that ``F`` was fitted to.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.logspace(-2, 2, 50)
    >>> T = np.array([[[1 + 1 / (1j * x + 1), 0.3 / (1j * x + 2)], [0, 2.0]] for x in w])
    >>> P = np.conj(np.swapaxes(T, 1, 2)) @ T
    >>> F, _ = fit_factor(w, P)
    >>> Fw = np.array([F(1j * x) for x in w])
    >>> bool(np.allclose(np.conj(np.swapaxes(Fw, 1, 2)) @ Fw, P, rtol=1e-3, atol=1e-4))
    True
    """
    omega = np.asarray(omega, float)
    P = np.asarray(P, complex)
    r = P.shape[-1]
    C = np.conj(np.swapaxes(np.linalg.cholesky(0.5 * (P + np.conj(np.swapaxes(P, 1, 2)))), 1, 2))
    s = 1j * omega
    wts = np.ones_like(omega) if weight is None else np.asarray(weight, float)
    target = np.zeros_like(C)
    rows = []
    lo, hi = np.log(omega[0] / 10) + _OFF, np.log(omega[-1] * 10) + _OFF
    for k in range(r):
        order, g, z, p = _fit_magnitude_params(omega, C[:, k, k].real, max_order, fit_tol, weight)
        Ad, bd, dd = _modal_scalar(g, z, p)
        pd = -np.diag(Ad)
        dkk = dd + (bd[None, :] / (s[:, None] + pd[None, :])).sum(axis=1)
        target[:, k, :] = (dkk / np.abs(dkk))[:, None] * C[:, k, :]
        t = wts[:, None] * target[:, k, k + 1 :]
        rhs = np.vstack([t.real, t.imag])
        scale = (np.sqrt(np.mean(np.abs(t) ** 2)) if t.size else 1.0) + np.finfo(float).tiny

        def solve(loga, pd=pd, rhs=rhs):
            # off-diagonal entries of the row: c0 + sum_l c_l a_l / (s + a_l) over the
            # diagonal's poles and extra real poles
            a = _distinct(np.concatenate([pd, np.exp(loga - _OFF)]))
            V = np.hstack([np.ones((s.size, 1)), a[None, :] / (s[:, None] + a[None, :])])
            Vw = wts[:, None] * V
            lhs = np.vstack([Vw.real, Vw.imag])
            coef = np.linalg.lstsq(lhs, rhs, rcond=None)[0]
            return a, coef, lhs @ coef - rhs

        best = None
        for extra in range(max_order + 1 if k < r - 1 else 1):
            x0 = np.linspace(np.log(omega[0]), np.log(omega[-1]), extra + 2)[1:-1] + _OFF
            if extra:
                x0 = scipy.optimize.least_squares(
                    lambda x, solve=solve: solve(x)[2].ravel(),
                    x0,
                    bounds=(np.full(extra, lo), np.full(extra, hi)),
                ).x
            a_row, coef, res = solve(x0)
            err = np.sqrt(2 * np.mean(res**2)) / scale if k < r - 1 else 0.0
            if best is None or err < best[0] * 0.8:
                best = (err, a_row, coef)
            if err <= fit_tol:
                break
        _, a_row, coef = best
        # one state per pole: x_l' = -a_l x_l + b_l u, y_k = sum_l x_l + d u
        Bk = np.zeros((a_row.size, r))
        Bk[:, k + 1 :] = coef[1:] * a_row[:, None]
        # the diagonal's residues sit on its own poles (a_row contains them, nudged alike)
        idx = [int(np.argmin(np.abs(a_row - q))) for q in pd]
        Bk[idx, k] += bd
        Dk = np.zeros((1, r))
        Dk[0, k], Dk[0, k + 1 :] = dd, coef[0]
        rows.append((np.diag(-a_row), Bk, np.ones((1, a_row.size)), Dk))
    A = scipy.linalg.block_diag(*[x[0] for x in rows])
    B = np.vstack([x[1] for x in rows])
    Cm = scipy.linalg.block_diag(*[x[2] for x in rows])
    D = np.vstack([x[3] for x in rows])
    # nearly equal poles of different entries give large cancelling residues: balance
    return _balanced(control.ss(A, B, Cm, D)), target


def fit_skew(omega, S, *, max_order=4, fit_tol=0.05, weight=None):
    """Stable ``H(s)`` (``r x r``, strictly proper) with ``H(jw) - H(jw)^H ~ S(w)``.

    ``S(w)`` is skew-Hermitian with ``S(-w) = conj(S(w))`` (``-j G`` of a real block's
    G scaling); ``h = H - H~`` (``H~(s) = H(-s)^T``) is then an exact real-rational
    para-skew-Hermitian model of it, with poles mirrored about the imaginary axis.
    ``H = sum_l C_l a_l / (s + a_l)``: real ``C_l`` by linear least squares, the poles
    by variable projection, the lowest number up to ``max_order`` reaching ``fit_tol``.

    Returns
    -------
    H : control.StateSpace
    err : float
        Relative weighted RMS error of ``H - H^H`` on the grid.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.logspace(-2, 2, 40)
    >>> H0 = 3.0 / (1j * w + 2.0)
    >>> H, err = fit_skew(w, (H0 - np.conj(H0))[:, None, None])
    >>> H.nstates, bool(err < 1e-8)
    (1, True)
    """
    omega = np.asarray(omega, float)
    S = np.asarray(S, complex)
    nw, r, _ = S.shape
    s = 1j * omega
    wts = np.ones_like(omega) if weight is None else np.asarray(weight, float)
    T = (wts[:, None, None] * S).reshape(nw, -1)
    rhs = np.concatenate([T.real.ravel(), T.imag.ravel()])
    scale = np.sqrt(np.mean(np.abs(T) ** 2)) + np.finfo(float).tiny
    # entry (p, q) of H - H^H is sum_l C_l[p, q] phi_l - C_l[q, p] conj(phi_l)
    E = np.eye(r * r).reshape(r * r, r, r)
    Et = np.swapaxes(E, 1, 2).reshape(r * r, -1)
    E = E.reshape(r * r, -1)

    def poles(x):
        # consecutive poles at least a factor e^0.4 ~ 1.5 apart: nearly equal poles would
        # only buy cancelling residues and an ill-conditioned realisation
        return np.exp(x[0] - _OFF + np.cumsum(np.concatenate([[0.0], 0.4 + x[1:]])))

    def design(x):
        a = poles(x)
        phi = wts[:, None] * a[None, :] / (s[:, None] + a[None, :])  # (nw, L)
        # columns: (l, entry of C_l); rows: (frequency, entry of h)
        X = phi[:, :, None, None] * E[None, None] - np.conj(phi)[:, :, None, None] * Et[None, None]
        X = np.moveaxis(X, 3, 1).reshape(nw * r * r, -1)
        return np.vstack([X.real, X.imag])

    def solve(loga):
        X = design(loga)
        coef = np.linalg.lstsq(X, rhs, rcond=None)[0]
        return coef, X @ coef - rhs

    lo, hi = np.log(omega[0] / 10), np.log(omega[-1] * 10)
    best = None
    for order in range(1, max_order + 1):
        # x = (log a_1 + offset, then the log-gaps less 0.4); starts spread over the grid
        start = np.linspace(np.log(omega[0]), np.log(omega[-1]), order + 2)[1:-1]
        gap = max((hi - lo) / (order + 1) - 0.4, 0.0)
        x0 = np.concatenate([[start[0] + _OFF], np.full(order - 1, gap)])
        x0 = scipy.optimize.least_squares(
            lambda x: solve(x)[1],
            x0,
            bounds=(
                np.concatenate([[lo + _OFF], np.zeros(order - 1)]),
                np.concatenate([[hi + _OFF], np.full(order - 1, hi - lo)]),
            ),
        ).x
        coef, res = solve(x0)
        err = np.sqrt(2 * np.mean(res**2)) / scale
        if best is None or err < best[0] * 0.8:
            best = (err, order, x0, coef)
        if err <= fit_tol:
            break
    err, order, x, coef = best
    a = poles(x)
    Cs = coef.reshape(order, r, r)
    # minimal realisation, rank(C_l) states per pole: x' = -a x + a V u, y = U x with
    # C_l = U V (a non-minimal H leaves modes of h that its coprime factors cannot move)
    tol = 1e-9 * max(np.abs(coef).max(), np.finfo(float).tiny)
    As, Bs, Cms = [], [], []
    for al, Cl in zip(a, Cs, strict=True):
        Uu, sv, Vh = np.linalg.svd(Cl)
        k = int(np.sum(sv > tol))
        As += [-al] * k
        Bs.append(al * sv[:k, None] * Vh[:k])
        Cms.append(Uu[:, :k])
    if not As:
        return _static(np.zeros((r, r))), float(err)
    return control.ss(np.diag(As), np.vstack(Bs), np.hstack(Cms), np.zeros((r, r))), float(err)


def skew_coprime(H):
    """Normalised right coprime factors ``h = N M^-1`` of ``h = H - H~``, sharing states.

    ``M~ M + N~ N = I``, so ``M M^H = (I + h^H h)^-1`` on the axis: for ``h = -j G``,
    ``(A / beta + h) M = (A / beta) M + N`` has the norm of the mixed-mu condition
    ``sigma_max((A / beta - j G)(I + G^2)^(-1/2))`` with both terms stable.

    Returns ``(Ac, Bc, CM, DM, CN)``: ``M = (Ac, Bc, CM, DM)`` and ``N = (Ac, Bc, CN, 0)``.

    Examples
    --------
    >>> import numpy as np, control
    >>> H = control.ss([[-2.0]], [[1.0]], [[3.0]], [[0.0]])
    >>> Ac, Bc, CM, DM, CN = skew_coprime(H)
    >>> x = 1j * 0.7
    >>> R = np.linalg.inv(x * np.eye(2) - Ac) @ Bc
    >>> m, n = (CM @ R + DM)[0, 0], (CN @ R)[0, 0]
    >>> h = 3 / (x + 2) - 3 / (-x + 2)
    >>> bool(np.isclose(n / m, h) and np.isclose(abs(m) ** 2 + abs(n) ** 2, 1))
    True
    """
    AH, BH, CH = H.A, H.B, H.C
    # h = H - H~: H~ = (-AH^T, CH^T, -BH^T, 0), so -H~ = (-AH^T, CH^T, BH^T, 0)
    A = scipy.linalg.block_diag(AH, -AH.T)
    B = np.vstack([BH, CH.T])
    C = np.hstack([CH, BH.T])
    r = B.shape[1]
    X = scipy.linalg.solve_continuous_are(A, B, C.T @ C, np.eye(r))
    F = -B.T @ X
    return A + B @ F, B, F, np.eye(r), C


def _static(D):
    return control.ss([], [], [], np.atleast_2d(np.asarray(D, float)))


def _balanced(F, rtol=1e-10):
    """Balanced realisation of a stable system, without states of Hankel singular value
    below ``rtol`` times the largest (SLICOT AB09AD): the fits' modal forms with nearly
    equal poles have large, cancelling residues, which the Riccati equations and the
    K-step would otherwise inherit."""
    if F.nstates == 0:
        return F

    def ab09ad(**order):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return slycot.ab09ad(
                "C", "B", "N", F.nstates, F.ninputs, F.noutputs,
                F.A.copy(), F.B.copy(), F.C.copy(), **order,
            )  # fmt: skip

    nr, Ar, Br, Cr, hsv = ab09ad()  # minimal balanced realisation
    keep = int(np.sum(hsv > rtol * hsv[0])) if hsv.size and hsv[0] > 0 else 0
    if keep < nr:
        nr, Ar, Br, Cr, _ = ab09ad(nr=keep)
    return control.ss(Ar[:nr, :nr], Br[:nr], Cr[:, :nr], F.D)


def _inverse(F):
    """``F^-1`` of a square system with an invertible feedthrough."""
    Di = np.linalg.inv(F.D)
    if F.nstates == 0:
        return _static(Di)
    return control.ss(F.A - F.B @ Di @ F.C, F.B @ Di, -Di @ F.C, Di)
