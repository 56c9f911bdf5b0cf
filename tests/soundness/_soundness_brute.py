"""Brute-force reference computations for the soundness harness.

Nothing here imports robustmb: closed loops are formed from the generator's own
numpy matrices, poles come from ``numpy.linalg.eigvals``, frequency responses from
direct solves of ``(sI - A) X = B``, peak gains from dense grids refined by
``scipy.optimize`` and from SLICOT ``AB13DD`` (through slycot), H2 norms from
SLICOT ``AB13BD`` and from scipy's Lyapunov solver.  A certificate is checked
against these numbers only.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.optimize as sopt
import slycot

# ---------------------------------------------------------------------------
# LFT closing and stability


def close_lft(a, b, c, d, nw, nz, delta):
    """State-space data of ``Fu(M, delta)`` for a static ``delta`` (``nw x nz``).

    ``M`` has its Delta channels first: inputs ``w = delta z`` (first ``nw``
    columns of ``b``/``d``), outputs ``z`` (first ``nz`` rows of ``c``/``d``).
    Returns ``None`` when ``I - D11 delta`` is singular (an ill-posed member).
    """
    delta = np.asarray(delta)
    b1, b2 = b[:, :nw], b[:, nw:]
    c1, c2 = c[:nz], c[nz:]
    d11, d12, d21, d22 = d[:nz, :nw], d[:nz, nw:], d[nz:, :nw], d[nz:, nw:]
    loop = np.eye(nz) - d11 @ delta
    if np.linalg.cond(loop) > 1e12:
        return None
    # w = delta z,  z = c1 x + d11 w + d12 u  ->  z = loop^-1 (c1 x + d12 u)
    li = np.linalg.solve(loop, np.hstack([c1, d12]))
    zc, zu = li[:, : a.shape[0]], li[:, a.shape[0] :]
    bd = b1 @ delta
    dd = d21 @ delta
    return a + bd @ zc, b2 + bd @ zu, c2 + dd @ zc, d22 + dd @ zu


def close_dynamic(a, b, c, d, nw, nz, dsys):
    """``Fu(M, Delta)`` with a dynamic ``Delta = (ad, bd, cd, dd)`` (``nw x nz``)."""
    ad, bd, cd, dd = (np.atleast_2d(np.asarray(x)) for x in dsys)
    n, k = a.shape[0], ad.shape[0]
    b1, b2 = b[:, :nw], b[:, nw:]
    c1, c2 = c[:nz], c[nz:]
    d11, d12, d21, d22 = d[:nz, :nw], d[:nz, nw:], d[nz:, :nw], d[nz:, nw:]
    # Delta: xi' = ad xi + bd z, w = cd xi + dd z; M: z = c1 x + d11 w + d12 u
    loop = np.eye(nz) - d11 @ dd
    if np.linalg.cond(loop) > 1e12:
        return None
    li = np.linalg.inv(loop)
    # z = li (c1 x + d11 cd xi + d12 u)
    zx, zxi, zu = li @ c1, li @ d11 @ cd, li @ d12
    wx, wxi, wu = dd @ zx, cd + dd @ zxi, dd @ zu
    acl = np.block([[a + b1 @ wx, b1 @ wxi], [bd @ zx, ad + bd @ zxi]])
    bcl = np.vstack([b2 + b1 @ wu, bd @ zu])
    ccl = np.hstack([c2 + d21 @ wx, d21 @ wxi])
    dcl = d22 + d21 @ wu
    del n, k
    return acl, bcl, ccl, dcl


def abscissa(a, dt=0.0):
    """Largest real part of the poles (continuous) or spectral radius minus one (discrete)."""
    a = np.asarray(a)
    if a.shape[0] == 0:
        return -np.inf
    ev = np.linalg.eigvals(a)
    if dt:
        return float(np.max(np.abs(ev)) - 1.0)
    return float(np.max(ev.real))


def unstable(a, dt=0.0, rtol=1e-9):
    """A pole strictly beyond the boundary (relative margin ``rtol`` of the pole size)."""
    a = np.asarray(a)
    if a.shape[0] == 0:
        return False
    ev = np.linalg.eigvals(a)
    if dt:
        return bool(np.max(np.abs(ev)) > 1.0 + rtol)
    # the tolerance follows the modulus of the pole itself, not the largest pole
    return bool(np.any(ev.real > rtol * np.maximum(np.abs(ev), 1e-300)))


def boundary_pole(a, dt=0.0, rtol=1e-5):
    """A pole on (or beyond) the stability boundary; returns ``(bool, frequency)``."""
    a = np.asarray(a)
    if a.shape[0] == 0:
        return False, np.nan
    ev = np.linalg.eigvals(a)
    # complex coefficients: poles have no conjugate twin, so the frequency keeps its sign
    sign = (lambda x: x) if np.iscomplexobj(a) and np.any(a.imag) else abs
    if dt:
        k = int(np.argmax(np.abs(ev)))
        return bool(np.abs(ev[k]) >= 1.0 - rtol), float(sign(np.angle(ev[k])) / dt)
    # distance to the axis relative to the pole's size; a pole at rounding level of
    # the origin (a crossing at s = 0) is measured against 1e-12 ||A||
    floor = max(1e-12 * np.linalg.norm(a, 1), 1e-300)
    rel = ev.real / np.maximum(np.abs(ev), floor)
    k = int(np.argmax(rel))
    return bool(rel[k] >= -rtol or ev[k].real >= 0), float(sign(ev[k].imag))


# ---------------------------------------------------------------------------
# Frequency responses and norms


def freqresp(a, b, c, d, omega, dt=0.0):
    """``C (sI - A)^-1 B + D`` at ``s = j omega`` (or ``exp(j omega dt)``), shape (nw, ny, nu)."""
    omega = np.asarray(omega, float)
    s = np.exp(1j * omega * dt) if dt else 1j * omega
    n = a.shape[0]
    if n == 0:
        return np.broadcast_to(d.astype(complex), (len(omega),) + d.shape).copy()
    lhs = s[:, None, None] * np.eye(n) - a[None]
    x = np.linalg.solve(lhs, np.broadcast_to(b.astype(complex), (len(omega),) + b.shape))
    return c @ x + d


def _sigma_max(a, b, c, d, omega, dt):
    return np.linalg.norm(freqresp(a, b, c, d, omega, dt), 2, axis=(-2, -1))


def grid_peak(a, b, c, d, dt=0.0, n=2000, two_sided=None):
    """Peak gain on a dense grid refined by a bounded scalar search: a lower bound of the peak.

    Returns ``(gain, frequency)``; ``inf`` for an unstable system.
    """
    a, b, c, d = (np.atleast_2d(np.asarray(x)) for x in (a, b, c, d))
    if unstable(a, dt, rtol=0.0) and a.shape[0]:
        return np.inf, np.nan
    complex_data = any(np.iscomplexobj(x) and np.any(np.imag(x)) for x in (a, b, c, d))
    two_sided = complex_data if two_sided is None else two_sided
    if dt:
        w = np.linspace(0, np.pi / dt, n)
        if two_sided:
            w = np.concatenate([-w[::-1], w])
    else:
        ev = np.abs(np.linalg.eigvals(a)) if a.shape[0] else np.ones(1)
        ev = ev[ev > 0]
        lo = max(np.min(ev) if ev.size else 1.0, 1e-300) * 1e-3
        hi = max(np.max(ev) if ev.size else 1.0, 1e-300) * 1e3
        w = np.concatenate([[0.0], np.geomspace(lo, hi, n)])
        # the imaginary parts of lightly damped poles are likely peaks
        if a.shape[0]:
            im = np.abs(np.linalg.eigvals(a).imag)
            w = np.union1d(w, im[im > 0])
        if two_sided:
            w = np.union1d(-w, w)
    g = _sigma_max(a, b, c, d, w, dt)
    k = int(np.argmax(g))
    best_g, best_w = float(g[k]), float(w[k])
    # refine around the three largest grid peaks
    for i in np.argsort(g)[-3:]:
        lo_w = w[max(i - 1, 0)]
        hi_w = w[min(i + 1, len(w) - 1)]
        if hi_w <= lo_w:
            continue
        res = sopt.minimize_scalar(
            lambda x: -_sigma_max(a, b, c, d, np.array([x]), dt)[0],
            bounds=(lo_w, hi_w),
            method="bounded",
            options={"xatol": 1e-10 * max(abs(hi_w), 1e-12)},
        )
        if -res.fun > best_g:
            best_g, best_w = float(-res.fun), float(res.x)
    return best_g, abs(best_w)


def slicot_hinf(a, b, c, d, dt=0.0):
    """Peak gain of a real system: SLICOT AB13DD, guarded by :func:`grid_peak` (``inf``
    when unstable).

    AB13DD at a tight tolerance can return a value below the peak: on the two-link arm's
    effort loops (13 states, peak near 80 rad/s) ``tol=1e-10`` returned 10.62 for a
    peak of 14.44 that a 4000-point grid reaches. The larger of the two is returned, so
    the reference never under-reports because of either method alone.
    """
    a, b, c, d = (np.atleast_2d(np.asarray(x, float)) for x in (a, b, c, d))
    n, m, p = a.shape[0], b.shape[1], c.shape[0]
    if n == 0:
        return float(np.linalg.norm(d, 2)), 0.0
    if unstable(a, dt, rtol=0.0):
        return np.inf, np.nan
    dico = "D" if dt else "C"
    e = np.eye(n)
    gpeak, fpeak = slycot.ab13dd(dico, "I", "N", "D", n, m, p, a, e, b, c, d, tol=1e-10)
    g_grid, w_grid = grid_peak(a, b, c, d, dt)
    if g_grid > gpeak:
        return float(g_grid), float(w_grid)
    return float(gpeak), float(fpeak / dt if dt else fpeak)


def slicot_h2(a, b, c, d, dt=0.0):
    """H2 norm of a stable real system from SLICOT AB13BD."""
    a, b, c, d = (np.atleast_2d(np.asarray(x, float)) for x in (a, b, c, d))
    n, m, p = a.shape[0], b.shape[1], c.shape[0]
    out = slycot.ab13bd("D" if dt else "C", "H", n, m, p, a.copy(), b.copy(), c.copy(), d.copy())
    return float(out)


def lyapunov_h2(a, b, c, dt=0.0):
    """H2 norm from the controllability Gramian (scipy), after a diagonal similarity balance."""
    a, b, c = (np.atleast_2d(np.asarray(x)) for x in (a, b, c))
    _, (scale, _perm) = sla.matrix_balance(a, permute=False, separate=True)
    ab = a * (1 / scale)[:, None] * scale[None, :]
    bb, cb = b / scale[:, None], c * scale[None, :]
    if dt:
        p = sla.solve_discrete_lyapunov(ab, bb @ bb.conj().T)
    else:
        p = sla.solve_continuous_lyapunov(ab, -bb @ bb.conj().T)
    return float(np.sqrt(max(np.real(np.trace(cb @ p @ cb.conj().T)), 0.0)))


# ---------------------------------------------------------------------------
# Exact margins for affine parameter dependence


def first_crossing_affine(a0, a1, dt=0.0, tmax=np.inf):
    """Smallest ``t > 0`` with a pole of ``a0 + t a1`` on the stability boundary (exact).

    Continuous time: ``a`` has a pole on the imaginary axis iff ``a (+) a`` (the
    Kronecker sum) is singular, a generalised eigenvalue problem linear in ``t``.
    Discrete time: a pole on the unit circle iff ``a (x) a - I`` is singular for a
    conjugate pair, or ``a +/- I`` for a real one; the quadratic is linearised.
    Candidate roots are confirmed by the poles of ``a0 + t a1`` themselves.
    """
    n = a0.shape[0]
    eye = np.eye(n)
    cands = []
    if dt:
        k0 = np.kron(a0, a0) - np.eye(n * n)
        k1 = np.kron(a0, a1) + np.kron(a1, a0)
        k2 = np.kron(a1, a1)
        nn = n * n
        # companion linearisation of k0 + t k1 + t^2 k2
        lhs = np.block([[np.zeros((nn, nn)), np.eye(nn)], [-k0, -k1]])
        rhs = np.block([[np.eye(nn), np.zeros((nn, nn))], [np.zeros((nn, nn)), k2]])
        cands.append(sla.eigvals(lhs, rhs))
        for sgn in (1.0, -1.0):
            cands.append(sla.eigvals(a0 - sgn * eye, -a1))
    else:
        k0 = np.kron(a0, eye) + np.kron(eye, a0)
        k1 = np.kron(a1, eye) + np.kron(eye, a1)
        cands.append(sla.eigvals(k0, -k1))
    t = np.concatenate(cands)
    t = t[np.isfinite(t)]
    t = np.sort(t[(np.abs(t.imag) <= 1e-6 * np.maximum(1.0, np.abs(t))) & (t.real > 0)].real)
    for tk in t:
        if tk > tmax:
            break
        a = a0 + tk * a1
        ev = np.linalg.eigvals(a)
        # on the boundary relative to the pole's own size, or crossing it just beyond tk
        if dt:
            on = np.abs(np.abs(ev) - 1.0) <= 1e-7
        else:
            on = np.abs(ev.real) <= 1e-7 * np.maximum(np.abs(ev), 1e-300)
        if np.any(on) or unstable(a0 + tk * (1 + 1e-7) * a1, dt, rtol=0.0):
            k = int(np.argmin(np.abs(np.abs(ev) - 1.0) if dt else np.abs(ev.real)))
            w = abs(np.angle(ev[k])) / dt if dt else abs(ev[k].imag)
            return float(tk), float(w)
    return np.inf, np.nan


def box_directions(k, n_per_face=64, seed=0):
    """Directions covering the boundary of the unit box ``[-1, 1]^k`` (vertices included)."""
    if k == 1:
        return np.array([[1.0], [-1.0]])
    if k == 2:
        s = np.linspace(-1, 1, n_per_face, endpoint=False)
        faces = [
            np.stack([np.ones_like(s), s], 1),
            np.stack([-s, np.ones_like(s)], 1),
            np.stack([-np.ones_like(s), -s], 1),
            np.stack([s, -np.ones_like(s)], 1),
        ]
        return np.concatenate(faces)
    rng = np.random.default_rng(seed)
    verts = np.array(np.meshgrid(*[[-1.0, 1.0]] * k, indexing="ij")).reshape(k, -1).T
    rnd = rng.uniform(-1, 1, (n_per_face * k, k))
    rnd /= np.max(np.abs(rnd), axis=1, keepdims=True)
    return np.concatenate([verts, rnd])


def affine_box_margin(a0, mats, dt=0.0, n_per_face=64, seed=0, tmax=np.inf):
    """Smallest box scaling ``t`` with a boundary pole of ``a0 + t sum_i v_i mats[i]``.

    The minimum over box directions ``v``, each crossing exact.  An upper estimate of
    the true margin (a minimum over finitely many directions), never below it.
    Returns ``(t, direction, frequency)``.
    """
    best = (np.inf, None, np.nan)
    for v in box_directions(len(mats), n_per_face, seed):
        a1 = sum(vi * m for vi, m in zip(v, mats, strict=True))
        t, w = first_crossing_affine(a0, a1, dt, tmax=min(tmax, best[0]))
        if t < best[0]:
            best = (t, v, w)
    return best


def complex_disc_margin(a0, e, dt=0.0, n=4000):
    """Smallest ``|delta|`` (complex) with a boundary pole of ``a0 + delta e`` (1-D sweep).

    At each boundary point ``s`` the admissible ``delta`` are the generalised
    eigenvalues of ``(sI - a0, e)``; the margin is their smallest modulus over the
    boundary, found on a dense grid (both signs of frequency) refined by a bounded
    scalar search.  Returns ``(margin, frequency)``.
    """
    nst = a0.shape[0]

    def smallest(w):
        s = np.exp(1j * w * dt) if dt else 1j * w
        ev = sla.eigvals(s * np.eye(nst) - a0, e)
        ev = ev[np.isfinite(ev)]
        return float(np.min(np.abs(ev))) if ev.size else np.inf

    if dt:
        w = np.linspace(-np.pi / dt, np.pi / dt, n)
    else:
        ev = np.abs(np.linalg.eigvals(a0))
        hi = max(np.max(ev), 1.0) * 1e3
        pos = np.geomspace(max(np.min(ev[ev > 0]) if np.any(ev > 0) else 1.0, 1e-12) * 1e-3, hi, n)
        w = np.concatenate([-pos[::-1], [0.0], pos])
    vals = np.array([smallest(x) for x in w])
    best = (float(np.min(vals)), float(w[int(np.argmin(vals))]))
    for i in np.argsort(vals)[:3]:
        lo, hi = w[max(i - 1, 0)], w[min(i + 1, len(w) - 1)]
        res = sopt.minimize_scalar(smallest, bounds=(lo, hi), method="bounded")
        if res.fun < best[0]:
            best = (float(res.fun), float(res.x))
    return best


# ---------------------------------------------------------------------------
# Directional search for general (non-affine) parameter dependence


def directional_crossing(abscissa_of, direction, tmax, n_scan=64):
    """Smallest ``t <= tmax`` with ``abscissa_of(t * direction) >= 0`` (scan + bisection)."""
    prev = 0.0
    for t in np.linspace(0, tmax, n_scan + 1)[1:]:
        if abscissa_of(t * direction) >= 0:
            lo, hi = prev, t
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if abscissa_of(mid * direction) >= 0:
                    hi = mid
                else:
                    lo = mid
            return hi
        prev = t
    return np.inf


# ---------------------------------------------------------------------------
# Structured singular value: brute-force lower bounds


def _delta_shape(blk):
    """``Delta`` is ``(sum r) x (sum c)`` (a scalar block counts ``|r|`` for both)."""
    rows = sum(abs(r) for r, c in blk)
    cols = sum(abs(c) if c else abs(r) for r, c in blk)
    return rows, cols


def _block_slices(blk):
    i = j = 0
    for r, c in blk:
        p, q = abs(r), (abs(c) if c else abs(r))
        yield r, c, slice(i, i + p), slice(j, j + q)
        i, j = i + p, j + q


def random_structured(blk, rng):
    """A random perturbation in the MATLAB ``blk`` structure with every block norm at most 1."""
    delta = np.zeros(_delta_shape(blk), complex)
    for r, c, si, sj in _block_slices(blk):
        if c == 0:
            k = abs(r)
            if r < 0:
                val = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1)
            else:
                val = np.exp(2j * np.pi * rng.uniform())
            delta[si, sj] = val * np.eye(k)
        else:
            b = rng.standard_normal((r, c)) + 1j * rng.standard_normal((r, c))
            delta[si, sj] = b / np.linalg.norm(b, 2)
    return delta


def mu_brute_lower(m, blk, rng, n_random=300, n_opt=4):
    """Largest ``|lambda|`` over eigenvalues of ``M Delta`` usable by the structure.

    ``mu >= |lambda|`` for an eigenvalue ``lambda`` of ``M Delta`` with ``Delta`` in the
    unit ball when ``Delta / lambda`` stays in the structure: always for complex
    blocks, only for real ``lambda`` when real blocks are present.  Random
    perturbations, then Nelder-Mead on the best few.  Returns ``(bound, delta)`` with
    ``det(I - M delta) = 0`` and ``max block norm = 1 / bound``.
    """
    has_real = any(r < 0 and c == 0 for r, c in blk)

    def value(delta):
        ev = np.linalg.eigvals(m @ delta)
        if has_real:
            ev = ev[np.abs(ev.imag) <= 1e-9 * np.maximum(np.abs(ev), 1e-300)]
        if ev.size == 0:
            return 0.0, None
        k = int(np.argmax(np.abs(ev)))
        return float(np.abs(ev[k])), ev[k]

    best, best_delta = 0.0, None
    samples = []
    for _ in range(n_random):
        dl = random_structured(blk, rng)
        v, lam = value(dl)
        samples.append((v, dl))
        if v > best and lam is not None:
            best, best_delta = v, dl / (lam.real if has_real else lam)
    # local refinement of the best samples in a real parameterisation of the structure
    samples.sort(key=lambda x: -x[0])
    shapes = _param_shapes(blk)
    for _v0, dl0 in samples[:n_opt]:
        x0 = _pack(dl0, blk)

        def obj(x):
            return -value(_unpack(x, blk, shapes))[0]

        res = sopt.minimize(obj, x0, method="Nelder-Mead", options={"maxiter": 400})
        dl = _unpack(res.x, blk, shapes)
        v, lam = value(dl)
        if v > best and lam is not None:
            best, best_delta = v, dl / (lam.real if has_real else lam)
    return best, best_delta


def _param_shapes(blk):
    return list(blk)


def _pack(delta, blk):
    out = []
    for r, c, si, sj in _block_slices(blk):
        b = delta[si, sj]
        if c == 0:
            out += [b[0, 0].real] if r < 0 else [np.angle(b[0, 0])]
        else:
            out += list(b.real.ravel()) + list(b.imag.ravel())
    return np.array(out)


def _unpack(x, blk, shapes):
    delta = np.zeros(_delta_shape(blk), complex)
    p = 0
    for r, c, si, sj in _block_slices(shapes):
        if c == 0:
            k = abs(r)
            if r < 0:
                delta[si, sj] = np.clip(x[p], -1, 1) * np.eye(k)
            else:
                delta[si, sj] = np.exp(1j * x[p]) * np.eye(k)
            p += 1
        else:
            nre = r * c
            b = (x[p : p + nre] + 1j * x[p + nre : p + 2 * nre]).reshape(r, c)
            nb = np.linalg.norm(b, 2)
            delta[si, sj] = b / nb if nb > 0 else b
            p += 2 * nre
    return delta


def structure_norm(delta, blk):
    """``max_i sigma_max(delta_i)`` and whether ``delta`` is in the structure (tolerance 1e-8)."""
    norms = []
    ok = delta.shape == _delta_shape(blk)
    if not ok:
        return np.inf, False
    mask = np.zeros(delta.shape, bool)
    for r, c, si, sj in _block_slices(blk):
        b = delta[si, sj]
        mask[si, sj] = True
        if c == 0:
            k = abs(r)
            v = b[0, 0]
            tol = 1e-8 * max(abs(v), 1e-300)
            ok &= bool(np.all(np.abs(b - v * np.eye(k)) <= tol + 1e-14))
            if r < 0:
                ok &= bool(abs(np.imag(v)) <= tol + 1e-14)
            norms.append(abs(v))
        else:
            norms.append(np.linalg.norm(b, 2))
    scale = max(max(norms), 1e-300)
    ok &= bool(np.all(np.abs(delta[~mask]) <= 1e-10 * scale))
    return float(max(norms)), ok


# ---------------------------------------------------------------------------
# High-precision references (mpmath) for stiff and badly scaled systems


def mp_gain(a, b, c, d, w, dps=40):
    """``sigma_max(G(j w))`` of a small system with ``dps``-digit arithmetic."""
    import mpmath as mp

    with mp.workdps(dps):
        n = a.shape[0]
        lhs = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                lhs[i, j] = -mp.mpf(a[i, j])
            lhs[i, i] += mp.mpc(0, w)
        x = mp.lu_solve(lhs, mp.matrix(b.tolist()))
        g = mp.matrix(c.tolist()) * x + mp.matrix(d.tolist())
        gc = np.array([[complex(g[i, j]) for j in range(g.cols)] for i in range(g.rows)])
    return float(np.linalg.norm(gc, 2))


def mp_peak(a, b, c, d, w_guess, rel_width=1e-2, n=201):
    """Peak gain near ``w_guess`` on a high-precision grid refined by golden section."""
    w = np.linspace(w_guess * (1 - rel_width), w_guess * (1 + rel_width), n)
    g = np.array([mp_gain(a, b, c, d, x) for x in w])
    k = int(np.argmax(g))
    res = sopt.minimize_scalar(
        lambda x: -mp_gain(a, b, c, d, x),
        bounds=(w[max(k - 1, 0)], w[min(k + 1, n - 1)]),
        method="bounded",
        options={"xatol": 1e-12 * w_guess},
    )
    return max(float(-res.fun), float(g[k]))


def mp_h2(a, b, c, dps=40):
    """H2 norm of a small continuous system from the Lyapunov equation solved in mpmath."""
    import mpmath as mp

    n = a.shape[0]
    with mp.workdps(dps):
        am = mp.matrix(a.tolist())
        eye = mp.eye(n)
        # vec(A P + P A^T) = (I (x) A + A (x) I) vec(P)
        big = mp.matrix(n * n, n * n)
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    for m in range(n):
                        big[i * n + j, k * n + m] = am[i, k] * eye[j, m] + eye[i, k] * am[j, m]
        q = mp.matrix(b.tolist()) * mp.matrix(b.tolist()).T
        rhs = mp.matrix(n * n, 1)
        for i in range(n):
            for j in range(n):
                rhs[i * n + j] = -q[i, j]
        p = mp.lu_solve(big, rhs)
        pm = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                pm[i, j] = p[i * n + j]
        cm = mp.matrix(c.tolist())
        val = cm * pm * cm.T
        tr = sum(val[i, i] for i in range(val.rows))
        return float(mp.sqrt(tr))
