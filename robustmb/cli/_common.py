"""What the command line's jobs share: exit statuses and the summary printed after a report."""

from __future__ import annotations

import sys

import numpy as np

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def folder_state(out) -> dict:
    """``{entry name: (inode, modification time)}`` of the folder ``out`` (empty if absent).

    A report is moved into place by renames, so each entry it replaces gets a new inode:
    comparing two states tells whether a new report was installed in between.

    Examples
    --------
    >>> import tempfile
    >>> folder_state(tempfile.mkdtemp())
    {}
    """
    import os

    try:
        with os.scandir(os.path.realpath(out)) as entries:
            return {e.name: (e.inode(), e.stat(follow_symlinks=False).st_mtime_ns) for e in entries}
    except OSError:
        return {}


def report_replaced(out, before) -> bool:
    """Whether the report entries of ``out`` differ from the state ``before`` (a new run).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> report_replaced(folder, folder_state(folder))
    False
    """
    from ..report.writer import REPORT_NAMES

    after = folder_state(out)
    return any(before.get(name) != after.get(name) for name in REPORT_NAMES)


def _fmt(x):
    from ..report.figures import _fmt as fmt

    return fmt(x)


def fmt_lower(x):
    from ..report.bound_format import fmt_lower as fmt

    return fmt(x)


def fmt_upper(x):
    from ..report.bound_format import fmt_upper as fmt

    return fmt(x)


def print_summary(report, stream=None):
    """Print the headline numbers of a report."""
    from ..report.bound_format import fmt_against, fmt_point, fmt_spec

    stream = stream or sys.stdout
    a = report.analysis
    rs = a.robstab
    print(f"  {a.headline()}", file=stream)
    # the overall verdict covers stability and every channel; stability is one part
    print(f"  verdict: {a.performance_verdict} (robust stability: {a.verdict})", file=stream)
    print(
        f"  robust stability margin: [{fmt_lower(rs.lower)}, {fmt_upper(rs.upper)}] "
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
            f"  {ch.name}: worst-case peak gain [{fmt_against(wc.lower, 'lower', ch.spec)}, "
            f"{fmt_against(wc.upper, 'upper', ch.spec)}] at {_fmt(wc.critical_frequency)} rad/s "
            f"(nominal {fmt_point(ch.nominal_peak, ch.spec)})"
            + (
                f"; largest gain realised {fmt_against(ch.worst_found, 'lower', ch.spec)} "
                f"({ch.worst_found_source})"
                if ch.worst_found > wc.lower
                else ""
            )
            + f"; spec <= {fmt_spec(ch.spec)}: nominal {ch.nominal_verdict}, robust {ch.verdict}",
            file=stream,
        )
    if a.margins is not None:
        wm = a.margins
        nom = wm.nominal.multiloop
        print(
            f"  disk margin: nominal {_fmt(nom.alpha)} (gain [{_fmt(nom.gain_margin[0])}, "
            f"{_fmt(nom.gain_margin[1])}], phase +-{_fmt(nom.phase_margin)} deg); worst case "
            f"[{fmt_lower(wm.lower)}, {fmt_upper(wm.upper)}]"
            + (
                f" (gain [{fmt_upper(wm.gain_margin[0])}, {fmt_lower(wm.gain_margin[1])}], "
                f"phase +-{fmt_lower(wm.phase_margin)} deg)"
                if wm.certified
                else " NOT certified"
            ),
            file=stream,
        )
    n = len(a.sample_values)
    if n:
        print(f"  Monte Carlo: {n - a.n_unstable_samples}/{n} samples stable", file=stream)
        for ch in a.channels:
            fin = ch.sampled_peaks[np.isfinite(ch.sampled_peaks)]
            if fin.size:
                print(
                    f"  {ch.name}: sampled peak gain of the {fin.size} stable samples "
                    f"(min / median / max) {_fmt(fin.min())} / {_fmt(np.median(fin))} / "
                    f"{_fmt(fin.max())}",
                    file=stream,
                )
    for text in a.flags():
        print(f"  NOTE: {text}", file=stream)
    failed = [text for text, ok in a.checks() if not ok]
    for text in failed:
        print(f"  CHECK FAILED: {text}", file=stream)
    print(f"  wrote {report.html_path} and {report.json_path.name}", file=stream)
