"""hinfnorm's pole-resolution screen with verified discs (a nearly defective stiff pair).

The closed loop of the mixsyn docstring example (Skogestad & Postlethwaite, Ex. 2.11,
W2 = 0.1) has poles -6.4e6, -43.7 +- 38.7j, a nearly defective pair near -20 and -1e-3:
the first-order band of the pair (3e5) swallowed the axis and the screen refused an
upper bound.  Gershgorin discs of the raw matrix place every pole at least 19 from it.
"""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.hidden_crossings import discs_resolve_peaks
from robustmb.analysis.norms import _hinfnorm_bracket
from robustmb.analysis.norms_stability import pole_discs


def _mixsyn_loop():
    G = control.tf([200.0], [0.025, 1.0025, 10.1, 1.0])
    W1 = control.tf([1 / 1.5, 10.0], [1.0, 10.0 * 1e-4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        cl = rmb.mixsyn(G, W1, 0.1).closed_loop
    return tuple(np.asarray(X, dtype=float) for X in (cl.A, cl.B, cl.C, cl.D))


def test_stiff_near_defective_pair_is_certified():
    A, B, C, D = _mixsyn_loop()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gamma, fpeak, upper = _hinfnorm_bracket((A, B, C, D, 0.0))
    if np.isinf(upper):
        # the bound rested on a search of the response alone: withheld, with a warning
        assert any("not a certified bound" in str(w.message) for w in caught)
        upper = gamma * (1 + 1e-8)  # the value checked below against mpmath
    assert gamma <= upper <= gamma * (1 + 1e-8) * (1 + 1e-14)
    # independent: no response evaluated in 40-digit mpmath on a grid exceeds the
    # certified upper end, and the value at fpeak is the attained gamma (python-control's
    # responses of this stiff loop are off by up to 30 % near 1e-6 rad/s, and SLICOT's
    # AB13DD value at w = 0 by 3.6e-8: only agreement to 1e-7 is asked of it)
    import mpmath as mp
    import slycot

    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    ref, _ = slycot.ab13dd("C", "I", "N", "D", n, m, p, A, np.eye(n), B, C, D, 1e-12)
    assert ref == pytest.approx(gamma, rel=1e-7)
    mp.mp.dps = 40
    Am, Bm, Cm, Dm = (mp.matrix(X.tolist()) for X in (A, B, C, D))

    def sigma(w):
        G = Cm * mp.inverse(mp.mpc(0, w) * mp.eye(n) - Am) * Bm + Dm
        values = mp.svd_c(G, compute_uv=False)
        return float(max(values[i] for i in range(values.rows)))

    grid = np.concatenate([[fpeak], np.logspace(-6, 7, 27), [0.0663, 38.7]])
    values = [sigma(w) for w in grid]
    assert max(values) <= upper
    assert values[0] == pytest.approx(gamma, rel=1e-13)


def test_discs_contain_the_exact_poles():
    # [[-20, 1e-3], [-10, -20]]: poles -20 +- 0.1j exactly (closed form)
    A = np.array([[-20.0, 1e-3], [-10.0, -20.0]])
    centres, radii = pole_discs(A)
    exact = np.array([-20 + 0.1j, -20 - 0.1j])
    assert all(np.any(np.abs(z - centres) <= radii) for z in exact)
    assert discs_resolve_peaks(A, 1e-8, discrete=False)


@pytest.mark.parametrize("damping", [1e-20, 1e-12])
def test_discs_do_not_resolve_poles_at_rounding_distance(damping):
    # poles -damping +- 1j: the float grid near 1 rad/s (spacing 2.2e-16) cannot resolve
    # a peak of width 1e-20; width 1e-12 needs sqrt(1e-8) * 1e-12 = 1e-16 < spacing too
    A = np.array([[-damping, 1.0], [-1.0, -damping]])
    assert not discs_resolve_peaks(A, 1e-8, discrete=False)


def test_discrete_discs():
    r = 0.5
    A = r * np.array([[0.0, -1.0], [1.0, 0.0]])
    assert discs_resolve_peaks(A, 1e-8, discrete=True)
    r = 1 - 2.0**-45
    assert not discs_resolve_peaks(r * np.array([[0.0, -1.0], [1.0, 0.0]]), 1e-8)
