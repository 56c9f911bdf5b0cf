"""Bad arguments of the synthesis functions raise robustmb errors naming the argument."""

import importlib

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, FreeTunableError, UncertainTypeError

P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
G = control.tf(1, [1, 1])


def uncertain_plant():
    d = rmb.ultidyn("d", (1, 1), bound=0.5)
    Gu = rmb.uss(control.tf([1.0], [1.0, 1.0])) * (1 + d)
    W = rmb.uss(control.tf([0.5, 0.5], [1.0, 0.01]))
    return rmb.vstack(W, 1.0) * rmb.hstack(1.0, -Gu)


def test_ncfsyn_weight_sizes():
    with pytest.raises(DimensionError, match="W1 .* 2x2"):
        rmb.ncfsyn(G, W1=control.ss([], [], [], np.eye(2)))
    with pytest.raises(DimensionError, match="W2 .* 1x2"):
        rmb.ncfsyn(G, W2=control.ss([], [], [], np.ones((1, 2))))
    G2 = control.ss(-np.eye(2), np.eye(2), np.eye(2), np.zeros((2, 2)))
    with pytest.raises(DimensionError, match="W1"):
        rmb.ncfsyn(G2, W1=control.tf([1.0, 2.0], [1.0, 1e-6]))  # 1x1 for two inputs
    with pytest.raises(ArgumentError, match="W1"):
        rmb.ncfsyn(G, W1="gain")
    # an identity weight of the right size changes nothing, and a number c is c I
    ref = rmb.ncfsyn(G2).gamma
    assert rmb.ncfsyn(G2, W1=np.eye(2), W2=np.eye(2)).gamma == pytest.approx(ref, rel=1e-12)
    assert rmb.ncfsyn(G2, W1=1.0, W2=1).gamma == pytest.approx(ref, rel=1e-12)
    assert rmb.ncfsyn(G, W1=1.0).gamma == pytest.approx(rmb.ncfsyn(G).gamma, rel=1e-12)
    two = rmb.ncfsyn(G2, W1=2.0)
    assert two.gamma == pytest.approx(rmb.ncfsyn(G2, W1=2 * np.eye(2)).gamma, rel=1e-12)
    assert two.controller.ninputs == two.controller.noutputs == 2


@pytest.mark.parametrize("tol", [-0.5, 0, 0.0, "a", np.nan, np.inf, True])
def test_ncfsyn_tol(tol):
    with pytest.raises(ArgumentError, match="tol"):
        rmb.ncfsyn(G, tol=tol)


def test_partition_messages():
    with pytest.raises(DimensionError, match="nmeas = 0: the controller needs at least one meas"):
        rmb.hinfsyn(P, 0, 1)
    with pytest.raises(DimensionError, match="ncon = 0: the controller needs at least one cont"):
        rmb.h2syn(P, 1, 0)
    with pytest.raises(DimensionError, match="nmeas = 2 must leave at least one error output"):
        rmb.hinfsyn(P, 2, 1)
    for bad in (1.5, True, None):
        with pytest.raises(ArgumentError, match="ncon must be an integer"):
            rmb.hinfsyn(P, 1, bad)
        with pytest.raises(ArgumentError, match="nmeas must be an integer"):
            rmb.h2syn(P, bad, 1)


def test_h2syn_method():
    with pytest.raises(ArgumentError, match="method"):
        rmb.h2syn(P, 1, 1, method="foo")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": 1.5}, "max_iter"),
        ({"max_order": -1}, "max_order"),
        ({"omega": [-1.0, 1.0]}, "omega"),
        ({"omega": [1.0, np.nan]}, "omega"),
        ({"omega": []}, "omega"),
        ({"omega": np.ones((2, 2))}, "omega"),
    ],
)
def test_musyn_arguments(kwargs, name):
    with pytest.raises(ArgumentError, match=name):
        rmb.musyn(uncertain_plant(), 1, 1, **kwargs)


