"""The outcome of re-checking a partition certificate of one arm channel."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np


@dataclass
class PartitionReplay:
    """Replay of a partition certificate of one channel.

    Attributes
    ----------
    channel : str
    gamma : float
        The level certified on each proven cell or piece.
    n : int
        The (t1, t2) square is split into ``n x n`` equal grid cells (some split further
        into pieces).
    status : dict
        ``{key: text}`` for every evidence key and every part of the square with no
        evidence (keys as :mod:`.evidence_keys`: ``(i, j)`` a whole cell, ``(i, j, path)``
        a piece): ``"proven"`` (re-checked: stable centre, whole axis covered), or why not
        (``"no evidence"``, ``"gaps: ..."``, ``"unstable centre"``).
    coverage : float
        Proven share of the square's area (``float(coverage_exact)``).
    sampled_worst : float
        Largest gain sampled on the parts not proven (NaN when all are proven).
    sampled_where : dict
        Its parameter values (physical units).
    points : int
        Frequencies re-checked in all.
    samples : int
        Loops sampled on the parts not proven.
    seconds : float
        Wall time of the replay, from the moment the channel's problem is built (building
        it, once per design and channel, is not counted).
    cpu : dict
        CPU time (this process and its worker processes) of the re-checks (``"replay"``)
        and of the sampling (``"sampling"``): what an otherwise idle core would take.
    unresolved : int
        Samples neither confirmed unstable nor given a finite gain (see
        :func:`sampled_gain`): they make no verdict.
    coverage_exact : Fraction or None
        The proven share as an exact fraction (None: not computed, ``coverage`` only).
    whole_cells, pieces : int
        Proven whole grid cells, and proven split pieces.
    finest : tuple of Fraction or None
        Sides (along t1, along t2; shares of the square's sides) of the smallest proven
        cell or piece.
    square_worst : float
        Largest gain sampled over the whole square (``sample_n x sample_n`` cell centres x
        nominal and the 32 physical vertices): a lower bound of the worst case, proven
        or not.  NaN when not sampled.
    square_where : dict
        Its parameter values (physical units).
    square_samples, square_unresolved : int
        Loops of that sampling, and how many were unresolved.
    """

    channel: str
    gamma: float
    n: int
    status: dict
    coverage: float
    sampled_worst: float
    sampled_where: dict = field(default_factory=dict)
    points: int = 0
    samples: int = 0
    seconds: float = 0.0
    cpu: dict = field(default_factory=dict)
    unresolved: int = 0
    coverage_exact: Fraction | None = None
    whole_cells: int = 0
    pieces: int = 0
    finest: tuple | None = None
    square_worst: float = np.nan
    square_where: dict = field(default_factory=dict)
    square_samples: int = 0
    square_unresolved: int = 0

    @property
    def proven(self):
        """The proven cells and pieces (their keys, sorted)."""
        return sorted(b for b, s in self.status.items() if s == "proven")

    @property
    def worst_sampled(self):
        """Largest gain of every loop sampled in the square (NaN when none): a lower bound."""
        got = [g for g in (self.sampled_worst, self.square_worst) if not np.isnan(g)]
        return max(got) if got else np.nan
