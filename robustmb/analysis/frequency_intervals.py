"""Extending a mu upper-bound certificate from one frequency to a whole interval.

A D,G certificate of ``mu(M(j w0)) <= beta0`` (in the sigma-max form of
:mod:`.mu_upper`) is equivalent to the quadratic inequality::

    Phi(w) = [M(jw); I]^H Pi [M(jw); I] <= 0,
    Pi = [[X, -jY], [jY^H, -beta^2 Z]],

with ``X = Dl^H Pl Dl``, ``Y = beta0 Dl^H Pl Gm Dr``, ``Z = Dr^H Pr Dr``,
``Pl = (I + Gl^2)^(-1/2)`` and ``Pr = (I + Gr^2)^(1/2) - Gm^H Pl Gm``.  With
``X, Y, Z`` fixed the inequality stays true for every ``beta >= beta0`` and
keeps certifying ``mu(M(jw)) <= beta`` at every frequency where it holds.

``Phi`` is a para-Hermitian rational matrix; its eigenvalues change sign only
where ``det Phi(jw) = 0``, i.e. at the imaginary eigenvalues of a Hamiltonian
pencil built from the state-space data of ``M``.  Between two consecutive such
frequencies the inertia of ``Phi`` is constant, so one evaluation per segment
decides it: the certified interval around ``w0`` is exact, not sampled.
The imaginary parts of all the eigenvalues are kept as candidate crossings: the
pencil of a degenerate certificate is ill-conditioned enough to move a true
crossing well off the axis, and a spurious candidate can only split a segment
(the inequality is checked at the candidate before joining across it), never
hide a violation.  Discrete-time models are handled through the bilinear map
``z = (1 + s) / (1 - s)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from .mu_structure import dagger, hermitian_power
from .mu_upper import expand_scalings

# Relative margin by which interval ends are pulled in from their crossing frequencies.
_EDGE = 1e-9


@dataclass(frozen=True)
class Multiplier:
    """``X, Y, Z`` of the frequency-domain inequality of one certificate."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray

    def pi(self, beta):
        """The constant Hermitian multiplier ``Pi`` for the level ``beta``."""
        return np.block([[self.x, -1j * self.y], [1j * dagger(self.y), -(beta**2) * self.z]])


def multiplier_from_certificate(blk, beta0, D, G=None) -> Multiplier:
    """Multiplier of a sigma-max certificate ``(beta0, D, G)`` of :func:`mussv`.

    ``beta0 = 0`` certificates (``mu = 0``) use the limit form, in which ``G`` is
    already the multiplier's ``Y`` block.  ``Pr`` uses the identity
    ``(I + G^2)^(1/2) - G (I + G^2)^(-1/2) G = (I + G^2)^(-1/2)`` (``G`` acts on
    the real blocks, whose row and column channels coincide), which avoids the
    cancellation of the difference when ``G`` is large.
    """
    # The certificate is invariant under D -> c D; unit size keeps products finite.
    D = np.asarray(D) / np.max(np.abs(D))
    dl, dr, gl, gm, gr = expand_scalings(blk, D, G)
    if beta0 == 0:
        x, y, z = dagger(dl) @ dl, dagger(dl) @ gm @ dr, dagger(dr) @ dr
    else:
        pl = hermitian_power(gl, -0.5)
        pr = hermitian_power(gr, -0.5)
        x = dagger(dl) @ pl @ dl
        y = beta0 * dagger(dl) @ pl @ gm @ dr
        z = dagger(dr) @ pr @ dr
    # A positive scaling does not change the inequality; unit size helps the pencil.
    scale = max(np.linalg.norm(x), np.linalg.norm(y), np.linalg.norm(z))
    x, y, z = x / scale, y / scale, z / scale
    return Multiplier(0.5 * (x + dagger(x)), y, 0.5 * (z + dagger(z)))


def fdi_values(responses, mult: Multiplier, beta):
    """``lambda_max(Phi(w))`` for a stack of responses ``M(jw)`` (shape ``(k, n, m)``)."""
    m = responses
    mh = dagger(m)
    my = mh @ mult.y
    phi = mh @ mult.x @ m - 1j * my + 1j * dagger(my) - beta**2 * mult.z
    return np.linalg.eigvalsh(0.5 * (phi + dagger(phi)))[..., -1]


def continuous_equivalent(a, b, c, d, dt):
    """Bilinear map of a discrete model: ``Mc(j nu) = Md(exp(j theta))``, ``nu = tan(theta/2)``."""
    if not dt:
        return a, b, c, d
    n = a.shape[0]
    if n == 0:
        return a, b, c, d
    ipa = np.eye(n) + a
    k = np.linalg.solve(ipa, np.hstack([a - np.eye(n), b]))
    ac, bc = k[:, :n], np.sqrt(2.0) * k[:, n:]
    cc = np.sqrt(2.0) * np.linalg.solve(ipa.T, c.T).T
    dc = d - c @ np.linalg.solve(ipa, b)
    return ac, bc, cc, dc


def to_model_frequency(nu, dt):
    """Map a frequency of the continuous equivalent back to rad/s."""
    if not dt:
        return nu
    return 2.0 * np.arctan(nu) / dt


def to_equivalent_frequency(w, dt):
    if not dt:
        return w
    return np.tan(np.clip(np.asarray(w, float) * dt / 2.0, 0.0, np.pi / 2))


