"""Discrete-time systems with an unspecified sampling time (python-control's ``dt=True``).

python-control combines ``dt=True`` with any discrete sampling time, which the result
takes, and refuses it with a continuous system; uncertain objects follow the same rules.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import DimensionError
from robustmb.lft.model import common_dt


def _value(sys, z):
    a, b, c, d = (np.asarray(m, dtype=complex) for m in (sys.A, sys.B, sys.C, sys.D))
    return (c @ np.linalg.solve(z * np.eye(a.shape[0]) - a, b) + d)[0, 0]


def test_unspecified_takes_the_other_sampling_time():
    a = rmb.ureal("a", 0.5, range=(0.2, 0.8))
    z_any = control.tf([1.0, 0.0], [1.0], True)
    H = control.tf([1.0], [1.0, -0.5], 0.1)
    G = a / (z_any - a)
    assert G.dt is True
    for total in (G + H, H + G, rmb.series(G, H), rmb.feedback(G, H)):
        assert total.dt == 0.1 and total.dt is not True
    # python-control does the same with numbers
    assert (control.tf([0.3], [1.0, -0.3], True) + H).dt == 0.1
    for av in (0.25, 0.6):
        zz = np.exp(0.7j)
        got = _value((G + H).usubs({"a": av}), zz)
        ref = av / (zz - av) + 1.0 / (zz - 0.5)
        assert abs(got - ref) <= 1e-12 * abs(ref)


def test_sampling_time_one_is_not_unspecified():
    # True == 1 in Python: the set of sampling times must not merge them
    assert common_dt([True, 1]) == 1 and common_dt([True, 1]) is not True
    assert common_dt([1, True]) is not True
    assert common_dt([True, None]) is True
    assert common_dt([None, None]) is None


def test_unspecified_discrete_with_continuous_is_refused():
    a = rmb.ureal("a", 0.5, range=(0.2, 0.8))
    z_any = control.tf([1.0, 0.0], [1.0], True)
    s = control.tf("s")
    with pytest.raises(DimensionError, match="sampling times"):
        (a / (z_any - a)) + 1 / (s + 1)
    with pytest.raises(DimensionError, match="sampling times"):
        common_dt([0, True])


def test_equal_sampling_times_combine():
    assert common_dt([0, 0]) == 0 and common_dt([0, None, 0.0]) == 0
    assert common_dt([0.1, 0.1, True]) == 0.1
    a = rmb.ureal("a", 0.5, range=(0.2, 0.8))
    s = control.tf("s")
    assert (1 / (s + 1 / a)).dt == 0
