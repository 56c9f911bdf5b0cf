"""``robustmb demo --replay``: verdicts never claim more than is certified; a replay of the
shipped arm evidence fails when one stored scaling row is perturbed."""

import os

import numpy as np
import pytest
from _svd_signs import flip_singular_vectors

from robustmb.report.arm_certificate import (
    DATA_DIR,
    PartitionReplay,
    channel_verdict,
    evidence_folders,
    load_evidence,
    load_shipped_design,
    replay_partition,
    summary_text,
)

# the shipped tracking evidence, whichever level it certifies
TRACKING = evidence_folders()["tracking"]


def _replay(coverage, gamma, worst, square=np.nan):
    n = 2
    proven = round(coverage * n * n)
    status = {(i, j): "proven" if i * n + j < proven else "no evidence" for i in range(n)
              for j in range(n)}  # fmt: skip
    return PartitionReplay("tracking", gamma, n, status, coverage, worst, square_worst=square)


@pytest.mark.parametrize(
    ("coverage", "gamma", "worst", "square", "verdict"),
    [
        (1.0, 0.95, np.nan, np.nan, "pass"),  # whole square certified below the spec
        (1.0, 0.95, np.nan, 0.93, "pass"),  # ... and the whole-square samples below it
        (1.0, 1.2, np.nan, np.nan, "not proven"),  # certified, but above the spec
        (1.0, 1.2, np.nan, 0.99, "not proven"),  # ... with no sample above the spec
        (1.0, 14.5, np.nan, 13.08, "fail"),  # fully proven above the spec, a sample above it
        (0.75, 0.95, 0.99, np.nan, "not proven"),  # a quarter neither proven nor violated
        (0.75, 0.95, 0.99, 0.98, "not proven"),
        (0.75, 0.95, 1.01, np.nan, "fail"),  # a sampled loop violates the spec
        (0.75, 0.95, 0.99, 1.01, "fail"),  # a whole-square sample violates it
        (0.0, np.nan, np.inf, np.nan, "fail"),  # an unstable sample
        (0.0, np.nan, np.nan, np.inf, "fail"),  # an unstable whole-square sample
        (0.0, np.nan, np.nan, np.nan, "not proven"),  # nothing proven, nothing sampled
    ],
)
def test_verdict_claims_no_more_than_the_certificate(coverage, gamma, worst, square, verdict):
    assert channel_verdict(_replay(coverage, gamma, worst, square)) == verdict


def test_verdict_needs_the_exact_coverage_to_be_one():
    """A float coverage of 1.0 from a sum of areas short of the square is not a pass."""
    from fractions import Fraction

    rep = _replay(1.0, 0.95, np.nan)
    rep.coverage_exact = 1 - Fraction(1, 2**60)
    assert float(rep.coverage_exact) == 1.0 and channel_verdict(rep) == "not proven"
    rep.coverage_exact = Fraction(1)
    assert channel_verdict(rep) == "pass"


def test_fully_proven_channel_above_the_spec_with_a_violating_sample_fails(tmp_path, monkeypatch):
    """The effort channel proven on the whole square at 14.5 (spec 1): its loops violate the
    spec, so the summary states 'fail' with the bracket [sampled worst, 14.5]."""
    import json

    from robustmb.report import arm_certificate

    full = {(i, j): "proven" for i in range(8) for j in range(8)}
    replays = {
        "tracking": PartitionReplay("tracking", 0.95, 8, dict(full), 1.0, np.nan,
                                    square_worst=0.94, square_samples=528),
        "effort": PartitionReplay("effort", 14.5, 8, dict(full), 1.0, np.nan,
                                  square_worst=13.08, square_samples=528),
    }  # fmt: skip
    monkeypatch.setattr(
        arm_certificate, "replay_partition", lambda values, meta, ev, **kw: replays[meta["channel"]]
    )
    arm_certificate.certified_demo(str(tmp_path))
    s = json.loads((tmp_path / "summary.json").read_text())["channels"]
    effort, track = s["effort W_T K S"], s["tracking W_e S"]
    assert effort["verdict"] == "fail" and effort["worst_case_bracket"] == [13.08, 14.5]
    assert track["verdict"] == "pass" and track["worst_case_bracket"] == [0.94, 0.95]
    md = (tmp_path / "report.md").read_text()
    assert "worst case is in [13.08, 14.5]; verdict: fail" in md


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
    from robustmb.report.arm_certificate import (
        LEVEL,
        arm_channel_problem,
        check_realisation,
        sub_box_system,
    )

    meta, evidence = load_evidence(TRACKING)
    values = load_shipped_design()["values"]
    # the scalings are of this realisation (the Delta-channel basis they are written in)
    check_realisation(arm_channel_problem(values), TRACKING)
    box, (w, x) = sorted(evidence.items())[0]
    assert replay_partition(values, meta, {box: (w, x)}, samples=False).status[box] == "proven"
    sysdata, blk = sub_box_system(arm_channel_problem(values), meta["n"], *box, meta["gamma"])
    chk = check_frequency_certificate(sysdata, blk, LEVEL, w, x)
    k = int(np.argmax(chk.bounds))  # the point nearest the level: its scalings matter most
    bad = x.copy()
    bad[k] = 0.0  # D = I, G = 0
    res = replay_partition(values, meta, {box: (w, bad)}, samples=False)
    assert res.status[box].startswith("gaps") and res.coverage == 0.0