def test_musyn_needs_uncertainty():
    M = control.ss(-np.eye(2), np.ones((2, 3)), np.ones((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ArgumentError, match="blk"):
        rmb.musyn(M, 1, 1)
    with pytest.raises(ArgumentError, match="no uncertain elements"):
        rmb.musyn(rmb.uss(control.ss(M)), 1, 1)
    with pytest.raises(ArgumentError, match="nmeas"):
        rmb.musyn(uncertain_plant(), 1.0, 1)


def test_discrete_true_sampling_time_is_kept():
    Pd = control.c2d(P, 0.1)
    Pt = control.ss(Pd.A, Pd.B, Pd.C, Pd.D, True)
    for syn in (rmb.hinfsyn, rmb.h2syn):
        K1, Kt = syn(Pd, 1, 1).controller, syn(Pt, 1, 1).controller
        assert K1.dt == 0.1 and Kt.dt is True
        # the same controller: dt = True is a sampling time of 1, the design is dt-free
        assert np.allclose(control.ss(Kt).A, K1.A) and np.allclose(Kt.D, K1.D)
    Gt = control.ss(control.c2d(control.ss(G), 0.1).A, [[1.0]], [[1.0]], [[0.0]], True)
    assert rmb.ncfsyn(Gt).controller.dt is True
    assert rmb.hinfsyn(control.ss([], [], [], [[1.0, 1.0], [1.0, 0.0]], True), 1, 1).controller.dt


def test_loopshaping_sampling_times_must_agree():
    W = control.tf([0.5, 1.0], [1.0, 0.01])
    Wd = control.sample_system(control.ss(W), 0.1)
    Gd = control.sample_system(control.ss(G), 0.1)
    Wd2 = control.sample_system(control.ss(W), 0.2)
    for call in (
        lambda: rmb.mixsyn(G, Wd, 0.1),
        lambda: rmb.mixsyn(Gd, W, 0.1),
        lambda: rmb.mixsyn(Gd, Wd2, 0.1),
        lambda: rmb.ncfsyn(G, Wd),
        lambda: rmb.ncfsyn(Gd, Wd2),
    ):
        with pytest.raises(ArgumentError, match="W1 is .* but G is"):
            call()
    with pytest.raises(ArgumentError, match="W2 is dt = 0.1 but G is continuous"):
        rmb.ncfsyn(G, None, Wd)
    # a static gain fits any sampling time
    assert rmb.mixsyn(Gd, Wd, 0.1).controller.dt == 0.1


def test_mixsyn_weight_sizes_and_plant():
    W = control.tf([0.5, 1.0], [1.0, 0.01])
    with pytest.raises(DimensionError, match="W1 must have G's 1 outputs"):
        rmb.mixsyn(G, control.append(control.ss(W), control.ss(W)), 0.1)
    G2 = control.ss(-np.eye(2), np.eye(2), np.eye(2), np.zeros((2, 2)))
    with pytest.raises(DimensionError, match="W2 must have G's 2 inputs"):
        rmb.mixsyn(G2, 1.0, np.ones((3, 3)))
    with pytest.raises(ArgumentError, match="G must be an LTI system"):
        rmb.mixsyn("G", W, 0.1)
    # a list is a static gain plant: with G = 1, W1 = 1, W2 = 0.1 and a gain k,
    # ||[S; 0.1 K S]|| = sqrt(1 + 0.01 k^2) / (1 + k) >= 1 / sqrt(101) (Cauchy-Schwarz:
    # 1 + k <= sqrt(1 + 0.01 k^2) sqrt(1 + 100)), attained at k = 100
    res = rmb.mixsyn([[1.0]], 1.0, 0.1)
    assert res.gamma == pytest.approx(1 / np.sqrt(101.0), rel=1e-5)


def test_loopshaping_refuses_uncertain_and_improper_systems():
    k = rmb.ureal("k", 2.0, percent=20)
    Gu = rmb.uss(control.tf([1.0], [1.0, 1.0])) * k
    W1 = control.tf([0.5, 1.0], [1.0, 0.01])
    with pytest.raises(UncertainTypeError, match="G is an uncertain system.*musyn.*nominal"):
        rmb.mixsyn(Gu, W1, 0.1)
    with pytest.raises(UncertainTypeError, match="G is an uncertain system"):
        rmb.ncfsyn(Gu, W1)
    with pytest.raises(DimensionError, match="W1 is not proper"):
        rmb.ncfsyn(G, control.tf([1.0, 1.0], [1.0]))
    with pytest.raises(DimensionError, match="W2 is not proper"):
        rmb.ncfsyn(G, None, control.tf([1.0, 0.0, 1.0], [1.0, 1.0]))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"mixed_mu": "no"}, "mixed_mu must be True or False"),
        ({"full_dg": 1}, "full_dg must be True or False"),
        ({"blk": [(1, 1)]}, "blk is given with an uncertain P"),
    ],
)
def test_musyn_flag_and_structure_arguments(kwargs, match):
    with pytest.raises(ArgumentError, match=match):
        rmb.musyn(uncertain_plant(), 1, 1, max_iter=1, **kwargs)


