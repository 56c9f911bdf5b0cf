"""Flexible TITOP bodies, rigid n-port bodies and port inversion (seed 003, Eqs. 1-10).

References are closed forms written here from the equations of motion (not the
state-space realisation under test) and numbers printed in digest 003
(Table 2 data, residual-mass eigenvalues of Sec. 6.2).
"""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, IllPosedError, ResidualMassWarning
from robustmb.multibody import FlexibleBody, invert_channels, rigid_nport, rigid_titop

HZ = 2 * np.pi
# Solar array of Table 2 (digest 003 Sec. 5.1), frame R_a, P = P1.
SA_L = np.array(
    [
        [-0.0007, -0.0078, 7.8872, 11.7690, 0.0005, 0.0010],
        [-7.9401, 0, 0.0007, -0.0008, 0.1089, 12.1014],
        [-0.3604, 0, 0.0006, 0.0017, -2.6631, 0.5399],
        [0.0019, -0.0066, 3.9818, 0.9098, -0.0007, -0.0033],
        [0.0272, 0.0003, -0.0145, -0.0019, 0.4907, -0.0221],
        [-0.0010, 0.0357, -2.2185, -0.2320, -0.0029, 0.0012],
    ]
)
SA_J = np.array([[33.0918, 0, 0], [0, 7.3819, -0.0002], [0, -0.0002, 40.4578]])
SA_COM = np.array([0, 1.0934, 0.0014])
SA_M = 88.93
F1_L = np.array(
    [
        [-0.2004, 0.2004, 0, 0, 0, 0.6902],
        [0, 0, -0.3290, -0.5375, 0.5375, 0],
        [0, 0, 0, 0.9139, 0.9139, 0],
    ]
)
F1_PHI = np.array(
    [
        [-1.2677, 0, 0],
        [1.2677, 0, 0],
        [0, -2.0936, 0],
        [0, -1.3080, 0.5019],
        [0, -0.7856, 0.5019],
        [0.6827, 0, 0],
    ]
)


