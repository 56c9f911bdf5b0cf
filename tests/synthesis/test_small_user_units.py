"""hinfsyn's messages quote levels in the plant's units; h2syn's closed loop keeps w / z names.

The synthesis designs on a plant whose ``z`` and ``w`` are rescaled by powers of two
(:func:`robustmb.synthesis.plant.normalised_performance`); every level it reports, in the
result and in its warnings and errors, must be in the units of the plant as given.
"""

import importlib
import re

import control
import numpy as np
import pytest
from _oracles import load_oracle
from _plants import independent_hinf

import robustmb as rmb
from robustmb.errors import IllPosedError, RobustMBWarning
from robustmb.synthesis import hinf_riccati as ric
from robustmb.synthesis.plant import normalised_performance, partition_plant

hinfsyn_module = importlib.import_module("robustmb.synthesis.hinfsyn")
# the bisect example plant (tests/synthesis/test_performance_scale.py): its H-infinity
# optimum is sqrt(3) - 1, the root of gamma^2 + 2 gamma - 2; scaling z by c scales it by c
HINF_OPT = np.sqrt(3.0) - 1.0
_NUMBER = r"([-+0-9.e]+)"


def _bisect_plant(cz):
    B = np.array([[1.0, 0.0, 1.0]])
    C = np.array([[cz], [0.0], [1.0]])
    D = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, cz], [0.0, 1.0, 0.0]])
    return control.ss([[-1.0]], B, C, D)


def _trial31(cz):
    """The regular random plant of ``test_hinfsyn_backoff_beyond_rtol``, z scaled by cz."""
    case = load_oracle("hinfsyn_random_regular_plant_seed0_trial31")
    A, B, C, D = (np.array(case["plant"][k], float) for k in "ABCD")
    nz = C.shape[0] - case["nmeas"]
    C[:nz] *= cz
    D[:nz] *= cz
    return control.ss(A, B, C, D), case["nmeas"], case["ncon"]


def test_hinfsyn_beyond_rtol_warning_quotes_the_plants_units(monkeypatch):
    # Without the exact stability test no controller within rtol passes verification on
    # this plant (see test_hinfsyn_backoff_beyond_rtol); with z scaled by 1e-9 the design
    # runs on a plant rescaled by 2^29 and the warning used to quote its levels
    # (bracket top 3710.71 for an optimum near 1.38e-5).
    from robustmb.analysis import norms_stability

    monkeypatch.setattr(norms_stability, "exact_stable", lambda A, dt=0.0: None)
    P, nmeas, ncon = _trial31(1e-9)
    assert normalised_performance(partition_plant(P, nmeas, ncon))[1] != 1.0  # rescaled
    with pytest.warns(RobustMBWarning, match="rtol=0.01") as record:
        res = rmb.hinfsyn(P, nmeas, ncon, method="riccati")
    message = next(str(w.message) for w in record if "rtol=0.01" in str(w.message))
    top, design, norm, lo, hi = map(
        float,
        re.search(
            rf"bracket top {_NUMBER} .* designed at {_NUMBER} .* verified norm {_NUMBER}, "
            rf"bracket {_NUMBER} to {_NUMBER}",
            message,
        ).groups(),
    )
    # the verified norm against SLICOT AB13DD on the closed loop of the given plant
    ref = independent_hinf(P, res.controller)
    assert norm == pytest.approx(ref, rel=1e-5) and hi == norm
    # the other levels as the result reports them (in the plant's units)
    assert top == pytest.approx(res.gamma_opt, rel=1e-5)
    assert design == pytest.approx(res.gamma_design, rel=1e-5)
    assert lo == pytest.approx(res.gamma_bracket[0], rel=1e-5)
    assert lo <= ref <= design * (1 + 1e-5)


