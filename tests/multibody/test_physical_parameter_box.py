"""Bodies and joints with uncertain physical parameters, and the checks of the LFT generator.

- inertias given as expressions of ureals (scalar, 3 entries, nested 3x3 lists, umat)
  build the LFT; at the corners of the box it equals Pinocchio's linearisation and
  the closed form of a rod ``m L^2 / 3`` about its end;
- masses, inertia tensors and rotor inertias are refused when they are unphysical
  anywhere on the box (a vertex where only the joint extremes of two ureals fail),
  accepted when a dense grid (numpy eigenvalues) shows they are physical;
- a floating base that needs a holding wrench raises, naming the wrench (Pinocchio's
  inverse dynamics gives the same); held explicitly in its own axes, or by an applied
  wrench fixed in inertial axes, the LFT equals Pinocchio's linearisation of each case;
- duplicate signal names and malformed arguments raise errors naming them.
"""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import (
    ArgumentError,
    DimensionError,
    IllPosedError,
    NameConflictError,
    RobustMBWarning,
    SignalError,
    UncertainTypeError,
)
from robustmb.multibody import (
    Mechanism,
    RevoluteJoint,
    RigidBody,
    gravity,
    rotation_matrix,
)
from robustmb.multibody.parameter_box import _symmetric_part, semidefinite_samples

pin = pytest.importorskip("pinocchio")

G = 9.81
W = np.array([0.05, 0.7, 3.0, 20.0])


def _fr(a, b, c, d, w=W):
    n = a.shape[0]
    return np.array([c @ np.linalg.solve(1j * x * np.eye(n) - a, b) + d for x in w])


def _rel(h1, h2):
    return float(np.abs(h1 - h2).max() / np.abs(h2).max())


def _pin_linearisation(model, q0, tau0, stiffness=None, extra_dq=None):
    """``x' = A x + B u`` of Pinocchio's forward dynamics at rest, effort ``tau0`` held."""
    data = model.createData()
    nv = model.nv
    pin.computeABADerivatives(model, data, q0, np.zeros(nv), tau0)
    minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
    dq = data.ddq_dq.copy()
    if stiffness is not None:
        dq -= minv @ stiffness
    if extra_dq is not None:
        dq += minv @ extra_dq
    a = np.block([[np.zeros((nv, nv)), np.eye(nv)], [dq, data.ddq_dv]])
    b = np.vstack([np.zeros((nv, nv)), minv])
    return a, b


# ---------------------------------------------------------------- 1. inertia expressions
M = rmb.ureal("m", 2.0, percent=20)
L = rmb.ureal("L", 1.0, range=(0.8, 1.3))


def _object_array(rows):
    arr = np.empty((3, 3), dtype=object)  # np.array would try to iterate the umat entries
    for i, row in enumerate(rows):
        for k, e in enumerate(row):
            arr[i, k] = e
    return arr


def _rod_inertias():
    """Transverse rod inertia m L^2/12 (x, y), zero along the rod (z), in four forms."""
    j = M * L * L / 12
    nested = [[j, 0.0, 0.0], [0.0, j, 0.0], [0.0, 0.0, 0.0]]
    return {
        "list": [j, j, 0.0],
        "nested": nested,
        "ndarray": _object_array(nested),
        "umat": rmb.umat(np.diag([1.0, 1.0, 0.0])) * j,
    }


