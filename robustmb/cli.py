"""The ``robustmb`` command line.

``robustmb demo`` builds an uncertain closed loop with the LFT core, prints
its uncertainty structure before and after Delta-reduction, its nominal and
sampled poles, and writes a Bode plot of random samples.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def _demo_loop():
    """Uncertain mass-spring-damper under PD control (Zhou, Doyle & Glover's plant)."""
    import control

    import robustmb as rmb

    m = rmb.ureal("m", 2.0, percent=10)
    c = rmb.ureal("c", 1.0, percent=20)
    k = rmb.ureal("k", 10.0, percent=30)
    plant = rmb.uss([[0, 1], [-k / m, -c / m]], [[0], [1 / m]], [[1, 0]], [[0]])
    plant.input_names, plant.output_names = ["force"], ["position"]
    s = control.tf("s")
    controller = control.ss(20 * (1 + 0.5 * s / (1 + 0.01 * s)))
    loop = rmb.feedback(plant @ controller, 1.0)
    loop.input_names, loop.output_names = ["reference"], ["position"]
    return loop


def demo(out_dir: Path, n_samples: int, show_progress: bool = True) -> int:
    """Run the demonstration; returns the exit status."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import robustmb as rmb

    loop = _demo_loop()
    print("robustmb demo: uncertain mass-spring-damper under PD control")
    print(f"  closed loop: {loop.nstates} states, occurrences {loop.blocks}")
    reduced = rmb.simplify(loop)
    print(f"  after simplify: occurrences {reduced.blocks}")
    for name, el in reduced.uncertainty.items():
        print(f"    {name}: nominal {el.nominal:g}, range [{el.range[0]:g}, {el.range[1]:g}]")
    nominal = reduced.nominal()
    print(f"  nominal poles: {np.array2string(np.sort_complex(nominal.poles()), precision=3)}")
    samples, values = reduced.usample(n_samples, seed=0)
    worst = max(samples, key=lambda smp: max(smp.poles().real))
    print(f"  {n_samples} samples: largest pole real part "
          f"{max(worst.poles().real):.4f} (nominal {max(nominal.poles().real):.4f})")
    out_dir.mkdir(parents=True, exist_ok=True)
    w = np.logspace(-1, 3, 400)
    fig, ax = plt.subplots(figsize=(7, 4))
    for smp in samples:
        ax.loglog(w, np.abs(np.asarray(smp(1j * w)).ravel()), color="0.75", lw=0.7)
    ax.loglog(w, np.abs(np.asarray(nominal(1j * w)).ravel()), color="C0", lw=2, label="nominal")
    ax.set_xlabel("frequency (rad/s)")
    ax.set_ylabel("|T(jw)|")
    ax.set_title(f"Closed loop: nominal and {n_samples} samples")
    ax.legend()
    path = out_dir / "demo_bode.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"  wrote {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="robustmb",
        description="Robust control of multibody systems: uncertain LFT models and analysis.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_demo = sub.add_parser("demo", help="demonstrate the uncertain-model core",
                            description="Build an uncertain closed loop and plot samples.")
    p_demo.add_argument("--out", type=Path, default=Path("robustmb-demo"),
                        help="folder for the figures (default: ./robustmb-demo)")
    p_demo.add_argument("--samples", type=int, default=50,
                        help="number of random samples (default: 50)")
    return parser


def main(argv=None) -> int:
    """Entry point of the ``robustmb`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "demo":
        if args.samples < 1:
            parser.error("--samples must be a positive integer")
        return demo(args.out, args.samples)
    parser.error(f"unknown command {args.command}")  # pragma: no cover
    return 2


if __name__ == "__main__":
    sys.exit(main())