def sk(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def dp_closed_form(m, jg, r):
    """Digest Sec. 2.1: D_P with r = PG (full coupling)."""
    return np.block([[m * np.eye(3), -m * sk(r)], [m * sk(r), jg - m * sk(r) @ sk(r)]])


def tau(v):
    """tau_PB from the vector PB."""
    return np.block([[np.eye(3), sk(v)], [np.zeros((3, 3)), np.eye(3)]])


def evalfr(sys, s):
    """C (sI - A)^-1 B + D of a python-control StateSpace at complex s."""
    a, b, c, d = (np.asarray(x) for x in (sys.A, sys.B, sys.C, sys.D))
    if a.shape[0] == 0:
        return d.astype(complex)
    return c @ np.linalg.solve(s * np.eye(a.shape[0]) - a, b) + d


def solar_array(n_modes=2, percent=20):
    w1 = rmb.ureal("w_sa1", 1.2850 * HZ, percent=percent)
    freqs = [w1, 6.5896 * HZ, 9.0 * HZ, 12.0 * HZ, 15.0 * HZ, 20.0 * HZ][:n_modes]
    return FlexibleBody("sa", SA_M, SA_J, SA_COM, SA_L[:n_modes], freqs, 0.01)


def test_residual_mass_of_the_solar_array_matches_the_digest():
    body = solar_array(6)
    lam = np.linalg.eigvalsh(body.residual_mass)
    np.testing.assert_allclose(lam, [0.0037, 0.0063, 0.038, 5.958, 25.79, 88.93], rtol=0, atol=6e-3)
    np.testing.assert_allclose(body.rigid_mass, dp_closed_form(SA_M, SA_J, SA_COM), atol=1e-12)


def test_indefinite_residual_mass_warns():
    with pytest.warns(ResidualMassWarning, match="not positive definite"):
        body = FlexibleBody(
            "f1",
            6.0423,
            np.diag([0.5041, 0.5041, 1.0071]),
            [0.5, 0.5, 0],
            F1_L,
            np.array([30.7169, 35.1732, 50.2930]) * HZ,
            0.005,
            mode_shapes=F1_PHI,
            child=[0.5, 0.5, 0],
        )
    # Huygens check of digest Sec. 6.2 item 1 (tensor element -1.5106).
    np.testing.assert_allclose(
        body.rigid_mass[3:, 3:],
        [[2.0147, -1.5106, 0], [-1.5106, 2.0147, 0], [0, 0, 4.0282]],
        atol=1e-4,
    )


@pytest.mark.parametrize("delta", [-1.0, 0.0, 1.0])
def test_modal_lft_poles_follow_the_uncertain_frequency(delta):
    body = solar_array(2)
    sys = body.titop()
    assert sys.blocks == {"w_sa1": 2}
    w1 = 1.2850 * HZ * (1 + 0.2 * delta)
    w2 = 6.5896 * HZ
    expected = []
    for w in (w1, w2):
        expected += [complex(-0.01 * w, s * w * np.sqrt(1 - 0.01**2)) for s in (1, -1)]
    poles = np.linalg.eigvals(np.asarray(sys.usubs({"w_sa1": w1}).A))
    key = lambda z: (round(z.imag, 6), z.real)  # noqa: E731
    np.testing.assert_allclose(sorted(poles, key=key), sorted(expected, key=key), rtol=1e-12)


@pytest.mark.parametrize("delta", [-1.0, -0.3, 0.0, 1.0])
def test_one_port_matches_the_transfer_form(delta):
    body = solar_array(2)
    w1 = 1.2850 * HZ * (1 + 0.2 * delta)
    ws, xi = np.array([w1, 6.5896 * HZ]), 0.01
    g = body.titop().usubs({"w_sa1": w1})
    dp = dp_closed_form(SA_M, SA_J, SA_COM)
    for s in (0.3j, 5j, 8.0j + 0.1, 40j):
        ref = -dp.astype(complex)
        for j in range(2):
            lj = SA_L[j][None, :]
            ref += lj.T @ lj * s**2 / (s**2 + 2 * xi * ws[j] * s + ws[j] ** 2)
        np.testing.assert_allclose(evalfr(g, s), ref, rtol=1e-10, atol=1e-9)


def test_one_port_dc_and_high_frequency_gains():
    body = solar_array(2)
    g = body.titop().nominal()
    dp = dp_closed_form(SA_M, SA_J, SA_COM)
    np.testing.assert_allclose(body.dc_gain(), -dp, atol=1e-9)
    np.testing.assert_allclose(evalfr(g, 1e-7j).real, -dp, atol=1e-6)
    r = dp - SA_L[:2].T @ SA_L[:2]
    np.testing.assert_allclose(np.asarray(g.D), -r, atol=1e-12)
    np.testing.assert_allclose(evalfr(g, 1e8j).real, -r, atol=1e-6)


def two_port(percent=10):
    # A consistent synthetic two-port (R > 0): 2 modes of a beam along x.
    w = rmb.ureal("wb", 3.0, percent=percent)
    lmat = np.array([[0, 0, 0.9, 0, -0.5, 0], [0, 0.6, 0, 0, 0, 0.4]])
    phi = np.array([[0, 0.2], [0, 1.1], [1.3, 0], [0, 0], [-0.7, 0], [0, 0.5]])
    return FlexibleBody(
        "beam",
        2.0,
        np.diag([0.02, 0.4, 0.4]),
        [0.6, 0.0, 0.05],
        lmat,
        [w, 11.0],
        [0.02, 0.05],
        mode_shapes=phi,
        child=[1.2, 0.0, 0.1],
    )


@pytest.mark.parametrize("delta", [-1.0, 0.5])
def test_two_port_matches_the_equations_of_motion(delta):
    body = two_port()
    wv = 3.0 * (1 + 0.1 * delta)
    g = body.titop().usubs({"wb": wv})
    ws, xi = np.array([wv, 11.0]), np.array([0.02, 0.05])
    lmat, phi, pc = body.participation, body.mode_shapes, body.child
    dp = body.rigid_mass
    tcp = tau(-pc)
    for s in (0.5j, 2.9j + 0.01, 30j):
        h = np.diag(1.0 / (s**2 + 2 * xi * ws * s + ws**2))
        # columns: unit W_C (6) then unit x''_P (6)
        u = np.eye(12)
        wc, xp = u[:6], u[6:]
        eta_dd = s**2 * h @ (phi.T @ wc - lmat @ xp)
        xc = phi @ eta_dd + tcp @ xp
        wp = -lmat.T @ eta_dd - dp @ xp + tcp.T @ wc
        np.testing.assert_allclose(evalfr(g, s), np.vstack([xc, wp]), rtol=1e-10, atol=1e-10)


def test_port_inversion_round_trip_and_anti_resonances():
    body = solar_array(2)
    g = body.titop()
    ins, outs = g.input_names, g.output_names
    inv = invert_channels(g, ins, outs)
    assert inv.input_names == outs and inv.blocks == g.blocks
    back = invert_channels(inv, outs, ins)
    for d in (-1.0, 0.4):
        w1 = 1.2850 * HZ * (1 + 0.2 * d)
        a, b = g.usubs({"w_sa1": w1}), back.usubs({"w_sa1": w1})
        gi = inv.usubs({"w_sa1": w1})
        for s in (0.2j, 7j, 50j):
            np.testing.assert_allclose(evalfr(b, s), evalfr(a, s), rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(evalfr(gi, s) @ evalfr(a, s), np.eye(6), atol=1e-8)
        # The inverse (acceleration from wrench) vanishes along L_j at the clamped poles.
        for p in np.linalg.eigvals(np.asarray(a.A)):
            sv = np.linalg.svd(evalfr(gi, p), compute_uv=False)
            assert sv[-1] < 1e-8 * sv[0]


def test_single_port_of_a_rigid_link_cannot_be_inverted_but_both_can():
    link = rigid_titop("link", 5.0, 0.2 * np.eye(3), [0, 0, 0.0625], [0, 0, 0.125])
    with pytest.raises(IllPosedError, match="singular"):
        invert_channels(link, link.input_names[:6], link.output_names[:6])
    both = invert_channels(link, link.input_names, link.output_names)
    back = invert_channels(both, both.input_names, both.output_names)
    np.testing.assert_allclose(back.nominal(), link.nominal(), atol=1e-12)
    dp = dp_closed_form(5.0, 0.2 * np.eye(3), [0, 0, 0.0625])
    tcp = tau(-np.array([0, 0, 0.125]))
    np.testing.assert_allclose(
        link.nominal(), np.block([[np.zeros((6, 6)), tcp], [tcp.T, -dp]]), atol=1e-12
    )


def test_rigid_nport_parent_form_equals_inversion_of_the_inverse_model():
    jg = np.array([[21.6256, -3.84, 0], [-3.84, 15.6256, 0], [0, 0, 30.6738]])
    ports = {"P1": [0, -0.5, 0], "P2": [-0.5, 0.5, 0.7125], "P3": [0.5, 0, 0.7125]}
    x = rigid_nport("hub", 166.0, jg, ports)
    r = rigid_nport("hub", 166.0, jg, ports, parent="P2")
    inv = invert_channels(x, x.input_names[6:12], x.output_names[6:12])
    m = inv.nominal().copy()
    m[6:12] *= -1  # the inverted output is the wrench ON the body; Eq. 10 gives its opposite
    np.testing.assert_allclose(r.nominal(), m, atol=1e-10)
    assert r.input_names[6:12] == [
        f"hub_P2_{c}" for c in ("ax", "ay", "az", "alphax", "alphay", "alphaz")
    ]
    # Eq. 9 at G: force -> linear acceleration 1/m, torque -> angular J^-1.
    big = x.nominal()
    np.testing.assert_allclose(big[18:21, 18:21], np.eye(3) / 166.0, atol=1e-14)
    np.testing.assert_allclose(big[21:, 21:], np.linalg.inv(jg), atol=1e-14)


def test_global_dc_gain_equals_the_rigid_summation():
    """Hub + solar array (rotated frame) + flexible two-port; DC of x''_G / W_ext = (D_G_tot)^-1."""
    jg = np.array([[21.6256, -3.84, 0], [-3.84, 15.6256, 0], [0, 0, 30.6738]])
    ports = {"P1": [0, -0.5, 0], "P2": [-0.5, 0.5, 0.7125]}
    hub = rigid_nport("hub", 166.0, jg, ports)
    sa = solar_array(2).titop()
    beam = two_port().titop()
    pab = np.diag([-1.0, -1.0, 1.0])  # P_{a/b}: [v]_b = P [v]_a
    p2 = np.kron(np.eye(2), pab)
    acc = ("ax", "ay", "az", "alphax", "alphay", "alphaz")
    wr = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")
    down = rmb.umat(p2.T)
    down.name, down.input_names, down.output_names = (
        "down",
        [f"hub_P1_{c}" for c in acc],
        [f"sa_P_{c}" for c in acc],
    )
    up = rmb.umat(p2)
    up.name, up.input_names, up.output_names = (
        "up",
        [f"sa_P_to_parent_{c}" for c in wr],
        [f"hub_P1_{c}" for c in wr],
    )
    # beam frame = hub frame; its P is hub port P2; its child port C is loaded externally.
    conn = []
    for c in acc:
        conn.append([f"beam.beam_P_{c}", f"hub.hub_P2_{c}"])
    for c in wr:
        conn.append([f"hub.hub_P2_{c}", f"beam.beam_P_to_parent_{c}"])
    sys = rmb.connect(
        [hub, sa, beam, down, up],
        connections=conn
        + [[f"down.hub_P1_{c}", f"hub.hub_P1_{c}"] for c in acc]
        + [[f"sa.sa_P_{c}", f"down.sa_P_{c}"] for c in acc]
        + [[f"up.sa_P_to_parent_{c}", f"sa.sa_P_to_parent_{c}"] for c in wr]
        + [[f"hub.hub_P1_{c}", f"up.hub_P1_{c}"] for c in wr],
        inputs=[f"hub_G_ext_{c}" for c in wr] + [f"beam_C_{c}" for c in wr],
        outputs=[f"hub_G_{c}" for c in acc],
        check_unused=False,
    )
    g = sys.nominal()
    dc = np.asarray(g.D - g.C @ np.linalg.solve(g.A, g.B))[:, :6]
    # Independent rigid summation at G: each body's mass at its CoM, inertia rotated to R_b.
    bodies = [(166.0, jg, np.zeros(3))]
    bodies.append((SA_M, pab @ SA_J @ pab.T, np.array([0, -0.5, 0]) + pab @ SA_COM))
    bodies.append(
        (2.0, np.diag([0.02, 0.4, 0.4]), np.array([-0.5, 0.5, 0.7125]) + np.array([0.6, 0.0, 0.05]))
    )
    dtot = np.zeros((6, 6))
    for m, jc, c in bodies:
        dtot += dp_closed_form(m, jc, c)  # D at G of a body whose CoM is at G + c
    np.testing.assert_allclose(dc, np.linalg.inv(dtot), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(
        np.linalg.inv(dc)[:3, :3], (166.0 + SA_M + 2.0) * np.eye(3), atol=1e-8
    )


ACC6 = ["ax", "ay", "az", "alphax", "alphay", "alphaz"]
WR6 = ["Fx", "Fy", "Fz", "Tx", "Ty", "Tz"]


def joint(axis):
    from robustmb.multibody import revolute_frame_block

    t = rmb.ureal("tau_a", 0.0, range=(-1.0, 1.0))
    return revolute_frame_block(
        "j",
        axis,
        t,
        down=([f"p_{c}" for c in ACC6], [f"c_{c}" for c in ACC6]),
        up=([f"c_{c}" for c in WR6], [f"p_{c}" for c in WR6]),
    )


@pytest.mark.parametrize("axis", [[0, 0, 1], [1.0, -2.0, 0.5]])
def test_revolute_frame_block_is_exact_on_the_full_turn(axis):
    from robustmb.multibody import rotation_matrix

    blk = joint(axis)
    assert blk.blocks == {"tau_a": 16}
    for alpha in np.linspace(-np.pi, np.pi, 13):
        p = rotation_matrix(axis, alpha)  # Rodrigues formula, no LFT
        ref = np.kron(np.diag([1.0, 1, 0, 0]), p.T) + np.kron(np.diag([0.0, 0, 1, 1]), p)
        np.testing.assert_allclose(blk.usubs({"tau_a": np.tan(alpha / 4)}), ref, atol=1e-12)
    rng = np.random.default_rng(1)
    for t in rng.uniform(-1, 1, 5):
        m = blk.usubs({"tau_a": t})
        np.testing.assert_allclose(m @ m.T, np.eye(12), atol=1e-12)
        # power is frame-independent: x''_c . W_c == x''_p . W_p
        xp, wc = rng.normal(size=6), rng.normal(size=6)
        out = m @ np.concatenate([xp, wc])
        assert np.isclose(out[:6] @ wc, xp @ out[6:], rtol=1e-12)


def table3_arm():
    # Table 3 link data; link lengths = 2 x CoM offset (the paper's geometry is in a figure only)
    mass = [5, 5, 10, 5, 10, 5]
    cx = [0, 0, -0.1062, 0, -0.1031, 0]
    cz = [0.0625, 0.05, 0, 0.081, 0, 0.081]
    jj = [0.2, 0.2, 0.4, 0.2, 0.4, 0.2]
    links = [
        {
            "mass": mass[i],
            "inertia": jj[i] * np.eye(3),
            "com": [cx[i], 0, cz[i]],
            "length": [2 * cx[i], 0, 2 * cz[i]],
        }
        for i in range(6)
    ]
    axes = [[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]]
    taus = [rmb.ureal(f"t{k}", 0.0, range=(-1.0, 1.0)) for k in range(5)]
    return links, axes, taus


def test_arm_rooted_at_the_tip_is_the_double_port_inverse():
    from robustmb.multibody import arm_chain

    links, axes, taus = table3_arm()
    zb = arm_chain("arm", links, axes, taus)
    zt = arm_chain("arm", links, axes, taus, root="tip")
    assert zb.blocks == {f"t{k}": 16 for k in range(5)}
    inv = invert_channels(zb, zb.input_names, zb.output_names)
    # inv: [x''_tip; W_base->parent] -> [W_on_tip; x''_base]
    # zt:  [W_on_base; x''_tip] -> [x''_base; W_tip->parent]
    swap = np.block([[np.zeros((6, 6)), np.eye(6)], [-np.eye(6), np.zeros((6, 6))]])
    rng = np.random.default_rng(3)
    for _ in range(4):
        v = {f"t{k}": x for k, x in enumerate(rng.uniform(-1, 1, 5))}
        np.testing.assert_allclose(zt.usubs(v), swap @ inv.usubs(v) @ swap, atol=1e-12)
        # the arm's mass seen at the base with the tip free: 40 kg
        d = zb.usubs(v)[6:, 6:]
        np.testing.assert_allclose(-d[:3, :3], 40.0 * np.eye(3), atol=1e-12)


def test_beam_fe_modes_match_euler_bernoulli_and_build_a_consistent_body():
    from robustmb.multibody.beam_modes import beam_modal_data

    length, mass, eiy, eiz = 2.0, 4.0, 50.0, 80.0
    d = beam_modal_data(length, mass, (eiy, eiz), n_elements=30, n_modes=6)
    beta = np.array([1.87510407, 4.69409113, 7.85475744])  # clamped-free beta_k L
    exact = np.sort(
        np.concatenate([beta**2 * np.sqrt(ei / (mass / length * length**4)) for ei in (eiy, eiz)])
    )
    np.testing.assert_allclose(d["frequencies"], exact, rtol=1e-5)
    # all 24 modes of a 6-element model (4 free DOF per node)
    full = beam_modal_data(length, mass, (eiy, eiz), n_elements=6, n_modes=1000)
    lmat = full["participation"]
    assert lmat.shape == (24, 6)
    # the residual mass of the FE rigid mass is positive semidefinite whatever the modes kept
    for k in (1, 3, 24):
        res = full["rigid_fe"] - lmat[:k].T @ lmat[:k]
        assert np.linalg.eigvalsh(res).min() > -1e-10
    # a flexible body from these data: residual mass positive definite, DC gain -D_P
    jg = np.diag([1e-3, mass * length**2 / 12, mass * length**2 / 12])
    body = FlexibleBody(
        "beam",
        mass,
        jg,
        [length / 2, 0, 0],
        d["participation"],
        d["frequencies"],
        0.01,
        mode_shapes=d["mode_shapes"],
        child=[length, 0, 0],
    )
    assert np.linalg.eigvalsh(body.residual_mass).min() > 0
    np.testing.assert_allclose(body.dc_gain()[6:, 6:], -body.rigid_mass, atol=1e-9)
    # FE rigid mass at P: m on the lateral translations, m L^2 / 3 about y and z
    np.testing.assert_allclose(full["rigid_fe"][1:3, 1:3], mass * np.eye(2), atol=1e-12)
    np.testing.assert_allclose(full["rigid_fe"][4, 4], mass * length**2 / 3, rtol=1e-12)


def test_frame_change_block_is_the_dcm_on_both_halves_and_keeps_power():
    """diag(P, P) against scipy's rotation (not robustmb's), power twist . wrench is the same
    in both frames, and bad DCMs / name lists are named errors."""
    from scipy.spatial.transform import Rotation

    from robustmb.errors import ArgumentError, DimensionError
    from robustmb.multibody import frame_change_block

    p = Rotation.from_rotvec([0.3, -1.1, 0.7]).as_matrix()
    down = frame_change_block("down", p.T, [f"a_{c}" for c in ACC6], [f"b_{c}" for c in ACC6])
    up = frame_change_block("up", p, [f"b_{c}" for c in WR6], [f"a_{c}" for c in WR6])
    assert down.input_names == [f"a_{c}" for c in ACC6] and up.output_names[0] == "a_Fx"
    rng = np.random.default_rng(3)
    twist_a, wrench_b = rng.normal(size=6), rng.normal(size=6)
    twist_b, wrench_a = down.nominal() @ twist_a, up.nominal() @ wrench_b
    np.testing.assert_allclose(twist_b[:3], p.T @ twist_a[:3], atol=1e-14)
    np.testing.assert_allclose(twist_b[3:], p.T @ twist_a[3:], atol=1e-14)
    np.testing.assert_allclose(twist_a @ wrench_a, twist_b @ wrench_b, rtol=1e-13)
    names = [f"x{k}" for k in range(6)]
    with pytest.raises(ArgumentError, match="'m'.*proper rotation"):
        frame_change_block("m", np.diag([1.0, 1.0, -1.0]), names, names)
    with pytest.raises(ArgumentError, match="proper rotation"):
        frame_change_block("s", 2 * np.eye(3), names, names)
    with pytest.raises(DimensionError, match="dcm must be 3x3"):
        frame_change_block("d", np.eye(2), names, names)
    with pytest.raises(DimensionError, match="6 input and 6 output names"):
        frame_change_block("n", np.eye(3), names[:5], names)


def _tip_compliance(body, w=1e-3):
    """``x_C / W_C`` at low frequency, ``-H(jw) / w^2`` of the TITOP's C-to-C block."""
    s = body.titop().nominal()
    a, b, c, d = (np.asarray(x) for x in (s.A, s.B, s.C, s.D))
    h = c @ np.linalg.solve(1j * w * np.eye(a.shape[0]) - a, b) + d
    return (h[:6, :6] / (1j * w) ** 2).real


def test_mode_shapes_are_taken_as_6_by_n_only_and_give_the_cantilever_tip_compliance():
    """All modes of a Hermite-cubic cantilever: the static tip compliance is the closed
    form (L^3/3EI, L^2/2EI, L/EI); the transposed (n x 6) layout, which a reshape would
    scramble into a wrong compliance, is refused."""
    from robustmb.errors import DimensionError
    from robustmb.multibody.beam_modes import beam_modal_data

    length, mass, ei = 2.0, 4.0, 50.0
    d = beam_modal_data(length, mass, ei, n_elements=4, n_modes=16)
    phi, lmat, w = d["mode_shapes"], d["participation"], d["frequencies"]
    jg = np.diag([1e-3, mass * length**2 / 12, mass * length**2 / 12])

    def body(shapes, participation=lmat, freqs=w):
        return FlexibleBody(
            "beam",
            mass,
            jg,
            [length / 2, 0, 0],
            participation,
            list(freqs),
            0.0,
            mode_shapes=shapes,
            child=[length, 0, 0],
        )

    comp = _tip_compliance(body(phi))
    ref = np.zeros((6, 6))
    ref[1, 1] = ref[2, 2] = length**3 / (3 * ei)
    ref[1, 5] = ref[5, 1] = length**2 / (2 * ei)
    ref[2, 4] = ref[4, 2] = -(length**2) / (2 * ei)
    ref[4, 4] = ref[5, 5] = length / ei
    np.testing.assert_allclose(comp, ref, atol=1e-6 * np.abs(ref).max())
    with pytest.raises(DimensionError, match=r"mode_shapes must be 6 x 16 .*got shape \(16, 6\)"):
        body(phi.T)
    # one mode: a vector of 6 is its column; a 3 x 2 array (6 entries) is refused
    one = body(phi[:, 0], lmat[:1], w[:1])
    np.testing.assert_array_equal(one.mode_shapes, phi[:, :1])
    with pytest.raises(DimensionError, match=r"mode_shapes must be 6 x 1 .*got shape \(3, 2\)"):
        body(phi[:, 0].reshape(3, 2), lmat[:1], w[:1])
    with pytest.raises(DimensionError, match=r"mode_shapes must be 6 x 1 .*got shape \(1, 6\)"):
        body(phi[:, :1].T, lmat[:1], w[:1])


def test_nominal_frequencies_are_the_elements_nominal_values_not_their_range_centres():
    w1 = rmb.ureal("w1", 3.0, range=(2.0, 8.0))  # centre 5
    body = FlexibleBody(
        "a",
        1.0,
        0.1 * np.eye(3),
        [0.5, 0, 0],
        [[0, 0, 0.5, 0, 0, 0], [0, 0.3, 0, 0, 0, 0.2]],
        [w1, 12.0],
        0.02,
    )
    np.testing.assert_array_equal(body.nominal_frequencies(), [3.0, 12.0])
    # and the nominal TITOP model has its poles at those frequencies (|p| = w, xi = 0.02)
    poles = np.linalg.eigvals(np.asarray(body.titop().nominal().A))
    np.testing.assert_allclose(np.sort(np.abs(poles))[::2], [3.0, 12.0], rtol=1e-12)


@pytest.mark.parametrize(
    "field, value",
    [
        ("mass", True),
        ("mass", np.bool_(True)),
        ("mass", 1.0 + 0.5j),
        ("inertia", 0.1 * np.eye(3) * (1 + 1j)),
        ("com", [0.5, 0, 0j + 1e-3j]),
        ("damping", 0.02j),
        ("frequencies", [True]),
        ("frequencies", [10.0 + 1j]),
    ],
)
def test_booleans_and_complex_numbers_are_refused_naming_the_argument(field, value):
    """As for RigidBody: True is not a mass of 1 and an imaginary part is not dropped."""
    args = {
        "mass": 1.0,
        "inertia": 0.1 * np.eye(3),
        "com": [0.5, 0, 0],
        "participation": [[0, 0, 0.5, 0, 0, 0]],
        "frequencies": [10.0],
        "damping": 0.02,
    }
    FlexibleBody("a", **args)  # the data before the change are accepted
    with pytest.raises(ArgumentError, match=f"{field}.*(bool|complex)"):
        FlexibleBody("a", **{**args, field: value})
