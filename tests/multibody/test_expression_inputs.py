"""Uncertain expressions (not only plain ureals) as example parameters and applied wrenches.

- ``uncertain_gravimeter`` takes stiffnesses and dampings that are expressions of ureals
  (``2 k``, ``k - 5e3``, a list mixing them with numbers, a 3x1 uncertain matrix): at the
  corners of the box its poles are those of the numeric ``gravimeter`` and of the
  planar model written out by hand (``M = diag(m, m, I)``, ``K = J^T diag(k) J``);
- an expression that is negative somewhere on the box (over all of it, at one vertex
  only, or only between grid points of a non-affine one) is refused naming the argument
  and the point; the actuator position ``la`` must be positive on the box;
- a floating base of uncertain mass ``m`` held by an inertial applied wrench written as
  a plain list of expressions ``m * a`` (force and moment) linearises, and at the two
  ends of the mass range equals Pinocchio's linearisation; a list, a tuple, a column
  and an object array give the identical LFT, an uncertain row the same model;
- malformed wrenches raise ``DimensionError`` / ``UncertainTypeError`` naming the wrench.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.decoupling import frequency_response
from robustmb.errors import (
    ArgumentError,
    DimensionError,
    IllPosedError,
    RobustMBWarning,
    UncertainTypeError,
)
from robustmb.examples.gravimeter import gravimeter, uncertain_gravimeter
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity, rotation_matrix

# ---------------------------------------------------------------- gravimeter
K0 = rmb.ureal("k0", 7.5e3, range=(6e3, 9e3))
K1 = rmb.ureal("k1", 15e3, range=(13.5e3, 16.5e3))
C0 = rmb.ureal("c0", 10.0, range=(5.0, 15.0))


def _hand_poles(k, c, *, l=1.0, h=1.7, m=400.0, inertia=115.0):
    """Poles of the planar payload on three struts, written out (la = l/2, ha = h/2).

    Strut ``i`` at point ``b`` along ``s`` adds ``k_i j^T j`` with
    ``j = [s_x, s_y, b_x s_y - b_y s_x]``: ``[1, 0, ha]``, ``[0, 1, -la]``, ``[0, 1, la]``.
    """
    la, ha = l / 2, h / 2
    jac = np.array([[1.0, 0.0, ha], [0.0, 1.0, -la], [0.0, 1.0, la]])
    kk = jac.T @ np.diag(np.broadcast_to(k, 3)) @ jac
    cc = jac.T @ np.diag(np.broadcast_to(c, 3)) @ jac
    minv = np.diag([1 / m, 1 / m, 1 / inertia])
    a = np.block([[np.zeros((3, 3)), np.eye(3)], [-minv @ kk, -minv @ cc]])
    return np.linalg.eigvals(a)


def _same_poles(p, q):
    # ordered by imaginary part first: real parts of lightly damped poles are small and
    # carry rounding, which must not decide the order
    p, q = (np.asarray(x)[np.lexsort((np.real(x), np.round(np.imag(x), 6)))] for x in (p, q))
    np.testing.assert_allclose(p, q, rtol=1e-9, atol=1e-9)


CORNERS = [(6e3, 13.5e3, 5.0), (6e3, 16.5e3, 15.0), (9e3, 13.5e3, 15.0), (9e3, 16.5e3, 5.0)]


@pytest.mark.parametrize(
    "k, c, numeric",
    [
        # one expression for every strut
        (2 * K0, 20.0, lambda k0, k1, c0: (2 * k0, 20.0)),
        # a list mixing an expression, a ureal and a number; c an expression too
        (
            [K0 + 7.5e3, K1, 15e3],
            2 * C0,
            lambda k0, k1, c0: ([k0 + 7.5e3, k1, 15e3], 2 * c0),
        ),
        # a 3x1 uncertain matrix of entries; c a tuple with an expression
        (
            rmb.umat([[2 * K0], [K1], [K1 - 3e3]]),
            (C0, 20.0, 40.0 - C0),
            lambda k0, k1, c0: ([2 * k0, k1, k1 - 3e3], [c0, 20.0, 40.0 - c0]),
        ),
    ],
    ids=["2k", "list", "umat"],
)
def test_gravimeter_expressions_match_the_numeric_model_at_the_corners(k, c, numeric):
    G = uncertain_gravimeter(k=k, c=c)
    w = 2 * np.pi * np.logspace(-1, 2, 7)
    for k0, k1, c0 in CORNERS:
        values = {n: v for n, v in (("k0", k0), ("k1", k1), ("c0", c0)) if n in G.blocks}
        Gv = G.usubs(values)
        kv, cv = numeric(k0, k1, c0)
        ref = gravimeter(k=kv, c=cv)
        _same_poles(Gv.poles(), ref.model().poles())
        _same_poles(Gv.poles(), _hand_poles(kv, cv))
        np.testing.assert_allclose(
            frequency_response(Gv, w), frequency_response(ref.plant(), w), rtol=1e-9, atol=1e-15
        )


def test_object_array_and_list_give_the_same_gravimeter():
    kk = np.empty(3, dtype=object)
    kk[:] = [0.0, 15e3, 15e3]
    kk[0] = 2 * K0
    G1 = uncertain_gravimeter(k=kk)
    G2 = uncertain_gravimeter(k=[2 * K0, 15e3, 15e3])
    M1, b1 = rmb.lftdata(G1)
    M2, b2 = rmb.lftdata(G2)
    assert b1 == b2
    for x in "ABCD":
        np.testing.assert_array_equal(getattr(M1, x), getattr(M2, x))


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        # negative over the whole range (k0 - 2e4 <= -1.1e4): nominal plant unstable
        (
            dict(k=[K0 - 2e4, 1e4, 1e4]),
            ArgumentError,
            r"uncertain_gravimeter: k must be non-negative \(entry 0 of 3\), got -12500\.0 "
            r"\(nominal\)",
        ),
        # only at the vertex k1 = 13.5e3 (k1 - 14e3 = -500)
        (
            dict(k=[1e4, K1 - 14e3, 1e4]),
            ArgumentError,
            r"k must be non-negative \(entry 1 of 3\), got -500\.0 \(at the vertex "
            r"\{'k1': 13500\}",
        ),
        (
            dict(c=2 * C0 - 12.0),
            ArgumentError,
            r"uncertain_gravimeter: c must be non-negative, got -2\.0 \(at the vertex "
            r"\{'c0': 5\}",
        ),
        # la must be positive: zero on the whole box, negative at a vertex
        (dict(la=0.0 * K0 + 0.0), ArgumentError, r"la must be positive, got 0\.0 \(nominal\)"),
        (
            dict(la=K0 / 1.5e4 - 0.45),
            ArgumentError,
            r"la must be positive, got -0\.05\d* \(at the vertex \{'k0': 6000\}",
        ),
        # a complex element inside an expression, a system, a wrong count, a nested list
        (dict(k=K0 + rmb.ucomplex("q", 1.0)), ArgumentError, "k: .*complex element 'q'"),
        (dict(ha=rmb.ucomplex("q", 1.0)), ArgumentError, "ha must be real"),
        (dict(k=rmb.umat([[K0, K1]])), DimensionError, r"k must be one value or 3, .*\(1, 2\)"),
        (dict(k=[K0, K1]), DimensionError, r"k must be one value or 3, got shape \(2,\)"),
        (dict(c=[C0, [1.0], 2.0]), DimensionError, r"c must be one value or 3, .*entry 1"),
        (dict(k=[[1e4, 1e4, 1e4]]), DimensionError, r"k must be one value or 3, .*\(1, 3\)"),
        (dict(k=[K0, True, 1e4]), ArgumentError, r"a number or a ureal, got True \(entry 1 of 3\)"),
    ],
    ids=[
        "k-negative-everywhere",
        "k-negative-at-a-vertex",
        "c-negative-at-a-vertex",
        "la-zero",
        "la-negative-at-a-vertex",
        "k-complex",
        "ha-complex",
        "k-1x2",
        "k-two",
        "c-nested",
        "k-row",
        "k-bool",
    ],
)
def test_gravimeter_refuses_expressions_out_of_range(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        uncertain_gravimeter(**kwargs)


def test_numeric_gravimeter_refuses_an_expression_naming_it():
    with pytest.raises(ArgumentError, match=r"gravimeter: k must be a number, .*\(entry 0 of 3\)"):
        gravimeter(k=[2 * K0, 1e4, 1e4])


def test_non_affine_expression_checked_on_a_grid():
    # (k1 - 14e3)(k1 - 14.5e3) is positive at the nominal and both ends of the range,
    # negative in between: the grid of the box finds it
    bad = (K1 - 14e3) * (K1 - 14.5e3)
    with pytest.raises(ArgumentError, match=r"k must be non-negative .*at the point"):
        uncertain_gravimeter(k=[1e4, bad, 1e4])
    # 1e4 + (k1 - 15e3)^2 >= 1e4 everywhere: not multi-affine, proved positive over the
    # whole box by the mu certificate of the parameter box, so accepted without a warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        G = uncertain_gravimeter(k=[1e4, 1e4, 1e4 + (K1 - 15e3) ** 2])
    assert not any(issubclass(w.category, RobustMBWarning) for w in caught)
    _same_poles(G.usubs({"k1": 16e3}).poles(), _hand_poles([1e4, 1e4, 1e4 + 1e6], 20.0))


# ---------------------------------------------------------------- applied wrench, floating base
pin = pytest.importorskip("pinocchio")

G0 = 9.81
W = np.array([0.05, 0.7, 3.0, 20.0])
R0 = rotation_matrix([1, 2, 3], 0.7)
PB = np.array([0.3, -0.2, 1.0])
COG = np.array([0.05, -0.02, 0.1])
HUB_INERTIA = np.array([[200.0, 5.0, -3.0], [5.0, 150.0, 2.0], [-3.0, 2.0, 180.0]])
MP = 10.0  # mass of the child link, its centre at [0, 2.5, 0] of the hub (on the joint axis)
M = rmb.ureal("m", 500.0, range=(400.0, 650.0))


def _fr(a, b, c, d, w=W):
    n = a.shape[0]
    return np.array([c @ np.linalg.solve(1j * x * np.eye(n) - a, b) + d for x in w])


def _rel(h1, h2):
    return float(np.abs(h1 - h2).max() / np.abs(h2).max())


def _holding_wrench(m):
    """Inertial components of the wrench at the hub origin that cancels both weights.

    Weights ``m g`` at the hub's centre ``R0 COG`` and ``MP g`` at the link's centre
    ``R0 [0, 2.5, 0]`` (the link's centre lies on its joint axis, so the joint angle
    does not move it); ``g = [0, 0, -G0]``.  Entries are ``m * a`` expressions when
    ``m`` is a ureal.
    """
    g = np.array([0.0, 0.0, -G0])
    r_hub = R0 @ COG
    r_link = R0 @ np.array([0.0, 2.5, 0.0])
    force = [-(m * g[i]) - MP * g[i] for i in range(3)]
    t_hub = np.cross(r_hub, g)  # moment of a unit mass at the hub's centre
    t_link = np.cross(r_link, MP * g)
    moment = [-(m * t_hub[i]) - t_link[i] for i in range(3)]
    return force + moment


def _satellite(wrench):
    mech = Mechanism(
        acceleration=gravity(G0), floating_base="hub", base_orientation=R0, base_position=PB
    )
    mech.add_body(
        RigidBody(
            "hub", mass=M, inertia=HUB_INERTIA, cog=COG, ports={"O": [0, 0, 0], "A": [0, 1.0, 0]}
        )
    )
    mech.add_body(
        RigidBody("p1", mass=MP, inertia=[7.5, 0.2, 7.5], cog=[0, 1.5, 0], ports={"P": [0] * 3})
    )
    mech.add_joint(
        RevoluteJoint("J1", ("hub", "A"), ("p1", "P"), [0, 1, 0], angle=0.4, stiffness=50.0)
    )
    mech.add_wrench_input("push", "hub", "O")
    mech.add_applied_wrench("hold", "hub", "O", wrench, frame="inertial")
    return mech


def _pin_reference(m):
    """Pinocchio's linearisation at rest with the inertial holding wrench, mass ``m``."""
    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -G0])
    jb = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    model.appendBodyToJoint(jb, pin.Inertia(m, COG, HUB_INERTIA), pin.SE3.Identity())
    j1 = model.addJoint(
        jb,
        pin.JointModelRevoluteUnaligned(0, 1, 0),
        pin.SE3(np.eye(3), np.array([0, 1.0, 0])),
        "J1",
    )
    model.appendBodyToJoint(
        j1, pin.Inertia(MP, np.array([0, 1.5, 0]), np.diag([7.5, 0.2, 7.5])), pin.SE3.Identity()
    )
    q0 = np.r_[PB, pin.Quaternion(R0).coeffs(), 0.4]
    data = model.createData()
    tau0 = pin.rnea(model, data, q0, np.zeros(7), np.zeros(7))
    f_b, t_b = tau0[:3], tau0[3:6]
    # the free-flyer effort holding the base is the wrench of _holding_wrench in base axes
    np.testing.assert_allclose(
        np.r_[R0 @ f_b, R0 @ t_b], np.array(_holding_wrench(m), float), rtol=1e-12, atol=1e-9
    )
    # inertial components: base-axes components R^T x turn with the base (local r)
    extra = np.zeros((7, 7))
    extra[0:3, 3:6] = pin.skew(f_b)
    extra[3:6, 3:6] = pin.skew(t_b)
    stiffness = np.zeros((7, 7))
    stiffness[6, 6] = 50.0
    pin.computeABADerivatives(model, data, q0, np.zeros(7), tau0)
    minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
    dq = data.ddq_dq - minv @ stiffness + minv @ extra
    a = np.block([[np.zeros((7, 7)), np.eye(7)], [dq, data.ddq_dv]])
    b = np.vstack([np.zeros((7, 7)), minv])
    # inputs: the joint effort, then the wrench input in base axes at the base origin
    return a, b[:, [6, 0, 1, 2, 3, 4, 5]], np.hstack([np.eye(7), np.zeros((7, 7))])


