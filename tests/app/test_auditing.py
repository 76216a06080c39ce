"""The audit of trained models: every claim put to a run's model through its own predicates, float32
slack, readings that never call a bound a guarantee where its assumptions fail, and per-record
first failures."""

import json

import pytest
import torch

import rnnaudit.training as training
from rnnaudit import cli
from rnnaudit.auditing import audit_checkpoint, audit_run
from rnnaudit.training import TrainConfig, train
from tests.conftest import cli_status

SMALL = dict(T=10, hidden_size=8, batch=8, steps=30, lr=1e-2, record_every=5, checkpoint_every=10, val_batches=2)


def _claims(doc):
    return {c["id"]: c for c in doc["claims"]}


def test_audit_reports_sgornn_assumptions_and_bounds(tmp_path):
    """A trained SGORNN (float32, β clipped in float32) meets every assumption of Theorems 1–2 and eq. 3,
    judged with the float32 slack, and Theorem 2's bound holds on it; a claim about another
    architecture does not apply, with the reason."""
    train(TrainConfig(cell="sgornn", **SMALL), tmp_path, progress=False)
    claims = _claims(audit_checkpoint(tmp_path))
    for cid in ("sgornn.eq3", "sgornn.theorem1", "sgornn.theorem2", "sgornn.hidden_state"):
        assert claims[cid]["applies"] and claims[cid]["assumptions_hold"], claims[cid]
    names = {a["name"] for a in claims["sgornn.theorem1"]["assumptions"]}
    assert "β ≤ 1 − 2α (eq. 3)" in names
    assert claims["sgornn.theorem2"]["verdict"] == "holds"
    assert claims["sgornn.theorem2"]["reading"] == "assumptions hold and the bound holds on this model"
    assert not claims["sgornn.eq34"]["applies"] and claims["sgornn.eq34"]["reason"]
    run = audit_run(tmp_path)
    assert [a["step"] for a in run["checkpoints"]] == [10, 20, 30]
    # the SGORNN claims' assumptions; the any-cell claims' premises (a growing gradient, chaos) fail on a calm model
    assert all(step is None for key, step in run["first_failure"].items() if key.startswith("sgornn."))


def test_audit_flags_fastrnn_assumptions(tmp_path):
    train(TrainConfig(cell="fastrnn", **SMALL), tmp_path, progress=False)
    claims = _claims(audit_checkpoint(tmp_path))
    failed = {a["name"] for c in claims.values() for a in c["assumptions"] if not a["holds"]}
    # α ≈ 0.05 against eq. 4's 1/(4T R_U) ≈ 1/(40 · ‖U‖_F) ≈ 0.01 at T = 10
    assert "U = φ(Θ) orthogonal" in failed and "FastRNN eq. 4 at T = 10" in failed
    # Theorem 2's bound may hold on this model, but its assumptions fail: never a bare "holds"
    assert claims["sgornn.theorem2"]["reading"] == "an assumption fails, so the theorem says nothing here"
    assert not claims["sgornn.theorem1"]["applies"] and "SGORNN" in claims["sgornn.theorem1"]["reason"]
    run = audit_run(tmp_path)
    # the recorded α, β and ‖UᵀU − I‖₂ are judged at every record (step 5), not only at the first
    # checkpoint (step 10); eq. 4 needs U itself, so only checkpoints can judge it
    assert run["first_failure"]["sgornn.theorem2: U = φ(Θ) orthogonal"] == 5
    assert run["first_failure"]["sgornn.eq4: FastRNN eq. 4 at T = 10"] == 10


@pytest.mark.slow
def test_cli_train_then_audit(tmp_path, capsys):
    run = tmp_path / "run"
    assert cli.main(["train", "--cell", "sgornn", "--T", "10", "--steps", "10", "--batch", "8", "--hidden", "8",
                     "--record-every", "5", "--checkpoint-every", "5", "--out", str(run)]) == 0
    assert "baseline" in capsys.readouterr().out
    assert cli.main(["audit", str(run), "--out", str(tmp_path / "audit")]) == 0
    doc = json.loads((tmp_path / "audit" / "audit.json").read_text())
    assert doc["latest"]["step"] == 10 and "first_failure" in doc
    assert "## Claims that apply to this model" in (tmp_path / "audit" / "report.md").read_text()
    page = (tmp_path / "audit" / "report.html").read_text()
    assert "<h2>Claims that apply to this model</h2>" in page
    assert page.count("data:image/png;base64,") == 1  # the trajectory
    # the same --out twice without --resume
    assert cli_status(["train", "--cell", "sgornn", "--T", "10", "--steps", "10", "--out", str(run)]) == 2


