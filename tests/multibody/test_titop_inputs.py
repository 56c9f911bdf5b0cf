"""Input checks of the TITOP blocks (FlexibleBody, rigid_titop, rigid_nport, beam_modal_data).

Each bad value raises an error of ``robustmb.errors`` naming the argument; the matrices
a check refuses or accepts are built here from their eigenvalues, not by the package.
"""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, SignalError
from robustmb.multibody import FlexibleBody, rigid_nport, rigid_titop
from robustmb.multibody.beam_modes import beam_modal_data

L1 = [[0, 0, 1.0, 0, -1.0, 0]]
I3 = np.eye(3)


def _rotated(eigs, seed=0):
    """``Q diag(eigs) Q^T`` for a random rotation Q: a non-diagonal symmetric matrix."""
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    return q @ np.diag(eigs) @ q.T


def _body(**kw):
    args = dict(mass=2.0, inertia=I3, com=[1, 0, 0], participation=L1, frequencies=[10.0])
    args.update(kw)
    damping = args.pop("damping", 0.01)
    return FlexibleBody(
        "b",
        args.pop("mass"),
        args.pop("inertia"),
        args.pop("com"),
        args.pop("participation"),
        args.pop("frequencies"),
        damping,
        **args,
    )


@pytest.mark.parametrize(
    "inertia, pattern",
    [
        (-I3, r"'b': inertia must be positive semidefinite"),
        (_rotated([1.0, 2.0, -1e-3]), r"'b': inertia must be positive semidefinite"),
        (np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]]), r"'b': inertia must be symmetric"),
        (np.full((3, 3), np.nan), r"'b': inertia must be finite"),
    ],
    ids=["negative", "indefinite-rotated", "non-symmetric", "nan"],
)
def test_flexible_body_and_rigid_titop_refuse_a_non_psd_or_non_symmetric_inertia(inertia, pattern):
    with pytest.raises(ArgumentError, match=pattern):
        _body(inertia=inertia)
    with pytest.raises(ArgumentError, match=pattern.replace("'b'", "rigid_titop 'l'")):
        rigid_titop("l", 1.0, inertia, [0.5, 0, 0], [1.0, 0, 0])


@pytest.mark.filterwarnings("ignore::robustmb.errors.ResidualMassWarning")
@pytest.mark.filterwarnings("ignore::robustmb.errors.NonphysicalInertiaWarning")
def test_semidefinite_inertias_within_rounding_are_accepted():
    # a point mass (zero inertia) and a rotated slender rod (one zero moment): semidefinite
    rod = _rotated([0.0, 2.0, 2.0], seed=8)
    assert -1e-15 < np.linalg.eigvalsh(rod)[0] < 0.0  # the rounding the check must tolerate
    for j in (np.zeros((3, 3)), rod, np.diag([1.0, 1.0, 5.0])):
        body = FlexibleBody("b", 1.0, j, [0, 0, 0], np.zeros((0, 6)), [], 0.0)
        np.testing.assert_allclose(body.rigid_mass[3:, 3:], j, atol=1e-15)
        rigid_titop("l", 1.0, j, [0.5, 0, 0], [1.0, 0, 0])


def test_rigid_nport_refuses_a_non_symmetric_inertia_instead_of_using_its_symmetric_part():
    nonsym = np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]])  # symmetric part is definite
    assert np.linalg.eigvalsh(0.5 * (nonsym + nonsym.T)).min() > 0
    with pytest.raises(ArgumentError, match=r"rigid_nport 'h': inertia must be symmetric"):
        rigid_nport("h", 1.0, nonsym, {"P": [1, 0, 0]})
    for j in (np.zeros((3, 3)), _rotated([0.0, 1.0, 1.0]), -I3):
        with pytest.raises(ArgumentError, match=r"'h': inertia must be positive definite"):
            rigid_nport("h", 1.0, j, {"P": [1, 0, 0]})


@pytest.mark.parametrize("port", ["G", "G_ext"])
def test_rigid_nport_refuses_a_port_named_like_the_centre_of_mass_signals(port):
    with pytest.raises(SignalError, match=rf"port '{port}' would share its signal names"):
        rigid_nport("hub", 2.0, I3, {"P": [0, 1.0, 0], port: [1.0, 0, 0]})
    # any other name keeps every signal name distinct
    x = rigid_nport("hub", 2.0, I3, {"P": [0, 1.0, 0], "G2": [1.0, 0, 0]})
    assert len(set(x.input_names)) == len(set(x.output_names)) == 18


