"""Complex states and weights are probed as the real state (Re z, Im z); where complex is still unsupported (complex
inputs, torch's own RNN modules, the audit, the Monitor, weights files) it is refused with one line naming the tensor
or argument and the surface: no cast is suggested (a cast to a real dtype drops the imaginary part, and a diagonal
complex recurrence then reports a wrong λ₁)."""

import pytest
import torch
from torch import nn

import rnnaudit
from rnnaudit import hidden_jacobian_maps, wrap
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.real_view import RealView
from tests.conftest import cli_status

NOT_YET = "complex tensors are not supported yet"


class DiagonalComplex(nn.Module):
    """h' = λ ⊙ h + x with complex λ: exponents log|λ_i| known exactly."""

    input_size = hidden_size = 2

    def __init__(self):
        super().__init__()
        self.lam = nn.Parameter(torch.tensor([0.99 + 0.05j, 0.9 - 0.1j], dtype=torch.complex128))

    def step(self, x_t, h):
        return self.lam * h + x_t


class ComplexCell(RecurrentCell):
    """A RecurrentCell of the user's own, not passed through wrap()."""

    input_size = hidden_size = 2

    def __init__(self):
        super().__init__()
        self.W = nn.Parameter(torch.eye(2, dtype=torch.complex128) * 0.5)

    def step(self, x_t, h):
        return h @ self.W.T + x_t


def _refusal(message: str, what: str) -> None:
    assert what in message and NOT_YET in message, message
    assert ".to(" not in message and "convert" not in message, message  # no cast suggested


def test_wrap_takes_a_complex_step_as_its_real_view_and_refuses_complex_torch_rnns():
    cell = wrap(DiagonalComplex())
    assert isinstance(cell, RealView) and cell.hidden_size == 4
    module = nn.GRU(2, 3)
    module.register_buffer("phase", torch.ones(3, dtype=torch.complex64))
    with pytest.raises(ValueError) as err:
        wrap(module)
    _refusal(str(err.value), "buffer 'phase' is complex (complex64)")
    assert "in torch.nn.RNN/GRU/LSTM" in str(err.value)
    free = wrap(lambda x_t, h: 0.5j * h, input_size=2, state_size=2, dtype=torch.complex128)
    assert isinstance(free, RealView) and free.hidden_size == 4


def test_the_probes_refuse_complex_inputs_and_take_a_complex_cell_as_its_real_view():
    cell = wrap(nn.GRU(2, 3).double())
    with pytest.raises(ValueError) as err:
        hidden_jacobian_maps(cell, torch.randn(5, 2, dtype=torch.complex64))
    _refusal(str(err.value), "x is complex (complex64)")
    assert "as inputs" in str(err.value) and "complex64; convert to complex64" not in str(err.value)
    # a RecurrentCell with a complex W = I/2: ‖∂h_t/∂h_s‖₂ = 2^−(t−s) on the real view (the complex norm)
    maps = hidden_jacobian_maps(ComplexCell(), torch.randn(5, 2, dtype=torch.float64), method="dense")
    t, s = torch.tril_indices(6, 6)
    assert torch.equal(maps.spectral[t, s], torch.ldexp(torch.ones(t.numel(), dtype=torch.float64), s - t))
    assert ComplexCell()(torch.randn(1, 5, 2, dtype=torch.float64)).dtype == torch.complex128
    with pytest.raises(ValueError) as err:
        cell(torch.randn(1, 5, 2, dtype=torch.float64), torch.zeros(1, 3, dtype=torch.complex128))
    _refusal(str(err.value), "h0 is complex (complex128)")
    assert "as the state of a real cell" in str(err.value)


def test_audit_refuses_complex_weights_and_inputs():
    with pytest.raises(TypeError) as err:
        rnnaudit.audit(DiagonalComplex(), torch.randn(5, 2))
    _refusal(str(err.value), "model: parameter 'lam' is complex (complex128)")
    assert "by the audit" in str(err.value)
    with pytest.raises(ValueError) as err:
        rnnaudit.audit(nn.GRU(2, 3), torch.randn(5, 2, dtype=torch.complex64))
    _refusal(str(err.value), "inputs is complex (complex64)")


