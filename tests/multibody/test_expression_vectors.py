"""Vectors whose entries are uncertain expressions (``2 * k``), read entry by entry.

- a body's centre of mass and ports may hold a 1x1 expression in any position (the first
  one used to be refused as "must have 3 entries"): a pendulum with ``cog = [0, 0, 2 k]``
  is the model with a plain ureal ``c = 2 k`` and the model with an object array, and at
  the ends of the range equals Pinocchio's linearisation; a port ``[2 k, 0, 0]`` gives
  the closed-form pendulum ``1 / ((J + m d^2) s^2 + m g d)``;
- frame accelerations and trim / port wrenches of the blocks (``body_trim_wrench``,
  ``child_frame_acceleration``, ``joint_trim``, ``joint_block``, ``floating_body_block``)
  take lists of expressions: the same model as plain ureals and as a 3x1 / 6x1 uncertain
  matrix, and the closed-form weight and transported wrench at the range ends;
- where uncertain values are not supported (the acceleration field of a mechanism,
  ``beam_modal_data``, ``balloon_gondola``) an expression raises the error that a plain
  ureal raises, naming the argument and the entry; malformed entries (complex, dynamic,
  non-scalar, ragged) raise errors naming the vector and the entry.
"""

from __future__ import annotations

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, SignalError, UncertainTypeError
from robustmb.examples import balloon_gondola
from robustmb.multibody import (
    Mechanism,
    RevoluteJoint,
    RigidBody,
    body_trim_wrench,
    child_frame_acceleration,
    floating_body_block,
    gravity,
    joint_block,
    joint_trim,
)
from robustmb.multibody.beam_modes import beam_modal_data

G0 = 9.81
MASS, JC = 2.0, 0.3
K = rmb.ureal("k", 0.5, range=(0.4, 0.6))
# the plain ureal equal to 2 k: same normalised deviation, c = 2 k
C2K = rmb.ureal("c", 1.0, range=(0.8, 1.2))
K_VALUES = (0.4, 0.47, 0.5, 0.6)
P3 = [1.0, 2.0, 3.0]


def _fr(a, b, c, d, omegas=(0.3, 1.0, 4.0, 17.0)):
    a, b, c, d = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (a, b, c, d))
    n = a.shape[0]
    return np.stack([c @ np.linalg.solve(1j * w * np.eye(n) - a, b) + d for w in omegas])


def _rel(x, y):
    return np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-300)


def _assert_same_lft(x, y, msg=""):
    """Identical LFT data (``lftdata``) of two uncertain objects."""
    (mx, bx), (my, by) = rmb.lftdata(rmb.umat(x)), rmb.lftdata(rmb.umat(y))
    assert bx == by, msg
    if isinstance(my, np.ndarray):
        np.testing.assert_array_equal(mx, my, err_msg=msg)
        return
    for part in "ABCD":
        np.testing.assert_array_equal(getattr(mx, part), getattr(my, part), err_msg=msg)


def _object_array(entries):
    arr = np.empty(len(entries), dtype=object)
    for i, e in enumerate(entries):
        arr[i] = e
    return arr


def _pendulum(cog, port=(0.0, 0.0, 2.0), acceleration=None, axis=(1, 0, 0)):
    """A body hanging from the ground at ``port`` (revolute about ``axis``; gravity -z)."""
    mech = Mechanism(acceleration=gravity(G0) if acceleration is None else acceleration)
    mech.add_body(RigidBody("bob", mass=MASS, inertia=JC, cog=cog, ports={"P": port}))
    mech.add_joint(
        RevoluteJoint(
            "J", ("ground", "O"), ("bob", "P"), list(axis), input_name="T", output_name="theta"
        )
    )
    return mech.linearize()


def _pin_pendulum(d):
    """Pinocchio: point of rotation at the origin, centre of mass ``d`` below it."""
    pin = pytest.importorskip("pinocchio")
    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -G0])
    j = model.addJoint(0, pin.JointModelRevoluteUnaligned(1, 0, 0), pin.SE3.Identity(), "J")
    model.appendBodyToJoint(
        j, pin.Inertia(MASS, np.array([0.0, 0.0, -d]), JC * np.eye(3)), pin.SE3.Identity()
    )
    data = model.createData()
    q0, v0 = np.zeros(1), np.zeros(1)
    tau0 = pin.rnea(model, data, q0, v0, v0)
    np.testing.assert_allclose(tau0, 0.0, atol=1e-12)  # hanging: at rest
    pin.computeABADerivatives(model, data, q0, v0, tau0)
    a = np.block([[np.zeros((1, 1)), np.eye(1)], [data.ddq_dq, data.ddq_dv]])
    b = np.vstack([np.zeros((1, 1)), data.Minv])
    return a, b, np.array([[1.0, 0.0]]), np.zeros((1, 1))