@pytest.mark.parametrize("form", ["list", "nested", "ndarray", "umat"])
def test_rod_inertia_expression_matches_pinocchio_at_the_corners(form):
    inertia = _rod_inertias()[form]
    with warnings.catch_warnings():  # L * L is not affine, but mu proves it positive
        warnings.simplefilter("error")
        rod = RigidBody("rod", mass=M, inertia=inertia, cog=[0, 0, -0.5 * L], ports={"P": [0] * 3})
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(rod)
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("rod", "P"), [1, 0, 0]))
    lin = mech.linearize(rates=True)
    assert set(lin.blocks) == {"m", "L"}
    for m, length in itertools.product(M.range, L.range):
        got = lin.usubs({"m": m, "L": length})
        # closed form: J = m L^2/3 about the end, gravity stiffness m g L / 2
        j_end, k = m * length**2 / 3.0, m * G * length / 2.0
        s = 1j * W
        closed = 1.0 / (j_end * s**2 + k)
        assert np.allclose(_fr(got.A, got.B, got.C, got.D)[:, 0, 0], closed, rtol=1e-10)
        model = pin.Model()
        model.gravity.linear = np.array([0.0, 0.0, -G])
        jid = model.addJoint(0, pin.JointModelRX(), pin.SE3.Identity(), "J")
        inertia_c = np.diag([m * length**2 / 12, m * length**2 / 12, 0.0])
        model.appendBodyToJoint(
            jid, pin.Inertia(m, np.array([0, 0, -0.5 * length]), inertia_c), pin.SE3.Identity()
        )
        a, b = _pin_linearisation(model, np.zeros(1), np.zeros(1))
        ref = _fr(a, b, np.eye(2), np.zeros((2, 1)))
        assert _rel(_fr(got.A, got.B, got.C, got.D), ref) <= 1e-10


def test_scalar_inertia_expression_is_isotropic():
    j = M * L * L / 12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = RigidBody("b", mass=M, inertia=j)
    for m, length in itertools.product(M.range, L.range):
        d = body.spatial_inertia_at((0.0, 0.0, 0.0))
        got = np.asarray(rmb.usubs(d, {"m": m, "L": length}), dtype=float)
        ref = np.diag([m] * 3 + [m * length**2 / 12] * 3)
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "inertia, match",
    [
        ([[M, 0.0], [0.0, M, 0.0], [0.0, 0.0, 1.0]], r"body 'b': inertia .*ragged"),
        (rmb.umat(np.eye(2)) * M, r"body 'b': inertia must be a scalar, 3 entries or 3x3"),
        ([M, M], r"body 'b': inertia must be a scalar, 3 entries or 3x3"),
        ("big", r"body 'b': inertia must be numbers or ureal expressions"),
    ],
)
def test_malformed_inertias_name_the_body(inertia, match):
    with pytest.raises(DimensionError, match=match):
        RigidBody("b", mass=1.0, inertia=inertia)


# ---------------------------------------------------------------- 2. checks over the box
def _min_eig_on_grid(build, ranges, n=41):
    grids = [np.linspace(lo, hi, n) for lo, hi in ranges]
    return min(np.linalg.eigvalsh(build(*p))[0] for p in itertools.product(*grids))


def test_tensor_refused_at_the_vertex_where_only_both_extremes_fail():
    # J = [[0.2, a, 0], [a, b, 0], [0, 0, 1]]: PSD iff 0.2 b >= a^2.  With a in [0, 0.2],
    # b in [0.1, 0.5] it fails only at (a, b) = (0.2, 0.1); each ureal alone at its
    # range ends (the other nominal) and the nominal are fine.
    def tensor(a, b):
        return np.array([[0.2, a, 0.0], [a, b, 0.0], [0.0, 0.0, 1.0]])

    for pt in [(0.1, 0.3), (0.0, 0.3), (0.2, 0.3), (0.1, 0.1), (0.1, 0.5)]:
        assert np.linalg.eigvalsh(tensor(*pt))[0] > 0
    assert np.linalg.eigvalsh(tensor(0.2, 0.1))[0] < 0
    a = rmb.ureal("a", 0.1, range=(0.0, 0.2))
    b = rmb.ureal("b", 0.3, range=(0.1, 0.5))
    with pytest.raises(
        DimensionError,
        match=r"body 'link': inertia must be positive semidefinite \(at the vertex "
        r"\{'a': 0.2, 'b': 0.1\}",
    ):
        RigidBody("link", mass=1.0, inertia=tensor(a, b).astype(object))
    # a narrower range of a: a dense grid shows it PSD everywhere, and it is accepted
    # without a warning (affine entries: the vertex check is exact)
    a2 = rmb.ureal("a2", 0.05, range=(0.0, 0.1))
    assert _min_eig_on_grid(tensor, [(0.0, 0.1), (0.1, 0.5)]) >= 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RigidBody(
            "link",
            mass=1.0,
            inertia=[[0.2, a2, 0], [a2, b, 0], [0, 0, 1.0]],
            allow_nonphysical_inertia=True,  # semidefinite only: 0.18 + 0.32 < 1
        )


