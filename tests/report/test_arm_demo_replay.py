"""``robustmb demo --replay``: verdicts never claim more than is certified; a replay of the
shipped arm evidence fails when one stored scaling row is perturbed."""

import numpy as np
import pytest

from robustmb.report.arm_certificate import (
    DATA_DIR,
    PartitionReplay,
    channel_verdict,
    load_evidence,
    load_shipped_design,
    replay_partition,
    summary_text,
)


def _replay(coverage, gamma, worst):
    n = 2
    proven = round(coverage * n * n)
    status = {(i, j): "proven" if i * n + j < proven else "no evidence" for i in range(n)
              for j in range(n)}  # fmt: skip
    return PartitionReplay("tracking", gamma, n, status, coverage, worst)


@pytest.mark.parametrize(
    ("coverage", "gamma", "worst", "verdict"),
    [
        (1.0, 0.95, np.nan, "pass"),  # whole square certified below the spec
        (1.0, 1.2, np.nan, "not proven"),  # certified, but above the spec
        (0.75, 0.95, 0.99, "not proven"),  # a quarter neither proven nor violated
        (0.75, 0.95, 1.01, "fail"),  # a sampled loop violates the spec
        (0.0, np.nan, np.inf, "fail"),  # an unstable sample
    ],
)
def test_verdict_claims_no_more_than_the_certificate(coverage, gamma, worst, verdict):
    assert channel_verdict(_replay(coverage, gamma, worst)) == verdict


def test_summary_text_states_coverage_and_the_rest():
    ch = {
        "specification": "peak gain <= 1",
        "certified_level": None,
        "certified_coverage": 0.0,
        "partition": "4 x 4 equal sub-boxes",
        "frequencies_rechecked": 0,
        "not_proven_sampled_worst": 13.08,
        "not_proven_samples": 528,
        "verdict": "fail",
    }
    text = summary_text({"design": "d", "guarantee": "frozen", "channels": {"effort": ch}})
    assert "nothing certified; not proven on the whole square (sampled worst 13.08, 528 loops)" in (
        text
    )


@pytest.mark.slow
def test_replay_of_a_shipped_box_fails_when_one_scaling_row_is_perturbed():
    from robustmb.analysis.frequency_certificate import check_frequency_certificate
    from robustmb.report.arm_certificate import LEVEL, arm_channel_problem, sub_box_system

    meta, evidence = load_evidence(f"{DATA_DIR}/tracking_095")
    values = load_shipped_design()["values"]
    box, (w, x) = sorted(evidence.items())[0]
    assert replay_partition(values, meta, {box: (w, x)}, samples=False).status[box] == "proven"
    sysdata, blk = sub_box_system(arm_channel_problem(values), meta["n"], *box, meta["gamma"])
    chk = check_frequency_certificate(sysdata, blk, LEVEL, w, x)
    k = int(np.argmax(chk.bounds))  # the point nearest the level: its scalings matter most
    bad = x.copy()
    bad[k] = 0.0  # D = I, G = 0
    res = replay_partition(values, meta, {box: (w, bad)}, samples=False)
    assert res.status[box].startswith("gaps") and res.coverage == 0.0
