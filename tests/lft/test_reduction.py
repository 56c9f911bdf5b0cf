"""Delta-reduction targets and the LFT oracles of ../shared/oracles."""

import numpy as np
import pytest

import robustmb as rmb


def _check_same_map(x, y, names, n=20, seed=0):
    r = np.random.default_rng(seed)
    els = x.uncertainty
    for _ in range(n):
        v = {k: float(r.uniform(*els[k].range)) for k in names}
        assert np.allclose(x.usubs(v), y.usubs(v), rtol=1e-10, atol=1e-10)


def test_quadratic_pair_reaches_two_occurrences():
    # MATLAB simplify(..., 'full') reaches 2 occurrences for [a*(a+4), 6*a*a].
    a = rmb.ureal("a", 1.0)
    X = rmb.hstack(a * (a + 4), 6 * a * a)
    Y = rmb.simplify(X)
    assert X.blocks == {"a": 4} and Y.blocks == {"a": 2}
    _check_same_map(X, Y, ["a"])


def test_mixed_rational_matrix_beats_matlab_counts():
    # MATLAB shows a: 3, b: 6 for this matrix.
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0, percent=10)
    X = rmb.umat([[a, b], [b * b, a / b], [1 - b, 1 + a * b]])
    Y = rmb.simplify(X)
    assert Y.blocks["a"] <= 3 and Y.blocks["b"] <= 5
    _check_same_map(X, Y, ["a", "b"])


@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_rotation_in_half_angle_tangent_has_two_occurrences(axis):
    t = rmb.ureal("t", np.tan(np.pi / 8), range=(-1.0, 1.0))
    c = (1 - t * t) / (1 + t * t)
    s = 2 * t / (1 + t * t)
    rows = {
        "x": [[1, 0, 0], [0, c, -s], [0, s, c]],
        "y": [[c, 0, s], [0, 1, 0], [-s, 0, c]],
        "z": [[c, -s, 0], [s, c, 0], [0, 0, 1]],
    }[axis]
    R = rmb.simplify(rmb.umat(rows))
    assert R.blocks == {"t": 2}
    for tv in np.linspace(-1, 1, 7):
        th = 2 * np.arctan(tv)
        Rv = R.usubs({"t": tv})
        assert np.allclose(Rv @ Rv.T, np.eye(3), atol=1e-13)
        assert np.isclose(np.trace(Rv), 1 + 2 * np.cos(th), atol=1e-13)


def test_zhou_mass_spring_damper_minimal(oracle):
    data = oracle("lft_zhou_mass_spring_damper")
    M = np.array(data["lft"]["M"])
    m = rmb.ureal("m", 2.0, percent=10)
    c = rmb.ureal("c", 1.0, percent=20)
    k = rmb.ureal("k", 10.0, percent=30)
    G = rmb.uss([[0, 1], [-k / m, -c / m]], [[0], [1 / m]], np.eye(2), np.zeros((2, 1)))
    Gs = rmb.simplify(G)
    minimal = data["expected"]["minimal_repetitions"]
    assert Gs.blocks == {"k": minimal["d_k"], "c": minimal["d_c"], "m": minimal["d_m"]}
    # Compare [A B](delta) with the book's minimal LFT: rows [x1', x2', zk, zc, zm],
    # columns [x1, x2, u, wk, wc, wm], Delta = diag(dk, dc, dm) in the oracle's sign convention.
    r = np.random.default_rng(0)
    for _ in range(10):
        dk, dc, dm = r.uniform(-1, 1, 3)
        dlt = np.diag([dk, dc, dm])
        N11, N12 = M[2:, 3:], M[2:, :3]
        N21, N22 = M[:2, 3:], M[:2, :3]
        ab_book = N22 + N21 @ dlt @ np.linalg.solve(np.eye(3) - N11 @ dlt, N12)
        vals = {"k": 10 * (1 + 0.3 * dk), "c": 1 * (1 + 0.2 * dc), "m": 2 * (1 + 0.1 * dm)}
        ss = Gs.usubs(vals)
        ab = np.hstack([ss.A, ss.B])
        assert np.allclose(ab, ab_book, atol=1e-12)


def test_mutools_parametric_cases(oracle):
    data = oracle("lft_mutools_user_guide_parametric")
    de = rmb.ureal("del", 2.0, plusminus=1.0)
    eta = rmb.ureal("eta", 6.0, plusminus=1.0)
    rho = rmb.ureal("rho", -1.0, plusminus=1.0)
    d = rmb.ureal("d", 2.4, plusminus=0.4)
    exprs = {
        "2.4 + 0.4 d": (d, 1),
        "1/eta": (1 / eta, 1),
        "delta_el*eta": (de * eta, 2),
        "delta_el*eta + rho": (de * eta + rho, 3),
        "delta_el/eta": (de / eta, 2),
    }
    cases = {c["expr"]: c for c in data["cases"]}
    r = np.random.default_rng(1)
    for key, (x, n_expected) in exprs.items():
        case = cases[key]
        assert case["n_delta"] == n_expected
        x = rmb.simplify(rmb.umat(x))
        assert sum(x.blocks.values()) <= case["n_delta"]
        D = np.array(case.get("D", case.get("D_approx")))
        nd = D.shape[0] - 1
        atol = case.get("atol", 1e-12)
        # The oracle's realization and ours must give the same function of the deltas
        # (both use value = nominal + radius * delta with these symmetric ranges).
        names = [n for n in ("del", "eta", "rho", "d") if n in x.blocks]
        for _ in range(5):
            dv = {n: float(r.uniform(-1, 1)) for n in names}
            phys = {n: x.uncertainty[n].denormalize(dv[n]).item() for n in names}
            ours = float(np.real(x.usubs(phys)[0, 0]))
            if nd == 0:
                continue
            # Oracle deltas are ordered as in its Julia construction: del first, then eta/rho.
            order = [n for n in ("del", "eta", "rho", "d") if n in names]
            reps = [1] * nd if len(order) == nd else None
            if reps is None:
                continue
            dl = np.diag([dv[n] for n in order])
            theirs = D[nd:, nd:] + D[nd:, :nd] @ dl @ np.linalg.solve(
                np.eye(nd) - D[:nd, :nd] @ dl, D[:nd, nd:]
            )
            assert abs(ours - theirs[0, 0]) <= max(atol * 20, 1e-12)


def test_simplify_rejects_unknown_level():
    a = rmb.ureal("a", 1.0)
    with pytest.raises(ValueError, match="level"):
        rmb.simplify(rmb.umat(a), level="aggressive")