def test_indefinite_at_a_range_end_is_refused_before_any_model():
    # the review's case: Jxy in [-1, 1] makes the tensor indefinite at both ends
    jxy = rmb.ureal("Jxy", 0.0, range=(-1.0, 1.0))
    assert np.linalg.eigvalsh(np.array([[0.2, -1, 0], [-1, 0.2, 0], [0, 0, 0.2]]))[0] < 0
    with pytest.raises(DimensionError, match=r"body 'b': inertia .*vertex \{'Jxy': -1\}"):
        RigidBody("b", mass=1.0, inertia=[[0.2, jxy, 0], [jxy, 0.2, 0], [0, 0, 0.2]])


def test_mass_expressions_are_checked_over_the_box():
    k = rmb.ureal("k", 1.0, range=(-0.5, 3.0))
    with pytest.raises(
        DimensionError, match=r"body 'b': mass must be non-negative, got -1\.0 .*'k'"
    ):
        RigidBody("b", mass=2.0 * k)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RigidBody("b", mass=2.0 * k + 1.0)  # affine, >= 0 at both ends: exact
    # not affine: negative only inside the box (k = 1), found by the grid of the box
    k2 = rmb.ureal("k2", 0.5, range=(0.0, 2.0))
    assert (0.0 - 1.0) ** 2 - 0.01 > 0 and (2.0 - 1.0) ** 2 - 0.01 > 0
    with pytest.raises(DimensionError, match=r"body 'b': mass must be non-negative.*'k2': 1"):
        RigidBody("b", mass=(k2 - 1.0) * (k2 - 1.0) - 0.01)


def test_rotor_inertia_must_be_non_negative_on_the_box():
    with pytest.raises(DimensionError, match=r"joint 'J': inertia must be non-negative, got -0\.2"):
        RevoluteJoint("J", ("ground", "O"), ("b", "P"), [1, 0, 0], inertia=-0.2)
    jr = rmb.ureal("Jr", 0.05, range=(-0.1, 0.2))
    with pytest.raises(DimensionError, match=r"joint 'J': inertia .*vertex \{'Jr': -0\.1\}"):
        RevoluteJoint("J", ("ground", "O"), ("b", "P"), [1, 0, 0], inertia=jr)
    # accepted range: the effective inertia about the axis is 0.1 + 1 * 0.5^2 + Jr
    jr = rmb.ureal("Jr", 0.1, range=(0.05, 0.2))
    mech = Mechanism()
    mech.add_body(RigidBody("b", mass=1.0, inertia=0.1, cog=[0, 0.5, 0], ports={"P": [0] * 3}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("b", "P"), [1, 0, 0], inertia=jr))
    lin = mech.linearize()
    for v in jr.range:
        assert np.isclose(1.0 / lin.usubs({"Jr": v}).B[1, 0], 0.35 + v, rtol=1e-12)


# ------------------------------------------------- 2b. non-affine quantities: the mu proof
def _point_of(err, names):
    """The parameter values of the point named in a refusal message."""
    found = re.search(r"\{([^}]*)\} of the box", str(err))
    assert found, str(err)
    pairs = dict(re.findall(r"'(\w+)': ([-+0-9.e]+)", found.group(1)))
    return [float(pairs[n]) for n in names]


def test_rod_inertia_is_proved_without_a_warning():
    # m L^2 / 12 > 0 on the box (closed form: m, L > 0 there), not affine in L
    assert M.range[0] > 0 and L.range[0] > 0
    samples, exact, _ = semidefinite_samples(M * L * L / 12)
    assert exact and all(v[0, 0] > 0 for _, v in samples)
    j = M * L * L / 12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for inertia in (j, [j, j, 0.0], [[j, 0, 0], [0, j, 0], [0, 0, 0.0]]):
            RigidBody("rod", mass=M * L, inertia=inertia)
        RevoluteJoint("J", ("ground", "O"), ("rod", "P"), [1, 0, 0], inertia=0.01 * L * L)


