"""The result of :func:`.hinfsyn.hinfsyn`: the controller, its verified level and the bracket."""

from __future__ import annotations

from dataclasses import dataclass, field

import control

__all__ = ["HinfsynResult"]


@dataclass
class HinfsynResult:
    """Result of :func:`hinfsyn`.

    Attributes
    ----------
    controller : control.StateSpace
        The controller ``u = K y`` (same sampling time as the plant).
    gamma : float
        H-infinity norm of the closed loop with this controller, computed independently of
        the synthesis: the larger of the bound :func:`robustmb.hinfnorm` certifies on the
        lower LFT (its value times ``1 + 1e-7``, its tolerance) and the peak of
        ``sigma_max(Fl(P(jw), K(jw)))`` (plant and controller evaluated separately) near
        its peak frequency, plus a 1e-6 relative rounding allowance.  An upper bound,
        typically 1e-6 above the true norm; more where the frequency response of the
        separately evaluated ``P`` and ``K`` scatters (HE1 at ``eps = 1e-6``, a
        controller ``B`` of norm 2.5e9: 4.0e-6 above the 50-digit peak).
    gamma_bracket : tuple of float
        ``(lower, upper)`` on the optimal level.  Riccati path: ``lower`` is the larger of
        the largest level at which the existence test failed and the frequency-wise
        Parrott bound (see ``lower_certified``).  LMI and regularised paths: ``lower`` is
        the Parrott bound (0 when there is none), a proven bound; the SDP optimum and the
        regularised bracket tops are numerical estimates that can lie above a verified
        controller's norm (HE1: SDP level 0.0736233, regularised controller 0.0736166), so
        they are reported in ``gamma_opt`` only.  ``upper = gamma`` is achieved and
        verified.
    closed_loop : control.StateSpace
        ``Fl(P, K)`` from ``w`` to ``z``.
    method : str
        ``"riccati"``, ``"lmi"`` or ``"regularised"`` (the Riccati controller of the
        regularised plant, see ``regularised``); ``"static"`` for a plant without states
        (the optimal static controller of Parrott's matrix problem, whatever ``method``).
    gamma_design : float
        Level at which the controller was computed.
    gamma_opt : float
        Best estimate of the optimal level (smallest feasible level of the bisection, or
        the SDP optimum; on a singular plant under ``method="auto"`` the smaller of the
        SDP optimum and the regularised optima confirmed by a verified controller within
        ``rtol``).  An estimate, not a bound.
    history : list of tuple
        ``(gamma, feasible, reason)`` of every existence test (Riccati path).
    lower_certified : bool
        True when ``gamma_bracket[0]`` is proven: it is then the bound no controller can
        beat, ``max_k sigma_max(N12(s_k)' P11(s_k))`` and ``max_k sigma_max(P11(s_k)
        N21(s_k)')`` over sampled frequencies ``s_k`` (the closed loop's peak, the plant's
        natural frequencies, 0 and infinity), with ``N12`` an orthonormal basis of the
        complement of the range of ``P12`` and ``N21`` of the row space of ``P21``
        (``Fl(P, K) = P11 + P12 Q P21`` at every frequency; evaluated in floating point,
        one SVD per frequency; in continuous time also the norm of the rows of ``D11``
        where ``D12`` is exactly zero and of its columns where ``D21`` is, which no
        controller changes at infinity, even for a rank-deficient ``D12`` or ``D21``).
        This covers an optimum set by a feedthrough (Parrott)
        bound or by a channel no controller can affect, and an optimum of 0.  False when
        the lower end is only the verdict of the numerical test (Riccati existence test or
        SDP optimum), not a certificate; on the LMI and regularised paths, where the lower
        end is always the Parrott bound, False when that bound stays below the numerical
        estimate of the optimum (the bracket is then proven but wide).
        ``gamma_bracket[1]`` is verified whenever ``gamma_certified`` is True.
    gamma_certified : bool
        False when :func:`robustmb.hinfnorm` proves no upper bound on the closed loop's
        norm in either realisation tried (e.g. repeated poles within rounding of the
        axis): ``gamma`` is then the largest value found, which may lie below the true
        norm, and a :class:`~robustmb.errors.RobustMBWarning` says so.
    regularised : list of tuple
        Singular plants under ``method="auto"``: ``(eps, gamma_eps, norm)`` per
        regularisation size tried, with ``gamma_eps`` the bracket top of the regularised
        problem's bisection and ``norm`` the verified H-infinity norm of its controller on
        the singular plant (``inf`` when none was verified).  ``gamma_eps`` is ``nan``
        when ``norm`` exceeds the bracket top by more than ``rtol`` (no verified
        controller confirms it: such a top says nothing about the singular plant, e.g.
        0.797 on a plant whose optimum is about 29.7); the confirmed tops are upper
        estimates of the singular optimum, not bounds, and the smallest one enters
        ``gamma_opt``.  A controller whose poles spread over more than 1e6
        (``max |p| / min |p|``) and whose two norm evaluations (realisation,
        frequency-wise) differ by more than 1e-6 is recorded here but never returned: its
        closed loop is too stiff to trust.  The sizes run from 1e-3 down to 1e-8 and stop
        after two sizes without progress, or once two consecutive confirmed tops agree to
        1e-4 (relative) and a returnable controller is within 1e-4 of the last one.
        Empty otherwise.
    """

    controller: control.StateSpace
    gamma: float
    gamma_bracket: tuple
    closed_loop: control.StateSpace
    method: str
    gamma_design: float
    gamma_opt: float
    history: list = field(default_factory=list, repr=False)
    lower_certified: bool = False
    regularised: list = field(default_factory=list, repr=False)
    gamma_certified: bool = True
