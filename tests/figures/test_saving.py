"""Every figure file carries its data beside it and its provenance inside it."""

import csv
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from matplotlib.figure import Figure

from rnnaudit.figures.saving import attach_data, data_path, save_figure
from rnnaudit.provenance import figure_provenance, recorded_seed


def _figure(data=None):
    fig = Figure()
    fig.subplots().plot([1, 2, 3], [4.0, 5.0, 6.5])
    if data is not None:
        attach_data(fig, data)
    return fig


def test_a_figures_table_is_written_beside_it_as_csv_and_reads_back_exactly(tmp_path):
    y = np.array([0.1, 1 / 3, np.inf])
    save_figure(_figure({"step": np.array([0, 10, 20]), "ratio": y, "short": np.array([2.5])}), tmp_path / "f.png")
    rows = list(csv.reader((tmp_path / "f.csv").open()))
    assert rows[0] == ["step", "ratio", "short"]
    assert [r[0] for r in rows[1:]] == ["0", "10", "20"]
    np.testing.assert_array_equal([float(r[1]) for r in rows[1:]], y)  # shortest round-trip text: bit for bit
    assert [r[2] for r in rows[1:]] == ["2.5", "", ""]  # a shorter column ends in empty cells


def test_a_map_is_written_beside_its_figure_as_npz(tmp_path):
    m = np.tril(np.random.default_rng(0).random((5, 5)))
    save_figure(_figure({"SGORNN": m}), tmp_path / "heat.pdf")
    assert data_path(tmp_path / "heat.pdf", {"SGORNN": m}) == tmp_path / "heat.npz"
    np.testing.assert_array_equal(np.load(tmp_path / "heat.npz")["SGORNN"], m)
    assert not (tmp_path / "heat.csv").exists()


def test_a_figure_without_data_writes_no_data_file(tmp_path):
    save_figure(_figure(), tmp_path / "f.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png"]


def test_png_carries_version_commit_command_and_seed_as_text_chunks(tmp_path):
    from PIL import Image

    with recorded_seed(7):
        save_figure(_figure(), tmp_path / "f.png")
    text = Image.open(tmp_path / "f.png").text
    expected = figure_provenance(seed=7)
    assert {k: text[k] for k in ("rnnaudit", "commit", "command", "seed")} == expected
    assert text["seed"] == "7" and text["rnnaudit"] and text["Software"].startswith("rnnaudit ")


def test_pdf_and_svg_carry_the_provenance_in_their_metadata_fields(tmp_path):
    fields = {"rnnaudit": "9.9.9", "commit": "abc123", "command": "rnnaudit heatmap sgornn", "seed": "3"}
    save_figure(_figure(), tmp_path / "f.pdf", provenance=fields)
    raw = (tmp_path / "f.pdf").read_bytes()
    # the document information dictionary is written uncompressed, its strings with \( \) escaped
    info = raw.replace(b"\\(", b"(").replace(b"\\)", b")")
    assert b"/Creator (rnnaudit 9.9.9 (commit abc123))" in info and b"/Subject (rnnaudit heatmap sgornn)" in info
    assert re.search(rb"/Keywords \([^)]*seed=3", info)
    save_figure(_figure(), tmp_path / "f.svg", provenance=fields)
    root = ET.parse(tmp_path / "f.svg").getroot()
    text = " ".join(t.strip() for t in root.itertext() if t.strip())
    assert "rnnaudit 9.9.9 (commit abc123)" in text and "rnnaudit heatmap sgornn" in text and "seed=3" in text


def test_without_a_recorded_seed_the_metadata_says_none():
    assert figure_provenance()["seed"] == "none"
    with recorded_seed(0):
        assert figure_provenance()["seed"] == "0"
    assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?|none", figure_provenance()["commit"])


def test_attach_data_refuses_what_is_not_a_dict_of_names():
    with pytest.raises(TypeError, match="data"):
        attach_data(Figure(), [1, 2])
    with pytest.raises(TypeError, match="data"):
        attach_data(Figure(), {1: [1.0]})