@pytest.mark.parametrize("rng, centre_fails", [((0.5, 1.5), True), ((0.6, 2.0), False)])
def test_square_minus_constant_is_refused_inside_the_box(rng, centre_fails):
    # (k - 1)^2 - 0.01 < 0 exactly for |k - 1| < 0.1; both ends of each range are > 0
    k = rmb.ureal("k", rng[0] + 0.05, range=rng)  # positive at the nominal too
    assert all((e - 1.0) ** 2 - 0.01 > 0 for e in (*rng, rng[0] + 0.05))
    centre = 0.5 * sum(rng)
    assert ((centre - 1.0) ** 2 - 0.01 < 0) == centre_fails
    with pytest.raises(DimensionError, match=r"body 'b': mass must be non-negative") as err:
        RigidBody("b", mass=(k - 1.0) * (k - 1.0) - 0.01)
    (kk,) = _point_of(err.value, ["k"])
    assert abs(kk - 1.0) <= 0.1 and (kk - 1.0) ** 2 - 0.01 <= 0
    assert ("centre" in str(err.value)) == centre_fails


def _product_tensor(jxy, m):
    q = 4.0 * jxy * m * (1.0 - m)
    return [[0.5, q, 0.0], [q, 0.5, 0.0], [0.0, 0.0, 1.0]]


def _tensor_at(jxy, m):
    return np.array(_product_tensor(jxy, m), dtype=float)


def test_tensor_with_a_product_term_refused_only_inside_the_box():
    # q = 4 Jxy m (1 - m): eigenvalues 0.5 -+ q and 1, so indefinite iff q > 0.5
    jr, mr = (0.2, 0.6), (0.2, 0.9)
    corners = list(itertools.product(jr, mr)) + [(0.4, 0.55)]  # the vertices and the centre
    assert all(np.linalg.eigvalsh(_tensor_at(*p))[0] > 0 for p in corners)
    assert _min_eig_on_grid(_tensor_at, [jr, mr]) < 0  # but not everywhere
    jxy = rmb.ureal("Jxy", 0.4, range=jr)
    m = rmb.ureal("m", 0.55, range=mr)
    with pytest.raises(
        DimensionError, match=r"body 'b': inertia must be positive semidefinite \(at the point"
    ) as err:
        RigidBody("b", mass=m, inertia=_product_tensor(jxy, m))
    point = _point_of(err.value, ["Jxy", "m"])
    assert jr[0] <= point[0] <= jr[1] and mr[0] <= point[1] <= mr[1]
    assert np.linalg.eigvalsh(_tensor_at(*point))[0] < 0


