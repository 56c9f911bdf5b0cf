"""Closed loops shared by the tuning tests."""

import control

import robustmb as rmb


def error_feedback_loop(G, K, *others, outputs=("y", "u")):
    """``u = K (r - y)`` around the plant ``G`` (input ``v = u + d``, output ``y``), with
    further named systems ``others``; inputs ``r, d``.  Names ``G``'s and ``K``'s
    signals (``v -> y``, ``e -> u``)."""
    G.input_names, G.output_names, G.name = ["v"], ["y"], "G"
    K.input_names, K.output_names = ["e"], ["u"]
    S = control.ss(
        [], [], [], [[1, -1, 0, 0], [0, 0, 1, 1]], name="S",
        inputs=["r", "y", "u", "d"], outputs=["e", "v"],
    )  # fmt: skip
    return rmb.connect([G, *others, K, S], None, ["r", "d"], list(outputs))
