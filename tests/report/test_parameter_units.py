"""Units and meanings the model gives its parameters reach the report (JSON and HTML)."""

import html
import json

import control
import pytest

import robustmb as rmb
from robustmb.errors import UncertainElementError
from robustmb.report.html import render_html
from robustmb.report.worst_case import worst_case_analysis

s = control.tf("s")


def _loop(**described):
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5), **described)
    k = rmb.ureal("k", 1.0, percent=10)
    return k / (s * s + c * s + 1)


def test_units_and_descriptions_in_summary_and_page():
    a = worst_case_analysis(_loop(unit="N s/m", description="damping <coefficient>"), n_samples=0)
    data = json.loads(json.dumps(a.summary()))
    assert data["parameters"]["c"]["unit"] == "N s/m"
    assert data["parameters"]["c"]["description"] == "damping <coefficient>"
    assert "unit" not in data["parameters"]["k"] and "description" not in data["parameters"]["k"]
    page = render_html(a, {})
    assert "<th>unit</th><th>description</th>" in page
    # escaped like every other cell
    assert html.escape("damping <coefficient>") in page and "damping <coefficient>" not in page
    row = page[page.index("<td>c</td>") :].split("</tr>")[0]
    assert "<td>N s/m</td>" in row


def test_no_unit_columns_without_units():
    page = render_html(worst_case_analysis(_loop(), n_samples=0), {})
    assert "<th>unit</th>" not in page and "<th>parameter</th><th>kind</th>" in page


def test_units_describe_but_do_not_define_an_element():
    a = rmb.ureal("m", 2.0, percent=10, unit="kg", description="payload")
    b = rmb.ureal("m", 2.0, percent=10)
    assert a.same_as(b)
    assert (a + b).blocks == {"m": 2}  # one element, two occurrences
    for el in (rmb.ucomplex("z", 1j, unit="-"), rmb.ultidyn("d", 1, description="unmodelled")):
        assert (el.unit, el.description) in (("-", ""), ("", "unmodelled"))


@pytest.mark.parametrize("field", ["unit", "description"])
def test_non_string_unit_is_refused_naming_the_element(field):
    with pytest.raises(UncertainElementError, match=f"{field} of 'm' must be a string"):
        rmb.ureal("m", 2.0, **{field: 3})
