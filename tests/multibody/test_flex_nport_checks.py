"""Inertia, port and index checks of the TITOP blocks, and an independent lumped-mass check.

The flexible body is compared with a spring-mass chain solved here with numpy in
the Laplace domain (no modal data of the package), and with the closed-form
poles and zeros of one cantilever mode on a free hub.
"""

import warnings

import numpy as np
import pytest
import scipy.linalg as sla

import robustmb as rmb
from robustmb.errors import ArgumentError, NonphysicalInertiaWarning, SignalError
from robustmb.multibody import FlexibleBody, arm_chain, invert_channels, rigid_nport, rigid_titop

BAD_J = np.diag([1.0, 1.0, 5.0])  # 1 + 1 < 5: not the moments of a body


def _flex(j, **kw):
    return FlexibleBody("panel", 2.0, j, [0.5, 0, 0], np.zeros((0, 6)), [], 0.0, **kw)


BUILDERS = {
    "FlexibleBody": _flex,
    "rigid_nport": lambda j, **kw: rigid_nport("hub", 2.0, j, {"P1": [1.0, 0, 0]}, **kw),
    "rigid_titop": lambda j, **kw: rigid_titop("link", 2.0, j, [0.5, 0, 0], [1.0, 0, 0], **kw),
}


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_moments_breaking_the_triangle_inequality_warn_naming_the_block(kind):
    with pytest.warns(NonphysicalInertiaWarning, match=r"1 \+ 1 < 5") as caught:
        BUILDERS[kind](BAD_J)
    assert len(caught) == 1
    assert kind in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonphysicalInertiaWarning)
        BUILDERS[kind](BAD_J, allow_nonphysical_inertia=True)  # published data: opt out
        BUILDERS[kind](np.diag([1.0, 2.0, 3.0]))  # a flat plate: I1 + I2 = I3, kept
        # the same plate turned: the check is on the principal moments, not the diagonal
        q, _ = np.linalg.qr(np.random.default_rng(3).normal(size=(3, 3)))
        BUILDERS[kind](q @ np.diag([2.0, 3.0, 4.9]) @ q.T)
    with pytest.raises(ArgumentError, match="allow_nonphysical_inertia must be True or False"):
        BUILDERS[kind](BAD_J, allow_nonphysical_inertia="yes")


def test_an_arm_of_links_with_nonphysical_moments_warns():
    with pytest.warns(NonphysicalInertiaWarning, match="rigid_titop 'armL0'"):
        link = {"mass": 1.0, "inertia": BAD_J, "com": [0.5, 0, 0], "length": [1.0, 0, 0]}
        arm_chain("arm", [link], [], [])


@pytest.mark.parametrize(
    "vector, pattern",
    [
        ([rmb.ureal("r", 1.0, percent=10), 0, 0], "port 'P1' must be numeric: only the modal"),
        ([True, 0, 0], "port 'P1' must be real numbers"),
        ("abc", "port 'P1' must be numeric"),
        ([1.0, 0], "port 'P1' must be 3 finite numbers"),
    ],
    ids=["ureal", "bool", "string", "short"],
)
def test_rigid_nport_names_a_bad_port_vector(vector, pattern):
    with pytest.raises((ArgumentError, rmb.errors.DimensionError), match=pattern):
        rigid_nport("hub", 2.0, np.eye(3), {"P1": vector})


def test_a_zero_dimensional_array_is_one_frequency():
    lmat = [[0, 0, 0.5, 0, 0, 0]]
    a = FlexibleBody("a", 1.0, 0.1 * np.eye(3), [0, 0, 0], lmat, np.array(3.0), 0.02)
    b = FlexibleBody("a", 1.0, 0.1 * np.eye(3), [0, 0, 0], lmat, [3.0], 0.02)
    np.testing.assert_array_equal(a.titop().nominal().A, b.titop().nominal().A)


@pytest.mark.parametrize("index", [0.7, True, np.float64(1.0)])
def test_invert_channels_refuses_indices_that_are_not_integers(index):
    g = rmb.umat([[2.0, 1.0], [0.0, 4.0]])
    with pytest.raises(SignalError, match="integer indices"):
        invert_channels(g, [index], [0])
    with pytest.raises(SignalError, match=r"out of range 0\.\.1"):
        invert_channels(g, [2], [0])
    with pytest.raises(SignalError, match="inputs must be a name, an index or a list"):
        invert_channels(g, None, [0])


