"""Non-physical or malformed input to the decoupling tools is refused with the
robustmb error class of its kind, and the message names the argument at fault."""

import math

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb import decoupling as dc
from robustmb.decoupling.geometry import unskew
from robustmb.decoupling.plots import rga_number_plot
from robustmb.errors import ArgumentError, DimensionError, IllPosedError, UncertainTypeError

M = np.diag([2.0, 1.5, 0.8])
K = np.array([[300.0, -100, 0], [-100, 250, -80], [0, -80, 120]])
C = 0.01 * K
I3 = np.eye(3)


def _sos(**kw):
    args = {"M": M, "K": K, "C": C, "input_matrix": I3}
    args.update(kw)
    return dc.SecondOrderSystem(
        args.pop("M"), args.pop("K"), args.pop("C"), input_matrix=args.pop("input_matrix"), **args
    )


def _asym(X, e=50.0):
    Y = X.copy()
    Y[0, 1] += e
    return Y


def _nan(X):
    Y = np.array(X, dtype=float)
    Y[0, 0] = math.nan
    return Y


def _uplant():
    a = rmb.ureal("a", 0.0, plusminus=0.5)
    return rmb.umat([[1.0 + a, 0.3], [0.5, 2.0]])


def _inconsistent_uplant():
    """An uncertain matrix whose usubs disagrees with its LFT (halves the values)."""
    U = _uplant()
    orig = U.usubs
    U.usubs = lambda values: orig({k: 0.5 * v for k, v in values.items()})
    return U


_GROUND = dc.SecondOrderSystem(
    np.eye(1), np.eye(1), 0.1 * np.eye(1), input_matrix=[[1.0]], ground_damping=np.eye(1)
)