def test_tensors_definite_on_the_box_are_accepted_without_a_warning():
    jr, mr = (0.2, 0.4), (0.1, 0.9)
    assert _min_eig_on_grid(_tensor_at, [jr, mr]) > 0
    jxy = rmb.ureal("Jxy", 0.3, range=jr)
    m = rmb.ureal("m", 0.5, range=mr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RigidBody("b", mass=m, inertia=_product_tensor(jxy, m))

    # a rod with an uncertain product of inertia Jxy m and a zero axial moment
    def rod(mv, lv, jv):
        t = mv * lv * lv / 12
        return np.array([[t + 0.02, jv * mv, 0.0], [jv * mv, t + 0.02, 0.0], [0, 0, 0.0]])

    jp = rmb.ureal("Jp", 0.0, range=(-0.04, 0.04))
    assert _min_eig_on_grid(lambda a, b, c: rod(a, b, c)[:2, :2], [M.range, L.range, jp.range],
                            n=17) > 0  # fmt: skip
    t = M * L * L / 12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RigidBody("rod", mass=M, inertia=[[t + 0.02, jp * M, 0], [jp * M, t + 0.02, 0], [0, 0, 0]])


def test_a_tangent_zero_inside_the_box_is_accepted_with_a_warning():
    # (k - 1)^2 >= 0 with equality at k = 1: singular inside the box (mu of the complement
    # is above 1) but never negative, so it is neither proved definite nor refused
    k = rmb.ureal("k", 0.6, range=(0.4, 1.5))
    with pytest.warns(RobustMBWarning, match="not negative along the ray"):
        RigidBody("b", mass=1.0, inertia=(k - 1.0) * (k - 1.0))


def test_proofs_and_refutations_agree_with_the_closed_form():
    # a + b k + c k^2 on random ranges: its minimum over the range in closed form
    rng = np.random.default_rng(7)
    verdicts = {"proved": 0, "refuted": 0, "undecided": 0}
    for i in range(16):
        a, b, c = rng.normal(size=3)
        lo = rng.uniform(-2, 1)
        hi = lo + rng.uniform(0.2, 2.0)
        cands = [lo, hi] + ([-b / (2 * c)] if c != 0 and lo < -b / (2 * c) < hi else [])
        low = min(a + b * x + c * x * x for x in cands)
        k = rmb.ureal(f"k{i}", 0.5 * (lo + hi), range=(lo, hi))
        samples, exact, _ = semidefinite_samples(a + b * k + c * k * k)
        values = [float(v[0, 0]) for _, v in samples]
        if not exact:
            verdicts["undecided"] += 1
        elif min(values) < 0:
            verdicts["refuted"] += 1
            assert low < 0
        else:
            verdicts["proved"] += 1
            assert low > 0
    assert verdicts["proved"] >= 3 and verdicts["refuted"] >= 3, verdicts


def test_symmetric_part_lft_against_numpy():
    # the LFT of (J + J^T) / 2 built from that of a non-symmetric J, evaluated by numpy
    rng = np.random.default_rng(3)
    reps = [2, 1, 3]
    n = sum(reps)
    A, B, C, D = (rng.normal(size=s) * 0.3 for s in [(n, n), (n, 3), (3, n), (3, 3)])
    A2, B2, C2, D2, blk2 = _symmetric_part(A, B, C, D, reps)
    assert blk2 == [(-4, 0), (-2, 0), (-6, 0)]
    for _ in range(5):
        d = rng.uniform(-1, 1, size=3)
        delta = np.diag(np.repeat(d, reps))
        J = D + C @ delta @ np.linalg.solve(np.eye(n) - A @ delta, B)
        delta2 = np.diag(np.repeat(d, [2 * r for r in reps]))
        Js = D2 + C2 @ delta2 @ np.linalg.solve(np.eye(2 * n) - A2 @ delta2, B2)
        assert np.allclose(Js, 0.5 * (J + J.T), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- 3. floating base
R0 = rotation_matrix([1, 2, 3], 0.7)
PB = np.array([0.3, -0.2, 1.0])
HUB_INERTIA = np.array([[200.0, 5.0, -3.0], [5.0, 150.0, 2.0], [-3.0, 2.0, 180.0]])


def _satellite(mass_p=10.0):
    mech = Mechanism(
        acceleration=gravity(G), floating_base="hub", base_orientation=R0, base_position=PB
    )
    mech.add_body(
        RigidBody(
            "hub",
            mass=500.0,
            inertia=HUB_INERTIA,
            cog=[0.05, -0.02, 0.1],
            ports={"O": [0, 0, 0], "A": [0, 1.0, 0]},
        )
    )
    mech.add_body(
        RigidBody("p1", mass=mass_p, inertia=[7.5, 0.2, 7.5], cog=[0, 1.5, 0], ports={"P": [0] * 3})
    )
    mech.add_joint(
        RevoluteJoint("J1", ("hub", "A"), ("p1", "P"), [0, 1, 0], angle=0.4, stiffness=50.0)
    )
    return mech


def _satellite_pin():
    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -G])
    jb = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    model.appendBodyToJoint(
        jb, pin.Inertia(500.0, np.array([0.05, -0.02, 0.1]), HUB_INERTIA), pin.SE3.Identity()
    )
    j1 = model.addJoint(
        jb,
        pin.JointModelRevoluteUnaligned(0, 1, 0),
        pin.SE3(np.eye(3), np.array([0, 1.0, 0])),
        "J1",
    )
    model.appendBodyToJoint(
        j1, pin.Inertia(10.0, np.array([0, 1.5, 0]), np.diag([7.5, 0.2, 7.5])), pin.SE3.Identity()
    )
    q0 = np.r_[PB, pin.Quaternion(R0).coeffs(), 0.4]
    return model, q0


