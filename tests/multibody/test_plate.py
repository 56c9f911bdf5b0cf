"""Plate finite elements for flexible panels: frequencies against closed forms and tables,
rigid mass against the thin-plate formulas, and the TITOP body built from the modes."""

import numpy as np
import pytest

from robustmb.errors import ArgumentError
from robustmb.examples import plate

E, NU, RHO, H = 70e9, 0.3, 2700.0, 0.01
D = E * H**3 / (12 * (1 - NU**2))


def scale(a):
    """``lambda = omega a^2 sqrt(rho h / D)``: the non-dimensional frequency."""
    return a**2 * np.sqrt(RHO * H / D)


@pytest.mark.parametrize(("a", "b"), [(1.0, 1.0), (1.5, 1.0)])
def test_simply_supported_frequencies_converge_to_the_closed_form(a, b):
    exact = sorted(
        np.pi**2 * (m**2 / a**2 + n**2 / b**2) * np.sqrt(D / (RHO * H))
        for m in range(1, 6)
        for n in range(1, 6)
    )[:5]
    errors = []
    for n_el in (6, 12):
        w = plate.plate_frequencies(
            a, b, H, E, NU, RHO, nx=round(n_el * a), ny=n_el, support="ssss", count=5
        )
        errors.append(np.abs(w / exact - 1))
    assert np.all(errors[1] < 0.02) and errors[1][0] < 0.005
    assert np.all(errors[1] < errors[0])  # the mesh refines towards the closed form


def test_cantilever_square_plate_matches_leissa():
    # Leissa, Vibration of Plates (NASA SP-160, 1969), cantilever square plate, nu = 0.3:
    # lambda = omega a^2 sqrt(rho h / D) of the first five modes
    table = np.array([3.4917, 8.5246, 21.429, 27.331, 31.111])
    w = plate.plate_frequencies(1.0, 1.0, H, E, NU, RHO, nx=12, ny=12, support="cfff", count=5)
    np.testing.assert_allclose(w * scale(1.0), table, rtol=0.01)


def test_rigid_mass_of_the_mesh_is_the_thin_plate_one():
    a, b = 2.0, 1.0
    m = plate.panel_modes(a, b, H, E, NU, RHO, nx=4, ny=2, n_modes=3)
    mass = RHO * H * a * b
    # out-of-plane rigid motions at P = (0, 0): az, rotation about x, about y
    Jx, Jy = mass * b**2 / 12, mass * (a**2 / 3)  # about the clamped edge's midpoint
    expect = np.array([[mass, 0.0, -mass * a / 2], [0.0, Jx, 0.0], [-mass * a / 2, 0.0, Jy]])
    np.testing.assert_allclose(m["fe_rigid_mass"][2:5, 2:5], expect, rtol=1e-12, atol=1e-9)
    body = plate.flexible_panel("p", a, b, H, E, NU, RHO, nx=4, ny=2, n_modes=3)
    np.testing.assert_allclose(body.rigid_mass[2:5, 2:5], expect, rtol=1e-12, atol=1e-9)


def test_residual_mass_stays_positive_and_shrinks_with_modes():
    smallest = []
    for n_modes in (1, 4, 12):
        m = plate.panel_modes(1.0, 0.5, H, E, NU, RHO, nx=6, ny=4, n_modes=n_modes)
        L = m["participation"][:, 2:5]
        R = m["fe_rigid_mass"][2:5, 2:5] - L.T @ L
        smallest.append(np.linalg.eigvalsh(R)[0])
    assert all(s > 0 for s in smallest) and smallest[0] > smallest[1] > smallest[2]


def test_titop_poles_are_the_clamped_frequencies():
    m = plate.panel_modes(1.0, 0.5, H, E, NU, RHO, nx=6, ny=4, n_modes=4, child=(1.0, 0.0))
    cf = plate.plate_frequencies(1.0, 0.5, H, E, NU, RHO, nx=6, ny=4, support="cfff", count=4)
    np.testing.assert_allclose(m["frequencies"], cf, rtol=1e-12)
    body = plate.flexible_panel(
        "p", 1.0, 0.5, H, E, NU, RHO, nx=6, ny=4, n_modes=4, child=(1.0, 0.0), damping=0.01
    )
    poles = np.asarray(body.titop().nominal().poles())
    np.testing.assert_allclose(np.sort(np.abs(poles))[::2], cf, rtol=1e-9)
    assert np.allclose(-poles.real / np.abs(poles), 0.01)
    # a clamped-free tip: the first mode bends the tip (w), the other DOFs of C stay rigid
    assert abs(m["mode_shapes"][2, 0]) > 0 and np.all(m["mode_shapes"][[0, 1, 5]] == 0)


def test_bad_plate_inputs_are_named():
    with pytest.raises(ArgumentError, match="nu"):
        plate.plate_model(1, 1, H, E, 0.7, RHO, 2, 2)
    with pytest.raises(ArgumentError, match="h must be positive"):
        plate.plate_model(1, 1, -H, E, NU, RHO, 2, 2)
    with pytest.raises(ArgumentError, match="support"):
        plate.plate_frequencies(1, 1, H, E, NU, RHO, support="cccc")
    with pytest.raises(ArgumentError, match="child"):
        plate.panel_modes(1, 1, H, E, NU, RHO, nx=2, ny=2, child=(0.3, 0.1))
