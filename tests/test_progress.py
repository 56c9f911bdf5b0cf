"""The text progress bar of the report jobs."""

import io

import pytest

from robustmb._progress import ProgressBar


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_pipe_mode_writes_one_line_per_update():
    out = io.StringIO()
    with ProgressBar(4, "job", stream=out, width=8) as bar:
        bar.start("a")
        bar.advance()
        bar.advance(2, label="b")
        bar.advance(5)  # clipped at the total
    lines = out.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("job [--------] 0/4  a")
    assert lines[1].startswith("job [##------] 1/4  a")
    assert lines[2].startswith("job [######--] 3/4  b")
    assert lines[3].startswith("job [########] 4/4  b")


def test_terminal_mode_redraws_in_place_and_ends_the_line():
    out = _Tty()
    with ProgressBar(2, stream=out) as bar:
        bar.start("long label")
        bar.advance(label="x")
    text = out.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n") and text.count("\n") == 1
    # the shorter second label is padded so no characters of the first remain
    first, second = text.split("\r")[1:]
    assert len(second.rstrip("\n")) >= len(first)


def test_disabled_bar_writes_nothing():
    out = io.StringIO()
    with ProgressBar(3, stream=out, enabled=False) as bar:
        bar.start("a")
        bar.advance()
    assert out.getvalue() == ""


def test_negative_total_is_rejected():
    with pytest.raises(ValueError, match="total"):
        ProgressBar(-1)


def test_note_updates_a_terminal_only():
    out = io.StringIO()
    bar = ProgressBar(1, stream=out)
    bar.note("sample 3/10")
    assert out.getvalue() == "" and bar.label == "sample 3/10"
    tty = _Tty()
    bar = ProgressBar(1, stream=tty)
    bar.note("sample 3/10")
    assert "sample 3/10" in tty.getvalue()


def test_analyses_draw_their_stages(capsys):
    import control

    import robustmb as rmb

    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    rmb.robstab(1 / (s * s + c * s + 1), progress=True)
    rmb.wcgain(1 / (s + c), progress=True)
    err = capsys.readouterr().err.splitlines()
    robstab_lines = [line for line in err if line.startswith("robstab [")]
    wcgain_lines = [line for line in err if line.startswith("wcgain [")]
    assert "certified mu sweep" in robstab_lines[0] and "round 0" in robstab_lines[1]
    assert robstab_lines[-1].startswith("robstab [" + "#" * 24 + "] 3/3  done")
    assert wcgain_lines[-1].startswith("wcgain [" + "#" * 24 + "] 3/3  done")
