"""Bad input to the decoupling example models (gravimeter, its collocated and suspended-mass
variants, the Stewart platform): an error of robustmb.errors naming the argument."""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError
from robustmb.examples.gravimeter import (
    collocated_manipulator,
    gravimeter,
    suspended_mass_variant,
    uncertain_gravimeter,
)
from robustmb.examples.stewart_platform import stewart_platform

NAN = float("nan")
UG = "uncertain_gravimeter"
SMV = "suspended_mass_variant"
SP = "stewart_platform"

CASES = [
    # uncertain_gravimeter: k and c (numbers: finite, non-negative; ureal: its range)
    (UG, dict(k=-15e3), ArgumentError, "k must be non-negative and finite, got -15000"),
    (UG, dict(k=NAN), ArgumentError, "k must be non-negative and finite, got nan"),
    (UG, dict(k=[15e3, -1.0, 15e3]), ArgumentError, "k must be non-negative and finite"),
    (UG, dict(k=[1e4, 2e4]), DimensionError, r"k must be one value or 3, got shape \(2,\)"),
    (UG, dict(k="stiff"), ArgumentError, "k must be a number or a ureal, got 'stiff'"),
    (
        UG,
        dict(k=rmb.ureal("k", 15e3, plusminus=20e3)),
        ArgumentError,
        r"k must be non-negative over its whole range, got ureal 'k' with range \[-5000",
    ),
    (UG, dict(c=-20.0), ArgumentError, "c must be non-negative and finite, got -20"),
    (UG, dict(c=float("inf")), ArgumentError, "c must be non-negative and finite, got inf"),
    (UG, dict(c=[20.0, 20.0]), DimensionError, "c must be one value or 3"),
    # la positive, ha finite
    (UG, dict(la=0.0), ArgumentError, "la must be positive and finite, got 0.0"),
    (UG, dict(la=-0.5), ArgumentError, "la must be positive and finite"),
    (
        UG,
        dict(la=rmb.ureal("la", 0.5, plusminus=0.6)),
        ArgumentError,
        "la must be positive over its whole range",
    ),
    (UG, dict(ha=NAN), ArgumentError, "ha must be finite, got nan"),
    (UG, dict(ha=None, h=NAN), ArgumentError, "h must be positive and finite"),
    # the numeric models check the same
    ("gravimeter", dict(la=0.0), ArgumentError, "gravimeter: la must be positive and finite"),
    ("gravimeter", dict(k=[1.0, 2.0]), DimensionError, "gravimeter: k must be one value or 3"),
    ("collocated_manipulator", dict(c=-1.0), ArgumentError, "c must be non-negative and finite"),
    ("collocated_manipulator", dict(ha=NAN), ArgumentError, "ha must be finite, got nan"),
    # suspended_mass_variant: 0 < mr < base mass, fr > 0, cr >= 0
    (SMV, dict(mr=-5.0), ArgumentError, "mr must be positive and finite, got -5.0"),
    (SMV, dict(mr=0.0), ArgumentError, "mr must be positive and finite, got 0.0"),
    (SMV, dict(mr=400.0), ArgumentError, "mr must be less than the base payload's mass 400"),
    (SMV, dict(mr=NAN), ArgumentError, "mr must be positive and finite, got nan"),
    (SMV, dict(fr=0.0), ArgumentError, "fr must be positive and finite, got 0.0"),
    (SMV, dict(fr=-10.0), ArgumentError, "fr must be positive and finite"),
    (SMV, dict(cr=-1.0), ArgumentError, "cr must be non-negative and finite, got -1.0"),
    (SMV, dict(cr="x"), ArgumentError, "cr must be a number, got 'x'"),
    (SMV, dict(base="model"), ArgumentError, "base must be an InstrumentedManipulator"),
    # stewart_platform
    (SP, dict(mass="a"), ArgumentError, "mass must be a number, got 'a'"),
    (SP, dict(mass=-0.2), ArgumentError, "mass must be positive and finite, got -0.2"),
    (SP, dict(inertia=(1e-4, 1e-4)), DimensionError, r"inertia must be the 3 .*\(2,\)"),
    (SP, dict(inertia=(1e-4, -1e-4, 1e-4)), ArgumentError, "inertia must be positive and fin"),
    (SP, dict(bushing_radius=0.0), ArgumentError, "bushing_radius must be positive and finite"),
    (SP, dict(bushing_radius=NAN), ArgumentError, "bushing_radius must be positive and finite"),
    (SP, dict(bushing_z=NAN), ArgumentError, "bushing_z must be finite, got nan"),
    (SP, dict(bushing_stiffness=(1, 1)), DimensionError, r"bushing_stiffness must be \(kx,"),
    (SP, dict(bushing_stiffness=(1, 0, 1)), ArgumentError, "bushing_stiffness must be positive"),
    (SP, dict(bushing_stiffness=("a", 1, 1)), ArgumentError, "bushing_stiffness must be numb"),
    (SP, dict(bushing_damping=[1, 2]), DimensionError, "bushing_damping must be one value or 3"),
    (SP, dict(bushing_damping=-0.1), ArgumentError, "bushing_damping must be non-negative and fin"),
    (SP, dict(top_joints=np.zeros((5, 3))), DimensionError, "top_joints must be 6 x 3"),
]