def test_unbalanced_floating_base_names_its_holding_wrench():
    model, q0 = _satellite_pin()
    tau0 = pin.rnea(model, model.createData(), q0, np.zeros(7), np.zeros(7))
    with pytest.raises(IllPosedError, match="floating base 'hub' is not at rest") as err:
        _satellite().linearize()
    msg = str(err.value)
    assert "add_applied_wrench" in msg and "base_wrench='body'" in msg
    named = np.array(eval(msg.split("[F; T] = ")[1].split(" (base")[0]))
    # Pinocchio's free-flyer effort is the same wrench: base axes, at the base origin
    assert np.allclose(named, tau0[:6], rtol=1e-6, atol=1e-6)
    # the trim itself still reports it
    assert np.allclose(np.asarray(_satellite().trim().base_wrench, float).ravel(), tau0[:6])


def test_base_held_in_its_own_axes_matches_pinocchio():
    model, q0 = _satellite_pin()
    tau0 = pin.rnea(model, model.createData(), q0, np.zeros(7), np.zeros(7))
    stiffness = np.zeros((7, 7))
    stiffness[6, 6] = 50.0
    a, b = _pin_linearisation(model, q0, tau0, stiffness)
    lin = _satellite().linearize(base_wrench="body").nominal()
    c = np.hstack([np.eye(7), np.zeros((7, 7))])
    ref = _fr(a, b[:, [6]], c, np.zeros((7, 1)))
    assert _rel(_fr(lin.A, lin.B, lin.C, lin.D), ref) <= 1e-9


def test_base_held_by_an_inertial_wrench_matches_pinocchio():
    # the same holding wrench, now constant in inertial axes, applied at the base origin:
    # its base-axes components R^T x turn with the base, d(R^T x)/dr = sk(x_b) (local r)
    model, q0 = _satellite_pin()
    tau0 = pin.rnea(model, model.createData(), q0, np.zeros(7), np.zeros(7))
    f_b, t_b = tau0[:3], tau0[3:6]
    extra = np.zeros((7, 7))
    extra[0:3, 3:6] = pin.skew(f_b)
    extra[3:6, 3:6] = pin.skew(t_b)
    stiffness = np.zeros((7, 7))
    stiffness[6, 6] = 50.0
    a, b = _pin_linearisation(model, q0, tau0, stiffness, extra)
    c = np.hstack([np.eye(7), np.zeros((7, 7))])
    ref = _fr(a, b[:, [6]], c, np.zeros((7, 1)))
    mech = _satellite()
    mech.add_applied_wrench("hold", "hub", "O", list(R0 @ f_b) + list(R0 @ t_b), frame="inertial")
    lin = mech.linearize().nominal()  # balanced: no residual, no option needed
    assert _rel(_fr(lin.A, lin.B, lin.C, lin.D), ref) <= 1e-9
    a_body, b_body = _pin_linearisation(model, q0, tau0, stiffness)
    body = _fr(a_body, b_body[:, [6]], c, np.zeros((7, 1)))
    assert _rel(body, ref) > 1e-2  # the two holdings differ: the choice matters


def test_base_balanced_only_at_the_nominal_is_refused_at_a_vertex():
    mp = rmb.ureal("mp", 10.0, percent=20)
    mech = _satellite(mass_p=mp)
    # buoyancy for the nominal weight through the total centre of mass of the nominal
    model, q0 = _satellite_pin()
    tau0 = pin.rnea(model, model.createData(), q0, np.zeros(7), np.zeros(7))
    mech.add_applied_wrench(
        "lift", "hub", "O", list(R0 @ tau0[:3]) + list(R0 @ tau0[3:6]), frame="inertial"
    )
    with pytest.raises(IllPosedError, match=r"residual wrench .*vertex \{'mp': 8\}"):
        mech.linearize()


