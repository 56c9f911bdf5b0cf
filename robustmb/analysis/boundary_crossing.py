"""Where a pole of an uncertain loop first reaches the stability boundary along a direction.

With the scalar elements set to ``alpha`` times a direction ``d`` (normalised units,
``Delta = alpha diag(d)``) the closed-loop poles are the points ``s`` with
``det(I - alpha M11(s) diag(d)) = 0``.  A pole lies on the stability boundary at
``s0 = j w`` (``exp(j w dt)`` in discrete time) exactly when ``1 / alpha`` is an
eigenvalue of ``M11(s0) diag(d)``; a pole comes from infinity when it is an eigenvalue
of ``D11 diag(d)``.  So the smallest crossing scaling along ``d`` is ``1 / x`` for the
largest positive real point ``x`` where an eigenvalue locus ``w -> lambda_i(w)`` meets
the positive real axis.

:class:`BoundaryCrossings` evaluates ``M11`` once on a boundary grid that resolves every
pole of ``A`` (one decomposition of ``A`` for the model), so a direction costs one batch
of eigenvalue problems of the size of the scalar channels, not a scan of closed-loop
eigenvalue problems of the size of the model; each sign change of ``Im lambda_i``
between grid points is bisected to rounding accuracy.  The result is a candidate: a
crossing missed between grid points only makes it larger, and whatever is found is a
pole on the boundary (callers verify destabilising values by substitution).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .freqresp import ResponseEvaluator

# Points of the boundary grid per pole: c + r tan(t), t in (-_SPAN, _SPAN), where c is
# the pole's frequency and r its distance to the boundary (the locus turns fastest there).
_PER_POLE = 15
_SPAN = 1.5
_LOG_POINTS = 240
_ITERATIONS = 60  # regula falsi steps per bracket (it stops at rounding level)
_PARABOLA = 40  # parabolic/golden steps per dip (to 1e-12 relative width)
_MIN_STATES = 40
_DIP = 0.5  # largest |Im| / |lambda| of a grid point worth searching for a dip across
# Largest |Im| / |lambda| of a refined eigenvalue accepted as real.
_REAL_TOL = 1e-6


class BoundaryCrossings:
    """``M11`` on a dense boundary grid, reused for every direction of a parameter search.

    Parameters
    ----------
    a, bw, cz, dzw : numpy.ndarray
        State-space data of ``M11`` (``Delta`` channels: ``dzw`` is square).
    dt : float
        Sampling time (0: continuous).
    channels : array_like of int
        The channels that carry scalar elements (the only ones a direction may use).
    complex_data : bool
        Whether the model has complex coefficients (both signs of frequency are searched).

    Examples
    --------
    >>> import numpy as np
    >>> # poles of s^2 + s + 1 - delta: stable until delta reaches 1 (a pole at s = 0)
    >>> a, b = np.array([[0.0, 1.0], [-1.0, -1.0]]), np.array([[0.0], [1.0]])
    >>> c, d = np.array([[1.0, 0.0]]), np.zeros((1, 1))
    >>> bc = BoundaryCrossings(a, b, c, d, 0.0, [0])
    >>> round(bc.scale(np.array([1.0]), 10.0), 12), bc.scale(np.array([-1.0]), 10.0)
    (1.0, None)
    """

    def __init__(self, a, bw, cz, dzw, dt, channels, complex_data=False):
        self.dt = float(dt or 0.0)
        self.complex = bool(complex_data)
        self.channels = np.asarray(channels, dtype=int)
        ch = self.channels
        # balanced states (a diagonal similarity by powers of 2, exact): a loop closed by
        # a high-gain controller spreads its state coordinates over many decades, which
        # costs the unbalanced response most of its digits
        _, (scal, _) = sla.matrix_balance(a, permute=False, separate=True)
        a = a * scal[None, :] / scal[:, None]
        bw, cz = bw / scal[:, None], cz * scal[None, :]
        self._evaluator = ResponseEvaluator(a, bw[:, ch], cz[ch], dzw[np.ix_(ch, ch)])
        self.omega = boundary_grid(self._evaluator.poles, self.dt, self.complex)
        self._resp = self._at(self.omega)
        self._d_inf = dzw[np.ix_(ch, ch)]
        # real data: the response is real at w = 0 (and at the Nyquist frequency)
        self._real_points = [] if self.complex else [0, self.omega.size - 1 if self.dt else None]

    def _at(self, omega):
        points = np.exp(1j * omega * self.dt) if self.dt else 1j * omega
        return self._evaluator.at_points(points)

    def scale(self, diag, alpha_max):
        """Smallest ``alpha <= alpha_max`` putting a pole on the boundary along ``diag``.

        Parameters
        ----------
        diag : numpy.ndarray
            The direction on every ``Delta`` channel (entries off ``channels`` must be 0).
        alpha_max : float

        Returns
        -------
        float or None
        """
        d = np.asarray(diag)[self.channels]
        use = np.flatnonzero(d != 0)
        if use.size == 0:
            return None
        d = d[use]
        cols = d[None, None, :]
        found = []
        # a pole from infinity (an ill-posed loop)
        lam_inf = np.linalg.eigvals(self._d_inf[np.ix_(use, use)] * d[None, :])
        found.extend(_positive_real(lam_inf))
        lam = np.linalg.eigvals(self._resp[:, use][:, :, use] * cols)
        for k in self._real_points:
            if k is not None:
                found.extend(_positive_real(lam[k]))
        x_min = 0.25 / alpha_max
        match = _match(lam)
        lo_w, hi_w, lo_l, hi_l = _brackets(self.omega, lam, match, x_min)
        # a locus that dips across the axis and back between two grid points: look for
        # the sign change around each local minimum of |Im lambda| on the grid
        tw, tl = _dips(self.omega, lam, match, x_min)
        if tw.size:
            more = self._split_dips(tw, tl, use, cols)
            lo_w, hi_w = np.concatenate([lo_w, more[0]]), np.concatenate([hi_w, more[1]])
            lo_l, hi_l = np.concatenate([lo_l, more[2]]), np.concatenate([hi_l, more[3]])
        if lo_w.size:
            found.extend(self._refine(lo_w, hi_w, lo_l, hi_l, use, cols))
        found = [x for x in found if x > 0 and 1.0 / x <= alpha_max]
        return float(1.0 / max(found)) if found else None

    def _eig_near(self, w, guess, use, cols):
        """The eigenvalue of ``M11(w) diag(d)`` nearest ``guess``, for each entry of ``w``."""
        lam = np.linalg.eigvals(self._at(w)[:, use][:, :, use] * cols)
        return lam[np.arange(w.size), np.argmin(np.abs(lam - guess[:, None]), axis=1)]

    def _split_dips(self, tw, tl, use, cols):
        """Search each dip ``(w0, w1, w2)`` for a point across the real axis.

        Successive parabolic interpolation of ``Im lambda`` towards its extremum inside
        the triple (golden-section steps where the parabola is useless), stopped as soon
        as a point lands across.  Returns brackets ``(lo_w, hi_w, lo_l, hi_l)`` for the
        dips that do cross.
        """
        side = np.sign(tl[:, 1].imag)
        w, lam = tw.copy(), tl.copy()
        f = -side[:, None] * lam.imag  # negative on the triple; a crossing makes it positive
        crossed_w, crossed_l = np.full(w.shape[0], np.nan), np.zeros(w.shape[0], complex)
        live = np.ones(w.shape[0], dtype=bool)
        g = (3.0 - np.sqrt(5.0)) / 2.0
        for _ in range(_PARABOLA):
            idx = np.flatnonzero(live)
            if idx.size == 0:
                break
            w0, w1, w2 = w[idx].T
            f0, f1, f2 = f[idx].T
            num = (w1 - w0) ** 2 * (f1 - f2) - (w1 - w2) ** 2 * (f1 - f0)
            den = (w1 - w0) * (f1 - f2) - (w1 - w2) * (f1 - f0)
            with np.errstate(invalid="ignore", divide="ignore"):
                v = w1 - 0.5 * num / den
            # golden step into the larger side when the vertex is outside or too close
            gold = np.where(w2 - w1 > w1 - w0, w1 + g * (w2 - w1), w1 - g * (w1 - w0))
            bad = ~np.isfinite(v) | (v <= w0) | (v >= w2) | (v == w1)
            v = np.where(bad, gold, v)
            lv = self._eig_near(v, lam[idx, 1], use, cols)
            fv = -side[idx] * lv.imag
            hit = fv > 0
            crossed_w[idx[hit]], crossed_l[idx[hit]] = v[hit], lv[hit]
            # keep the best point in the middle of the new triple
            right = v > w1
            better = fv > f1
            nw = np.where(
                (right & better)[:, None],
                np.stack([w1, v, w2], 1),
                np.where(
                    right[:, None],
                    np.stack([w0, w1, v], 1),
                    np.where(better[:, None], np.stack([w0, v, w1], 1), np.stack([v, w1, w2], 1)),
                ),
            )
            stack_l = np.stack([lam[idx, 0], lam[idx, 1], lam[idx, 2], lv], 1)
            order = np.where(
                (right & better)[:, None],
                [1, 3, 2],
                np.where(
                    right[:, None], [0, 1, 3], np.where(better[:, None], [0, 3, 1], [3, 1, 2])
                ),
            )
            lam[idx] = np.take_along_axis(stack_l, order, axis=1)
            w[idx] = nw
            f[idx] = -side[idx, None] * lam[idx].imag
            # done when the vertex stops moving: the extremum is found and on this side
            moved = np.abs(v - w1) > 1e-10 * np.abs(w1)
            live[idx] = ~hit & moved & (nw[:, 2] - nw[:, 0] > 1e-12 * np.abs(nw[:, 1]))
        hit = ~np.isnan(crossed_w)
        # two brackets per crossing dip: (w0, w*) and (w*, w2)
        w0, w2, l0, l2 = tw[hit, 0], tw[hit, 2], tl[hit, 0], tl[hit, 2]
        ws, ls = crossed_w[hit], crossed_l[hit]
        return (
            np.concatenate([w0, ws]),
            np.concatenate([ws, w2]),
            np.concatenate([l0, ls]),
            np.concatenate([ls, l2]),
        )

    def _refine(self, lo_w, hi_w, lo_l, hi_l, use, cols):
        """Regula falsi (Illinois) on ``Im`` of the tracked eigenvalue in each bracket."""
        f_lo, f_hi = lo_l.imag.copy(), hi_l.imag.copy()
        last = np.zeros(lo_w.size, dtype=int)  # which end moved last (-1 lo, +1 hi)
        for _ in range(_ITERATIONS):
            with np.errstate(invalid="ignore", divide="ignore"):
                t = f_lo / (f_lo - f_hi)
            t = np.where(np.isfinite(t), np.clip(t, 0.01, 0.99), 0.5)
            mid = lo_w + t * (hi_w - lo_w)
            guess = lo_l + t * (hi_l - lo_l)
            pick = self._eig_near(mid, guess, use, cols)
            f = pick.imag
            to_hi = np.sign(f) == np.sign(f_hi)  # replaces the hi end
            # Illinois: halve the value kept at an end that stays twice in a row
            f_lo = np.where(to_hi & (last == 1), 0.5 * f_lo, f_lo)
            f_hi = np.where(~to_hi & (last == -1), 0.5 * f_hi, f_hi)
            hi_w, hi_l, f_hi = (
                np.where(to_hi, v, u) for v, u in ((mid, hi_w), (pick, hi_l), (f, f_hi))
            )
            lo_w, lo_l, f_lo = (
                np.where(to_hi, u, v) for v, u in ((mid, lo_w), (pick, lo_l), (f, f_lo))
            )
            last = np.where(to_hi, 1, -1)
            done = (np.abs(f) <= 8 * np.finfo(float).eps * np.abs(pick)) | (
                hi_w - lo_w <= 4 * np.finfo(float).eps * np.abs(hi_w)
            )
            if np.all(done):
                break
        # the end nearer the real axis; a bracket that did not close on it is dropped
        best = np.where(np.abs(lo_l.imag) < np.abs(hi_l.imag), lo_l, hi_l)
        ok = (best.real > 0) & (np.abs(best.imag) <= _REAL_TOL * np.abs(best))
        return best.real[ok].tolist()


def _positive_real(lam):
    """Eigenvalues that are real (to rounding) and positive, as floats."""
    lam = np.asarray(lam)
    ok = (lam.real > 0) & (np.abs(lam.imag) <= 1e3 * np.finfo(float).eps * np.abs(lam))
    return lam.real[ok].tolist()


def _match(lam):
    """``match[k, i]``: the eigenvalue at grid point ``k + 1`` continuing ``lam[k, i]``.

    Greedy: the closest pairs first.
    """
    k, m = lam.shape
    dist = np.abs(lam[:-1, :, None] - lam[1:, None, :])
    match = np.empty((k - 1, m), dtype=int)
    rows = np.arange(k - 1)
    for _ in range(m):
        flat = np.argmin(dist.reshape(k - 1, -1), axis=1)
        i, j = np.divmod(flat, m)
        match[rows, i] = j
        dist[rows, i, :] = np.inf
        dist[rows, :, j] = np.inf
    return match


def _brackets(omega, lam, match, x_min):
    """Grid steps where a tracked eigenvalue crosses the real axis beyond ``x_min``."""
    a = lam[:-1]
    b = np.take_along_axis(lam[1:], match, axis=1)
    flip = ((a.imag > 0) & (b.imag <= 0)) | ((a.imag < 0) & (b.imag >= 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        t = a.imag / (a.imag - b.imag)
        x = a.real + t * (b.real - a.real)
    # a coarse step may misplace the crossing: keep those that may come within a factor 4
    sel = flip & (x >= x_min) & np.isfinite(x)
    step, eig = np.nonzero(sel)
    return omega[step], omega[step + 1], a[step, eig], b[step, eig]


def _dips(omega, lam, match, x_min):
    """Grid triples where a tracked locus comes closest to the positive real axis.

    Local minima of ``|Im lambda| / |lambda|`` along a locus with ``Re lambda >= x_min``
    and no sign change: ``(w, lambda)`` arrays of shape ``(count, 3)``.
    """
    if lam.shape[0] < 3:
        return np.zeros((0, 3)), np.zeros((0, 3), complex)
    a = lam[:-2]
    b = np.take_along_axis(lam[1:-1], match[:-1], axis=1)
    c = np.take_along_axis(lam[2:], np.take_along_axis(match[1:], match[:-1], axis=1), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ra, rb, rc = (np.abs(v.imag) / np.abs(v) for v in (a, b, c))
    same = (np.sign(a.imag) == np.sign(b.imag)) & (np.sign(b.imag) == np.sign(c.imag))
    sel = same & (b.imag != 0) & (rb < ra) & (rb <= rc) & (rb < _DIP) & (b.real >= x_min)
    step, eig = np.nonzero(sel)
    w = np.stack([omega[step], omega[step + 1], omega[step + 2]], axis=1)
    return w, np.stack([a[step, eig], b[step, eig], c[step, eig]], axis=1)


def boundary_grid(poles, dt, complex_data):
    """Frequencies (rad/s) resolving every pole's resonance, plus a log-spaced backbone.

    Real data: ``[0, inf)`` (``[0, pi/dt]``); complex data: both signs.

    Examples
    --------
    A lightly damped pair at 2 rad/s gets points packed within a few damping widths:

    >>> import numpy as np
    >>> grid = boundary_grid(np.array([-0.01 + 2.0j, -0.01 - 2.0j]), 0.0, False)
    >>> float(grid[0]), int(np.sum(np.abs(grid - 2.0) < 0.05))
    (0.0, 14)
    """
    poles = np.asarray(poles, dtype=complex)
    if dt:
        top = np.pi / dt
        nz = poles[np.abs(poles) > 0]
        centre = np.angle(nz) / dt
        width = np.maximum(np.abs(1.0 - np.abs(nz)), 1e-12) / dt
        backbone = np.linspace(0.0, top, _LOG_POINTS)
    else:
        centre = poles.imag
        width = np.maximum(np.abs(poles.real), 1e-14 * np.abs(poles))
        mags = np.abs(poles[np.abs(poles) > 0])
        lo = mags.min() / 1e3 if mags.size else 1e-3
        hi = mags.max() * 1e4 if mags.size else 1e3
        backbone = np.concatenate([[0.0], np.geomspace(lo, hi, _LOG_POINTS)])
        top = np.inf
    t = np.tan(np.linspace(-_SPAN, _SPAN, _PER_POLE))
    around = (centre[:, None] + width[:, None] * t[None, :]).ravel()
    if complex_data:
        grid = np.concatenate([backbone, -backbone, around])
        grid = grid[np.abs(grid) <= top]
    else:
        grid = np.concatenate([backbone, np.abs(around)])
        grid = grid[grid <= top]
    return np.unique(grid)


def abscissae(m11, dt, diags):
    """Stability abscissa of the loop closed by each ``Delta = diag(diags[i])``, in one batch.

    The largest real part of the closed-loop poles (modulus minus 1 in discrete time);
    ``inf`` where ``I - Dzw Delta`` is singular or the closed loop is not finite (no
    well-posed loop: counted as a crossing), ``-inf`` for a loop without states.

    Examples
    --------
    >>> import numpy as np
    >>> # s^2 + s + 1 - delta: the pole reaches s = 0 at delta = 1
    >>> a, b = np.array([[0.0, 1.0], [-1.0, -1.0]]), np.array([[0.0], [1.0]])
    >>> c, d = np.array([[1.0, 0.0]]), np.zeros((1, 1))
    >>> abscissae((a, b, c, d), 0.0, np.array([[0.0], [1.0], [2.0]])).round(6).tolist()
    [-0.5, 0.0, 0.618034]
    """
    a, bw, cz, dzw = m11
    diags = np.asarray(diags)
    k = diags.shape[0]
    if a.shape[0] == 0:
        return np.full(k, -np.inf)
    loop = np.eye(dzw.shape[0])[None] - dzw[None] * diags[:, None, :]
    ok = np.ones(k, dtype=bool)
    try:
        x = np.linalg.solve(loop, np.broadcast_to(cz, (k, *cz.shape)))
    except np.linalg.LinAlgError:  # some loop is singular: solve them one by one
        x = np.zeros((k, *cz.shape), dtype=np.result_type(loop, cz))
        for i in range(k):
            try:
                x[i] = np.linalg.solve(loop[i], cz)
            except np.linalg.LinAlgError:
                ok[i] = False
    acl = a[None] + bw[None] @ (diags[:, :, None] * x)
    ok &= np.all(np.isfinite(acl), axis=(1, 2))
    out = np.full(k, np.inf)
    if ok.any():
        ev = np.linalg.eigvals(acl[ok])
        out[ok] = np.max(np.abs(ev), axis=1) - 1.0 if dt else np.max(ev.real, axis=1)
    return out


# Largest |Im| / |lambda| of an eigenvalue of ``Dzw diag(d)`` taken as real (a
# defective double eigenvalue of a repeated scalar splits by about sqrt(eps)).
_ILL_REAL_TOL = 1e-6
# Relative spread of the eigenvalues of ``Dzw diag(d)`` averaged as one multiple
# eigenvalue (a double one splits by about sqrt(eps) = 1.5e-8).
_ILL_CLUSTER = 4e-7
# A crossing this close (relative) below an ill-posed scaling is taken to be it (a double
# root of ``det(I - Dzw Delta)`` is located to about sqrt(eps) by the abscissa's sign).
_ILL_SNAP = 1e-6


def ill_posed_scales(dzw, diags):
    """Smallest ``alpha > 0`` with ``I - alpha Dzw diag(d)`` singular, per direction.

    The loop closed by ``Delta = alpha diag(d)`` is well-posed for every ``alpha`` in
    ``[0, a)`` and not at ``a = 1 / lambda``, ``lambda`` the largest positive real
    eigenvalue of ``Dzw diag(d)`` (``inf`` where there is none): the closed loop's
    boundary crossing at infinite frequency (``mu(Dzw)`` of the direction).

    Parameters
    ----------
    dzw : numpy.ndarray
        Feedthrough of ``M11`` (square).
    diags : numpy.ndarray
        Directions, shape ``(k, n)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(k,)``.

    Examples
    --------
    >>> import numpy as np
    >>> ill_posed_scales(np.array([[0.5]]), np.array([[1.0], [-1.0], [4.0]])).tolist()
    [2.0, inf, 0.5]
    """
    diags = np.asarray(diags)
    dzw = np.asarray(dzw)
    out = np.full(diags.shape[0], np.inf)
    if dzw.size == 0 or diags.shape[0] == 0 or not np.any(dzw):
        return out
    lam = np.linalg.eigvals(dzw[None] * diags[:, None, :])
    real = (lam.real > 0) & (np.abs(lam.imag) <= _ILL_REAL_TOL * np.abs(lam))
    top = np.max(np.where(real, lam.real, 0.0), axis=1)
    # a multiple eigenvalue (a repeated scalar, det(I - alpha Dzw diag(d)) touching 0)
    # splits by about sqrt(eps) along the real axis: the cluster's mean is accurate
    near = real & (np.abs(lam.real - top[:, None]) <= _ILL_CLUSTER * top[:, None])
    with np.errstate(invalid="ignore"):
        top = np.where(top > 0, np.sum(np.where(near, lam.real, 0.0), 1) / np.sum(near, 1), 0.0)
    with np.errstate(divide="ignore"):
        return np.where(top > 0, 1.0 / top, np.inf)


def scan_crossings(m11, dt, diags, alpha_max, n_scan=24):
    """Smallest ``alpha <= alpha_max[i]`` with a pole on or over the boundary along each
    ``diags[i]``, for a batch of directions (``nan`` where the scan finds none).

    Loss of well-posedness counts as a crossing (a pole through infinity, the
    boundary at ``w = inf``): the smallest scaling ``a_inf`` where ``I - Dzw Delta``
    is singular (:func:`ill_posed_scales`, exact) ends the scan and is the result when
    no pole reaches the boundary before it, however narrow the window of instability
    beyond it.  Each direction is scanned at ``c * (1, 2, ..., n_scan) / n_scan``,
    ``c = min(alpha_max[i], a_inf)``; the bracket between the first scaling whose loop
    has a non-negative abscissa (:func:`abscissae`) and the one before it (or 0) is
    narrowed to ``1e-12`` relative width by :func:`_refine_brackets` (regula falsi,
    Illinois variant, with bisection steps), and the unstable end returned.  Every
    step is one batch of eigenvalue problems over all directions still refining.  A
    finite-frequency crossing window narrower than a scan step may be missed (the
    result is then larger, never smaller, than the first crossing: callers verify
    destabilising values by substitution).

    Examples
    --------
    >>> import numpy as np
    >>> a, b = np.array([[0.0, 1.0], [-1.0, -1.0]]), np.array([[0.0], [1.0]])
    >>> c, d = np.array([[1.0, 0.0]]), np.zeros((1, 1))
    >>> scan_crossings((a, b, c, d), 0.0, np.array([[1.0], [-1.0]]), 10.0).round(12)
    array([ 1., nan])

    ``(s + 1) - k (s + 0.5)``: ill-posed at ``k = 1``, unstable only for ``1 < k < 2``,
    a window the 24-point scan up to 20 steps over:

    >>> m = (np.array([[-1.0]]), np.array([[1.0]]), np.array([[-0.5]]), np.array([[1.0]]))
    >>> float(scan_crossings(m, 0.0, np.array([[1.0]]), 20.0)[0])
    1.0
    """
    diags = np.asarray(diags)
    k = diags.shape[0]
    if k == 0:
        return np.zeros(0)
    caps = np.broadcast_to(np.asarray(alpha_max, float), (k,))
    # the loop loses well-posedness at ``ill``: a crossing at infinite frequency, so
    # the scan ends there (a window of instability beyond it is never the first)
    ill = ill_posed_scales(m11[3], diags)
    ill = np.where(ill <= caps, ill, np.inf)
    grid = np.minimum(caps, ill)[:, None] * np.linspace(0, 1, n_scan + 1)[None, 1:]
    f = abscissae(m11, dt, (grid[:, :, None] * diags[:, None, :]).reshape(k * n_scan, -1))
    hit = f.reshape(k, n_scan) >= 0
    idx = np.flatnonzero(hit.any(axis=1))
    # no pole crossed before the loop became ill-posed: that is the crossing
    out = np.where(np.isfinite(ill), ill, np.nan)
    if idx.size == 0:
        return out
    j = np.argmax(hit[idx], axis=1)
    f = f.reshape(k, n_scan)
    hi, fhi = grid[idx, j], f[idx, j]
    before = np.maximum(j - 1, 0)
    lo = np.where(j > 0, grid[idx, before], 0.0)
    # the abscissa at 0 (the centre loop) is not scanned; any negative value starts the
    # regula falsi (the first step is a bisection when it is unknown)
    flo = np.where(j > 0, f[idx, before], -np.inf)
    got = _refine_brackets(
        lambda x, rows: abscissae(m11, dt, x[:, None] * diags[idx[rows]]), lo, hi, flo, fhi
    )
    # next to an ill-posed point the abscissa's sign is rounding noise (a pole near
    # infinity, of either sign, where ``det(I - Dzw Delta)`` touches 0): it is the crossing
    out[idx] = np.where(got >= (1.0 - _ILL_SNAP) * ill[idx], ill[idx], got)
    return out


# Steps of :func:`_refine_brackets`.  A bracket not halved over two steps is bisected
# next, so every three steps at least halve it: 150 steps reach 1e-12 relative width
# from any bracket a scan leaves (a bisection from 1/24 of the scan needs about 40;
# the secant steps take 8-14 on a smooth abscissa).
_REFINE_STEPS = 150


def _refine_brackets(f, lo, hi, flo, fhi, rtol=1e-12):
    """Narrow brackets ``f(lo) < 0 <= f(hi)`` (a batch) to ``rtol`` relative width.

    ``f(x, rows)`` evaluates the functions of the brackets ``rows`` at ``x`` (one batch).
    Bisection until a midpoint shows ``f`` nearly linear on its bracket, then regula
    falsi with the Illinois modification (the value kept at an end that survives a
    second secant step in a row is halved), back to bisections (1, 2, 4, ... in a row)
    whenever two steps did not halve the bracket.  A jump of ``f`` (a pole escaping
    through infinity) or a value that is not finite (a singular loop) keeps bisecting:
    the bracket stays valid by the signs of ``f`` alone, whatever its values.  Returns
    the upper ends ``hi`` (``f(hi) >= 0``).

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    >>> c = np.array([2.0, 3.0])  # roots sqrt(2) and sqrt(3)
    >>> f = lambda x, rows: x * x - c[rows]
    >>> rows = np.arange(2)
    >>> _refine_brackets(f, lo, hi, f(lo, rows), f(hi, rows)).round(12).tolist()
    [1.414213562373, 1.732050807569]
    """
    lo, hi = np.array(lo, float), np.array(hi, float)
    flo, fhi = np.array(flo, float), np.array(fhi, float)
    kept = np.zeros(lo.size, dtype=int)  # +1: lo survived the last step, -1: hi did
    ref = hi - lo  # the width at the last check, made every two steps
    age = np.zeros(lo.size, dtype=int)
    strikes = np.zeros(lo.size, dtype=int)  # slow checks in a row
    forced = np.zeros(lo.size, dtype=int)  # bisections still to do after a slow check
    # whether the last bisection found the function nearly linear on its bracket (the
    # midpoint value within a quarter of the end values' spread of their mean): only
    # then is the secant tried (a jump of the function, e.g. a pole through infinity,
    # keeps bisecting)
    linear = np.zeros(lo.size, dtype=bool)
    live = ~(hi - lo <= rtol * hi)
    for _ in range(_REFINE_STEPS):
        act = np.flatnonzero(live)
        if act.size == 0:
            break
        a, b, fa, fb = lo[act], hi[act], flo[act], fhi[act]
        width = b - a
        with np.errstate(all="ignore"):
            x = b - fb * width / (fb - fa)
        # a slow check forces 1, 2, 4, ... bisections in a row (a jump of the function,
        # e.g. a pole through infinity, defeats the secant for many steps)
        busy = forced[act] > 0
        check = ~busy & (age[act] >= 1)
        slow = check & (width > 0.5 * ref[act])
        strikes[act] = np.where(
            slow, np.minimum(strikes[act] + 1, 6), np.where(check, 0, strikes[act])
        )
        forced[act] = np.where(busy, forced[act] - 1, np.where(slow, 2 ** strikes[act] - 1, 0))
        ref[act] = np.where(check | busy, width, ref[act])
        age[act] = np.where(check | busy, 0, age[act] + 1)
        slow |= busy | ~linear[act]
        # a secant point at an end moves in by a quarter of the tolerance, so that
        # the bracket closes once the secant has converged (its last steps are
        # otherwise all at the same end)
        nudge = 0.25 * rtol * b
        x = np.clip(x, a + nudge, b - nudge)
        secant = ~slow & np.isfinite(x) & (x > a) & (x < b)
        x = np.where(secant, x, 0.5 * (a + b))
        fx = np.asarray(f(x, act), float)
        up = fx >= 0
        finite = np.isfinite(fa) & np.isfinite(fb) & np.isfinite(fx)
        with np.errstate(all="ignore"):
            near = finite & (np.abs(fx - 0.5 * (fa + fb)) <= 0.25 * np.abs(fb - fa))
        linear[act] = np.where(secant, linear[act], near)
        # Illinois: an end that survives a second secant step in a row has its value
        # halved (bisections keep the true values, which the linearity test reads)
        fa = np.where(secant & up & (kept[act] == 1), 0.5 * fa, fa)
        fb = np.where(secant & ~up & (kept[act] == -1), 0.5 * fb, fb)
        lo[act], flo[act] = np.where(up, a, x), np.where(up, fa, fx)
        hi[act], fhi[act] = np.where(up, x, b), np.where(up, fx, fb)
        kept[act] = np.where(secant, np.where(up, 1, -1), 0)
        live[act] = ~(hi[act] - lo[act] <= rtol * hi[act])
    return hi


# ``I - Dzw Delta`` is singular to rounding when its smallest singular value is at most
# this many rounding units of its largest.
_ILL_ROUNDING = 64


def is_ill_posed(problem, values):
    """Whether the loop closed by ``values`` is ill-posed: ``I - Dzw Delta`` singular to
    rounding (smallest singular value within 64 rounding units of the largest).

    Only scalar elements may be non-zero (LTI ones must be zero arrays); otherwise, or
    when a value is missing, the answer is False.

    Parameters
    ----------
    problem : UncertainProblem
        From :func:`~.uncertain_problem.uncertain_problem`.
    values : dict
        ``{name: value}`` in physical units.

    Returns
    -------
    bool

    Examples
    --------
    ``(s + 1) - k (s + 0.5)`` has the leading coefficient ``1 - k``:

    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 0.0, range=(-2.0, 2.0))
    >>> s = control.tf("s")
    >>> problem = uncertain_problem(rmb.feedback(-(s + 0.5) / (s + 1) * k, 1.0))
    >>> is_ill_posed(problem, {"k": 1.0}), is_ill_posed(problem, {"k": 0.9})
    (True, False)
    """
    dzw = problem.m11[3]
    delta = np.zeros((dzw.shape[1], dzw.shape[0]), dtype=complex)
    for bi in problem.blocks:
        v = values.get(bi.name)
        if bi.kind in ("real", "complex") and v is not None:
            try:
                x = complex(np.asarray(bi.element.normalize(v)).item())
            except (ValueError, TypeError):
                return False
            delta[bi.w, bi.z] = x * np.eye(bi.w.stop - bi.w.start)
        elif not (isinstance(v, np.ndarray) and not v.any()):
            return False
    m = np.eye(dzw.shape[0]) - dzw @ delta
    sv = np.linalg.svd(m, compute_uv=False)
    return bool(sv[-1] <= _ILL_ROUNDING * np.finfo(float).eps * max(sv[0], 1.0))


def crossing_search(problem):
    """The :class:`BoundaryCrossings` of an :class:`~.uncertain_problem.UncertainProblem`.

    Built once per problem (cached on it); None when the search does not pay or apply
    (fewer than 40 states, a non-square ``Delta``, no scalar elements).

    Examples
    --------
    ``k / (s + 1)`` (40 identical states) in negative feedback has its pole
    ``-1 - k`` at 0 for ``k = -1``: with ``k = 1 +- 20 %`` that is the normalised
    value ``-10``.

    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 1.0, percent=20)
    >>> g = rmb.uss(-np.eye(40), np.ones((40, 1)), np.ones((1, 40)) / 40, 0.0)
    >>> search = crossing_search(uncertain_problem(rmb.feedback(g * k, 1.0)))
    >>> round(float(search.scale(np.array([-1.0]), 100.0)), 9)
    10.0
    >>> small = rmb.uss(-np.eye(1), 1.0, 1.0, 0.0)
    >>> crossing_search(uncertain_problem(rmb.feedback(small * k, 1.0))) is None
    True
    """
    cached = getattr(problem, "_boundary_crossings", False)
    if cached is not False:
        return cached
    a, bw, cz, dzw = problem.m11
    channels = [
        i
        for bi in problem.blocks
        if bi.kind in ("real", "complex")
        for i in range(bi.w.start, bi.w.stop)
    ]
    search = None
    # below _MIN_STATES states a scan of closed-loop eigenvalues is cheaper
    if a.shape[0] >= _MIN_STATES and channels and dzw.shape[0] == dzw.shape[1]:
        search = BoundaryCrossings(a, bw, cz, dzw, problem.dt, channels, problem.is_complex)
    problem._boundary_crossings = search
    return search
