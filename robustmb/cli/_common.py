"""What the command line's jobs share: exit statuses and the summary printed after a report."""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def _fmt(x):
    from ..report.figures import _fmt as fmt

    return fmt(x)


def print_summary(report, stream=None):
    """Print the headline numbers of a report."""
    stream = stream or sys.stdout
    a = report.analysis
    rs = a.robstab
    print(f"  {a.headline()}", file=stream)
    # the overall verdict covers stability and every channel; stability is one part
    print(f"  verdict: {a.performance_verdict} (robust stability: {a.verdict})", file=stream)
    print(
        f"  robust stability margin: [{_fmt(rs.lower)}, {_fmt(rs.upper)}] "
        f"(1 = declared ranges), critical frequency {_fmt(rs.critical_frequency)} rad/s",
        file=stream,
    )
    if rs.destabilizing:
        vals = ", ".join(
            f"{k} = {v:.4g}" for k, v in rs.destabilizing.items() if isinstance(v, int | float)
        )
        if vals:
            print(f"  destabilising values: {vals}", file=stream)
    for ch in a.channels:
        wc = ch.wcgain
        print(
            f"  {ch.name}: worst-case peak gain [{_fmt(wc.lower)}, {_fmt(wc.upper)}] at "
            f"{_fmt(wc.critical_frequency)} rad/s (nominal {_fmt(ch.nominal_peak)})"
            + (
                f"; largest gain realised {_fmt(ch.worst_found)} ({ch.worst_found_source})"
                if ch.worst_found > wc.lower
                else ""
            )
            + f"; spec <= {_fmt(ch.spec)}: nominal {ch.nominal_verdict}, robust {ch.verdict}",
            file=stream,
        )
    if a.margins is not None:
        wm = a.margins
        nom = wm.nominal.multiloop
        print(
            f"  disk margin: nominal {_fmt(nom.alpha)} (gain [{_fmt(nom.gain_margin[0])}, "
            f"{_fmt(nom.gain_margin[1])}], phase +-{_fmt(nom.phase_margin)} deg); worst case "
            f"[{_fmt(wm.lower)}, {_fmt(wm.upper)}] (gain [{_fmt(wm.gain_margin[0])}, "
            f"{_fmt(wm.gain_margin[1])}], phase +-{_fmt(wm.phase_margin)} deg)",
            file=stream,
        )
    n = len(a.sample_values)
    if n:
        print(f"  Monte Carlo: {n - a.n_unstable_samples}/{n} samples stable", file=stream)
    for text in a.flags():
        print(f"  NOTE: {text}", file=stream)
    failed = [text for text, ok in a.checks() if not ok]
    for text in failed:
        print(f"  CHECK FAILED: {text}", file=stream)
    print(f"  wrote {report.html_path} and {report.json_path.name}", file=stream)
