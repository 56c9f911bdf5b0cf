"""Polishing of the attained value of the level-set search by plain sampling.

A mixin of :class:`.norms._LevelSetSearch`: :meth:`SamplePolish._refine` shrinks a
bracket around the best sample after the level-set test has certified the norm (it only
raises the attained lower bound), and :meth:`SamplePolish._nonzero_start` finds a
starting value when the response vanished at every initial frequency.  Uses the host's
``sigma``, ``A``, ``poles`` and ``discrete``.
"""

from __future__ import annotations

import numpy as np

_EPS = np.finfo(float).eps

__all__ = ["SamplePolish"]


class SamplePolish:
    """Sampling steps of the level-set search that need no level-set test."""

    def _refine(self, points, values, lower, frequency):
        """Polish the attained value by shrinking a bracket around the best sample.

        The level-set test certifies the norm; this only raises the attained lower bound
        (each of 3 rounds samples 17 points, shrinking the bracket 8-fold).
        """
        rounds, samples = 3, 17
        if not np.isfinite(frequency):
            return lower, frequency
        k = int(np.argmin(np.abs(points - frequency)))
        left = points[k - 1] if k > 0 else points[k]
        right = points[k + 1] if k + 1 < points.size else points[k]
        if not (np.isfinite(left) and np.isfinite(right)) or right <= left:
            return lower, frequency
        for _ in range(rounds):
            if right - left <= 4 * _EPS * abs(frequency):
                break
            grid = np.linspace(left, right, samples)
            grid_values = self.sigma(grid)
            j = int(np.argmax(grid_values))
            if np.ptp(grid_values) == 0:
                # exactly flat: the peak is located
                lower, frequency = max((lower, frequency), (grid_values[j], grid[j]))
                break
            if grid_values[j] > lower:
                lower, frequency = float(grid_values[j]), float(grid[j])
            left, right = grid[max(j - 1, 0)], grid[min(j + 1, samples - 1)]
        return lower, frequency

    def _nonzero_start(self):
        """G vanished at every initial point: test n + 2 more distinct points.

        A proper rational G of McMillan degree <= n that vanishes at more than n finite
        points and at infinity is identically zero.
        """
        n = self.A.shape[0]
        if self.discrete:
            frequencies = np.linspace(0.1, 3.0, n + 2)
        else:
            frequencies = np.geomspace(1e-3, 1e3, n + 2) * max(np.max(np.abs(self.poles)), 1.0)
        values = self.sigma(frequencies)
        best = int(np.argmax(values))
        return float(values[best]), float(frequencies[best])
