"""Reported levels of the synthesis functions against evaluations that share no code with
the package (numpy frequency responses, scipy scalar maximisation)."""

import control
import numpy as np
import pytest
import scipy.optimize

import robustmb as rmb
from robustmb.errors import IllPosedError


def _four_block_peak(G, K):
    """Peak of ``sigma_max([I; K] (I - G K)^-1 [I, G])`` on the axis: dense grid, then a
    scalar maximisation around the best grid point (numpy only)."""
    p = G.noutputs

    def gain(w):
        Gw, Kw = np.atleast_2d(G(1j * w)), np.atleast_2d(K(1j * w))
        X = np.linalg.solve(np.eye(p) - Gw @ Kw, np.hstack([np.eye(p), Gw]))
        return np.linalg.svd(np.vstack([X, Kw @ X]), compute_uv=False)[0]

    w = np.logspace(-3, 3, 6000)
    v = np.array([gain(x) for x in w])
    i = int(np.clip(v.argmax(), 1, w.size - 2))
    opt = scipy.optimize.minimize_scalar(
        lambda x: -gain(x), bounds=(w[i - 1], w[i + 1]), method="bounded",
        options={"xatol": 1e-12},
    )  # fmt: skip
    return max(v.max(), -opt.fun)


def test_ncfsyn_achieved_level_is_an_upper_bound_on_the_controllers_norm():
    # a random 3-state plant with feedthrough: hinfnorm's attained value 7.996006974 lay
    # 4.4e-9 below the true four-block norm 7.996007010 (30-digit check), so that
    # margin_achieved overstated the margin the controller achieves
    rng = np.random.default_rng(1)
    for trial in range(6):
        A, B = rng.standard_normal((3, 3)), rng.standard_normal((3, 2))
        C, D = rng.standard_normal((2, 3)), rng.standard_normal((2, 2)) * (trial % 2)
    G = control.ss(A, B, C, D)
    res = rmb.ncfsyn(G)
    peak = _four_block_peak(G, res.controller)
    assert res.gamma_achieved >= peak
    assert res.margin_achieved <= 1 / peak
    assert res.gamma_achieved <= peak * (1 + 1e-7)  # still tight


@pytest.mark.parametrize(
    ("weights", "name"),
    [
        ((control.tf([1.0, 1.0], [1.0, 0.0]), 0.1), "W1"),  # an integral-action weight 1/s
        ((control.tf([1.0, 1.0], [1.0, 1e-4]), control.tf([1.0], [1.0, -1.0])), "W2"),
        ((1.0, 0.1, control.tf([1.0, 0.0, 1.0], [1.0, 0.0, 4.0])), "W3"),  # poles at +-2j
    ],
)
def test_mixsyn_refuses_a_weight_with_a_pole_on_the_boundary_and_names_it(weights, name):
    # the weights' states never reach the measurement e of augw: such a mode is a pole of
    # every closed loop.  The error named the augmented plant's measurement 'y[2]' (a
    # signal the user never made) instead of the weight.
    G = control.tf([1.0], [1.0, 0.0]) * control.tf([1.0], [1.0, 1.0])
    with pytest.raises(IllPosedError, match=f"mixsyn: {name} has pole"):
        rmb.mixsyn(G, *weights)


def test_mixsyn_refuses_a_discrete_weight_pole_on_the_unit_circle():
    G = control.c2d(control.tf([1.0], [1.0, 1.0]), 0.1)
    with pytest.raises(IllPosedError, match=r"mixsyn: W1 has pole\(s\) \[1.0\] on or outside"):
        rmb.mixsyn(G, control.tf([1.0], [1.0, -1.0], 0.1), 0.1)
    # a pole just inside is a legal weight
    assert rmb.mixsyn(G, control.tf([1.0], [1.0, -0.99], 0.1), 0.1).gamma > 0