PHYSICAL = [
    ("sos-negative-mass", lambda: _sos(M=-M), "M \\(mass matrix\\) must be symmetric positive"),
    (
        "sos-indefinite-mass",
        lambda: _sos(M=np.diag([2.0, -1.0, 1.0])),
        "M \\(mass matrix\\).*smallest eigenvalue is -1",
    ),
    ("sos-singular-mass", lambda: _sos(M=np.diag([2.0, 0.0, 1.0])), "M \\(mass matrix\\)"),
    ("sos-asymmetric-mass", lambda: _sos(M=_asym(M, 1.0)), "M must be symmetric"),
    ("sos-asymmetric-K", lambda: _sos(K=_asym(K)), "K must be symmetric"),
    ("sos-asymmetric-C", lambda: _sos(C=_asym(C, 1.0)), "C must be symmetric"),
    ("sos-negative-damping", lambda: _sos(C=-C), "C \\(damping matrix\\) must be positive semi"),
    ("sos-nan-input-matrix", lambda: _sos(input_matrix=_nan(I3)), "input_matrix.*nan"),
    (
        "sos-nan-ground-stiffness",
        lambda: _sos(ground_stiffness=_nan(I3)),
        "ground_stiffness.*nan",
    ),
    (
        "sos-inf-ground-damping",
        lambda: _sos(ground_damping=np.diag([math.inf, 1.0, 1.0])),
        "ground_damping.*inf",
    ),
    (
        "modal-negative-damping",
        lambda: dc.modal_decouple(M, K, -C, input_matrix=I3, output_matrix=I3),
        "modal_decouple: C \\(damping matrix\\)",
    ),
    (
        "modal-nan-input-matrix",
        lambda: dc.modal_decouple(M, K, C, input_matrix=_nan(I3), output_matrix=I3),
        "modal_decouple: input_matrix.*nan",
    ),
    (
        "modal-nan-output-matrix",
        lambda: dc.modal_decouple(M, K, C, input_matrix=I3, output_matrix=_nan(I3)),
        "modal_decouple: output_matrix.*nan",
    ),
    ("stiffness-negative-k", lambda: dc.stiffness_matrix(I3, [-1, 1, 1]), "k must be non-neg"),
    ("stiffness-nan-J", lambda: dc.stiffness_matrix(_nan(I3), 1.0), "stiffness_matrix: J.*nan"),
    ("stiffness-nan-k", lambda: dc.stiffness_matrix(I3, [1, math.nan, 1]), "k has.*nan"),
    (
        "centre-negative-k",
        lambda: dc.center_of_stiffness(
            [[-1, 0.5], [-2, -1], [0, -1]], [[1, 0], [0, 1], [0, 1]], [-5, 1, 1]
        ),
        "center_of_stiffness: stiffness must be non-negative",
    ),
    (
        "centre-nan-point",
        lambda: dc.center_of_stiffness(
            [[-1, math.nan], [-2, -1], [0, -1]], [[1, 0], [0, 1], [0, 1]], 1.0
        ),
        "center_of_stiffness: points.*nan",
    ),
    (
        "leg-mass-negative",
        lambda: dc.leg_mass_conditions(
            [[0, 0], [-1, -1], [1, -1]], [[1, 0], [0, 1], [0, 1]], [-1.0, 5, 5], np.eye(3)
        ),
        "leg_mass_conditions: leg_masses must be non-negative",
    ),
    ("legs-negative-M", lambda: dc.legs_frame_matrices(I3, -M), "legs_frame_matrices: M"),
    ("legs-asymmetric-K", lambda: dc.legs_frame_matrices(I3, M, _asym(K)), "K must be symm"),
    ("legs-negative-C", lambda: dc.legs_frame_matrices(I3, M, K, -C), "C \\(damping matrix\\)"),
    (
        "legs-singular-J",
        lambda: dc.legs_frame_matrices(np.array([[1.0, 0, 0], [1, 0, 0], [0, 0, 1]]), M),
        "legs_frame_matrices: J is singular \\(rank 2 < 3\\)",
    ),
    ("frame-change-nan", lambda: dc.frame_change(_nan(M), I3, I3), "frame_change: X.*nan"),
    (
        "manipulator-nan-spring-point",
        lambda: dc.ParallelManipulator(
            mass=1,
            inertia=1,
            spring_points=[[math.nan, -1], [1, 0], [-1, 0]],
            spring_directions=[[1, 0], [0, 1], [0, 1]],
            stiffness=1,
        ),
        "spring_points.*row 0",
    ),
    (
        "manipulator-nan-direction",
        lambda: dc.ParallelManipulator(
            mass=1,
            inertia=1,
            spring_points=[[0, -1], [1, 0], [-1, 0]],
            spring_directions=[[1, 0], [0, math.nan], [0, 1]],
            stiffness=1,
        ),
        "spring direction\\(s\\) \\[1\\] have non-finite",
    ),
    (
        "manipulator-inf-actuator-point",
        lambda: dc.ParallelManipulator(
            mass=1,
            inertia=1,
            spring_points=[[0, -1], [1, 0], [-1, 0]],
            spring_directions=[[1, 0], [0, 1], [0, 1]],
            stiffness=1,
            actuator_points=[[0, math.inf]],
            actuator_directions=[[1, 0]],
        ),
        "actuator_points.*row 0",
    ),
]


@pytest.mark.parametrize("call, pattern", [c[1:] for c in PHYSICAL], ids=[c[0] for c in PHYSICAL])
def test_non_physical_input_is_refused_naming_the_argument(call, pattern):
    with pytest.raises(ArgumentError, match=pattern):
        call()


def test_the_refused_mass_matrices_are_not_positive_definite():
    """Reference for the mass cases above: numpy's eigenvalues (and the unstable pole the
    negative-mass model used to have)."""
    assert np.linalg.eigvalsh(-M)[0] < 0
    assert np.linalg.eigvalsh(np.diag([2.0, -1.0, 1.0]))[0] < 0
    A = np.block([[np.zeros((3, 3)), I3], [-np.linalg.solve(-M, K), -np.linalg.solve(-M, C)]])
    assert np.linalg.eigvals(A).real.max() > 1.0
    assert np.linalg.eigvalsh(-C)[0] < 0


def test_physical_limits_are_accepted():
    """Negative stiffness (an unstable equilibrium), zero damping and a PSD damping of rank 1
    are physical: accepted, with the poles of the state matrix built by hand."""
    Kn = K - 200.0 * I3  # indefinite
    Cr = np.outer([1.0, 0, 0], [1.0, 0, 0])  # one damper: PSD, rank 1
    s = dc.SecondOrderSystem(M, Kn, Cr, input_matrix=I3)
    A = np.block([[np.zeros((3, 3)), I3], [-np.linalg.solve(M, Kn), -np.linalg.solve(M, Cr)]])
    ref = np.linalg.eigvals(A)
    np.testing.assert_allclose(np.sort_complex(s.poles()), np.sort_complex(ref), atol=1e-10)
    assert dc.stiffness_matrix(I3, [0.0, 1.0, 2.0])[0, 0] == 0.0


