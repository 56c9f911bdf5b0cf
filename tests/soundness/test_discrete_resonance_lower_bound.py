"""robstab's whole-axis lower bound on discrete loops with a resonance nearly on the circle.

With poles ``1e-10`` to ``1e-13`` inside the unit circle the real-mu peak sits on a sliver of
the frequency axis far narrower than the error of the Hamiltonian pencil's crossings, and
a multiplier was extended across it: the lower bound exceeded the exact margin (seed 54:
0.0750578 against 0.0750202; 24: 0.302964 against 0.302810; 49: 14.8737 against 14.8665;
59: 1.06977 against 1.06736).  The references here share no code with the package: a value
``k`` at which ``A0 + k u v`` (the product as the model holds it) has an eigenvalue outside
the unit circle, by mpmath at 100 digits on the stored doubles, bounds the margin above.
"""

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest

import robustmb as rmb

DATA = json.loads(
    (Path(__file__).resolve().parent.parent / "data" / "discrete_resonance_cases.json").read_text()
)["cases"]


@pytest.mark.parametrize("seed", sorted(DATA))
def test_lower_bound_stays_below_an_exactly_unstable_value(seed):
    d = DATA[seed]
    A0, u, v = (np.array(d[key]) for key in ("A0", "u", "v"))
    product = u @ v
    k_bad = d["unstable_k"]
    with mpmath.workdps(100):
        M = mpmath.matrix(A0.tolist()) + mpmath.mpf(k_bad) * mpmath.matrix(product.tolist())
        assert max(abs(z) for z in mpmath.eig(M, left=False, right=False)) > 1
        centre = max(
            abs(z) for z in mpmath.eig(mpmath.matrix(A0.tolist()), left=False, right=False)
        )
        assert centre < 1  # the centre is exactly stable: the margin is positive
    n = A0.shape[0]
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    loop = rmb.uss(A0 + k * product, np.ones((n, 1)), np.ones((1, n)), np.zeros((1, 1)), dt=d["dt"])
    res = rmb.robstab(loop, sensitivity=False)
    assert res.lower <= abs(k_bad)
    assert res.upper >= res.lower
