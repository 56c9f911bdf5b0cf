"""The on-orbit assembly study (seed 003): counts of the paper and physical invariants.

References: counts printed in the paper (digest 003 Sec. 4.1: 1624 models,
56 graphs, 8672 edges, 7 moves, 98 grid points); total mass 554.1 kg from the
Table 2/3 masses; the DC gain of the assembled TITOP model against an
independent rigid-body summation (numpy only, no TITOP algebra).
"""

import numpy as np
import pytest

from robustmb.errors import ResidualMassWarning
from robustmb.examples import assembly as a


def test_counts_match_the_paper():
    assert a.model_count() == 1624
    graphs = a.planning_graphs()
    assert len(graphs) == 56
    assert sum(g.number_of_edges() for _, _, g in graphs) == 8672
    assert all(g.number_of_nodes() == 2 * n + 1 for _, n, g in graphs)
    moves = len(a.example_path()) - 1
    assert moves == 7 and moves * 2 * a.Z_WAYPOINTS == 98


def dc_gain(sys):
    g = sys.nominal()
    return np.asarray(g.D - g.C @ np.linalg.solve(g.A, g.B))


@pytest.mark.parametrize(
    ("n", "tile", "carrying"), [(2, 1, False), (3, 2, True), (26, 25, False), (28, 13, False)]
)
def test_dc_gain_is_the_rigid_summation_and_total_mass_is_constant(n, tile, carrying):
    sys = a.spacecraft(n, tile, carrying=carrying)
    dc = dc_gain(sys)[:, :6]
    dtot = a.rigid_inertia_at_g(n, tile, carrying=carrying)
    np.testing.assert_allclose(dc, np.linalg.inv(dtot), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(
        np.linalg.inv(dc)[:3, :3], 554.1144 * np.eye(3), rtol=1e-10, atol=1e-5
    )
    # independent of the uncertain frequency too
    for w in (0.8, 1.2):
        g = sys.usubs({"w_sa1": 1.285 * 2 * np.pi * w})
        dcw = np.asarray(g.D - g.C @ np.linalg.solve(g.A, g.B))[:, :6]
        np.testing.assert_allclose(
            np.linalg.inv(dcw)[:3, :3], 554.1144 * np.eye(3), rtol=1e-9, atol=1e-5
        )


def test_inferred_layout_reproduces_the_printed_f26_inertia():
    # Table 2: J_P2 of F26 = [2251.79, 78.55, 0; 209.48, 0; 2461.24] (+int xy dm printed).
    m, jc, com = a.structure_rigid_data(26)
    r = com
    jp2 = jc + m * (r @ r * np.eye(3) - np.outer(r, r))
    np.testing.assert_allclose(m, 157.1, atol=0.01)
    np.testing.assert_allclose(
        jp2, [[2251.79, -78.55, 0], [-78.55, 209.48, 0], [0, 0, 2461.24]], atol=0.015
    )


def test_f1_modal_data_are_flagged():
    with pytest.warns(ResidualMassWarning, match="F_1 at C_1"):
        sys = a.spacecraft(1, 1)
    assert sys.nstates == 4 + 6


def test_solar_array_mode_is_uncertain_in_the_global_model():
    sys = a.spacecraft(5, 3)
    assert sys.blocks == {"w_sa1": 2}
    for d in (-1.0, 1.0):
        w = 1.285 * 2 * np.pi * (1 + 0.2 * d)
        g = sys.usubs({"w_sa1": w})
        am, bm, cm, dm = (np.asarray(x) for x in (g.A, g.B, g.C, g.D))
        # anti-resonance of the hub's inverse model at the clamped array mode:
        # W_G -> x''_G is singular at the clamped pole -xi w + j w sqrt(1 - xi^2)
        p = complex(-0.01 * w, w * np.sqrt(1 - 1e-4))
        gp = cm @ np.linalg.solve(p * np.eye(am.shape[0]) - am, bm[:, :6]) + dm[:, :6]
        sv = np.linalg.svd(gp, compute_uv=False)
        assert sv[-1] < 1e-9 * sv[0]
        # and the coupled (free-free) poles are elsewhere
        assert np.min(np.abs(np.linalg.eigvals(am) - p)) > 1e-3 * w


def test_closed_loops_are_stable_and_dijkstra_never_costs_more_than_bfs():
    graph = a.walk_graph(8)
    costs = {}
    for j in range(1, 9):
        c = a.hinf_cost(8, j)
        costs[(j, 1)] = costs[(j, 2)] = c
        assert np.isfinite(c) and c > 0
    for start, goal in [((1, 1), (8, 2)), ((2, 1), (7, 1)), ((3, 2), (6, 1))]:
        _, dc, bpath, bc = a.node_cost_paths(graph, costs, start, goal)
        assert dc <= bc + 1e-15
        # the brute-force minimum over simple paths of at most the BFS length + 2
        import networkx as nx

        best = min(
            sum(costs[u] + costs[v] for u, v in zip(p[:-1], p[1:], strict=True))
            for p in nx.all_simple_paths(graph, start, goal, cutoff=len(bpath) + 1)
        )
        assert dc <= best + 1e-15


def test_mu_bound_is_consistent_with_the_exact_single_parameter_margin():
    """Certified robstab margin (1 / mu upper bound) <= the margin of a direct delta sweep."""
    import robustmb as rmb

    cl = a.closed_loop(a.spacecraft(5, 3))
    w0 = 1.285 * 2 * np.pi

    def abscissa(d):
        g = cl.usubs({"w_sa1": w0 * (1 + 0.2 * d)})
        return np.max(np.linalg.eigvals(np.asarray(g.A)).real)

    # direct sweep on both sides, then bisection on the first crossing
    grid = np.linspace(0, 8, 161)[1:]
    exact = np.inf
    for sign in (-1.0, 1.0):
        bad = [d for d in grid if abscissa(sign * d) >= 0]
        if bad:
            lo, hi = bad[0] - grid[0], bad[0]
            for _ in range(50):
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if abscissa(sign * mid) >= 0 else (mid, hi)
            exact = min(exact, hi)
    # omega_1 -> 0 at delta = -1/r = -5: the paper's mu peak 0.2 (digest Sec. 6.2 item 11)
    assert abs(exact - 5.0) < 1e-6
    res = rmb.robstab(cl, sensitivity=False)
    assert res.certified
    assert res.lower <= exact + 1e-9  # certified lower bound (mu upper bound >= exact mu)
    assert res.upper >= exact - 1e-6


def _costs_of_f6_nodes():
    """The four costs (Eqs. 16, 17, 18, 20) of the six lumped-robot models of F6, each
    with an independent check: H-inf above the dense-grid sigma_max (numpy response
    and SVD), H2 equal to python-control's, the mu upper
    bound above the exact single-parameter peak."""
    import control

    import robustmb as rmb
    from robustmb.examples import assembly_edges as e

    w = np.logspace(-3, 3, 400)
    costs = {m: {} for m in ("hinf_W", "h2_W", "hinf_de", "mu_upper", "mu_exact")}
    loops = [a.closed_loop(a.spacecraft(6, j)) for j in range(1, 7)]
    upper, _ = e.mu_upper_peak(loops, [0.0, 0.01, 0.1, 1.0, 8.0])
    for j, cl in enumerate(loops, start=1):
        g = cl.nominal()
        hw = float(rmb.hinfnorm(g[0:3, 0:6])[0])
        hde = float(rmb.hinfnorm(g[6:9, 6:9])[0])
        h2 = float(rmb.h2norm(g[3:6, 0:6]))
        for sub, peak in ((g[0:3, 0:6], hw), (g[6:9, 6:9], hde)):
            am, bm, cm, dm = (np.asarray(x) for x in (sub.A, sub.B, sub.C, sub.D))
            eye = np.eye(am.shape[0])
            resp = np.array([cm @ np.linalg.solve(1j * x * eye - am, bm) + dm for x in w])
            assert np.linalg.svd(resp, compute_uv=False)[:, 0].max() <= peak * (1 + 1e-8)
        # python-control's own H2 norm (its Lyapunov/SLICOT route, not robustmb's)
        np.testing.assert_allclose(h2, control.norm(g[3:6, 0:6], p=2), rtol=1e-6)
        exact = e.real_mu_peak(cl)[0]
        assert upper[j - 1] >= exact - 1e-9
        for node in ((j, 1), (j, 2)):
            costs["hinf_W"][node], costs["h2_W"][node], costs["hinf_de"][node] = hw, h2, hde
            costs["mu_upper"][node], costs["mu_exact"][node] = float(upper[j - 1]), exact
    return costs


@pytest.mark.slow
def test_dijkstra_never_costs_more_than_bfs_on_every_metric():
    """Eqs. 16, 17, 18 and 20 (upper bound and exact): Dijkstra <= BFS, and no simple path
    up to two moves longer than the BFS path is cheaper than Dijkstra's."""
    import networkx as nx

    graph = a.walk_graph(6)
    for metric, node_cost in _costs_of_f6_nodes().items():
        for start, goal in [((1, 1), (6, 2)), ((2, 1), (5, 2)), ((6, 2), (1, 1))]:
            dpath, dc, bpath, bc = a.node_cost_paths(graph, node_cost, start, goal)
            assert dc <= bc * (1 + 1e-14), metric
            best = min(
                sum(node_cost[u] + node_cost[v] for u, v in zip(p[:-1], p[1:], strict=True))
                for p in nx.all_simple_paths(graph, start, goal, cutoff=len(bpath) + 1)
            )
            assert dc <= best * (1 + 1e-14), metric
