"""Errors about a family of models name the argument the user wrote (``models`` or ``sys``)."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.batched_norms import h2norm_batch, hinfnorm_batch
from robustmb.analysis.model_family import freqresp_stack, h2norm_stack, hinfnorm_stack
from robustmb.analysis.model_stack import as_statespace_stack
from robustmb.errors import DimensionError, UncertainTypeError

G1 = control.tf([1.0], [1.0, 1.0])
G2 = control.tf([1.0], [1.0, 1.0, 1.0])

MODELS_FUNCTIONS = [
    hinfnorm_batch,
    h2norm_batch,
    hinfnorm_stack,
    h2norm_stack,
    as_statespace_stack,
    lambda models: freqresp_stack(models, [1.0]),
]


@pytest.mark.parametrize("fn", MODELS_FUNCTIONS)
def test_functions_of_models_name_models(fn):
    with pytest.raises(DimensionError, match=r"^models is an empty family"):
        fn([])
    with pytest.raises(UncertainTypeError, match=r"^models\[1\] of type str"):
        fn([G1, "G"])
    with pytest.raises(DimensionError, match=r"^models\[1\] has 2 states.*models\[0\] has 1"):
        fn([G1, G2])
    with pytest.raises(DimensionError, match=r"^models as a stacked tuple"):
        fn((np.zeros((2, 1, 1)),) * 3)
    k = rmb.ureal("k", 2.0, range=(1.0, 4.0))
    with pytest.raises(UncertainTypeError, match=r"^models\[0\] is an uncertain.*models\[0\]"):
        fn([rmb.uss(-k, 1.0, 1.0, 0.0), G1])


@pytest.mark.parametrize("fn", [rmb.hinfnorm, rmb.h2norm])
def test_single_model_norms_on_a_family_still_name_sys(fn):
    with pytest.raises(UncertainTypeError, match=r"^sys\[1\] of type str"):
        fn([G1, "G"])
    with pytest.raises(DimensionError, match=r"^sys\[1\] has 2 states"):
        fn([G1, G2])
