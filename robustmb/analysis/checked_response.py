"""Frequency responses with an error bound, for the inequality checks of a mu certificate.

A certified interval (:mod:`.frequency_intervals`) rests on evaluations of the
frequency-domain inequality ``Phi(w) < 0`` at points of the axis, and each evaluation
needs ``M(jw)``.  The sweep's fast evaluation (a modal or Schur sum, or an LU solve) is
backward stable, but its relative error is about ``eps cond(jw I - A)``: on a loop with
``cond(A) = 4.5e13`` it was ``1.3e-3`` at every frequency, the inequality held for the
computed ``M`` but not for the exact one, and the certified margin came out above the
exact one (6.33269e-7 against 6.33104e-7).

Here each check uses responses with an entrywise error bound ``E``, in up to three
stages, a point leaving as soon as its sign is decided:

1. the sweep's fast response, with the estimate of :meth:`CheckedResponse.fast_errors`
   (backward error of a solve times ``||(jw I - A)^-1||^2``, the latter estimated by
   ``cond(V) / min |jw - p_i|`` from the eigendecomposition of ``A``): tiny on an
   ordinary loop, so nearly every point leaves here at almost no cost;
2. one step of iterative refinement with a double-double residual
   (:func:`.refined_response.refined_response` on the balanced realisation, a
   power-of-2 similarity: the same ``M``);
3. refinement to convergence.

In stages 2 and 3 the size of the last correction to column ``X_j`` of
``X = (jw I - A)^-1 B``, relative to ``X_j``, estimates the error left in it (about
``eps`` once converged; it stays large when ``eps cond >= 1``, where refinement does
not converge); with ``tau_j`` four times that plus a few ``eps`` for the product
``C X``, ``E_ij = tau_j ||c_i|| ||X_j||`` (per column: the channels of a scaled model
can differ by ``1e14`` in size).  The inequality of the scaled model ``S = Dl M Dr^-1``
then moves by at most::

    ||Phi(S + F) - Phi(S)|| <= 2 f (||X|| ||S|| + ||Y||) + ||X|| f^2,
    F = Dl E Dr^-1,  f = || |Dl| E |Dr^-1| ||_F,  (Frobenius norms for the others)

and a point certifies only where ``lambda_max(Phi) + that < 0``.  Where even
refinement does not converge the bound is large and the point does not certify (the
sweep then leaves a gap: no margin is claimed there).  The error bounds are estimates
(computed eigenvectors, the refinement's own correction), not a proof in interval
arithmetic.
"""

from __future__ import annotations

import numpy as np

from .balancing import balance_realization
from .mu_structure import dagger
from .refined_response import refined_response

__all__ = ["CheckedResponse", "fdi_upper_bounds"]

_EPS = np.finfo(float).eps
# Rounding of the double-double product ``C X`` and of the sum with ``D``, in units of
# eps relative to ``||c_i|| ||X||_F`` (the products are accurate to about eps^2; the
# final rounding of each entry to double is one eps).
_PRODUCT_ROUNDING = 8.0
# Factor on the refinement's own estimate of the error left in ``X`` (the size of its
# last correction, which is about the error before that correction).
_ESTIMATE_SAFETY = 4.0
# A value of ``lambda_max(Phi)`` within this many eps of the size of the terms of ``Phi``
# is rounding (at a crossing of the pencil it is 0 to rounding): no refinement of the
# responses decides its sign, and such a point is left undecided (it does not certify).
_NOISE = 100.0