def crossing_frequencies(a, b, c, d, pi, *, rtol=1e-6):
    """Frequencies ``w >= 0`` where ``det Phi(jw)`` may vanish (continuous-time data).

    The zeros of ``Phi(s) = [M(s); I]^~ Pi [M(s); I]`` are the finite
    eigenvalues of a Hamiltonian pencil; those within ``rtol`` (relative) of
    the imaginary axis are returned, sorted.
    """
    n, mw = b.shape
    cc = np.vstack([c, np.zeros((mw, n))])
    dc = np.vstack([d, np.eye(mw)])
    q = dagger(cc) @ pi @ cc
    s = dagger(cc) @ pi @ dc
    r = dagger(dc) @ pi @ dc
    big_a = np.block([[a, np.zeros((n, n))], [q, -dagger(a)]])
    big_b = np.vstack([b, s])
    big_c = np.hstack([dagger(s), -dagger(b)])
    pencil_a = np.block([[big_a, big_b], [big_c, r]])
    pencil_e = sla.block_diag(np.eye(2 * n), np.zeros((mw, mw)))
    if n == 0:
        return np.zeros(0)
    lam = sla.eigvals(pencil_a, pencil_e)
    lam = lam[np.isfinite(lam)]
    scale = np.maximum(1.0, np.abs(lam))
    on_axis = np.abs(lam.real) <= rtol * scale
    w = np.abs(lam[on_axis].imag)
    return np.unique(np.round(w, 14))


def certified_interval(sysdata, mult: Multiplier, beta, w0, evaluate):
    """Largest interval around ``w0`` on which the multiplier certifies ``mu <= beta``.

    The inequality is checked at the midpoint of every segment between candidate
    crossings, at ``w0`` and at 0.  Segments are joined across a candidate only where
    the inequality holds at it and just either side of it (a spurious candidate).  The
    ends of the interval are pulled in from their crossings by the relative margin
    ``_EDGE`` and checked there (else they fall back to the midpoint of their segment):
    a crossing is only known to rounding accuracy, and at a real-mu discontinuity
    (``mu`` jumps at one frequency) the intervals of the certificates on either side
    both end at that frequency, so the margin is what leaves the gap that exposes it.

    Parameters
    ----------
    sysdata : tuple
        ``(a, b, c, d)`` of the continuous(-equivalent) model of ``M``.
    mult : Multiplier
    beta : float
    w0 : float
        Frequency (of the continuous equivalent) where the certificate holds.
    evaluate : callable
        ``evaluate(frequencies) -> responses`` of ``M`` (continuous equivalent).

    Returns
    -------
    (lo, hi) : floats, ``lo <= w0 <= hi``; ``hi`` may be ``inf``.  ``None`` when
    the inequality does not hold at ``w0`` itself.
    """
    a, b, c, d = sysdata
    # Every eigenvalue is a candidate: the pencil of a degenerate certificate can be so
    # ill-conditioned that a true crossing comes out with a real part of 1e-4 relative.
    # A spurious candidate costs three probes; the segments are joined across it.
    cross = crossing_frequencies(a, b, c, d, mult.pi(beta), rtol=np.inf)
    cross = cross[cross > 0]
    edges = np.concatenate([[0.0], cross, [np.inf]])
    # Segment midpoints (and the point at infinity) decide each segment's sign.
    seg_lo, seg_hi = edges[:-1], edges[1:]
    with np.errstate(invalid="ignore"):
        mids = np.where(
            np.isinf(seg_hi),
            np.maximum(2 * seg_lo, seg_lo + 1.0),
            np.where(seg_lo > 0, np.sqrt(seg_lo * seg_hi), 0.5 * seg_hi),
        )
    nseg, ncross = len(mids), len(cross)
    probe = np.concatenate([mids, [w0, 0.0], cross * (1 - _EDGE), cross, cross * (1 + _EDGE)])
    neg = fdi_values(evaluate(probe), mult, beta) < 0
    ok_seg, at_w0, at_zero = neg[:nseg], neg[nseg], neg[nseg + 1]
    below, at, above = neg[nseg + 2 :].reshape(3, ncross)
    if not at_w0:
        return None
    # The segment of w0 (the one to its left when w0 is a candidate itself).
    k = int(np.searchsorted(seg_hi, w0, side="left"))
    k = min(k, nseg - 1)
    if not ok_seg[k]:
        # w0 sits on a numerically detected crossing inside a negative region.
        return (w0, w0)
    # Segments j and j + 1 meet at cross[j]: joined only where it is negative too.
    joins = below & at & above
    lo_k = k
    while lo_k > 0 and ok_seg[lo_k - 1] and joins[lo_k - 1]:
        lo_k -= 1
    hi_k = k
    while hi_k < nseg - 1 and ok_seg[hi_k + 1] and joins[hi_k]:
        hi_k += 1
    # Each end is pulled in from its crossing (or falls back to the checked midpoint).
    if lo_k == 0:
        lo = 0.0 if at_zero else mids[0]
    else:
        lo = cross[lo_k - 1] * (1 + _EDGE) if above[lo_k - 1] else mids[lo_k]
    lo = min(lo, w0)
    if hi_k == nseg - 1:
        if fdi_values(d[None], mult, beta)[0] < 0:
            return (float(lo), np.inf)
        # The strict inequality must also hold at infinity (the feedthrough).
        if hi_k == k:
            return (float(lo), float(w0))
        hi_k -= 1
    hi = cross[hi_k] * (1 - _EDGE) if below[hi_k] else mids[hi_k]
    return (float(lo), float(max(hi, w0)))
