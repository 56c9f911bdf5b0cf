"""Spatial-algebra identities (seed 000, Property 2.4) and the DCM LFTs."""

import numpy as np
import pytest

import robustmb.lft as rmb
from robustmb.multibody import (
    kinematic_model,
    rotation_lft,
    rotation_matrix,
    skew,
    spatial_inertia,
    transport_twist,
    transport_wrench,
)

rng = np.random.default_rng(7)


def test_skew_is_cross_product():
    u, v = rng.normal(size=3), rng.normal(size=3)
    assert np.allclose(skew(u) @ v, np.cross(u, v), atol=1e-14)


def test_kinematic_model_inverse_and_transitivity():
    pc, cq = rng.normal(size=3), rng.normal(size=3)
    t_pc, t_cp = kinematic_model(pc), kinematic_model(-pc)
    assert np.allclose(t_pc @ t_cp, np.eye(6), atol=1e-14)
    assert np.allclose(t_pc @ kinematic_model(cq), kinematic_model(pc + cq), atol=1e-14)
    a6 = np.r_[rng.normal(size=3), np.zeros(3)]
    assert np.allclose(t_pc @ a6, a6)


def test_twist_and_wrench_transport_against_vector_mechanics():
    pc = rng.normal(size=3)
    v_c, w = rng.normal(size=3), rng.normal(size=3)
    tw_p = transport_twist(np.r_[v_c, w], pc).ravel()
    # v_P = v_C + omega x (P - C), with P - C = -PC
    assert np.allclose(tw_p[:3], v_c + np.cross(w, -pc))
    f, t_p = rng.normal(size=3), rng.normal(size=3)
    w_c = transport_wrench(np.r_[f, t_p], pc).ravel()
    # T_C = T_P + (P - C) x F
    assert np.allclose(w_c[3:], t_p + np.cross(-pc, f))
    # power is invariant: W_C . twist_C = W_P . twist_P
    assert np.isclose(w_c @ np.r_[v_c, w], np.r_[f, t_p] @ tw_p)


def test_spatial_inertia_huygens_and_symmetry():
    m = 2.5
    a = rng.normal(size=(3, 3))
    j = a @ a.T + np.eye(3)
    bp = rng.normal(size=3)
    d = spatial_inertia(m, j, bp)
    assert np.allclose(d, d.T)
    assert np.all(np.linalg.eigvalsh(d) > 0)
    huygens = j + m * (bp @ bp * np.eye(3) - np.outer(bp, bp))
    assert np.allclose(d[3:, 3:], huygens)
    assert np.allclose(d[:3, :3], m * np.eye(3))


def test_spatial_inertia_is_exact_in_uncertain_mass_and_lever():
    m = rmb.ureal("m", 2.0, percent=20)
    arm = rmb.ureal("arm", 0.5, range=(0.3, 0.8))
    d = spatial_inertia(m, np.eye(3), [0.0, arm, 0.0])
    for mv, av in [(1.7, 0.31), (2.3, 0.77)]:
        assert np.allclose(
            d.usubs({"m": mv, "arm": av}),
            spatial_inertia(mv, np.eye(3), [0.0, av, 0.0]),
            atol=1e-13,
        )


@pytest.mark.parametrize("passive", [False, True])
def test_rotation_lft_tan_half(passive):
    t = rmb.ureal("t", 0.2, range=(-1.5, 1.5))
    for _ in range(3):
        axis = rng.normal(size=3)
        r = rotation_lft(axis, t, passive=passive)
        assert r.blocks == {"t": 2}
        for tv in rng.uniform(-1.5, 1.5, 4):
            th = 2 * np.arctan(tv) * (-1 if passive else 1)
            assert np.abs(r.usubs({"t": tv}) - rotation_matrix(axis, th)).max() < 1e-14


def test_rotation_lft_tan_quarter_covers_the_full_turn():
    t = rmb.ureal("t", 0.0, range=(-0.99, 0.99))
    axis = rng.normal(size=3)
    r = rotation_lft(axis, t, quarter=True)
    assert r.blocks == {"t": 4}
    for tv in (-0.99, -0.5, 0.7, 0.99):  # |theta| up to 4 atan(0.99) ~ 178.9 deg
        assert np.abs(r.usubs({"t": tv}) - rotation_matrix(axis, 4 * np.arctan(tv))).max() < 1e-13


def test_rotation_derivative_sign_of_the_passive_dcm():
    # dP_{b/a}/dtheta = -skew(r) P_{b/a} (digest P1): finite differences of the same function
    axis = rng.normal(size=3)
    r = axis / np.linalg.norm(axis)
    th, h = 0.7, 1e-6
    dp = (rotation_matrix(r, -(th + h)) - rotation_matrix(r, -(th - h))) / (2 * h)
    assert np.allclose(dp, -skew(r) @ rotation_matrix(r, -th), atol=1e-9)
