"""Lists and tuples of models given to ``hinfnorm`` / ``h2norm`` are families: the norms
of every member (checked against python-control's ``control.norm`` and the closed forms
of ``1 / (s^2 + 2 zeta s + 1)``), and errors that name the member at fault."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.model_family import hinfnorm_stack
from robustmb.analysis.model_stack import is_model_stack
from robustmb.errors import DimensionError, UncertainTypeError

ZETAS = (0.05, 0.1, 0.2, 0.3, 0.4)
FAMILY = [control.tf([1.0], [1.0, 2 * z, 1.0]) for z in ZETAS]
PEAKS = [1 / (2 * z * np.sqrt(1 - z * z)) for z in ZETAS]  # closed form
H2 = [np.sqrt(1 / (4 * z)) for z in ZETAS]  # ||1 / (s^2 + a s + b)||_2^2 = 1 / (2 a b)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("kind", ["tf", "ss"])
def test_tuples_of_models_are_families(n, kind):
    members = tuple(FAMILY[:n] if kind == "tf" else [control.ss(G) for G in FAMILY[:n]])
    assert is_model_stack(members)
    gamma, _ = rmb.hinfnorm(members)
    np.testing.assert_allclose(gamma, PEAKS[:n], rtol=1e-8)
    np.testing.assert_allclose(gamma, [control.norm(G, "inf") for G in members], rtol=1e-8)
    np.testing.assert_allclose(rmb.h2norm(members), H2[:n], rtol=1e-10)
    np.testing.assert_allclose(rmb.h2norm(members), [control.norm(G, 2) for G in members])
    np.testing.assert_allclose(hinfnorm_stack(members)[0], PEAKS[:n], rtol=1e-8)


@pytest.mark.parametrize("norm", [rmb.hinfnorm, rmb.h2norm])
def test_empty_and_mixed_lists_name_the_member(norm):
    G = FAMILY[0]
    with pytest.raises(DimensionError, match="empty family"):
        norm([])
    with pytest.raises(UncertainTypeError, match=r"sys\[1\] of type NoneType"):
        norm([G, None])
    with pytest.raises(DimensionError, match=r"sys\[1\] has 0 states"):
        norm([control.ss(G), np.array([[2.0]])])


@pytest.mark.parametrize("norm", [rmb.hinfnorm, rmb.h2norm])
def test_uncertain_members_ask_for_a_nominal_model_or_samples(norm):
    k = rmb.ureal("k", 2.0, range=(1.0, 4.0))
    U = rmb.uss(
        rmb.umat([[0.0, 1.0], [-k, -1.0]]),
        np.array([[0.0], [1.0]]),
        np.array([[1.0, 0.0]]),
        np.array([[0.0]]),
    )
    with pytest.raises(UncertainTypeError, match=r"sys\[0\] is an uncertain.*nominal\(\)"):
        norm([U, U])
    with pytest.raises(UncertainTypeError, match=r"sys\[1\] is an uncertain.*usample"):
        norm((U.nominal(), U))
    # the nominal model (k = 2, c = 1): 1 / (s^2 + s + 2)
    assert norm([U.nominal()])[0] == pytest.approx(
        control.norm(control.tf([1.0], [1.0, 1.0, 2.0]), "inf" if norm is rmb.hinfnorm else 2),
        rel=1e-8,
    )


def test_gains_and_single_models_are_not_families():
    assert not is_model_stack([[1.0, 2.0], [3.0, 4.0]])
    assert not is_model_stack(())
    A, B, C, D = -np.eye(2), np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1))
    assert not is_model_stack((A, B, C, D))
    # 2 / (s + 1): peak 2 at w = 0
    assert rmb.hinfnorm((A, B, C, D))[0] == pytest.approx(2.0)