def test_hinfsyn_riccati_failure_quotes_the_plants_units(monkeypatch):
    # every controller rejected by the verification: method="riccati" raises, quoting the
    # bracket top, which lies within gtol of the optimum (sqrt(3) - 1) c, c = 1e-9
    c = 1e-9

    def reject(plant, K, gamma_design, slack=None, cl=None):
        return cl, np.inf, False, np.nan, (np.inf, np.nan)

    monkeypatch.setattr(hinfsyn_module, "_verify", reject)
    monkeypatch.setattr(hinfsyn_module, "_first_verified", lambda *args, **kwargs: None)
    with pytest.raises(IllPosedError, match="no Riccati controller passed") as info:
        rmb.hinfsyn(_bisect_plant(c), 1, 1, method="riccati")
    top, lo, twice = map(
        float,
        re.search(
            rf"bracket top {_NUMBER} \(existence test infeasible at {_NUMBER}\) up to {_NUMBER}",
            str(info.value),
        ).groups(),
    )
    assert top == pytest.approx(HINF_OPT * c, rel=1e-5)
    # (six significant digits quoted)
    assert lo <= HINF_OPT * c * (1 + 1e-5) and HINF_OPT * c <= top * (1 + 1e-5)
    assert twice == pytest.approx(2 * top, rel=1e-5)


def test_hinfsyn_no_feasible_level_error_quotes_the_plants_units(monkeypatch):
    # an existence test that fails at every level: the search gives up at 1e15 on the
    # normalised plant, which is 1e15 / s in the units of the plant as given
    c = 1e-9
    P = _bisect_plant(c)
    s = normalised_performance(partition_plant(P, 1, 1))[1]
    assert s > 1e8
    monkeypatch.setattr(ric, "gamma_test", lambda plant, gamma: ric.GammaTest(False, "test"))
    with pytest.raises(IllPosedError, match="passes the H-infinity existence test") as info:
        rmb.hinfsyn(P, 1, 1, method="riccati")
    level = float(re.search(rf"no gamma below {_NUMBER} passes", str(info.value)).group(1))
    assert level == pytest.approx(1e15 / s, rel=1e-5)


@pytest.mark.parametrize("cz", [1.0, 1e-9])
@pytest.mark.parametrize("method", ["auto", "riccati", "lmi"])
def test_h2syn_closed_loop_keeps_the_w_z_names(cz, method):
    # inputs [u, w1, w2], outputs [y, z1, z2] (hinfsyn's test of the same), z scaled by cz
    rng = np.random.default_rng(4)
    A = rng.standard_normal((3, 3)) - 3 * np.eye(3)
    B, C, D = rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), np.zeros((3, 3))
    D[0, 1:], D[1:, 0] = rng.standard_normal(2), rng.standard_normal(2)  # D12, D21
    C[1:] *= cz
    D[1:] *= cz
    P = control.ss(A, B, C, D, inputs=["u", "w1", "w2"], outputs=["y", "z1", "z2"])
    res = rmb.h2syn(P, ["y"], ["u"], method=method)
    hinf = rmb.hinfsyn(P, ["y"], ["u"])
    for cl in (res.closed_loop, hinf.closed_loop):
        assert cl.input_labels == ["w1", "w2"]
        assert cl.output_labels == ["z1", "z2"]
    # the named loop is the loop of the given plant: python-control's lower LFT of the
    # plant reordered to [w; u] -> [z; y], its H2 norm by SLICOT through control.norm (an
    # LMI controller's feedthrough cancels in D11 + D12 Dk D21 = 0 up to rounding, ~1e-31)
    Pr = control.ss(A, B[:, [1, 2, 0]], C[[1, 2, 0]], D[np.ix_([1, 2, 0], [1, 2, 0])])
    ref_cl = Pr.lft(res.controller, 1, 1)
    assert np.abs(ref_cl.D).max() <= 1e-20 * cz
    ref = control.norm(control.ss(ref_cl.A, ref_cl.B, ref_cl.C, 0 * ref_cl.D), 2)
    assert res.norm == pytest.approx(ref, rel=1e-6)
    # the loop returned is strictly proper, with the norm reported (it used to keep a
    # feedthrough of 6e-39 on the rescaled plant: an infinite H2 norm)
    assert not np.any(res.closed_loop.D)
    assert rmb.h2norm(res.closed_loop) == pytest.approx(ref, rel=1e-6)


def test_h2syn_closed_loop_of_an_unnamed_plant_keeps_its_default_names():
    # python-control names the plant's channels u[i] / y[i]: w = u[0], z = y[0]
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
    for res in (rmb.h2syn(P, 1, 1), rmb.hinfsyn(P, 1, 1)):
        assert res.closed_loop.input_labels == ["u[0]"]
        assert res.closed_loop.output_labels == ["y[0]"]
