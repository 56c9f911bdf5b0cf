"""``worst_case_report``: run the analysis and write the HTML page, JSON summary and figures."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import shutil
import signal
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from .._progress import ProgressBar
from ..errors import ArgumentError, ReportInstallError
from .figures import figure_png, report_figures
from .html import render_html
from .worst_case import WorstCaseAnalysis, normalize_channels, worst_case_analysis

HTML_NAME = "report.html"
JSON_NAME = "summary.json"
FIGURE_DIR = "figures"
MD_NAME = "report.md"
# Every entry any robustmb report writer puts in a report folder (the worst-case report:
# page, summary, figures; the arm replay: page, summary, text report).  A new run into a
# folder removes those of them it does not write itself, so that no folder mixes two
# runs; any other file there is the user's and is kept.
REPORT_NAMES = frozenset({HTML_NAME, JSON_NAME, FIGURE_DIR, MD_NAME})


@dataclass
class WorstCaseReport:
    """What :func:`worst_case_report` wrote.

    Attributes
    ----------
    analysis : WorstCaseAnalysis
    html_path, json_path : pathlib.Path
    figure_paths : dict
        ``{key: path}`` of the PNG figures (also embedded in the HTML page).
    """

    analysis: WorstCaseAnalysis
    html_path: Path
    json_path: Path
    figure_paths: dict
    run_id: str = ""


# Ctrl-C and the polite stop request: both are held while report entries are renamed.
_HELD_SIGNALS = tuple(
    sig for sig in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if sig
)


@contextlib.contextmanager
def _interrupts_deferred():
    """Hold Ctrl-C (SIGINT) and SIGTERM until the block ends: renames are not cut.

    A held Ctrl-C is raised as ``KeyboardInterrupt`` once the block ends (unless an
    exception is already in flight), so a script looping over reports still stops;
    the folder then holds one whole run, the new one when the renames completed (the
    command line tells the two cases apart by comparing the folder).  A held SIGTERM
    is delivered again once the handlers are restored, so the process still stops,
    after the folder is consistent.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = {sig: signal.signal(sig, lambda s, frame: caught.append(s)) for sig in _HELD_SIGNALS}
    failed = True
    try:
        yield
        failed = False
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if getattr(signal, "SIGTERM", None) in caught:
            signal.raise_signal(signal.SIGTERM)
        if signal.SIGINT in caught and not failed:
            raise KeyboardInterrupt


_OURS = {HTML_NAME, JSON_NAME, FIGURE_DIR}


def install_files(tmp: Path, out: Path, run_id: str, names=frozenset(_OURS)):
    """Move the finished entries ``names`` of the folder ``tmp`` to ``out``, replacing
    a previous run.

    The previous run is every entry of ``out`` named in :data:`REPORT_NAMES` or
    ``names``: those the new run does not write are removed with the rest (a text
    report of another writer, say), so ``out`` never mixes two runs.  A missing
    ``out``, or one holding only such entries, is swapped whole (two renames);
    otherwise the entries are replaced one by one and other files are kept.
    A symbolic link ``out`` is followed: the folder it points to is replaced and the
    link kept.  The new folder gets the usual permissions (``0o777`` less the umask).

    If a rename fails, the entries already moved are moved back before the error
    propagates, so ``out`` holds the whole previous run (and ``tmp`` the new one).
    Ctrl-C and SIGTERM are held meanwhile and delivered at the end, once ``out``
    holds one whole run (the new one when the renames completed): a Ctrl-C as
    ``KeyboardInterrupt`` (unless a rename failed: then that error propagates).  Used by
    :func:`worst_case_report` (its page, summary and figures) and by the arm replay
    (:func:`robustmb.report.arm_certificate.certified_demo`).

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "new").mkdir()
    >>> _ = (root / "new" / "a.txt").write_text("run 2")
    >>> install_files(root / "new", root / "out", "run2", names={"a.txt"})
    >>> (root / "out" / "a.txt").read_text()
    'run 2'
    """
    # A symlinked out is installed at its target: the link stays and points at the new run.
    full = Path(out).resolve()
    check_out_dir(full, "out_dir")
    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp made it private (0700)
    with _interrupts_deferred():
        if not full.exists():
            os.replace(tmp, full)
            return
        old = full.parent / f".{full.name}.old-{run_id}"
        whole = full != Path.cwd().resolve()
        try:
            previous = REPORT_NAMES | set(names)
            if whole and {p.name for p in full.iterdir()} <= previous:
                _swap_whole(tmp, full, old)
            else:
                _swap_entries(tmp, full, old, previous, names)
            shutil.rmtree(old, ignore_errors=True)
        finally:
            # a failure before anything moved leaves an empty folder: never a stray one
            with contextlib.suppress(OSError):
                old.rmdir()


