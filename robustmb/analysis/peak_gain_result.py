"""The result of the level-set iteration of :func:`.norms.peak_gain`: an attained value,
a certified upper bound and the frequency of the peak."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PeakGain"]


@dataclass(frozen=True)
class PeakGain:
    """Result of the level-set iteration on a stable model.

    Attributes
    ----------
    lower : float
        ``sigma_max`` of the response at ``frequency`` (an attained value).
    upper : float
        Level tested free of crossings (``(1 + tol)`` times the attained value it was
        tested from), ``lower`` when the model is static or identically zero, ``inf``
        when no tested level stayed above the polished ``lower``, or when the test at
        that level was not conclusive (a cluster of Hamiltonian eigenvalues closer to
        the axis than their rounding) -- never a value that was not proved.
    frequency : float
        Frequency of the peak in rad/s (``inf`` when the supremum is approached as
        ``omega -> inf`` in continuous time).
    iterations : int
        Number of level-set tests performed.
    accuracy : float
        Estimated relative error of ``lower`` where the response was evaluated by
        refined solves (0 otherwise).  Above ``1e-2`` the peak lies within rounding of
        a pole and ``lower`` is not a reliable value (``upper`` is then ``inf``).

    Examples
    --------
    >>> r = PeakGain(lower=2.0, upper=2.0 * (1 + 1e-8), frequency=0.5, iterations=2)
    >>> r.upper >= r.lower
    True
    """

    lower: float
    upper: float
    frequency: float
    iterations: int
    accuracy: float = 0.0