FUNCTIONS = {
    UG: uncertain_gravimeter,
    "gravimeter": gravimeter,
    "collocated_manipulator": collocated_manipulator,
    SMV: suspended_mass_variant,
    SP: stewart_platform,
}


@pytest.mark.parametrize(
    "fn, kwargs, error, pattern",
    CASES,
    ids=[f"{c[0]}-{'-'.join(c[1])}-{i}" for i, c in enumerate(CASES)],
)
def test_bad_input_raises_naming_the_argument(fn, kwargs, error, pattern):
    with pytest.raises(error, match=f"{fn}: {pattern}" if not pattern.startswith(fn) else pattern):
        FUNCTIONS[fn](**kwargs)


def _by_frequency(poles):
    """Poles ordered by imaginary part, then real part (undamped poles have real parts
    at rounding level, which must not decide the order)."""
    p = np.asarray(poles)
    return p[np.lexsort((p.real, np.round(p.imag, 6)))]


def test_good_uncertain_values_are_accepted():
    # ranges of the physical sign pass (ha may change sign: it is a coordinate), and the
    # model at a sampled value is the numeric gravimeter's (no damping: poles on the axis)
    k = rmb.ureal("k1", 15e3, percent=20)
    la = rmb.ureal("la", 0.5, percent=30)
    ha = rmb.ureal("ha", 0.0, plusminus=0.2)
    G = uncertain_gravimeter(la=la, ha=ha, k=[k, 15e3, 15e3], c=0.0)
    value = {"k1": 13e3, "la": 0.4, "ha": -0.1}
    ref = gravimeter(la=0.4, ha=-0.1, k=[13e3, 15e3, 15e3], c=0.0).model().poles()
    np.testing.assert_allclose(
        _by_frequency(G.usubs(value).poles()), _by_frequency(ref), rtol=1e-9, atol=1e-9
    )


def test_collocated_defaults_follow_the_payload_size():
    # seed 004 (the script of its Fig. 36 model): la = l/2, ha = h/2; the actuator
    # Jacobian is [[1, 0, ha], [0, 1, -la], [0, 1, la]] (digest 004, 4.1)
    J = collocated_manipulator(l=0.8, h=2.0).actuator_jacobian()
    np.testing.assert_array_equal(J, [[1.0, 0.0, 1.0], [0.0, 1.0, -0.4], [0.0, 1.0, 0.4]])
    default = collocated_manipulator().actuator_jacobian()
    np.testing.assert_array_equal(default, [[1.0, 0.0, 1.7], [0.0, 1.0, -0.5], [0.0, 1.0, 0.5]])


def test_suspended_mass_keeps_the_total_mass():
    s = suspended_mass_variant(mr=399.0)
    np.testing.assert_allclose(np.diag(s.M), [1.0, 1.0, 115.0, 399.0, 399.0])
