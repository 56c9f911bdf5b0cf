"""COMPleib plants from tests/data (static output-feedback H-infinity problems)."""

import control
import numpy as np
from _oracles import load_oracle

import robustmb as rmb
from robustmb.lft.algebra import lft_lower
from robustmb.lft.model import as_model
from robustmb.tuning.parametrization import ParameterVector, TunableLFT
from robustmb.tuning.tuning_problem import TuningProblem
from robustmb.tuning.tuning_term import Term


def compleib(name):
    """``(P, oracle)``: the generalised plant ``ss(A, [B1 B], [C1; C], [D11 D12; D21 0])``."""
    for suffix in ("static_hinf", "data"):
        try:
            data = load_oracle(f"compleib_{name}_{suffix}")
            break
        except FileNotFoundError:
            continue
    p = data["plant"]
    a, b1, b, c1, c, d11, d12, d21 = (
        np.array(p[k], float) for k in ("A", "B1", "B", "C1", "C", "D11", "D12", "D21")
    )
    P = control.ss(
        a,
        np.hstack([b1, b]),
        np.vstack([c1, c]),
        np.block([[d11, d12], [d21, np.zeros((c.shape[0], b.shape[1]))]]),
    )
    return P, data, (a, b1, b, c1, c, d11, d12, d21)


def full_order_floor(a, b1, b2, c1, c2, d11, d12, d21):
    """Certified full-order floor: ``FullOrderFloor`` (``.lower``, ``.estimate``, ...)."""
    from robustmb.tuning.full_order_floor import full_order_floor as floor

    P = control.ss(
        a,
        np.hstack([b1, b2]),
        np.vstack([c1, c2]),
        np.block([[d11, d12], [d21, np.zeros((c2.shape[0], b2.shape[1]))]]),
    )
    return floor(P, c2.shape[0], b2.shape[1])


def static_loop(P, K):
    """``Fl(P, K)`` for a static ``K`` by the textbook formulas (``D22 = 0`` required)."""
    K = np.atleast_2d(K)
    nu, ny = K.shape
    a, b, c, d = (np.asarray(m) for m in (P.A, P.B, P.C, P.D))
    b1, b2 = b[:, :-nu], b[:, -nu:]
    c1, c2 = c[:-ny], c[-ny:]
    d11, d12, d21, d22 = d[:-ny, :-nu], d[:-ny, -nu:], d[-ny:, :-nu], d[-ny:, -nu:]
    assert not np.any(d22)
    return control.ss(a + b2 @ K @ c2, b1 + b2 @ K @ d21, c1 + d12 @ K @ c2, d11 + d12 @ K @ d21)


def static_problem(name):
    """``(problem, P, (nu, ny))``: the engine's tuning problem of a static output feedback
    gain on the COMPleib plant ``name`` (one H-infinity term, stability enforced)."""
    P, _, mats = compleib(name)
    nu, ny = mats[2].shape[1], mats[4].shape[0]
    km = as_model(rmb.tunable_gain("K", nu, ny))
    params = ParameterVector(km.tunables)
    lft = TunableLFT(lft_lower(as_model(P), km), params)
    return TuningProblem(params, [Term(lft)], loops=[lft]), P, (nu, ny)