# ---------------------------------------------------------------- cog and ports
def test_cog_expression_is_the_plain_ureal_model_and_pinocchio_at_the_range_ends():
    expr = _pendulum([0, 0, 2 * K])
    plain = _pendulum([0, 0, C2K])
    assert set(expr.blocks) == {"k"} and set(plain.blocks) == {"c"}
    for k in K_VALUES:
        a, b = expr.usubs({"k": k}), plain.usubs({"c": 2 * k})
        assert _rel(_fr(a.A, a.B, a.C, a.D), _fr(b.A, b.B, b.C, b.D)) <= 1e-12
    for k in (0.4, 0.6):  # the range ends: the centre of mass 2 - 2 k below the pivot
        got = expr.usubs({"k": k})
        ref = _fr(*_pin_pendulum(2.0 - 2 * k))
        assert _rel(_fr(got.A, got.B, got.C, got.D), ref) <= 1e-9


@pytest.mark.parametrize("pos", [0, 1, 2])
def test_cog_list_tuple_object_array_and_column_give_the_identical_lft(pos):
    entries = [0.0, 0.0, 0.0]
    entries[pos] = 2 * K
    forms = {
        "list": entries,
        "tuple": tuple(entries),
        "object array": _object_array(entries),
        "column": [[e] for e in entries],
    }
    ref_body = RigidBody("b", mass=MASS, inertia=JC, cog=forms["object array"], ports={"P": P3})
    for name, cog in forms.items():
        body = RigidBody("b", mass=MASS, inertia=JC, cog=cog, ports={"P": P3})
        _assert_same_lft(
            body.spatial_inertia_at(body.port("P")),
            ref_body.spatial_inertia_at(ref_body.port("P")),
            name,
        )
        # at the range ends: the numeric body
        for k in (0.4, 0.6):
            num = [0.0, 0.0, 0.0]
            num[pos] = 2 * k
            ref = RigidBody("n", mass=MASS, inertia=JC, cog=num, ports={"P": P3})
            got = np.asarray(
                rmb.umat(body.spatial_inertia_at(body.port("P"))).usubs({"k": k}), float
            )
            want = ref.spatial_inertia_at(ref.port("P"))
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)


def test_port_expression_first_gives_the_closed_form_pendulum():
    # gravity along -x, the pivot P = (2 k, 0, 0) above the centre of mass, axis z
    lin = _pendulum(
        [0, 0, 0], port=[2 * K, 0, 0], acceleration=gravity(G0, (-1, 0, 0)), axis=(0, 0, 1)
    )
    plain = _pendulum(
        [0, 0, 0], port=[C2K, 0, 0], acceleration=gravity(G0, (-1, 0, 0)), axis=(0, 0, 1)
    )
    omegas = np.array([0.3, 1.0, 4.0, 17.0])
    for k in K_VALUES:
        d = 2 * k
        closed = 1.0 / ((JC + MASS * d**2) * (1j * omegas) ** 2 + MASS * G0 * d)
        got = lin.usubs({"k": k})
        resp = _fr(got.A, got.B, got.C, got.D, omegas).reshape(-1)
        assert _rel(resp, closed) <= 1e-10
        other = plain.usubs({"c": d})
        assert _rel(_fr(other.A, other.B, other.C, other.D, omegas).reshape(-1), resp) <= 1e-12


# ---------------------------------------------------------------- block arguments
ROD = RigidBody("rod", mass=MASS, cog=[0, 0.5, 0], ports={"P": [0, 0, 0], "C": [0.3, 1.0, 0.2]})
A = rmb.ureal("a", 9.81, range=(9.0, 10.0))
A2 = rmb.ureal("a2", 2 * 9.81, range=(18.0, 20.0))  # = 2 a


def _num(x, values):
    if isinstance(x, np.ndarray) and x.dtype != object:
        return x
    return np.asarray(rmb.umat(x).usubs(values), float)


@pytest.mark.parametrize("pos", [0, 1, 2])
def test_body_trim_wrench_of_an_expression_acceleration_is_the_closed_form_weight(pos):
    acc = [0.0, 0.0, 0.0]
    acc[pos] = 2 * A
    plain = [0.0, 0.0, 0.0]
    plain[pos] = A2
    w_list = body_trim_wrench(ROD, "P", acc)
    w_col = body_trim_wrench(ROD, "P", rmb.umat([[e] for e in acc]))
    w_plain = body_trim_wrench(ROD, "P", plain)
    cog = np.array([0.0, 0.5, 0.0])
    for a in (9.0, 9.5, 10.0):
        vec = np.zeros(3)
        vec[pos] = 2 * a
        # W = -D_P [a; 0]: the force -m a and its moment about P
        closed = np.r_[-MASS * vec, -np.cross(cog, MASS * vec)].reshape(6, 1)
        got = _num(w_list, {"a": a})
        np.testing.assert_allclose(got, closed, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_num(w_col, {"a": a}), got, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_num(w_plain, {"a2": 2 * a}), got, rtol=1e-12, atol=1e-12)