def test_monitor_refuses_a_complex_model_and_complex_inputs(tmp_path):
    with pytest.raises(ValueError) as err:
        rnnaudit.Monitor(DiagonalComplex(), tmp_path / "a")
    _refusal(str(err.value), "parameter 'lam' is complex (complex128)")
    assert "by the Monitor" in str(err.value)
    with pytest.raises(ValueError) as err:
        rnnaudit.Monitor(nn.GRU(2, 3), tmp_path / "b", inputs=torch.randn(5, 2, dtype=torch.complex64))
    _refusal(str(err.value), "inputs is complex (complex64)")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.mark.parametrize("case", ["weights", "inputs"])
def test_the_cli_refuses_complex_weights_and_inputs_in_one_line(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sd = nn.GRU(2, 3).state_dict()
    if case == "weights":
        sd["weight_hh_l0"] = sd["weight_hh_l0"].to(torch.complex64)
    torch.save(sd, "w.pt")
    torch.save(torch.randn(1, 6, 2, dtype=torch.complex64 if case == "inputs" else torch.float64), "x.pt")
    for command in (["audit", "--out", "a"], ["heatmap", "--inputs", "x.pt", "--out", "h.png"]):
        extra = ["--inputs", "x.pt"] if command[0] == "audit" else []
        assert cli_status([*command, "--weights", "w.pt", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        _refusal(err, "'weight_hh_l0' is complex (complex64)" if case == "weights" else
                 "inputs file 'x.pt': the tensor is complex (complex64)")
    assert not (tmp_path / "a").exists() and not (tmp_path / "h.png").exists()


def test_a_complex_torch_module_is_refused_by_fixed_points_and_a_model_factory_before_any_cast(tmp_path, capsys,
                                                                                                monkeypatch):
    """rnnaudit.fixed_points and --model took their float64 copy first, which dropped the imaginary parts: the
    copy itself now refuses. Control: the same module in float32 is searched."""
    torch.manual_seed(0)
    gru = nn.GRU(3, 4, batch_first=True)
    x = torch.randn(2, 6, 3)
    with pytest.raises(ValueError, match=NOT_YET):
        rnnaudit.fixed_points(gru.to(torch.complex64), x)
    assert len(rnnaudit.fixed_points(nn.GRU(3, 4, batch_first=True), x, n_starts=4)) >= 0
    (tmp_path / "cplx_factory.py").write_text(
        "import torch\n\ndef make():\n    return torch.nn.GRU(3, 4, batch_first=True).to(torch.complex64)\n")
    monkeypatch.chdir(tmp_path)
    assert cli_status(["spectrum", "--model", "cplx_factory:make", "--out", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and NOT_YET in err and ".to(torch.float" not in err, err
    assert not (tmp_path / "s.png").exists()
    # the model's own dtype (not the float64 probe copy's complex128), and no --submodule hint, which cannot help
    assert "is complex (complex64)" in err and "--submodule" not in err, err


def test_fixed_points_take_one_direction_of_a_bidirectional_module_as_wrap_gives_it():
    """wrap(bi, direction='reverse') is one recurrence; fixed_points refused it as 'two recurrences'. It is now
    searched as that direction: the same points as the reverse weights in a unidirectional module."""
    torch.manual_seed(1)
    bi = nn.GRU(3, 4, bidirectional=True, batch_first=True).double()
    uni = nn.GRU(3, 4, batch_first=True).double()
    uni.load_state_dict({k.replace("_reverse", ""): v for k, v in bi.state_dict().items() if k.endswith("_reverse")})
    x = torch.randn(2, 8, 3, dtype=torch.float64)
    one = rnnaudit.fixed_points(wrap(bi, direction="reverse"), x.flip(-2), n_starts=8, seed=0)
    ref = rnnaudit.fixed_points(uni, x.flip(-2), n_starts=8, seed=0)
    assert len(one) == len(ref) >= 1
    torch.testing.assert_close(one.points, ref.points, rtol=1e-9, atol=1e-10)
