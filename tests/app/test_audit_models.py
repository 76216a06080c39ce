"""The audit of the models researchers train: the diagnostics every model gets (known answers), the
module's own sizes in every label, bidirectional/half-precision/batch_first=False/submodule models,
parametrized and geotorch modules by every route, Cell/safetensors/parametrized weights files, and the
model wording of each claim's reading."""

import json
import math
import struct

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrizations

import rnnaudit
from rnnaudit.analysis.diagnostics import initial_state_gradient, memory_horizon, state_diagnostics
from rnnaudit.auditing.notes import assumption_notes, remedy
from rnnaudit.bounds.on_model import ClaimOnModel
from rnnaudit.limits import TooLargeError
from rnnaudit.untrusted import InputError
from rnnaudit.weights_files import safetensors_header
from tests.conftest import cli_status

safetensors_torch = pytest.importorskip("safetensors.torch")


def _relu_rnn(W: torch.Tensor, n: int = 1) -> nn.RNN:
    """h' = relu(W_ih x + b + W h) with W_ih, b > 0: for x ≥ 0 every unit stays on, so J_t = W exactly."""
    h = W.shape[0]
    rnn = nn.RNN(n, h, nonlinearity="relu", batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(W)
        rnn.weight_ih_l0.fill_(0.5)
        rnn.bias_ih_l0.fill_(0.1)
        rnn.bias_hh_l0.zero_()
    return rnn


# ------------------------------------------------------------------------ diagnostics, known answers

def test_diagnostics_known_answer_of_a_contraction():
    """J_t = ½I: max ‖J_t‖₂ = ½; ‖∂h_t/∂h_{t−τ}‖₂ = 2^−τ first below 10⁻³ at τ = 10 (2^−9 ≈ 1.95e-3,
    2^−10 ≈ 9.8e-4); every Lyapunov exponent ln ½."""
    rnn = _relu_rnn(0.5 * torch.eye(6, dtype=torch.float64))
    d = state_diagnostics(rnn, torch.rand(2, 40, 1, dtype=torch.float64))
    assert d.contractivity == pytest.approx(0.5, rel=1e-12) and d.contractive_fraction == 1.0
    assert d.horizon == 10 and d.horizon_medians[-1] == pytest.approx(2.0 ** -10, rel=1e-9)
    assert d.lyapunov == pytest.approx([math.log(0.5)] * 3, abs=1e-12)
    # the threshold decides: at 2e-3 the horizon is one step shorter (2^−9 < 2e-3)
    assert state_diagnostics(rnn, torch.rand(1, 40, 1, dtype=torch.float64), threshold=2e-3).horizon == 9


def test_diagnostics_of_a_permutation_never_forget():
    """J_t = a permutation: norm 1 at every lag (not contractive), horizon beyond T, exponents 0."""
    P = torch.eye(5, dtype=torch.float64)[[1, 2, 3, 4, 0]]
    d = state_diagnostics(_relu_rnn(P), torch.rand(1, 30, 1, dtype=torch.float64))
    assert d.contractivity == pytest.approx(1.0, rel=1e-12) and d.contractive_fraction == 0.0
    assert d.horizon is None and len(d.horizon_medians) == 30
    assert d.lyapunov == pytest.approx([0.0] * 3, abs=1e-12)
    assert d.to_json()["horizon"] is None


def test_norm_bounds_enclose_the_spectral_norm():
    """The cheap bound pair encloses ‖P‖₂ (an SVD each) on matrices of widely spread column scales."""
    from rnnaudit.analysis.diagnostics import norm_bounds

    torch.manual_seed(5)
    P = torch.randn(20, 32, 24, dtype=torch.float64) * torch.logspace(0, -5, 24, dtype=torch.float64)
    exact = torch.linalg.matrix_norm(P, 2)
    lo, hi = norm_bounds(P)
    assert bool((lo <= exact * (1 + 1e-12)).all() and (hi >= exact * (1 - 1e-12)).all())
    assert bool((hi > lo * 1.01).any())  # not the exact value: bounds that a wrong formula could break


def test_memory_horizon_handles_underflow_and_zero_products():
    """Products far below float64's range stay exact in log scale; a zero Jacobian forgets at once."""
    J = torch.full((1, 400, 1, 1), 1e-5, dtype=torch.float64)
    assert memory_horizon(J)[0] == 1
    J = torch.full((1, 400, 2, 2), 0.0, dtype=torch.float64)
    assert memory_horizon(J) == (1, [0.0])
    with pytest.raises(ValueError, match="J must be"):
        memory_horizon(torch.zeros(3, 3))


def test_memory_horizon_matches_brute_force_products():
    """The median over t of ‖J_t ⋯ J_{t−τ+1}‖₂, formed one product at a time, decides the same lag; with
    end times subsampled the median is over those times only."""
    torch.manual_seed(4)
    J = 0.45 * torch.randn(2, 40, 4, 4, dtype=torch.float64)

    def reference(times):
        for tau in range(1, 41):
            norms = []
            for b in range(2):
                for t in times:
                    if t >= tau:
                        P = torch.eye(4, dtype=torch.float64)
                        for k in range(t - tau + 1, t + 1):
                            P = J[b, k - 1] @ P
                        norms.append(torch.linalg.matrix_norm(P, 2))
            if torch.stack(norms).median() < 1e-3:
                return tau
        return None

    expected = reference(range(1, 41))
    assert expected is not None and memory_horizon(J)[0] == expected
    sub = torch.linspace(1, 40, 7, dtype=torch.float64).round().long().unique().tolist()
    assert memory_horizon(J, max_times=7)[0] == reference(sub)


def test_initial_state_gradient_known_answer():
    """L = Σ_sequences Σ_units h_T, J = ½I for T = 8 steps: ∂L/∂h_0 = m·2^−8·1, norm m·2^−8·√H."""
    rnn = _relu_rnn(0.5 * torch.eye(4, dtype=torch.float64))
    x = torch.rand(3, 8, 1, dtype=torch.float64)
    g = initial_state_gradient(rnn, x, lambda out, y: out[:, -1].sum(), None)
    assert g == pytest.approx(torch.full((4,), 3 * 2.0 ** -8, dtype=torch.float64), rel=1e-12)
    r = rnnaudit.audit(rnn, x, loss_fn=lambda out, y: out[:, -1].sum(), targets=torch.zeros(1),
                       measure_bounds=False)
    assert r["initial_state_gradient"]["norm"] == pytest.approx(3 * 2.0 ** -8 * 2, rel=1e-12)
    with pytest.raises(ValueError, match="loss_fn and targets go together"):
        rnnaudit.audit(rnn, x, loss_fn=lambda out, y: out.sum())


# ------------------------------------------------------------------------ labels and semantics

def test_lstm_1x64_is_hidden_size_64_everywhere(tmp_path, capsys, monkeypatch):
    torch.manual_seed(0)
    lstm = nn.LSTM(1, 64, batch_first=True)
    s = rnnaudit.audit(lstm, torch.randn(1, 20, 1), measure_bounds=False, diagnostics=False)["model"]
    assert (s["hidden_size"], s["state_size"], s["state_layout"]) == (64, 128, "state = [h (64) | c (64)]")
    assert all("orthogonality_defect" not in e for e in s["recurrent"].values())  # meaningless for gate blocks
    torch.save(lstm.state_dict(), tmp_path / "w.pt")
    torch.save(torch.randn(1, 20, 1), tmp_path / "x.pt")
    monkeypatch.chdir(tmp_path)
    assert cli_status(["audit", "--arch", "lstm", "--weights", "w.pt", "--inputs", "x.pt", "--out", "a"]) == 0
    out = capsys.readouterr().out + (tmp_path / "a" / "report.md").read_text()
    doc = json.loads((tmp_path / "a" / "audit.json").read_text())
    assert "hidden size 64" in out and "h = 64" in out
    for text in (out, json.dumps(doc, ensure_ascii=False)):
        assert "h = 128" not in text and "hidden size 128" not in text and '"hidden_size": 128' not in text


def test_two_layer_gru_is_two_layers_of_48(tmp_path, capsys, monkeypatch):
    torch.manual_seed(0)
    gru = nn.GRU(2, 48, num_layers=2, batch_first=True)
    safetensors_torch.save_file(gru.state_dict(), str(tmp_path / "g.safetensors"))
    torch.save(torch.randn(1, 15, 2), tmp_path / "x.pt")
    monkeypatch.chdir(tmp_path)
    assert cli_status(["audit", "--weights", "g.safetensors", "--inputs", "x.pt", "--out", "a"]) == 0
    out = capsys.readouterr().out + (tmp_path / "a" / "report.md").read_text()
    doc = json.loads((tmp_path / "a" / "audit.json").read_text())
    assert doc["model"]["hidden_size"] == 48 and doc["model"]["num_layers"] == 2
    assert doc["model"]["state_layout"] == "state = [l0.h (48) | l1.h (48)]"
    assert [d["part"] for d in doc["latest"]["diagnostics"]] == ["layer 0", "layer 1"]
    for text in (out, json.dumps(doc, ensure_ascii=False)):
        assert "h = 96" not in text and "hidden size 96" not in text and '"hidden_size": 96' not in text


def test_layer_diagnostics_are_the_diagonal_blocks_of_the_stack():
    """Layer 1 of a stacked RNN measured alone on layer 0's outputs = the layer-1 block of the stack's
    step Jacobian (the stack's Jacobian is block lower triangular)."""
    torch.manual_seed(1)
    rnn = nn.RNN(2, 5, num_layers=2, batch_first=True, dtype=torch.float64)
    x = torch.randn(1, 12, 2, dtype=torch.float64)
    r = rnnaudit.audit(rnn, x, measure_bounds=False)
    from rnnaudit.analysis import step_jacobians

    J, _ = step_jacobians(rnnaudit.wrap(rnn), x)
    block = J[:, 5:, 5:]
    assert r["diagnostics"][1]["contractivity"] == pytest.approx(float(torch.linalg.matrix_norm(block, 2).max()),
                                                                 rel=1e-10)


def test_bidirectional_directions_reported_separately():
    """The reverse direction is the module's _reverse weights run on reversed time."""
    torch.manual_seed(2)
    bi = nn.GRU(2, 4, bidirectional=True, batch_first=True)
    x = torch.randn(1, 25, 2)
    r = rnnaudit.audit(bi, x, measure_bounds=False)
    assert [d["part"] for d in r["diagnostics"]] == ["layer 0, forward", "layer 0, reverse"]
    assert {c.get("part") for c in r["claims"]} == {"layer 0, forward", "layer 0, reverse"}
    rev = nn.GRU(2, 4, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(rev, f"{name}_l0").copy_(getattr(bi, f"{name}_l0_reverse").double())
    alone = state_diagnostics(rev, x.double().flip(1))
    assert r["diagnostics"][1]["contractivity"] == pytest.approx(alone.contractivity, rel=1e-12)
    assert r["model"]["bidirectional"] is True and r["model"]["hidden_size"] == 4


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_and_time_first_modules_are_probed_in_float64(dtype):
    torch.manual_seed(3)
    lstm = nn.LSTM(2, 6)  # batch_first=False, as torch's default
    x = torch.randn(2, 20, 2)
    ref = rnnaudit.audit(lstm.double(), x, measure_bounds=False)["diagnostics"][0]
    r = rnnaudit.audit(lstm.to(dtype), x, measure_bounds=False)
    assert r["model"]["trained_dtype"] == str(dtype).replace("torch.", "") and r["model"]["batch_first"] is False
    assert next(lstm.parameters()).dtype == dtype  # the user's module is not converted
    # the half-precision weights are the float64 ones rounded: the measurements move by that rounding only
    assert r["diagnostics"][0]["contractivity"] == pytest.approx(ref["contractivity"], rel=0.05)


def test_custom_indrnn_cell_gets_the_diagnostics():
    """IndRNN h' = relu(W_x x + b + u ⊙ h) with every unit on: J_t = diag(u), max ‖J_t‖₂ = max|u|."""
    class IndRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(1, 3, dtype=torch.float64)
            self.u = nn.Parameter(torch.tensor([1.1, 0.5, 0.2], dtype=torch.float64))
            with torch.no_grad():
                self.inp.weight.fill_(1.0)
                self.inp.bias.fill_(0.1)

        def step(self, x_t, h):
            return torch.relu(self.inp(x_t) + self.u * h)

    r = rnnaudit.audit(rnnaudit.wrap(IndRNN(), input_size=1, state_size=3), torch.rand(2, 30, 1))
    d = r["diagnostics"][0]
    assert r["model"]["type"] == "IndRNN" and r["model"]["hidden_size"] == 3
    assert d["contractivity"] == pytest.approx(1.1, rel=1e-12) and d["horizon"] is None  # 1.1^τ never decays
    # the QR estimate converges from a random Q_0: the e^{(ln 0.5 − ln 1.1)t} transient is ~1e-4 after the warm-up
    assert d["lyapunov"][0] == pytest.approx(math.log(1.1), abs=1e-3)


def test_submodule_of_a_larger_model(tmp_path, monkeypatch, capsys):
    (tmp_path / "bigmodel.py").write_text(
        "import torch\nfrom torch import nn\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.emb = nn.Embedding(10, 3)\n"
        "        self.rnn = nn.LSTM(3, 7, batch_first=True)\n"
        "class Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.encoder = Encoder()\n"
        "        self.head = nn.Linear(7, 2)\n"
        "def build():\n    torch.manual_seed(0)\n    return Model()\n")
    torch.save(torch.randn(1, 10, 3), tmp_path / "emb.pt")
    monkeypatch.chdir(tmp_path)
    assert cli_status(["audit", "--model", "bigmodel:build", "--submodule", "encoder.rnn", "--inputs", "emb.pt",
                       "--out", "a"]) == 0
    doc = json.loads((tmp_path / "a" / "audit.json").read_text())
    assert doc["model"]["type"] == "LSTM" and doc["model"]["hidden_size"] == 7
    assert cli_status(["audit", "--model", "bigmodel:build", "--submodule", "encoder.gru", "--inputs", "emb.pt",
                       "--out", "b"]) == 2
    assert "--submodule 'encoder.gru'" in capsys.readouterr().err


# ------------------------------------------------------------------------ parametrized and geotorch modules

def test_parametrized_rnn_after_a_forward_pass():
    torch.manual_seed(0)
    rnn = parametrizations.orthogonal(nn.RNN(2, 16, batch_first=True), "weight_hh_l0")
    x = torch.randn(1, 20, 2)
    rnn(x)  # leaves non-leaf tensors in the module (deepcopy used to refuse them)
    r = rnnaudit.audit(rnn, x)
    assert r["model"]["recurrent"]["W_hh"]["orthogonality_defect"] < 1e-5
    assert r["diagnostics"][0]["contractivity"] <= 1 + 1e-6


def test_geotorch_module_with_a_custom_step():
    geotorch = pytest.importorskip("geotorch")

    class GeoRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(2, 8)
            self.rec = nn.Linear(8, 8, bias=False)
            geotorch.orthogonal(self.rec, "weight")

        def step(self, x_t, h):
            return torch.tanh(self.inp(x_t) + self.rec(h))

    torch.manual_seed(0)
    model = GeoRNN()
    model.step(torch.randn(1, 2), torch.zeros(1, 8))
    cell = rnnaudit.wrap(model, input_size=2, state_size=8, recurrent={"W": "rec.weight"})
    r = rnnaudit.audit(cell, torch.randn(1, 20, 2))
    assert r["model"]["recurrent"]["W"]["orthogonality_defect"] < 1e-5
    assert r["diagnostics"][0]["contractivity"] <= 1 + 1e-6  # tanh' ≤ 1 times an orthogonal matrix


def test_cli_parametrized_factory_with_weights(tmp_path, monkeypatch):
    (tmp_path / "orth_rnn_factory.py").write_text(
        "import torch\nfrom torch import nn\nfrom torch.nn.utils import parametrizations\n"
        "def make_orth_rnn():\n"
        "    return parametrizations.orthogonal(nn.RNN(2, 16, batch_first=True), 'weight_hh_l0')\n")
    monkeypatch.chdir(tmp_path)
    torch.manual_seed(0)
    import importlib
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        model = importlib.import_module("orth_rnn_factory").make_orth_rnn()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("orth_rnn_factory", None)
    torch.save(model.state_dict(), "w.pt")
    torch.save(torch.randn(1, 30, 2), "seq.pt")
    # the CLI imports the factory into this process: a module name no other test uses, removed afterwards
    monkeypatch.delitem(sys.modules, "orth_rnn_factory", raising=False)
    try:
        assert cli_status(["audit", "--model", "orth_rnn_factory:make_orth_rnn", "--weights", "w.pt", "--inputs",
                           "seq.pt", "--out", "a"]) == 0
    finally:
        sys.modules.pop("orth_rnn_factory", None)
    doc = json.loads((tmp_path / "a" / "audit.json").read_text())
    assert doc["model"]["type"] == "RNN (parametrized: weight_hh_l0)"
    # the same file without the factory: the parametrization is not in it, and the hint names --model
    assert cli_status(["audit", "--arch", "rnn", "--weights", "w.pt", "--inputs", "seq.pt", "--out", "b"]) == 2


def test_cli_parametrized_weights_hint_names_model(tmp_path, monkeypatch, capsys):
    rnn = parametrizations.orthogonal(nn.RNN(2, 4, batch_first=True), "weight_hh_l0")
    torch.save(rnn.state_dict(), tmp_path / "w.pt")
    monkeypatch.chdir(tmp_path)
    assert cli_status(["audit", "--weights", "w.pt", "--out", "a"]) == 2
    err = capsys.readouterr().err
    assert "--model MODULE:FACTORY" in err and "parametrizations.weight_hh_l0.original" in err
    assert len(err.strip().splitlines()) == 1


def test_monitor_copies_a_custom_module_holding_non_leaf_tensors(tmp_path):
    class Cached(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(1, 4)
            self.rec = nn.Linear(4, 4, bias=False)
            parametrizations.orthogonal(self.rec, "weight")
            self.last = [self.rec.weight]  # a cache of the last forward: not a graph leaf

        def step(self, x_t, h):
            return torch.tanh(self.inp(x_t) + self.rec(h))

    with rnnaudit.Monitor(Cached(), tmp_path, every=1, wrap_kwargs=dict(input_size=1, state_size=4)) as mon:
        assert mon.record(0) is not None


# ------------------------------------------------------------------------ weights files

@pytest.mark.parametrize("cls,arch", [(nn.LSTMCell, "lstm"), (nn.GRUCell, "gru"), (nn.RNNCell, "rnn")])
def test_cli_cell_state_dicts(tmp_path, monkeypatch, cls, arch):
    torch.manual_seed(0)
    torch.save(cls(2, 5).state_dict(), tmp_path / "c.pt")
    torch.save(torch.randn(1, 12, 2), tmp_path / "x.pt")
    monkeypatch.chdir(tmp_path)
    for extra in ([], ["--arch", arch]):
        assert cli_status(["audit", "--weights", "c.pt", "--inputs", "x.pt", "--out", "a", *extra]) == 0
        doc = json.loads((tmp_path / "a" / "audit.json").read_text())
        assert doc["model"]["type"] == cls.__name__ and doc["model"]["hidden_size"] == 5


def _safetensors_bytes(header: dict, data: bytes) -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


def test_safetensors_header_is_checked_before_loading(tmp_path, monkeypatch):
    good = _safetensors_bytes({"weight_ih_l0": {"dtype": "F32", "shape": [4, 1], "data_offsets": [0, 16]}}, b"\0" * 16)
    (tmp_path / "ok.safetensors").write_bytes(good)
    assert safetensors_header(tmp_path / "ok.safetensors") == {"weight_ih_l0": ("F32", (4, 1))}
    bad = {
        "length": struct.pack("<Q", 10 ** 12) + b"{}",
        "offsets": _safetensors_bytes({"w": {"dtype": "F32", "shape": [4, 1], "data_offsets": [0, 64]}}, b"\0" * 16),
        "size": _safetensors_bytes({"w": {"dtype": "F32", "shape": [4, 2], "data_offsets": [0, 16]}}, b"\0" * 16),
        "dtype": _safetensors_bytes({"w": {"dtype": "X9", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 16),
        "json": struct.pack("<Q", 3) + b"{x}",
    }
    for name, raw in bad.items():
        (tmp_path / f"{name}.safetensors").write_bytes(raw)
        with pytest.raises(InputError):
            safetensors_header(tmp_path / f"{name}.safetensors")
    # a state dict whose header says H = 9,000 > the limit (a sparse file: no disk used): refused from the
    # header, nothing loaded
    rows = 9000
    raw = json.dumps({"weight_ih_l0": {"dtype": "F32", "shape": [rows, 1], "data_offsets": [0, 4 * rows]},
                      "weight_hh_l0": {"dtype": "F32", "shape": [rows, rows],
                                       "data_offsets": [4 * rows, 4 * rows + 4 * rows * rows]}}).encode()
    with open(tmp_path / "big.safetensors", "wb") as fh:
        fh.write(struct.pack("<Q", len(raw)) + raw)
        fh.truncate(8 + len(raw) + 4 * rows + 4 * rows * rows)

    def never(*a, **k):
        raise AssertionError("loaded before the sizes were checked")

    monkeypatch.setattr(safetensors_torch, "load_file", never)
    from rnnaudit.user_models import load_state_dict_file

    with pytest.raises(TooLargeError, match="hidden = 9000"):
        load_state_dict_file(tmp_path / "big.safetensors")


# ------------------------------------------------------------------------ wording and notes

@pytest.mark.parametrize("verdict,expected", [
    ("holds", "assumptions hold and the bound holds on this model"),
    ("vacuous", "assumptions hold and the bound holds on this model"),
    ("violated", "assumptions hold and the bound is exceeded on this model (ratio 1.5)"),
    ("false", "assumptions hold and the bound is exceeded on this model (ratio 1.5)"),
    ("misprinted", "assumptions hold and the bound is exceeded on this model (ratio 1.5)"),
])
def test_readings_speak_of_the_model(verdict, expected):
    ok = [{"name": "a", "holds": True, "detail": ""}]
    c = ClaimOnModel("x.y", True, None, ok, verdict, 1.5)
    assert c.reading == expected and c.exceeded == (verdict not in ("holds", "vacuous"))
    fails = ClaimOnModel("x.y", True, None, [{"name": "a", "holds": False, "detail": ""}], verdict, 1.5)
    assert fails.reading == "an assumption fails, so the theorem says nothing here" and not fails.exceeded
    assert ClaimOnModel("x.y", False, "an LSTM").reading == "not applicable: an LSTM"
    for word in ("false", "misprinted", "violated"):
        assert word not in c.reading and word not in fails.reading


def test_failing_assumption_note_says_what_is_measured_and_the_remedy():
    assert "orthogonal(" in remedy("W orthogonal") and "spectral_norm" in remedy("‖W^(S)‖₂ < 1")
    assert remedy("σ = ReLU (Theorem 3.1)") is None
    result = {"claims": [{"id": "p.t", "applies": True, "assumptions": [
        {"name": "W orthogonal", "holds": False, "detail": "‖WᵀW − I‖₂ = 0.4"}]}],
        "diagnostics": [{"part": "layer 0", "contractivity": 1.3, "T": 50, "horizon": None,
                         "lyapunov": [0.02], "lyapunov_halfwidth": [0.01]}]}
    (note,) = assumption_notes(result)
    assert "theorem says nothing here" in note["line"]
    assert "max ‖∂h_t/∂h_{t−1}‖₂ (layer 0) = 1.3 (not contractive" in note["line"]
    assert "beyond T = 50" in note["line"] and "parametrizations.orthogonal" in note["line"]
    result["claims"][0]["assumptions"][0]["holds"] = True
    assert assumption_notes(result) == []


def test_memory_horizon_lower_bounds_are_below_every_product_norm_and_decide_the_same_lag():
    """The row-vector lower bounds that skip the products are below ‖J_t ⋯ J_{t−τ+1}‖₂ at every (t, τ), and the
    horizon and the reported median at the last lag are those of forming every product (brute force)."""
    from rnnaudit.analysis.diagnostics import _row_lower_bounds

    for seed, scale in ((0, 1.3), (1, 0.9), (2, 0.6)):
        torch.manual_seed(seed)
        J = scale * torch.randn(2, 25, 5, 5, dtype=torch.float64) / 5 ** 0.5
        times = torch.arange(1, 26)
        low = _row_lower_bounds(J, times).exp()
        medians = {}
        for tau in range(1, 26):
            norms = []
            for b in range(2):
                for t in range(tau, 26):
                    P = torch.eye(5, dtype=torch.float64)
                    for k in range(t - tau + 1, t + 1):
                        P = J[b, k - 1] @ P
                    norm = torch.linalg.matrix_norm(P, 2)
                    assert low[b, t - 1, tau] <= norm
                    norms.append(norm)
            medians[tau] = float(torch.stack(norms).median())
        expected = next((tau for tau in range(1, 26) if medians[tau] < 1e-3), None)
        horizon, reported = memory_horizon(J)
        assert horizon == expected
        assert reported[-1] >= medians[horizon or 25] * (1 - 1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_audit_with_closed_form_step_jacobians_reports_what_autograd_gives(seed, monkeypatch):
    """Every claim's verdict and worst ratio, and the diagnostics, are those of the same audit with the step
    Jacobians formed by autograd (jacrev), to rounding, on a GRU and a 2-layer LSTM."""
    import rnnaudit
    from rnnaudit.bounds import architectures

    torch.manual_seed(seed)
    for module in (torch.nn.GRU(3, 6, batch_first=True), torch.nn.LSTM(3, 5, num_layers=2, batch_first=True)):
        x = torch.randn(2, 14, 3)
        fast = rnnaudit.audit(module, x)
        with monkeypatch.context() as m:
            m.setattr(architectures, "CLOSED_FORM_KINDS", ())
            slow = rnnaudit.audit(module, x)
        assert [c["id"] for c in fast["claims"]] == [c["id"] for c in slow["claims"]]
        for a, b in zip(fast["claims"], slow["claims"]):
            assert a["applies"] == b["applies"] and a.get("verdict") == b.get("verdict"), a["id"]
            if isinstance(a.get("worst_ratio"), float) and isinstance(b.get("worst_ratio"), float):
                assert a["worst_ratio"] == pytest.approx(b["worst_ratio"], rel=1e-9, abs=1e-12), a["id"]
        assert any(c["applies"] for c in fast["claims"])
        for a, b in zip(fast["diagnostics"], slow["diagnostics"]):
            assert a["contractivity"] == pytest.approx(b["contractivity"], rel=1e-12)
            assert a["horizon"] == b["horizon"]
            assert a["lyapunov"] == pytest.approx(b["lyapunov"], rel=1e-9, abs=1e-12)
