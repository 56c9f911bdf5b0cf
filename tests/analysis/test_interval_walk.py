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
import pytest
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

    def edge(holds, bad, good, side):  # None: the end cannot be placed outward of w0
        if holds:
            return bad
        if not (bad - good) * side > 0:
            return None
        end = fi._edge_point(bad, good, mult, beta, evaluate)
        return end if (end - w0) * side >= 0 else None

    if lo_k == 0:
        lo = edge(at_zero, 0.0, inner[0, 0], -1)
    else:
        lo = edge(above[lo_k - 1], cross[lo_k - 1] * (1 + e), inner[lo_k, 0], -1)
    if lo is None:
        return "mixed"
    lo = min(lo, w0)
    if hi_k == nseg - 1:
        if fi.fdi_values(d[None], mult, beta)[0] < 0:
            return (float(lo), np.inf)
        if hi_k == k:
            return (float(lo), float(w0))
        hi_k -= 1
    hi = edge(below[hi_k], cross[hi_k] * (1 - e), inner[hi_k, -1], +1)
    if hi is None:
        return "mixed"
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


# --- violations the probes are placed to catch: a scalar "M" whose peak gain 0.6 breaks
# |M| < 0.5 on chosen sets of frequencies, 0.4 elsewhere (a stand-in for evaluate) ----------

E = fi._EDGE
UNIT = fi.Multiplier(np.eye(1), np.zeros((1, 1)), np.eye(1))  # the inequality |M(jw)| < beta


def _gain(bad):
    def evaluate(w):
        w = np.atleast_1d(np.asarray(w, float))
        return np.where(bad(w), 0.6, 0.4).astype(complex)[:, None, None]

    return evaluate


def _claims(interval, points):
    lo, hi = interval
    return [w for w in points if lo <= w <= hi]


CROSS = np.array([0.5, 1.0, 2.0])
CASES = {
    # name: (set where it fails, w0, feedthrough gain, failing points to test, expected)
    "at a crossing": (lambda w: w == 1.0, 0.7, 0.4, [1.0], (0.0, 1.0 * (1 - E))),
    "just below a crossing": (lambda w: (w < 1.0) & (w > 1.0 - 2e-9), 0.7, 0.4, [1 - E], None),
    "just above a crossing": (lambda w: (w > 1.0) & (w < 1.0 + 2e-9), 1.5, 0.4, [1 + E], None),
    "at zero": (lambda w: w == 0.0, 0.3, 0.4, [0.0], None),
    "at infinity, chain to the top": (lambda w: w > 1e300, 0.7, 0.6, [], (0.0, 2.0 * (1 - E))),
    "at infinity, w0 in the top segment": (lambda w: w > 1e300, 3.0, 0.6, [], (0.0, 3.0)),
    # the pencil placed a crossing off by more than the margin: a band next to w0
    "band between w0 and its end": (
        lambda w: (w > 1 - 3e-9) & (w < 1 - 5e-10),
        1 - 2e-10,
        0.4,
        [1 - 1e-9],
        "mixed",
    ),
    "band below w0 above a crossing": (
        lambda w: (w > 1 + 5e-10) & (w < 1 + 3e-9),
        1 + 2e-10,
        0.4,
        [1 + 1e-9],
        "mixed",
    ),
}


def test_violations_next_to_the_probes_are_never_claimed():
    """Each case puts the violation where one of the walk's checks (a crossing's three
    probes, the point 0, the feedthrough, the edge bisection) must see it; the interval
    never contains a failing point, always contains w0, equals the reference form, and
    the cases with a known answer give it."""
    for name, (bad, w0, dgain, failing, expected) in CASES.items():
        evaluate = _gain(bad)
        d = np.array([[dgain]])
        ref = eager_interval(CROSS, UNIT, 0.5, w0, evaluate, d, 3)
        for batch in (1, 2, 4):
            got = fi._interval_between(CROSS, UNIT, 0.5, w0, evaluate, d, 3, batch=batch)
            assert got == ref, (name, batch, got, ref)
        if expected == "mixed" or got == "mixed":
            assert got == expected, (name, got)
            continue
        assert got[0] <= w0 <= got[1], name
        assert _claims(got, failing) == [], (name, got)
        if failing and failing[0] == 0.0:
            assert got[0] > 0.0
        if expected is not None:
            assert got == pytest.approx(expected, rel=1e-12), (name, got)


def test_two_candidates_closer_than_the_margin_with_a_violation_between():
    """``c2 (1 - margin)`` falls below the segment's last probe and fails there: the end
    cannot be placed by bisection outward, so only w0 itself is claimed ("mixed")."""
    c1, c2 = 1.0, 1.0 * (1 + 1.2e-9)
    band = (c1 * (1 + 0.15e-9), c1 * (1 + 0.25e-9))
    evaluate = _gain(lambda w: ((w >= band[0]) & (w <= band[1])) | (w > c2))
    cross = np.array([0.1, c1, c2, 10.0])
    d = np.array([[0.4]])
    got = fi._interval_between(cross, UNIT, 0.5, 0.5, evaluate, d, 3)
    assert got == "mixed" == eager_interval(cross, UNIT, 0.5, 0.5, evaluate, d, 3)


def test_a_pole_near_zero_gives_no_extra_candidates_and_no_error():
    """``M(s) = 0.3 p / (s + p) + 0.1`` with p down to 1e-300: the realisation of ``M(1/s)``
    overflows its pencil; the candidates of ``Phi(s)`` stand alone and |M| < 0.5 holds on
    the whole axis."""
    for p in (1e-12, 1e-160, 1e-300):
        sd = (np.array([[-p]]), np.array([[p]]), np.array([[0.3]]), np.array([[0.1]]))
        got = fi.certified_interval(sd, UNIT, 0.5, 1.0, lambda w, sd=sd: freqresp(sd, w))
        assert got == (0.0, np.inf)
