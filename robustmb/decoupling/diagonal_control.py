"""Diagonal (decentralised) controllers for decoupled plants, and their loops.

The decoupling study (seed 004, section 1.9) closes each decoupled channel with a
low-pass filter ``K_ii(s) = g_i / (1 + s / w_p)`` whose gain sets the crossover of the
diagonal loop gain to ``w_c``: ``|K_ii(j w_c) G_dec,ii(j w_c)| = 1``, i.e.
``g_i = sqrt(1 + (w_c / w_p)^2) / |G_dec,ii(j w_c)|``. On acceleration outputs this is a
"virtual mass" below ``w_p`` and sky-hook damping ``g_i w_p`` above.
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np

from robustmb.decoupling.plant_data import (
    PoleFrequencyError,
    as_matrix_stack,
    evaluate,
    frequency_response,
    is_lti,
    numeric_array,
)
from robustmb.errors import ArgumentError, DimensionError

__all__ = [
    "DiagonalController",
    "diagonal_lowpass_controller",
    "diagonal_controller",
    "loop_gains",
    "closed_loop",
    "closed_loop_poles",
    "is_stable",
]


@dataclass
class DiagonalController:
    """Result of :func:`diagonal_lowpass_controller`.

    Attributes
    ----------
    gains : numpy.ndarray
        ``g_i``.
    controller : control.StateSpace
        ``diag(g_i / (1 + s / w_p))``.
    wc, wp : float
        Crossover and low-pass frequencies (rad/s).
    """

    gains: np.ndarray
    controller: control.StateSpace
    wc: float
    wp: float


def diagonal_lowpass_controller(G_dec, wc, wp) -> DiagonalController:
    """Diagonal low-pass controller giving unit diagonal loop gains at ``wc``.

    Parameters
    ----------
    G_dec : LTI system or array_like ``(k, k)``
        Decoupled plant, or its complex response at ``wc``.
    wc : float
        Crossover frequency (rad/s).
    wp : float
        Pole of the low-pass filter (rad/s).

    Returns
    -------
    DiagonalController

    Examples
    --------
    >>> import numpy as np
    >>> c = diagonal_lowpass_controller(np.diag([2.0, 4.0]), wc=10.0, wp=1.0)
    >>> (c.gains * np.array([2.0, 4.0]) / np.sqrt(1 + 100.0)).round(12)
    array([1., 1.])
    """
    for name, x in (("wc", wc), ("wp", wp)):
        try:
            ok = np.isfinite(float(x)) and float(x) > 0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ArgumentError(
                "diagonal_lowpass_controller: wc and wp must be positive finite frequencies "
                f"(rad/s), got {name} = {x!r}"
            )
    wc = float(wc)
    wp = float(wp)
    try:
        H = frequency_response(G_dec, [wc])[0] if is_lti(G_dec) else np.asarray(evaluate(G_dec))
    except PoleFrequencyError:
        raise ArgumentError(
            f"diagonal_lowpass_controller: wc = {wc!r} rad/s is a pole of G_dec on the "
            "imaginary axis (its response is infinite there): choose another crossover"
        ) from None
    if H.ndim != 2 or H.shape[0] != H.shape[1]:
        raise DimensionError(f"the decoupled plant must be square, got {H.shape}")
    d = np.abs(np.diag(H))
    if np.any(d == 0):
        raise ArgumentError(
            f"diagonal_lowpass_controller: G_dec: decoupled channel(s) "
            f"{np.flatnonzero(d == 0).tolist()} have zero gain at wc = {wc}"
        )
    g = np.sqrt(1.0 + (wc / wp) ** 2) / d
    k = g.size
    # K_ii = g_i wp / (s + wp): one state per channel
    Kd = control.ss(-wp * np.eye(k), np.eye(k), np.diag(g * wp), np.zeros((k, k)))
    return DiagonalController(gains=g, controller=Kd, wc=wc, wp=wp)


def diagonal_controller(*siso) -> control.StateSpace:
    """Block-diagonal MIMO controller from SISO systems, ``diag(K_1, ..., K_k)``.

    Examples
    --------
    >>> import control
    >>> K = diagonal_controller(control.tf([1], [1, 1]), control.tf([2], [1]))
    >>> K.noutputs, K.ninputs
    (2, 2)
    """
    if len(siso) == 1 and isinstance(siso[0], list | tuple):
        siso = tuple(siso[0])
    if not siso:
        raise ArgumentError("diagonal_controller: siso: give at least one SISO system")
    blocks = []
    for i, K in enumerate(siso):
        if is_lti(K):
            Ks = control.ss(K)
        else:
            try:
                Ks = control.ss([], [], [], np.atleast_2d(float(K)))
            except (TypeError, ValueError):
                raise ArgumentError(
                    f"diagonal_controller: siso: block {i} must be a SISO system or a number, "
                    f"got {K!r}"
                ) from None
        if Ks.ninputs != 1 or Ks.noutputs != 1:
            raise DimensionError(f"block {i} is {Ks.noutputs}x{Ks.ninputs}, expected SISO")
        blocks.append(Ks)
    return control.append(*blocks)


def loop_gains(Kd, G_dec, omega) -> np.ndarray:
    """Diagonal loop gains ``L_ii(jw) = (Kd(jw) G_dec(jw))_ii``, shape ``(nw, k)``.

    Examples
    --------
    >>> import control, numpy as np
    >>> K, G = control.ss([], [], [], np.eye(2)), control.ss([], [], [], 3 * np.eye(2))
    >>> L = loop_gains(K, G, [1.0])
    >>> L.real
    array([[3., 3.]])
    """
    Kj, _ = as_matrix_stack(evaluate(Kd, omega))
    Gj, _ = as_matrix_stack(evaluate(G_dec, omega))
    if Kj.shape[-1] != Gj.shape[-2] or Kj.shape[-2] != Gj.shape[-1]:
        raise DimensionError(
            f"loop_gains: Kd is {Kj.shape[-2]}x{Kj.shape[-1]} but G_dec is "
            f"{Gj.shape[-2]}x{Gj.shape[-1]}: expected Kd {Gj.shape[-1]}x{Gj.shape[-2]}"
        )
    return np.diagonal(Kj @ Gj, axis1=-2, axis2=-1)


def _as_ss(X, name):
    """An LTI system as state space; a constant matrix as a static gain."""
    if is_lti(X):
        return control.ss(X)
    D = np.atleast_2d(numeric_array(X, name, "closed_loop: ").astype(float))
    if D.ndim != 2 or not np.all(np.isfinite(D)):
        raise ArgumentError(f"closed_loop: {name} must be an LTI system or a finite gain matrix")
    return control.ss([], [], [], D)


def closed_loop(P, K, *, sign=-1) -> control.StateSpace:
    """Feedback interconnection ``u = sign * K y`` around ``P`` (negative by default).

    Returns the map from the external input added to ``u`` to ``y`` (python-control's
    ``feedback``); the closed-loop poles are its eigenvalues.

    Examples
    --------
    >>> import control
    >>> T = closed_loop(control.tf([1], [1, 0]), control.tf([2], [1]))
    >>> closed_loop_poles(control.tf([1], [1, 0]), control.tf([2], [1])).round(6)
    array([-2.+0.j])
    """
    Ps, Ks = _as_ss(P, "P"), _as_ss(K, "K")
    if Ks.ninputs != Ps.noutputs or Ks.noutputs != Ps.ninputs:
        raise DimensionError(
            f"controller is {Ks.noutputs}x{Ks.ninputs} but the plant is "
            f"{Ps.noutputs}x{Ps.ninputs}: expected {Ps.ninputs}x{Ps.noutputs}"
        )
    return control.feedback(Ps, Ks, sign=sign)


def closed_loop_poles(P, K, *, sign=-1) -> np.ndarray:
    """Closed-loop poles of the loop ``u = sign * K y``, sorted by real part.

    Examples
    --------
    >>> import control
    >>> closed_loop_poles(control.tf([1], [1, 1]), control.tf([1], [1])).round(6)
    array([-2.+0.j])
    """
    T = closed_loop(P, K, sign=sign)
    p = np.linalg.eigvals(np.asarray(T.A)) if T.nstates else np.zeros(0, complex)
    return p[np.argsort(p.real)].astype(complex)


def is_stable(P, K, *, sign=-1) -> bool:
    """True when every closed-loop pole has a negative real part.

    Examples
    --------
    >>> import control
    >>> is_stable(control.tf([1], [1, -1]), control.tf([2], [1]))
    True
    """
    p = closed_loop_poles(P, K, sign=sign)
    return bool(np.all(p.real < 0))
