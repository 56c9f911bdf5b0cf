"""Error messages of the model-family helpers name the argument ``models``."""

import control
import pytest

from robustmb.analysis.batched_norms import hinfnorm_batch
from robustmb.analysis.model_family import hinfnorm_stack
from robustmb.errors import DimensionError


@pytest.mark.parametrize("fn", [hinfnorm_batch, hinfnorm_stack])
def test_family_errors_name_models(fn):
    mixed = [control.tf([1.0], [1.0, 1.0]), control.tf([1.0], [1.0, 1.0, 1.0])]
    with pytest.raises(DimensionError, match=r"^models\[1\] has 2 states"):
        fn(mixed)
    with pytest.raises(DimensionError, match=r"^models is an empty family"):
        fn([])
