"""System norms: H-infinity (level-set iteration) and H2 (Gramians).

H-infinity
    Boyd & Balakrishnan (1990) / Bruinsma & Steinbuch (1990) iteration.  For a level
    ``gamma`` above ``sigma_max(D)``, ``gamma`` is a singular value of ``G(j w)`` exactly
    when ``j w`` is an eigenvalue of the Hamiltonian matrix

        H(gamma) = [[A + B R^-1 D^H C,             B R^-1 B^H          ],
                    [-C^H (I + D R^-1 D^H) C,    -(A + B R^-1 D^H C)^H ]],
        R = gamma^2 I - D^H D.

    Each iteration takes ``gamma = (1 + tol) * gamma_lb``, finds the imaginary-axis
    eigenvalues of ``H(gamma)`` and evaluates ``sigma_max`` at them and at the midpoints
    between consecutive ones; the best value becomes the new lower bound.  When no
    evaluation exceeds ``gamma`` the level ``gamma`` is an upper bound and the iteration
    stops, so the returned value is within a relative ``tol`` of the norm.

    When ``R`` is badly conditioned (``gamma`` close to ``sigma_max(D)``) and always in
    discrete time, the equivalent ``(2n + m + p)`` pencil in ``(x, y, u, v)`` is used
    instead, which needs no inverse:

        continuous: s [I 0 0 0; 0 I 0 0; 0 0 0 0; 0 0 0 0] - [A 0 B 0; 0 -A^H 0 -C^H;
                                                            C 0 D -gI; 0 B^H -gI D^H]
        discrete:   z [I 0 0 0; 0 A^H 0 C^H; 0 0 0 0; 0 0 0 0] - [A 0 B 0; 0 I 0 0;
                                                                C 0 D -gI; 0 B^H -gI D^H]

    (eigenvalues on the imaginary axis / unit circle give the level crossings).

H2
    ``||G||_2^2 = trace(C P C^H)`` with ``A P + P A^H + B B^H = 0`` (continuous, ``D = 0``)
    and ``trace(C P C^H + D D^H)`` with ``A P A^H - P + B B^H = 0`` (discrete, no factor
    of the sampling time, as in MATLAB's ``norm``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from robustmb.analysis._exact_response import unresolved_peak
from robustmb.analysis._h2norm import h2norm
from robustmb.analysis._norm_common import (
    _AXIS_RTOL,
    _AXIS_SQRT_FACTOR,
    _EPS,
    _HAMILTONIAN_AMPLIFICATION_LIMIT,
    _MAX_ITERATIONS,
    _check_tol,
    _unit_scaled,
    _unscaled,
    _unscaled_upper,
)
from robustmb.analysis._peak_polish import parabolic_peak
from robustmb.analysis._sample_polish import SamplePolish
from robustmb.analysis._slicot_seed import slicot_peak_frequency
from robustmb.analysis._small_svd import _largest_singular_values_small
from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.balancing import balance_realization
from robustmb.analysis.batched_norms import hinfnorm_batch
from robustmb.analysis.freqresp import ResponseEvaluator, largest_singular_values
from robustmb.analysis.hidden_crossings import ClusterScreen
from robustmb.analysis.inverted_level import ProvedPeakGain
from robustmb.analysis.model_stack import _model_tuple, is_model_stack
from robustmb.analysis.norms_stability import (
    STABLE,
    UNDECIDED,
    _eigenvalues,
    _resonance_sensitive,
    _warn_not_proved,
    stability_verdict,
)
from robustmb.analysis.peak_gain_result import PeakGain
from robustmb.analysis.refined_response import refined_response
from robustmb.errors import warn

__all__ = ["PeakGain", "h2norm", "hinfnorm", "peak_gain"]

# Up to this many frequencies are evaluated by linear solves instead of a decomposition
# (a batched LU per point costs less than an eigendecomposition plus residues until then).
_DIRECT_POINTS = 16
# A refined response at the peak with an estimated relative error above this is not
# resolved: a pole lies within rounding of the boundary next to the peak.
_UNRESOLVED_ACCURACY = 1e-2
# Level-set runs after which a polished value still above the certified level gives up
# the certificate (upper = inf).
_RECERTIFICATIONS = 3


def hinfnorm(sys, *, tol: float = 1e-8):
    """H-infinity norm of a stable LTI model and the frequency where it is attained.

    Parameters
    ----------
    sys : control.StateSpace, control.TransferFunction, array_like or tuple
        Fixed LTI model, continuous or discrete time (see :func:`as_statespace_data`).
        A family of same-size models -- a list of models, or a tuple ``(A, B, C, D[, dt])``
        of 3-D arrays with the models along the first axis -- is analysed in one batch
        (:func:`~robustmb.analysis.model_family.hinfnorm_stack`); ``gamma`` and ``fpeak``
        are then arrays.
    tol : float, optional
        Relative accuracy: the norm lies in ``[gamma, gamma * (1 + tol)]`` up to the
        rounding of the level-set test (see Notes); where that test cannot be
        conclusive a ``RuntimeWarning`` says so.

    Returns
    -------
    gamma : float
        ``sup_w sigma_max(G(j w))`` (or on the unit circle for discrete time); ``inf``
        for an eigenvalue of ``A`` on or beyond the stability boundary.  Poles closer to
        the boundary than their rounding error are decided by a verified inclusion and,
        up to 24 states, by an exact test of the stored ``A`` in integer arithmetic
        (see Notes); a model that neither decides is also given ``inf``, with a
        ``RuntimeWarning`` that stability could not be proved (without it, ``inf``
        means unstable).  For a finite value it is attained:
        ``gamma = sigma_max(G(j fpeak))``, except where a ``RuntimeWarning`` says the
        refined response reached only a relative accuracy ``a > tol``: ``gamma`` is then
        that response to within ``a`` and may exceed the norm by as much.
    fpeak : float
        Peak frequency in rad/s (for discrete time ``G(exp(j fpeak dt))``).  For an
        unstable model: the frequency of a pole on the boundary if there is one, else
        ``nan``.  ``inf`` when the continuous-time supremum is ``sigma_max(D)``
        approached at high frequency; ``0.0`` for a static gain.

    Raises
    ------
    UncertainTypeError
        For uncertain objects (pass ``X.nominal()``, or use ``rmb.wcgain``).
    DimensionError
        For inconsistent matrices.
    ArgumentError
        For ``tol`` not a number in ``(0, 1)``.

    Warns
    -----
    RuntimeWarning
        For ``inf`` from a verdict neither proved nor disproved, and where the
        level-set test or the response cannot reach ``tol`` (see Notes).

    Notes
    -----
    Stability is that of the realisation (eigenvalues of ``A``), as in MATLAB's
    ``hinfnorm``: a hidden unstable mode gives ``inf``.  A pole closer to the boundary
    than rounding can resolve to first order (``100 eps ||A|| kappa``, wide for the slow
    poles of a stiff model) is decided by a verified inclusion of all poles
    (:func:`~robustmb.analysis.norms_stability.verified_stable`, on the balanced and on
    the given coordinates); where that fails (``(s^2 + 2 zeta s + 1)^2``, ``zeta =
    1e-6``: the computed poles scatter by ``sqrt(eps)``), by the Routh test of the
    exact characteristic polynomial of the stored ``A``
    (:func:`~robustmb.analysis.exact_stability.exact_stable`), for up to 24 states (a
    complex ``A`` counts twice) and 256-bit scaled entries (cost ``n^4``, < 1 s at 24).

    When computed poles would limit the accuracy of the response (``eps ||A|| > tol``
    times the smallest pole distance to the boundary, as for stiff or very lightly
    damped models) responses are evaluated by pivoted solves refined with double-double
    residuals
    (:func:`~robustmb.analysis.refined_response.refined_response`), and the peak is
    located by local maximisation of those accurate values, since the Hamiltonian's
    crossings then carry errors of order ``eps ||H||``.  ``gamma`` is then the response
    at ``fpeak`` to a few ``eps`` (a ``RuntimeWarning`` gives the reached accuracy if
    the refinement cannot reach ``tol``).  That no higher peak exists elsewhere rests on
    the level-set test, whose eigenvalues carry errors ``10 eps ||H|| kappa_i`` (left and
    right eigenvectors); where such an error reaches the imaginary axis (stiff poles with
    a response flat near the level, e.g. a peak barely above ``sigma_max(D)``, or slow
    poles of a strongly non-normal ``A``), the level-set test of the inverted model
    ``G(1/s)``, whose slow modes are its large ones, decides those frequencies where its
    own rounding allows (:mod:`~robustmb.analysis.inverted_level`).  Where it does not,
    the response is maximised on a logarithmic grid (refined solves) and the test
    repeated from any higher value, and if it stays inconclusive a
    ``RuntimeWarning`` says that ``gamma`` is the largest value found, not a certified
    bound.  When even the
    refined response at the peak is accurate to worse than ``1e-2`` (a pole within
    rounding of the boundary, as for an integrator whose stored pole is ``-5e-16``), the
    value is not reported as attained: for up to 12 real states ``gamma`` is the
    response of the stored matrices at ``fpeak`` evaluated in exact rational arithmetic
    (:func:`~robustmb.analysis._exact_response.exact_response`), otherwise ``inf``; a
    ``RuntimeWarning`` says that the norm is set by the rounding of the realisation.

    Repeated lightly damped modes (identical modes in series: a defective pole) defeat
    that test: ``m`` coalescing eigenvalues of the Hamiltonian are scattered by rounding
    over about ``eps^(1/m) ||H||``, and for ``k`` modes of damping ``zeta`` the level
    enters ``H`` only through ``1 / gamma^2 ~ (2 zeta)^(2k)``, below ``eps ||H||`` for
    ``k = 3``, ``zeta = 1e-5``, so "no crossing" at a level proves nothing there.  When
    such a cluster (three or more eigenvalues within their rounding radius
    ``10 eps ||H|| kappa_i``) lies within that radius of the axis, the response is
    maximised locally (refined solves) on a grid over the cluster and around each
    cluster of poles (their centroid is accurate), the level-set test is repeated
    from any higher value, and if the cluster persists a ``RuntimeWarning`` says that
    ``gamma`` is the largest value found, not a certified bound.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> zeta = 0.05
    >>> gamma, fpeak = hinfnorm(control.tf([1.0], [1.0, 2 * zeta, 1.0]))
    >>> bool(np.isclose(gamma, 1 / (2 * zeta * np.sqrt(1 - zeta**2)), rtol=1e-8))
    True
    >>> bool(np.isclose(fpeak, np.sqrt(1 - 2 * zeta**2)))
    True
    >>> hinfnorm(control.tf([1.0], [1.0, -1.0]))
    (inf, nan)
    """
    tol = _check_tol(tol)
    if is_model_stack(sys):
        return _hinfnorm_family(sys, float(tol))
    gamma, fpeak, upper = _hinfnorm_bracket(sys, tol)
    if np.isfinite(upper) and upper > gamma * (1.0 + 2.0 * tol):
        warn(
            f"hinfnorm: the level-set test is undecided within tol={tol:g} of the peak "
            f"(eigenvalues within their rounding of the axis); the norm is certified "
            f"only within a relative {upper / gamma - 1.0:.1e} of the value returned",
            RuntimeWarning,
        )
    return gamma, fpeak


def _hinfnorm_proved(sys, tol=1e-8):
    """``hinfnorm`` of one model and whether its bracket ``[gamma, gamma (1 + tol)]`` is
    certified: ``(gamma, fpeak, proved)``.  ``proved`` is False where ``hinfnorm`` warns
    that no upper bound is certified; an unstable model (``gamma = inf``) counts as
    proved (``inf`` is exact there or "not proved stable", never a finite claim).

    ``gamma`` is attained, the LOWER end of the bracket: a caller that needs an upper
    bound of the norm takes it from :func:`_hinfnorm_bracket`."""
    gamma, fpeak, upper = _hinfnorm_bracket(sys, tol)
    return gamma, fpeak, bool(np.isinf(gamma) or np.isfinite(upper))


def _hinfnorm_bracket(sys, tol=1e-8):
    """``(gamma, fpeak, upper)``: ``hinfnorm`` of one model with the certified upper end
    of its bracket (the level tested free of crossings, ``inf`` where nothing was proved
    or the model is not proved stable)."""
    A, B, C, D, dt = as_statespace_data(sys)
    raw = A
    stored = (A, B, C, D)
    # a balanced realisation: same G, eigenvalues and level sets far better conditioned
    A, B, C = balance_realization(A, B, C)
    # G = 2^e G' with B', C', D' of unit size: no overflow or underflow inside
    B, C, D, e = _unit_scaled(B, C, D)
    poles = _eigenvalues(A) if A.shape[0] else None  # one eigenvalue call for both tests
    verdict, boundary_frequency, stiff = stability_verdict(A, dt, raw=raw, poles=poles)
    if verdict != STABLE:
        if verdict == UNDECIDED:
            _warn_not_proved("hinfnorm", A.shape[0])
        return np.inf, boundary_frequency, np.inf
    # SLICOT's AB13DD (one Fortran call) proposes the peak frequency; the level-set
    # test below certifies the value or, if it is not within tol, carries on from it
    seed = slicot_peak_frequency(A, B, C, D, dt, float(tol))
    # solves refined in double-double where modal evaluations would miss tol
    direct = stiff or _resonance_sensitive(A, dt, tol, poles=poles)
    result = _peak_gain(A, B, C, D, dt, float(tol), None, seed, direct, similar=(raw,))
    if result.accuracy > _UNRESOLVED_ACCURACY:
        return unresolved_peak(stored, dt, result.frequency, result.accuracy)
    gamma = _unscaled(result.lower, e, "H-infinity norm")
    return gamma, result.frequency, _unscaled_upper(result.upper, e)


def _hinfnorm_family(models, tol, argname="sys"):
    """``hinfnorm`` of every model of a family: the batch settles what it can, the single-
    model routine the rest (errors name ``argname``, the argument the user wrote)."""
    gamma, fpeak = hinfnorm_batch(models, tol=tol, argname=argname)
    for k in np.flatnonzero(np.isnan(gamma)):
        gamma[k], fpeak[k] = hinfnorm(_model_tuple(models, k), tol=tol)
    return gamma, fpeak


def peak_gain(
    A, B, C, D, dt: float, *, tol: float = 1e-8, evaluator=None, seed=None, direct=False
) -> PeakGain:
    """Level-set iteration on a model whose ``A`` is known to be stable.

    Parameters
    ----------
    A, B, C, D : numpy.ndarray
        State-space matrices (validated, as from :func:`as_statespace_data`).
    dt : float
        ``0.0`` for continuous time, else the sampling time.
    tol : float, optional
        Relative gap between the attained lower bound and the certified upper bound.
    evaluator : ResponseEvaluator, optional
        Decomposition of ``A`` if already computed.
    seed : float, optional
        A frequency expected near the peak (internal units: rad/s, or rad/sample in
        discrete time): the iteration starts from it instead of a grid, and stops at once
        when the level ``(1 + tol) sigma_max(G(seed))`` has no crossing.  The result is
        certified either way.
    direct : bool, optional
        Evaluate every response by LU solves of ``s I - A`` instead of a decomposition
        of ``A``: for stiff models, whose computed poles (hence modal or Schur forms)
        carry errors of order ``eps ||A||`` that a row-wise pivoted solve avoids.

    Returns
    -------
    PeakGain
        Lower bound (attained at ``frequency``), certified upper bound, frequency.

    Examples
    --------
    >>> import numpy as np
    >>> r = peak_gain(np.array([[-1.0]]), np.array([[1.0]]), np.array([[1.0]]),
    ...               np.array([[0.0]]), 0.0)
    >>> float(r.lower), float(r.frequency)
    (1.0, 0.0)
    """
    result = _peak_gain(A, B, C, D, dt, tol, evaluator, seed, direct)
    if result.accuracy > _UNRESOLVED_ACCURACY:
        warn(
            "peak_gain: the response at the peak could not be resolved (refined solve "
            f"accurate to only about {result.accuracy:.1e}): a pole lies within rounding "
            "of the stability boundary; lower is not reliable (upper = inf)",
            RuntimeWarning,
        )
    return result


def _peak_gain(A, B, C, D, dt, tol, evaluator, seed, direct, similar=()):
    """:func:`peak_gain` without its warning on an unresolved peak.  ``similar``:
    matrices with exactly the eigenvalues of ``A`` (the realisation before balancing),
    tried too by the verified pole-resolution test."""
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    if m == 0 or p == 0:
        return PeakGain(0.0, 0.0, 0.0, 0)
    if n == 0:
        value = float(largest_singular_values(D[None])[0])
        return PeakGain(value, value, 0.0, 0)
    search = _LevelSetSearch(A, B, C, D, float(dt), evaluator, direct=direct)
    search.similar = tuple(M for M in similar if M is not None and M.shape == A.shape)
    return search.run(tol, seed=seed)


class _LevelSetSearch(ClusterScreen, SamplePolish):
    """Bruinsma-Steinbuch iteration; frequencies are ``omega`` (continuous) or
    ``theta = omega * dt`` (discrete, rad/sample) internally."""

    def __init__(self, A, B, C, D, dt, evaluator, direct=False):
        self.A, self.B, self.C, self.D = A, B, C, D
        self.direct = direct
        self.dt = dt
        self.discrete = dt > 0
        self.real = not any(np.iscomplexobj(M) for M in (A, B, C, D))
        self._evaluator = evaluator
        self._sigma_D = None
        # matrices with exactly the eigenvalues of A (the realisation before balancing)
        self.similar = ()
        # direct evaluations: estimated relative error of the solve at each frequency
        self.accuracy = {}
        # (level, kind, eigenvalues, scale) of the last level-set test; whether it ended
        # on candidate crossings none of whose responses exceeded the level
        self._tested, self._unconfirmed = None, False

    @property
    def sigma_D(self) -> float:
        """``sigma_max(D)`` (computed when a level is first tested)."""
        if self._sigma_D is None:
            self._sigma_D = (
                float(largest_singular_values(self.D[None])[0]) if np.any(self.D) else 0.0
            )
        return self._sigma_D

    @property
    def evaluator(self):
        """One decomposition of ``A`` for all evaluations (built when first needed)."""
        if self._evaluator is None:
            self._evaluator = ResponseEvaluator(self.A, self.B, self.C, self.D)
        return self._evaluator

    @property
    def poles(self):
        return self.evaluator.poles

    # -- evaluation ------------------------------------------------------------------
    def sigma(self, frequencies: np.ndarray) -> np.ndarray:
        """sigma_max of the response at internal frequencies (inf allowed if continuous)."""
        if self.direct or (self._evaluator is None and frequencies.size <= _DIRECT_POINTS):
            return _largest_singular_values_small(self._direct_response(frequencies))
        if self.discrete:
            response = self.evaluator.at_points(np.exp(1j * frequencies))
        else:
            response = self.evaluator.at_frequencies(frequencies, 0.0)
        return largest_singular_values(response)

    def _direct_response(self, frequencies: np.ndarray) -> np.ndarray:
        """``G`` at a few frequencies by linear solves (no decomposition of ``A``)."""
        A, B, C, D = self.A, self.B, self.C, self.D
        finite = np.isfinite(frequencies)
        points = np.exp(1j * frequencies[finite]) if self.discrete else 1j * frequencies[finite]
        n = A.shape[0]
        shifted = np.empty((points.size, n, n), dtype=complex)
        shifted[:] = -A
        shifted.reshape(points.size, n * n)[:, :: n + 1] += points[:, None]
        response = np.empty((frequencies.size,) + D.shape, dtype=complex)
        response[:] = D
        try:
            response[finite] += C @ np.linalg.solve(
                shifted, np.broadcast_to(B, (points.size,) + B.shape)
            )
        except np.linalg.LinAlgError:
            # a point on a pole: the decomposition reports it (inf, with a warning)
            return self.evaluator.at_points(points) if finite.all() else self._full(frequencies)
        if self.direct:
            self._refine_near_top(response, frequencies, finite, points)
        return response

    def _refine_near_top(self, response, frequencies, finite, points):
        """Stiff models: the solves' relative error ``eps cond(p I - A)`` can reach
        ``1e-3`` near a slow resonance, so the responses that may be the largest (within
        a factor 2 of it) are recomputed with residuals formed in double-double
        (:func:`.refined_response.refined_response`); the others cannot become the
        largest through an error that refinement could remove."""
        values = np.full(frequencies.size, -np.inf)
        values[finite] = _largest_singular_values_small(response[finite])
        if not np.isfinite(values[finite]).all():
            return
        top = np.flatnonzero(finite & (values >= 0.5 * np.max(values)))
        all_points = np.zeros(frequencies.size, dtype=complex)
        all_points[finite] = points
        try:
            refined, accuracy = refined_response(
                self.A, self.B, self.C, self.D, all_points[top], on_circle=self.discrete
            )
        except np.linalg.LinAlgError:
            return
        response[top] = refined
        self.accuracy.update(zip(frequencies[top].tolist(), accuracy.tolist(), strict=True))

    def _full(self, frequencies):
        if self.discrete:
            return self.evaluator.at_points(np.exp(1j * frequencies))
        return self.evaluator.at_frequencies(frequencies, 0.0)

    def _fold(self, frequencies: np.ndarray) -> np.ndarray:
        """Real models have |G(jw)| = |G(-jw)|: keep w >= 0.  Drops duplicates."""
        frequencies = np.asarray(frequencies, dtype=float).ravel()
        if self.real:
            frequencies = np.abs(frequencies)
        else:
            frequencies = frequencies.copy()
        if frequencies.size < 2 or np.isnan(frequencies).any():
            return np.unique(frequencies)
        # np.unique's sort-and-compare without its wrapper (a tenth of a small call)
        frequencies.sort()
        keep = np.empty(frequencies.size, dtype=bool)
        keep[0] = True
        np.not_equal(frequencies[1:], frequencies[:-1], out=keep[1:])
        return frequencies[keep]

    def initial_frequencies(self) -> np.ndarray:
        """0, the high-frequency end, pole frequencies and a coarse logarithmic grid."""
        poles = self.poles
        if self.discrete:
            nonzero = poles[np.abs(poles) > 0]
            natural = np.minimum(np.abs(np.log(nonzero)), np.pi)
            angles = np.angle(nonzero)
            positive = natural[natural > 0]
            low = positive.min() if positive.size else np.pi / 1e3
            grid = np.geomspace(max(low / 10, 1e-12), np.pi, 30)
            candidates = [[0.0, np.pi], angles, natural, grid]
            if not self.real:
                candidates += [-natural, -grid]
        else:
            magnitude = np.abs(poles)
            positive = magnitude[magnitude > 0]
            low = positive.min() if positive.size else 1.0
            high = positive.max() if positive.size else 1.0
            grid = np.geomspace(low / 10, high * 10, 30)
            candidates = [[0.0, np.inf], magnitude, poles.imag, grid]
            if not self.real:
                candidates += [-magnitude, -grid, [-np.inf]]
        return self._fold(np.concatenate([np.ravel(c) for c in candidates]))

    # -- level crossings ---------------------------------------------------------------
    def crossing_frequencies(self, gamma: float) -> np.ndarray:
        """Frequencies where some singular value of G may equal ``gamma``."""
        if self.discrete:
            return self._crossings_discrete_pencil(gamma)
        amplification = 1.0 / (1.0 - (self.sigma_D / gamma) ** 2)  # 1 when D = 0
        if amplification <= _HAMILTONIAN_AMPLIFICATION_LIMIT:
            crossings = self._crossings_hamiltonian(gamma)
            if crossings is not None:
                return crossings
        return self._crossings_continuous_pencil(gamma)

    def _crossings_hamiltonian(self, gamma: float):
        H = self._hamiltonian(gamma)
        if H is None:
            return None
        if self.real:
            wr, wi, _, _, info = scipy.linalg.lapack.dgeev(H, compute_vl=0, compute_vr=0)
            if info != 0:
                return None
            eigenvalues = wr + 1j * wi
        else:
            eigenvalues = np.linalg.eigvals(H)
        scale = float(np.abs(H).sum(axis=0).max())
        self._tested = (gamma, "hamiltonian", eigenvalues, scale)
        return self._on_imaginary_axis(eigenvalues, scale)

    def _hamiltonian(self, gamma: float):
        """``H(gamma)`` (module docstring), or None when ``R`` or ``S`` is not positive
        definite in floating point."""
        if self.real:
            return self._hamiltonian_real(gamma)
        A, B, C, D = self.A, self.B, self.C, self.D
        m, p = B.shape[1], C.shape[0]
        R = gamma**2 * np.eye(m) - D.conj().T @ D
        try:
            factor = scipy.linalg.cho_factor(R, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        R_inv_DhC = scipy.linalg.cho_solve(factor, D.conj().T @ C, check_finite=False)
        R_inv_Bh = scipy.linalg.cho_solve(factor, B.conj().T, check_finite=False)
        A_gamma = A + B @ R_inv_DhC
        # I + D R^-1 D^H = gamma^2 (gamma^2 I - D D^H)^-1 (push-through identity).
        S = gamma**2 * np.eye(p) - D @ D.conj().T
        Q = gamma**2 * C.conj().T @ np.linalg.solve(S, C)
        return np.block([[A_gamma, B @ R_inv_Bh], [-Q, -A_gamma.conj().T]])

    def _hamiltonian_real(self, gamma: float):
        """:meth:`_hamiltonian` for real data: the same matrix, assembled in place, with
        LAPACK's Cholesky solver called directly (on small models the wrappers' checks
        cost more than the arithmetic)."""
        A, B, C, D = self.A, self.B, self.C, self.D
        n, m, p = A.shape[0], B.shape[1], C.shape[0]
        g2 = gamma * gamma
        H = np.empty((2 * n, 2 * n))
        if self.sigma_D == 0.0:
            # D = 0: R = gamma^2 I, so H = [[A, B B^T / gamma^2], [-C^T C, -A^T]]
            H[:n, :n] = A
            H[:n, n:] = (B / g2) @ B.T
            H[n:, :n] = -(C.T @ C)
            H[n:, n:] = -A.T
        else:
            R = g2 * np.eye(m) - D.T @ D
            rhs = np.concatenate([D.T @ C, B.T], axis=1)
            _, solved, info = scipy.linalg.lapack.dposv(R, rhs)
            if info != 0:
                return None
            A_gamma = A + B @ solved[:, :n]
            S = g2 * np.eye(p) - D @ D.T
            _, S_inv_C, info = scipy.linalg.lapack.dposv(S, C)
            if info != 0:
                return None
            H[:n, :n] = A_gamma
            H[:n, n:] = B @ solved[:, n:]
            H[n:, :n] = -g2 * (C.T @ S_inv_C)
            H[n:, n:] = -A_gamma.T
        return H

    def _continuous_pencil(self, gamma: float):
        A, C = self.A, self.C
        n, m = A.shape[0], self.B.shape[1]
        M, E = self._pencil(gamma)
        E[: 2 * n, : 2 * n] = np.eye(2 * n)
        M[:n, :n] = A
        M[n : 2 * n, n : 2 * n] = -A.conj().T
        M[n : 2 * n, 2 * n + m :] = -C.conj().T
        return M, E

    def _discrete_pencil(self, gamma: float):
        A, C = self.A, self.C
        n, m = A.shape[0], self.B.shape[1]
        M, E = self._pencil(gamma)
        E[:n, :n] = np.eye(n)
        E[n : 2 * n, n : 2 * n] = A.conj().T
        E[n : 2 * n, 2 * n + m :] = C.conj().T
        M[:n, :n] = A
        M[n : 2 * n, n : 2 * n] = np.eye(n)
        return M, E

    def _crossings_continuous_pencil(self, gamma: float) -> np.ndarray:
        A, B, C, D = self.A, self.B, self.C, self.D
        m, p = B.shape[1], C.shape[0]
        M, E = self._continuous_pencil(gamma)
        alpha, beta = scipy.linalg.eigvals(M, E, homogeneous_eigvals=True, check_finite=False)
        # Exactly m + p eigenvalues are infinite (E has rank 2n and the (u, v) block is
        # invertible for gamma != sigma_i(D)): drop the m + p "most infinite" ones.
        finiteness = np.abs(beta) / np.maximum(np.abs(alpha) + np.abs(beta), np.finfo(float).tiny)
        keep = np.argsort(finiteness)[m + p :]
        with np.errstate(divide="ignore"):  # a further infinite one is no crossing
            eigenvalues = alpha[keep] / beta[keep]
        scale = np.linalg.norm(np.block([[A, B], [C, D]]), 1)
        self._tested = (gamma, "pencil", eigenvalues, scale)
        return self._on_imaginary_axis(eigenvalues, scale)

    def _crossings_discrete_pencil(self, gamma: float) -> np.ndarray:
        M, E = self._discrete_pencil(gamma)
        alpha, beta = scipy.linalg.eigvals(M, E, homogeneous_eigvals=True, check_finite=False)
        size = np.maximum(np.abs(alpha), np.abs(beta))
        band = _AXIS_RTOL + _AXIS_SQRT_FACTOR * np.sqrt(_EPS) * (
            np.linalg.norm(M, 1) + np.linalg.norm(E, 1)
        )
        on_circle = (size > 0) & (np.abs(np.abs(alpha) - np.abs(beta)) <= band * size)
        angles = np.angle(alpha[on_circle] * np.conj(beta[on_circle]))
        finite = np.abs(beta) > _EPS * np.abs(alpha)
        self._tested = (
            gamma,
            "discrete",
            alpha[finite] / beta[finite],
            np.linalg.norm(M, 1) + np.linalg.norm(E, 1),
        )
        return self._fold(angles)

    def _pencil(self, gamma: float):
        """Rows (u, v) of the pencil, scaled by 1/gamma; the caller fills the x, y rows."""
        A, B, C, D = self.A, self.B, self.C, self.D
        n, m, p = A.shape[0], B.shape[1], C.shape[0]
        size = 2 * n + m + p
        dtype = np.result_type(A, B, C, D, float)
        M = np.zeros((size, size), dtype=dtype)
        E = np.zeros((size, size), dtype=dtype)
        M[:n, 2 * n : 2 * n + m] = B
        # 0 = C x + D u - gamma v  and  0 = B^H y + D^H v - gamma u  (divided by gamma).
        M[2 * n : 2 * n + p, :n] = C / gamma
        M[2 * n : 2 * n + p, 2 * n : 2 * n + m] = D / gamma
        M[2 * n : 2 * n + p, 2 * n + m :] = -np.eye(p)
        M[2 * n + p :, n : 2 * n] = B.conj().T / gamma
        M[2 * n + p :, 2 * n : 2 * n + m] = -np.eye(m)
        M[2 * n + p :, 2 * n + m :] = D.conj().T / gamma
        return M, E

    def _on_imaginary_axis(self, eigenvalues: np.ndarray, scale: float) -> np.ndarray:
        """Imaginary parts of eigenvalues within a relative distance of the axis."""
        eigenvalues = eigenvalues[np.isfinite(eigenvalues)]
        near = np.abs(eigenvalues.real) <= _AXIS_RTOL * np.abs(eigenvalues) + (
            _AXIS_SQRT_FACTOR * np.sqrt(_EPS) * scale
        )
        return self._fold(eigenvalues[near].imag)

    # -- iteration ---------------------------------------------------------------------
    def test_frequencies(self, crossings: np.ndarray) -> np.ndarray:
        """Crossings, midpoints between consecutive ones and points just outside them."""
        if self.discrete:
            upper_end = np.pi
        else:
            upper_end = 2 * np.max(np.abs(crossings)) + 1.0
        lower_end = 0.0 if self.real else -upper_end
        points = np.unique(np.concatenate([[lower_end], crossings, [upper_end]]))
        midpoints = 0.5 * (points[1:] + points[:-1])
        return self._fold(np.concatenate([crossings, midpoints]))

    def run(self, tol: float, seed=None) -> PeakGain:
        self._tol = tol
        seeded = seed is not None
        points = self._fold([seed, 0.0]) if seeded else self.initial_frequencies()
        values = self.sigma(points)
        best = int(np.argmax(values))
        lower, frequency = float(values[best]), float(points[best])
        if lower == 0.0:
            lower, frequency = self._nonzero_start()
            if lower == 0.0:
                return PeakGain(0.0, 0.0, 0.0, 0)
        iterations = 0
        hidden, blind, unlocated = [], [], []
        searched = blind_searched = False
        # the level whose unlocated candidates were settled (proved or searched)
        unlocated_at = None
        # how upper was decided (ProvedPeakGain.proof); the level tested by G(1/s)
        proof, inverted_at = "level-set", None
        for _ in range(_RECERTIFICATIONS):
            state = self._level_set(tol, lower, frequency, points, values)
            upper, count, lower, frequency, points, values = state
            iterations += count
            proof = "level-set"  # of this level; the inverted test may take over below
            if self.direct:
                # stiff: the level-set test's crossings carry errors of order eps ||H||,
                # far wider than a slow resonance; maximise the (refined) response locally
                lower, frequency = parabolic_peak(
                    self.sigma, points, values, lower, frequency, tol=tol
                )
            elif not (seeded and iterations == 1) or self._unconfirmed:
                # a seed certified at once (no candidate) is already within tol of the peak
                lower, frequency = self._refine(points, values, lower, frequency)
                if self._unconfirmed:
                    # candidates whose responses stayed below the level: a genuine pair
                    # may straddle a peak narrower than their rounding; maximise to tol
                    lower, frequency = parabolic_peak(
                        self.sigma, points, values, lower, frequency, tol=tol
                    )
            lower, frequency = self._attained(lower, frequency, tol)  # refined solves
            if lower <= upper:
                finite = np.isfinite(upper)
                hidden = self._hidden_crossings(upper) if finite else []
                # eigenvalues (clustered or not) whose rounding reaches the axis
                blind = self._rounding_blind_spots(upper) if finite else []
                # candidate crossings that the evaluation at their imaginary parts does
                # not locate: decided by the inverted test or searched once per level,
                # and left open (blind) unless that test proves them
                if finite and unlocated_at != upper:
                    unlocated = self._unlocated_candidates(upper)
                unlocated_searched = unlocated_at == upper
                if finite and (blind or unlocated) and inverted_at != upper:
                    # the windows the test leaves open, decided by the test on G(1/s)
                    inverted_at = upper
                    verdict, value, at = self._inverted_verdict(upper)
                    if verdict == "proved":
                        blind, unlocated, unlocated_searched = [], [], True
                        unlocated_at = upper
                        proof = "inverted"
                    elif verdict == "refuted":
                        lower, frequency = value, at
                        points, values = np.array([at]), np.array([value])
                        continue
                if unlocated and unlocated_searched:
                    blind = blind + unlocated  # searched at this level, still undecided
                settled = not unlocated or unlocated_searched
                if (not hidden or searched) and (not blind or blind_searched) and settled:
                    break
                # "no crossing" is no proof there: search near the suspect eigenvalues
                # and near the clusters of poles, whose centroids are accurate, and on a
                # logarithmic grid over the frequencies the rounding leaves undecided
                found, where = -np.inf, np.nan
                if hidden and not searched:
                    searched = True
                    windows = hidden + self._pole_cluster_windows()
                    found, where = self._search_windows(windows, tol)
                if blind and not blind_searched:
                    blind_searched = True
                    found, where = max((found, where), self._search_blind_spots(blind, tol))
                if unlocated and not unlocated_searched:
                    unlocated_at = upper
                    value, at = self._search_blind_spots(unlocated, tol)
                    self._missed = value > upper
                    # a search finds values, it proves no bound: neither test decided
                    # these candidates, so they stay open (relaxed level or no bound)
                    blind = blind + unlocated
                    found, where = max((found, where), (value, at))
                if found > lower:
                    lower, frequency = found, where
                    points, values = np.array([where]), np.array([found])
                if lower <= upper:
                    break
            # polishing attained a value above the level found free of crossings: that
            # level was no upper bound after all; test again from the polished value
        else:
            warn(
                f"hinfnorm: an attained value {lower!r} exceeds every level the level-set "
                "test certified; no upper bound is certified (upper = inf)",
                RuntimeWarning,
            )
            upper = np.inf
        if blind and not hidden and np.isfinite(upper) and lower <= upper:
            # undecided at lower (1 + tol): a slightly higher level may be decided
            relaxed = self._coarser_level(lower, tol)
            upper, blind = (relaxed, []) if np.isfinite(relaxed) else (upper, blind)
            proof = "relaxed"
        upper = self._blind_spots_resolved(upper, hidden, blind)  # inf if not
        reached = self.accuracy.get(frequency, 0.0) if self.direct else 0.0
        if reached > _UNRESOLVED_ACCURACY:
            # the caller says why (a pole within rounding of the boundary) and what it
            # returns instead of an unresolved value
            upper = np.inf
        elif reached > tol:
            warn(
                f"hinfnorm: the response at the peak is ill-conditioned; its refined "
                f"solve reached a relative accuracy of only about {reached:.1e} > tol",
                RuntimeWarning,
            )
        upper = self._circle_resolved(upper, tol)  # inf, with a warning, if not
        frequency = self._external(frequency)
        proof = proof if np.isfinite(upper) else "none"
        return ProvedPeakGain(
            float(lower), float(upper), float(frequency), iterations, reached, proof=proof
        )

    def _external(self, frequency):
        """An internal frequency in rad/s."""
        return frequency / self.dt if self.discrete else frequency

    def _level_set(self, tol, lower, frequency, points, values):
        """Raise ``lower`` until the level ``lower (1 + tol)`` has no crossing.

        Returns ``(upper, iterations, lower, frequency, points, values)``: ``upper`` is the
        level tested free of crossings (``inf`` if the iteration did not converge), and
        ``points, values`` the last frequencies evaluated.
        """
        for iteration in range(1, _MAX_ITERATIONS + 1):
            level = lower * (1.0 + tol)
            crossings = self.crossing_frequencies(level)
            self._unconfirmed = crossings.size > 0
            if crossings.size == 0:
                return level, iteration, lower, frequency, points, values
            points = self.test_frequencies(crossings)
            values = self.sigma(points)
            best = int(np.argmax(values))
            if values[best] > lower:
                lower, frequency = float(values[best]), float(points[best])
            if values[best] <= level:
                # No evaluation exceeds the level: the candidates were not genuine
                # crossings (eigenvalues near the axis) and ``level`` is an upper bound
                # (``lower`` never exceeds it here).
                return level, iteration, lower, frequency, points, values
        warn(
            f"hinfnorm: level-set iteration did not converge in {_MAX_ITERATIONS} "
            f"iterations; returning the best lower bound {lower!r}",
            RuntimeWarning,
        )
        return np.inf, _MAX_ITERATIONS, lower, frequency, points, values
