"""Disk margins of feedback loops: loop-at-a-time and multiloop.

Model (Seiler, Packard & Gahinet, "An introduction to disk margins", IEEE Control Systems
Magazine 40(5), 2020).  In the negative-feedback loop ``feedback(L, I)`` the input channel
``j`` of ``L`` is multiplied by a gain/phase factor

    f_j = (1 + a delta_j) / (1 - b delta_j),   a = (1 - sigma)/2,  b = (1 + sigma)/2,

with ``|delta_j| < alpha``; ``sigma`` is the *skew* (0: balanced, 1: based on ``S``,
-1: based on ``T``).  For a fixed ``alpha`` the factors fill the disk ``D(alpha, sigma)``
(:class:`Disk`).  With ``S = (I + L)^-1`` and ``F = diag(f_j)``,

    I + L F = (I + L) (I - (S - a I) Delta) (I - b Delta)^-1,   Delta = diag(delta_j),

so a stable nominal loop stays stable for every ``|delta_j| < alpha`` exactly when
``alpha <= 1 / sup_w mu_Delta(S(jw) + (sigma - 1)/2 I)``.  For one channel ``mu`` is the
modulus and the margin is ``1 / ||S + (sigma - 1)/2||_inf``, computed here with the exact
level-set peak-gain algorithm over the whole frequency axis (:func:`.norms.hinfnorm`).
Loop-at-a-time margins use ``S_jj``: with the other loops closed, ``det(I + L F_j)`` for a
factor on channel ``j`` only is ``det(I + L) (1 - (S_jj - a) delta_j) / (1 - b delta_j)``.
Multiloop margins need ``mu`` with one complex scalar per channel: the bound is certified on
every frequency by :func:`.mu_sweep.certified_mu_peak`.

Disk geometry: :mod:`.disk_geometry`; result objects: :mod:`.disk_margin_results`;
worst case over uncertainty: :mod:`.worst_case_disk_margin`.
"""

from __future__ import annotations

import warnings

import numpy as np

from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.disk_geometry import _check_skew, _factor, _skew_coefficients
from robustmb.analysis.disk_loops import (
    _loop_data,
    _plain,
    _response,
    _sensitivity,
    _stable,
)
from robustmb.analysis.disk_margin_results import (
    DiskMargin,
    DiskMarginResult,
    LoopMargins,
    _delta_of_factor,
)
from robustmb.analysis.mu_sweep import certified_mu_peak, default_grid
from robustmb.analysis.norms import _hinfnorm_bracket
from robustmb.errors import DimensionError, warn
from robustmb.lft.arguments import below_nyquist

__all__ = ["diskmargin"]

# Relative width of the bracket of each single-channel ||S_jj - a||_inf: the certified
# margin (one over its upper end) and the realised one (one over the attained gain) agree
# to this.
_CHANNEL_TOL = 1e-12
# Relative slack of the whole-axis mu certificate: the certified level is this much above
# the largest pointwise upper bound.
_MU_REL_GAP = 1e-3


def _channel_margins(S, dt, skew, omega):
    """Loop-at-a-time margins ``1 / ||S_jj - a||`` and their critical data per channel:
    ``(alpha, freq, factors, proved, guaranteed)``.  ``alpha`` is realised by ``factors``
    (one over an attained gain: an upper bound of the margin); ``guaranteed`` is one over
    the certified upper end of hinfnorm's bracket where that was proved (else ``alpha``)."""
    As, Bs, Cs, Ds = S
    n = Ds.shape[0]
    a, b = _skew_coefficients(skew)
    alpha = np.empty(n)
    guaranteed = np.empty(n)
    freq = np.empty(n)
    factors = np.empty(n, dtype=complex)
    proved = True
    for j in range(n):
        sub = (As, Bs[:, [j]], Cs[[j]], Ds[[j]][:, [j]] - a)
        gamma_upper = np.nan
        if omega is None:
            gamma, w0, gamma_upper = _hinfnorm_bracket(sub + (dt,), _CHANNEL_TOL)
            proved = proved and bool(np.isfinite(gamma_upper))
        else:
            values = np.abs(_response(sub, omega, dt)[:, 0, 0])
            k = int(np.argmax(values))
            gamma, w0 = float(values[k]), float(omega[k])
        if gamma == 0.0:
            alpha[j], freq[j], factors[j] = np.inf, np.nan, np.nan
            guaranteed[j] = np.inf
            continue
        alpha[j], freq[j] = 1.0 / gamma, w0
        finite_bound = np.isfinite(gamma_upper) and gamma_upper > 0
        guaranteed[j] = 1.0 / gamma_upper if finite_bound else alpha[j]
        s0 = _response(sub, [w0], dt)[0, 0, 0]
        delta0 = 1.0 / s0
        factors[j] = _factor(delta0, a, b)
    return alpha, freq, factors, proved, guaranteed


