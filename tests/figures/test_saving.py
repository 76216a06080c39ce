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


def test_a_data_file_that_cannot_be_written_leaves_neither_it_nor_the_figure(tmp_path):
    fig = Figure()
    fig.subplots().plot([0, 1])
    attach_data(fig, {"map": np.eye(2)})
    (tmp_path / "h.npz").mkdir()  # where the data go: os.replace cannot put a file there
    with pytest.raises(OSError):
        save_figure(fig, tmp_path / "h.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.npz"] and not any((tmp_path / "h.npz").iterdir())


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


def test_a_maps_names_are_plain_identifiers_and_its_labels_a_json_entry(tmp_path):
    """An .npz named its heatmap by the colour bar's LaTeX label; now a name is an ASCII identifier and the label
    goes in the entry 'labels', JSON text read without pickle. A LaTeX name, or one named 'labels', is refused."""
    import json

    from rnnaudit.figures.saving import read_labels

    m = np.tril(np.ones((3, 3)))
    label = r"$\|\partial h_t/\partial h_s\|_2$, h block"
    save_figure(_figure(None), tmp_path / "plain.png")
    fig = _figure(None)
    attach_data(fig, {"jacobian_norm": m, "t": np.arange(3)}, labels={"jacobian_norm": label})
    save_figure(fig, tmp_path / "heat.png")
    with np.load(tmp_path / "heat.npz", allow_pickle=False) as f:
        assert sorted(f.files) == ["jacobian_norm", "labels", "t"]
        assert json.loads(str(f["labels"])) == {"jacobian_norm": label} == read_labels(f)
    for bad in ({label: m}, {"labels": m}, {"W_hr/eigenvalues": m}):
        with pytest.raises(ValueError, match="identifiers"):
            attach_data(Figure(), bad)
    with pytest.raises(ValueError, match="labels name"):
        attach_data(Figure(), {"a": m}, labels={"b": "x"})
    attach_data(Figure(), {"grad/W/max": np.arange(3)})  # a table's (csv) column names stay free


@pytest.mark.slow
def test_a_heatmaps_data_file_holds_the_map_and_its_steps_under_plain_names(tmp_path):
    """jacobian_norm[i, j] is at t = t[i], s = s[j]; on a grid those are the grid's steps. ENRNN's two panels end
    in their block (h_L, h_S)."""
    import torch

    from rnnaudit.cells import ENRNN, FastRNN
    from rnnaudit.figures.heatmap import plot_jacobian_heatmaps

    cell = FastRNN(2, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    x = torch.rand(9, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    save_figure(plot_jacobian_heatmaps(cell, x, grid=4), tmp_path / "grid.png")
    with np.load(tmp_path / "grid.npz", allow_pickle=False) as f:
        assert set(f.files) == {"jacobian_norm", "t", "s", "rtol", "sequences", "labels"}  # rtol: the certified values' error
        assert f["jacobian_norm"].shape == (f["t"].size, f["s"].size) and f["t"][-1] == 9
    enrnn = ENRNN(2, 3, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    save_figure(plot_jacobian_heatmaps(enrnn, x, kind="input"), tmp_path / "enrnn.png")
    with np.load(tmp_path / "enrnn.npz", allow_pickle=False) as f:
        assert {"jacobian_norm_h_L", "jacobian_norm_h_S", "tau_h_L", "t_h_S"} <= set(f.files)
        assert all(k.isascii() and k.isidentifier() for k in f.files)
