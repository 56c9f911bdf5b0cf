"""The fast mu upper bound on badly scaled matrices (entries over many decades).

References independent of the optimiser: ``mu`` is invariant under diagonal similarities
that commute with the structure, and a structured ``delta`` with an eigenvalue 1 of
``M delta`` proves ``mu >= 1 / max|delta_i|`` (checked here with numpy's eigvals).
"""

import numpy as np
import pytest

from robustmb.analysis.mussv import mussv

# M(j 1000) of MathWorks' two-mass example closed with C = 100 * ((s+1)/(0.001 s+1))^3
# (https://www.mathworks.com/help/robust/ref/dynamicsystem.wcgain.html), the performance
# row scaled by 1/1.06: three real parameters m1, m2, k and one complex performance block.
# Its entries span 1e-13 .. 3.6e10.
R_TWO_MASS = np.array(
    [
        [
            -0.20497707373000865 + 0.005271179029845335j,
            4976.868752934959 - 5271.173758666295j,
            -4977.07373000869 + 5271.1790298453225j,
            -24884318879.30606 + 26355842437.436188j,
        ],
        [
            2.0497727870728786e-07 - 5.271184301029368e-09j,
            -0.20497707373000884 + 0.0052711790298452035j,
            0.20497727870728755 - 0.005271184301029503j,
            24884.343763650355 - 26355.868793305373j,
        ],
        [
            2.0497727870728786e-07 - 5.271184301029368e-09j,
            -0.004977073730008892 + 0.0052711790298452035j,
            0.004977278707287597 - 0.005271184301029503j,
            24884.343763650355 - 26355.868793305373j,
        ],
        [
            -1.9337479123329054e-13 + 4.972815378329621e-15j,
            1.9337459785849898e-07 - 4.972810405514215e-09j,
            -1.933747912332902e-07 + 4.972815378329612e-09j,
            -0.023475796003443645 + 0.02486402716349553j,
        ],
    ]
)
BLK_TWO_MASS = [(-1, 0), (-1, 0), (-1, 0), (1, 1)]


def _proved_lower(M, blk, delta):
    """``1 / max|delta_i|`` when ``delta`` is in the structure and ``M delta`` has an
    eigenvalue 1 (numpy), else 0."""
    d = np.diag(delta)
    assert np.allclose(delta, np.diag(d))  # all blocks here are scalars
    for i, (r, _) in enumerate(blk):
        if r < 0:
            assert abs(d[i].imag) <= 1e-12 * abs(d[i])
    ev = np.linalg.eigvals(M @ delta)
    if np.min(np.abs(ev - 1.0)) > 1e-6:
        return 0.0
    return 1.0 / np.max(np.abs(d))


def test_fast_bound_meets_the_proved_lower_bound_on_the_two_mass_matrix():
    # Osborne balancing of the block norms, floored at 1e-24 of the largest squared norm,
    # stopped a factor 1e4 short of balance here, and the D,G optimisation stalled at
    # 1.3987, four times mu = 0.34999.
    res = mussv(R_TWO_MASS, BLK_TWO_MASS)
    proved = _proved_lower(R_TWO_MASS, BLK_TWO_MASS, res.delta)
    assert 0.349 < proved < 0.351
    assert res.upper >= proved * (1 - 1e-9)
    assert res.upper <= 1.01 * proved


def test_fast_bound_agrees_with_the_lmi_bound_on_the_two_mass_matrix():
    pytest.importorskip("cvxpy")
    fast = mussv(R_TWO_MASS, BLK_TWO_MASS, lower=False)
    lmi = mussv(R_TWO_MASS, BLK_TWO_MASS, method="lmi", lower=False)
    assert fast.upper <= 1.02 * lmi.upper


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fast_bound_is_invariant_under_a_wide_diagonal_similarity(seed):
    # mu(D M D^-1) = mu(M) for D commuting with the structure; the bound should not
    # depend on how the channels happen to be scaled, even over 17 decades.
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    blk = [(-1, 0), (-1, 0), (1, 0), (1, 1)]
    D = np.diag([1.0, 1e-6, 1e5, 1e11])
    Ms = D @ M @ np.linalg.inv(D)
    plain = mussv(M, blk)
    scaled = mussv(Ms, blk)
    # before: 29 to 1e4 for bounds of 3.1 to 3.7
    assert scaled.upper == pytest.approx(plain.upper, rel=1e-6)
    # both lower bounds are proved by their perturbations; mu lies above both
    best = max(_proved_lower(M, blk, plain.delta), _proved_lower(Ms, blk, scaled.delta))
    assert scaled.upper >= best * (1 - 1e-9)