def _swap_whole(tmp, full, old):
    """``full`` becomes ``old`` and ``tmp`` becomes ``full``; a failed second rename is undone."""
    os.replace(full, old)
    try:
        os.replace(tmp, full)
    except BaseException as exc:
        if _undo([(old, full)]):
            raise _not_undone(exc, full, old, tmp, [full.name]) from exc
        raise


def _swap_entries(tmp, full, old, previous, names):
    """Entries ``previous`` of ``full`` go to ``old``, entries ``names`` of ``tmp`` to ``full``.

    Every rename done is recorded, so a failure moves the entries back (the new ones
    to ``tmp``, then the old ones to ``full``) and ``full`` holds the previous run whole.
    """
    old.mkdir()
    saved, placed = [], []
    try:
        for name in sorted(previous):
            if os.path.lexists(full / name):
                os.replace(full / name, old / name)
                saved.append(name)
        for name in sorted(names):
            os.replace(tmp / name, full / name)
            placed.append(name)
    except BaseException as exc:
        back = [(full / n, tmp / n) for n in reversed(placed)]
        back += [(old / n, full / n) for n in reversed(saved)]
        stuck = _undo(back)
        if stuck:
            raise _not_undone(exc, full, old, tmp, stuck) from exc
        raise
    with contextlib.suppress(OSError):  # the run is in place; worst_case_report removes tmp
        tmp.rmdir()


def _undo(moves):
    """Each rename ``(src, dst)`` tried in turn, whatever the others do; the names of
    the entries that could not be moved back."""
    stuck = []
    for src, dst in moves:
        try:
            os.replace(src, dst)
        except OSError:
            stuck.append(src.name)
    return stuck


def _not_undone(exc, full, old, tmp, stuck):
    """The error of an install whose undo failed too: where each run's entries are."""
    return ReportInstallError(
        f"installing the report in {full} failed ({exc!r}) and moving back {sorted(stuck)} "
        f"failed too: the previous run's entries are in {full} and {old}, the new run's in "
        f"{full} and {tmp}; nothing was deleted"
    )


def _umask() -> int:
    """The process's file-creation mask."""
    # Linux states it; elsewhere it is read by setting it and restoring it at once
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_out_dir(out, name="out_dir"):
    """Refuse an output path that exists but is not a folder (a file, say), or that
    cannot be written: a file where a parent folder would be, a folder without write
    permission.  Called before the analysis, whose results could not be saved.

    The report is written into a temporary folder beside ``out``, so a temporary folder
    is created (and removed at once) in the nearest existing parent of ``out``.

    Examples
    --------
    >>> import tempfile
    >>> check_out_dir(Path(tempfile.mkdtemp()) / "new-report")
    """
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ArgumentError(f"{name} {str(out)!r} exists and is not a folder")
    parent = path.resolve().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ArgumentError(
            f"{name} {str(out)!r} cannot be created: {str(parent)!r} is not a folder"
        )
    try:
        os.rmdir(tempfile.mkdtemp(prefix=f".{path.name}.check-", dir=parent))
    except OSError as exc:
        raise ArgumentError(
            f"{name} {str(out)!r} cannot be written: no folder can be created in "
            f"{str(parent)!r} ({exc.strerror or exc})"
        ) from None