def test_child_wrench_entries_as_expressions_are_transported_to_the_port():
    f = rmb.ureal("f", 3.0, range=(2.0, 4.0))
    child = [2 * f, 0.0, f - 1.0, 0.5 * f, 0.0, 0.0]
    w = body_trim_wrench(ROD, "P", [0, 0, 0], {"C": child})
    w_obj = body_trim_wrench(ROD, "P", [0, 0, 0], {"C": _object_array(child)})
    _assert_same_lft(w, w_obj)
    arm = np.array([0.3, 1.0, 0.2])
    for fv in (2.0, 3.0, 4.0):
        force, torque = np.array([2 * fv, 0.0, fv - 1.0]), np.array([0.5 * fv, 0.0, 0.0])
        closed = np.r_[force, torque + np.cross(arm, force)].reshape(6, 1)
        np.testing.assert_allclose(_num(w, {"f": fv}), closed, rtol=1e-12, atol=1e-12)


def test_child_frame_acceleration_and_joint_trim_read_expressions_in_any_position():
    j = RevoluteJoint("J", ("ground", "O"), ("rod", "P"), [0, 0, 1], angle=0.7)
    got = child_frame_acceleration(j, [2 * A, 0, A - 9.0])
    for a in (9.0, 10.0):
        ref = child_frame_acceleration(j, [2 * a, 0.0, a - 9.0])
        np.testing.assert_allclose(_num(got, {"a": a}), ref, rtol=1e-12, atol=1e-12)
    wrench = [2 * A, 0, 0, A, 0, 3 * A]
    force, torque = joint_trim(j, wrench)
    force_p, torque_p = joint_trim(j, rmb.umat([[e] for e in wrench]))
    for a in (9.0, 10.0):
        f_ref, t_ref = joint_trim(j, [2 * a, 0, 0, a, 0, 3 * a])
        for x, y, ref in ((force, force_p, f_ref), (torque, torque_p, t_ref)):
            np.testing.assert_allclose(_num(x, {"a": a}), ref, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(_num(y, {"a": a}), ref, rtol=1e-12, atol=1e-12)


def test_joint_and_floating_blocks_with_expression_arguments_match_plain_ureals():
    bob = RigidBody("bob", mass=MASS, inertia=JC, ports={"P": [0, 0, 1.0]})
    j = RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0])
    acc = [0.0, 0.0, 2 * A]
    trim = body_trim_wrench(bob, "P", child_frame_acceleration(j, acc))
    expr = joint_block(j, frame_acceleration=acc, trim_wrench=[trim[i, 0] for i in range(6)])
    w_plain = body_trim_wrench(bob, "P", child_frame_acceleration(j, [0, 0, A2]))
    plain = joint_block(j, frame_acceleration=[0, 0, A2], trim_wrench=w_plain)
    fexpr = floating_body_block(bob, frame_acceleration=[2 * A, 0, 0])
    fplain = floating_body_block(bob, frame_acceleration=[A2, 0, 0])
    for a in (9.0, 9.4, 10.0):
        for e, p in ((expr, plain), (fexpr, fplain)):
            x, y = e.usubs({"a": a}), p.usubs({"a2": 2 * a})
            assert _rel(_fr(x.A, x.B, x.C, x.D), _fr(y.A, y.B, y.C, y.D)) <= 1e-12


# ---------------------------------------------------------------- not supported / malformed
@pytest.mark.parametrize("pos", [0, 1, 2])
@pytest.mark.parametrize("value", [K, 2 * K], ids=["ureal", "expression"])
def test_uncertain_mechanism_acceleration_is_refused_naming_the_entry(pos, value):
    acc = [0.0, 0.0, 0.0]
    acc[pos] = value
    with pytest.raises(UncertainTypeError, match=rf"acceleration\[{pos}\] is uncertain"):
        Mechanism(acceleration=acc)
    with pytest.raises(UncertainTypeError, match=r"uncertain acceleration field is not supp"):
        Mechanism(acceleration=_object_array(acc))


