"""Boundary crossings along a direction against a brute-force scan of closed-loop poles.

The reference shares no code with :mod:`robustmb.analysis.boundary_crossing`: it closes
the loop ``A + Bw D (I - Dzw D)^-1 Cz`` with ``D = alpha diag(d)`` on a fine grid of
``alpha`` and bisects the first step whose loop is unstable.
"""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.boundary_crossing import BoundaryCrossings, boundary_grid, crossing_search
from robustmb.analysis.robust_stability import robstab
from robustmb.analysis.uncertain_problem import uncertain_problem


def _loop_poles(a, bw, cz, dzw, diag):
    loop = np.eye(dzw.shape[0]) - dzw * diag[None, :]
    return np.linalg.eigvals(a + bw @ (diag[:, None] * np.linalg.solve(loop, cz)))


def _unstable(poles, dt):
    return bool(np.max(np.abs(poles)) >= 1.0) if dt else bool(np.max(poles.real) >= 0.0)


def _first_unstable(data, d, alpha_max, dt, steps=600):
    """Smallest alpha on a fine grid (then bisected) whose loop is unstable; None if none."""
    prev = 0.0
    for alpha in alpha_max * np.arange(1, steps + 1) / steps:
        if _unstable(_loop_poles(*data, alpha * d), dt):
            lo, hi = prev, alpha
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if _unstable(_loop_poles(*data, mid * d), dt) else (mid, hi)
            return hi
        prev = alpha
    return None


def _random_loop(rng, n, m, dt=0.0, complex_data=False):
    """A stable (discrete: Schur-stable) random model with lightly damped modes."""
    a = rng.standard_normal((n, n))
    if complex_data:
        a = a + 1j * rng.standard_normal((n, n))
    ev = np.linalg.eigvals(a)
    if dt:
        a = 0.95 * a / np.max(np.abs(ev))
    else:
        a = a - (np.max(ev.real) + 0.05) * np.eye(n)
    bw = rng.standard_normal((n, m))
    cz = rng.standard_normal((m, n))
    dzw = 0.1 * rng.standard_normal((m, m))
    return a, bw, cz, dzw


@pytest.mark.parametrize(
    ("dt", "complex_data"), [(0.0, False), (0.1, False), (0.0, True), (0.1, True)]
)
def test_first_crossing_matches_a_scan_of_closed_loop_poles(dt, complex_data):
    rng = np.random.default_rng(7)
    checked = 0
    for trial in range(6):
        data = _random_loop(rng, 10, 3, dt, complex_data)
        bc = BoundaryCrossings(*data, dt, [0, 1, 2], complex_data)
        for _ in range(4):
            d = rng.uniform(-1, 1, 3)
            d /= np.max(np.abs(d))
            ours = bc.scale(d, 20.0)
            ref = _first_unstable(data, d, 20.0, dt)
            if ref is None:
                assert ours is None, (trial, d, ours)
                continue
            checked += 1
            assert ours is not None, (trial, d, ref)
            # the same crossing, to the scan's bisection accuracy
            assert abs(ours - ref) <= 1e-7 * ref, (trial, d, ours, ref)
    assert checked >= 10


def test_crossing_is_a_pole_on_the_boundary():
    rng = np.random.default_rng(3)
    data = _random_loop(rng, 14, 4)
    bc = BoundaryCrossings(*data, 0.0, range(4))
    d = np.array([1.0, -0.5, 0.3, 0.8])
    alpha = bc.scale(d, 50.0)
    assert alpha is not None
    poles = _loop_poles(*data, alpha * d)
    assert np.min(np.abs(poles.real)) <= 1e-8 * np.max(np.abs(poles))
    # just inside the crossing the loop is stable
    assert not _unstable(_loop_poles(*data, alpha * (1 - 1e-6) * d), 0.0)


def test_pole_through_the_origin_and_from_infinity():
    # s^2 + s + 1 - delta: a pole reaches s = 0 at delta = 1
    a, b = np.array([[0.0, 1.0], [-1.0, -1.0]]), np.array([[0.0], [1.0]])
    c = np.array([[1.0, 0.0]])
    bc = BoundaryCrossings(a, b, c, np.zeros((1, 1)), 0.0, [0])
    assert bc.scale(np.array([1.0]), 10.0) == pytest.approx(1.0, rel=1e-12)
    assert bc.scale(np.array([-1.0]), 10.0) is None
    assert bc.scale(np.array([1.0]), 0.5) is None
    # D11 = 0.5: the loop is ill-posed (a pole at infinity) at alpha = 2
    bc = BoundaryCrossings(-np.eye(1), np.zeros((1, 1)), np.zeros((1, 1)), 0.5 * np.eye(1), 0, [0])
    assert bc.scale(np.array([1.0]), 10.0) == pytest.approx(2.0, rel=1e-12)


def test_grid_resolves_every_pole():
    poles = np.array([-1e-4 + 3.0j, -1e-4 - 3.0j, -50.0])
    grid = boundary_grid(poles, 0.0, False)
    near = grid[np.abs(grid - 3.0) < 1e-3]
    assert near.size >= 10
    assert grid[0] == 0.0 and np.all(np.diff(grid) > 0)


@pytest.mark.slow
def test_robstab_of_a_large_modal_loop_matches_the_eigenvalue_scan(monkeypatch):
    """Above the size threshold robstab's direct search uses the boundary crossings."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_robstab_scaling import modal_loop

    loop = modal_loop(40)
    problem = uncertain_problem(loop)
    assert crossing_search(problem) is not None
    fast = robstab(loop, sensitivity=False)
    from robustmb.analysis import boundary_crossing

    monkeypatch.setattr(boundary_crossing, "_MIN_STATES", 10**9)
    slow = robstab(loop, sensitivity=False)
    assert fast.upper <= slow.upper * (1 + 1e-9)
    assert fast.lower <= fast.upper
    values = fast.destabilizing
    poles = np.linalg.eigvals(np.asarray(loop.usubs(values).A))
    assert np.max(poles.real) >= -1e-9 * np.max(np.abs(poles))


def test_search_is_built_once_and_only_for_large_models():
    k = rmb.ureal("k", 1.0, percent=20)
    small = uncertain_problem(rmb.feedback(rmb.uss(-np.eye(1), 1.0, 1.0, 0.0) * k, 1.0))
    assert crossing_search(small) is None