def test_gyroscopic_system_needs_the_explicit_opt_out():
    """``M = I``, ``K = k I``, ``C = [[0, g], [-g, 0]]`` (gyroscopic): refused by default,
    accepted with ``allow_nonsymmetric=True``; its poles are ``s^2 = (-(2k + g^2) +- g
    sqrt(g^2 + 4k)) / 2`` (from ``s^4 + (2k + g^2) s^2 + k^2 = 0``)."""
    k, g = 4.0, 3.0
    G = np.array([[0.0, g], [-g, 0.0]])
    with pytest.raises(ArgumentError, match="C must be symmetric"):
        dc.SecondOrderSystem(np.eye(2), k * np.eye(2), G, input_matrix=np.eye(2))
    s = dc.SecondOrderSystem(
        np.eye(2), k * np.eye(2), G, input_matrix=np.eye(2), allow_nonsymmetric=True
    )
    s2 = np.array([(-(2 * k + g**2) + sgn * g * np.sqrt(g**2 + 4 * k)) / 2 for sgn in (1, -1)])
    ref = np.concatenate([np.sqrt(s2.astype(complex)), -np.sqrt(s2.astype(complex))])
    np.testing.assert_allclose(np.sort_complex(s.poles()), np.sort_complex(ref), atol=1e-12)
    # the symmetric part of C must still dissipate
    with pytest.raises(ArgumentError, match="C \\(damping matrix\\)"):
        dc.SecondOrderSystem(
            np.eye(2),
            k * np.eye(2),
            G - 0.1 * np.eye(2),
            input_matrix=np.eye(2),
            allow_nonsymmetric=True,
        )


