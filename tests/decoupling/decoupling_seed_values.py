"""Reference values of the decoupling study, transcribed from outside this code base.

[doc]   printed in the seed ``shared/seeds/004_4961446d3d1cdf99.txt`` (MATLAB/Simscape);
[digest] reproduced by the digest author's independent numpy re-implementation
        (``shared/digests/004_decoupling.md``, sections 4-5), rounded as printed there.

Frequencies marked "grid" are the nearest points of the seed's plotting grids
(``logspace(-1, 3, 1000)`` Hz for the gravimeter and the collocated model), which is where
the digest read its tables.
"""

import numpy as np

SEED_GRID_HZ = np.logspace(-1, 3, 1000)
STEWART_GRID_HZ = np.logspace(-1, 2, 1000)


def on_grid(f_hz, grid=SEED_GRID_HZ):
    """Nearest grid frequencies (Hz) to the requested ones."""
    f = np.atleast_1d(f_hz)
    return grid[[int(np.argmin(np.abs(np.log(grid / x)))) for x in f]]


# --- gravimeter (section 1) -----------------------------------------------------------
# [doc] open-loop poles
GRAVIMETER_POLES = np.array([-0.12243 + 13.551j, -0.05 + 8.6601j, -0.0088785 + 3.6493j])
# [doc] Table 1: real approximation of G(j 2pi 10)
GRAVIMETER_TABLE1 = np.array(
    [
        [0.0092, -0.0039, 0.0039],
        [-0.0039, 0.0048, 0.00028],
        [-0.004, 0.0038, -0.0038],
        [8.4e-09, 0.0025, 0.0025],
    ]
)
# [doc] Tables 2-3
GRAVIMETER_U = np.array(
    [
        [-0.78, 0.26, -0.53, -0.2],
        [0.4, 0.61, -0.04, -0.68],
        [0.48, -0.14, -0.85, 0.2],
        [0.03, 0.73, 0.06, 0.68],
    ]
)
GRAVIMETER_V = np.array([[-0.79, 0.11, -0.6], [0.51, 0.67, -0.54], [-0.35, 0.73, 0.59]])
# [digest] singular values, decoupled gains at 10 Hz, controller gains
GRAVIMETER_SIGMA = np.array([1.3519e-2, 4.889e-3, 2.211e-3])
GRAVIMETER_JAC_DIAG_10HZ = np.array([2.5246e-3, 2.5484e-3, 9.0637e-3])
GRAVIMETER_G0_CEN = np.array([3.9613e4, 3.9242e4, 1.1034e4])
GRAVIMETER_G0_SVD = np.array([7.398e3, 2.0456e4, 4.5239e4])
# [digest] centralized closed-loop poles
GRAVIMETER_CL_POLES_CEN = np.array(
    [
        -62.50,
        -61.15,
        -58.20,
        -2.23,
        -0.887,
        -0.607 + 0.634j,
        -0.607 - 0.634j,
        -0.106 + 0.351j,
        -0.106 - 0.351j,
    ]
)
# [digest] Gershgorin ratios (rows x, y, Rz), "~0" entries given as None
GRAVIMETER_GERSHGORIN = {
    # f (Hz, on the grid): (coupled, jacobian, svd)
    0.1: ([0.018, 0.017, 1.60], [0.697, None, 0.859], [1.035, 0.209, 0.085]),
    1.0: ([1.58, 1.50, 3.40], [0.925, None, 14.6], [0.806, 0.156, 0.134]),
    10.0: ([0.846, 0.867, 2.06], [0.030, None, 0.0083], [5e-4, 3e-4, 3e-4]),
    100.0: ([0.842, 0.861, 2.02], [3.7e-4, None, 1.1e-4], [0.0062, 0.0035, 0.0030]),
    1000.0: ([0.8416, 0.8605, 2.0235], [2.4e-5, None, 6.8e-6], [0.0063, 0.0035, 0.0030]),
}
# [digest] RGA-numbers: f -> (jac true, jac code variant, svd true, svd code variant)
GRAVIMETER_RGA_NUMBERS = {
    0.1: (5.97, 5.97, 0.284, 0.284),
    1.0: (3.73, 0.0015, 0.206, 0.125),
    10.0: (9.8e-4, 9.7e-4, 5.9e-7, 4.4e-9),
    20.0: (5.8e-5, 5.7e-5, 4.5e-5, 4.4e-5),
    100.0: (1.6e-7, 9.2e-8, 7.6e-5, 7.6e-5),
    1000.0: (6.5e-10, 9.1e-12, 7.7e-5, 7.7e-5),
}
# [digest] |T_ii| at f = 0.01, 0.05, 0.1, 1, 10, 100 Hz (exact frequencies)
TRANSMISSIBILITY_HZ = np.array([0.01, 0.05, 0.1, 1.0, 10.0, 100.0])
TRANSMISSIBILITY_CEN = np.array(
    [
        [1.026, 1.838, 0.548, 0.092, 0.0068, 1e-4],
        [1.005, 1.115, 1.281, 0.195, 0.0137, 2e-4],
        [1.006, 1.137, 0.944, 0.407, 0.0297, 5e-4],
    ]
)
TRANSMISSIBILITY_OL = np.array(
    [
        [1.0003, 1.0065, 1.0265, 0.256, 0.0099, 1e-4],
        [1.0001, 1.0013, 1.0053, 2.11, 0.0194, 2e-4],
        [1.0001, 1.0015, 1.0062, 1.02, 0.0425, 5e-4],
    ]
)
# [digest] closed-loop transmissibility peaks (value, frequency Hz) for x, y, Rz
TRANSMISSIBILITY_PEAKS_CEN = [(1.88, 0.054), (1.29, 0.111), (1.14, 0.049)]
# [digest] moved actuators: open-loop frequencies (Hz) and |T_xx(1 Hz)|
MOVED_FREQS_HZ = np.array([0.540, 1.378, 1.624])
MOVED_TXX_1HZ = 0.095
# [digest] SVD damping study: Gershgorin of G_svd at 10 Hz and ||Im H||/||Re H||
DAMPING_IMAG_RATIO = {20.0: 0.0038, 500.0: 0.095}
DAMPING_GERSHGORIN_10HZ = {20.0: [5e-4, 3e-4, 3e-4], 500.0: [0.013, 0.008, 0.019]}

