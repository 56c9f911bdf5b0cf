"""One sub-box function (robustmb.analysis.sub_box): cells of a partition and the
robust-performance problem of a sub-box.

Independent references: the uncertain model with its parameters substituted
(``usubs``, which shares no code with the re-centring) evaluated in closed form at a few
frequencies, and exact fractions for the cells.
"""

import itertools

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.branch_and_bound import channel_matrix
from robustmb.analysis.sub_box import cell_box, cell_rect, sub_box_problem
from robustmb.analysis.uncertain_problem import uncertain_problem
from robustmb.errors import ArgumentError


def _model():
    s = control.tf("s")
    a = rmb.ureal("a", 0.6, range=(0.4, 0.8))
    b = rmb.ureal("b", 2.0, range=(1.0, 3.0))
    k = rmb.ureal("k", 1.0, range=(0.8, 1.2))
    # a and b enter twice (a repeated real block), k once
    return k / (s * s + a * s + b) + a * b / (s + b)


def _response(sysdata, delta_diag, w):
    """Frequency response of the LFT closed by the constant ``diag(delta_diag)``."""
    a, b, c, d = sysdata
    nw = len(delta_diag)
    m = c @ np.linalg.solve(1j * w * np.eye(a.shape[0]) - a, b) + d
    m11, m12, m21, m22 = m[:nw, :nw], m[:nw, nw:], m[nw:, :nw], m[nw:, nw:]
    dl = np.diag(delta_diag)
    return m22 + m21 @ dl @ np.linalg.solve(np.eye(nw) - m11 @ dl, m12)


@pytest.mark.parametrize("path", [(), ((2, 2, 1, 0),), ((1, 2, 0, 1), (2, 1, 1, 0))])
def test_sub_box_problem_is_the_model_on_the_sub_box_scaled_by_gamma(path):
    model = _model()
    problem = uncertain_problem(model)
    names = [bl.name for bl in problem.blocks]
    gamma = 3.0
    centre, radius = cell_box(names, 4, 1, 2, path, along=("a", "b"))
    sb = sub_box_problem(problem, centre, radius, gamma)
    assert sb.status == "ok" and sb.blk[-1] == (1, 1)
    chan = channel_matrix(problem)
    rng = np.random.default_rng(0)
    for v in [np.zeros(3), np.ones(3), -np.ones(3), rng.uniform(-1, 1, 3)]:
        # the normalised value in the whole box, and the physical values
        x = centre + radius * v
        pt = {
            bl.name: bl.element.center + x[k] * bl.element.half_width
            for k, bl in enumerate(problem.blocks)
        }
        ref = model.usubs(pt)
        for w in (0.0, 0.7, 5.0):
            want = ref(1j * w)
            got = _response(sb.sysdata, chan @ v, w)
            assert got[0, 0] * gamma == pytest.approx(complex(np.squeeze(want)), rel=1e-9)
            unscaled = _response(sb.recentred, chan @ v, w)
            assert unscaled[0, 0] == pytest.approx(complex(np.squeeze(want)), rel=1e-9)
    # the centre channel is the loop at the centre (Delta' = 0)
    a, b, c, d = sb.centre_channel
    g0 = c @ np.linalg.solve(0.7j * np.eye(a.shape[0]) - a, b) + d
    assert g0[0, 0] == pytest.approx(_response(sb.recentred, np.zeros(len(chan)), 0.7)[0, 0])


def test_cells_and_pieces_tile_the_square_exactly():
    names = ["t2", "m1", "t1"]
    for i, j in itertools.product(range(3), repeat=2):
        for a, b in itertools.product(range(2), repeat=2):
            c, r = cell_box(names, 3, i, j, ((2, 2, a, b),))
            c2, r2 = cell_box(names, 6, 2 * i + a, 2 * j + b)
            assert np.array_equal(c, c2) and np.array_equal(r, r2)
            assert c[1] == 0.0 and r[1] == 1.0
    area = sum(
        (hi1 - lo1) * (hi2 - lo2)
        for i, j in itertools.product(range(3), repeat=2)
        for p in itertools.product(range(3), range(2))
        for (lo1, hi1), (lo2, hi2) in [cell_rect(3, i, j, ((3, 2, *p),))]
    )
    assert area == 1