@pytest.mark.slow
def test_shipped_evidence_replays_whatever_signs_lapack_gives_singular_vectors(monkeypatch):
    """The arm LFT is rebuilt with every singular pair of the other sign: the realisation
    (its Delta-channel basis) is the one the shipped scalings were made for, and the
    first shipped sub-box still replays as proven."""
    from robustmb.report import arm_certificate
    from robustmb.report.arm_certificate import arm_channel_problem, check_realisation

    folder = TRACKING
    meta, evidence = load_evidence(folder)
    values = load_shipped_design()["values"]
    monkeypatch.setattr(arm_certificate, "_PROBLEMS", {})
    flip_singular_vectors(monkeypatch)
    problem = arm_channel_problem(values)
    monkeypatch.undo()  # the re-check itself runs on the ordinary numpy
    check_realisation(problem, folder)
    box = sorted(evidence)[0]
    # replay on the realisation built with the other signs
    monkeypatch.setattr(arm_certificate, "arm_channel_problem", lambda v, ch="tracking": problem)
    res = replay_partition(values, meta, {box: evidence[box]}, samples=False)
    assert res.status[box] == "proven"


def test_evidence_of_another_delta_basis_is_refused(tmp_path):
    """One t1 channel of the stored fingerprint with its sign changed (the same mu, another
    basis of the repeated t1 block): refused, naming realisation.npz and t1."""
    import shutil

    from robustmb.errors import ArgumentError
    from robustmb.report.arm_certificate import arm_channel_problem
    from robustmb.report.realisation_guard import (
        REALISATION_FILE,
        check_realisation,
        realisation_fingerprint,
    )

    problem = arm_channel_problem(load_shipped_design()["values"])
    folder = tmp_path / "ev"
    shutil.copytree(TRACKING, folder)
    check_realisation(problem, str(folder))
    omega, resp = realisation_fingerprint(problem)
    t1 = next(b for b in problem.blocks if b.name == "t1")
    assert t1.z.stop - t1.z.start > 1
    flip = np.ones(resp.shape[1])
    flip[t1.z.start] = -1.0
    np.savez(folder / REALISATION_FILE, omega=omega, response=flip[:, None] * resp * flip[None, :])
    with pytest.raises(ArgumentError, match=r"realisation\.npz.*t1"):
        check_realisation(problem, str(folder))
    (folder / REALISATION_FILE).unlink()
    with pytest.raises(ArgumentError, match=r"realisation\.npz"):
        check_realisation(problem, str(folder))


# --- bad evidence is refused, naming the field or file at fault -------------------------------


def _one_box():
    meta, ev = load_evidence(TRACKING)
    box = next(iter(ev))
    return meta, {box: ev[box]}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("gamma", -0.95),
        ("gamma", 0.0),
        ("gamma", float("nan")),
        ("gamma", float("inf")),
        ("gamma", "0.95"),
        ("gamma", None),
        ("n", 0),
        ("n", -8),
        ("n", 2.5),
        ("n", True),
        ("n", "8"),
        ("level", 1.0),
        ("level", 0.5),
        ("level", None),
    ],
)
def test_replay_refuses_bad_meta(field, value):
    from robustmb.errors import ArgumentError

    meta, ev = _one_box()
    meta = {**meta, field: value}
    with pytest.raises(ArgumentError, match=rf"meta\.{field}"):
        replay_partition(load_shipped_design()["values"], meta, ev, samples=False)


def test_replay_refuses_meta_without_level():
    from robustmb.errors import ArgumentError

    meta, ev = _one_box()
    meta = {k: v for k, v in meta.items() if k != "level"}
    with pytest.raises(ArgumentError, match=r"meta\.level"):
        replay_partition(load_shipped_design()["values"], meta, ev, samples=False)


def _evidence_folder(tmp_path, files):
    import json

    (tmp_path / "meta.json").write_text(json.dumps({"channel": "tracking", "gamma": 0.95, "n": 8}))
    for name, arrays in files.items():
        np.savez(tmp_path / name, **arrays)
    return str(tmp_path)


def test_load_evidence_refuses_a_badly_named_box(tmp_path):
    from robustmb.errors import ArgumentError

    folder = _evidence_folder(
        tmp_path, {"box_a_b.npz": {"omega": np.ones(2), "scalings": np.ones((2, 3))}}
    )
    with pytest.raises(ArgumentError, match="box_a_b.npz"):
        load_evidence(folder)