# --- collocated test model (sections 2-3) --------------------------------------------
# [doc] Tables 4-11
TABLE4_JM = np.array([[1, 0, 1.7], [0, 1, -0.5], [0, 1, 0.5]])
TABLE5_JK = np.array([[1, 0, 0], [0, 1, -0.5], [0, 1, 0.5]])
TABLE6_ML = np.array([[400, 680, -680], [680, 1371, -1171], [-680, -1171, 1371]])
TABLE7_KL = np.diag([15000.0, 15000, 15000])
TABLE8_MM = np.diag([400.0, 400, 115])
TABLE9_KM = np.array([[15000, 0, 25500], [0, 30000, 0], [25500, 0, 50850]])
TABLE10_MK = np.array([[400, 0, -680], [0, 400, 0], [-680, 0, 1271]])
TABLE11_KK = np.diag([15000.0, 30000, 7500])
# [doc] Tables 12-14
TABLE12_BM = np.array(
    [[-0.0004, -0.0007, 0.0007], [-0.0151, 0.0041, -0.0041], [0.0, 0.0025, 0.0025]]
)
TABLE13_CM = np.array([[-0.1, -1.8, 0.0], [-0.2, 0.5, 1.0], [0.2, -0.5, 1.0]])
TABLE14_REAL = np.array(
    [[-8e-06, 2.1e-06, -2.1e-06], [2.1e-06, -1.3e-06, -2.5e-08], [-2.1e-06, -2.5e-08, -1.3e-06]]
)
# [digest] singular values of Table 14 and modal frequencies (Hz)
TABLE14_SIGMA = np.array([9.107e-6, 1.291e-6, 8.715e-8])
COLLOCATED_MODES_HZ = np.array([0.3613, 1.3783, 3.4669])
# [digest] Gershgorin ratios: f -> (coupled, jacobian, svd); None = "~0"
COLLOCATED_GERSHGORIN = {
    0.1: ([0.038, 0.051, 0.051], [0.50, None, 1.72], [2e-5, None, 1e-5]),
    10.0: ([0.54, 1.70, 1.70], [0.064, None, 0.017], [None, None, 1.7e-3]),
    100.0: ([0.53, 1.65, 1.65], [0.001, None, 0.0], [None, None, 1.5e-3]),
}
COLLOCATED_GERSHGORIN_MAX = {"jacobian": [17.7, None, 207.0], "svd": [2.3e-3, None, 4.9e-2]}
# [digest] spurious-mode variant
SPURIOUS_MODES_HZ = np.array([0.3613, 1.3782, 3.4667, 10.0638, 10.0643])

