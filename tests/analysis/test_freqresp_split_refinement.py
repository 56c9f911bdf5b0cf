"""freqresp on the Schur path split into slow and fast clusters: the realisation's
conditioning is refined away, or a ``RuntimeWarning`` says where it is not.

Models (``tests/data/freqresp_split_schur_survey_{126,4}.npz``): seeds 126 and 4 of a
randomised accuracy survey (a block-diagonal model of resonances, Jordan blocks and real
poles, under a random similarity of condition number up to ``1e10``); the stored
``omega`` are the survey's frequencies (poles' imaginary parts, near them, 0, random).
Reference: 60-digit mpmath solves of ``C (jw I - A)^-1 B + D``.  Before, seed 126 was 12x
off at its resonance and seed 4 9 % off at ``w = 0``, without a warning.
"""

import warnings
from pathlib import Path

import mpmath
import numpy as np
import pytest

from robustmb.analysis.freqresp import ResponseEvaluator, freqresp

DATA = Path(__file__).resolve().parents[1] / "data"


def _exact(A, B, C, D, w):
    with mpmath.workdps(60):
        n = A.shape[0]
        pencil = mpmath.mpc(0, w) * mpmath.eye(n) - mpmath.matrix(A.tolist())
        G = mpmath.matrix(C.tolist()) * (mpmath.inverse(pencil) * mpmath.matrix(B.tolist()))
        return np.array(
            [[complex(G[i, j]) + D[i, j] for j in range(B.shape[1])] for i in range(C.shape[0])]
        )


@pytest.mark.parametrize(("seed", "accurate_from"), [(126, 1.0), (4, 20.0)])
def test_split_schur_points_are_accurate_or_warned(seed, accurate_from):
    z = np.load(DATA / f"freqresp_split_schur_survey_{seed}.npz")
    A, B, C, D, omega = z["A"], z["B"], z["C"], z["D"], z["omega"]
    evaluator = ResponseEvaluator(A, B, C, D)
    assert evaluator.method == "schur" and evaluator._parts is not None  # the split path
    for w in omega:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = freqresp((A, B, C, D), [w])[0]
        exact = _exact(A, B, C, D, w)
        rel = np.abs(got - exact).max() / np.abs(exact).max()
        warned = any("refinement" in str(c.message) for c in caught)
        assert rel <= 1e-9 or warned, (w, rel)
        # off the poles' neighbourhoods refinement converges: accurate, no warning
        if accurate_from <= w <= 1e3:
            assert rel <= 1e-12 and not warned, (w, rel)
