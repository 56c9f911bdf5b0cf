"""Decoupling plots name a frequency stack that does not match omega (matplotlib's own
"x and y must have same first dimension" before), and a malformed omega."""

import matplotlib
import numpy as np
import pytest

from robustmb.decoupling.plots import (
    coupling_magnitude_plot,
    gershgorin_plot,
    magnitude_plot,
    rga_number_plot,
)
from robustmb.errors import ArgumentError, DimensionError

matplotlib.use("Agg")

STACK = np.ones((3, 2, 2)) + np.eye(2)  # three frequency points


@pytest.mark.parametrize(
    ("plot", "message"),
    [
        (lambda w: coupling_magnitude_plot(STACK, w), "G has 3 frequency points but omega has 2"),
        (lambda w: gershgorin_plot({"P": STACK}, w), "plant 'P' has 3 frequency points"),
        (lambda w: rga_number_plot({"P": STACK}, w), "plant 'P' has 3 frequency points"),
        (lambda w: magnitude_plot({"c": [1.0, 2.0, 3.0]}, w), "curve 'c' has 3 frequency"),
    ],
)
def test_a_stack_of_another_length_than_omega_is_named(plot, message):
    with pytest.raises(DimensionError, match=message):
        plot([1.0, 2.0])
    with pytest.raises(DimensionError, match="omega must be a non-empty 1-D array"):
        plot(np.ones((3, 1)))
    with pytest.raises(ArgumentError, match="omega must hold finite frequencies"):
        plot([1.0, np.nan, 3.0])
    ax = plot([1.0, 2.0, 3.0])  # the matching grid draws, in Hz
    assert np.allclose(ax.lines[0].get_xdata(), np.array([1.0, 2.0, 3.0]) / (2 * np.pi))


def test_diagonal_labels_must_match_the_diagonal_terms():
    ax = coupling_magnitude_plot(STACK, [1.0, 2.0, 3.0], diagonal_labels=["x", "y"])
    assert [ln.get_label() for ln in ax.lines[2:4]] == ["x", "y"]
    with pytest.raises(DimensionError, match="diagonal_labels has 1 labels for the 2"):
        coupling_magnitude_plot(STACK, [1.0, 2.0, 3.0], diagonal_labels=["x"])
