"""hinfnorm near the slow eigenvalues of a stiff model: the level-set test of the inverted
model G(1/s) proves the level where the plain test's rounding reaches the axis, and where
neither test decides the certificate is withheld (references: 40-digit mpmath responses)."""

import warnings

import control
import mpmath as mp
import numpy as np
import pytest

from robustmb.analysis import norms
from robustmb.analysis.inverted_level import InvertedLevelTest, inverted_realisation
from robustmb.analysis.norms import _hinfnorm_bracket

# a stiff loop (poles from -0.01 to -6.3e5) whose largest gain is the DC gain 61.79...:
# the plain level-set test is blind around the slow eigenvalues (no certificate before)
STIFF_A = [
    [-0.01, 0.0, 823.9950109531292, 0.0, 0.0, 0.0],
    [0.0, -2.0, -133884.00850801967, 965366574637.4967, -1751184398267.9753, -126924382.9749623],
    [0.0, 7.4691519259381885e-06, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, -3.465103561710033e-07, -626451.1142556004, 1136388.423724411, 73.89083744347982],
    [0.0, 0.0, -1020.7708385596484, 0.0, -0.010000000079244842, -3.593850242928641],
    [0.0, 0.0, 45488394.42196267, 0.0, 0.0, -48006.38948619081],
]
STIFF_B = [
    [17.451950191475262],
    [0.0],
    [0.0],
    [-7.435894058857652e-09],
    [-21.67419981344641],
    [968695.8613762278],
]
STIFF_C = [[0.05640845310835421, 0.0, 46.96182692052758, 0.0, 0.0, 0.0]]

# a mixed-sensitivity closed loop whose response is flat at 1 with a bump of 2.8e-5 at
# 1 rad/s: both level-set tests are blind there
FLAT_A = [
    [-0.01, 0.0, 1.0, 0.0, 0.0, 0.0],
    [0.0, -2.0, -1.0, 4623138.811612493, -848455.2672906648, -1500368.015234012],
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, -5.404342146317016e-07, -626451.1142556004, 114968.58752749406, 182389.002925354],
    [0.0, 0.0, -15736.294586611373, 0.0, -0.010000000079244842, -87683.04869809368],
    [0.0, 0.0, 28742.144260882054, 0.0, 0.0, -48006.38948619081],
]
FLAT_B = [
    [1.0],
    [0.0],
    [0.0],
    [-5.404342146317016e-07],
    [-15736.294586611373],
    [28742.144260882054],
]
FLAT_C = [[0.99, 0.0, 1.0, 0.0, 0.0, 0.0]]


def _model(A, B, C):
    return np.array(A), np.array(B), np.array(C), np.array([[1.0]])


def _gain_mp(A, B, C, D, w):
    """|G(j w)| of a single-input single-output model, 40 digits."""
    with mp.workdps(40):
        n = A.shape[0]
        M = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                M[i, j] = -mp.mpf(float(A[i, j]))
            M[i, i] += mp.mpc(0, w)
        x = mp.lu_solve(M, mp.matrix([float(b) for b in B[:, 0]]))
        g = mp.mpf(float(D[0, 0])) + sum(mp.mpf(float(C[0, i])) * x[i] for i in range(n))
        return abs(g)


def _peak_mp(A, B, C, D, low, high, count):
    """Largest 40-digit gain on 0 and a log grid, then golden-section maximisation
    between the neighbours of the best point."""
    grid = [mp.mpf(0)] + [mp.mpf(w) for w in np.geomspace(low, high, count)]
    with mp.workdps(40):
        values = [_gain_mp(A, B, C, D, w) for w in grid]
        k = max(range(len(grid)), key=lambda i: values[i])
        a, b = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
        best = values[k]
        ratio = (mp.sqrt(5) - 1) / 2
        for _ in range(60):
            c, d = b - ratio * (b - a), a + ratio * (b - a)
            fc, fd = _gain_mp(A, B, C, D, c), _gain_mp(A, B, C, D, d)
            best = max(best, fc, fd)
            if fc >= fd:
                b = d
            else:
                a = c
        return best


