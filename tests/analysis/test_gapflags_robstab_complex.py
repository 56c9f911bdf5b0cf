"""robstab on a model with complex coefficients and real parameters: the direct search
and the branch and bound run as for real models, closing the gap to gap_tol."""

import numpy as np

import robustmb as rmb


def _unstable_at(k, n=401):
    """Some (a, b) of the box scaled by k about (1, 1) leaves a pole in Re s >= 0."""
    g = np.linspace(-1.0, 1.0, n)
    a, b = np.meshgrid(1.0 + k * g, 1.0 + k * g)
    A = np.zeros(a.shape + (2, 2), complex)
    A[..., 0, 0], A[..., 1, 1] = -1 + 2j, -1 - 1j
    A[..., 0, 1], A[..., 1, 0] = a, -b
    return bool(np.max(np.linalg.eigvals(A).real) >= 0)


def _brute_force_margin():
    """Smallest scaling (to bisection accuracy) at which a grid point is unstable: the
    margin is at most this, and equals it up to the grid's resolution."""
    lo, hi = 1.0, 4.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if _unstable_at(mid) else (mid, hi)
    return hi


def test_complex_coefficients_real_parameters_gap_closed():
    a = rmb.ureal("a", 1.0, range=(0.0, 2.0))
    b = rmb.ureal("b", 1.0, range=(0.0, 2.0))
    G = rmb.uss([[-1 + 2j, a], [-b, -1 - 1j]], [[1.0], [0.0]], [[1.0, 0.0]], [[0.0]])
    res = rmb.robstab(G)
    exact = _brute_force_margin()  # 2.06155...
    assert res.certified
    assert res.lower <= exact * (1 + 1e-9)
    assert res.upper >= exact * (1 - 1e-3)
    # the gap is closed to gap_tol (it was 3 %: lower 1.998 from the single-box sweep)
    assert res.upper <= res.lower * (1 + 5e-3) * (1 + 1e-9)
    # the destabilising values put a pole on the imaginary axis (numpy eigenvalues)
    v = res.destabilizing
    A = np.array([[-1 + 2j, v["a"]], [-v["b"], -1 - 1j]])
    assert np.max(np.linalg.eigvals(A).real) >= -1e-8


def test_open_gap_is_flagged():
    a = rmb.ureal("a", 1.0, range=(0.0, 2.0))
    b = rmb.ureal("b", 1.0, range=(0.0, 2.0))
    G = rmb.uss([[-1 + 2j, a], [-b, -1 - 1j]], [[1.0], [0.0]], [[1.0, 0.0]], [[0.0]])
    closed = rmb.robstab(G)
    assert "gap is open" not in closed.reason
    # no box certificates: the single-box sweep's bound leaves the gap open, and says so
    res = rmb.robstab(G, max_boxes=0)
    assert res.upper > res.lower * 1.005
    assert "the gap is open" in res.reason
    assert "above gap_tol = 0.5 %" in res.reason