@pytest.mark.parametrize("missing", ["omega", "scalings"])
def test_load_evidence_refuses_a_box_without_an_array(tmp_path, missing):
    from robustmb.errors import ArgumentError

    arrays = {"omega": np.ones(2), "scalings": np.ones((2, 3))}
    del arrays[missing]
    folder = _evidence_folder(tmp_path, {"box_1_2.npz": arrays})
    with pytest.raises(ArgumentError, match=rf"box_1_2\.npz.*{missing}"):
        load_evidence(folder)


def test_design_hash_is_recomputed_from_the_values():
    import hashlib
    import json

    from robustmb.errors import ArgumentError
    from robustmb.report.arm_certificate import check_design_hash, design_sha256

    values = load_shipped_design()["values"]
    folder = TRACKING
    meta, _ = load_evidence(folder)
    # the shipped meta certifies the shipped values (hash formed here from the JSON text)
    canon = json.dumps({k: np.asarray(v, float).tolist() for k, v in values.items()},
                       sort_keys=True, separators=(",", ":"))  # fmt: skip
    assert meta["design_sha256"] == hashlib.sha256(canon.encode()).hexdigest()
    check_design_hash(values, meta, folder)
    # one coefficient moved by one ulp: refused, naming the evidence file
    tampered = {k: np.array(v, float) for k, v in values.items()}
    flat = tampered["K.M0"].reshape(-1)
    flat[0] = np.nextafter(flat[0], np.inf)
    assert design_sha256(tampered) != meta["design_sha256"]
    with pytest.raises(ArgumentError, match=f"{os.path.basename(TRACKING)}.*meta.json"):
        check_design_hash(tampered, meta, folder)


def test_certified_demo_refuses_evidence_of_another_design(tmp_path, monkeypatch):
    import json
    import shutil

    from robustmb.errors import ArgumentError
    from robustmb.report import arm_certificate

    data = tmp_path / "arm_lpv"
    shutil.copytree(DATA_DIR, data)
    meta_file = data / os.path.basename(TRACKING) / "meta.json"
    meta = json.loads(meta_file.read_text())
    meta["design_sha256"] = "0" * 64
    meta_file.write_text(json.dumps(meta))
    monkeypatch.setattr(arm_certificate, "DATA_DIR", str(data))
    with pytest.raises(ArgumentError, match="meta.json"):
        arm_certificate.certified_demo(str(tmp_path / "out"))


# --- sampling: only a confirmed unstable pole makes a 'fail' ---------------------------------


class _Block:
    def __init__(self, w):
        self.w = w


def _scalar_problem(dzw=0.0):
    """x' = -x + 2 w + u, z = x + dzw w, y = x; w = delta z: closed loop x' = (2 delta - 1) x."""
    from types import SimpleNamespace

    a = np.array([[-1.0]])
    b = np.array([[2.0, 1.0]])
    c = np.array([[1.0], [1.0]])
    d = np.array([[dzw, 0.0], [0.0, 0.0]])
    return SimpleNamespace(a=a, b=b, c=c, d=d, nw=1, nz=1, dt=0, blocks=[_Block(0)])


def test_sampled_gain_against_closed_form():
    from robustmb.report.loop_sampling import sampled_gain

    # x' = (2 v - 1) x + u, y = x: peak gain 1 / (1 - 2 v) for v < 1/2
    g, where, unresolved = sampled_gain(_scalar_problem(), np.array([[-1.0], [0.0], [0.25]]))
    assert g == pytest.approx(2.0, rel=1e-6) and where.tolist() == [0.25] and unresolved == 0


def test_sampled_gain_fails_only_on_a_confirmed_unstable_pole(monkeypatch):
    import robustmb.analysis.norms as norms
    from robustmb.report.loop_sampling import sampled_gain

    p = _scalar_problem()
    # pole at +1: confirmed unstable
    g, where, _ = sampled_gain(p, np.array([[0.0], [1.0]]))
    assert g == np.inf and where.tolist() == [1.0]
    assert channel_verdict(PartitionReplay("tracking", np.nan, 1, {(0, 0): "x"}, 0.0, g)) == "fail"
    # pole at 0: not stable, not confirmed unstable -> unresolved, no verdict from it
    g, _, unresolved = sampled_gain(p, np.array([[0.5]]))
    assert g == -np.inf and unresolved == 1
    # a stable loop whose norm routine returns inf: unresolved, not 'unstable'
    monkeypatch.setattr(norms, "hinfnorm", lambda sys: (np.inf, 0.0))
    g, _, unresolved = sampled_gain(p, np.array([[-1.0], [0.0]]))
    assert g == -np.inf and unresolved == 2


def test_sampled_gain_ill_posed_sample_is_unresolved():
    from robustmb.report.loop_sampling import sampled_gain

    # z = x + w, w = z: I - Dzw delta singular at delta = 1
    g, where, unresolved = sampled_gain(_scalar_problem(dzw=1.0), np.array([[1.0]]))
    assert g == -np.inf and where is None and unresolved == 1