@pytest.mark.parametrize("rtol", [-1.0, np.nan, 1.0, "1e-10", True])
def test_invert_channels_refuses_a_bad_rtol(rtol):
    with pytest.raises(ArgumentError, match="rtol must be a number in"):
        invert_channels(rmb.umat([[2.0]]), [0], [0], rtol=rtol)


def _evalfr(sys, s):
    a, b, c, d = (np.asarray(x) for x in (sys.A, sys.B, sys.C, sys.D))
    return c @ np.linalg.solve(s * np.eye(a.shape[0]) - a, b) + d


def test_two_port_matches_a_spring_mass_chain_solved_directly():
    # Axial chain clamped at P: a rigid mass m0 at P, masses m_i on springs k_i, tip = port C.
    m0, mi = 0.7, np.array([1.0, 0.5, 0.8, 0.3])
    ki = np.array([400.0, 250.0, 300.0, 150.0])
    n = mi.size
    mm = np.diag(mi)
    kk = np.diag(ki + np.r_[ki[1:], 0.0]) - np.diag(ki[1:], 1) - np.diag(ki[1:], -1)
    lam, phi = sla.eigh(kk, mm)  # unit modal mass
    ones = np.ones(n)
    lx = phi.T @ mm @ ones
    lmat = np.zeros((n, 6))
    lmat[:, 0] = lx
    shapes = np.zeros((6, n))
    shapes[0] = phi[-1]
    mtot = m0 + mi.sum()
    body = FlexibleBody(
        "chain",
        mtot,
        np.diag([0.2, 1.0, 1.0]),
        [0.4, 0, 0],
        lmat,
        np.sqrt(lam),
        0.0,
        mode_shapes=shapes,
        child=[1.0, 0, 0],
    )
    sys = body.titop().nominal()
    e_tip = np.eye(n)[-1]
    for w in (0.5, 7.0, 13.0, 31.0, 80.0):
        s = 1j * w
        # u_i = x_P + q_i:  M q'' + K q = -M 1 a_P + e_tip F_C, with q'' = s^2 q
        h = np.linalg.inv(mm * s**2 + kk)
        qdd_a = s**2 * h @ (-mm @ ones)  # per unit a_P
        qdd_f = s**2 * h @ e_tip  # per unit F_C
        # wrench on the parent: F_C minus the momentum rate of the whole chain
        ref = np.array(
            [
                [qdd_f[-1], 1.0 + qdd_a[-1]],  # a_C
                [1.0 - mi @ qdd_f, -mtot - mi @ qdd_a],  # W_P
            ]
        )
        g = _evalfr(sys, s)[np.ix_([0, 6], [0, 6])]
        np.testing.assert_allclose(g, ref, rtol=1e-9, atol=1e-12)


def test_one_mode_on_a_free_hub_has_the_closed_form_zeros_and_poles():
    # hub of mass mh driven by a force; a panel of mass mb, one cantilever mode (w, l)
    mh, mb, w, l = 5.0, 10.0, 3.0, 2.0
    body = FlexibleBody("p", mb, 0.1 * np.eye(3), [0, 0, 0], [[0, 0, l, 0, 0, 0]], [w], 0.0)
    t = body.titop().nominal()
    a, b, c, d = (np.asarray(x) for x in (t.A, t.B, t.C, t.D))
    b, c, d = b[:, 2:3], c[2:3], d[2, 2]
    # mh a = F + W_P (W_P = C x + d a):  a = (F + C x) / (mh - d)
    poles = np.linalg.eigvals(a + b @ c / (mh - d))
    mt = mh + mb
    w_free = w * np.sqrt(mt / (mt - l**2))
    np.testing.assert_allclose(np.sort(np.abs(poles.imag)), [w_free, w_free], rtol=1e-12)
    # zeros of F -> a: the poles of the panel (the cantilever frequency)
    np.testing.assert_allclose(np.sort(np.abs(np.linalg.eigvals(a).imag)), [w, w], rtol=1e-12)
    # static: the whole mass; far above: the hub plus the residual mass mb - l^2
    np.testing.assert_allclose(mh - d, mh + mb - l**2, rtol=1e-12)
    g0 = 1.0 / (mh - _evalfr(t, 1e-6j)[2, 2])
    np.testing.assert_allclose(g0, 1.0 / mt, rtol=1e-9)


