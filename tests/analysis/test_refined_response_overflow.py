"""refined_response on a realisation whose solution nears the overflow threshold (a pole
at -1e-300): the values stay right and no numpy RuntimeWarning is emitted (the splitting
of the double-double products overflowed: "invalid value in divide" and the like)."""

import warnings

import numpy as np

from robustmb.analysis.refined_response import refined_response


def test_pole_at_minus_1e_300_is_quiet_and_keeps_the_values():
    A = np.array([[-1e-300, 0.0], [0.0, -1.0]])
    B, C, D = np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1))
    points = np.array([0j, 1j])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        G, _ = refined_response(A, B, C, D, points)
    # closed form: 1 / (s + 1e-300) + 1 / (s + 1)
    exact = [1e300 + 1.0, 1 / (1j + 1e-300) + 1 / (1j + 1)]
    assert np.allclose(G[:, 0, 0], exact, rtol=1e-14, atol=0)
