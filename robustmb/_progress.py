"""A small text progress bar for long computations (analyses, reports).

On a terminal the bar is redrawn in place; on a file or pipe (logs, CI) each
update is one line, so the output stays readable.
"""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """Text progress bar ``[#####-----]  3/7  label  (12.3 s)``.

    Parameters
    ----------
    total : int
        Number of steps.
    title : str
        Printed before the bar.
    stream : file-like, optional
        Where to draw (default ``sys.stderr``).
    enabled : bool
        ``False`` makes every method a no-op.
    width : int
        Number of characters of the bar itself.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with ProgressBar(2, "job", stream=out, width=10) as bar:
    ...     bar.start("first")
    ...     bar.advance()
    ...     bar.start("second")
    ...     bar.advance()
    >>> lines = out.getvalue().splitlines()
    >>> lines[0].startswith("job [----------") and "0/2  first" in lines[0]
    True
    >>> "[##########] 2/2" in lines[-1]
    True
    """

    def __init__(self, total, title="", *, stream=None, enabled=True, width=24):
        if total < 0:
            raise ValueError(f"ProgressBar: total must be >= 0, got {total}")
        self.total = int(total)
        self.title = title
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.width = width if self.total > 0 else 0
        self.done = 0
        self.label = ""
        self._t0 = time.perf_counter()
        self._last_len = 0
        isatty = getattr(self.stream, "isatty", None)
        self._inplace = bool(isatty and isatty())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _render(self) -> str:
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = time.perf_counter() - self._t0
        head = f"{self.title} " if self.title else ""
        return f"{head}[{bar}] {self.done}/{self.total}  {self.label}  ({elapsed:.1f} s)"

    def _draw(self):
        if not self.enabled:
            return
        line = self._render()
        if self._inplace:
            pad = max(0, self._last_len - len(line))
            self.stream.write("\r" + line + " " * pad)
            self._last_len = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def start(self, label):
        """Announce the step now running."""
        self.label = label
        self._draw()

    def note(self, label):
        """Update the label of a running step on a terminal only (no extra log lines)."""
        self.label = label
        if self._inplace:
            self._draw()

    def advance(self, n=1, label=None):
        """Mark ``n`` steps as done (optionally with a new label)."""
        self.done = min(self.total, self.done + n)
        if label is not None:
            self.label = label
        self._draw()

    def close(self):
        """Finish the line (terminal mode)."""
        if self.enabled and self._inplace and self._last_len:
            self.stream.write("\n")
            self.stream.flush()
            self._last_len = 0
