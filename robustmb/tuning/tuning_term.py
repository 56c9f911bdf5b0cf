"""One term of a tuning problem: a normalised closed-loop measure of a tunable LFT.

A :class:`Term` evaluates one goal on one model (an H-infinity, H2 or pole measure of
``S(x)``, times a scale) with its value, subgradient, active peaks and a cheap lower
bound for the line search's screen; :func:`pole_requirement` is the pole measure and
:func:`check_multipeak` the option check shared by ``hinfstruct`` and ``systune``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..analysis.norms import _hinfnorm_bracket
from ..errors import ArgumentError
from .gradients import Above, finite_peak, hinf_gradient, hinf_peaks, peak_gradient
from .h2_gradient import h2_gradient
from .parametrization import TunableLFT
from .pole_measure import pole_pieces, pole_requirement

__all__ = ["Term", "check_multipeak", "check_run_options", "check_seed", "pole_requirement"]


@dataclass
class Term:
    """One normalised measure of one tunable LFT: ``measure(S(x)) * scale``.

    ``measure`` is ``"hinf"``, ``"h2"`` or ``"poles"`` (then ``poles`` holds the
    ``(decay, damping, max_frequency)`` requirement).  ``band``: the frequency band
    ``[0, band]`` measured once the H-infinity value sits on a parameter-independent
    high-frequency limit (see :meth:`evaluate`; ``None``: its largest finite local
    maximum).
    """

    lft: TunableLFT
    measure: str = "hinf"
    scale: float = 1.0
    poles: tuple | None = None
    label: str = ""
    band: float | None = None
    _state: tuple | None = None  # (x, (A, B, C, D), gamma, peak) of the last H-inf evaluation
    _last: tuple | None = None  # (x, value, gradient) of the last evaluation with a gradient
    _peaks: np.ndarray | None = None  # peak frequencies of the last multi-peak set

    def pieces(self, x, *, rel=0.05):
        """Values, gradients and frequencies of every active piece at ``x``.

        For an H-infinity measure, one piece per local maximum of the largest singular
        value above ``(1 - rel)`` times the norm (:func:`hinf_peaks`); otherwise the value
        itself.  ``None`` when the loop is unstable.
        """
        x = np.asarray(x, float)
        st = self._state
        if self.measure == "poles":
            # every near-active eigenvalue is a piece (a kink where several are level)
            if not self.evaluate(x, gradient=False)[0] < np.inf:
                return None
            a = self.lft.statespace(x)[0]
            vals, ga = pole_pieces(a, *self.poles, rel=rel)
            n = a.shape[0]
            gs = np.zeros((vals.size, n + self.lft.ny, n + self.lft.nu))
            gs[:, :n, :n] = ga
            return vals * self.scale, self.lft.chain(x, gs) * self.scale, np.full(vals.size, np.nan)
        if self.measure != "hinf" or self.lft.dt != 0:
            # These evaluations do not depend on a peak-frequency hint: the objective's
            # evaluation at x (just made, as a rule) is reused.
            last = self._last
            if last is not None and last[0].shape == x.shape and np.array_equal(last[0], x):
                v, g = last[1], last[2]
            else:
                v, g = self.evaluate(x)
            return None if g is None else (np.array([v]), g[None], np.array([np.nan]))
        if st is None or st[0].shape != x.shape or not np.array_equal(st[0], x):
            v, g = self.evaluate(x)
            if g is None:
                return None
            st = self._state
            if st is None or not np.array_equal(st[0], x):
                return np.array([v]), g[None], np.array([np.nan])
        _, (a, b, c, d), gam, w = st
        vals, freqs, gs = hinf_peaks(a, b, c, d, gam, w, rel=rel)
        self._peaks = freqs  # the screen's candidates beside the hint (see lower_bound)
        return vals * self.scale, self.lft.chain(x, gs) * self.scale, freqs

    def lower_bound(self, x):
        """A lower bound of :meth:`evaluate`'s value at ``x`` from one response evaluation.

        For a continuous H-infinity measure, the largest ``sigma_max(G(jw))`` (times
        ``scale``) over the peak frequency ``w`` of the last evaluation, the peaks of the
        last multi-peak set (:meth:`pieces`) and infinity (``sigma_max(D)``): the norm is
        at least the gain at any frequency.  The inner evaluation tries the hint and
        ``sigma_max(D)`` first, so its value is at least theirs too; a secondary peak is
        below it only as far as the inner level set misses a peak.
        ``-inf`` for other measures or before any evaluation.  One LU solve instead of a
        level-set iteration: the line search rejects trial points with it.

        Examples
        --------
        >>> import control, numpy as np
        >>> import robustmb as rmb
        >>> from robustmb.lft.algebra import lft_lower
        >>> from robustmb.lft.model import as_model
        >>> from robustmb.tuning.parametrization import ParameterVector, TunableLFT
        >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 0.0]])
        >>> km = as_model(rmb.tunable_gain("K", 1, 1))
        >>> params = ParameterVector(km.tunables)
        >>> lft = TunableLFT(lft_lower(as_model(P), km), params)  # 1 / (s + 1 - K)
        >>> term = Term(lft)
        >>> float(term.evaluate(np.array([-1.0]))[0])  # peak 1 / (1 + 1) at w = 0
        0.5
        >>> float(term.lower_bound(np.array([-3.0])))  # at that peak: 1 / (1 + 3)
        0.25
        """
        st = self._state
        if self.measure != "hinf" or self.lft.dt != 0 or st is None:
            return -np.inf
        a, b, c, d = self.lft.statespace(x)
        if not d.size:
            return -np.inf
        w = np.array([st[3]]) if self._peaks is None else np.concatenate(([st[3]], self._peaks))
        w = w[np.isfinite(w)]
        v = 0.0
        if w.size and a.shape[0]:
            rhs = np.broadcast_to(b, (w.size, *b.shape))
            try:
                g = c @ np.linalg.solve(1j * w[:, None, None] * np.eye(a.shape[0]) - a, rhs) + d
            except np.linalg.LinAlgError:
                return np.inf  # a pole on the axis at w: unstable, or unbounded gain
            v = float(np.linalg.svd(g, compute_uv=False)[:, 0].max())
        # the limit at infinite frequency, sigma_max(D) <= ||D||_F: its SVD only when it
        # may raise the bound
        if d.any() and not v >= np.linalg.norm(d):
            v = max(v, float(np.linalg.norm(d, 2)))
        v *= self.scale
        return v if np.isfinite(v) else np.inf

    def verified(self, x):
        """Value at ``x`` by :func:`robustmb.hinfnorm` at ``tol=1e-10`` (an H-infinity
        measure; others as :meth:`evaluate`): independent of the inner evaluation."""
        if self.measure != "hinf":
            return self.evaluate(x, gradient=False)[0]
        a, b, c, d = self.lft.statespace(x)
        # the attained value only: how tightly it is certified is not asked here
        return float(_hinfnorm_bracket((a, b, c, d, self.lft.dt), tol=1e-10)[0]) * self.scale

    def evaluate(self, x, *, gradient=True, below_limit=False, above=None):
        """Value and gradient at ``x`` (``inf, None`` when unstable).

        With ``below_limit``, an H-infinity measure whose supremum is its
        parameter-independent high-frequency limit (``|I - T| -> 1`` of a tracking
        error) is measured by its largest finite-frequency local maximum instead: the
        part tuning can still lower once the norm sits on that floor.

        ``above`` (a line search's rejection level, continuous H-infinity measures
        only): once the inner level set finds a gain above it, the evaluation stops and
        returns that gain (a lower bound of the value, above the level) with no
        gradient, and keeps no state (:class:`~robustmb.tuning.gradients.Above`).
        """
        a, b, c, d = self.lft.statespace(x)
        if self.measure == "hinf":
            # The last peak frequency is a good candidate for the next evaluation.
            hint = self._state[3] if self._state is not None else None
            stop = above / self.scale if above is not None and self.scale > 0 else None
            v, w, gs = hinf_gradient(a, b, c, d, self.lft.dt, w_hint=hint, above=stop)
            if isinstance(v, Above):
                return float(v) * self.scale, None
            if np.isfinite(v):
                self._state = (np.array(x, float), (a, b, c, d), v, w)
                if below_limit and not np.isfinite(w) and self.lft.dt == 0:
                    g = self.lft.chain(x, gs)
                    if np.linalg.norm(g) <= 1e-9 * max(1.0, v) and (
                        peak := finite_peak(a, b, c, d, band=self.band)
                    ):
                        v, gs = peak_gradient(a, b, c, d, 0.0, peak[1])
        elif self.measure == "h2":
            v, gs = h2_gradient(a, b, c, d, self.lft.dt)
        else:
            v, ga = pole_requirement(a, *self.poles)
            gs = None
            if ga is not None:
                gs = np.zeros((a.shape[0] + c.shape[0], a.shape[0] + b.shape[1]))
                gs[: a.shape[0], : a.shape[0]] = ga
        if not np.isfinite(v):
            v, g = np.inf, None
        else:
            g = self.lft.chain(x, gs) * self.scale if gradient and gs is not None else None
            v = v * self.scale
        if gradient:
            self._last = None if below_limit else (np.array(x, float), v, g)
        return v, g


def check_multipeak(multipeak, where):
    """``multipeak`` as a bool; :class:`~robustmb.errors.ArgumentError` unless it is one.

    Examples
    --------
    >>> check_multipeak(False, "hinfstruct")
    False
    """
    if not isinstance(multipeak, bool | np.bool_):
        raise ArgumentError(f"{where}: multipeak must be True or False, got {multipeak!r}")
    return bool(multipeak)


def check_seed(where, seed):
    """``seed`` as ``None`` or an integer >= 0 (the random starts' and samples' seed);
    :class:`~robustmb.errors.ArgumentError` otherwise.

    Examples
    --------
    >>> check_seed("systune", 3), check_seed("systune", None)
    (3, None)
    >>> check_seed("systune", "x")
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: systune: seed must be None or an integer >= 0, got 'x'
    """
    if seed is None:
        return None
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ArgumentError(f"{where}: seed must be None or an integer >= 0, got {seed!r}")
    return int(seed)


def check_run_options(where, random_start, maxiter, params=None):
    """The run options shared by ``hinfstruct`` and ``systune``, and a free parameter.

    ``random_start`` must be an integer >= 0, ``maxiter`` an integer >= 1, and the
    parameter vector ``params`` (when given) must have a free entry; else
    :class:`~robustmb.errors.ArgumentError` naming the function and the argument.

    Examples
    --------
    >>> check_run_options("systune", 2, 100)
    >>> check_run_options("systune", -1, 100)
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: systune: random_start must be an integer >= 0, got -1
    """
    for name, value, low in (("random_start", random_start, 0), ("maxiter", maxiter, 1)):
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
            raise ArgumentError(f"{where}: {name} must be an integer >= {low}, got {value!r}")
        if value < low:
            raise ArgumentError(f"{where}: {name} must be an integer >= {low}, got {value!r}")
    if params is not None and params.size == 0:
        names = sorted(params.tunables)
        raise ArgumentError(
            f"{where}: the tunable parameters {names} have no free entry (all free=False)"
        )
