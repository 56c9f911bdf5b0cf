"""Cost of hinfsyn's frequency-wise norm check (Fl(P(jw), K(jw)) near the peak).

``hinfsyn`` verifies each candidate controller with ``hinfnorm`` on the closed loop and,
since the stiff-loop fix, also with the peak of ``sigma_max(Fl(P(jw), K(jw)))`` evaluated
from the plant and the controller separately.  This script times ``hinfsyn`` on regular
and singular plants in the same run with the check on and with it switched off (the
module's ``_fl_peak`` replaced by a stub returning nothing), and prints the ratio.

Run: PYTHONPATH=$PWD python benchmarks/bench_hinfsyn_verify.py
"""

import importlib
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "synthesis"))
from _plants import compleib_plant, slicot_plant  # noqa: E402
from _timing import median_time  # noqa: E402

import robustmb as rmb  # noqa: E402

hs = importlib.import_module("robustmb.synthesis.hinfsyn")
warnings.filterwarnings("ignore")


def main():
    cases = [
        ("SB10FD example", *slicot_plant("hinfsyn_slicot_sb10fd_central_controller_gamma15"), 5),
        ("COMPleib AC6 (singular)", *compleib_plant("AC6_data"), 1),
    ]
    real = hs._fl_peak
    print(f"{'plant':26s} {'with check s':>12s} {'without s':>10s} {'ratio':>6s}")
    for name, G, nmeas, ncon, reps in cases:
        hs._fl_peak = real
        t_on = median_time(lambda G=G, a=nmeas, b=ncon: rmb.hinfsyn(G, a, b), reps)
        hs._fl_peak = lambda plant, K, peak: (-np.inf, peak)
        t_off = median_time(lambda G=G, a=nmeas, b=ncon: rmb.hinfsyn(G, a, b), reps)
        hs._fl_peak = real
        print(f"{name:26s} {t_on:12.3f} {t_off:10.3f} {t_on / t_off:6.2f}")


if __name__ == "__main__":
    main()