def _bracket_with_proof(model, tol, monkeypatch):
    """``(lower, frequency, upper, proof)`` with the level-set result's ``proof``."""
    seen = []
    original = norms._peak_gain

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(norms, "_peak_gain", spy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lower, frequency, upper = _hinfnorm_bracket(model, tol)
    proof = getattr(seen[-1], "proof", None)
    return lower, frequency, upper, proof, [str(w.message) for w in caught]


@pytest.mark.parametrize("tol", [1e-6, 1e-8])
def test_inverted_test_proves_the_level_of_a_stiff_loop(tol, monkeypatch):
    # used to return upper = inf with "eigenvalues of the level-set test lie closer to
    # the imaginary axis than their rounding error"; the test on G(1/s) decides
    model = _model(STIFF_A, STIFF_B, STIFF_C)
    lower, _, upper, proof, messages = _bracket_with_proof(model, tol, monkeypatch)
    assert np.isfinite(upper) and messages == [] and proof == "inverted"
    reference = float(_peak_mp(*model, 1e-7, 1e7, 700))
    assert reference == pytest.approx(61.7935237518, rel=1e-10)
    assert lower <= reference * (1 + 1e-13)
    assert reference <= upper <= reference * (1 + 2 * tol)


def test_neither_test_decides_the_flat_loop(monkeypatch):
    # the bump of 2.8e-5 above a flat 1: no certificate, and the warning says that the
    # inverted test did not decide either
    model = _model(FLAT_A, FLAT_B, FLAT_C)
    lower, _, upper, proof, messages = _bracket_with_proof(model, 1e-8, monkeypatch)
    assert upper == np.inf and proof == "none"
    assert any("G(1/s) does not decide" in m for m in messages)
    reference = float(_peak_mp(*model, 1e-3, 1e3, 300))
    assert reference == pytest.approx(1.000028188, abs=1e-9)
    assert reference * (1 - 1e-9) <= lower <= reference * (1 + 1e-13)


def test_inverted_realisation_error_bounds_hold_entry_by_entry():
    # the stiff, non-normal A of the flat loop (cond 2.7e12): every entry of A^-1, A^-1 B,
    # -C A^-1 and G(0) within its bound of the 40-digit values
    A, B, C, D = _model(FLAT_A, FLAT_B, FLAT_C)
    X, Bi, Ci, Di, entrywise = inverted_realisation(A, B, C, D)
    with mp.workdps(40):
        inverse = mp.inverse(mp.matrix(A.tolist()))
        Bm, Cm = mp.matrix(B.tolist()), mp.matrix(C.tolist())
        exact = {
            "X": inverse,
            "B": inverse * Bm,
            "C": -(Cm * inverse),
            "D": mp.matrix(D.tolist()) - Cm * inverse * Bm,
        }
        n = A.shape[0]
        blocks = {
            "X": (X, entrywise[:n, :n]),
            "B": (Bi, entrywise[:n, n:]),
            "C": (Ci, entrywise[n:, :n]),
            "D": (Di, entrywise[n:, n:]),
        }
        for key, (value, bound) in blocks.items():
            for i in range(value.shape[0]):
                for j in range(value.shape[1]):
                    error = abs(mp.mpf(float(value[i, j])) - exact[key][i, j])
                    assert error <= mp.mpf(float(bound[i, j])), (key, i, j)
    # the bounds are tight where it matters: G(0) to a few eps
    assert entrywise[n:, n:].max() <= 1e-14 * abs(Di).max()


def test_inverted_windows_locate_the_crossing_of_a_first_order_lag():
    # |1 / (j w + 1)| = 1/2 at w = sqrt(3) (closed form)
    test = InvertedLevelTest(
        np.array([[-1.0]]), np.array([[1.0]]), np.array([[1.0]]), np.zeros((1, 1))
    )
    windows = test.windows(0.5)  # the pair +-j / sqrt(3) of the inverted test
    assert len(windows) == 2
    for low, high, located, omega in windows:
        assert located and low <= np.sqrt(3) <= high and high - low < 1e-3
        assert abs(omega) == pytest.approx(np.sqrt(3), rel=1e-12)
    assert test.windows(1.5) == []  # above the peak 1: no crossing


def test_singular_state_matrix_leaves_the_inverted_test_unavailable():
    # an integrator: A is singular and G(1/s) has no realisation of this form
    test = InvertedLevelTest(
        np.array([[0.0]]), np.array([[1.0]]), np.array([[1.0]]), np.zeros((1, 1))
    )
    assert not test.available and test.windows(1.0) is None


def test_inverted_windows_of_a_complex_model_keep_the_sign_of_omega():
    # |1 / (j w + 1 - 2j)| = 1/2 at w = 2 +- sqrt(3) (closed form): G(-j w) differs from
    # conj G(j w), and the crossings map to omega = -1 / nu with their signs
    test = InvertedLevelTest(
        np.array([[-1.0 + 2.0j]]),
        np.array([[1.0 + 0.0j]]),
        np.array([[1.0 + 0.0j]]),
        np.zeros((1, 1), complex),
        real=False,
    )
    found = sorted(omega for *_, omega in test.windows(0.5))
    assert found == pytest.approx([2 - np.sqrt(3), 2 + np.sqrt(3)], rel=1e-12)
    for low, high, located, omega in test.windows(0.5):
        assert located and low <= omega <= high


def test_pole_near_zero_leaves_the_inverted_test_unavailable_quietly():
    # A = diag(-1e-300, -1): A^-1 overflows, so G(1/s) has no usable realisation; no numpy
    # overflow warning escapes, and the peak is |G(0)| = 1e300 + 1 (closed form)
    A = np.diag([-1e-300, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        test = InvertedLevelTest(A, np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1)))
    assert not test.available
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package's own "not certified" warning
        warnings.filterwarnings("error", message="overflow")
        peak, omega = norms.hinfnorm(control.ss(A, np.ones((2, 1)), np.ones((1, 2)), 0.0))
    assert peak == pytest.approx(1e300, rel=1e-12) and omega == 0.0
