"""Independent checks in spawned workers: every item once, the same results whatever the
number of workers, errors reaching the caller, and the workers' one-thread BLAS set-up."""

import operator
import os
import subprocess
import sys
import textwrap

import pytest

from robustmb.report.arm_certificate import (
    evidence_folders,
    load_evidence,
    load_shipped_design,
    replay_partition,
)
from robustmb.report.worker_pool import WORKER_ENV, map_in_workers


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_every_item_once_whatever_the_workers(workers):
    items = [(k, k) for k in range(7)]
    assert sorted(map_in_workers(operator.mul, items, workers=workers)) == [k * k for k in range(7)]


def test_workers_start_with_one_blas_thread_and_leave_the_callers_environment():
    before = {k: os.environ.get(k) for k in WORKER_ENV}
    got = list(map_in_workers(os.getenv, [(k,) for k in WORKER_ENV], workers=2))
    assert sorted(got) == sorted(WORKER_ENV.values())
    assert {k: os.environ.get(k) for k in WORKER_ENV} == before


def test_a_worker_error_reaches_the_caller():
    with pytest.raises(ZeroDivisionError):
        list(map_in_workers(operator.truediv, [(1, 1), (1, 0), (2, 1)], workers=2))


def test_a_script_without_the_main_guard_gets_an_error_that_says_so(tmp_path):
    # Each spawned worker imports the script; without the guard it starts workers again,
    # Python stops it, and the caller's pool breaks.
    script = tmp_path / "unguarded.py"
    script.write_text(
        textwrap.dedent(
            """
            import operator
            from robustmb.report.worker_pool import map_in_workers
            print(list(map_in_workers(operator.mul, [(2, 3)], workers=1)))
            """
        )
    )
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("robustmb.errors.WorkerPoolError")
    assert 'if __name__ == "__main__":' in last and "mul" in last


def test_no_items_no_pool():
    assert list(map_in_workers(operator.mul, [], workers=3)) == []


@pytest.mark.slow
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
