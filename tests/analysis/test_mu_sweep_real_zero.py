"""mu sweep with real parameters: the zero-frequency response is real.

Reference: ``M(0) = D - C A^-1 B`` of real data is real, and for non-repeated real
scalars on a real matrix ``mu`` is the largest positive real eigenvalue of
``M diag(v)`` over the vertices ``v`` of the box (numpy, all ``2^n``).
"""

import importlib

import numpy as np
import pytest
from _real_mu_vertices import vertex_mu

from robustmb.errors import ArgumentError, IllPosedError

mu_sweep = importlib.import_module("robustmb.analysis.mu_sweep")


def test_peak_at_zero_frequency_lower_bound():
    # the response evaluated at w = 0 carried 1e-16 imaginary parts, and the real-mu
    # lower bound there was 1.26 where mu(M(0)) = 2.895 (the peak)
    a = np.array(
        [[-2.084951321423146, -1.5828044642378765], [0.5251415978751188, -0.7100458044450795]]
    )
    b = np.array(
        [[0.8423760552565885, -0.8460837686653659], [-1.2355844544689116, -1.7763653849182433]]
    )
    c = np.array(
        [[-0.3351965739266949, 0.7601562085524842], [-0.1494235252760479, 0.6411281903517326]]
    )
    d = np.array(
        [[-0.35431611408144453, -0.14073639956151435], [-0.22978100441440247, -0.37451334307070777]]
    )
    M0 = d - c @ np.linalg.solve(a, b)
    ref = vertex_mu(M0)
    assert 2.89 < ref < 2.9
    p = mu_sweep.certified_mu_peak((a, b, c, d), [(-1, 0), (-1, 0)])
    assert p.covered
    assert p.upper >= ref * (1 - 1e-12)
    assert p.lower >= ref * (1 - 1e-9)
    assert p.lower <= p.upper
    if p.lower_frequency == 0.0:
        dl = p.lower_delta
        assert np.linalg.svd(np.eye(2) - M0 @ dl, compute_uv=False)[-1] < 1e-8


@pytest.mark.parametrize(
    ("data", "dt", "error", "name"),
    [
        ("nan", 0.0, IllPosedError, "sysdata A"),
        ("ok", -1.0, ArgumentError, "dt"),
        ("ok", np.nan, ArgumentError, "dt"),
    ],
)
def test_certified_mu_peak_refuses_bad_data(data, dt, error, name):
    # a NaN in A gave scipy's ValueError, a negative dt numpy's LinAlgError
    a = np.array([[np.nan, 0.0], [0.0, -1.0]]) if data == "nan" else -np.eye(2)
    with pytest.raises(error, match=name):
        mu_sweep.certified_mu_peak(
            (a, np.eye(2), np.eye(2), np.zeros((2, 2))), [(1, 0), (1, 0)], dt
        )
