"""The certified frequency interval walks its segments lazily and decides as if it had
evaluated them all.

``frequency_intervals._interval_between`` evaluates a segment's probes (and those of the
crossing that joins it) only when the chain of verified segments from ``w0`` reaches it.
Here it is compared with a reference that evaluates every segment and every crossing in one
batch and then walks the chain (the straightforward form of the same rule), on random
systems, multipliers, levels and candidate crossings (true ones from the Hamiltonian pencil,
and arbitrary increasing ones, which exercise every chain layout): the intervals must be
identical, bit for bit, for every batch size.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis import frequency_intervals as fi
from robustmb.analysis.freqresp import freqresp


def eager_interval(cross, mult, beta, w0, evaluate, d, probes):
    """Every segment's probes and every crossing's three probes in one evaluation, then the
    chain from the segment of ``w0`` outward while segments and crossings hold."""
    edges = np.concatenate([[0.0], cross, [np.inf]])
    lo_e, hi_e = edges[:-1], edges[1:]
    fr = (np.arange(probes) + 1.0) / (probes + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        top = np.where(np.isinf(hi_e), np.maximum(100 * lo_e, lo_e + 100.0), hi_e)
        geo = lo_e[:, None] * (top / np.where(lo_e > 0, lo_e, 1.0))[:, None] ** fr
        inner = np.where((lo_e > 0)[:, None], geo, top[:, None] * fr)
    nseg, ncr = len(lo_e), len(cross)
    e = fi._EDGE
    w = np.concatenate([inner.ravel(), [w0, 0.0], cross * (1 - e), cross, cross * (1 + e)])
    ok = fi.fdi_values(evaluate(w), mult, beta) < 0
    seg_ok = ok[: nseg * probes].reshape(nseg, probes).all(axis=1)
    at_w0, at_zero = ok[nseg * probes], ok[nseg * probes + 1]
    below, at, above = ok[nseg * probes + 2 :].reshape(3, ncr)
    if not at_w0:
        return None
    k = min(int(np.searchsorted(hi_e, w0, side="left")), nseg - 1)
    if not seg_ok[k]:
        return "mixed"
    joins = below & at & above
    lo_k = hi_k = k
    while lo_k > 0 and seg_ok[lo_k - 1] and joins[lo_k - 1]:
        lo_k -= 1
    while hi_k < nseg - 1 and seg_ok[hi_k + 1] and joins[hi_k]:
        hi_k += 1

    def edge(holds, bad, good):
        return bad if holds else fi._edge_point(bad, good, mult, beta, evaluate)

    if lo_k == 0:
        lo = edge(at_zero, 0.0, inner[0, 0])
    else:
        lo = edge(above[lo_k - 1], cross[lo_k - 1] * (1 + e), inner[lo_k, 0])
    lo = min(lo, w0)
    if hi_k == nseg - 1:
        if fi.fdi_values(d[None], mult, beta)[0] < 0:
            return (float(lo), np.inf)
        if hi_k == k:
            return (float(lo), float(w0))
        hi_k -= 1
    hi = edge(below[hi_k], cross[hi_k] * (1 - e), inner[hi_k, -1])
    return (float(lo), float(max(hi, w0)))


def _case(seed, n, m, margin=None):
    """A stable random ``M`` (n states, m x m) with lightly damped modes, a multiplier
    ``X = I + E``, ``Y`` small, ``Z = I`` and a level just above its value at ``w0``."""
    rng = np.random.default_rng(seed)
    poles = -rng.uniform(0.01, 0.3, n) + 1j * rng.uniform(0.1, 10.0, n)
    a = np.diag(poles.real) + np.diag(poles.imag[:-1], 1) - np.diag(poles.imag[:-1], -1)
    b, c = rng.standard_normal((n, m)), rng.standard_normal((m, n))
    d = 0.1 * rng.standard_normal((m, m))
    sysdata = (a, b, c, d)
    e = 0.2 * rng.standard_normal((m, m))
    y = 0.1 * rng.standard_normal((m, m))
    mult = fi.Multiplier(np.eye(m) + 0.5 * (e + e.T), y + 1j * 0.05 * (y - y.T), np.eye(m))
    w0 = float(10 ** rng.uniform(-2, 1.5))

    def evaluate(w):
        return freqresp(sysdata, np.asarray(w, float))

    # the level with the inequality holding at w0 (lambda_max(Phi) < 0 needs beta large enough)
    lo, hi = 1e-3, 1e3
    for _ in range(60):
        mid = np.sqrt(lo * hi)
        if fi.fdi_values(evaluate(np.array([w0])), mult, mid)[0] < 0:
            hi = mid
        else:
            lo = mid
    beta = hi * (1 + (rng.uniform(0.001, 0.5) if margin is None else margin))
    return sysdata, mult, beta, w0, evaluate, rng


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 7), m=st.integers(1, 3))
def test_lazy_walk_equals_eager_on_pencil_crossings(seed, n, m):
    sysdata, mult, beta, w0, evaluate, _ = _case(seed, n, m)
    a, b, c, d = sysdata
    cross = fi._candidate_crossings(*mult.scale_system(a, b, c, d), mult.pi(beta))
    ref = eager_interval(cross, mult, beta, w0, evaluate, d, 3)
    for batch in (1, 2, 5):
        got = fi._interval_between(cross, mult, beta, w0, evaluate, d, 3, batch=batch)
        assert got == ref, (batch, got, ref)
    whole = fi.certified_interval(sysdata, mult, beta, w0, evaluate)
    assert whole == ((w0, w0) if ref == "mixed" else ref)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    ncross=st.integers(0, 25),
    probes=st.integers(1, 4),
    batch=st.integers(1, 6),
)
def test_lazy_walk_equals_eager_on_arbitrary_crossings(seed, ncross, probes, batch):
    sysdata, mult, beta, w0, evaluate, rng = _case(seed, 4, 2)
    cross = np.sort(10 ** rng.uniform(-3, 3, ncross))
    if rng.uniform() < 0.3 and ncross:  # w0 on a candidate crossing
        w0 = float(cross[rng.integers(ncross)])
    ref = eager_interval(cross, mult, beta, w0, evaluate, sysdata[3], probes)
    got = fi._interval_between(cross, mult, beta, w0, evaluate, sysdata[3], probes, batch=batch)
    assert got == ref, (got, ref)


def test_lazy_walk_evaluates_fewer_points_when_the_chain_is_short():
    """Many segments, an interval spanning a few: the lazy walk evaluates the inequality at
    a fraction of the points the eager form needs (same interval)."""
    sysdata, mult, beta, w0, evaluate, _ = _case(7, 5, 2, margin=1e-4)  # a narrow interval
    cross = np.sort(np.concatenate([np.geomspace(1e-3, 1e3, 40), [w0 * 0.999, w0 * 1.001]]))
    counted = []

    def counting(w):
        counted.append(np.size(w))
        return evaluate(w)

    got = fi._interval_between(cross, mult, beta, w0, counting, sysdata[3], 3)
    lazy = sum(counted)
    counted.clear()
    assert got == eager_interval(cross, mult, beta, w0, counting, sysdata[3], 3)
    assert lazy < sum(counted) / 3
