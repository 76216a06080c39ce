"""``rnnaudit check`` end to end on a small profile, its errors, and the atomic report files."""

import json

import pytest
import torch

import rnnaudit.cli as cli
from rnnaudit.bounds import PROFILES, Profile
from rnnaudit.figures.report import write_results
from tests.conftest import cli_status

SCHEMA_TOP = {"format_version", "rnnaudit_version", "created", "device", "dtype", "seed", "claims"}
SCHEMA_CLAIM = {"id", "paper", "source", "statement", "assumptions", "verdict", "worst_ratio", "n_cases",
                "counterexample", "notes"}


def test_results_json_follows_the_schema(report_dir):
    doc = json.loads((report_dir / "results.json").read_text())
    assert SCHEMA_TOP <= doc.keys() and doc["dtype"] == "float64" and doc["seed"] == 7
    ids = [c["id"] for c in doc["claims"]]
    assert {"sgornn.hidden_state", "sgornn.theorem2", "sgornn.corollary1"} <= set(ids)
    for c in doc["claims"]:
        assert SCHEMA_CLAIM <= c.keys()
        assert c["verdict"] in ("holds", "false", "misprinted", "vacuous", "inconclusive")
        assert c["n_cases"] > 0 and isinstance(c["worst_ratio"], float)
        assert (c["verdict"] in ("false", "misprinted")) == (c["counterexample"] is not None)
        if c["counterexample"]:
            assert (report_dir / c["counterexample"]).is_file()


def test_report_md_shows_the_table_and_figures(report_dir):
    text = (report_dir / "report.md").read_text()
    assert "| `sgornn.theorem2` |" in text
    pngs = sorted((report_dir / "figures").glob("*.png"))
    assert len(pngs) >= 2
    for png in pngs:
        assert f"](figures/{png.name})" in text and png.stat().st_size > 10_000


def test_reproduce_reloads_a_counterexample(report_dir, capsys, monkeypatch):
    doc = json.loads((report_dir / "results.json").read_text())
    path = next(c["counterexample"] for c in doc["claims"] if c["counterexample"])
    monkeypatch.chdir(report_dir)
    assert cli.main(["reproduce", path]) == 0  # the printed statement still fails
    out = capsys.readouterr().out
    assert "measured/bound" in out and "the printed statement still fails on this case" in out


@pytest.mark.slow  # a check of a family through the command line: 5 s
def test_strict_exits_1_on_a_violation(tmp_path, monkeypatch):
    # a three-case search is enough to find sgornn.eq31's violation; no paper figures, to keep it fast
    monkeypatch.setitem(PROFILES, "quick", Profile("quick", n_random=3, restarts=0, ascent_steps=0))
    monkeypatch.setattr("rnnaudit.figures.paper_figures.PAPER_FIGURES", {})
    assert cli.main(["check", "--paper", "sgornn", "--out", str(tmp_path), "--strict"]) == 1


@pytest.mark.parametrize("argv,needle", [
    (["check", "--paper", "nosuchpaper"], "nosuchpaper"),
    (["check", "--seed", "-1"], "--seed"),
    (["check", "--quick", "--full"], "not allowed"),
    (["nosuchcommand"], "invalid choice"),
])
def test_bad_arguments_exit_2_with_one_line(argv, needle, capsys):
    assert cli_status(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the no-CUDA error")
def test_cuda_without_a_gpu_exits_2(capsys, tmp_path):
    status = cli_status(["check", "--device", "cuda", "--out", str(tmp_path)])
    assert status == 2 and "cuda" in capsys.readouterr().err


def test_interrupted_write_leaves_the_previous_results(tmp_path, monkeypatch):
    """results.json is written to a temporary file and renamed: a failure mid-write keeps the old file."""
    write_results({"rnnaudit_version": "x", "created": "t", "device": "cpu", "dtype": "float64", "seed": 0,
                   "profile": "quick", "papers_without_claims": [], "figures": [], "claims": []}, tmp_path)
    before = (tmp_path / "results.json").read_text()

    def explode(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("rnnaudit.atomic.os.replace", explode)
    with pytest.raises(KeyboardInterrupt):
        write_results({"rnnaudit_version": "y", "created": "t", "device": "cpu", "dtype": "float64", "seed": 1,
                       "profile": "quick", "papers_without_claims": [], "figures": [], "claims": []}, tmp_path)
    assert (tmp_path / "results.json").read_text() == before
    assert not list(tmp_path.glob(".results.json.*"))  # no temporary file left behind


def test_nan_is_refused_rather_than_written(tmp_path):
    with pytest.raises(ValueError):
        write_results({"claims": [{"worst_ratio": float("nan")}], "rnnaudit_version": "x", "created": "t",
                       "device": "cpu", "dtype": "float64", "seed": 0, "profile": "quick",
                       "papers_without_claims": [], "figures": []}, tmp_path)
    assert not (tmp_path / "results.json").exists()


def test_report_html_is_self_contained(report_dir):
    text = (report_dir / "report.html").read_text()
    assert "<table class='summary'>" in text and "sgornn.theorem2" in text
    n_figures = len(json.loads((report_dir / "results.json").read_text())["figures"])
    assert text.count("data:image/png;base64,") == n_figures >= 3  # tightness, heatmap, eigenvalues
    assert "src='figures/" not in text  # nothing refers to a file beside it


def test_strict_levels_fail_on_false_by_default_and_on_misprinted_when_asked(monkeypatch, tmp_path):
    """--strict exits 1 on a false claim only; --strict=misprinted on a misprinted one too. The run's verdicts are
    set by hand, so each level is seen both failing and passing."""
    from types import SimpleNamespace

    def fake(verdicts):
        results = [SimpleNamespace(claim=SimpleNamespace(id=f"p.c{i}"), verdict=v, worst_ratio=1.0,
                                   worst_found_by="random", exact=None, readings=[]) for i, v in enumerate(verdicts)]
        return lambda *a, **k: SimpleNamespace(results=results, skipped_papers=[])

    for verdicts, bare, misprinted in ((["holds", "misprinted"], 0, 1), (["holds", "false"], 1, 1),
                                       (["holds", "vacuous"], 0, 0)):
        monkeypatch.setattr("rnnaudit.checking.check", fake(verdicts))
        assert cli.main(["check", "--out", str(tmp_path), "--strict"]) == bare, verdicts
        assert cli.main(["check", "--out", str(tmp_path), "--strict=misprinted"]) == misprinted, verdicts
        assert cli.main(["check", "--out", str(tmp_path)]) == 0
    assert cli_status(["check", "--strict=violated"]) == 2
