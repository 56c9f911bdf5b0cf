"""Low-frequency crossings of the interval certificate (``frequency_intervals``).

A scaled certificate model can carry a feedthrough far larger than its low-frequency
response: the two cancel below a fast pole.  The Hamiltonian pencil of ``Phi(s)`` then
places the low crossings only to within an absolute error of about ``eps`` times its
norm, so they move with the last bits of the data (the arm's interval certificates
below 0.01 rad/s changed with the BLAS threading).  The pencil of ``Phi(1/s)`` holds
``M(0)`` as its feedthrough and places them to full relative accuracy.

The constructed case: ``N(s) = [[g(s), h(s)], [0, 1/2]]``, ``g = 0.5 / (100 s + 1)``,
``h = K s / (s + p)`` (``K = 1e8``, ``p = 1e6``: ``D`` holds ``K``, cancelled below
``p``), certificate ``sigma_max(N(jw)) <= 1`` (``X = Z = I``, ``Y = 0``).  Its single
crossing solves ``|h|^2 = 3/4 (1 - |g|^2)`` (``det(N^H N - I) = 0``), found here by a
scalar root search, independently of the pencils.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy.optimize import brentq

from robustmb.analysis import frequency_intervals as fi
from robustmb.analysis.freqresp import freqresp

K, P = 1e8, 1e6
MULT = fi.Multiplier(np.eye(2), np.zeros((2, 2)), np.eye(2))


def _system(rel=0.0, seed=0):
    """``N`` (balanced realisation), optionally with each entry perturbed by ``rel``."""
    a = np.diag([-0.01, -P])
    b = np.array([[0.005, 0.0], [0.0, np.sqrt(K * P)]])
    c = np.array([[1.0, -np.sqrt(K * P)], [0.0, 0.0]])
    d = np.array([[0.0, K], [0.0, 0.5]])
    if rel:
        rng = np.random.default_rng(seed)
        a, b, c, d = (v * (1.0 + rel * rng.standard_normal(v.shape)) for v in (a, b, c, d))
    return a, b, c, d


def _sigma_max(w):
    """``sigma_max(N(jw))`` from the transfer functions themselves."""
    s = 1j * np.asarray(w, float)
    n = np.zeros(s.shape + (2, 2), complex)
    n[..., 0, 0] = 0.5 / (100.0 * s + 1.0)
    n[..., 0, 1] = K * s / (s + P)
    n[..., 1, 1] = 0.5
    return np.linalg.svd(n, compute_uv=False)[..., 0]


def _crossing():
    def f(logw):
        w = np.exp(logw)
        g2 = 0.25 / (1.0 + 1e4 * w**2)
        h2 = K**2 * w**2 / (w**2 + P**2)
        return h2 - 0.75 * (1.0 - g2)

    return float(np.exp(brentq(f, np.log(1e-4), np.log(1.0), xtol=1e-15, rtol=1e-15)))


WC = _crossing()


def test_closed_form_crossing_is_the_gain_crossing():
    # sigma_max(N) passes 1 at WC: below it the certificate holds, above it not
    assert 7e-3 < WC < 9e-3
    assert _sigma_max(WC * (1 - 1e-6)) < 1.0 < _sigma_max(WC * (1 + 1e-6))


def test_reciprocal_pencil_places_the_low_crossing():
    sysdata = _system()
    pi = MULT.pi(1.0)
    direct = np.abs(fi._pencil_eigenvalues(*sysdata, pi).imag)
    cand = fi._candidate_crossings(*sysdata, pi)
    # the pencil of Phi(s) alone: eps * ||pencil|| (about 1e16 * eps) moves the crossing
    # by a sizeable fraction of itself
    assert np.min(np.abs(direct - WC)) > 1e-4 * WC
    # with the zeros of Phi(1/s): a candidate at the crossing to near full precision
    assert np.min(np.abs(cand - WC)) < 1e-10 * WC
    # every direct candidate is kept (extra candidates only split segments)
    kept = direct[direct > 0]
    assert np.all(np.min(np.abs(kept[:, None] - cand[None, :]), axis=1) <= 1e-14 * kept)


def test_reciprocal_system_is_m_of_one_over_s():
    sysdata = _system()
    rec = fi._reciprocal_system(*sysdata)
    s = np.array([0.3j, 2.0j, 1e3 + 5j])
    for sk in s:
        want = np.array([[0.5 / (100.0 / sk + 1.0), K / sk / (1.0 / sk + P)], [0.0, 0.5]])
        a, b, c, d = rec
        got = d + c @ np.linalg.solve(sk * np.eye(2) - a, b)
        assert np.allclose(got, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())
    # singular A: no reciprocal realisation (its candidates are simply not added)
    assert fi._reciprocal_system(np.zeros((1, 1)), np.ones((1, 1)), np.ones((1, 1)),
                                 np.zeros((1, 1))) is None  # fmt: skip


def test_interval_end_is_the_crossing_whatever_the_last_bits():
    ends = []
    for seed in range(6):
        sysdata = _system(rel=1e-15 if seed else 0.0, seed=seed)
        lo, hi = fi.certified_interval(
            sysdata, MULT, 1.0, 1e-4, lambda w, sd=sysdata: freqresp(sd, np.asarray(w))
        )
        assert lo == 0.0
        ends.append(hi)
    ends = np.array(ends)
    # never beyond the crossing (the data perturbation moves it by ~1e-15), and within
    # the end margin of it: the same interval under every rounding of the data
    assert np.all(ends <= WC * (1 + 1e-13))
    # (the end is checked with an error-bounded response, which stops it up to 2e-5 short)
    assert np.all(ends >= WC * (1 - 2e-5))
    # the certified interval holds the certificate, checked on the closed form
    grid = np.linspace(0.0, ends.min(), 2001)
    assert np.all(_sigma_max(grid) < 1.0)


@pytest.mark.slow
def test_arm_tracking_evidence_rechecks_under_threaded_openblas():
    """The shipped tracking evidence, re-checked in a process whose OpenBLAS is loaded with
    two threads (the set-up that left gaps below 0.01 rad/s): every key proven."""
    code = textwrap.dedent(
        """
        from robustmb.analysis.frequency_certificate import check_frequency_certificate
        from robustmb.report.arm_certificate import (LEVEL, arm_channel_problem,
            evidence_folders, load_evidence, load_shipped_design, sub_box_system)
        from robustmb.report.evidence_keys import key_parts
        meta, ev = load_evidence(evidence_folders()["tracking"])
        problem = arm_channel_problem(load_shipped_design()["values"], "tracking")
        bad = []
        for key in sorted(ev):
            i, j, path = key_parts(key)
            sysdata, blk = sub_box_system(problem, meta["n"], i, j, meta["gamma"], path)
            chk = check_frequency_certificate(sysdata, blk, LEVEL, *ev[key])
            if not chk.covered:
                bad.append((key, chk.gaps))
        from threadpoolctl import threadpool_info
        print("threads", max(x["num_threads"] for x in threadpool_info()
                             if x["user_api"] == "blas"))
        print("keys", len(ev), "gaps", bad)
        """
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}  # fmt: skip
    env["OPENBLAS_NUM_THREADS"] = "2"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert "threads 2" in out
    assert "gaps []" in out, out


@pytest.mark.parametrize("alpha", [1.0, 1e-4, 1e-5, 1e-7])
def test_candidates_keep_their_relative_accuracy_far_down(alpha):
    """The same case moved down in frequency, ``N(s / alpha)``: the candidate next to the
    crossing stays within 1e-12 of it (relative), well inside the margin, and the interval
    of a point below it ends at the crossing pulled in by the margin or just short of it."""
    a, b, c, d = _system()
    sysdata = (alpha * a, alpha * b, c, d)
    wc = alpha * WC
    cand = fi._candidate_crossings(*sysdata, MULT.pi(1.0))
    assert np.min(np.abs(cand - wc)) / wc < 1e-12
    lo, hi = fi.certified_interval(
        sysdata, MULT, 1.0, wc / 80, lambda w: freqresp(sysdata, np.asarray(w, float))
    )
    # at most the crossing pulled in by the margin; the error-bounded check of that end
    # may stop the interval up to 2e-5 (relative) shorter, never beyond it
    assert lo == 0.0 and wc * (1 - 2e-5) <= hi <= wc * (1 - fi._EDGE) * (1 + 1e-12)