def worst_case_report(
    system,
    channels=None,
    *,
    out_dir="robustmb-report",
    n_samples=100,
    seed=0,
    omega=None,
    title=None,
    notes="",
    progress=False,
    loop=None,
    loop_description="",
    step=None,
    certificates=None,
):
    """Analyse an uncertain closed loop and write its worst-case report.

    Runs :func:`~robustmb.report.worst_case.worst_case_analysis` (nominal
    stability, robust stability margin with mu bounds and parameter
    sensitivity, worst-case gains of the channels, Monte Carlo samples), then
    writes into ``out_dir``:

    - ``report.html``: a self-contained page (figures embedded);
    - ``summary.json``: every number, with the worst-case parameter values;
    - ``figures/*.png``: the figures (mu bounds, singular values, margins
      table, sensitivity).

    The files are written into a temporary folder beside ``out_dir`` and moved
    into place only once complete, so an interrupted run leaves the previous
    report untouched and never a folder mixing two runs.  ``summary.json`` and
    the page carry the same run id and UTC timestamp.

    Parameters
    ----------
    system : UncertainSystem
        Uncertain closed loop.
    channels : dict, optional
        ``{name: (outputs, inputs)}`` performance channels (default: every input
        to every output).
    out_dir : str or pathlib.Path
        Output folder (created if needed).
    n_samples, seed : int
        Monte Carlo samples and their seed.
    omega : array_like, optional
        Restrict ``robstab`` / ``wcgain`` to these frequencies (default: whole axis).
    title, notes : str, optional
        Page title and a free-text paragraph.
    progress : bool
        Show a progress bar on standard error.
    step : tuple, optional
        ``(outputs, inputs)`` of the step-response figure.
    loop, loop_description : optional
        Uncertain loop transfer (or ``(P, C)``) for the nominal and worst-case
        disk, gain and phase margins; see
        :func:`~robustmb.report.worst_case.worst_case_analysis`.
    certificates : dict, optional
        Channel certificates already computed; see
        :func:`~robustmb.report.worst_case.worst_case_analysis`.

    Returns
    -------
    WorstCaseReport

    Raises
    ------
    UncertainTypeError, SignalError, UnstableNominalError
        See :func:`~robustmb.report.worst_case.worst_case_analysis`.
    ArgumentError
        ``out_dir`` is not a path, exists and is not a folder, or cannot be written
        (checked before the analysis); a bad ``seed``, specification or certificate.

    Examples
    --------
    >>> import json, tempfile, control
    >>> import robustmb as rmb
    >>> from robustmb.report import worst_case_report
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> s = control.tf("s")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     rep = worst_case_report(1 / (s * s + c * s + 1), {}, out_dir=tmp, n_samples=5)
    ...     summary = json.loads(rep.json_path.read_text())
    >>> lower = float(rep.analysis.robstab.lower)
    >>> summary["verdict"], summary["robust_stability"]["verdict"]
    ('pass', 'robustly stable')
    >>> summary["robust_stability"]["lower"] == lower
    True
    """
    if not isinstance(out_dir, str | os.PathLike):
        raise ArgumentError(f"worst_case_report: out_dir must be a path, got {out_dir!r}")
    out = Path(out_dir)
    check_out_dir(out)  # before the analysis: a file there would only fail at the end
    n_channels = len(normalize_channels(system, channels)) if hasattr(system, "input_names") else 1
    bar = ProgressBar(3 + n_channels + 2, "robustmb report", enabled=bool(progress))
    try:
        analysis = worst_case_analysis(
            system,
            channels,
            n_samples=n_samples,
            seed=seed,
            omega=omega,
            title=title,
            notes=notes,
            progress=bar,
            loop=loop,
            loop_description=loop_description,
            step=step,
            certificates=certificates,
        )
        bar.start("figures")
        t0 = time.perf_counter()
        figs = report_figures(analysis)
        pngs = {key: figure_png(fig) for key, fig in figs.items()}
        analysis.timings["figures"] = time.perf_counter() - t0
        bar.advance()
        bar.start("writing files")
        run = {
            "id": uuid.uuid4().hex[:12],
            "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        summary = {"run": run} | analysis.summary()
        full = out.resolve()
        full.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{full.name}.tmp-", dir=full.parent))
        try:
            (tmp / FIGURE_DIR).mkdir()
            for key, png in pngs.items():
                (tmp / FIGURE_DIR / f"{key}.png").write_bytes(png)
            (tmp / JSON_NAME).write_text(json.dumps(summary, indent=1, allow_nan=False))
            page = render_html(analysis, pngs, json_name=JSON_NAME, run=run)
            (tmp / HTML_NAME).write_text(page, encoding="utf-8")
            install_files(tmp, out, run["id"])
        except ReportInstallError:
            tmp = None  # holds part of a run the error names: kept
            raise
        finally:
            # gone once installed whole; otherwise what is left of the new run
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
        figure_paths = {key: out / FIGURE_DIR / f"{key}.png" for key in pngs}
        json_path = out / JSON_NAME
        html_path = out / HTML_NAME
        bar.advance(label=f"wrote {html_path}")
    finally:
        bar.close()
    return WorstCaseReport(analysis, html_path, json_path, figure_paths, run["id"])