def test_floating_base_held_by_a_list_of_mass_expressions_matches_pinocchio():
    lin = _satellite(_holding_wrench(M)).linearize()
    assert set(lin.blocks) == {"m"}
    assert lin.input_names[0] == "J1_effort" and lin.input_names[1:4] == [
        "push_Fx",
        "push_Fy",
        "push_Fz",
    ]
    for m in (400.0, 650.0, 500.0):
        a, b, c = _pin_reference(m)
        got = lin.usubs({"m": m})
        ref = _fr(a, b, c, np.zeros((7, 7)))
        assert _rel(_fr(got.A, got.B, got.C, got.D), ref) <= 1e-9


def test_wrench_list_object_array_and_uncertain_row_give_the_same_model():
    entries = _holding_wrench(M)
    arr = np.empty(6, dtype=object)
    for i, e in enumerate(entries):
        arr[i] = e
    forms = {
        "list": entries,
        "tuple": tuple(entries),
        "object array": arr,
        "column": [[e] for e in entries],
    }
    # the same entries in any container: the identical LFT
    models = {k: rmb.lftdata(_satellite(w).linearize()) for k, w in forms.items()}
    M_ref, b_ref = models["object array"]
    for k, (Mk, bk) in models.items():
        assert bk == b_ref, k
        for x in "ABCD":
            np.testing.assert_array_equal(getattr(Mk, x), getattr(M_ref, x), err_msg=k)
    # entries read back from one uncertain row are other realisations of the same
    # expressions: the same model at every mass
    row = _satellite(rmb.umat([entries])).linearize()
    ref = _satellite(arr).linearize()
    assert row.blocks.keys() == ref.blocks.keys()
    for m in (400.0, 470.0, 650.0):
        a, b = row.usubs({"m": m}), ref.usubs({"m": m})
        assert _rel(_fr(a.A, a.B, a.C, a.D), _fr(b.A, b.B, b.C, b.D)) <= 1e-12


