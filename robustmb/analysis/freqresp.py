"""Frequency response of LTI models, vectorised over frequency.

``G(s) = C (sI - A)^{-1} B + D`` is evaluated at all points with one decomposition of
``A`` per model:

- **modal**: ``A = V diag(lambda) V^{-1}`` when the eigenvector matrix is well
  conditioned; then ``G(s) = sum_i (C v_i)(w_i^T B) / (s - lambda_i) + D`` is a single
  matrix product ``[1/(s_k - lambda_i)]_{k,i} @ [residues]`` over all frequencies;
- **schur**: ``A = Z T Z^H`` (complex Schur form, ``T`` upper triangular), always
  applicable; the triangular systems ``(sI - T) X = Z^H B`` for all frequencies at once
  are solved by back-substitution with one matrix-vector product per state.  When the
  spectrum of ``A`` falls into clusters whose moduli are separated by a factor of 1e3 or
  more, the clusters are first decoupled by a similarity (:mod:`._separation`) and each
  is evaluated on its own: in one Schur form of the whole ``A`` the rounding error of the
  fast modes swamps the response of nearly cancelling slow modes (a loop with a weight
  pole at ``-1e-6``, the controller's copy of it and poles near ``-3e4`` was 2.4e-5
  relative off at ``omega = 0``).

With ``method="auto"`` every point carries an estimate of the sum's rounding error,
``10 eps`` times the sum of the magnitudes of its terms (modal: ``sum_i |r_i| /
|s - lambda_i| + |D|``; Schur: ``|C Z| |(sI - T)^{-1} Z^H B|``), plus for the modal form
the terms' sensitivity to the eigenvalues' rounding, ``eps ||A|| ||V^{-1}|| sum_i |r_i| /
|s - lambda_i|^2``, where an LU solve can do better: below a modulus gap, and for a sparse
``A`` (at least half zeros below 40 states, a narrow band from 40 on).  Where it exceeds
``1e-12`` times the largest entry of the result, the point is solved again by LU with
partial pivoting of ``(sI - A) x = B`` in the balanced coordinates (:func:`_direct_response`).
That happens where the response is much smaller than its terms: far above the bandwidth
of a model of high relative degree (a 6th-order Butterworth filter has ``|G| = 1e-24``
at 1e4 rad/s, where its modal terms add up to ``9e-4``), or between close poles with large
opposite residues.  The LU solve keeps the zeros of the realisation and stays accurate
to rounding there when the realisation is sparse (companion, chain, block forms); from
40 states on, a sparse ``A`` is solved in band form after a reverse Cuthill-McKee
permutation (:func:`_band_plan`), at ``O(n w^2)`` per point for a band of width ``w``.
The LU solve cannot help where the final sum ``D + C x`` itself cancels (a high-pass
filter far below its cut-off: ``D = 1`` against ``C x ~ -1``, ``|G| ~ omega^6``; the
stopband of a discrete low-pass near ``omega dt = pi``): its rounding is ``eps (|C| |x| +
|D|)`` whatever the accuracy of ``x``.  Where ``10 eps`` times that exceeds ``1e-12`` of the
largest entry, the point is refined with double-double residuals and a double-double final
sum (:func:`~robustmb.analysis.refined_response.refined_response`, on the unit circle in
discrete time); where the refinement does not converge to ``1e-12``, a ``RuntimeWarning``
says so.  A 6th-order Butterworth high-pass at ``omega = 1e-3`` (``|G| = 1e-18``) was
entirely wrong before this step and is within 5e-15 of a 60-digit solve after it.

Accuracy.  With ``"auto"`` the rounding of the sum is kept below about ``1e-12`` of the
largest entry at each point (an entry far smaller than the largest one is accurate only
relative to the largest).  On the Schur path (eigenvectors too ill-conditioned for the
modal form) the first-order error of any normwise backward-stable evaluation, ``eps ||A||
||y_i|| ||x_j||`` (``y = C (sI - A)^{-1}``, ``x = (sI - A)^{-1} B``), is estimated too, and
for a dense ``A`` the points where it exceeds ``1e-12`` of the largest entry are refined
iteratively with double-double residuals against the stored ``A``: a 4-state loop with
``cond(A) = 4.5e13`` was 1.5e-3 off at every frequency before (Schur and LU alike) and
agrees with a 60-digit solve after.  Not checked for a dense ``A`` on the modal path: the
eigenvalues' rounding, ``eps ||A|| kappa_i / |s - lambda_i|`` relative near a lightly
damped pole, which every method that sees ``A`` only in norm shares (refining those points
would cost about a hundred times the sweep): a random dense 60-state model with ``||A||_1
= 5e3`` is 2e-11 off near ``omega = 0`` here and 1e-10 in python-control, and random
16-state models with damping ratios down to 1e-3 were up to 3e-8 off at a resonance.  For a sparse
``A`` the LU solves near the poles remove most of the first error: 1.4e-13 at the first
mode of a chain of 30 masses (damping ratio ~0.2 %), against 2.4e-12 for the modal sum.
On the rolled-off models above the error stays near rounding: the Butterworth filter is
within 2e-15 of an 80-digit solve from 0.1 to 1e6 rad/s, where ``"modal"`` or
``"schur"`` alone lose every digit from about 1e3 rad/s on.

Continuous time uses ``s = j omega``; discrete time ``z = exp(j omega dt)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

from robustmb.analysis._lu_response import (  # noqa: F401  (model_family uses them from here)
    _BANDED_MIN_STATES,
    _BLOCK_ELEMENTS,
    _band_plan,
    _banded_response,
    _direct_response,
    _solution_sizes,
    _sparse_for_lu,
)
from robustmb.analysis._pole_warnings import _warn_near_pole, _warn_on_pole
from robustmb.analysis._separation import SEPARATION_GAP, separated_blocks
from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.refined_response import refined_response
from robustmb.errors import DimensionError, UncertainTypeError, warn
from robustmb.lft.arguments import below_nyquist

__all__ = [
    "ResponseEvaluator",
    "freqresp",
    "response_function",
    "largest_singular_values",
    "sigma_max_over_frequency",
]

# Largest ||V^{-1}||_F (V: unit-norm eigenvectors) for which the modal form is used.
_MODAL_CONDITION_LIMIT = 1e4
_EPS = np.finfo(float).eps
# Largest accepted estimate of the relative rounding error of the modal sum or of the Schur
# evaluation at a point (normwise: the largest entry's error estimate over the largest
# entry); beyond it ``method="auto"`` solves ``(sI - A) x = B`` at that point by LU.
_ACCURACY_TOLERANCE = 1e-12
# Largest accepted estimate of the realisation's conditioning error in a Schur evaluation
# of a dense A, relative to the largest entry; beyond it "auto" refines the point.
_CONDITIONING_TOLERANCE = 1e-12
# Multiple of eps * (sum of the magnitudes of the terms) taken as the rounding error of a
# sum that cancels (a margin over the factor of about 2 measured on cancelling sums).
_ROUNDING_FACTOR = 10.0


def freqresp(sys, omega, *, method: str = "auto") -> np.ndarray:
    """Frequency response of an LTI model at real frequencies.

    Parameters
    ----------
    sys : control.StateSpace, control.TransferFunction, array_like or tuple
        Fixed (not uncertain) model; see :func:`as_statespace_data` for accepted forms.
    omega : array_like of float
        Frequencies in rad/s (1-D, or a scalar).  Continuous time evaluates
        ``G(j omega)`` (``omega = +-inf`` gives ``D``); discrete time with sampling time
        ``dt`` evaluates ``G(exp(j omega dt))``.
    method : {"auto", "modal", "schur"}, optional
        Decomposition of ``A``.  ``"auto"`` uses the modal form when the inverse of the
        (unit-column) eigenvector matrix has Frobenius norm at most 1e4, the Schur form
        otherwise, and solves by LU the points where the sum's estimated rounding error
        exceeds ``1e-12`` of the response (see the module notes).  The Schur path
        decouples eigenvalue clusters separated by a modulus ratio of 1e3 or more before
        evaluating.  ``"modal"`` and ``"schur"`` evaluate every point by that
        decomposition only: their error is absolute, about ``eps`` times the size of the
        terms, and a response far below its terms loses its relative accuracy.

    Returns
    -------
    numpy.ndarray
        Complex array of shape ``(len(omega), ny, nu)``; with ``method="auto"`` its sums
        are rounded to about ``1e-12`` of the largest entry at each frequency, and on the
        Schur path (split into clusters or not) the realisation's conditioning is refined
        away to that level too, or a ``RuntimeWarning`` names the points where refinement
        does not converge (for a
        dense ``A`` on the modal path the eigenvalues' rounding near a lightly damped pole
        comes on top: module notes).  At a frequency that
        coincides (to rounding) with a pole of the realisation every entry is ``inf`` and
        a ``RuntimeWarning`` names the frequency; a finite response within
        ``16 eps ||A||_1`` of a computed pole also gets one (its value is set by the
        rounding of the realisation).  In discrete time a frequency above the Nyquist
        frequency ``pi / dt`` is refused (it would be an alias of one below it).

    Raises
    ------
    UncertainTypeError
        For an uncertain object (pass ``X.nominal()``), an unsupported type or complex
        ``omega``.
    DimensionError
        For ``omega`` that is not 1-D, contains NaN, or is infinite in discrete time.
    ArgumentError
        For a discrete-time model and an ``omega`` entry above ``pi / dt``.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> G = control.tf([1.0], [1.0, 1.0])
    >>> H = freqresp(G, [0.0, 1.0])
    >>> H.shape
    (2, 1, 1)
    >>> np.allclose(H[:, 0, 0], [1.0, 1.0 / (1.0 + 1.0j)])
    True
    """
    A, B, C, D, dt = as_statespace_data(sys)
    omega = _validated_frequencies(omega, dt=dt, what="freqresp")
    evaluator = ResponseEvaluator(A, B, C, D, method=method)
    response = evaluator.at_frequencies(omega, dt)
    _warn_near_pole(A, evaluator.poles, omega, dt, response)
    return response


def response_function(sys, *, method: str = "auto"):
    """``omega -> freqresp(sys, omega)`` with one decomposition of ``A`` for every call.

    For loops that evaluate one model at new frequencies many times (the certified mu
    sweep probes each certificate's interval): :func:`freqresp` decomposes ``A`` on every
    call, which for a model of a hundred states costs more than the evaluation itself.

    Parameters
    ----------
    sys : control.StateSpace, control.TransferFunction, array_like or tuple
        Fixed model (see :func:`freqresp`).
    method : {"auto", "modal", "schur"}, optional
        See :func:`freqresp`.

    Returns
    -------
    callable
        ``respond(omega)``: complex array ``(len(omega), ny, nu)``, equal to
        ``freqresp(sys, omega, method=method)``.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> respond = response_function(control.tf([1.0], [1.0, 1.0]))
    >>> np.allclose(respond([0.0, 1.0])[:, 0, 0], [1.0, 1.0 / (1.0 + 1.0j)])
    True
    """
    A, B, C, D, dt = as_statespace_data(sys)
    evaluator = ResponseEvaluator(A, B, C, D, method=method)

    def respond(omega):
        checked = _validated_frequencies(omega, dt=dt, what="response_function")
        return evaluator.at_frequencies(checked, dt)

    return respond


def sigma_max_over_frequency(sys, omega) -> np.ndarray:
    """Largest singular value of the frequency response at each frequency.

    Parameters
    ----------
    sys : control.StateSpace, control.TransferFunction, array_like or tuple
        Fixed LTI model (see :func:`freqresp`).
    omega : array_like of float
        Frequencies in rad/s (1-D or scalar).

    Returns
    -------
    numpy.ndarray
        Float array of shape ``(len(omega),)``: ``sigma_max(G(j omega_k))`` (or at
        ``exp(j omega_k dt)`` in discrete time); ``inf`` at a pole of the model.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> G = control.tf([1.0], [1.0, 0.2, 1.0])      # peak 1/(2*0.1*sqrt(1-0.01))
    >>> s = sigma_max_over_frequency(G, [0.0, np.sqrt(1 - 2 * 0.1**2)])
    >>> np.allclose(s, [1.0, 1 / (0.2 * np.sqrt(0.99))])
    True
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        response = freqresp(sys, omega)
    return largest_singular_values(response)


def largest_singular_values(response: np.ndarray) -> np.ndarray:
    """Largest singular value of each matrix of a ``(K, p, m)`` stack (``inf`` if not finite).

    Parameters
    ----------
    response : numpy.ndarray
        Stack of ``K`` matrices of shape ``(p, m)``.

    Returns
    -------
    numpy.ndarray
        Array of shape ``(K,)``.

    Examples
    --------
    >>> import numpy as np
    >>> largest_singular_values(np.array([[[3.0, 0.0], [0.0, 4.0]], [[np.inf, 0], [0, 1]]]))
    array([ 4., inf])
    """
    response = np.asarray(response)
    K, p, m = response.shape
    sigma = np.full(K, np.inf)
    if p == 0 or m == 0:
        sigma[:] = 0.0
        return sigma
    finite = np.all(np.isfinite(response), axis=(1, 2))
    stack = response[finite]
    if p == 1 or m == 1:
        sigma[finite] = np.linalg.norm(stack.reshape(-1, p * m), axis=1)
        return sigma
    # Largest eigenvalue of the smaller Gram matrix: as accurate as an SVD for the largest
    # singular value (relative error ~ eps) and about twice as fast on stacks.  Each
    # matrix is scaled by its largest entry first so that squaring cannot overflow.
    scale = np.max(np.abs(stack), axis=(1, 2))
    scale[scale == 0] = 1.0
    stack = stack / scale[:, None, None]
    adjoint = stack.conj().transpose(0, 2, 1)
    gram = adjoint @ stack if m <= p else stack @ adjoint
    top = np.linalg.eigvalsh(gram)[:, -1]
    sigma[finite] = scale * np.sqrt(np.maximum(top, 0.0))
    return sigma


class ResponseEvaluator:
    """One decomposition of ``A``, reused to evaluate ``G(s)`` at many complex points.

    Parameters
    ----------
    A, B, C, D : numpy.ndarray
        State-space matrices (float or complex) with consistent shapes.
    method : {"auto", "modal", "schur"}, optional
        See :func:`freqresp`.  With ``"auto"`` the points where the estimated rounding
        error of the sum exceeds ``1e-12`` of the result are solved by LU (module notes).

    Attributes
    ----------
    poles : numpy.ndarray
        Eigenvalues of ``A`` (from the decomposition in use).
    method : str
        ``"modal"``, ``"schur"`` or ``"static"`` (no states).

    Examples
    --------
    >>> import numpy as np
    >>> ev = ResponseEvaluator(np.array([[-1.0]]), np.array([[1.0]]),
    ...                        np.array([[2.0]]), np.array([[0.5]]))
    >>> np.allclose(ev.at_points(np.array([0.0, 1.0j]))[:, 0, 0], [2.5, 0.5 + 2 / (1 + 1j)])
    True
    """

    def __init__(self, A, B, C, D, *, method: str = "auto"):
        if method not in ("auto", "modal", "schur"):
            raise DimensionError(f"method must be 'auto', 'modal' or 'schur'; got {method!r}")
        self.D = np.asarray(D)
        self.shape = self.D.shape
        self._abs_D_entries = np.abs(self.D)
        # real data: G(0) and G(exp(0)) are real (the complex arithmetic leaves ~eps there)
        self._real = not any(np.iscomplexobj(X) for X in (A, B, C, D))
        # "auto" estimates the rounding error at every point and solves by LU where the
        # estimate exceeds _ACCURACY_TOLERANCE; the other methods evaluate as asked.
        self._check = method == "auto"
        self._parts = None
        self._band = None  # banded LU plan of (sI - A), built when first needed
        self._conditioning = 0.0  # Schur path: eps ||A|| factor of the conditioning estimate
        n = A.shape[0]
        if n == 0:
            self.method = "static"
            self.poles = np.zeros(0, dtype=complex)
            return
        A, B, C = _balanced(A, B, C)
        self._direct = (A, B, C)
        if method in ("auto", "modal"):
            poles, V = np.linalg.eig(A)
            V_inv = _inverse_or_none(V)
            # ||V^{-1}||_F with unit eigenvectors: between the largest eigenvalue condition
            # number and sqrt(n) times it, and an upper bound on cond_2(V) / sqrt(n).
            condition = np.inf if V_inv is None else np.linalg.norm(V_inv)
            if method == "modal" and V_inv is None:
                raise DimensionError(
                    f"A ({n}x{n}) is not diagonalisable to working precision; use method='schur'"
                )
            if method == "modal" or condition <= _MODAL_CONDITION_LIMIT:
                self.method = "modal"
                self.poles = poles.astype(complex)  # eig returns floats if all are real
                CV = C @ V
                WB = V_inv @ B
                # Residue of pole i, flattened: outer(C v_i, w_i^T B).
                self._residues = (CV.T[:, :, None] * WB[:, None, :]).reshape(n, -1)
                if self._check:
                    self._abs_residues = np.abs(self._residues)
                    self._abs_D = np.abs(self.D).reshape(1, -1)
                    self._eigenvalue_error = _EPS * max(float(condition), 1.0)
                    # The eigenvalue-sensitivity term is the realisation's own conditioning
                    # in norm, shared by every normwise backward-stable method: it is
                    # checked only where an LU solve has something better, below a modulus
                    # gap between eigenvalue clusters (LU does not mix the clusters' state
                    # scales) and for a sparse A (LU keeps its zeros: its error is then
                    # componentwise, 1.5e-13 against the modal sum's 2.4e-12 at the first
                    # mode of a 30-mass chain).
                    if _has_gap(self.poles) or self._sparse(A, B, C):
                        self._eigenvalue_error *= float(np.linalg.norm(A, 1))
                    else:
                        # dense A, no gap: only iterative refinement removes it, at about
                        # 100 times the cost of the whole sweep on random dense models of
                        # 16-60 states (whose modal error reached 3e-8 there): not checked
                        self._eigenvalue_error = 0.0
                return
        self._init_schur(A, B, C)

    def _init_schur(self, A, B, C):
        """Schur path, on each block of the slow/fast separation of ``(A, B, C)``."""
        self.method = "schur"
        self._parts = None
        if np.iscomplexobj(A):
            T, Z = scipy.linalg.schur(A, output="complex")
        else:
            # Real Schur form then its complex triangularisation: cheaper than complex QR.
            T, Z = scipy.linalg.rsf2csf(*scipy.linalg.schur(A, output="real"))
        self.poles = np.diag(T).copy()
        blocks = separated_blocks(A, B, C, eigenvalues=self.poles) if _has_gap(self.poles) else []
        if len(blocks) > 1:
            self._parts = [_schur_part(a, b, c) for a, b, c in blocks]
            self.poles = np.concatenate([part.poles for part in self._parts])
            # Below the fastest cluster, an orthogonal decomposition of the whole A (Schur,
            # Hessenberg, eig) carries an error eps ||A|| that the slow modes amplify;
            # an LU solve of (sI - A) in the balanced coordinates does not mix the state
            # scales and stays accurate there (3e-11 against 1e-6 for the Schur path at
            # omega = 0 on a loop with poles at -1e-6 and -3e4).
            slow = np.abs(np.concatenate([part.poles for part in self._parts[:-1]]))
            self._direct = (A, B, C)
            self._direct_below = float(np.sqrt(slow.max() * np.abs(self._parts[-1].poles).min()))
            if self._check:  # the realisation's conditioning, as below (at_points)
                self._conditioning = _ROUNDING_FACTOR * _EPS * float(np.linalg.norm(A, 1))
                self._conditioning_to_lu = self._sparse(A, B, C)
            return
        self._T = T
        self._ZhB = Z.conj().T @ B
        self._CZ = C @ Z
        self._abs_CZ = np.abs(self._CZ)
        self._abs_ZhB = np.abs(self._ZhB)
        if self._check:
            # First-order error of a normwise backward-stable evaluation,
            # |y_i (dA) x_j| <= eps ||A|| ||y_i|| ||x_j|| (y = C (sI - A)^-1, x = (sI - A)^-1 B):
            # for a sparse A it goes with the rounding estimate to the LU solve (which
            # keeps the zeros), for a dense one to iterative refinement (at_points).
            self._conditioning = _ROUNDING_FACTOR * _EPS * float(np.linalg.norm(A, 1))
            self._conditioning_to_lu = self._sparse(A, B, C)

    def at_frequencies(self, omega: np.ndarray, dt: float) -> np.ndarray:
        """Evaluate at real frequencies (``s = j omega`` or ``z = exp(j omega dt)``).

        Parameters
        ----------
        omega : numpy.ndarray
            Validated 1-D float array (infinite entries allowed in continuous time).
        dt : float
            ``0.0`` for continuous time, else the sampling time.

        Returns
        -------
        numpy.ndarray
            Complex array ``(len(omega), p, m)``.

        Examples
        --------
        >>> import numpy as np
        >>> ev = ResponseEvaluator(np.array([[0.5]]), np.array([[1.0]]),
        ...                        np.array([[1.0]]), np.array([[0.0]]))
        >>> np.allclose(ev.at_frequencies(np.array([0.0]), 0.1)[0, 0, 0], 2.0)
        True
        """
        if dt > 0:
            response = self.at_points(np.exp(1j * omega * dt), frequencies=omega, on_circle=True)
        else:
            infinite = np.isinf(omega)
            points = 1j * np.where(infinite, 0.0, omega)
            response = self.at_points(points, frequencies=omega, skip=infinite)
            response[infinite] = self.D
        if self._real:
            response[omega == 0] = response[omega == 0].real
        return response

    def at_points(
        self, points: np.ndarray, *, frequencies=None, skip=None, on_circle: bool = False
    ) -> np.ndarray:
        """Evaluate ``G`` at complex points ``s_k`` (array of shape ``(K,)``).

        Points that coincide with a pole to rounding give ``inf`` entries and a
        ``RuntimeWarning``; ``frequencies`` (same shape) only labels them in the warning.
        Points flagged in the boolean array ``skip`` are not evaluated (left as ``D``).
        ``on_circle`` says that the points stand for points of the unit circle
        (``exp(j omega dt)`` rounded); a point refined in double-double arithmetic (module
        notes) is then refined at its projection onto the circle.

        Examples
        --------
        >>> import numpy as np
        >>> ev = ResponseEvaluator(np.zeros((1, 1)), np.ones((1, 1)),
        ...                        np.ones((1, 1)), np.zeros((1, 1)))
        >>> np.allclose(ev.at_points(np.array([2.0]))[0, 0, 0], 0.5)
        True
        """
        points = np.asarray(points, dtype=complex).reshape(-1)
        K = points.size
        p, m = self.shape
        response = np.empty((K, p, m), dtype=complex)
        response[:] = self.D
        if self.method == "static" or K == 0 or p == 0 or m == 0:
            return response
        index = np.arange(K) if skip is None else np.flatnonzero(~np.asarray(skip))
        error = np.zeros(K) if self._check else None
        conditioning = np.zeros(K) if self._check else None
        hit = self._accumulate(points, index, response, error, conditioning)
        if error is not None:
            # Absolute error estimate against the largest entry: points where the sum
            # cancels beyond _ACCURACY_TOLERANCE are solved again (see _direct_response);
            # points where the realisation's conditioning exceeds it are refined.
            scale = np.max(np.abs(response.reshape(K, -1)), axis=1)
            ill = (conditioning > _CONDITIONING_TOLERANCE * scale) & ~hit
            inaccurate = (error > _ACCURACY_TOLERANCE * scale) & ~hit & ~ill
            if np.any(ill):
                labels = points if frequencies is None else np.asarray(frequencies)
                self._refine(points, np.flatnonzero(ill), response, on_circle, labels)
            if np.any(inaccurate):
                solved, terms = self._solve(points[inaccurate], terms=True)
                response[inaccurate] = self.D + solved
                rows = np.flatnonzero(inaccurate)
                labels = points if frequencies is None else np.asarray(frequencies)
                self._refine_cancelling(points, rows, terms, response, on_circle, labels)
        if np.any(hit):
            response[hit] = np.inf
            _warn_on_pole(points[hit] if frequencies is None else np.asarray(frequencies)[hit])
        return response

    def _accumulate(self, points, index, response, error, conditioning=None) -> np.ndarray:
        """Add ``C (sI - A)^{-1} B`` at ``points[index]`` to ``response[index]`` and, when
        ``error`` is an array, an estimate of its absolute rounding error (largest entry)
        to ``error[index]`` and of the error from the realisation's conditioning that only
        iterative refinement removes to ``conditioning[index]``; return the boolean mask
        of the points on a pole."""
        K = points.size
        hit = np.zeros(K, dtype=bool)
        if self._parts is not None:
            low = index[np.abs(points[index]) < self._direct_below]
            if low.size:
                hit[low] = np.any(_on_pole(points[low, None], self.poles[None, :]), axis=1)
                if error is None:
                    response[low] += self._solve(points[low])
                else:
                    # the LU solve's x is accurate here, the final sum D + C x may cancel:
                    # its rounding estimate sends such points on to the refinement
                    solved, terms = self._solve(points[low], terms=True)
                    response[low] += solved
                    size = terms + np.max(self._abs_D_entries, initial=0.0)
                    error[low] += _ROUNDING_FACTOR * _EPS * size
            fast = np.setdiff1d(index, low)
            for part in self._parts:
                hit |= part._accumulate(points, fast, response, error)
            if conditioning is not None and self._conditioning:
                # eps ||A|| ||y|| ||x|| from LU solves of the whole pencil: neither the
                # separated Schur forms nor the LU solve remove it (seed-126 survey
                # model: 12x off at a resonance); refined, or for a sparse A solved by LU
                rows = index[~hit[index]]
                ill = self._conditioning * _solution_sizes(*self._direct, points[rows])
                (error if self._conditioning_to_lu else conditioning)[rows] += ill
            return hit
        p, m = self.shape
        n = self.poles.size
        width = max(p, m) if self.method == "modal" else min(p, m)
        block = max(1, _BLOCK_ELEMENTS // (n * max(width, 1)))
        for start in range(0, index.size, block):
            rows = index[start : start + block]
            gap = points[rows, None] - self.poles[None, :]
            on_pole = _on_pole(points[rows, None], self.poles[None, :], gap)
            if np.any(on_pole):
                hit[rows] = np.any(on_pole, axis=1)
                gap[on_pole] = 1.0
            if self.method == "modal":
                values, bound, ill = self._modal_block(gap, error is not None)
            else:
                values, bound, ill = self._schur_block(gap, error is not None)
            response[rows] += values
            if bound is not None:
                error[rows] += bound
            if ill is not None and conditioning is not None:
                conditioning[rows] += ill
        return hit

    def _sparse(self, A, B, C) -> bool:
        """:func:`_sparse_for_lu`, keeping the band plan it builds for the LU solves."""
        sparse, plan = _sparse_for_lu(A, B, C)
        if plan is not None:
            self._band = plan
        return sparse

    def _solve(self, points: np.ndarray, *, terms: bool = False):
        """``C (sI - A)^{-1} B`` by LU at each point: banded after a bandwidth-reducing
        permutation when ``A`` is sparse enough (chains of bodies), dense otherwise.  With
        ``terms``, also ``|C| |x|`` per point (largest entry, see :func:`_direct_response`)."""
        if self._band is None:
            self._band = _band_plan(*self._direct) or False
        if self._band:
            return _banded_response(self._band, points, terms=terms)
        return _direct_response(*self._direct, points, terms=terms)

    def _refine_cancelling(self, points, rows, terms, response, on_circle, labels) -> None:
        """Refine in double-double arithmetic the LU-solved ``points[rows]`` whose final sum
        ``D + C x`` cancels beyond the accuracy tolerance; warn where even that fails.

        LU keeps ``x`` accurate but not the sum ``D + C x``: its rounding is about ``eps
        (|C| |x| + |D|)`` whatever ``x``'s accuracy, and a high-pass filter far below its
        cut-off (``D = 1`` cancelled by ``C x ~ -1`` down to ``|G| ~ omega^6``) loses every
        digit there.  :func:`~robustmb.analysis.refined_response.refined_response` forms
        the residuals and the final sum with error-free transformations.
        """
        cancels = _cancelling(response[rows], terms + np.max(self._abs_D_entries, initial=0.0))
        if not np.any(cancels):
            return
        self._refine(points, rows[cancels], response, on_circle, labels)

    def _refine(self, points, chosen, response, on_circle, labels) -> None:
        """Replace ``response[chosen]`` by the refined response at ``points[chosen]``
        (:func:`~robustmb.analysis.refined_response.refined_response`: LU, residuals and
        final sum in double-double arithmetic); warn where it does not converge."""
        A, B, C = self._direct
        try:
            refined, accuracy = refined_response(
                A, B, C, self.D, points[chosen], on_circle=on_circle
            )
        except np.linalg.LinAlgError:  # exactly singular at one of them: keep the LU values
            refined, accuracy = response[chosen], np.full(chosen.size, np.inf)
        response[chosen] = refined
        failed = ~(accuracy <= _ACCURACY_TOLERANCE)
        if np.any(failed):
            warn(
                f"the response at {int(np.sum(failed))} point(s) "
                f"(first: {labels[chosen][failed][0].item()!r}) cancels beyond what double-double "
                "refinement recovered; it may be off by "
                f"more than {_ACCURACY_TOLERANCE:g} relative",
                RuntimeWarning,
            )

    def _modal_block(self, gap: np.ndarray, estimate: bool):
        """``sum_i residue_i / (s - lambda_i)`` for a block of points and, if ``estimate``,
        the largest entry's rounding-error estimate at each point."""
        inverse = 1.0 / gap
        values = (inverse @ self._residues).reshape(gap.shape[0], *self.shape)
        if not estimate:
            return values, None, None
        # Rounding of the sum at the size of its terms, sum_i |r_i| / |s - lambda_i| + |D|:
        # where the response is much smaller than its terms (a high relative degree far
        # above the bandwidth, close poles with large opposite residues) this is the
        # error of the modal sum, to within a factor 2 on such models against 60-digit
        # references.  (The errors of the computed residues are not independent: V^{-1}
        # is the inverse of the computed V, and what the sum loses through them is of the
        # size of this term or of the realisation's own conditioning below.)
        magnitude = np.abs(inverse)
        error = _ROUNDING_FACTOR * _EPS * (magnitude @ self._abs_residues + self._abs_D)
        # An eigenvalue error of eps ||A|| ||V^{-1}|| moves term i by that much times
        # |r_i| / |s - lambda_i|^2 (checked where LU does better: module notes).
        if self._eigenvalue_error:
            error += self._eigenvalue_error * (magnitude**2 @ self._abs_residues)
        return values, error.max(axis=1), None

    def _schur_block(self, gap: np.ndarray, estimate: bool = False):
        """``C Z (sI - T)^{-1} Z^H B`` for a block of points (``gap[k, i] = s_k - T_ii``)
        and, if ``estimate``, the rounding-error estimate ``10 eps (|C Z| |X|)`` (largest
        entry) of the final product: it catches a response that is much smaller than the
        terms it is summed from (high relative degree far above the bandwidth)."""
        T, ZhB, CZ = self._T, self._ZhB, self._CZ
        n = T.shape[0]
        K = gap.shape[0]
        p, m = self.shape
        if m <= p:
            # Back-substitution on (sI - T) X = Z^H B, X stored state-major: (n, K, m).
            X = np.empty((n, K, m), dtype=complex)
            for i in range(n - 1, -1, -1):
                rhs = np.broadcast_to(ZhB[i], (K, m))
                if i < n - 1:
                    rhs = rhs + (T[i, i + 1 :] @ X[i + 1 :].reshape(n - 1 - i, K * m)).reshape(K, m)
                X[i] = rhs / gap[:, i, None]
            values = np.tensordot(CZ, X, axes=(1, 0)).transpose(1, 0, 2)
            if not estimate:
                return values, None, None
            terms = np.tensordot(self._abs_CZ, np.abs(X), axes=(1, 0))
            bound = _ROUNDING_FACTOR * _EPS * terms.max(axis=(0, 2))
            return values, *self._schur_conditioning(gap, bound, X=X)
        # Forward substitution on Y (sI - T) = C Z, Y stored state-major: (n, K, p).
        Y = np.empty((n, K, p), dtype=complex)
        for i in range(n):
            rhs = np.broadcast_to(CZ[:, i], (K, p))
            if i > 0:
                rhs = rhs + (T[:i, i] @ Y[:i].reshape(i, K * p)).reshape(K, p)
            Y[i] = rhs / gap[:, i, None]
        values = np.tensordot(Y, ZhB, axes=(0, 0))
        if not estimate:
            return values, None, None
        terms = np.tensordot(np.abs(Y), self._abs_ZhB, axes=(0, 0))
        bound = _ROUNDING_FACTOR * _EPS * terms.max(axis=(1, 2))
        return values, *self._schur_conditioning(gap, bound, Y=Y)

    def _schur_conditioning(self, gap, bound, X=None, Y=None):
        """``(rounding estimate, conditioning estimate)`` of a Schur block: the
        first-order error ``eps ||A|| max_i ||y_i|| max_j ||x_j||`` of a normwise
        backward-stable evaluation, from the substitution already done (``X`` or ``Y``)
        and the one on the other side.  Added to the rounding estimate when ``A`` is
        sparse (LU keeps its zeros), returned separately otherwise (refinement)."""
        if not self._conditioning:
            return bound, None
        T, n = self._T, self._T.shape[0]
        K = gap.shape[0]
        if X is None:
            m = self._ZhB.shape[1]
            X = np.empty((n, K, m), dtype=complex)
            for i in range(n - 1, -1, -1):
                rhs = np.broadcast_to(self._ZhB[i], (K, m))
                if i < n - 1:
                    rhs = rhs + (T[i, i + 1 :] @ X[i + 1 :].reshape(n - 1 - i, K * m)).reshape(K, m)
                X[i] = rhs / gap[:, i, None]
        else:
            p = self._CZ.shape[0]
            Y = np.empty((n, K, p), dtype=complex)
            for i in range(n):
                rhs = np.broadcast_to(self._CZ[:, i], (K, p))
                if i > 0:
                    rhs = rhs + (T[:i, i] @ Y[:i].reshape(i, K * p)).reshape(K, p)
                Y[i] = rhs / gap[:, i, None]
        size = np.linalg.norm(X, axis=0).max(axis=1) * np.linalg.norm(Y, axis=0).max(axis=1)
        ill = self._conditioning * size
        if self._conditioning_to_lu:
            return bound + ill, None
        return bound, ill


def _cancelling(values: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Mask of the finite LU-solved responses ``values`` (one per point) whose final sum
    ``D + C x``, of terms as large as ``size`` (``max |C| |x| + max |D|``), rounds beyond
    the accuracy tolerance of their largest entry."""
    flat = values.reshape(values.shape[0], -1)
    scale = np.max(np.abs(flat), axis=1)
    finite = np.all(np.isfinite(flat), axis=1)
    return finite & (_ROUNDING_FACTOR * _EPS * size > _ACCURACY_TOLERANCE * scale)


def _on_pole(points: np.ndarray, poles: np.ndarray, gap=None) -> np.ndarray:
    """Where a point is "on" a pole: their difference (``gap`` when the caller has it) is
    at the operands' rounding level (broadcast over the two arrays)."""
    gap = points - poles if gap is None else gap
    return np.abs(gap) <= 4 * _EPS * np.maximum(np.abs(points), np.abs(poles))


def _has_gap(poles) -> bool:
    """Whether consecutive eigenvalue moduli differ by a factor of ``SEPARATION_GAP`` or more."""
    moduli = np.sort(np.abs(poles))
    return moduli.size > 1 and bool(np.any(moduli[1:] >= SEPARATION_GAP * moduli[:-1]))


def _schur_part(A, B, C):
    """A Schur-path :class:`ResponseEvaluator` of ``(A, B, C, 0)`` (one separated block)."""
    part = ResponseEvaluator.__new__(ResponseEvaluator)
    part.D = np.zeros((C.shape[0], B.shape[1]), dtype=complex)
    part.shape = part.D.shape
    part._check = False
    part._band = None
    part._conditioning = 0.0
    part._init_schur(A, B, C)
    return part


def _balanced(A, B, C):
    """``(T^-1 A T, T^-1 B, C T)`` for the diagonal ``T`` (powers of 2) that balances ``A``.

    The similarity is exact in floating point and leaves ``G`` unchanged.  Without it a
    loop closed through a high-gain controller (state coordinates spread over ten orders
    of magnitude) is decomposed with a backward error ``eps ||A||`` that swamps its small
    entries: the Schur evaluation of such a 7-state loop was off by 3e-4 relative.
    """
    _, (scale, _perm) = scipy.linalg.matrix_balance(A, permute=False, separate=True)
    return A * scale[None, :] / scale[:, None], B / scale[:, None], C * scale[None, :]


def _inverse_or_none(V: np.ndarray):
    """Inverse of the eigenvector matrix, or None when it is singular to working precision."""
    if not np.all(np.isfinite(V)):
        return None
    try:
        V_inv = np.linalg.inv(V)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(V_inv)):
        return None
    # a nearly defective V (double integrator) has a huge inverse whose norm may overflow
    # to inf: that is the singular case, not a failure worth a warning
    with np.errstate(over="ignore"):
        if np.linalg.norm(V_inv) * _EPS > 1e-2:
            return None
    return V_inv


def _validated_frequencies(omega, *, dt, what) -> np.ndarray:
    """Return ``omega`` as a 1-D float array, rejecting complex, NaN and bad shapes, and
    (sampling time ``dt > 0``) frequencies above the Nyquist frequency ``pi / dt``."""
    discrete = dt > 0
    array = np.asarray(omega)
    if array.dtype.kind == "c":
        raise UncertainTypeError("omega must hold real frequencies in rad/s; got a complex array")
    if array.dtype.kind not in "iuf":
        raise UncertainTypeError(f"omega must be a real numeric array; got dtype {array.dtype}")
    array = np.atleast_1d(array.astype(float))
    if array.ndim != 1:
        raise DimensionError(f"omega must be 1-D; got an array of shape {array.shape}")
    if np.any(np.isnan(array)):
        raise DimensionError(f"omega has a NaN entry at index {int(np.argmax(np.isnan(array)))}")
    if discrete and np.any(np.isinf(array)):
        raise DimensionError(
            f"omega has an infinite entry at index {int(np.argmax(np.isinf(array)))}; "
            "a discrete-time response is defined for finite frequencies only"
        )
    return below_nyquist(array, dt, what)
