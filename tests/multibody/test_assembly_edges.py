"""Posed edges of the assembly study (walk, pick-up, assembly) and the mu cost (Eq. 20).

The exact mu peak (Kronecker-sum pencil) is checked against a direct sweep of the real
parameter with bisection on the closed-loop eigenvalues (physical values substituted,
no LFT coefficient shared), on a textbook loop whose crossing is at a non-zero
frequency and on the study's loops; the grid upper bound against the exact real mu
``max |real eig M(j w)|`` at every grid point.
"""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, ResidualMassWarning
from robustmb.examples import assembly as a
from robustmb.examples import assembly_edges as e


def sweep_margin(cl, name, nominal, half, top=8.0):
    """Smallest |delta| at which the loop's eigenvalues reach the axis (brute force)."""

    def abscissa(d):
        g = cl.usubs({name: nominal + half * d})
        return np.max(np.linalg.eigvals(np.asarray(g.A)).real)

    grid = np.linspace(0, top, 321)[1:]
    best = np.inf
    for sign in (-1.0, 1.0):
        bad = [d for d in grid if abscissa(sign * d) >= 0]
        if bad:
            lo, hi = bad[0] - grid[0], bad[0]
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if abscissa(sign * mid) >= 0 else (mid, hi)
            best = min(best, hi)
    return best


def test_exact_peak_at_a_nonzero_frequency_matches_routh():
    # s^3 + s^2 + 2 s + k: stable for 0 < k < 2, poles +-j sqrt(2) at k = 2 (Routh)
    k = rmb.ureal("k", 1.5, range=(1.25, 1.75))
    s = control.tf("s")
    loop = 1 / (s**3 + s**2 + 2 * s + k)
    peak, delta = e.real_mu_peak(loop)
    assert delta == pytest.approx(2.0, rel=1e-9)  # k = 1.5 + 0.25 * 2 = 2
    assert peak == pytest.approx(0.5, rel=1e-9)
    assert 1 / peak == pytest.approx(sweep_margin(loop, "k", 1.5, 0.25), abs=1e-9)


@pytest.fixture(scope="module")
def walk_loops():
    poses = e.edge_poses(27, (2, 1), (1, 2), carrying=True, z=3)
    return poses, [e.pose_closed_loop(p) for p in poses]


def test_exact_peak_of_the_study_matches_a_delta_sweep(walk_loops):
    w0 = a.SOLAR_ARRAY["frequencies_hz"][0] * a.HZ
    _, loops = walk_loops
    for cl in (loops[2], a.closed_loop(a.spacecraft(5, 3))):
        peak, delta = e.real_mu_peak(cl)
        margin = sweep_margin(cl, "w_sa1", w0, 0.2 * w0)
        assert 1 / peak == pytest.approx(margin, abs=1e-8)
        # omega_1 -> 0 at delta = -1/r: the structural peak r = 0.2 (digest Sec. 6.2 #11)
        assert delta == pytest.approx(-5.0, abs=1e-8)


def test_grid_upper_bound_is_above_the_exact_real_mu_at_every_point(walk_loops):
    loops = walk_loops[1][1:3]
    w = np.r_[0.0, np.logspace(-3, 1.5, 6)]
    from robustmb.analysis.model_family import freqresp_stack

    stack = tuple(np.array(x) for x in zip(*(e._omega_channel(c) for c in loops), strict=True))
    R = freqresp_stack(stack, w)
    ev = np.linalg.eigvals(R)
    real = np.abs(ev.imag) <= 1e-9 * (1 + np.abs(ev))
    exact = np.max(np.where(real, np.abs(ev.real), 0.0), axis=-1)  # (models, frequencies)
    from robustmb.analysis.mussv import mussv_stack

    upper = mussv_stack(R.reshape(-1, 2, 2), [(-2, 0)], lower=False).upper.reshape(exact.shape)
    assert np.all(upper >= exact * (1 - 1e-9))
    assert np.allclose(exact[:, 0], 0.2, rtol=1e-9)  # mu(M(0)) = r
    peak, where = e.mu_upper_peak(loops, w)
    # mu_peak_stack stops optimising points below its level: its peak is a certified
    # bound too, above the exact real mu of every grid point (here 0.2, at w = 0)
    assert np.all(peak >= exact.max(axis=1) * (1 - 1e-9))
    assert np.all(where[np.isclose(peak, 0.2, rtol=1e-12)] == 0.0)