def test_unbalanced_expression_is_refused_at_a_vertex():
    # a force for the nominal mass only: balanced at m = 500, not at the range ends
    wrench = _holding_wrench(500.0)
    with pytest.raises(IllPosedError, match=r"residual wrench .*vertex \{'m': 400\}"):
        _satellite(wrench).linearize()


@pytest.mark.parametrize(
    "wrench, error, pattern",
    [
        (2 * M, DimensionError, r"applied wrench 'hold' needs 6 components, got an object"),
        ([0.0] * 5, DimensionError, r"applied wrench 'hold' needs 6 components, got 5"),
        (np.zeros((2, 3)), DimensionError, r"'hold' needs 6 components, .*shape \(2, 3\)"),
        ({"Fz": 1.0}, DimensionError, r"'hold' needs 6 components, got dict"),
        ([0, 0, [1.0, 2.0], 0, 0, 0], DimensionError, r"'hold'\[2\] must be a scalar"),
        ([0, 0, rmb.umat([[M], [M]]), 0, 0, 0], DimensionError, r"'hold'\[2\] must be a scal"),
        ([0, 0, float("nan"), 0, 0, 0], DimensionError, r"'hold'\[2\] must be finite"),
        ([0, 0, "up", 0, 0, 0], UncertainTypeError, r"'hold'\[2\] must be a number"),
        ([0, 0, True, 0, 0, 0], UncertainTypeError, r"'hold'\[2\] must be a number"),
        ([0, 0, M + rmb.ucomplex("q", 1.0), 0, 0, 0], UncertainTypeError, r"'hold'\[2\]: only"),
        ([0, 0, M * rmb.ultidyn("D", (1, 1)), 0, 0, 0], UncertainTypeError, r"\[2\]: only"),
    ],
    ids=["scalar", "five", "2x3", "dict", "nested", "2x1", "nan", "str", "bool", "cplx", "dyn"],
)
def test_malformed_wrench_names_the_wrench(wrench, error, pattern):
    with pytest.raises(error, match=pattern):
        _satellite(wrench)