# ---------------------------------------------------------------- 5. and 6. names, arguments
def _two_links():
    mech = Mechanism(acceleration=gravity(G))
    for k in ("b1", "b2"):
        mech.add_body(
            RigidBody(
                k, mass=1.0, inertia=0.1, cog=[0, 0.5, 0], ports={"P": [0] * 3, "T": [0, 1, 0]}
            )
        )
    return mech


@pytest.mark.parametrize(
    "names, match",
    [
        (
            ("q", "q", "T1", "T2"),
            r"signal 'q' is the output of joint 'J1' and the output of joint 'J2'",
        ),
        (
            ("q1", "q2", "T", "T"),
            r"signal 'T' is the input of joint 'J1' and the input of joint 'J2'",
        ),
        (
            ("T2", "q2", "T1", "T2"),
            r"signal 'T2' is the output of joint 'J1' and the input of joint 'J2'",
        ),
        (
            ("q1", "q2", "T1", "q1_dot"),
            r"'q1_dot' is the rate output of joint 'J1' and the input of joint 'J2'",
        ),
    ],
)
def test_duplicate_signal_names_name_both_joints(names, match):
    o1, o2, i1, i2 = names
    mech = _two_links()
    mech.add_joint(
        RevoluteJoint("J1", ("ground", "O"), ("b1", "P"), [1, 0, 0], output_name=o1, input_name=i1)
    )
    with pytest.raises(NameConflictError, match=match):
        mech.add_joint(
            RevoluteJoint("J2", ("b1", "T"), ("b2", "P"), [1, 0, 0], output_name=o2, input_name=i2)
        )


def test_signal_names_are_checked_again_by_linearize():
    mech = _two_links()
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("b1", "P"), [1, 0, 0], output_name="q"))
    mech.add_joint(RevoluteJoint("J2", ("b1", "T"), ("b2", "P"), [1, 0, 0]))
    mech.joints["J2"] = RevoluteJoint("J2", ("b1", "T"), ("b2", "P"), [1, 0, 0], output_name="q")
    with pytest.raises(NameConflictError, match="joint 'J1' and the output of joint 'J2'"):
        mech.linearize()
    mech = _two_links()
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("b1", "P"), [1, 0, 0], input_name="u_Fx"))
    mech.add_wrench_input("u", "b1", "T")
    with pytest.raises(NameConflictError, match="'u_Fx' is an input of the wrench input 'u'"):
        mech.linearize()
    with pytest.raises(NameConflictError, match="joint 'J': its input and one of its outputs"):
        RevoluteJoint("J", ("ground", "O"), ("b1", "P"), [1, 0, 0], input_name="x", output_name="x")


def test_malformed_arguments_name_themselves():
    mech = _two_links()
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("b1", "P"), [1, 0, 0]))
    mech.add_joint(RevoluteJoint("J2", ("b1", "T"), ("b2", "P"), [1, 0, 0]))
    for ports in ([("b1",)], [("b1", "T", "x")], ("b1", "T"), "b1"):
        with pytest.raises(ArgumentError, match="linearize: .*ports"):
            mech.linearize(ports=ports)
    assert len(mech.linearize(ports=[("b1", "T")]).output_names) == 2 + 18
    with pytest.raises(SignalError, match="body 'b': ports must be a mapping"):
        RigidBody("b", mass=1.0, ports=[[0, 0, 0]])
    with pytest.raises(DimensionError, match="joint 'J': axis must be 3 finite numbers, got 'x'"):
        RevoluteJoint("J", ("ground", "O"), ("b", "P"), "x")
    with pytest.raises(UncertainTypeError, match="acceleration must be 3 finite numbers"):
        Mechanism(acceleration=[0, 0, rmb.ureal("g", 9.81)])
    with pytest.raises(ArgumentError, match="base_wrench must be None or 'body'"):
        mech.linearize(base_wrench="inertial")
