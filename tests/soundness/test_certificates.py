"""robstab / wcgain / robgain certificates against brute force on generated systems.

Each case is drawn by a generator of ``_soundness_cases`` with a fixed seed and
checked by ``_soundness_checks``: a certified lower stability margin must leave
every sampled member stable (and not exceed the exact margin where one is known),
a reported destabilising perturbation must put a pole on the boundary, a
certified gain bound must dominate every sampled gain, and reported worst cases
must achieve the lower bounds.  The default slice is a handful of fast cases; the
``slow`` campaign runs every generator over several seeds
(``benchmarks/soundness_campaign.py`` runs more and prints statistics).
"""

import pytest
from _soundness_checks import run

FAST = [
    ("affine_real_k2", 0, "robstab"),
    ("affine_real_discrete", 1, "robstab"),
    ("lft_ltidyn", 0, "robstab"),
    ("lft_mixed_real_ltidyn", 1, "robstab"),
    ("wc_affine_real", 0, "wcgain"),
]


@pytest.mark.parametrize(("name", "seed", "analysis"), FAST)
def test_certificates_hold(name, seed, analysis):
    verdict = run(name, seed, analysis)
    assert verdict.ok, str(verdict)


# Known false certificates: these flip to passing when the defect is fixed.
KNOWN = [
    pytest.param(
        "complex_affine_complex_a0",
        0,
        "robstab",
        marks=pytest.mark.xfail(strict=True, reason="issue 10 defect 1: complex A entries dropped"),
        id="complex-A-robstab",
    ),
    pytest.param(
        "wc_lft_complex",
        0,
        "wcgain",
        id="ucomplex-wcgain",
    ),
    pytest.param(
        "wc_lft_ltidyn",
        0,
        "robgain",
        id="ultidyn-robgain",
    ),
]


@pytest.mark.parametrize(("name", "seed", "analysis"), KNOWN)
def test_known_false_certificates(name, seed, analysis):
    verdict = run(name, seed, analysis)
    assert verdict.ok, str(verdict)
