"""Largest singular values of the few response matrices of a direct evaluation (used by
:mod:`~robustmb.analysis.norms`)."""

from __future__ import annotations

import numpy as np

from robustmb.analysis.freqresp import largest_singular_values


def _largest_singular_values_small(response):
    """:func:`.freqresp.largest_singular_values` for the few finite matrices of a direct
    evaluation: LAPACK's SVD (relative accuracy ``eps`` for the largest singular value) has
    less overhead there than the Gram-matrix route; other stacks go to the general one."""
    if response.size and np.isfinite(response).all():
        try:
            return np.linalg.svd(response, compute_uv=False)[:, 0]
        except np.linalg.LinAlgError:
            pass
    return largest_singular_values(response)
