"""hinfnorm on identical lightly damped modes in series (a defective pole pair).

For ``k`` modes ``1 / (s^2 + 2 zeta s + 1)`` the peak is the product of the peaks,
``(1 / (2 zeta sqrt(1 - zeta^2)))^k`` at ``sqrt(1 - 2 zeta^2)``.  The Hamiltonian test is
blind there (the level enters only through ``(2 zeta)^(2k)``, below rounding): the
value must still be found, and the bracket ``[gamma, gamma (1 + tol)]`` is either true or
reported as not certified (a ``RuntimeWarning``).  References are closed forms and the
product of the factors' responses evaluated one factor at a time (accurate in double,
unlike any solve with the series realisation).
"""

import importlib
import warnings

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb

TOL = 1e-8


def _oscillator(w0, zeta):
    return control.ss(
        [[0.0, 1.0], [-(w0**2), -2.0 * zeta * w0]], [[0.0], [w0**2]], [[1.0, 0.0]], [[0.0]]
    )


def _series(k, zeta, w0=1.0, extra=None):
    G = _oscillator(w0, zeta)
    for _ in range(k - 1):
        G = G * _oscillator(w0, zeta)
    return G if extra is None else G * extra


def _factor_gain(w, k, zeta, w0=1.0, extra=None):
    """``|G(j w)|`` as the product of the factors' gains (no solve with ``A``)."""
    s = 1j * np.asarray(w, dtype=float)
    gain = np.abs(w0**2 / (s * s + 2.0 * zeta * w0 * s + w0**2)) ** k
    if extra is not None:
        num, den = extra
        gain = gain * np.abs(np.polyval(num, s) / np.polyval(den, s))
    return gain


def _hinfnorm_and_certified(G, tol=TOL):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gamma, fpeak = rmb.hinfnorm(G, tol=tol)
    texts = [str(w.message) for w in caught]
    certified = not any("not a certified bound" in t or "no upper bound" in t for t in texts)
    return gamma, fpeak, certified


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("zeta", [1e-3, 1e-4, 1e-5, 1e-6])
def test_series_modes_value_and_bracket(k, zeta):
    exact = (1.0 / (2.0 * zeta * np.sqrt(1.0 - zeta * zeta))) ** k
    gamma, fpeak, certified = _hinfnorm_and_certified(_series(k, zeta))
    # the value is found ...
    assert gamma == pytest.approx(exact, rel=1e-9)
    assert fpeak == pytest.approx(np.sqrt(1.0 - 2.0 * zeta * zeta), abs=10 * zeta)
    # ... and the bracket, when claimed, holds
    if certified:
        assert gamma <= exact * (1 + 1e-12) <= gamma * (1 + TOL) * (1 + 1e-12)


@pytest.mark.parametrize("tol", [1e-8, 1e-6, 1e-3])
def test_triple_mode_reproducer_at_every_tolerance(tol):
    zeta = 1e-5
    exact = (1.0 / (2.0 * zeta * np.sqrt(1.0 - zeta * zeta))) ** 3  # 1.25000000019e14
    gamma, _, certified = _hinfnorm_and_certified(_series(3, zeta), tol=tol)
    assert gamma == pytest.approx(exact, rel=min(tol, 1e-9))
    # the Hamiltonian cannot see this peak: the result must not claim a certificate
    assert not certified


def test_well_damped_and_single_modes_stay_certified():
    for G in (_series(1, 1e-5), _series(2, 0.05), control.ss(control.tf([1.0], [1.0, 0.4, 4.0]))):
        _, _, certified = _hinfnorm_and_certified(G)
        assert certified


@st.composite
def _repeated_mode_models(draw):
    k = draw(st.integers(2, 3))
    zeta = 10.0 ** draw(st.floats(-6.0, -2.0))
    w0 = 10.0 ** draw(st.floats(-1.0, 1.0))
    # a well-damped extra factor (s + b) / (s + c)
    b = 10.0 ** draw(st.floats(-1.0, 1.0))
    c = 10.0 ** draw(st.floats(-1.0, 1.0))
    return k, zeta, w0, ([1.0, b], [1.0, c])


@settings(max_examples=12, deadline=None)
@given(_repeated_mode_models())
def test_upper_end_is_never_below_a_dense_grid(model):
    k, zeta, w0, extra = model
    G = _series(k, zeta, w0, control.ss(control.tf(*extra)))
    gamma, fpeak, certified = _hinfnorm_and_certified(G)
    upper = gamma * (1 + TOL) if certified else np.inf
    grid = np.concatenate(
        [
            np.geomspace(1e-3 * w0, 1e3 * w0, 4001),
            w0 * (1.0 + zeta * np.linspace(-30.0, 30.0, 60001)),
        ]
    )
    dense = _factor_gain(grid, k, zeta, w0, extra).max()
    assert upper >= dense * (1 - 1e-12)
    # attained: the value is the response at fpeak
    assert gamma == pytest.approx(_factor_gain([fpeak], k, zeta, w0, extra)[0], rel=1e-9)


def test_diskmargin_does_not_certify_on_an_unproved_norm(monkeypatch):
    def unproved(sys, tol=1e-8):
        gamma, fpeak = rmb.hinfnorm(sys, tol=tol)
        return gamma, fpeak, np.inf  # no certified upper end of the bracket

    L = control.ss(
        control.tf(
            [[[2.0], [1.0]], [[0.5], [1.0]]],
            [[[1.0, 2.0, 1.0], [1.0, 1.0]], [[1.0, 3.0], [1.0, 2.0, 1.0]]],
        )
    )
    reference = rmb.diskmargin(L)
    assert reference.loop_at_a_time.certified
    module = importlib.import_module("robustmb.analysis.diskmargin")
    monkeypatch.setattr(module, "_hinfnorm_bracket", unproved)
    result = rmb.diskmargin(L)
    assert not result.loop_at_a_time.certified
    # the multiloop bound then rests on the mu interval cover alone; still a lower bound
    # of the margin that the reference's destabilising perturbation realises
    assert result.multiloop.lower <= reference.multiloop.upper


@pytest.mark.parametrize(("k", "zeta"), [(3, 1e-5), (2, 1e-4), (3, 1e-3)])
def test_discrete_series_modes_against_the_factor_response(k, zeta):
    dt = 0.1
    Gd1 = control.c2d(_oscillator(1.0, zeta), dt)
    Gd = Gd1
    for _ in range(k - 1):
        Gd = Gd * Gd1
    gamma, fpeak, certified = _hinfnorm_and_certified(Gd)

    def factor_gain(theta):
        z = np.exp(1j * np.asarray(theta, dtype=float))
        A, B, C, D = (np.asarray(X) for X in (Gd1.A, Gd1.B, Gd1.C, Gd1.D))
        shifted = z[:, None, None] * np.eye(2) - A
        one = (C @ np.linalg.solve(shifted, np.broadcast_to(B, (z.size, 2, 1))))[:, 0, 0] + D[0, 0]
        return np.abs(one) ** k

    theta = np.concatenate(
        [np.linspace(0.0, np.pi, 20001), dt * (1.0 + zeta * np.linspace(-40.0, 40.0, 80001))]
    )
    dense = factor_gain(theta).max()
    upper = gamma * (1 + TOL) if certified else np.inf
    assert upper >= dense * (1 - 1e-9)  # a 2-state solve at zeta = 1e-5: ~1e-11 accurate
    assert gamma == pytest.approx(factor_gain([fpeak * dt])[0], rel=1e-8)
