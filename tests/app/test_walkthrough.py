"""The walk-through of docs/monitoring.md (examples/walkthrough.py) at a small size: a torch.nn.GRU and an orthogonal
torch.nn.RNN (parametrizations.orthogonal) trained on permuted-digits in a plain PyTorch loop with rnnaudit.Monitor,
then ``rnnaudit audit``, ``heatmap``, ``spectrum``, ``lyapunov`` and ``compare`` on both run directories,
and what the audit says about each. About 15 s on 2 cores (less than 30 s with the cores shared)."""

import importlib.util
import json
import math
from pathlib import Path

import pytest
import torch
from torch import nn

import rnnaudit
from rnnaudit.bounds import all_claims
from rnnaudit.training import read_trajectory
from tests.conftest import cli_status

pytest.importorskip("sklearn", reason="permuted-digits needs scikit-learn (the 'data' extra)")

H, STEPS = 16, 30
ROOT = Path(__file__).resolve().parents[2]


def _walkthrough():
    """examples/walkthrough.py, the code of docs/monitoring.md (tests/test_readme.py keeps the two identical)."""
    spec = importlib.util.spec_from_file_location("walkthrough", ROOT / "examples" / "walkthrough.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from rnnaudit.tasks.digits import digits_splits

    root = tmp_path_factory.mktemp("walkthrough")
    data = digits_splits(permute=True)
    torch.manual_seed(0)
    gru = nn.GRU(1, H, batch_first=True)
    ornn = nn.utils.parametrizations.orthogonal(nn.RNN(1, H, batch_first=True), "weight_hh_l0")
    train = _walkthrough().train
    accuracy = {name: train(model, root / name, data, steps=STEPS, h=H) for name, model in
                (("gru", gru), ("ornn", ornn))}
    return root, accuracy


def _audit(root, name):
    assert cli_status(["audit", str(root / name), "--out", str(root / f"audit-{name}")]) == 0
    return json.loads((root / f"audit-{name}" / "audit.json").read_text())


def test_both_models_learn_beyond_chance(runs):
    """30 steps of Adam at h = 16: above the 10 % of a constant guess on the 359 held-out digits."""
    _, accuracy = runs
    assert accuracy["gru"] > 0.15 and accuracy["ornn"] > 0.15, accuracy


def test_monitor_records_what_orthogonality_promises(runs):
    """The orthogonal RNN keeps ‖WᵀW − I‖₂ at float32 rounding and, with |tanh'| ≤ 1,
    ‖∂h_t/∂h_s‖₂ ≤ ‖W‖₂^(t−s) ≤ 1 and a top Lyapunov exponent ≤ 0; the GRU's gate matrices get no
    orthogonality defect, which no claim about them uses."""
    root, _ = runs
    ornn, gru = read_trajectory(root / "ornn"), read_trajectory(root / "gru")
    assert ornn["step"].tolist() == [0, 10, 20, 30] and gru["step"].tolist() == [0, 10, 20, 30]
    assert max(ornn["orthogonality_defect"]) < 1e-5  # float32 orthogonal map: a few hundred ulp of 1
    jac = ornn["jacobian/max"][~torch.tensor(ornn["jacobian/max"]).isnan().numpy()]
    # the summary's spectral norms are certified lower bounds, so ≤ 1 up to the float32 defect above
    assert len(jac) >= 2 and max(jac) <= 1 + 1e-5
    assert all(v <= 1e-5 for v in ornn["lyapunov_max"] if not math.isnan(v))
    # no claim asks a torch GRU's gate blocks to be orthogonal: their norms are recorded, not a defect
    assert "orthogonality_defect/W_hz" not in gru and min(gru["spectral_norm/W_hz"]) > 0


@pytest.mark.slow
def test_audit_of_both_runs(runs):
    """Every claim gets applies (with a reason when false); which claims apply is a matter of the
    architecture, so the trained runs get exactly the claims a freshly initialised model of the same
    kind gets, with their assumptions judged on the trained weights (float32 slack). The GRU is not
    nc_gru.md eq. 1's GRU (torch applies the reset gate after W_hn h), and the audit says so."""
    root, _ = runs
    ids = {c.id for c in all_claims()}
    docs = {name: _audit(root, name) for name in ("gru", "ornn")}
    x = torch.rand(2, 64, 1)
    fresh = {"gru": nn.GRU(1, H, batch_first=True),
             "ornn": nn.utils.parametrizations.orthogonal(nn.RNN(1, H, batch_first=True), "weight_hh_l0")}
    for name, doc in docs.items():
        assert [c["step"] for c in doc["checkpoints"]] == [0, 30]
        assert doc["model"]["trained_dtype"] == "float32" and doc["model"]["hidden_size"] == H
        assert doc["model"]["parameters"] == sum(p.numel() for p in fresh[name].parameters())
        report = (root / f"audit-{name}" / "report.md").read_text()
        assert report.index("## Model") < report.index("## Summary")
        claims = {c["id"]: c for c in doc["latest"]["claims"]}
        assert set(claims) >= ids
        for c in claims.values():
            assert c["applies"] or c["reason"], (name, c["id"])
            if c["applies"] and c["assumptions"] and not c["assumptions_hold"]:
                assert c["reading"] == "an assumption fails, so the theorem says nothing here"
        architecture = rnnaudit.audit(fresh[name], x, measure_bounds=False)["claims"]
        assert {c["id"] for c in claims.values() if c["applies"]} == {c["id"] for c in architecture if c["applies"]}
    gru = {c["id"]: c for c in docs["gru"]["latest"]["claims"]}
    assert not gru["nc_gru.theorem1"]["applies"] and "reset gate" in gru["nc_gru.theorem1"]["reason"]
    # the summary's defect is the trained matrix's: float32 rounding for the orthogonal RNN; a GRU's gate
    # blocks get none (no statement asks them to be orthogonal), only their norms
    assert docs["ornn"]["model"]["type"] == "RNN (parametrized: weight_hh_l0)"
    assert docs["ornn"]["model"]["recurrent"]["W_hh"]["orthogonality_defect"] < 1e-5
    assert "orthogonality_defect" not in docs["gru"]["model"]["recurrent"]["W_hz"]
    assert docs["gru"]["model"]["recurrent"]["W_hz"]["spectral_norm"] > 0
    assert (root / "audit-ornn" / "report.html").stat().st_size > 0


@pytest.mark.slow
def test_spectrum_and_compare_read_both_runs(runs):
    """The figure commands on the run directories the monitor wrote: a spectrum with a row per recurrent
    matrix (one for the RNN, one per gate matrix of the GRU) and ‖∂L/∂h_0‖ of both runs on one plot."""
    root, _ = runs
    for name in ("gru", "ornn"):
        assert cli_status(["spectrum", str(root / name), "--out", str(root / f"{name}-spectrum.png")]) == 0, name
    assert (root / "ornn-spectrum.png").is_file() and (root / "gru-spectrum.png").is_file()
    import numpy as np

    # one figure per run: the GRU's three gate matrices are its rows
    keys = np.load(root / "gru-spectrum.npz").files
    assert {k.split("__")[0] for k in keys if k != "labels"} == {"W_hr", "W_hz", "W_hn"}
    assert cli_status(["compare", str(root / "gru"), str(root / "ornn"), "--key", "grad_h0", "--out",
                       str(root / "grad_h0.png")]) == 0
    assert (root / "grad_h0.png").stat().st_size > 0


@pytest.mark.slow
def test_heatmap_and_lyapunov_read_both_runs(runs):
    """The rest of the walk-through's figures: ‖∂h_t/∂h_s‖₂ and the Lyapunov spectrum of each run's latest
    checkpoint."""
    root, _ = runs
    for name in ("gru", "ornn"):
        for command in ("heatmap", "lyapunov"):
            out = root / f"{name}-{command}.png"
            assert cli_status([command, str(root / name), "--out", str(out)]) == 0, (name, command)
            assert out.stat().st_size > 0
