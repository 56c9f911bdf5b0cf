"""h2syn against SLICOT SB10HD (slycot), the Octave scalar plant and the LMI formulation."""

import control
import numpy as np
import pytest
import slycot
from _oracles import load_oracle
from _plants import slicot_plant

import robustmb as rmb


def _gramian_h2(P, K):
    """H2 norm of python-control's lft by a Lyapunov solve (no robustmb code)."""
    cl = P.lft(K)
    assert np.max(cl.poles().real) < 0
    W = control.lyap(cl.A, cl.B @ cl.B.T)
    return float(np.sqrt(np.trace(cl.C @ W @ cl.C.T)))


def test_h2syn_slicot_sb10hd():
    name = "h2syn_slicot_sb10hd"
    G, nmeas, ncon = slicot_plant(name)
    res = rmb.h2syn(G, nmeas, ncon)
    assert res.method == "riccati"
    d = load_oracle(name)
    ref = d["expected"]["derived_closed_loop_h2_norm"]["value"]
    assert res.norm == pytest.approx(ref, rel=d["tolerance"]["h2_rel"])
    assert res.norm <= ref  # the oracle used a controller rounded to 4 decimals
    # optimal cost formula agrees with the Gramian of the closed loop
    assert res.gamma_bracket[0] == pytest.approx(res.norm, rel=1e-8)
    assert _gramian_h2(G, res.controller) == pytest.approx(res.norm, rel=1e-8)
    # unique optimal controller: same transfer function as slycot's SB10HD
    Ks = control.ss(*slycot.sb10hd(6, 5, 5, 2, 2, G.A, G.B, G.C, G.D)[:4])
    for s in 1j * np.array([0.0, 0.5, 5.0, 50.0]):
        assert np.allclose(res.controller(s), Ks(s), rtol=1e-7, atol=1e-9)


@pytest.mark.slow
def test_h2syn_octave_scalar_plant_and_lmi():
    d = load_oracle("hinfsyn_pycontrol_octave_scalar_plant")
    p = d["plant"]
    G = control.ss(p["A"], p["B"], p["C"], p["D"])
    k = d["expected"]["K"]
    Kref = control.ss(k["A"], k["B"], k["C"], k["D"])
    res = rmb.h2syn(G, 1, 1)
    for s in 1j * np.array([0.0, 1.0, 10.0]):
        assert np.allclose(res.controller(s), Kref(s), atol=1e-8)
    lmi = rmb.h2syn(G, 1, 1, method="lmi")
    assert lmi.norm < 1e-3


def test_h2syn_lmi_agrees_with_riccati():
    G, nmeas, ncon = slicot_plant("h2syn_slicot_sb10hd")
    ric = rmb.h2syn(G, nmeas, ncon)
    lmi = rmb.h2syn(G, nmeas, ncon, method="lmi")
    assert lmi.gamma_bracket[0] == pytest.approx(ric.norm, rel=1e-4)
    assert _gramian_h2(G, lmi.controller) == pytest.approx(lmi.norm, rel=1e-8)
    assert lmi.norm == pytest.approx(ric.norm, rel=1e-3)


def test_h2syn_discrete_is_refused():
    G = control.ss([[0.5]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]], 1.0)
    with pytest.raises(NotImplementedError, match="discrete"):
        rmb.h2syn(G, 1, 1)
