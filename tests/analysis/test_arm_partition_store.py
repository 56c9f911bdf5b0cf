"""The arm partition driver's warm-start store and checkpoint helpers (no arm model)."""

import json

import numpy as np
import pytest
from _scripts import load_script


@pytest.fixture(scope="module")
def driver():
    return load_script(
        "case_studies", "robotic_arm", "certify_lpv_partition.py", name="arm_partition_driver"
    )


def test_scalings_store_round_trip(driver, tmp_path):
    store = {
        (6, 1): (np.array([0.0, 1.0, np.inf]), np.arange(6.0).reshape(3, 2)),
        (3, 3): (np.array([2.0]), np.array([[np.nan, 1.0]])),
    }
    path = str(tmp_path / "s.scalings.npz")
    driver.save_scalings(path, store)
    back = driver.load_scalings(path)
    assert set(back) == set(store)
    for key, (w, x) in store.items():
        assert np.array_equal(back[key][0], w)
        assert np.array_equal(back[key][1], x, equal_nan=True)
    # no temporary file is left next to it
    assert [p.name for p in tmp_path.iterdir()] == ["s.scalings.npz"]
    assert driver.load_scalings(str(tmp_path / "missing.npz")) == {}


def test_warm_start_takes_the_nearest_certified_neighbour(driver):
    store = {(6, 1): (np.zeros(1), np.zeros((1, 1))), (3, 3): (np.ones(1), np.ones((1, 1)))}
    assert driver.warm_start(store, 7, 2)[2] == (6, 1)
    assert driver.warm_start(store, 5, 5)[2] == (3, 3)
    assert driver.warm_start(store, 4, 2)[2] == (3, 3)  # distance 1 beats distance 2
    assert driver.warm_start(store, 0, 7) is None  # nothing within distance 2


def test_sub_box_partition_covers_the_square(driver):
    names = ["t1", "m1", "t2"]
    n = 4
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    vol = 0.0
    for i in range(n):
        for j in range(n):
            c, r = driver.sub_box(names, n, i, j)
            assert r[1] == 1.0 and c[1] == 0.0  # the physical parameter stays whole
            lo, hi = np.minimum(lo, c - r), np.maximum(hi, c + r)
            vol += float(np.prod(2 * r[[0, 2]]))
    assert np.allclose(lo, -1.0) and np.allclose(hi, 1.0) and vol == pytest.approx(4.0)


@pytest.mark.parametrize(
    "name", ["arm_lpv_hard_certificate.json", "arm_lpv_hard_certificate_095.json"]
)
def test_stored_checkpoint_is_consistent(name):
    from _scripts import ROOT

    path = f"{ROOT}/case_studies/robotic_arm/checkpoints/{name}"
    with open(path) as fh:
        rec = json.load(fh)
    done = [b for b in rec["sub_boxes"] if b["status"] == "certified"]
    assert rec["coverage"] == pytest.approx(len(done) / 64)
    for b in done:
        # every certified sub-box was sampled independently and stayed below the level
        chk = b["check"]
        assert chk["below_bound"] and chk["worst"] < rec["gamma"] and chk["max_real"] < 0
        assert "scalings" not in b  # kept out of the checkpoint
