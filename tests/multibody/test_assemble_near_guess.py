"""``Mechanism.assemble`` returns a solution near the guess, on the turn nearest to it.

Reference: the four-bar's two assemblies in closed form (intersection of the
coupler's and the rocker's circles), written here without robustmb.
"""

import numpy as np
import pytest

from robustmb.errors import IllPosedError
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity

CRANK, COUPLER, ROCKER = 1.0, 2.2, 1.5


def _four_bar(b=(2.0, 0.0, 0.0)):
    """Crank J1 at O, coupler J2 at the crank tip, rocker J3 at B (a spring), all about z."""
    mech = Mechanism(acceleration=gravity(9.81, direction=(0, -1, 0)), ground_ports={"B": b})
    for name, length in (("crank", CRANK), ("coupler", COUPLER), ("rocker", ROCKER)):
        mech.add_body(
            RigidBody(
                name,
                mass=1.0,
                inertia=0.1,
                cog=[length / 2, 0, 0],
                ports={"P": [0, 0, 0], "tip": [length, 0, 0]},
            )
        )
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("crank", "P"), [0, 0, 1]))
    mech.add_joint(RevoluteJoint("J2", ("crank", "tip"), ("coupler", "P"), [0, 0, 1]))
    mech.add_joint(RevoluteJoint("J3", ("ground", "B"), ("rocker", "P"), [0, 0, 1], stiffness=2.0))
    mech.add_loop_constraint("pin", ("coupler", "tip"), ("rocker", "tip"), components="xy")
    return mech


def _branches(th1, b=(2.0, 0.0)):
    """The two assemblies ``(J3, J2)`` at crank angle ``th1``: circle intersection."""
    c = np.array([np.cos(th1), np.sin(th1)]) * CRANK
    d = np.asarray(b) - c
    dist = np.linalg.norm(d)
    a = (COUPLER**2 - ROCKER**2 + dist**2) / (2 * dist)
    h = np.sqrt(COUPLER**2 - a**2)
    perp = np.array([-d[1], d[0]]) / dist
    out = []
    for s in (1.0, -1.0):
        x = c + a * d / dist + s * h * perp
        phi2 = np.arctan2(*(x - c)[::-1])
        phi3 = np.arctan2(*(x - np.asarray(b))[::-1])
        out.append(np.array([phi3, phi2 - th1]))
    return out


def _nearest_turn(x, guess):
    return guess + (x - guess + np.pi) % (2 * np.pi) - np.pi


def test_the_far_guess_of_the_review_lands_on_the_nearest_assembly_and_turn():
    mech = _four_bar()
    assert mech.coordinates() == ["J1_q", "J3_q", "J2_q"]
    guess = np.array([3.0, 1.9, 0.3])
    q = mech.assemble(guess, fixed=["J1_q"])
    # undamped full steps returned [3.0, -8.6897, -3.5485]: 11.3 from the guess
    candidates = [np.r_[3.0, _nearest_turn(b, guess[1:])] for b in _branches(3.0)]
    dist = [np.linalg.norm(c - guess) for c in candidates]
    nearest = candidates[int(np.argmin(dist))]
    np.testing.assert_allclose(q, nearest, atol=1e-9)
    assert np.linalg.norm(q - guess) == pytest.approx(min(dist), abs=1e-9)
    assert min(dist) < 2.9  # the closest assembly (J3 = 2.3122, J2 = -2.5458)
    # the spring on J3 sees the angle of the nearest turn, not one several turns away
    z = np.zeros(3)
    np.testing.assert_allclose(
        mech.forward_dynamics(q, z, z), mech.forward_dynamics(nearest, z, z), atol=1e-8
    )


def test_guesses_near_either_assembly_return_that_assembly():
    mech = _four_bar()
    rng = np.random.default_rng(11)
    for th1 in np.linspace(-np.pi, np.pi, 9):
        for branch in _branches(th1):
            turns = 2 * np.pi * rng.integers(-2, 3, size=2)  # any turn of the guess
            guess = np.r_[th1, branch + turns + rng.uniform(-0.1, 0.1, 2)]
            q = mech.assemble(guess, fixed=["J1_q"])
            np.testing.assert_allclose(q, np.r_[th1, branch + turns], atol=1e-9)
            assert np.all(np.abs(q - guess) <= np.pi)


def test_rates_are_projected_and_an_unreachable_assembly_raises():
    mech = _four_bar()
    q, v = mech.assemble([0.9, 1.9, 0.3], [1.0, 0.0, 0.0], fixed=["J1_q"])
    # the pin's velocity: the coupler tip and the rocker tip move together
    th1, th3, th2 = q
    w1, w3, w2 = v
    tip_c = w1 * CRANK * np.array([-np.sin(th1), np.cos(th1)]) + (w1 + w2) * COUPLER * np.array(
        [-np.sin(th1 + th2), np.cos(th1 + th2)]
    )
    tip_r = w3 * ROCKER * np.array([-np.sin(th3), np.cos(th3)])
    np.testing.assert_allclose(tip_c, tip_r, atol=1e-12)
    assert w1 == 1.0
    far = _four_bar(b=(10.0, 0.0, 0.0))  # 1 + 2.2 + 1.5 < 10: no assembly
    with pytest.raises(IllPosedError, match="cannot be closed from this guess"):
        far.assemble([0.9, 1.9, 0.3], fixed=["J1_q"])