# one case per builtin error the decoupling tools used to raise: (id, call, class, pattern)
BUILTIN_REPLACED = [
    (
        "lowpass-negative-wc",
        lambda: dc.diagonal_lowpass_controller(np.eye(2), wc=-1.0, wp=1.0),
        ArgumentError,
        "wc and wp must be positive",
    ),
    (
        "lowpass-zero-gain",
        lambda: dc.diagonal_lowpass_controller(np.diag([0.0, 1.0]), wc=1.0, wp=1.0),
        ArgumentError,
        "G_dec: decoupled channel\\(s\\) \\[0\\] have zero gain",
    ),
    ("diagonal-controller-empty", lambda: dc.diagonal_controller(), ArgumentError, "siso"),
    (
        "centre-not-unique",
        lambda: dc.center_of_stiffness([[0, 0], [0, 1]], [[1, 0], [1, 0]], 1.0),
        ArgumentError,
        "center_of_stiffness: directions: the centre of stiffness is not unique",
    ),
    (
        "centre-none-3d",
        lambda: dc.center_of_stiffness(
            [[0, 0, 1], [1, 0, 0], [0, 1, 0]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 2, 3]
        ),
        ArgumentError,
        "center_of_stiffness: points, directions: no frame cancels",
    ),
    (
        "unskew",
        lambda: unskew(np.eye(3)),
        ArgumentError,
        "unskew: S is not skew-symmetric",
    ),
    (
        "improper-acceleration",
        lambda: _GROUND.state_space(_GROUND.body_motion("acceleration"), ground=True),
        ArgumentError,
        "outputs: acceleration outputs .* improper",
    ),
    (
        "improper-relative-velocity",
        lambda: _GROUND.state_space(
            dc.Measurement(np.eye(1), "velocity", ground_matrix=np.eye(1)), ground=True
        ),
        ArgumentError,
        "outputs: relative velocity outputs",
    ),
    (
        "outputs-not-measurement",
        lambda: _GROUND.state_space(np.eye(1)),
        UncertainTypeError,
        "outputs must be Measurement objects",
    ),
    (
        "real-approximation-nan",
        lambda: dc.real_approximation(np.array([[1.0, math.nan]])),
        ArgumentError,
        "H \\(the response G\\(j w0\\)\\) has a non-finite entry nan at \\(0, 1\\)",
    ),
    (
        "mincond-scaling",
        lambda: dc.minimized_condition_number(np.eye(2), scaling="rows"),
        ArgumentError,
        "scaling must be",
    ),
    (
        "mincond-nan",
        lambda: dc.minimized_condition_number(np.array([[1.0, math.nan], [0, 1]])),
        ArgumentError,
        "minimized_condition_number: G contains non-finite",
    ),
    (
        "mincond-singular",
        lambda: dc.minimized_condition_number(np.ones((2, 2))),
        ArgumentError,
        "minimized_condition_number: G is singular \\(rank 1 < 2\\)",
    ),
    (
        "frequency-response-discrete",
        lambda: dc.frequency_response(control.ss([[0.5]], [[1.0]], [[1.0]], [[0.0]], 0.1), [1.0]),
        ArgumentError,
        "frequency_response: G must be a continuous-time system.*dt = 0.1",
    ),
    (
        "frequency-response-discrete-tf",
        lambda: dc.frequency_response(control.tf([1.0], [1.0, -0.5], 0.1), [1.0]),
        ArgumentError,
        "frequency_response: G must be a continuous-time system",
    ),
    (
        "evaluate-omega-with-array",
        lambda: dc.evaluate(np.eye(2), [1.0]),
        ArgumentError,
        "omega must not be given",
    ),
    (
        "transform-complex-for-lti",
        lambda: dc.transform(control.ss(-np.eye(2), np.eye(2), np.eye(2), 0), 1j * np.eye(2)),
        UncertainTypeError,
        "T_out, T_in: a real LTI system",
    ),
    (
        "transform-text-matrix",
        lambda: dc.transform(np.eye(2), np.array([["a", "b"], ["c", "d"]])),
        UncertainTypeError,
        "T_out must be a numeric matrix",
    ),
    (
        "transform-nan",
        lambda: dc.transform(np.eye(2), None, _nan(np.eye(2))),
        ArgumentError,
        "T_in contains non-finite",
    ),
    (
        "rga-singular",
        lambda: dc.rga(np.ones((2, 2))),
        ArgumentError,
        "rga: the plant G is singular at stack index/indices \\[0\\]",
    ),
    (
        "rga-plot-variant",
        lambda: rga_number_plot({"G": np.eye(2)}, [1.0], variant="sum"),
        ArgumentError,
        "rga_number_plot: variant",
    ),
    (
        "mu-problem-zero-diagonal",
        lambda: dc.gershgorin_mu_problem(
            rmb.umat([[0.0 * rmb.ureal("b", 0.0, plusminus=0.5), 1.0], [0.5, 2.0]]), [1.0], 0, 1.0
        ),
        ArgumentError,
        "usys: its diagonal element \\(0, 0\\) vanishes",
    ),
    (
        "verify-without-upper",
        lambda: dc.worst_case_gershgorin(_uplant(), [1.0], upper=False).verify(_uplant()),
        ArgumentError,
        "verify: no upper bound was computed",
    ),
    (
        "usubs-disagrees-with-lft",
        lambda: dc.worst_case_gershgorin(_inconsistent_uplant(), [1.0], upper=False),
        ArgumentError,
        "worst_case_gershgorin: usys: substituting",
    ),
    (
        "jacobian-rank",
        lambda: dc.jacobian_decouple(np.ones((2, 2)), actuator_jacobian=np.ones((2, 2))),
        IllPosedError,
        "actuator_jacobian has rank 1 < 2",
    ),
    (
        "stiffness-k-length",
        lambda: dc.stiffness_matrix(I3, [1.0, 1.0]),
        DimensionError,
        "stiffness_matrix: k must be one value or 3",
    ),
]


@pytest.mark.parametrize(
    "call, error, pattern",
    [c[1:] for c in BUILTIN_REPLACED],
    ids=[c[0] for c in BUILTIN_REPLACED],
)
def test_robustmb_error_names_the_argument(call, error, pattern):
    """The robustmb class (still a ValueError or TypeError, as the builtin before) whose
    message names the argument."""
    with pytest.raises(error, match=pattern) as info:
        call()
    assert type(info.value).__module__ == "robustmb.errors"