def test_unstable_and_bad_input():
    problem = uncertain_problem(_model())
    names = [bl.name for bl in problem.blocks]
    # a centre outside the box (normalised -4: a = 0.6 - 4 * 0.2 < 0, negative damping)
    c = np.zeros(3)
    c[names.index("a")] = -4.0
    sb = sub_box_problem(problem, c, np.ones(3), 1.0)
    assert sb.status == "unstable centre" and sb.sysdata is None
    with pytest.raises(ArgumentError, match="gamma"):
        sub_box_problem(problem, np.zeros(3), np.ones(3), 0.0)
    with pytest.raises(ArgumentError, match="centre, radius"):
        sub_box_problem(problem, np.zeros(2), np.ones(3), 1.0)
    with pytest.raises(ArgumentError, match="along"):
        cell_box(names, 2, 0, 0, along=("t1", "t2"))


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((4, 5, 0), "i"),  # was a cell outside the square
        ((4, -1, 0), "i"),
        ((4, 0, 4), "j"),
        ((0, 0, 0), "n"),  # was ZeroDivisionError
        ((-2, 0, 0), "n"),
        ((4.0, 0, 0), "n"),  # was TypeError
        ((True, 0, 0), "n"),
        ((4, 0.5, 0), "i"),
        ((4, 1, 2, ((0, 1, 0, 0),)), r"path\[0\] p1"),  # a zero split: ZeroDivisionError
        ((4, 1, 2, ((2, 0, 0, 0),)), r"path\[0\] p2"),
        ((4, 1, 2, ((2, 1, 2, 0),)), r"path\[0\] a"),  # piece outside its cell
        ((4, 1, 2, ((2, 2, 1, 1), (2, 2, 0, -1))), r"path\[1\] b"),
        ((4, 1, 2, ((2, 2, 1),)), r"path\[0\]"),
        ((4, 1, 2, ((2.5, 2, 1, 1),)), r"path\[0\] p1"),
        ((4, 1, 2, 7), "path"),
    ],
)
def test_cell_rect_bad_input(args, name):
    with pytest.raises(ArgumentError, match=rf"^{name}"):
        cell_rect(*args)
    with pytest.raises(ArgumentError, match=rf"^{name}"):
        cell_box(["t1", "t2"], *args)


def test_cell_rect_accepts_numpy_integers_and_lists():
    want = cell_rect(4, 1, 2, ((2, 1, 1, 0),))
    got = cell_rect(np.int64(4), np.int32(1), np.int64(2), [[np.int64(2), 1, 1, 0]])
    assert got == want


@pytest.mark.parametrize("along", [("t1",), ("t1", "t1"), ("t1", "t2", "m"), "t1"])
def test_cell_box_along_must_be_two_names(along):
    with pytest.raises(ArgumentError, match="^along"):
        cell_box(["t1", "t2", "m"], 4, 0, 0, along=along)


@pytest.mark.parametrize(
    ("field", "value", "name"),
    [
        ("radius", np.inf, "radius"),  # was status 'ok' with -inf/NaN data
        ("radius", np.nan, "radius"),
        ("radius", -0.5, "radius"),
        ("centre", np.nan, "centre"),  # was reported as an ill-posed centre
        ("centre", -np.inf, "centre"),
    ],
)
def test_sub_box_problem_bad_centre_or_radius(field, value, name):
    problem = uncertain_problem(_model())
    names = [bl.name for bl in problem.blocks]
    args = {"centre": np.zeros(3), "radius": np.ones(3)}
    args[field][names.index("b")] = value
    with pytest.raises(ArgumentError, match=rf"^{name}: .*\['b'\]"):
        sub_box_problem(problem, args["centre"], args["radius"], 1.0)
    # a zero radius (a point) is a sub-box
    assert sub_box_problem(problem, np.zeros(3), np.zeros(3), 1.0).status == "ok"
