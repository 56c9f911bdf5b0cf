"""The one-loop test interconnection of the tuning tests: a plant ``G`` (input ``v``,
output ``y``) under a tunable static gain ``K`` with error feedback ``e = r - y`` and an
input disturbance ``v = u + d``; the loop's inputs are ``r, d`` and its outputs ``y, u``."""

import control

import robustmb as rmb


def static_gain_loop(plant):
    """``connect`` of ``plant`` (an uncertain SISO system) with ``K`` and the summing
    junctions; ``K`` is the 1x1 ``tunable_gain`` named ``"K"``."""
    G = rmb.uss(plant)
    G.input_names, G.output_names, G.name = ["v"], ["y"], "G"
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["e"], ["u"]
    S = control.ss(
        [], [], [], [[1, -1, 0, 0], [0, 0, 1, 1]], name="S", inputs=["r", "y", "u", "d"],
        outputs=["e", "v"],
    )  # fmt: skip
    return rmb.connect([G, K, S], None, ["r", "d"], ["y", "u"])
