"""The documentation site: its API reference lists every public name, and it builds
with Sphinx with warnings as errors (examples gallery included)."""

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _api_pages():
    spec = importlib.util.spec_from_file_location("api_pages", DOCS / "api_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_reference_lists_every_public_name(tmp_path):
    api = _api_pages()
    written = api.write_api_pages(tmp_path)
    # Read back what the pages list: (page module, name) under each autosummary.
    listed = set()
    for page in written:
        if page.name == "index.rst":
            continue
        module = importlib.import_module(page.stem)
        lines = page.read_text().splitlines()
        assert f".. automodule:: {page.stem}" in lines
        if ".. autosummary::" in lines:
            for line in lines[lines.index(".. autosummary::") + 1 :]:
                if line.strip() and not line.strip().startswith(":"):
                    listed.add(id(getattr(module, line.strip())))
    index = (tmp_path / "index.rst").read_text()
    for modname, _ in api.MODULES:
        assert f"   {modname}" in index
        module = importlib.import_module(modname)
        for name in api.public_names(module):
            obj = getattr(module, name)
            if isinstance(obj, type(sys)):
                assert f"   {obj.__name__}" in index, f"module {obj.__name__} has no page"
            else:
                assert id(obj) in listed, f"{modname}.{name} is missing from the API reference"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built with warnings as errors (``sphinx-build -W``)."""
    for dep in ("sphinx", "numpydoc", "pydata_sphinx_theme", "myst_parser", "sphinx_gallery"):
        pytest.importorskip(dep, reason=f'{dep} is not installed (pip install -e ".[docs]")')
    out = tmp_path_factory.mktemp("site") / "html"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-b",
            "html",
            "-q",
            str(DOCS),
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr[-4000:]
    return out


@pytest.mark.slow
def test_site_builds_without_warnings(site):
    for page in (
        "index.html",
        "matlab.html",
        "plots.html",
        "analysis.html",
        "api/robustmb.plotting.html",
        "api/generated/robustmb.plotting.bode.html",
        "api/generated/robustmb.wcgain.html",
        "auto_examples/plot_uncertain_msd.html",
    ):
        assert (site / page).exists(), page
    # The gallery ran its scripts: their figures are in the page.
    gallery = (site / "auto_examples/plot_uncertain_msd.html").read_text()
    assert gallery.count("sphx_glr_plot_uncertain_msd_") >= 4
    # numpydoc parsed the docstrings' sections; maths goes to MathJax.
    bode = (site / "api/generated/robustmb.plotting.bode.html").read_text()
    assert "Parameters" in bode and "worst" in bode
    assert "mathjax" in (site / "analysis.html").read_text().lower()


BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")


@pytest.mark.slow
@pytest.mark.parametrize("page", ["index.html", "auto_examples/plot_uncertain_msd.html"])
def test_site_opens_in_a_browser(site, page, tmp_path):
    import shutil

    browser = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip(f"no headless browser installed (looked for {', '.join(BROWSERS)})")
    shot = tmp_path / "page.png"
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            "--window-size=1280,900",
            (site / page).as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    import matplotlib.image

    img = matplotlib.image.imread(shot)
    assert img.shape[:2] == (900, 1280)
    # A rendered page, not a blank one: many distinct colours (text, code, figures).
    colours = np.unique((img[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 50


@pytest.mark.slow
def test_maths_renders_without_network(site):
    # MathJax is copied into the build (sphinx-mathjax-offline), so a site opened from disk
    # on an offline machine still typesets its maths; every math span becomes MathJax output.
    import re
    import shutil

    if importlib.util.find_spec("sphinx-mathjax-offline") is None:
        pytest.skip("sphinx-mathjax-offline is not installed: the site loads MathJax from its CDN")
    page = site / "auto_examples/plot_uncertain_msd.html"
    text = page.read_text()
    src = re.search(r'<script[^>]*src="([^"]*mathjax[^"]*)"', text).group(1)
    assert "://" not in src and (page.parent / src).exists()
    browser = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip(f"no headless browser installed (looked for {', '.join(BROWSERS)})")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    n_math = len(re.findall(r'class="math notranslate', text))
    assert n_math >= 3 and dom.count("<mjx-container") == n_math


@pytest.mark.parametrize("page", ["analysis.md", "plots.md", "decoupling.md"])
def test_guide_code_runs(page, tmp_path, monkeypatch):
    import re

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    namespace = {}
    for code in re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S):
        exec(compile(code, page, "exec"), namespace)
    plt.close("all")
    if page == "analysis.md":
        # The numbers the page states: c = 0 is two half-ranges from the centre, and
        # the worst-case peak 1 / (c sqrt(1 - c^2/4)) at c = 0.5.
        rs = namespace["rs"]
        assert rs.lower <= 2.0 * (1 + 1e-9) and 2.0 <= rs.upper * (1 + 1e-9)
        exact = 1 / (0.5 * (1 - 0.0625) ** 0.5)
        assert namespace["wc"].lower <= exact * (1 + 1e-9) <= namespace["wc"].upper
    if page == "decoupling.md":
        # What the page states, from python-control's response of the decoupled plants.
        import control

        def ratios(plant):
            H = np.abs(control.frequency_response(plant, namespace["w"], squeeze=False).fresp)
            H = np.moveaxis(H, -1, 0)[:, :3, :3]
            diag = np.diagonal(H, axis1=1, axis2=2)
            return (H.sum(axis=2) - diag) / diag

        svd_ratios, jac_ratios = ratios(namespace["svd"].plant), ratios(namespace["jac"].plant)
        assert np.all(svd_ratios[2:] < 0.05)  # at and above 10 Hz
        assert np.all(jac_ratios[[0, 2, 3]].max(axis=1) < 1) and jac_ratios[1].max() > 1


def test_guides_name_only_existing_functions():
    import re

    import robustmb as rmb

    for page in ("matlab.md", "plots.md", "analysis.md", "index.md"):
        text = (DOCS / page).read_text()
        for dotted in set(re.findall(r"\brmb\.([A-Za-z_][\w.]*)\(", text)):
            obj = rmb
            for part in dotted.split("."):
                assert hasattr(obj, part), f"{page} names rmb.{dotted}, which does not exist"
                obj = getattr(obj, part)
        rows = re.findall(r"^\| `rmb\.plotting\.(\w+)|^\| `(\w+)\(usys", text, flags=re.M)
        for a, b in rows:
            assert hasattr(rmb.plotting, a or b), f"{page} names plotting.{a or b}"


def test_readme_points_to_the_site_and_the_gallery():
    import re

    readme = (DOCS.parent / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    local = [link for link in links if "://" not in link]
    for link in local:  # every relative link of the README resolves in the repository
        assert (DOCS.parent / link).exists(), f"README links to {link}, which does not exist"
    assert "docs/index.md" in local and "docs/examples/" in local
    gallery = {p.name for p in (DOCS / "examples").glob("plot_*.py")}
    assert any(link.endswith(tuple(gallery)) for link in local)
    assert "sphinx-build docs" in readme