def test_ragged_mechanism_acceleration_is_a_signal_error():
    with pytest.raises(SignalError, match="acceleration must be 3 finite numbers"):
        Mechanism(acceleration=[[0.0], [0.0, 9.81]])


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        (dict(ei=2 * K), r"ei must be a number, got .*computed numerically"),
        (dict(ei=K), r"ei must be a number, got ureal"),
        (dict(ei=(50.0, 2 * K)), r"ei must be a number, .*\(entry 1, the x-z plane\)"),
        (dict(ei=[2 * K, 50.0]), r"ei must be a number, .*\(entry 0, the x-y plane\)"),
        (dict(ei=[[1.0], [1.0, 2.0]]), r"ei must be a rectangular array"),
        (dict(mass=2 * K), r"mass must be a number"),
        (dict(length=2 * K), r"length must be a number"),
        (dict(ei=True), r"ei must be a number, got True"),
    ],
    ids=["expr", "ureal", "second", "first", "ragged", "mass", "length", "bool"],
)
def test_beam_modal_data_refuses_expressions_with_an_argument_error(kwargs, pattern):
    args = dict(length=2.0, mass=4.0, ei=50.0) | kwargs
    with pytest.raises(ArgumentError, match=pattern):
        beam_modal_data(args["length"], args["mass"], args["ei"], n_modes=2)


def test_beam_modal_data_two_stiffnesses_as_array_still_work():
    # the x-z plane stiffer by 4: its first frequency doubles (Euler-Bernoulli w ~ sqrt(EI))
    d = beam_modal_data(2.0, 4.0, np.array([50.0, 200.0]), n_modes=2)
    np.testing.assert_allclose(d["frequencies"][1] / d["frequencies"][0], 2.0, rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(damping=(2 * K, 0, 0)), ArgumentError, r"damping\[0\] must be a number.*numeric"),
        (dict(damping=(0, 0, K + 1)), ArgumentError, r"damping\[2\] must be a number"),
        (dict(damping=(0, K, 0)), ArgumentError, r"damping\[1\] must be a number"),
        (dict(k=2 * K), ArgumentError, r"balloon_gondola: k must be a number"),
        (dict(damping=(0, True, 0)), ArgumentError, r"damping\[1\] must be a number"),
        (dict(damping=[[0], [0, 1]]), DimensionError, r"damping must be a rectangular"),
        (dict(damping=(1.0, 2.0)), DimensionError, r"damping must be 3 numbers .*\(2,\)"),
    ],
    ids=["expr0", "expr2", "ureal1", "k", "bool", "ragged", "two"],
)
def test_balloon_refuses_uncertain_values_naming_the_entry(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        balloon_gondola(**kwargs)


def test_balloon_damping_as_numeric_array_still_works():
    mech, _, _ = balloon_gondola(damping=np.array([0.1, 0.2, 0.3]))
    assert [mech.joints[n].damping for n in ("slide", "hinge1", "hinge2")] == [0.1, 0.2, 0.3]


@pytest.mark.parametrize(
    "cog, error, pattern",
    [
        ([0, 0, K + rmb.ucomplex("q", 1.0)], UncertainTypeError, r"cog\[2\]: only real"),
        ([K * rmb.ultidyn("D", (1, 1)), 0, 0], UncertainTypeError, r"cog\[0\]: only real"),
        ([0, rmb.uss(2 * K), 0], UncertainTypeError, r"cog\[1\] must be static"),
        ([0, 0, rmb.umat([[K, K]])], DimensionError, r"cog\[2\] must be a scalar"),
        ([[0, 0], [2 * K]], DimensionError, r"cog must be a rectangular array"),
        ([0, 2 * K], DimensionError, r"cog must have 3 entries, got 2"),
        (np.array([0, 0, 1j]), UncertainTypeError, r"cog\[0\] must be a number"),
        (np.array([False, False, True]), UncertainTypeError, r"cog\[0\] must be a number"),
        ([0, 0, float("nan")], DimensionError, r"cog\[2\] must be finite"),
        (rmb.umat([[2 * K], [0], [0]]), UncertainTypeError, r"cog: give the three entries"),
    ],
    ids=["cplx", "dyn", "uss", "1x2", "ragged", "two", "complex", "bool", "nan", "umat"],
)
def test_malformed_cog_entries_name_the_body_and_the_entry(cog, error, pattern):
    with pytest.raises(error, match=rf"body 'b': {pattern}"):
        RigidBody("b", mass=1.0, cog=cog)


@pytest.mark.parametrize(
    "acc, error, pattern",
    [
        ([0, 0, 2 * K + rmb.ucomplex("q", 1.0)], UncertainTypeError, r"acceleration\[2\]: only"),
        ([2 * K, 0], DimensionError, r"frame_acceleration must have 3 entries, got 2"),
        ([[2 * K], [0, 0]], DimensionError, r"frame_acceleration must be a rectangular"),
        (rmb.umat([[K + rmb.ucomplex("q", 1.0)], [0], [0]]), UncertainTypeError, r"only real"),
    ],
    ids=["cplx", "two", "ragged", "umat-cplx"],
)
def test_malformed_frame_acceleration_names_the_argument(acc, error, pattern):
    with pytest.raises(error, match=pattern):
        body_trim_wrench(ROD, "P", acc)
