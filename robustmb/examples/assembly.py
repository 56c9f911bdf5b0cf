"""On-orbit assembly of a flexible structure by a walking robot (seed 003, Rodrigues et al.).

Available as ``robustmb.examples.assembly``.  Data of Tables 2 and 3 (digest
003, Sec. 5); the spacecraft is assembled from TITOP blocks (Fig. 6): the
rigid hub as a 3-port inverse model (Eq. 9), the flexible solar array as a
one-port (its first frequency a ``ureal`` of +-20 %, ``delta I2``), the rigid
tile stack (Eq. 13), the growing structure ``F_n`` as a two-port clamped at P2
and loaded at the docking port ``C_j``, and the robot.

What the paper's data do not give, and what is assumed here (so the paper's
percentages are not reproducible, digest Sec. 7):

- The FE modal data of ``F_n`` exist only for ``F_1`` (port ``C_1``) and
  ``F_26`` (port ``C_25``); every other ``(n, j)`` uses the rigid structure
  (mass and inertia of the tile plates of the inferred 4 x 7 layout).  The
  ``F_1`` data give an indefinite residual mass, which is warned about.
- The arm geometry (link vectors, joint axes) is only in a figure, so the robot
  is one rigid body at the docking port: its 130 kg (+ the carried tile) with
  the centre of mass 0.5 m off the structure and the inertia of a uniform sphere
  of radius 0.5 m (``ROBOT_LUMPED``).  With it the docked leg (R1 or R2) does
  not change the model.
- Graph rules, layout and assembly order are the inferred ones of digest Sec. 4.1,
  which reproduce the paper's counts (1624 models, 56 graphs, 8672 edges,
  7 moves on the F27 example path, 98 grid points).

Examples
--------
>>> from robustmb.examples import assembly
>>> assembly.model_count(), assembly.edge_count()
(1624, 8672)
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from ..errors import ArgumentError, ResidualMassWarning
from ..lft import connect, ureal
from ..lft.model import UncertainSystem
from ..multibody import FlexibleBody, frame_change_block, rigid_nport

HZ = 2.0 * np.pi
N_TILES = 28
ACC = ("ax", "ay", "az", "alphax", "alphay", "alphaz")
WR = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")

#: Table 2, rigid hub B (frame R_b at its CoM G).  The product of inertia sign
#: cannot be resolved from the paper (digest Sec. 7 item 4); ``+3.84`` is kept as printed.
HUB = {
    "mass": 166.0,
    "inertia": np.array([[21.6256, 3.84, 0.0], [3.84, 15.6256, 0.0], [0.0, 0.0, 30.6738]]),
    "ports": {"P1": [0.0, -0.5, 0.0], "P2": [-0.5, 0.5, 0.7125], "P3": [0.5, 0.0, 0.7125]},
}
#: Table 2, solar array A (frame R_a, origin P1); P_{a/b} = diag(-1, -1, 1).
SOLAR_ARRAY = {
    "mass": 88.93,
    "inertia": np.array([[33.0918, 0, 0], [0, 7.3819, -0.0002], [0, -0.0002, 40.4578]]),
    "com": np.array([0.0, 1.0934, 0.0014]),
    "frequencies_hz": (1.2850, 6.5896),
    "damping": 0.01,
    "participation": np.array(
        [
            [-0.0007, -0.0078, 7.8872, 11.7690, 0.0005, 0.0010],
            [-7.9401, 0, 0.0007, -0.0008, 0.1089, 12.1014],
        ]
    ),
    "dcm": np.diag([-1.0, -1.0, 1.0]),
}
#: Table 3, modular tile: mass and inertia about its centre.
TILE = {"mass": 6.0423, "inertia": np.diag([0.5041, 0.5041, 1.0071])}
#: Table 2, flexible structure data that exist: F1 at C1 and F26 at C25.
STRUCTURE_MODES = {
    (1, 1): {
        "frequencies_hz": (30.7169, 35.1732, 50.2930),
        "participation": np.array(
            [
                [-0.2004, 0.2004, 0, 0, 0, 0.6902],
                [0, 0, -0.3290, -0.5375, 0.5375, 0],
                [0, 0, 0, 0.9139, 0.9139, 0],
            ]
        ),
        "mode_shapes": np.array(
            [
                [-1.2677, 0, 0],
                [1.2677, 0, 0],
                [0, -2.0936, 0],
                [0, -1.3080, 0.5019],
                [0, -0.7856, 0.5019],
                [0.6827, 0, 0],
            ]
        ),
    },
    (26, 25): {
        "frequencies_hz": (0.9120, 2.1, 2.99),
        "participation": np.array(
            [
                [0, 0, -0.1427, -0.0276, 0.0039, 0],
                [0.1289, 0.0112, 0, 0, 0, -0.0203],
                [0, 0, 0.1352, 0.0262, 0.0680, 0],
            ]
        ),
        "mode_shapes": np.array(
            [
                [0, 9.9969, 0],
                [0, -2.7773, 0],
                [-10.3108, 0, -2.9745],
                [-47.2211, 0, 0.0796],
                [-1.0374, 0, 12.7970],
                [0, -48.1478, 0],
            ]
        ),
    },
}
STRUCTURE_DAMPING = 0.005
#: Stack CoM from P3 (frame R_s = R_b).
STACK_COM = np.array([0.5, 0.0, 0.0])
#: Robot mass from Table 3 (hub 10 kg + 3 arms of 40 kg); the rest is an assumption.
ROBOT_LUMPED = {"mass": 130.0, "com_offset": np.array([0.0, 0.0, 0.5]), "radius": 0.5}
#: Attitude PD of Eq. 15: omega_att = 0.01 Hz (in rad/s here), xi_att = 1.
OMEGA_ATT, XI_ATT = 0.01 * HZ, 1.0
#: Trajectory waypoints per edge trajectory (two trajectories per edge).
Z_WAYPOINTS = 7


# ----------------------------------------------------------------- layout and counts
def tile_offsets(n_tiles=N_TILES):
    """Tile centres from P2 (structure frame = hub frame), in assembly order (inferred)."""
    order = [(x, r + 0.5) for r in range(7) for x in (0.5, 1.5, -0.5, -1.5)]
    return np.array([[x, y, 0.0] for x, y in order[:n_tiles]])


def _adjacent(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def model_count(n_tiles=N_TILES):
    """``2 N (N + 1)``: one model per (structure n, docking tile j, docked leg, carrying)."""
    return sum(4 * n for n in range(1, n_tiles + 1))


def planning_graphs(n_tiles=N_TILES):
    """The pick-up and assembly digraphs of every structure ``F_n`` (networkx).

    Nodes ``(j, leg)`` (tile ``j`` 1-based, leg 1 or 2) and ``0`` (the stack,
    pick-up graphs) or ``"*"`` (the next tile's slot, assembly graphs).

    Returns
    -------
    list of (kind, n, networkx.DiGraph)
    """
    import networkx as nx

    pos = [tuple(p[:2]) for p in tile_offsets(n_tiles)]
    stack_neighbours = {0, 1}  # tiles 1 and 2 border the stack (inferred)
    graphs = []
    for n in range(1, n_tiles + 1):
        walk = nx.DiGraph()
        for j in range(n):
            for leg in (1, 2):
                walk.add_node((j + 1, leg))
        for j, k in itertools.permutations(range(n), 2):
            if _adjacent(pos[j], pos[k]):
                for leg in (1, 2):
                    walk.add_edge((j + 1, leg), (k + 1, 3 - leg))
        pick = walk.copy()
        pick.add_node(0)
        for j in range(n):
            if j in stack_neighbours:
                for leg in (1, 2):
                    pick.add_edge((j + 1, leg), 0)
        asm = walk.copy()
        asm.add_node("*")
        if n < n_tiles:
            for j in range(n):
                if _adjacent(pos[j], pos[n]):
                    for leg in (1, 2):
                        asm.add_edge((j + 1, leg), "*")
        graphs += [("pickup", n, pick), ("assembly", n, asm)]
    return graphs


def edge_count(n_tiles=N_TILES):
    """Total number of edges ``M`` of the planning graphs (8672 for N = 28)."""
    return sum(g.number_of_edges() for _, _, g in planning_graphs(n_tiles))


# ----------------------------------------------------------------- mechanics
def structure_rigid_data(n):
    """Mass, inertia at its CoM and CoM from P2 of the rigid structure of ``n`` tiles."""
    c = tile_offsets(n)
    m = TILE["mass"] * n
    com = c.mean(axis=0)
    j = n * TILE["inertia"].copy()
    for r in c - com:
        j += TILE["mass"] * (r @ r * np.eye(3) - np.outer(r, r))
    return m, j, com


def _sphere(mass, radius):
    return 0.4 * mass * radius**2 * np.eye(3)


def total_mass():
    """Mass of the whole spacecraft with the robot (independent of n and carrying)."""
    return HUB["mass"] + SOLAR_ARRAY["mass"] + N_TILES * TILE["mass"] + ROBOT_LUMPED["mass"]


def spacecraft(n, tile, *, carrying=False, leg=1, uncertain=True):
    """Global inverse model at the hub CoM G for structure ``F_n`` docked at ``tile``.

    Parameters
    ----------
    n : int
        Number of assembled tiles (1..28).
    tile : int
        Docking tile ``j`` (1..n).
    carrying : bool
        Whether the robot carries a tile (it then leaves the stack).
    leg : {1, 2}
        Docked leg (no effect with the lumped robot; kept for the model family).
    uncertain : bool
        First solar-array frequency as ``ureal("w_sa1", ..., percent=20)``.

    Returns
    -------
    UncertainSystem
        Inputs ``ext_G_Fx..Tz`` (external wrench at G, hub frame) and
        ``ext_C_Fx..Tz`` (external wrench on the structure at ``C_j``);
        outputs ``G_ax..alphaz`` (acceleration twist at G).

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> H = assembly.spacecraft(3, 2)
    >>> H.shape, H.blocks
    ((6, 12), {'w_sa1': 2})
    """
    if not 1 <= int(n) <= N_TILES:
        raise ArgumentError(f"spacecraft: n must be in 1..{N_TILES}, got {n}")
    if not 1 <= int(tile) <= n:
        raise ArgumentError(f"spacecraft: tile must be in 1..{n}, got {tile}")
    if leg not in (1, 2):
        raise ArgumentError(f"spacecraft: leg must be 1 or 2, got {leg}")
    sa = SOLAR_ARRAY
    w1 = sa["frequencies_hz"][0] * HZ
    if uncertain:
        w1 = ureal("w_sa1", w1, percent=20)
    blocks = [rigid_nport("hub", HUB["mass"], HUB["inertia"], HUB["ports"])]
    blocks.append(
        FlexibleBody(
            "sa",
            sa["mass"],
            sa["inertia"],
            sa["com"],
            sa["participation"],
            [w1, sa["frequencies_hz"][1] * HZ],
            sa["damping"],
        ).titop()
    )
    blocks.append(
        frame_change_block(
            "sa_down", sa["dcm"].T, [f"hub_P1_{c}" for c in ACC], [f"sa_P_{c}" for c in ACC]
        )
    )
    blocks.append(
        frame_change_block(
            "sa_up", sa["dcm"], [f"sa_P_to_parent_{c}" for c in WR], [f"hub_P1_{c}" for c in WR]
        )
    )
    n_stack = N_TILES - n - int(bool(carrying))
    conns = []
    if n_stack > 0:
        stack = FlexibleBody(
            "stack",
            TILE["mass"] * n_stack,
            TILE["inertia"] * n_stack,
            STACK_COM,
            np.zeros((0, 6)),
            [],
            0.0,
        ).titop()
        blocks.append(stack)
        conns += [[f"stack.stack_P_{c}", f"hub.hub_P3_{c}"] for c in ACC]
        conns += [[f"hub.hub_P3_{c}", f"stack.stack_P_to_parent_{c}"] for c in WR]
    m, jc, com = structure_rigid_data(n)
    pc = tile_offsets(n)[tile - 1]
    modes = STRUCTURE_MODES.get((n, tile))
    if modes is None:
        lmat, freqs, phi = np.zeros((0, 6)), [], np.zeros((6, 0))
    else:
        lmat, phi = modes["participation"], modes["mode_shapes"]
        freqs = [f * HZ for f in modes["frequencies_hz"]]
    with warnings.catch_warnings():
        # F1's tabulated modes are inconsistent (digest Sec. 7 item 3): warned once per call.
        warnings.simplefilter("ignore", ResidualMassWarning)
        fn = FlexibleBody(
            "fn", m, jc, com, lmat, freqs, STRUCTURE_DAMPING, mode_shapes=phi, child=pc
        )
    lam = np.linalg.eigvalsh(fn.residual_mass)[0]
    if lam <= 0:
        warnings.warn(
            f"spacecraft: structure F_{n} at C_{tile} has an indefinite residual mass "
            f"(smallest eigenvalue {lam:.3g}); modal data as printed in the paper",
            ResidualMassWarning,
            stacklevel=2,
        )
    blocks.append(fn.titop())
    conns += [[f"fn.fn_P_{c}", f"hub.hub_P2_{c}"] for c in ACC]
    conns += [[f"hub.hub_P2_{c}", f"fn.fn_P_to_parent_{c}"] for c in WR]
    rm = ROBOT_LUMPED["mass"] + (TILE["mass"] if carrying else 0.0)
    robot = FlexibleBody(
        "robot",
        rm,
        _sphere(rm, ROBOT_LUMPED["radius"]),
        ROBOT_LUMPED["com_offset"],
        np.zeros((0, 6)),
        [],
        0.0,
    ).titop()
    blocks.append(robot)
    conns += [[f"robot.robot_P_{c}", f"fn.fn_C_{c}"] for c in ACC]
    conns += [[f"fn.fn_C_{c}", f"robot.robot_P_to_parent_{c}"] for c in WR]
    conns += [[f"sa_down.hub_P1_{c}", f"hub.hub_P1_{c}"] for c in ACC]
    conns += [[f"sa.sa_P_{c}", f"sa_down.sa_P_{c}"] for c in ACC]
    conns += [[f"sa_up.sa_P_to_parent_{c}", f"sa.sa_P_to_parent_{c}"] for c in WR]
    conns += [[f"hub.hub_P1_{c}", f"sa_up.hub_P1_{c}"] for c in WR]
    sys = connect(
        blocks,
        connections=conns,
        inputs=[f"hub.hub_G_ext_{c}" for c in WR] + [f"fn.fn_C_{c}" for c in WR],
        outputs=[f"hub.hub_G_{c}" for c in ACC],
        check_unused=False,
    )
    sys.input_names = [f"ext_G_{c}" for c in WR] + [f"ext_C_{c}" for c in WR]
    sys.output_names = [f"G_{c}" for c in ACC]
    sys.name = f"F{n}_C{tile}_R{leg}_{'carry' if carrying else 'free'}"
    return sys


def rigid_inertia_at_g(n, tile, *, carrying=False):
    """``D_G^tot`` (6x6) by direct summation of the rigid bodies (no TITOP algebra)."""

    def at_g(m, jc, c):
        s = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        return np.block([[m * np.eye(3), -m * s], [m * s, jc - m * s @ s]])

    p1, p2, p3 = (np.asarray(HUB["ports"][k]) for k in ("P1", "P2", "P3"))
    sa, r = SOLAR_ARRAY, SOLAR_ARRAY["dcm"]
    d = at_g(HUB["mass"], HUB["inertia"], np.zeros(3))
    d += at_g(sa["mass"], r @ sa["inertia"] @ r.T, p1 + r @ sa["com"])
    n_stack = N_TILES - n - int(bool(carrying))
    if n_stack > 0:
        d += at_g(TILE["mass"] * n_stack, TILE["inertia"] * n_stack, p3 + STACK_COM)
    m, jc, com = structure_rigid_data(n)
    d += at_g(m, jc, p2 + com)
    rm = ROBOT_LUMPED["mass"] + (TILE["mass"] if carrying else 0.0)
    pc = p2 + tile_offsets(n)[tile - 1] + ROBOT_LUMPED["com_offset"]
    d += at_g(rm, _sphere(rm, ROBOT_LUMPED["radius"]), pc)
    return d


# ----------------------------------------------------------------- control and costs
def attitude_gains(inertia):
    """Eq. 15: ``K_att = [-omega^2 J, -2 xi omega J]`` (u = +K [Theta; omega])."""
    j = np.asarray(inertia, dtype=float)
    return np.hstack([-(OMEGA_ATT**2) * j, -2 * XI_ATT * OMEGA_ATT * j])


def tuning_inertia():
    """``J_G^tot`` of the tuning configuration: F27, docked at tile 22, carrying a tile."""
    return rigid_inertia_at_g(27, 22, carrying=True)[3:, 3:]


def closed_loop(plant, gains=None):
    """Attitude loop of Fig. 10 around a global model (numeric or uncertain).

    Inputs ``ext_C_Fx..Tz`` then ``d_tx, d_ty, d_tz`` (torque disturbance);
    outputs ``G_alphax..z`` (angular acceleration), ``Theta_x..z`` and
    ``e_tx..z = d_t + u`` (input sensitivity channel).

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> cl = assembly.closed_loop(assembly.spacecraft(2, 1, uncertain=False))
    >>> cl.shape
    (9, 9)
    """
    import control

    from ..lft import uss

    k = attitude_gains(tuning_inertia()) if gains is None else np.asarray(gains)
    # Theta = w/s, w = alpha/s: states [Theta; w], input alpha (3).
    z3, i3 = np.zeros((3, 3)), np.eye(3)
    integ = uss(
        control.ss(np.block([[z3, i3], [z3, z3]]), np.vstack([z3, i3]), np.eye(6), np.zeros((6, 3)))
    )
    integ.name = "integ"
    integ.input_names = [f"G_alpha{c}" for c in "xyz"]
    integ.output_names = [f"Theta_{c}" for c in "xyz"] + [f"w_{c}" for c in "xyz"]
    ctrl = uss(control.ss([], [], [], k))
    ctrl.name = "katt"
    ctrl.input_names = integ.output_names
    ctrl.output_names = [f"u_{c}" for c in "xyz"]
    et = uss(control.ss([], [], [], np.hstack([i3, i3])))
    et.name = "sum_et"
    et.input_names = [f"u_{c}" for c in "xyz"] + [f"d_t{c}" for c in "xyz"]
    et.output_names = [f"e_t{c}" for c in "xyz"]
    p = plant if isinstance(plant, UncertainSystem) else uss(plant)
    p.name = "plant"
    conns = [[f"integ.G_alpha{c}", f"plant.G_alpha{c}"] for c in "xyz"]
    conns += [[f"katt.{s}", f"integ.{s}"] for s in integ.output_names]
    conns += [[f"sum_et.u_{c}", f"katt.u_{c}"] for c in "xyz"]
    conns += [[f"plant.ext_G_T{c}", f"sum_et.e_t{c}"] for c in "xyz"]
    return connect(
        [p, integ, ctrl, et],
        connections=conns,
        inputs=[f"plant.ext_C_{c}" for c in WR] + [f"sum_et.d_t{c}" for c in "xyz"],
        outputs=[f"plant.G_alpha{c}" for c in "xyz"]
        + [f"integ.Theta_{c}" for c in "xyz"]
        + [f"sum_et.e_t{c}" for c in "xyz"],
        check_unused=False,
    )


def hinf_cost(n, tile, carrying=False, delta=0.0):
    """Eq. 16 for one frozen model: ``||W_ext,C -> omega'_G||_inf`` of the closed loop.

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> round(assembly.hinf_cost(2, 1), 6) > 0
    True
    """
    from ..analysis import hinfnorm

    w1 = SOLAR_ARRAY["frequencies_hz"][0] * HZ * (1 + 0.2 * delta)
    plant = spacecraft(n, tile, carrying=carrying).usubs({"w_sa1": w1})
    cl = closed_loop(plant).nominal()
    gamma, _ = hinfnorm(cl[0:3, 0:6])
    return float(gamma)


# ----------------------------------------------------------------- planning
def walk_graph(n):
    """The walking digraph of ``F_n`` (the pick-up graph without the stack node)."""
    _, _, g = planning_graphs(n)[2 * (n - 1)]
    g = g.copy()
    g.remove_node(0)
    return g


def example_path(n=27, start=(2, 1), goal=(27, 2)):
    """Unweighted (BFS) path of the paper's example: 7 moves from (tile 2, R1) to (tile 27, R2).

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> len(assembly.example_path()) - 1        # moves
    7
    >>> (len(assembly.example_path()) - 1) * 2 * assembly.Z_WAYPOINTS   # grid points
    98
    """
    import networkx as nx

    return nx.shortest_path(walk_graph(n), start, goal)


def node_cost_paths(graph, node_cost, start, goal):
    """Dijkstra and BFS paths when an edge costs the sum of its two end-node costs.

    Returns ``(dijkstra_path, dijkstra_cost, bfs_path, bfs_cost)``; the edge
    cost stands for the sum over the frozen models of the two trajectories of
    the edge (start-node model, then end-node model, digest Sec. 4.2).
    """
    import networkx as nx

    def w(u, v, _):
        return node_cost[u] + node_cost[v]

    dpath = nx.dijkstra_path(graph, start, goal, weight=w)
    bpath = nx.shortest_path(graph, start, goal)

    def cost(p):
        return sum(w(u, v, None) for u, v in zip(p[:-1], p[1:], strict=True))

    return dpath, cost(dpath), bpath, cost(bpath)
