"""Real data give a real response at ``w = 0`` (``G(0) = D - C A^-1 B``, and in discrete
time ``G(1) = D + C (I - A)^-1 B``, both real): the complex Schur or modal arithmetic
used to leave imaginary parts of about ``1e-16`` there."""

import numpy as np

from robustmb.analysis.balanced_response import balanced_response_function
from robustmb.analysis.freqresp import freqresp, response_function

# the data of tests/analysis/test_mu_sweep_real_zero.py
A = np.array([[-2.084951321423146, -1.5828044642378765], [0.5251415978751188, -0.7100458044450795]])
B = np.array(
    [[0.8423760552565885, -0.8460837686653659], [-1.2355844544689116, -1.7763653849182433]]
)
C = np.array([[-0.3351965739266949, 0.7601562085524842], [-0.1494235252760479, 0.6411281903517326]])
D = np.array(
    [[-0.35431611408144453, -0.14073639956151435], [-0.22978100441440247, -0.37451334307070777]]
)


def test_continuous_response_at_zero_is_real():
    ref = D - C @ np.linalg.solve(A, B)
    for got in (
        balanced_response_function(A, B, C, D)(np.array([0.0]))[0],
        response_function((A, B, C, D))(np.array([0.0, 1.0]))[0],
        freqresp((A, B, C, D), [0.0])[0],
    ):
        assert np.all(got.imag == 0.0)
        assert np.allclose(got.real, ref, rtol=1e-13, atol=0)


def test_discrete_response_at_zero_is_real():
    Ad = 0.3 * A  # stable discrete model
    ref = D + C @ np.linalg.solve(np.eye(2) - Ad, B)
    got = balanced_response_function(Ad, B, C, D, dt=0.1)(np.array([0.0]))[0]
    assert np.all(got.imag == 0.0)
    assert np.allclose(got.real, ref, rtol=1e-13, atol=0)
    # elsewhere the response stays complex
    assert np.any(freqresp((Ad, B, C, D, 0.1), [1.0])[0].imag != 0.0)
