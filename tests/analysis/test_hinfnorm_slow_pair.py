"""hinfnorm on 2-state models with one slow, very lightly damped pole pair.

Each model has a nearly nilpotent ``A`` (``||A||`` of order 10 to 1e5, poles
``-1e-9 .. -1e-7 +- j 5e-4 .. 6.6e-3``): the level-set test's eigenvalues carry rounding
far beyond the resonance width, and the test on ``G(1/s)`` locates its crossings only to
within many damping widths.  Evaluating the response at those crossings used to "prove" a
level up to ``5.7e-7`` below the true peak.  The certified upper end must be at least the
response at the peak evaluated in 80-digit arithmetic (mpmath), or ``inf`` with a warning;
the value returned must be attained (checked against mpmath at the returned frequency).
"""

import warnings

import mpmath
import numpy as np
import pytest

from robustmb.analysis.norms import _hinfnorm_bracket, hinfnorm

# (A, B, C, D, a frequency within a hundredth of a damping width of the peak)
MODELS = {
    "P1": (
        [[2.5085575716099338, 0.9479168001890756], [-6.6386220394882285, -2.508557578616903]],
        [[-0.7094037478637614], [-1.1437643346652493]],
        [[-1.7100458066200233, 0.698761531933239]],
        [[-0.6493705258634289]],
        5.036640182607598e-4,
    ),
    "P2": (
        [[52.729374121368096, -2651.8086524904397], [1.048487018001525, -52.72937427602267]],
        [[-1.1708180763562224], [-1.3582403949601034]],
        [[-1.3065640246645707, -0.7176152818724516]],
        [[1.1856213579293313]],
        6.555478736067955e-3,
    ),
    "P3": (
        [
            [-22.012351823399133, 133872.4724015178],
            [-0.0036194421405141845, 22.012351820141934],
        ],
        [[1.0607978400658138], [0.7076390208060754]],
        [[0.687749388505445, -0.8635674537523599]],
        [[0.9640167316735617]],
        5.944701097982689e-3,
    ),
}


def _gain_mp(A, B, C, D, w):
    """``|G(j w)|`` of the SISO model in 80-digit arithmetic."""
    with mpmath.workdps(80):
        s = mpmath.mpc(0, w)
        shifted = s * mpmath.eye(2) - mpmath.matrix(A)
        x = mpmath.lu_solve(shifted, mpmath.matrix(B))
        value = (mpmath.matrix(C) * x)[0] + mpmath.mpf(D[0][0])
        return float(abs(value))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_upper_end_covers_the_peak(name):
    A, B, C, D, w_peak = MODELS[name]
    data = tuple(np.array(M) for M in (A, B, C, D))
    reference = _gain_mp(A, B, C, D, w_peak)  # a value the norm is at least
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gamma, fpeak, upper = _hinfnorm_bracket(data, 1e-8)
    assert np.isfinite(gamma)
    assert upper >= reference, (upper, reference)
    if np.isinf(upper):
        assert any(issubclass(c.category, RuntimeWarning) for c in caught)
    # the value returned is attained at the frequency returned
    attained = _gain_mp(A, B, C, D, fpeak)
    assert abs(gamma - attained) <= 1e-12 * attained
    assert gamma <= reference * (1.0 + 1e-12)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_public_norm_is_within_tol_of_the_peak_or_warns(name):
    A, B, C, D, w_peak = MODELS[name]
    data = tuple(np.array(M) for M in (A, B, C, D))
    reference = _gain_mp(A, B, C, D, w_peak)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gamma, _ = hinfnorm(data, tol=1e-8)
    warned = any(issubclass(c.category, RuntimeWarning) for c in caught)
    assert warned or gamma >= reference * (1.0 - 1e-8)