# --- stiffness examples (sections 4-6) ------------------------------------------------
# [doc] planar example 2 (section 4.5)
PLANAR4_OK = np.array([-1 / 3, 0.2])
PLANAR4_KK = np.diag([2.0, 3.0, 8 / 3])
# [digest] planar example 1 with the coded k = [5, 1, 2] and with k = [5, 1, 1] (printed)
PLANAR3_OK = {(5, 1, 2): np.array([-2 / 3, 0.5]), (5, 1, 1): np.array([-1.0, 0.5])}
PLANAR3_KK = {(5, 1, 2): np.diag([5.0, 3.0, 8 / 3]), (5, 1, 1): np.diag([5.0, 2.0, 2.0])}
# [doc] 3-D 12-strut example (section 5.4)
SPATIAL_OK = np.array([0.0, -2.0, 1.0])
SPATIAL_TRANSLATIONAL = np.diag([6.0, 6.0, 8.0])
SPATIAL_ROTATIONAL = np.array([[14.0, 4, -2], [4, 14, 2], [-2, 2, 12]])

# --- Stewart platform (section 7) -----------------------------------------------------
# [doc] Table 16 at full precision (digest 4.6, from the author's jacobian.mat)
TABLE16_J = np.array(
    [
        [0.811447, 0.0, 0.584426, -0.018007, -0.007584, 0.025002],
        [-0.405724, -0.702734, 0.584426, -0.015571, -0.011803, -0.025002],
        [-0.405724, 0.702734, 0.584426, 0.015571, -0.011803, 0.025002],
        [0.811447, 0.0, 0.584426, 0.018007, -0.007584, -0.025002],
        [-0.405724, -0.702734, 0.584426, 0.002436, 0.019386, 0.025002],
        [-0.405724, 0.702734, 0.584426, -0.002436, 0.019386, -0.025002],
    ]
)
# [doc] Table 17: real approximation of Gu at 30 Hz
TABLE17 = np.array(
    [
        [4.4, -2.1, -2.1, 4.4, -2.4, -2.4],
        [-0.2, -3.9, 3.9, 0.2, -3.8, 3.8],
        [3.4, 3.4, 3.4, 3.4, 3.4, 3.4],
        [-367.1, -323.8, 323.8, 367.1, 43.3, -43.3],
        [-162.0, -237.0, -237.0, -162.0, 398.9, 398.9],
        [220.6, -220.6, 220.6, -220.6, 220.6, -220.6],
    ]
)
# [digest] surrogate modes (Hz), controller gains at 80 Hz, singular values of Table 17
STEWART_MODES_HZ = np.array([7.81, 7.81, 10.90, 11.25, 15.53, 15.53])
STEWART_G0_CEN = np.array([158.4, 158.4, 156.8, 0.0513, 0.0513, 0.1026])
TABLE17_SIGMA = np.array([695.0, 695.0, 540.4, 8.33, 6.93, 6.90])


def printed_halfwidth(printed):
    """Half a unit in the last printed digit of a number transcribed from a table."""
    x = abs(float(printed))
    if x == 0:
        return 0.0
    digits = np.format_float_positional(x, trim="-").replace(".", "").lstrip("0")
    exponent = int(np.floor(np.log10(x)))
    return 0.5 * 10.0 ** (exponent - len(digits) + 1)


def assert_printed(actual, printed, *, slack=1.5):
    """Assert ``actual`` rounds to ``printed`` (within ``slack`` half-units of the last digit).

    The slack allows for values read off a frequency grid and rounded twice. A printed zero
    takes the finest precision of the other entries of the same table (for example "0.0"
    in a table printed with one decimal).
    """
    a = np.atleast_1d(np.asarray(actual, dtype=float))
    p = np.atleast_1d(np.asarray(printed, dtype=float))
    tol = np.array([printed_halfwidth(v) for v in p.ravel()]).reshape(p.shape)
    if np.any(tol > 0):
        tol[tol == 0] = tol[tol > 0].min()
    bad = np.abs(a - p) > slack * tol
    assert not np.any(bad), (
        f"values {a[bad]} do not round to the printed {p[bad]} (tolerance {slack * tol[bad]})"
    )