def test_uncertain_data_other_than_the_frequencies_are_refused_by_name():
    m = rmb.ureal("m", 2.0, percent=10)
    hint = "only the modal frequencies of a FlexibleBody and the joint parameter tau"
    with pytest.raises(ArgumentError, match=rf"'b': mass must be numeric: {hint}"):
        _body(mass=m)
    with pytest.raises(ArgumentError, match=rf"'b': inertia must be numeric: {hint}"):
        _body(inertia=[[m, 0, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ArgumentError, match=rf"'b': damping must be numeric: {hint}"):
        _body(damping=rmb.ureal("xi", 0.01, percent=50))
    with pytest.raises(ArgumentError, match=rf"'b': com must be numeric: {hint}"):
        _body(com=[2 * m, 0, 0])
    with pytest.raises(ArgumentError, match=rf"rigid_nport 'h': mass must be numeric: {hint}"):
        rigid_nport("h", m, I3, {"P": [1, 0, 0]})
    with pytest.raises(ArgumentError, match=rf"rigid_titop 'l': mass must be numeric: {hint}"):
        rigid_titop("l", m, I3, [0.5, 0, 0], [1, 0, 0])
    # the frequency may be uncertain
    assert _body(frequencies=[rmb.ureal("w", 10.0, percent=5)]).titop().blocks == {"w": 2}


def test_damping_of_the_wrong_length_and_non_finite_participation_are_named():
    with pytest.raises(DimensionError, match=r"'b': damping must be one ratio or 1 .*\(2,\)"):
        _body(damping=[0.01, 0.02])
    two = [[0, 0, 1.0, 0, -1.0, 0], [0, 1.0, 0, 0, 0, 1.0]]
    body = _body(participation=two, frequencies=[10.0, 30.0], damping=[0.01, 0.05])
    np.testing.assert_array_equal(body.damping, [0.01, 0.05])
    with pytest.raises(ArgumentError, match=r"'b': participation must be finite"):
        _body(participation=[[np.nan, 0, 1.0, 0, -1.0, 0]])
    with pytest.raises(ArgumentError, match=r"'b': participation must be finite"):
        _body(participation=[[np.inf, 0, 1.0, 0, -1.0, 0]])


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        (dict(n_modes=0), "n_modes must be a positive integer, got 0"),
        (dict(n_modes=-3), "n_modes must be a positive integer, got -3"),
        (dict(n_modes=2.5), "n_modes must be a positive integer, got 2.5"),
        (dict(n_elements=2.7), "n_elements must be a positive integer, got 2.7"),
        (dict(n_elements=0), "n_elements must be a positive integer, got 0"),
        (dict(ei=(1.0, 2.0, 3.0)), r"ei must be one bending stiffness or two .*\(3,\)"),
        (dict(ei=np.nan), "ei must be finite and positive, got nan"),
        (dict(ei=(1.0, -2.0)), "ei must be finite and positive, got -2.0"),
        (dict(length=np.inf), "length must be finite and positive, got inf"),
        (dict(mass=0.0), "mass must be finite and positive, got 0.0"),
    ],
)
def test_beam_modal_data_names_the_bad_argument(kwargs, pattern):
    args = dict(length=2.0, mass=4.0, ei=50.0)
    args.update(kwargs)
    with pytest.raises(ArgumentError, match=rf"beam_modal_data: {pattern}"):
        beam_modal_data(args.pop("length"), args.pop("mass"), args.pop("ei"), **args)


def test_beam_modes_bend_in_one_plane_and_an_integral_float_count_is_accepted():
    """Equal stiffnesses: each mode in one plane, the first with the cantilever's effective
    mass fraction 0.6131 (closed form, sigma_1 = 0.7341 of beta_1 L = 1.8751)."""
    bl, sigma = 1.8751040687, 0.7340955137
    # effective mass of mode 1: (int phi)^2 / int phi^2 for the clamped-free shape
    x = np.linspace(0.0, 1.0, 20001)
    phi = np.cosh(bl * x) - np.cos(bl * x) - sigma * (np.sinh(bl * x) - np.sin(bl * x))
    fraction = np.trapezoid(phi, x) ** 2 / np.trapezoid(phi**2, x)
    for ne in (8, 9, 20, 21):
        d = beam_modal_data(2.0, 4.0, 50.0, n_elements=ne, n_modes=3)
        lmat = d["participation"]
        # modes 1 and 3 bend in x-y (y, alpha_z), mode 2 is the x-z twin of mode 1
        assert np.abs(lmat[[0, 2]][:, [0, 2, 3, 4]]).max() == 0.0
        assert np.abs(lmat[1][[0, 1, 3, 5]]).max() == 0.0
        assert d["frequencies"][0] == d["frequencies"][1]
        np.testing.assert_allclose(lmat[0, 1] ** 2 / 4.0, fraction, rtol=2e-4)
    np.testing.assert_array_equal(
        beam_modal_data(2.0, 4.0, 50.0, n_elements=10.0, n_modes=2.0)["frequencies"],
        beam_modal_data(2.0, 4.0, 50.0, n_elements=10, n_modes=2)["frequencies"],
    )
