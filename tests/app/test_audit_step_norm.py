"""The audit's largest step-Jacobian norm is one number with one label: for an LSTM the h block of ∂h_t/∂h_{t−1}
(c_{t−1} held fixed), per layer, the maximum over every input sequence; printed by the CLI, the report and the notes
as that one value, while a claim's own assumption keeps the whole (h, c) state its theorem speaks of."""

from __future__ import annotations

import json
import re

import pytest
import torch
from torch import nn

from rnnaudit.figures.escaping import md_text
from tests.conftest import cli_status

#: the audit's value (closed-form step Jacobians, 2-norm as √λ_max of the 5 × 5 Gram matrix) against autograd's
#: Jacobian and an SVD: the Jacobians agree to ~1e-13 relative (analysis.torch_rnn_jacobians' tests), the Gram route
#: adds a relative error of order S·eps ≈ 1e-15; 1e-10 leaves three orders of margin and still fails on any other
#: block, layer or sequence set (they differ here in the first digit).
REL = 1e-10


def _model_and_inputs():
    """A 2-layer nn.LSTM(3, 5) whose weights are scaled so the h block exceeds 1, and 6 sequences of which the first
    two barely move it: the maximum over all sequences is not the maximum over the first two."""
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 5, num_layers=2, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        for p in lstm.parameters():
            p.mul_(2.5)
    x = torch.randn(6, 10, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    x[:2] *= 0.05
    return lstm, x


def _h_block_norms(lstm: nn.LSTM, x: torch.Tensor) -> list[torch.Tensor]:
    """Per layer, ‖∂h_t/∂h_{t−1}‖₂ at fixed c_{t−1} (b, t): jacrev of nn.LSTMCell's h output in h alone, on the
    layer's own inputs (the layer below's h), and torch.linalg.matrix_norm(·, 2) (an SVD)."""
    out, inp = [], x
    for layer in range(lstm.num_layers):
        cell = nn.LSTMCell(inp.shape[-1], lstm.hidden_size, dtype=torch.float64)
        with torch.no_grad():
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(cell, name).copy_(getattr(lstm, f"{name}_l{layer}"))
        norms = torch.zeros(x.shape[0], x.shape[1], dtype=torch.float64)
        hs = torch.zeros(x.shape[0], x.shape[1], lstm.hidden_size, dtype=torch.float64)
        for b in range(x.shape[0]):
            h = torch.zeros(lstm.hidden_size, dtype=torch.float64)
            c = torch.zeros_like(h)
            for t in range(x.shape[1]):
                J = torch.func.jacrev(lambda hh: cell(inp[b, t], (hh, c))[0])(h)
                norms[b, t] = torch.linalg.matrix_norm(J.detach(), 2)
                with torch.no_grad():
                    h, c = cell(inp[b, t], (h, c))
                hs[b, t] = h
        out.append(norms)
        inp = hs
    return out


def test_an_lstm_audit_prints_the_h_block_maximised_over_every_sequence_once_per_layer(tmp_path, monkeypatch, capsys):
    lstm, x = _model_and_inputs()
    want = _h_block_norms(lstm, x)
    torch.save(lstm.state_dict(), tmp_path / "w.pt")
    torch.save(x, tmp_path / "x.pt")
    monkeypatch.chdir(tmp_path)
    assert cli_status(["audit", "--arch", "lstm", "--weights", "w.pt", "--inputs", "x.pt", "--out", "a"]) == 0
    printed = capsys.readouterr().out
    doc = json.loads((tmp_path / "a" / "audit.json").read_text())
    report = (tmp_path / "a" / "report.md").read_text()
    diagnostics = doc["latest"]["diagnostics"]
    assert [d["part"] for d in diagnostics] == ["layer 0", "layer 1"]
    for d, norms in zip(diagnostics, want, strict=True):
        best = float(norms.max())
        assert float(norms[:2].max()) < best / 1.1  # the first two sequences alone would give another number
        assert d["contractivity"] == pytest.approx(best, rel=REL)
        flat = int(norms.argmax())
        assert d["contractivity_at"] == [flat // x.shape[1], flat % x.shape[1] + 1]
        label = (f"max ‖∂h_t/∂h_{{t−1}}‖₂ ({d['part']}; h block, the rest of the state held fixed; "
                 f"over all {x.shape[0]} sequences)")
        reading = "below 1" if best < 1 else "not below 1"  # a block: "contractive" is the whole state's word
        line = f"diagnostics, {d['part']} [h (5), c (5)]: {label} = {best:.3g} ({reading} on these inputs)"
        assert printed.count(line) == 1, printed
        # the notes print it once, in the first note; the report's table holds the value under the label's head
        notes = "\n".join(n["line"] for n in doc["latest"]["notes"])
        assert notes.count(f"{label} = {best:.3g}") == 1 and report.count(md_text(f"{label} = {best:.3g}")) == 1
        assert re.search(rf"\| {re.escape(d['part'])} \| h \(5\), c \(5\) \| {best:.4g}", report), report
    assert "max ‖∂h_t/∂h_{t−1}‖₂ (h block, the rest of the state held fixed; over all 6 sequences)" in report
    # a claim whose theorem is on the whole state keeps its own η, labelled as the whole packed state
    (eta,) = [a for c in doc["latest"]["claims"] if c["id"] == "pascanu2013.vanishing.general"
              for a in c["assumptions"]]
    assert "s the whole state" in eta["name"] and "of s = the packed state [l0.h (5) | l1.h (5) | l0.c (5)" in \
        eta["detail"]
    whole = float(re.search(r"\] = ([0-9.e+-]+)", eta["detail"]).group(1))
    assert all(abs(whole - float(n.max())) > 1e-3 for n in want)  # another quantity, under another label


def test_the_diagnostics_can_report_the_whole_state_under_its_own_label():
    """block="state" is the (h, c) step Jacobian's norm, another number than the h block's, named as such."""
    from rnnaudit.analysis.diagnostics import contractivity_name, state_diagnostics
    from rnnaudit.auditing.layers import recurrences

    lstm, x = _model_and_inputs()
    part = recurrences(lstm, x)[0]
    h_only = state_diagnostics(part.cell, part.inputs)
    whole = state_diagnostics(part.cell, part.inputs, block="state")
    assert h_only.contractivity == pytest.approx(float(_h_block_norms(lstm, x)[0].max()), rel=REL)
    assert whole.contractivity > h_only.contractivity * 1.01  # here the c rows and columns add to the norm
    assert (h_only.contractivity_sequences, h_only.sequences) == (6, 2)  # the maximum is over every sequence
    assert contractivity_name({**whole.to_json(), "part": "layer 0"}) == \
        "max ‖∂s_t/∂s_{t−1}‖₂ (layer 0; s = the whole (h, c) state; over all 6 sequences)"


def test_an_audit_written_before_the_block_was_recorded_is_labelled_as_the_whole_state_it_measured():
    from rnnaudit.analysis.diagnostics import contractivity_name

    old = {"part": "layer 0", "state": "h (5), c (5)", "sequences": 2, "contractivity": 3.1}
    assert contractivity_name(old) == "max ‖∂s_t/∂s_{t−1}‖₂ of s = h (5), c (5) (layer 0; over all 2 sequences)"
    assert contractivity_name({**old, "contractivity_block": "h block", "contractivity_sequences": 8}) == \
        "max ‖∂h_t/∂h_{t−1}‖₂ (layer 0; h block, the rest of the state held fixed; over all 8 sequences)"
    # a model that is one recurrence ("state") names no part; a GRU's h is its whole state
    assert contractivity_name({"part": "state", "contractivity_block": "state h", "contractivity_sequences": 1}) == \
        "max ‖∂h_t/∂h_{t−1}‖₂ (over the one sequence)"
