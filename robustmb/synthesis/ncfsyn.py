"""Glover-McFarlane loop shaping: robust stabilisation of normalised coprime factors.

For the shaped plant ``Gs = W2 G W1 = (A, B, C, D)`` with ``R = I + D D'``,
``S = I + D' D`` and ``Ar = A - B S^-1 D' C``, the stabilising solutions of

    Ar Z + Z Ar' - Z C' R^-1 C Z + B S^-1 B' = 0,
    Ar' X + X Ar - X B S^-1 B' X + C' R^-1 C = 0

give the optimal robustness level ``gamma_min = sqrt(1 + rho(X Z))`` (Glover & McFarlane
1989; Skogestad & Postlethwaite 2005, section 9.4).  At ``gamma = gamma_min * (1 + tol)``
the controller of S&P eq. (9.74), for ``u = K y`` (positive feedback), is

    F = -S^-1 (D'C + B'X),  L = (1 - gamma^2) I + X Z,
    K = [[A + B F + gamma^2 L'^-1 Z C' (C + D F), gamma^2 L'^-1 Z C'], [B' X, -D']].

The returned controller is ``W1 K W2``; the achieved level is re-verified as the norm of
``[I; K] (I - Gs K)^-1 [I, Gs]`` computed with :func:`robustmb.hinfnorm` and reported as
the upper end of its tolerance interval (so that ``margin_achieved`` is never above the
controller's true margin).

A discrete-time shaped plant is mapped to continuous time by the bilinear map
``z = (1 + s) / (1 - s)`` (:func:`.bilinear_map.to_continuous`), which preserves the frequency
response up to a frequency warping, hence every H-infinity norm and so ``gamma_min`` and
the level of any controller; the controller is mapped back and re-verified in discrete
time.  A pole at (or near) ``z = -1``, where that map is singular, is handled by designing
on ``Gs(-z)`` and flipping the controller back (:func:`.bilinear_map.flip_plant`).

``gamma`` and ``margin`` are the optimal levels of the shaped plant; the returned
controller, designed at ``gamma (1 + tol)``, achieves ``gamma_achieved`` and
``margin_achieved = 1 / gamma_achieved``.
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np
import scipy.linalg

from robustmb.analysis import hinfnorm
from robustmb.analysis._statespace import as_statespace_data
from robustmb.errors import ArgumentError, DimensionError, IllPosedError

from .arguments import as_system, common_sampling_time
from .bilinear_map import (
    both_ends_note,
    controller_from_continuous,
    flip_controller,
    flip_plant,
    nyquist_flip,
    to_continuous,
)
from .plant import Plant, closed_loop
from .synthesis_options import is_real

__all__ = ["NcfsynResult", "ncfsyn"]

# Relative tolerance of the verification by hinfnorm: the norm lies in [h, h (1 + tol)]
# for its attained value h, and the upper end is reported (an attained value alone lies
# below the true norm: 4.4e-9 relative on a random 3-state plant, 30-digit check).
_HINF_TOL = 1e-8


def _verified_norm(cl):
    """Upper bound on ``||cl||_inf`` from :func:`robustmb.hinfnorm` (exact for a static
    loop, whose norm is a singular value)."""
    h, _ = hinfnorm(cl, tol=_HINF_TOL)
    h = float(h)
    return h if cl.nstates == 0 else h * (1.0 + _HINF_TOL)


@dataclass
class NcfsynResult:
    """Result of :func:`ncfsyn`.

    Attributes
    ----------
    controller : control.StateSpace
        ``W1 Ks W2`` for ``u = K y`` (positive feedback).
    gamma : float
        ``gamma_min`` of the shaped plant.
    margin : float
        ``1 / gamma``: the OPTIMAL normalised coprime-factor stability margin of the
        shaped plant (the best any controller achieves), not the returned controller's;
        see ``margin_achieved``.
    gamma_achieved : float
        Verified norm of ``[I; Ks] (I - Gs Ks)^-1 [I, Gs]`` with the returned ``Ks``
        (at most ``gamma (1 + tol)``): an upper bound, the value attained at the peak
        found by :func:`robustmb.hinfnorm` times ``1 + 1e-8``, its relative tolerance.
    shaped_controller : control.StateSpace
        ``Ks`` for the shaped plant.
    margin_achieved : float
        ``1 / gamma_achieved``: the stability margin the returned controller achieves
        (below ``margin`` by the backoff ``tol``), a lower bound on it.
    """

    controller: control.StateSpace
    gamma: float
    margin: float
    gamma_achieved: float
    shaped_controller: control.StateSpace
    margin_achieved: float = float("nan")


def four_block_plant(A, B, C, D) -> Plant:
    """Generalised plant whose lower LFT with ``K`` is ``[I; K] (I - G K)^-1 [I, G]``."""
    p, m = D.shape
    n = A.shape[0]
    return Plant(
        A, np.hstack([np.zeros((n, p)), B]), B, np.vstack([C, np.zeros((m, n))]), C,
        np.block([[np.eye(p), D], [np.zeros((m, p)), np.zeros((m, m))]]),
        np.vstack([D, np.eye(m)]), np.hstack([np.eye(p), D]), D,
    )  # fmt: skip


def ncfsyn(G, W1=None, W2=None, *, tol=0.1):
    """Glover-McFarlane H-infinity loop-shaping controller, for positive feedback ``u = K y``.

    The sign convention is MATLAB's ``ncfsyn`` (and that of :func:`hinfsyn`, whose
    controller closes the lower LFT ``u = K y``): the returned ``K`` stabilises ``G`` in
    the loop ``control.feedback(G * K, 1, sign=+1)``.  For a negative-feedback design,
    negate ``W1`` and the returned controller, as in MATLAB (or pass ``-G`` and keep the
    controller); :func:`mixsyn`,
    by contrast, closes ``u = K e`` with ``e = r - y`` (negative feedback), also as MATLAB.

    Parameters
    ----------
    G : control.StateSpace or control.TransferFunction
        Plant, continuous or discrete time (the weights with the same sampling time; a
        static gain fits any).  A discrete plant may have poles on the unit circle,
        ``z = -1`` included (designed on ``G(-z)``), but not at both ``z = 1`` and
        ``z = -1``.
    W1, W2 : LTI, number, array_like or None
        Input (pre-) and output (post-) compensators; the shaped plant is ``W2 G W1``, so
        ``W1`` has as many outputs as ``G`` has inputs and ``W2`` as many inputs as ``G``
        has outputs (a number ``c`` is the gain ``c I`` of that size).
    tol : float
        Relative backoff of the controller level from ``gamma_min`` (S&P's
        ``gammarel = 1 + tol``), a positive number.

    Returns
    -------
    NcfsynResult

    Raises
    ------
    FreeTunableError
        For a ``G`` or weight with free tunable parameters.
    ArgumentError
        For ``tol`` not a positive number, a ``G`` or weight that is neither a system nor
        a gain, has a non-finite or complex entry, or has another sampling time than
        ``G``.
    UncertainTypeError
        For an uncertain ``G`` or weight (use :func:`robustmb.musyn`, or ``G.nominal()``).
    DimensionError
        For a weight whose size does not fit ``G``, or an improper ``G`` or weight.
    IllPosedError
        When the shaped plant is not stabilisable and detectable, or the controller fails
        its verification; for a discrete shaped plant with poles at both ``z = 1`` and
        ``z = -1`` (see :func:`.bilinear_map.to_continuous`).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> G = control.tf([200.0], [10.0, 1.0]) * control.tf([1.0], [0.05, 1.0]) ** 2
    >>> res = rmb.ncfsyn(G, control.tf([1.0, 2.0], [1.0, 1e-6]))
    >>> round(res.gamma, 2)
    2.34

    Negative feedback (MATLAB's Glover-McFarlane example, ``gamma`` 1.9903 at a
    0.1 % backoff):

    >>> P = control.tf([16.0], [1.0, 0.16, 16.0])
    >>> Kprop = control.tf([1.0, 0.8], [1.0, 0.0]) * control.tf([1.0], [0.05, 1.0])
    >>> res = rmb.ncfsyn(P, -Kprop, tol=1e-3)
    >>> K = -res.controller  # flip back: u = -K y
    >>> bool(max(control.poles(control.feedback(P * K, 1)).real) < 0)
    True
    >>> round(res.gamma_achieved, 4)
    1.9903
    """
    if not is_real(tol) or not (0 < tol < np.inf):
        # tol = 0 asks for the level gamma_min itself, where the controller formula is
        # singular (L = (1 - gamma^2) I + X Z loses rank)
        raise ArgumentError(f"ncfsyn: tol must be a positive finite number; got {tol!r}")
    Gs = as_system(G, "G", "ncfsyn")
    p, m = Gs.noutputs, Gs.ninputs
    if W1 is not None:
        W1 = as_system(W1, "W1", "ncfsyn", m)
        if W1.noutputs != m:
            raise DimensionError(
                f"ncfsyn: W1 is the input weight of G W1 and must have G's {m} input(s) as "
                f"outputs; it is {W1.noutputs}x{W1.ninputs}"
            )
    if W2 is not None:
        W2 = as_system(W2, "W2", "ncfsyn", p)
        if W2.ninputs != p:
            raise DimensionError(
                f"ncfsyn: W2 is the output weight of W2 G and must have G's {p} output(s) as "
                f"inputs; it is {W2.noutputs}x{W2.ninputs}"
            )
    common_sampling_time("ncfsyn", Gs, W1=W1, W2=W2)
    if W1 is not None:
        Gs = Gs * W1
    if W2 is not None:
        Gs = W2 * Gs
    A, B, C, D, dt = as_statespace_data(Gs, argname="G")
    if dt:
        return _discrete(A, B, C, D, Gs.dt, W1, W2, tol)
    gmin, achieved, K = _design(A, B, C, D, tol)
    return _result(control.ss(*K), gmin, achieved, W1, W2)


def _discrete(A, B, C, D, sys_dt, W1, W2, tol):
    n, (p, m) = A.shape[0], D.shape
    dt = 1.0 if sys_dt is True else float(sys_dt)
    z = np.zeros
    pd = Plant(A, B, z((n, 0)), C, z((0, n)), D, z((p, 0)), z((0, m)), z((0, 0)), dt)
    note = both_ends_note(pd)
    flip = nyquist_flip(pd)
    if flip:
        # a pole at (or near) z = -1: design on Gs(-z), whose four-block loop is the
        # original's rotated by pi (same gamma_min, same achieved level), K(z) = K'(-z)
        pd = flip_plant(pd)
    try:
        pc = to_continuous(pd)
        gmin, _, Kc = _design(pc.A, pc.B1, pc.C1, pc.D11, tol)
        K = controller_from_continuous(Kc)
    except IllPosedError as exc:
        if not note or "both z = 1 and z = -1" in str(exc):
            raise
        raise IllPosedError(str(exc) + note) from exc
    if flip:
        K = flip_controller(K)
    achieved = _verified_norm(
        control.ss(*_closed_loop_matrices(four_block_plant(A, B, C, D), K), dt)
    )
    g = gmin * (1.0 + tol)
    if not achieved <= g * (1 + 1e-6):
        raise IllPosedError(
            f"loop-shaping controller failed verification ({achieved} > {g})" + note
        )
    return _result(control.ss(*K, sys_dt), gmin, achieved, W1, W2)


def _closed_loop_matrices(plant, K):
    cl = closed_loop(plant, K)
    return cl.A, cl.B, cl.C, cl.D


def _result(Ks, gmin, achieved, W1, W2):
    Kfull = Ks
    if W2 is not None:
        Kfull = Kfull * control.ss(W2)
    if W1 is not None:
        Kfull = control.ss(W1) * Kfull
    return NcfsynResult(Kfull, float(gmin), 1.0 / gmin, float(achieved), Ks, 1.0 / float(achieved))


def _riccati(Ar, B, C, S, R):
    """``(Z, X, gamma_min)`` from the two Riccati equations of the shaped plant."""
    try:
        Z = scipy.linalg.solve_continuous_are(Ar.T, C.T, B @ np.linalg.solve(S, B.T), R)
        X = scipy.linalg.solve_continuous_are(Ar, B, C.T @ np.linalg.solve(R, C), S)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise IllPosedError(
            "the shaped plant W2 G W1 has no normalised coprime factorisation: it is not "
            "stabilisable and detectable"
        ) from exc
    return Z, X, float(np.sqrt(1.0 + np.max(np.abs(np.linalg.eigvals(X @ Z)))))


def _design(A, B, C, D, tol):
    """Continuous-time design: ``gamma_min``, verified level and controller matrices."""
    p, m = D.shape
    R = np.eye(p) + D @ D.T
    S = np.eye(m) + D.T @ D
    Ar = A - B @ np.linalg.solve(S, D.T @ C)
    if A.shape[0] == 0:
        # a static shaped plant: X = Z = [] and gamma_min = 1 (its Hankel norm is 0); the
        # formula's K = -D' gives [I; K] (I - D K)^-1 [I, D] of norm exactly 1
        Z = X = np.zeros((0, 0))
        gmin = 1.0
    else:
        Z, X, gmin = _riccati(Ar, B, C, S, R)
    g = gmin * (1.0 + tol)
    F = -np.linalg.solve(S, D.T @ C + B.T @ X)
    L = (1 - g**2) * np.eye(A.shape[0]) + X @ Z
    LtZC = np.linalg.solve(L.T, Z @ C.T)
    K = (A + B @ F + g**2 * LtZC @ (C + D @ F), g**2 * LtZC, B.T @ X, -D.T)
    achieved = _verified_norm(closed_loop(four_block_plant(A, B, C, D), K))
    if not achieved <= g * (1 + 1e-6):
        raise IllPosedError(f"loop-shaping controller failed verification ({achieved} > {g})")
    return gmin, achieved, K