def test_a_semidefinite_rigid_mass_is_no_residual_mass_defect():
    # a point mass, a slender rod and a FE beam whose rigid mass has no spin inertia:
    # the modes take no mass in the massless directions, so the data are consistent
    from robustmb.errors import ResidualMassWarning
    from robustmb.multibody.beam_modes import beam_modal_data

    length, mass = 2.0, 4.0
    d = beam_modal_data(length, mass, 50.0, n_modes=4)
    rod = np.diag([0.0, mass * length**2 / 12, mass * length**2 / 12])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResidualMassWarning)
        rigid_titop("l", 1.0, np.zeros((3, 3)), [0.5, 0, 0], [1.0, 0, 0])
        FlexibleBody("rod", 1.0, rod, [0.5, 0, 0], np.zeros((0, 6)), [], 0.0)
        beam = FlexibleBody(
            "beam", mass, rod, [length / 2, 0, 0], d["participation"], d["frequencies"], 0.01
        )
    assert np.linalg.eigvalsh(beam.residual_mass)[0] < 1e-12  # singular, not a defect
    # the modes taking all the mass in a direction, or some where there is none, are
    lz = [[0, 0, 1.0, 0, 0, 0]]
    with pytest.warns(ResidualMassWarning, match="smallest eigenvalue 0"):
        FlexibleBody("all", 1.0, 0.1 * np.eye(3), [0, 0, 0], lz, [3.0], 0.01)
    with pytest.warns(ResidualMassWarning, match="smallest eigenvalue -1"):
        FlexibleBody("pm", 1.0, np.zeros((3, 3)), [0, 0, 0], [[0, 0, 0, 1.0, 0, 0]], [3.0], 0.0)


def test_beam_on_a_free_hub_has_the_free_free_frequencies_of_a_full_fe_model():
    # All clamped-free modes of a beam mesh on a rigid hub at P give the free-free
    # frequencies of the hub + beam finite-element model assembled here (same mesh).
    from robustmb.multibody.beam_modes import beam_modal_data

    mh, jh, lb, mb, ei, ne = 20.0, 3.0, 2.0, 4.0, 50.0, 6
    le, rho = lb / ne, mb / lb
    c = rho * le / 420.0
    me = c * np.array(
        [
            [156, 22 * le, 54, -13 * le],
            [22 * le, 4 * le**2, 13 * le, -3 * le**2],
            [54, 13 * le, 156, -22 * le],
            [-13 * le, -3 * le**2, -22 * le, 4 * le**2],
        ]
    )
    ke = (ei / le**3) * np.array(
        [
            [12, 6 * le, -12, 6 * le],
            [6 * le, 4 * le**2, -6 * le, 2 * le**2],
            [-12, -6 * le, 12, -6 * le],
            [6 * le, 2 * le**2, -6 * le, 4 * le**2],
        ]
    )
    nd = 2 * (ne + 1)  # v, v' per node (x-y plane); node 0 is the hub
    mm, kk = np.zeros((nd, nd)), np.zeros((nd, nd))
    for e in range(ne):
        i = slice(2 * e, 2 * e + 4)
        mm[i, i] += me
        kk[i, i] += ke
    mm[0, 0] += mh
    mm[1, 1] += jh
    ref = np.sqrt(sla.eigh(kk, mm, eigvals_only=True)[2:])  # drop the two rigid modes
    d = beam_modal_data(lb, mb, ei, n_elements=ne, n_modes=4 * ne)
    rod = np.diag([0.0, mb * lb**2 / 12, mb * lb**2 / 12])
    body = FlexibleBody("b", mb, rod, [lb / 2, 0, 0], d["participation"], d["frequencies"], 0.0)
    t = body.titop().nominal()
    a, b, cc, dd = (np.asarray(x) for x in (t.A, t.B, t.C, t.D))
    # hub: D_hub x''_P = W_P = C x + D x''_P
    dh = np.diag([mh, mh, mh, jh, jh, jh])
    poles = np.linalg.eigvals(a + b @ np.linalg.solve(dh - dd, cc))
    w = np.sort(np.abs(poles.imag))[::2]  # each +-j pair once
    # equal stiffnesses: every x-y frequency has its x-z twin
    np.testing.assert_allclose(w, np.repeat(ref, 2), rtol=1e-9)
