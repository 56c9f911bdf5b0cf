"""Random 4-state loops ``A + k u v`` with one real parameter, and their exact margin.

The margin reference uses no robustmb code: the stored doubles are exact rationals, so
``det(sI - A - k b c) = d(s) - k n(s)`` (rank one: linear in ``k``) has rational
coefficients (Faddeev-LeVerrier over ``fractions.Fraction``).  A pole crosses the axis at
``s = jw`` for the real ``k = d(jw) / n(jw)``, so the crossings are the real roots of
``Im(d(jw) conj(n(jw)))`` (``w = 0`` always among them), found by ``mpmath.polyroots`` at
high precision, and the margin is the smallest ``|k|`` over them.
"""

from fractions import Fraction

import mpmath
import numpy as np

import robustmb as rmb


def charpoly(M):
    """Coefficients (highest first) of ``det(sI - M)`` for a square list of Fractions."""
    n = len(M)
    coeffs = [Fraction(1)]
    Mk = [[Fraction(0)] * n for _ in range(n)]
    for k in range(1, n + 1):
        Mk = [
            [sum(M[i][l] * Mk[l][j] for l in range(n)) + (coeffs[-1] if i == j else 0)
             for j in range(n)]
            for i in range(n)
        ]  # fmt: skip
        trace = sum(sum(M[i][l] * Mk[l][i] for l in range(n)) for i in range(n))
        coeffs.append(-trace / k)
    return coeffs


def _on_axis(coeffs):
    """``{power: coefficient}`` of the real and imaginary parts of ``p(jw)`` in ``w``."""
    deg = len(coeffs) - 1
    re, im = {}, {}
    for i, c in enumerate(coeffs):
        p = deg - i
        unit = [1, 1j, -1, -1j][p % 4]
        if unit.real:
            re[p] = re.get(p, 0) + c * int(unit.real)
        else:
            im[p] = im.get(p, 0) + c * int(unit.imag)
    return re, im


def _times(a, b):
    out = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, 0) + x * y
    return out


def exact_margin(A, b, c, dps=80):
    """Smallest ``|k|`` for which ``A + k b c`` (rank one) has a pole on the imaginary axis."""
    n = A.shape[0]
    Af = [[Fraction(float(x)) for x in row] for row in A]
    U = [[Fraction(float(b[i, 0])) * Fraction(float(c[0, j])) for j in range(n)] for i in range(n)]
    d = charpoly(Af)
    d1 = charpoly([[Af[i][j] + U[i][j] for j in range(n)] for i in range(n)])
    num = [x - y for x, y in zip(d, d1, strict=True)]  # det(sI - A - k U) = d - k num
    dr, di = _on_axis(d)
    nr, ni = _on_axis(num)
    q = _times(dr, ni)
    for p, v in _times(di, nr).items():
        q[p] = q.get(p, 0) - v
    deg = max((p for p, v in q.items() if v != 0), default=0)
    with mpmath.workdps(dps):
        ws = [mpmath.mpf(0)]
        if deg > 0:
            coeffs = [mpmath.mpf(q.get(p, 0).numerator) / q.get(p, 0).denominator
                      for p in range(deg, -1, -1)]  # fmt: skip
            roots = mpmath.polyroots(coeffs, maxsteps=800, extraprec=3000)
            tiny = mpmath.mpf(10) ** (-dps // 2)
            ws += [mpmath.re(r) for r in roots if abs(mpmath.im(r)) < tiny * (1 + abs(r))]
        best = mpmath.inf
        as_mp = [[mpmath.mpf(x.numerator) / x.denominator for x in poly] for poly in (d, num)]
        for w in ws:
            if w < 0:
                continue
            s = mpmath.mpc(0, w)
            nv = mpmath.polyval(as_mp[1], s)
            if nv == 0:
                continue
            best = min(best, abs(mpmath.re(mpmath.polyval(as_mp[0], s) / nv)))
        return float(best)


def rank_one_loop(seed):
    """``(loop, (A, b, c))``: a 4-state ``uss`` ``A0 + k u v`` (``k`` in [-1, 1]) and the LFT
    data of ``k``.  ``A0`` is a lightly coupled pair of modes (one of them nearly
    defective for 60 % of the seeds) in a basis of condition number ``1e5 .. 1e13``:
    ``cond(A)`` spans about ``1e6 .. 1e20``."""
    rng = np.random.default_rng(seed)
    n = 4
    Q1, _ = np.linalg.qr(rng.standard_normal((n, n)))
    Q2, _ = np.linalg.qr(rng.standard_normal((n, n)))
    cond = float(10.0 ** rng.uniform(5, 13))
    T = Q1 @ np.diag(np.logspace(0, np.log10(cond), n)) @ Q2
    w1 = float(rng.choice([1, 100, 1e4]))
    L = np.zeros((n, n))
    L[:2, :2] = [[-rng.uniform(0.1, 1), w1], [-w1, -rng.uniform(0.1, 1)]]
    if rng.random() < 0.6:
        L[2:, 2:] = [[-0.5, 1.0], [rng.uniform(-1e-6, 0), -0.5]]
    else:
        L[2:, 2:] = [
            [-rng.uniform(0.1, 1), rng.uniform(0, 1)],
            [-rng.uniform(0, 1), -rng.uniform(0.1, 1)],
        ]
    A0 = T @ L @ np.linalg.inv(T)
    u = rng.standard_normal((n, 1)) * 10.0 ** -float(rng.integers(0, 12))
    v = rng.standard_normal((1, n))
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    loop = rmb.uss(A0 + k * (u @ v), np.ones((n, 1)), np.ones((1, n)), np.zeros((1, 1)))
    ss, _ = rmb.lftdata(loop)
    A = np.asarray(ss.A)
    return loop, (A, np.asarray(ss.B)[:, :1], np.asarray(ss.C)[:1, :])