def test_edge_cost_is_the_sum_over_the_frozen_loops(walk_loops):
    poses, loops = walk_loops
    total = sum(e.real_mu_peak(cl)[0] for cl in loops)
    assert e.edge_mu_cost(27, (2, 1), (1, 2), carrying=True, z=3) == pytest.approx(total)
    assert total == pytest.approx(6 * 0.2, rel=1e-9)


def _total_mass(p):
    return a.rigid_inertia_at_g(
        p["n"], p["tile"], carrying=p["carrying"], angles=p["angles"], leg=p["leg"]
    )[0, 0]


@pytest.mark.parametrize(
    ("n", "u", "v"),
    [(27, (1, 1), 0), (27, (2, 2), 0), (27, (24, 1), "*"), (5, (5, 2), "*"), (4, (2, 1), (1, 2))],
)
def test_pick_up_and_assembly_edges_are_posed(n, u, v):
    poses = e.edge_poses(n, u, v, z=4)
    assert len(poses) == 8
    zero = np.zeros((3, 5))
    assert np.array_equal(poses[0]["angles"], zero) and np.array_equal(poses[-1]["angles"], zero)
    aligned = poses[3]["angles"]
    assert np.array_equal(poses[4]["angles"], aligned)  # the switch happens at the aligned pose
    offs = a.tile_offsets()
    start = offs[u[0] - 1]
    if v == 0:
        target, moving = e.STACK_CELL, 3
        assert [p["carrying"] for p in poses] == [False] * 4 + [True] * 4
    elif v == "*":
        target, moving = offs[n], 3
        assert [(p["n"], p["carrying"]) for p in poses] == [(n, True)] * 4 + [(n + 1, False)] * 4
    else:
        target, moving = offs[v[0] - 1], v[1]
    r, p = a.robot_pose(aligned, leg=u[1])["effectors"][moving - 1]
    np.testing.assert_allclose(p, target - start, atol=1e-9)
    np.testing.assert_allclose(r, np.eye(3), atol=1e-9)
    # the spacecraft's total mass does not change along the edge (tile moved, not made)
    masses = [_total_mass(q) for q in poses]
    np.testing.assert_allclose(masses, masses[0], rtol=1e-13)


def test_stack_cell_borders_tiles_1_and_2_only():
    offs = a.tile_offsets()
    cheb = np.max(np.abs(offs[:, :2] - e.STACK_CELL[:2]), axis=1)
    assert sorted(np.flatnonzero(cheb == 1) + 1) == [1, 2]
    assert e.STACK_CELL[2] == 0.0


def test_bad_edges_are_named():
    with pytest.raises(ArgumentError, match="not a walk"):
        e.edge_poses(5, (1, 1), (2, 1))  # the docked leg must alternate
    with pytest.raises(ArgumentError, match="not one of the 8 neighbours"):
        e.edge_poses(5, (3, 2), "*")  # tile 3 does not border the slot of tile 6
    with pytest.raises(ArgumentError, match="no next tile"):
        e.edge_poses(28, (1, 1), "*")
    with pytest.raises(ArgumentError, match="single real parameter"):
        e.real_mu_peak(rmb.ureal("a", 1.0) * rmb.ureal("b", 2.0) * control.tf(1, [1, 1]))


def test_posed_loops_build_without_warnings_escaping():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResidualMassWarning)
        cl = e.pose_closed_loop(e.edge_poses(1, (1, 1), 0, z=2)[0])
    assert cl.blocks == {"w_sa1": 2}