class CheckedResponse:
    """``M(jw)`` of a continuous model with an entrywise bound on its error.

    Parameters
    ----------
    sysdata : tuple
        ``(a, b, c, d)`` of a continuous(-time equivalent) model.

    Examples
    --------
    >>> import numpy as np
    >>> sysdata = (-np.eye(1), np.eye(1), np.eye(1), np.zeros((1, 1)))
    >>> m, err = CheckedResponse(sysdata)(np.array([0.0, 1.0]))
    >>> bool(np.allclose(m[:, 0, 0], [1.0, 1 / (1 + 1j)])), bool(np.all(err < 1e-14))
    (True, True)
    """

    def __init__(self, sysdata):
        a, b, c, d = (np.asarray(x) for x in sysdata)
        self.sysdata = sysdata
        self.d = d
        if a.shape[0]:
            a, b, c = balance_realization(a, b, c)
        self.a, self.b, self.c = a, b, c
        self.row_norms = np.linalg.norm(c, axis=1) if a.shape[0] else np.zeros(c.shape[0])
        self._modes = None  # (poles, cond(V), ||A||, ||B||) for fast_errors, when first needed

    def fast_errors(self, omega):
        """Estimated entrywise error bounds of a backward-stable evaluation of ``M(jw)``
        (the sweep's fast one), from the eigendecomposition of ``A``.

        A solve backward stable in norm computes ``X`` for ``jw I - A + F``,
        ``||F|| <= c n eps (|w| + ||A||)``; with ``||(jw I - A)^-1|| <= r = cond(V) /
        min |jw - p_i|`` the error of ``X`` is at most about ``r^2 ||F|| ||B||``, and the
        rounding of the sums adds ``eps r ||B||``.  Entry ``(i, j)`` takes ``||c_i||``
        times that, with a safety factor of 16 on ``c = 1``.  ``inf`` on a pole, or when
        the eigenvector matrix is numerically singular (an estimate, not a proof: its
        ``cond(V)`` and poles are computed in double precision; only a point whose
        inequality holds with this much room is decided on the fast response).
        """
        omega = np.asarray(omega, float).ravel()
        n = self.a.shape[0]
        p, m = self.d.shape
        err = np.zeros((omega.size, p, m))
        if n == 0:
            return err
        if self._modes is None:
            poles, V = np.linalg.eig(self.a)
            with np.errstate(all="ignore"):
                kappa = float(np.linalg.cond(V))
            if not np.isfinite(kappa):
                kappa = np.inf
            self._modes = (
                poles,
                kappa,
                float(np.linalg.norm(self.a)),
                np.linalg.norm(self.b, axis=0),
            )
        poles, kappa, norm_a, norm_b = self._modes
        with np.errstate(all="ignore"):
            dist = np.min(np.abs(1j * omega[:, None] - poles[None, :]), axis=1)
            r = kappa / dist
            per = 16.0 * _EPS * (r + n * (np.abs(omega) + norm_a) * r * r)
            per = np.where(np.isfinite(omega), per, 0.0)
            per = np.where(np.isnan(per), np.inf, per)
            err[:] = per[:, None, None] * self.row_norms[None, :, None] * norm_b[None, None, :]
            err[np.isnan(err)] = np.inf
        err += _EPS * np.abs(self.d)[None]
        return err

    def __call__(self, omega, max_steps=None):
        """``(responses, errors)`` at the frequencies ``omega`` (rad/s, 1-D; ``inf``
        gives ``D``).  ``errors[k, i, j]`` bounds ``|M_ij(j omega_k) - responses[k, i, j]|``
        (``inf`` at a point on a pole).  ``max_steps`` limits the refinement steps (the
        bound then reflects the error left; default: until converged)."""
        omega = np.asarray(omega, float).ravel()
        K = omega.size
        p, m = self.d.shape
        out = np.empty((K, p, m), dtype=complex)
        err = np.zeros((K, p, m))
        out[:] = self.d
        finite = np.isfinite(omega)
        if self.a.shape[0] == 0 or not finite.any():
            return out, err
        idx = np.flatnonzero(finite)
        resp, tau, size = self._refined(1j * omega[idx], max_steps)
        out[idx] = resp
        err[idx] = (tau * size)[:, None, :] * self.row_norms[None, :, None]
        return out, err

    def upper_bounds(self, omega, mult, beta, fast=None):
        """:func:`fdi_upper_bounds` at ``omega``, in stages: on the responses ``fast``
        gives (``omega -> responses``, backward stable) with the error estimate of
        :meth:`fast_errors`; where that leaves the sign undecided, after one refinement
        step (an LU solve and one double-double residual); where still undecided, after
        refinement to convergence.  A point is left at a stage once the bound is below 0
        or the inequality surely fails (a failing point only loses coverage), or when
        ``lambda_max(Phi)`` is 0 to the rounding of ``Phi`` itself (no refinement of
        ``M`` decides its sign: the point does not certify)."""
        omega = np.asarray(omega, float).ravel()
        out = np.full(omega.size, np.nan)
        open_ = np.ones(omega.size, bool)
        stages = [("fast", None), ("refined", 1), ("refined", None)]
        if fast is None:
            stages = stages[1:]
        for kind, steps in stages:
            idx = np.flatnonzero(open_)
            if kind == "fast":
                resp, err = fast(omega[idx]), self.fast_errors(omega[idx])
            else:
                resp, err = self(omega[idx], max_steps=steps)
            top, spread, noise = _fdi_bracket(resp, err, mult, beta, noise=True)
            out[idx] = top + spread
            with np.errstate(invalid="ignore"):
                # undecided: neither below 0 for certain nor surely above it, nor 0 to
                # the rounding of Phi (which no refinement of M removes)
                still = ~(top + spread < 0) & ~(top - spread >= 0) & (spread > 0)
                still &= np.abs(top) > noise
            open_[:] = False
            open_[idx[still]] = True
            if not open_.any():
                break
        return out

    def _refined(self, points, max_steps=None):
        a, b, c, d = self.a, self.b, self.c, self.d
        steps = {} if max_steps is None else {"max_steps": max_steps}
        try:
            resp, acc, size = refined_response(a, b, c, d, points, sizes=True, **steps)
        except np.linalg.LinAlgError:  # a point exactly on a pole: that one is inf
            resp = np.full((points.size,) + d.shape, np.inf, dtype=complex)
            acc = np.full((points.size, d.shape[1]), np.inf)
            size = np.ones((points.size, d.shape[1]))
            for k in range(points.size):
                try:
                    got = refined_response(a, b, c, d, points[k : k + 1], sizes=True, **steps)
                except np.linalg.LinAlgError:
                    continue
                resp[k], acc[k], size[k] = got[0][0], got[1][0], got[2][0]
        with np.errstate(invalid="ignore"):
            tau = _ESTIMATE_SAFETY * acc + _PRODUCT_ROUNDING * _EPS
            tau = np.where(np.isfinite(tau) & np.isfinite(size), tau, np.inf)
        return resp, tau, size


