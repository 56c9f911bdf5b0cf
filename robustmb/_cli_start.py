"""Ctrl-C while the ``robustmb`` command imports the package: one line and status 130.

The command's entry point (:func:`robustmb.cli.main`) can only run once Python has
imported the package (NumPy, SciPy, python-control: a few seconds), so it cannot catch a
``KeyboardInterrupt`` raised during that import.  This module is the first one the
package imports: when the process is the command (the ``robustmb`` console script,
``python -m robustmb`` or ``python -m robustmb.cli``) it installs a SIGINT handler that
prints one line and exits with status 130; :func:`robustmb.cli.main` puts Python's
default handler back as it starts, and handles Ctrl-C itself from then on.  In any other
process (a script or a notebook importing robustmb) nothing is changed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as robustmb.cli._common
MESSAGE = "robustmb: interrupted while starting; nothing was read or written"
_COMMAND_MODULES = ("robustmb", "robustmb.cli", "robustmb.__main__", "robustmb.cli.__main__")


def is_command(argv=None, orig_argv=None) -> bool:
    """Whether this process is the ``robustmb`` command, from its command line.

    Examples
    --------
    >>> is_command(["/usr/bin/robustmb", "demo"], ["python3", "/usr/bin/robustmb", "demo"])
    True
    >>> is_command(["-m", "demo"], ["python3", "-m", "robustmb", "demo"])
    True
    >>> is_command(["-m"], ["python3", "-X", "importtime", "-m", "robustmb.cli"])
    True
    >>> is_command(["-m"], ["python3", "-m", "pytest", "tests"])
    False
    >>> is_command(["script.py"], ["python3", "script.py"])
    False
    """
    argv = sys.argv if argv is None else argv
    orig_argv = getattr(sys, "orig_argv", []) if orig_argv is None else orig_argv
    if argv:
        name = os.path.basename(str(argv[0])).lower()
        for suffix in (".exe", "-script.py", "-script.pyw"):
            name = name.removesuffix(suffix)
        if name == "robustmb":  # the console script (pip's wrapper names argv[0] so)
            return True
    # python -m robustmb[.cli]: the interpreter's options end at -m MODULE (or -mMODULE)
    skip = False
    for k, arg in enumerate(orig_argv[1:], start=1):
        if skip:  # the value of -X, -W or --check-hash-based-pycs
            skip = False
            continue
        if arg in ("-X", "-W", "--check-hash-based-pycs"):
            skip = True
            continue
        if arg == "-m":
            return k + 1 < len(orig_argv) and orig_argv[k + 1] in _COMMAND_MODULES
        if arg.startswith("-m"):
            return arg[2:] in _COMMAND_MODULES
        if not arg.startswith("-") or arg in ("-", "-c"):
            return False  # a script, -c code or stdin: not the command
    return False


def _interrupted(signum, frame):
    print(f"\n{MESSAGE}", file=sys.stderr)
    raise SystemExit(EXIT_INTERRUPTED)


def install() -> bool:
    """Install the start-up handler in the command's process; True if installed."""
    if not is_command() or threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False  # SIGINT ignored (a background job) or handled by the caller
    signal.signal(signal.SIGINT, _interrupted)
    return True


def restore() -> None:
    """Put back Python's default SIGINT handler if the start-up one is in place."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


install()
