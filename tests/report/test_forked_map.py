"""Independent checks in forked workers give what one process gives."""

import numpy as np
import pytest

from robustmb.report.arm_certificate import (
    evidence_folders,
    load_evidence,
    load_shipped_design,
    replay_partition,
)
from robustmb.report.forked_map import _JOB, forked_map


def _square(x):
    return x * x


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_every_item_once_whatever_the_workers(workers):
    got = sorted(forked_map(_square, range(7), workers=workers))
    assert got == [k * k for k in range(7)]
    assert not _JOB  # the job is cleared for the next pool


def test_workers_see_the_callers_data_without_pickling_it():
    # a closure over an array: not picklable by the standard pickle, fine for forked workers
    big = np.arange(10.0)
    got = sorted(forked_map(lambda k: float(big[k]), [3, 1, 2], workers=2))
    assert got == [1.0, 2.0, 3.0]


def test_a_worker_error_reaches_the_caller_and_clears_the_job():
    def fail(k):
        if k == 2:
            raise ValueError("item 2")
        return k

    with pytest.raises(ValueError, match="item 2"):
        list(forked_map(fail, range(4), workers=2))
    assert not _JOB


def test_parallel_replay_equals_the_serial_one():
    meta, ev = load_evidence(evidence_folders()["tracking"])
    keys = sorted(ev)[:3]
    sub = {k: ev[k] for k in keys}
    # one key cut short: a gap, so both outcomes are compared
    w, x = sub[keys[0]]
    sub[keys[0]] = (w[:4], x[:4])
    values = load_shipped_design()["values"]
    one = replay_partition(values, meta, sub, samples=False, workers=1)
    two = replay_partition(values, meta, sub, samples=False, workers=2)
    assert one.status == two.status and one.points == two.points
    assert one.status[keys[0]].startswith("gaps") and one.status[keys[1]] == "proven"