def fdi_upper_bounds(responses, errors, mult, beta):
    """Upper bounds of ``lambda_max(Phi(w))`` for the exact responses within ``errors``.

    ``responses`` and ``errors`` as returned by :class:`CheckedResponse`; ``mult`` a
    :class:`.frequency_intervals.Multiplier`.  The bound is ``lambda_max`` of the
    computed ``Phi`` plus the perturbation bound of the module notes (``inf``, or
    ``nan`` at a pole, where the error is not bounded).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.frequency_intervals import Multiplier
    >>> mult = Multiplier(np.eye(1), np.zeros((1, 1)), np.eye(1))  # |M| <= beta
    >>> m = np.array([[[0.5]]])
    >>> float(fdi_upper_bounds(m, np.zeros((1, 1, 1)), mult, 1.0)[0])  # 0.25 - 1
    -0.75
    >>> float(fdi_upper_bounds(m, np.full((1, 1, 1), 0.1), mult, 1.0)[0])  # + 0.1 + 0.01
    -0.64
    """
    top, spread = _fdi_bracket(responses, errors, mult, beta)
    return top + spread


def _fdi_bracket(responses, errors, mult, beta, noise=False):
    """``(lambda_max(Phi) of the computed responses, bound on its change)``; with
    ``noise``, also the size of the rounding of ``Phi`` itself (``1e2 eps`` times the
    sizes of its terms)."""
    s = mult.scale_responses(responses)
    if mult.left is not None:
        left = np.abs(mult.left)
        right = np.abs(np.linalg.inv(mult.right))
        errors = left @ errors @ right
    with np.errstate(invalid="ignore", over="ignore"):
        f = np.sqrt(np.sum(errors**2, axis=(1, 2)))
        sh = dagger(s)
        sy = sh @ mult.y
        phi = sh @ mult.x @ s - 1j * sy + 1j * dagger(sy) - beta**2 * mult.z
        finite = np.all(np.isfinite(phi), axis=(1, 2))
        phi = np.where(finite[:, None, None], phi, 0.0)
        top = np.linalg.eigvalsh(0.5 * (phi + dagger(phi)))[..., -1]
        top = np.where(finite, top, np.nan)
        # Frobenius norms: upper bounds of the spectral ones, at no SVD per point
        nx = np.linalg.norm(mult.x)
        ny = np.linalg.norm(mult.y)
        ns = np.linalg.norm(np.where(finite[:, None, None], s, 0.0), axis=(1, 2))
        spread = 2.0 * f * (nx * ns + ny) + nx * f**2
        if noise:
            size = nx * ns**2 + 2.0 * ny * ns + beta**2 * np.linalg.norm(mult.z)
            return top, spread, _NOISE * _EPS * size
        return top, spread