def _unstable_margin(channels, skew, omega_boundary=np.nan) -> DiskMargin:
    return DiskMargin(
        0.0,
        0.0,
        0.0,
        float(omega_boundary),
        skew,
        tuple(channels),
        np.zeros(0, complex),
        np.zeros(0, complex),
        True,
        False,
    )


def _boundary_frequency(A, dt) -> float:
    """Frequency of the closed-loop pole nearest the stability boundary (unstable loops)."""
    ev = np.linalg.eigvals(A)
    if dt:
        k = int(np.argmin(np.abs(np.abs(ev) - 1.0)))
        return float(abs(np.angle(ev[k])) / dt)
    k = int(np.argmin(np.abs(ev.real)))
    return float(abs(ev[k].imag))


def _multiloop_margin(S, dt, skew, channels, loop_alpha, loop_freq, loop_f, omega):
    """Multiloop margin from mu with one complex scalar per channel."""
    As, Bs, Cs, Ds = S
    n = Ds.shape[0]
    a, b = _skew_coefficients(skew)
    M = (As, Bs, Cs, Ds - a * np.eye(n))
    blk = [(1, 0)] * n
    grid = omega if omega is not None else default_grid(As, dt)
    complex_data = any(np.iscomplexobj(X) and np.any(np.imag(X)) for X in M)
    if complex_data:
        # Complex coefficients: |M(-jw)| differs from |M(jw)|: grid both signs (the
        # whole-axis certificates below cover both half axes).
        grid = np.concatenate([-grid[::-1], grid])
        if dt:
            grid = grid[grid > -np.pi / dt]
    peak = _mu_peak_or_none(certified_mu_peak, M, blk, dt, omega=grid)
    if omega is not None:
        mu_upper = float(peak.upper) if peak is not None else np.inf
        certified = False
    else:
        # mu <= sigma_max at every frequency, so ||M||_inf certifies the whole axis too;
        # when it is as good as the grid values, no interval covering is needed.  The
        # bound is the upper end of hinfnorm's bracket (its value is attained: a lower
        # end, possibly below the norm by the relative tolerance).
        # hinfnorm's warnings about M are internal: they matter only if the interval
        # covering cannot certify the bound either (then they are re-issued)
        with warnings.catch_warnings(record=True) as internal:
            warnings.simplefilter("always")
            _, _, gamma_upper = _hinfnorm_bracket(M + (dt,))
        proved = bool(np.isfinite(gamma_upper))
        mu_upper, certified = gamma_upper, proved
        # an unproved ||M||_inf (a repeated lightly damped mode) certifies nothing
        needs_cover = not proved or (
            peak is not None and peak.upper * (1.0 + _MU_REL_GAP) < gamma_upper
        )
        if needs_cover:
            cover = _mu_peak_or_none(certified_mu_peak, M, blk, dt, rel_gap=_MU_REL_GAP)
            if cover is not None and cover.covered:
                mu_upper = min(float(cover.upper), gamma_upper)
                certified = True
                if peak is None or cover.lower > peak.lower:
                    peak = cover
                internal = []
            else:
                warn(
                    "diskmargin: the mu certificate did not cover the whole frequency axis; "
                    "the multiloop lower bound falls back to 1/||S + (skew-1)/2 I||_inf",
                    RuntimeWarning,
                )
        for caught in internal:
            warn(str(caught.message), caught.category)
    lower = 0.0 if not np.isfinite(mu_upper) else (np.inf if mu_upper == 0 else 1.0 / mu_upper)
    # Upper bound: the mu lower bound, or a single-channel perturbation if that is smaller.
    j = int(np.argmin(loop_alpha))
    upper, frequency = float(loop_alpha[j]), float(loop_freq[j])
    delta = np.zeros(n, dtype=complex)
    factors = np.ones(n, dtype=complex)
    if np.isfinite(upper):
        delta[j] = _delta_of_factor(loop_f[j], skew)
        factors[j] = loop_f[j]
    if (
        peak is not None
        and peak.lower > 0
        and 1.0 / peak.lower < upper
        and peak.lower_delta is not None
    ):
        upper, frequency = 1.0 / float(peak.lower), float(peak.lower_frequency)
        delta = np.diag(np.asarray(peak.lower_delta)).astype(complex)
        factors = _factor(delta, a, b)
    lower = min(lower, upper)
    return DiskMargin(
        lower, lower, upper, frequency, skew, tuple(channels), factors, delta, certified, True
    )