def test_audit_of_an_untrained_spectral_rnn_applies_eq7():
    from rnnaudit.auditing import audit_model
    from rnnaudit.bounds.on_model import ModelView
    from rnnaudit.cells import SpectralRNN

    view = ModelView(SpectralRNN(2, 8, 2, 2), torch.zeros(1, 5, 2), torch.ones(1, 8), T=5)
    claims = {c["id"]: c for c in audit_model(view)}
    assert claims["spectral_rnn.eq7"]["applies"] and claims["spectral_rnn.eq7"]["assumptions_hold"]
    assert claims["spectral_rnn.eq7"]["verdict"] == "holds"
    assert not claims["sgornn.theorem2"]["applies"]


def test_audit_and_figure_sources_use_the_runs_adding_variant(tmp_path, monkeypatch):
    """nc_gru.md Sec. 4.3's adding variant swaps the input channels (markers first). A run trained
    on it must be audited and plotted on that variant's inputs, not the default variant's: the
    sequences the bound checks measure (seed 0, 4 sequences) and the sequence ``load_source``
    probes with (its seed) equal the variant generator's output bit for bit. A run without the
    field (an older checkpoint) gets the default variant."""
    import rnnaudit.auditing as audit
    from rnnaudit.tasks.synthetic import addition_problem
    from rnnaudit.sources import load_source

    T = 6
    config = TrainConfig(cell="sgornn", task_kwargs={"variant": "nc_gru"},
                         **{**SMALL, "T": T, "hidden_size": 4, "steps": 2, "checkpoint_every": 2, "record_every": 2,
                            "val_batches": 1})
    train(config, tmp_path / "run", progress=False)

    def draw(n, seed, variant):
        return addition_problem(n, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float32,
                                variant=variant)[0]

    assert not torch.equal(draw(4, 0, "nc_gru"), draw(4, 0, "sgornn"))  # the variant is observable
    from rnnaudit.bounds.sgornn.cases import GatedCase

    seen, absorb = [], GatedCase.from_cell.__func__

    def spy(cls, cell, v, x):
        seen.append(x)
        return absorb(cls, cell, v, x)

    monkeypatch.setattr(GatedCase, "from_cell", classmethod(spy))
    doc = audit_checkpoint(tmp_path / "run")
    assert doc["config"]["task_kwargs"] == {"variant": "nc_gru"} and _claims(doc)["sgornn.theorem2"]["verdict"]
    assert seen and all(torch.equal(torch.stack(seen[i:i + 4]), draw(4, 0, "nc_gru")) for i in range(0, len(seen), 4))
    assert torch.equal(load_source(str(tmp_path / "run"), seed=3).x[0], draw(1, 3, "nc_gru")[0].double())
    # the helper the audit draws with, on the paper's own NC-GRU preset (its cell has no bound checks)
    assert torch.equal(audit.task_inputs(training.preset_config("nc_gru-adding", T=T), 2, seed=5),
                       draw(2, 5, "nc_gru"))

    path = tmp_path / "run" / "checkpoints" / "step_00000002.pt"
    raw = torch.load(path, weights_only=True)
    del raw["config"]["task_kwargs"]
    old = tmp_path / "old.pt"
    torch.save(raw, old)
    seen.clear()
    assert audit_checkpoint(old)["config"]["task_kwargs"] == {}
    assert seen and all(torch.equal(torch.stack(seen[i:i + 4]), draw(4, 0, "sgornn")) for i in range(0, len(seen), 4))
    assert torch.equal(load_source(str(old), seed=3).x[0], draw(1, 3, "sgornn")[0].double())
