"""Small uncertain closed loops with closed-form robustness answers (report tests)."""

import control
import numpy as np

import robustmb as rmb


def second_order(lo, hi, nominal=1.0):
    """``1 / (s^2 + c s + 1)`` with ``c`` in ``[lo, hi]``.

    Closed forms: a pole reaches the imaginary axis (at 1 rad/s) when ``c = 0``,
    so the stability margin is ``center / half_width``; the worst-case peak gain
    over ``c`` in ``[lo, hi]`` (``lo > 0``, ``c < sqrt(2)``) is at ``c = lo``:
    ``1 / (2 z sqrt(1 - z^2))`` with ``z = lo / 2``, at ``sqrt(1 - 2 z^2)`` rad/s.
    """
    c = rmb.ureal("c", nominal, range=(lo, hi))
    s = control.tf("s")
    loop = 1 / (s * s + c * s + 1)
    loop.name = "oscillator"
    return loop


def resonance_peak(c):
    """Peak gain and its frequency of ``1 / (s^2 + c s + 1)``, ``c > 0``."""
    z = c / 2
    if z * z >= 0.5:  # no resonance: the gain decreases from 1 at DC
        return 1.0, 0.0
    return 1 / (2 * z * np.sqrt(1 - z * z)), np.sqrt(1 - 2 * z * z)


def two_by_two():
    """A 2x2 loop with two real parameters and named signals (e1, e2 <- r1, r2)."""
    k = rmb.ureal("k", 2.0, percent=30)
    a = rmb.ureal("a", 1.0, percent=40)
    plant = rmb.uss(
        [[-a, 0.5], [0.0, -2.0]],
        [[k, 0.0], [0.3, 1.0]],
        [[1.0, 0.0], [0.0, 1.0]],
        [[0.0, 0.0], [0.0, 0.0]],
    )
    loop = rmb.feedback(plant, 0.8 * np.eye(2))
    loop.name = "mimo"
    loop.input_names = ["r1", "r2"]
    loop.output_names = ["e1", "e2"]
    return loop