def _mu_peak_or_none(certified_mu_peak, *args, **kwargs):
    """``certified_mu_peak`` or None when the mu optimiser breaks down numerically."""
    try:
        return certified_mu_peak(*args, **kwargs)
    except np.linalg.LinAlgError:
        return None


def _margins_of_loop(data, skew, omega, *, multiloop=True):
    """``(LoopMargins, DiskMargin)`` of a loop given as ``(A, B, C, D, dt, channels)``."""
    A, B, Cm, D, dt, channels = data
    n = D.shape[0]
    if omega is not None:
        below_nyquist(omega, dt, "diskmargin")
    S = _sensitivity(A, B, Cm, D, channels)
    if not _stable(S[0], dt):
        w_b = _boundary_frequency(S[0], dt)
        loops = LoopMargins(
            tuple(channels),
            np.zeros(n),
            np.full(n, w_b),
            np.full(n, np.nan + 0j),
            skew,
            False,
            True,
        )
        return loops, _unstable_margin(channels, skew, w_b)
    alpha, freq, factors, proved, guaranteed = _channel_margins(S, dt, skew, omega)
    certified = omega is None and proved
    loops = LoopMargins(
        tuple(channels), guaranteed, freq, factors, skew, True, certified, upper=alpha
    )
    if n == 1:
        return loops, loops[0]
    if not multiloop:
        return loops, None
    return loops, _multiloop_margin(S, dt, skew, channels, alpha, freq, factors, omega)


def _check_omega(omega):
    if omega is None:
        return None
    omega = np.atleast_1d(np.asarray(omega))
    if omega.dtype.kind not in "iuf":
        raise DimensionError(
            f"omega must hold real frequencies in rad/s; got an array of dtype {omega.dtype}"
        )
    omega = omega.astype(float)
    if omega.ndim != 1 or omega.size == 0 or not np.all(np.isfinite(omega)) or np.any(omega < 0):
        raise DimensionError(
            f"omega must be a non-empty 1-D array of finite frequencies >= 0; got {omega}"
        )
    return omega


