"""Physical inertias (triangle inequality of the principal moments) and joint laws that raise."""

import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, NonphysicalInertiaWarning
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity


def _rotation(seed):
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    return q * np.sign(np.diag(r))


@pytest.mark.parametrize("moments", [(1.0, 1.0, 5.0), (5.0, 1.0, 1.0), (1.0, 5.0, 1.0)])
def test_moments_breaking_the_triangle_inequality_are_flagged_in_every_form(moments):
    # diag(1, 1, 5): 1 + 1 < 5, whichever axis carries the 5
    rot = _rotation(3)
    forms = [list(moments), np.diag(moments), rot @ np.diag(moments) @ rot.T]
    for inertia in forms:
        # digest 001, section 6.16: warn, not fail (published data such as the balloon's
        # moments 3, 5, 17 break it), and keep the tensor as given
        with pytest.warns(NonphysicalInertiaWarning, match=r"body 'b': inertia .*1 \+ 1 < 5"):
            body = RigidBody("b", mass=1.0, inertia=inertia)
        given = np.asarray(inertia, dtype=float)
        kept = np.array([[float(g) for g in row] for row in body.inertia])
        np.testing.assert_allclose(kept, np.diag(given) if given.ndim == 1 else given)


def test_the_tolerance_is_relative_to_the_trace():
    # a thin disc (I3 = I1 + I2) is on the boundary and kept at any scale, rotated or not;
    # an excess of 1e-10 of the trace is not rounding and is refused, also for a tiny body
    for scale in (1e-9, 1.0, 1e6):
        disc = scale * np.diag([0.5, 0.5, 1.0])
        rot = _rotation(int(np.log10(scale) + 20))
        RigidBody("disc", mass=1.0, inertia=disc)
        RigidBody("disc", mass=1.0, inertia=rot @ disc @ rot.T)
        bad = scale * np.diag([0.5, 0.5, 1.0 + 2e-10])
        with pytest.warns(NonphysicalInertiaWarning, match="triangle inequality"):
            RigidBody("disc", mass=1.0, inertia=bad)


def test_inertias_of_point_clouds_are_accepted():
    # brute force: the inertia about the centre of mass of any cloud of point masses,
    # sum m (|r|^2 I - r r^T), is that of a real body
    rng = np.random.default_rng(7)
    for npts in (2, 3, 10, 50):
        for _ in range(20):
            m = rng.uniform(0.1, 2.0, npts)
            r = rng.normal(size=(npts, 3)) * rng.uniform(0.01, 3.0, 3)
            if npts == 2 or rng.uniform() < 0.3:
                r[:, 2] = 0.0  # planar clouds: on the boundary I3 = I1 + I2
            r -= (m[:, None] * r).sum(axis=0) / m.sum()
            j = np.einsum(
                "k,kij->ij",
                m,
                (r * r).sum(1)[:, None, None] * np.eye(3) - r[:, :, None] * r[:, None, :],
            )
            RigidBody("cloud", mass=float(m.sum()), inertia=j)


def test_an_uncertain_inertia_is_checked_at_its_nominal():
    k = rmb.ureal("k", 1.0, percent=10)
    with pytest.warns(
        NonphysicalInertiaWarning, match=r"'u': inertia .*1 \+ 1 < 5 \(at the nominal\)"
    ):
        RigidBody("u", mass=1.0, inertia=[k, k, 5.0 * k])
    # nominal moments 1, 1, 2 (a disc) with independently uncertain moments: vertices
    # such as (0.9, 0.9, 2.2) break the inequality; the nominal is what is checked
    a = rmb.ureal("a", 1.0, percent=10)
    b = rmb.ureal("b", 2.0, percent=10)
    RigidBody("disc", mass=1.0, inertia=[a, a, b])


def test_the_opt_out_keeps_published_data_and_is_checked():
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonphysicalInertiaWarning)
        RigidBody("b", mass=1.0, inertia=[1.0, 1.0, 5.0], allow_nonphysical_inertia=True)
    # semidefiniteness is still required
    with pytest.raises(DimensionError, match="non-negative"):
        RigidBody("b", mass=1.0, inertia=[1.0, 1.0, -5.0], allow_nonphysical_inertia=True)
    with pytest.raises(ArgumentError, match="allow_nonphysical_inertia must be True or False"):
        RigidBody("b", mass=1.0, inertia=[1.0, 1.0, 1.0], allow_nonphysical_inertia="yes")


def _pendulum_with_raising_law():
    mech = Mechanism(acceleration=gravity(9.81))
    mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))

    def law(q, qd):
        if q > 0.2:
            raise RuntimeError("stiffness table ends at 0.2 rad")
        return -0.5 * q

    mech.add_joint_law("J", law)
    return mech


def test_a_joint_law_that_raises_names_the_joint_the_state_and_the_time():
    mech = _pendulum_with_raising_law()
    # from q = 0 at 1 rad/s the swing passes q = 0.2 (max ~ 2 sin^-1(1 / (2 sqrt g)) > 0.3)
    with pytest.raises(ArgumentError) as info:
        mech.simulate((0.0, 2.0), [0.0], [1.0])
    text = str(info.value)
    assert "joint law of 'J' raised RuntimeError (stiffness table ends at 0.2 rad)" in text
    assert "J_q = 0.2" in text and "J_q_dot = " in text
    t = float(text.rsplit("t = ", 1)[1].rstrip(")"))
    assert 0.0 < t < 2.0
    assert isinstance(info.value.__cause__, RuntimeError)
    # outside a simulation: the joint and the state, with the same cause
    with pytest.raises(ArgumentError, match=r"joint law of 'J' raised RuntimeError .* J_q = 0\.5"):
        mech.forward_dynamics([0.5], [1.0], [0.0])


def test_a_joint_law_returning_nan_keeps_its_message_without_a_cause():
    mech = Mechanism(acceleration=gravity(9.81))
    mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    mech.add_joint_law("J", lambda q, qd: np.nan if q > 0.2 else 0.0)
    with pytest.raises(ArgumentError, match=r"returned nan at J_q = 0\.2.* t = ") as info:
        mech.simulate((0.0, 2.0), [0.0], [1.0])
    assert info.value.__cause__ is None


def test_a_joint_law_that_raises_while_differentiated_names_the_joint():
    mech = Mechanism(acceleration=gravity(9.81))
    mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))

    def law(q, qd):  # fails only at the points next to 0.3 that a derivative samples
        if q != 0.3 and abs(q - 0.3) < 1e-3:
            raise RuntimeError("table has no entry")
        return -q

    mech.add_joint_law("J", law)
    with pytest.raises(ArgumentError, match=r"law of 'J' raised RuntimeError .*J_q = 0\.3") as info:
        mech.linearize_at([0.3], [0.0])
    assert isinstance(info.value.__cause__, RuntimeError)