@pytest.mark.parametrize("blk", ["full", [], [(1,)], [(0, 0)], [(-1, 1)], [(1.5, 0)]])
def test_musyn_blk_must_be_integer_pairs(blk):
    M = control.ss(-np.eye(2), np.ones((2, 3)), np.ones((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ArgumentError, match="blk must be a nonempty list"):
        rmb.musyn(M, 1, 1, blk=blk, max_iter=1)


def test_musyn_discrete_omega_below_nyquist():
    d = rmb.ultidyn("d", (1, 1), bound=0.5)
    Gd = rmb.uss(control.sample_system(control.ss(G), 0.1)) * (1 + d)
    P = rmb.vstack(0.5, 1.0) * rmb.hstack(1.0, -Gd)
    with pytest.raises(ArgumentError, match="Nyquist"):
        rmb.musyn(P, 1, 1, max_iter=1, omega=[1.0, 40.0])


def _tunable_plant():
    a = rmb.realp("a", 2.0)
    Ga = rmb.uss(control.tf([1.0], [1.0, 1.0])) * a
    return Ga, rmb.vstack(1.0, 1.0) * rmb.hstack(1.0, -Ga)


@pytest.mark.parametrize(
    "call, func, name",
    [
        (lambda G, P: rmb.hinfsyn(P, 1, 1), "hinfsyn", "P"),
        (lambda G, P: rmb.h2syn(P, 1, 1), "h2syn", "P"),
        (lambda G, P: rmb.musyn(P, 1, 1, max_iter=1), "musyn", "P"),
        (lambda G, P: rmb.mixsyn(G, 0.5, 0.1), "mixsyn", "G"),
        (lambda G, P: rmb.mixsyn(control.tf([1.0], [1.0, 1.0]), G), "mixsyn", "W1"),
        (lambda G, P: rmb.ncfsyn(G), "ncfsyn", "G"),
    ],
)
def test_free_tunable_parameters_are_refused_up_front(call, func, name, monkeypatch):
    hs_module = importlib.import_module("robustmb.synthesis.hinfsyn")
    # up front: no synthesis may start
    monkeypatch.setattr(hs_module, "_solve", lambda *a: pytest.fail("synthesis started"))
    G, P = _tunable_plant()
    with pytest.raises(FreeTunableError, match=rf"^{func}: {name} .*\['a'\]"):
        call(G, P)


def test_mixsyn_non_finite_weight_and_unknown_option_name_mixsyn():
    G1 = control.tf([1.0], [1.0, 1.0])
    with pytest.raises(ArgumentError, match="mixsyn: W1 has a non-finite"):
        rmb.mixsyn(G1, control.tf([np.nan], [1.0, 1.0]))
    with pytest.raises(ArgumentError, match="mixsyn: W2 has a non-finite entry in A"):
        rmb.mixsyn(G1, 0.5, control.ss([[np.nan]], [[1.0]], [[1.0]], [[0.0]]))
    with pytest.raises(ArgumentError, match="mixsyn: unknown option 'rtl'"):
        rmb.mixsyn(G1, 0.5, 0.1, rtl=0.05)
    with pytest.raises(ArgumentError, match="mixsyn: rtol must be"):
        rmb.mixsyn(G1, 0.5, 0.1, rtol=2.0)