def diskmargin(L, C=None, *, skew=0.0, omega=None) -> DiskMarginResult:
    """Disk-based stability margins of the negative-feedback loop ``feedback(L, I)``.

    Parameters
    ----------
    L : control.StateSpace, control.TransferFunction, array_like or tuple
        Square loop transfer (``L = C P`` for margins at the plant inputs, ``L = P C`` at
        the outputs), continuous or discrete time; or the plant ``P`` when ``C`` is given.
    C : LTI model, optional
        Controller of the loop ``u = -C y``, ``y = P u``.  Then the channels are the plant
        outputs followed by the plant inputs (MATLAB's ``diskmargin(P, C)``): the multiloop
        margin perturbs all of them at once, ``output`` / ``input`` perturb one side only.
    skew : float, optional
        Skew ``sigma`` of the disk (0: balanced gain increase/decrease; > 0 biased towards
        gain increase; 1 gives ``1/||S||_inf``, -1 gives ``1/||T||_inf``), a real number
        of modulus at most ``1e6``.
    omega : array_like, optional
        Analyse only these finite frequencies >= 0 (rad/s) instead of the whole axis: the
        margins are then upper bounds of the true ones (the minimum over the given
        frequencies).  In discrete time a frequency above ``pi / dt`` is refused
        (``ArgumentError``), as in :func:`.freqresp.freqresp`.

    Returns
    -------
    DiskMarginResult
        ``loop_at_a_time`` (exact, per channel) and ``multiloop`` (``lower``/``upper``
        bounds from mu; exact for a single loop).

    Raises
    ------
    DimensionError
        Non-square loop, mismatched plant/controller sizes or sampling times, bad ``skew``
        or ``omega``.
    IllPosedError
        When ``I + L(inf)`` is singular.
    UncertainTypeError
        For uncertain loops (use :func:`wcdiskmargin`).

    Notes
    -----
    When the nominal closed loop is unstable every margin is 0 (``stable`` is False).
    Loop-at-a-time and single-loop margins are exact to a relative ``1e-12``: ``lower``
    (``LoopMargins.alpha``) is one over the certified upper end of
    :func:`.norms.hinfnorm`'s bracket of ``||S_jj + (skew - 1)/2||_inf`` at that tolerance,
    ``upper`` one over the attained gain (the size of ``worst_perturbation``).  The
    multiloop ``lower`` bound is certified on every frequency; ``upper`` is the size of an
    actual destabilising perturbation (never above the smallest loop-at-a-time margin).

    Examples
    --------
    >>> import control
    >>> L = control.tf(25, [1, 10, 10, 10])      # Seiler, Packard & Gahinet (2020)
    >>> dm = diskmargin(L)
    >>> round(dm.alpha, 4), round(dm.frequency, 3), round(dm.phase_margin, 2)
    (0.4581, 1.955, 25.8)
    >>> [round(g, 4) for g in dm.gain_margin]
    [0.6273, 1.5942]
    >>> f = dm.worst_perturbation[0]               # puts a closed-loop pole at j*frequency
    >>> bool(abs(1 + f * control.evalfr(L, 1j * dm.frequency)) < 1e-8)
    True
    """
    skew = _check_skew(skew)
    omega = _check_omega(omega)
    data = _loop_data(L, C)
    loops, multi = _margins_of_loop(data, skew, omega)
    output = input_ = None
    if C is not None:
        A, B, Cm, D, dt, channels = data
        ny = _as_dims(L)[0]
        output = _one_side(L, C, skew, omega, side="output", channels=channels[:ny])
        input_ = _one_side(L, C, skew, omega, side="input", channels=channels[ny:])
    return DiskMarginResult(loops, multi, skew, output, input_)


def _as_dims(P):
    return as_statespace_data(_plain(P), argname="P")[3].shape


def _series_data(first, second):
    """``second * first`` (first applied first) as plain state-space data."""
    A1, B1, C1, D1, dt1 = first
    A2, B2, C2, D2, dt2 = second
    n1, n2 = A1.shape[0], A2.shape[0]
    dtype = np.result_type(A1, A2, D1, D2, float)
    A = np.zeros((n1 + n2, n1 + n2), dtype)
    A[:n1, :n1] = A1
    A[n1:, :n1] = B2 @ C1
    A[n1:, n1:] = A2
    B = np.vstack([B1, B2 @ D1])
    C = np.hstack([D2 @ C1, C2])
    D = D2 @ D1
    return A, B, C, D, dt1 or dt2


def _one_side(P, C, skew, omega, *, side, channels):
    """Multiloop margin at the plant outputs (loop ``P C``) or inputs (loop ``C P``)."""
    p = as_statespace_data(_plain(P), argname="P")
    c = as_statespace_data(_plain(C), argname="C")
    A, B, Cm, D, dt = _series_data(c, p) if side == "output" else _series_data(p, c)
    _, multi = _margins_of_loop((A, B, Cm, D, dt, list(channels)), skew, omega)
    return multi
