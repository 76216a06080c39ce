"""Checkpoints as PyTorch users save them (rnnaudit/checkpoints.py): a whole model's state dict, a Lightning
checkpoint, a wrapped model's keys, prefixed safetensors. Each reads the same recurrent weights, and gives the
same audit numbers, as the recurrent module's own state dict; each layout it cannot choose for the user is
one line, exit 2, listing the recurrent prefixes it found and the flag to pass."""

import argparse
import json
import re
import struct
import sys
import textwrap

import pytest
import torch
from safetensors.torch import save_file
from torch import nn

from rnnaudit.checkpoints import recurrent_prefixes, select_recurrent
from rnnaudit.sources import load_user_source
from rnnaudit.untrusted import InputError
from tests.conftest import cli_status


class Net(nn.Module):
    """A whole model: an embedding-free 2-layer LSTM and a linear head."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(2, 5, num_layers=2, batch_first=True)
        self.head = nn.Linear(5, 2)


class EncoderDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Net()
        self.decoder = nn.Module()
        self.decoder.rnn = nn.GRU(2, 4)


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(0)
    return Net()


def _lightning(state_dict: dict, prefix: str = "model.") -> dict:
    """What ``Trainer.save_checkpoint`` writes, with plain hyper-parameters (so weights_only=True reads it)."""
    inner = {f"{prefix}{k}": v for k, v in state_dict.items()}
    optimizer = torch.optim.Adam([nn.Parameter(torch.zeros(1))]).state_dict()
    return {"epoch": 3, "global_step": 120, "pytorch-lightning_version": "2.4.0", "state_dict": inner,
            "loops": {"fit_loop": {"epoch_progress": {"current": {"completed": 3}}}}, "callbacks": {},
            "optimizer_states": [optimizer], "lr_schedulers": [], "hparams_name": "kwargs",
            "hyper_parameters": {"hidden": 5, "lr": 1e-3}}


def _save(kind: str, net: Net, path):
    sd = net.state_dict()
    rnn = net.rnn.state_dict()
    if kind == "plain":
        torch.save(rnn, path)
    elif kind == "whole":
        torch.save(sd, path)
    elif kind == "lightning":
        torch.save(_lightning(sd), path)
    elif kind == "data_parallel":
        torch.save({f"module.{k}": v for k, v in rnn.items()}, path)
    elif kind == "data_parallel_whole":
        torch.save({f"module.{k}": v for k, v in sd.items()}, path)
    elif kind == "compiled_in_data_parallel":
        torch.save({f"module._orig_mod.{k}": v for k, v in sd.items()}, path)
    elif kind in ("hf_safetensors", "safetensors_named_pt"):
        save_file({**{f"encoder.rnn.{k}": v.contiguous() for k, v in rnn.items()},
                   "encoder.head.weight": sd["head.weight"].contiguous()}, str(path))
    elif kind == "uppercase_suffix":
        save_file({k: v.contiguous() for k, v in rnn.items()}, str(path))
    return path


NAMES = {"plain": "w.pt", "whole": "w.pt", "lightning": "epoch=3.ckpt", "data_parallel": "w.pt",
         "compiled_in_data_parallel": "w.pt", "hf_safetensors": "model.safetensors",
         "safetensors_named_pt": "model.pt", "uppercase_suffix": "MODEL.SAFETENSORS"}


def _diagnostics(src):
    """The numbers the audit reports per layer (its one engine: rnnaudit.analysis.diagnostics, over every
    sequence, as the audit measures them)."""
    from rnnaudit.analysis.diagnostics import state_diagnostics
    from rnnaudit.auditing.layers import recurrences

    return [(p.label, state_diagnostics(p.cell, p.inputs, max_sequences=p.inputs.shape[0]).to_json())
            for p in recurrences(src.module, src.x)]


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_every_checkpoint_layout_reads_the_recurrent_weights_and_audit_numbers_of_the_plain_state_dict(
        kind, net, tmp_path):
    plain = load_user_source(None, _save("plain", net, tmp_path / "plain.pt"), None, T=12, n_sequences=2)
    path = _save(kind, net, tmp_path / NAMES[kind])
    src = load_user_source(None, path, None, T=12, n_sequences=2)
    assert src.module.state_dict().keys() == plain.module.state_dict().keys()
    for key, value in plain.module.state_dict().items():
        assert torch.equal(src.module.state_dict()[key], value), key
    (label, got), (_, want) = _diagnostics(src)[1], _diagnostics(plain)[1]
    assert label == "layer 1"
    assert got["contractivity"] == want["contractivity"] and got["lyapunov"] == want["lyapunov"]
    if kind in ("whole", "lightning", "hf_safetensors", "safetensors_named_pt"):
        assert any("the only recurrent module" in n for n in src.notes), src.notes  # said, never silent
        assert "the file's only recurrent module" in src.label


def test_a_lightning_checkpoint_audited_by_the_cli_reports_the_plain_modules_numbers(net, tmp_path, capsys):
    path = _save("lightning", net, tmp_path / "epoch=3.ckpt")
    out = tmp_path / "audit"
    assert cli_status(["audit", "--weights", str(path), "--T", "8", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "note: " in printed and "'model.rnn' (LSTM, 2 layers)" in printed and "--submodule model.rnn" in printed
    doc = json.loads((out / "audit.json").read_text())
    assert doc["source_notes"] and "model.rnn" in doc["source_notes"][0]
    plain = load_user_source(None, _save("plain", net, tmp_path / "plain.pt"), None, T=8, n_sequences=4)
    for reported, (label, want) in zip(doc["latest"]["diagnostics"], _diagnostics(plain)):
        assert reported["part"] == label
        assert reported["contractivity"] == pytest.approx(want["contractivity"], rel=1e-12)
        assert reported["lyapunov"] == pytest.approx(want["lyapunov"], rel=1e-12)


def test_submodule_selects_one_of_several_recurrent_modules(tmp_path):
    torch.manual_seed(1)
    model = EncoderDecoder()
    torch.save(model.state_dict(), tmp_path / "w.pt")
    src = load_user_source(None, tmp_path / "w.pt", None, submodule="decoder.rnn", with_inputs=False)
    assert isinstance(src.module, nn.GRU) and src.module.hidden_size == 4
    for key, value in model.decoder.rnn.state_dict().items():
        assert torch.equal(src.module.state_dict()[key], value.double())


def _error(argv, capsys) -> str:
    assert cli_status(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_whole_model_with_several_recurrent_modules_is_one_line_listing_them_and_the_flag(tmp_path, capsys):
    torch.save(EncoderDecoder().state_dict(), tmp_path / "w.pt")
    err = _error(["spectrum", "--weights", str(tmp_path / "w.pt"), "--out", str(tmp_path / "s.png")], capsys)
    assert err == (f"rnnaudit: error: {tmp_path / 'w.pt'}: a whole model's state dict; recurrent weights found under "
                   "'encoder.rnn' (LSTM, 2 layers) and 'decoder.rnn' (GRU); pass --submodule encoder.rnn")
    src = load_user_source(None, tmp_path / "w.pt", "lstm", submodule="encoder", with_inputs=False)
    assert isinstance(src.module, nn.LSTM)  # 'encoder' holds one recurrent module, deeper down: said, and read
    assert "read the recurrent weights under 'encoder.rnn' (LSTM, 2 layers), the only recurrent module in " \
           "'encoder'" in src.notes[0]
    err = _error(["spectrum", "--weights", str(tmp_path / "w.pt"), "--submodule", "enc", "--out",
                  str(tmp_path / "s.png")], capsys)
    assert "--submodule 'enc': no tensors under that prefix; recurrent weights found under 'encoder.rnn'" in err


def test_a_wrong_arch_under_submodule_is_one_line_naming_the_arch_of_the_shapes(tmp_path, capsys):
    """--arch gru --submodule encoder.rnn on a file whose encoder.rnn is an LSTM: the line says the shapes are an
    LSTM's and which flag to pass, as without --submodule. Control: --arch lstm with the same prefix loads."""
    torch.save(EncoderDecoder().state_dict(), tmp_path / "w.pt")
    err = _error(["spectrum", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--submodule", "encoder.rnn",
                  "--out", str(tmp_path / "s.png")], capsys)
    assert "arch 'gru' stacks 3 gate blocks: weight_ih_l0 must have a multiple of 3 rows, got shape (20, 2)" in err
    assert err.endswith("the shapes are a torch.nn.LSTM's: pass --arch lstm, or leave out --arch"), err
    src = load_user_source(None, tmp_path / "w.pt", "lstm", submodule="encoder.rnn", with_inputs=False)
    assert isinstance(src.module, nn.LSTM) and src.module.num_layers == 2


def test_a_prefix_from_the_file_reaches_the_terminal_escaped_and_the_suggested_flag_shell_quoted(tmp_path, capsys):
    gru = nn.GRU(2, 3).state_dict()
    shell = "$(touch pwned).rnn"
    torch.save({f"{shell}.{k}": v for k, v in gru.items()}, tmp_path / "shell.pt")
    _, note = select_recurrent(torch.load(tmp_path / "shell.pt", weights_only=True), None, "shell.pt")
    assert "--submodule '$(touch pwned).rnn' selects it explicitly" in note
    two = {**{f"{shell}.{k}": v for k, v in gru.items()}, **{f"b.{k}": v for k, v in gru.items()}}
    torch.save(two, tmp_path / "two.pt")
    err = _error(["spectrum", "--weights", str(tmp_path / "two.pt"), "--out", str(tmp_path / "s.png")], capsys)
    assert err.endswith("pass --submodule '$(touch pwned).rnn'")
    err = _error(["spectrum", "--weights", str(tmp_path / "two.pt"), "--submodule", "x", "--out",
                  str(tmp_path / "s.png")], capsys)
    assert err.endswith("pass --submodule '$(touch pwned).rnn'")
    control = "a\nb\x1b[31m.rnn"
    _, note = select_recurrent({f"{control}.{k}": v for k, v in gru.items()}, None, "ctrl.pt")
    assert "\n" not in note and "\x1b" not in note and "\\x1b[31m" in note and "U+000A" in note
    with pytest.raises(InputError) as raised:
        select_recurrent({**{f"{control}.{k}": v for k, v in gru.items()}, **{f"b.{k}": v for k, v in gru.items()}},
                         None, "ctrl.pt")
    assert "\n" not in str(raised.value) and "\x1b" not in str(raised.value)


def test_a_lightning_checkpoint_of_two_recurrent_modules_names_its_layout(tmp_path, capsys):
    torch.save(_lightning(EncoderDecoder().state_dict(), "net."), tmp_path / "last.ckpt")
    err = _error(["spectrum", "--weights", str(tmp_path / "last.ckpt"), "--out", str(tmp_path / "s.png")], capsys)
    assert err.endswith(": a Lightning checkpoint's state dict; recurrent weights found under 'net.encoder.rnn' "
                        "(LSTM, 2 layers) and 'net.decoder.rnn' (GRU); pass --submodule net.encoder.rnn")


def test_a_state_dict_with_no_recurrent_weights_says_so(tmp_path, capsys):
    torch.save(nn.Linear(2, 3).state_dict(), tmp_path / "w.pt")
    err = _error(["spectrum", "--weights", str(tmp_path / "w.pt"), "--out", str(tmp_path / "s.png")], capsys)
    assert "a whole model's state dict with no recurrent weights (no weight_hh_l0 or weight_hh" in err


def test_a_lightning_checkpoint_weights_only_refuses_is_one_line_saying_how_to_save_the_weights(tmp_path, capsys):
    ckpt = _lightning(Net().state_dict())
    ckpt["hyper_parameters"] = argparse.Namespace(hidden=5)  # save_hyperparameters(args): a pickled class
    torch.save(ckpt, tmp_path / "last.ckpt")
    err = _error(["spectrum", "--weights", str(tmp_path / "last.ckpt"), "--out", str(tmp_path / "s.png")], capsys)
    assert "a Lightning checkpoint holding Python objects other than tensors" in err
    assert "argparse.Namespace" in err and "torch.save(lightning_module.state_dict()" in err
    assert "weights_only=False" not in err


def test_recurrent_prefixes_describe_layers_directions_and_cells():
    found = {f.prefix: f.description for f in recurrent_prefixes({
        **{f"a.{k}": v for k, v in nn.GRU(2, 3, num_layers=3, bidirectional=True).state_dict().items()},
        **{f"b.{k}": v for k, v in nn.LSTMCell(2, 3).state_dict().items()},
        **{f"c.{k}": v for k, v in nn.RNN(2, 3).state_dict().items()}, "head.weight": torch.zeros(1)})}
    assert found == {"a": "GRU, 3 layers, bidirectional", "b": "LSTMCell", "c": "RNN"}


def test_select_recurrent_takes_a_plain_state_dict_as_it_is_and_strips_wrappers():
    sd = nn.GRU(2, 3).state_dict()
    assert select_recurrent(sd, None, "w.pt") == (sd, None)
    got, note = select_recurrent({f"module._orig_mod.{k}": v for k, v in sd.items()}, None, "w.pt")
    assert got.keys() == sd.keys() and "'module._orig_mod.'" in note
    with pytest.raises(InputError, match="its recurrent weights are at the top level: leave out --submodule"):
        select_recurrent(sd, "rnn", "w.pt")


# ----------------------------------------------------------------------------- --model factories that wrap

@pytest.fixture
def factories(tmp_path, monkeypatch):
    (tmp_path / "wrapped_models.py").write_text(textwrap.dedent("""
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(2, 5, num_layers=2, batch_first=True)
                self.head = nn.Linear(5, 2)

        class DDPLike(nn.Module):  # DistributedDataParallel needs a process group: the same attribute layout
            def __init__(self, module):
                super().__init__()
                self.module = module

        def data_parallel():
            return nn.DataParallel(Net())

        def ddp_like():
            return DDPLike(Net())

        def compiled():
            return torch.compile(Net())

        def plain():
            return Net()
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path
    sys.modules.pop("wrapped_models", None)


@pytest.mark.parametrize("factory", ["data_parallel", "ddp_like", "compiled", "plain"])
@pytest.mark.parametrize("layout", ["whole", "data_parallel_whole", "compiled_in_data_parallel", "lightning"])
def test_a_wrapped_factory_loads_weights_saved_with_or_without_the_wrappers_prefix(factories, net, factory, layout):
    path = _save(layout, net, factories / "w.pt")
    src = load_user_source(f"wrapped_models:{factory}", path, submodule="rnn", with_inputs=False)
    for key, value in net.rnn.state_dict().items():
        assert torch.equal(src.module.state_dict()[key], value.double()), key
    if factory != "plain":
        assert any("returned a wrapper" in n for n in src.notes)


def test_a_factory_module_with_no_submodule_named_lists_its_recurrent_submodules(factories, capsys):
    err = _error(["spectrum", "--model", "wrapped_models:data_parallel", "--out", "s.png"], capsys)
    assert "its recurrent submodules are 'rnn' (LSTM); pass --submodule rnn" in err


# ----------------------------------------------------------------------------- safetensors


def _safetensors_bytes(header_json: str, data: bytes) -> bytes:
    raw = header_json.encode()
    return struct.pack("<Q", len(raw)) + raw + data


def test_a_safetensors_header_naming_a_tensor_twice_is_one_line_saying_so(tmp_path, capsys):
    entry = '{"dtype": "F64", "shape": [1], "data_offsets": [0, 8]}'
    (tmp_path / "w.safetensors").write_bytes(_safetensors_bytes(f'{{"weight_hh": {entry}, "weight_hh": {entry}}}',
                                                                bytes(8)))
    err = _error(["spectrum", "--weights", str(tmp_path / "w.safetensors"), "--out", str(tmp_path / "s.png")], capsys)
    assert err.endswith("w.safetensors: the safetensors header names 'weight_hh' twice; a tensor name must be unique "
                        "(the file is damaged or was not written by a safetensors library)")


def test_a_safetensors_header_claiming_huge_sizes_is_refused_before_allocation(tmp_path, capsys):
    entry = '{"dtype": "F64", "shape": [100000, 100000], "data_offsets": [0, 80000000000]}'
    (tmp_path / "W.SAFETENSORS").write_bytes(_safetensors_bytes(f'{{"weight_hh_l0": {entry}}}', bytes(8)))
    err = _error(["spectrum", "--weights", str(tmp_path / "W.SAFETENSORS"), "--out", str(tmp_path / "s.png")], capsys)
    assert "'weight_hh_l0': bytes [0, 80000000000) do not hold" in err


def test_a_safetensors_header_with_a_5000_digit_integer_or_bad_utf8_names_the_file_and_what_is_wrong(tmp_path,
                                                                                                         capsys):
    """A 5000-digit size gave Python's int-conversion limit message, naming neither the file nor the header and
    suggesting to raise the interpreter's limit; invalid UTF-8 was called "not JSON"."""
    entry = f'{{"dtype": "F64", "shape": [{"9" * 5000}], "data_offsets": [0, 8]}}'
    (tmp_path / "big.safetensors").write_bytes(_safetensors_bytes(f'{{"weight_hh": {entry}}}', bytes(8)))
    err = _error(["spectrum", "--weights", str(tmp_path / "big.safetensors"), "--out", str(tmp_path / "s.png")],
                 capsys)
    assert err.endswith("big.safetensors: the safetensors header holds a number too long to be a size or offset")
    raw = b'{"\xff": 1}'
    (tmp_path / "utf.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw)
    err = _error(["spectrum", "--weights", str(tmp_path / "utf.safetensors"), "--out", str(tmp_path / "s.png")],
                 capsys)
    assert err.endswith("utf.safetensors: the safetensors header is not UTF-8 text (byte 10)")


# ----------------------------------------------------------------------------- bidirectional modules from --weights

def test_a_bidirectional_state_dict_from_weights_audits_each_direction(tmp_path, monkeypatch):
    from rnnaudit import wrap
    from rnnaudit.analysis.diagnostics import state_diagnostics

    monkeypatch.chdir(tmp_path)
    torch.manual_seed(6)
    bi = nn.GRU(2, 4, bidirectional=True, batch_first=True)
    torch.save({f"encoder.{k}": v for k, v in bi.state_dict().items()}, "w.pt")  # a whole model's, too
    x = torch.randn(2, 8, 2, dtype=torch.float64)
    torch.save(x, "x.pt")
    assert cli_status(["audit", "--weights", "w.pt", "--inputs", "x.pt", "--out", "a"]) == 0
    doc = json.loads((tmp_path / "a" / "audit.json").read_text())
    assert doc["model"]["bidirectional"] is True
    assert [d["part"] for d in doc["latest"]["diagnostics"]] == ["layer 0, forward", "layer 0, reverse"]
    assert {c.get("part") for c in doc["latest"]["claims"]} == {"layer 0, forward", "layer 0, reverse"}
    reverse = nn.GRU(2, 4, batch_first=True, dtype=torch.float64)  # the reverse weights alone, on reversed time
    reverse.load_state_dict({k.replace("_reverse", ""): v.double() for k, v in bi.state_dict().items()
                             if k.endswith("_reverse")})
    alone = state_diagnostics(wrap(reverse), x.flip(1)).to_json()
    assert doc["latest"]["diagnostics"][1]["contractivity"] == pytest.approx(alone["contractivity"], rel=1e-12)
    assert doc["latest"]["diagnostics"][1]["lyapunov"] == pytest.approx(alone["lyapunov"], rel=1e-12)


def test_heatmap_direction_reverse_is_the_python_map_of_wrap_direction_reverse(tmp_path, monkeypatch, capsys):
    import numpy as np

    from rnnaudit import hidden_jacobian_maps, wrap

    monkeypatch.chdir(tmp_path)
    torch.manual_seed(7)
    bi = nn.GRU(2, 4, bidirectional=True).double().eval()
    torch.save(bi.state_dict(), "bi.pt")
    x = torch.randn(10, 2, dtype=torch.float64)
    torch.save(x, "x.pt")
    assert cli_status(["heatmap", "--weights", "bi.pt", "--inputs", "x.pt", "--direction", "reverse", "--certified",
                       "--out", "h.png"]) == 0
    data = np.load(tmp_path / "h.npz")
    (cli_map,) = [data[k] for k in data.files if data[k].shape == (11, 11)]
    python_map = hidden_jacobian_maps(wrap(bi, direction="reverse"), x.flip(0)).spectral.numpy()
    np.testing.assert_allclose(cli_map, python_map, rtol=1e-9, atol=0, equal_nan=True)
    forward = hidden_jacobian_maps(wrap(bi, direction="forward"), x).spectral.numpy()
    assert not np.allclose(np.nan_to_num(cli_map), np.nan_to_num(forward))  # the direction did change the map
    capsys.readouterr()
    assert cli_status(["heatmap", "--weights", "bi.pt", "--inputs", "x.pt", "--out", "h2.png"]) == 2
    assert "pass --direction forward or --direction reverse" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["spectrum", "lyapunov"])
def test_spectrum_and_lyapunov_take_one_direction_of_a_stacked_bidirectional_lstm(command, tmp_path, monkeypatch,
                                                                                  capsys):
    monkeypatch.chdir(tmp_path)
    torch.manual_seed(8)
    bi = nn.LSTM(2, 3, num_layers=2, bidirectional=True)
    torch.save(bi.state_dict(), "bi.pt")
    extra = ["--T", "12"] if command == "lyapunov" else []
    assert cli_status([command, "--weights", "bi.pt", "--direction", "reverse", *extra, "--out", "f.png"]) == 0
    printed = capsys.readouterr().out
    if command == "lyapunov":
        assert "layer 1, reverse direction (on reversed time" in printed
    else:
        import numpy as np

        data = np.load(tmp_path / "f.npz")
        eig = [k for k in data.files if k.endswith("eigenvalues")]
        assert len(eig) == 8  # both layers' four gate matrices of the reverse direction
        W = bi.weight_hh_l1_reverse.detach().double().chunk(4)[0]
        want = np.sort_complex(torch.linalg.eigvals(W).numpy())
        got = [np.sort_complex(data[k]) for k in eig if k.startswith("l1") and "W_hi" in k]
        np.testing.assert_allclose(got[0], want, rtol=1e-10)
    assert cli_status([command, "--weights", "bi.pt", "--direction", "sideways", "--out", "f.png"]) == 2
    torch.save(nn.GRU(2, 3).state_dict(), "uni.pt")
    capsys.readouterr()
    assert _error([command, "--weights", "uni.pt", "--direction", "reverse", "--out", "f.png"], capsys).endswith(
        "--direction reverse: the GRU is unidirectional (no _reverse weights)")
    assert "goes with --model, --arch or --weights, not with SOURCE" in _error(
        [command, "sgornn", "--direction", "forward", "--out", "f.png"], capsys)

#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    'test_spectrum_and_lyapunov_take_one_direction_of_a_stacked_bidirectional_lstm': {'spectrum'},
}


def test_weights_no_arch_can_have_are_named_as_such_and_integer_weights_do_not_name_arch_none(tmp_path, capsys):
    """weight_hh_l0 of 18 × 5 or 1-D was answered "cannot tell … pass --arch rnn|gru|lstm", which no --arch fixes;
    integer weights without --arch read "the weights of --arch None". Control: a GRU's own shapes load."""
    gru = nn.GRU(5, 6).state_dict()
    for name, hh in (("odd", torch.zeros(18, 5)), ("flat", torch.zeros(18))):
        torch.save({**gru, "weight_hh_l0": hh}, tmp_path / f"{name}.pt")
        err = _error(["spectrum", "--weights", str(tmp_path / f"{name}.pt"), "--out", str(tmp_path / "s.png")],
                     capsys)
        assert f"weight_hh is {tuple(hh.shape)}: no torch RNN, GRU or LSTM has that shape" in err, err
        assert "pass --arch" not in err
    torch.save({k: v.to(torch.int64) for k, v in gru.items()}, tmp_path / "int.pt")
    err = _error(["spectrum", "--weights", str(tmp_path / "int.pt"), "--out", str(tmp_path / "s.png")], capsys)
    assert "--arch None" not in err and "the weights of a torch RNN, GRU or LSTM must be real floating tensors" in err
    src = load_user_source(None, _save_gru(gru, tmp_path / "good.pt"), None, with_inputs=False)
    assert isinstance(src.module, nn.GRU)


def _save_gru(state_dict, path):
    torch.save(state_dict, path)
    return path


def test_the_prefix_hint_of_a_state_dict_without_its_first_weight_is_shell_quoted():
    from rnnaudit.user_models import model_from_state_dict

    sd = {k: v for k, v in nn.GRU(2, 3).state_dict().items() if k != "weight_ih_l0"}
    sd["$(touch pwned) x.weight_ih_l0"] = torch.zeros(3)
    with pytest.raises(ValueError, match=re.escape("pass --submodule '$(touch pwned) x'")):
        model_from_state_dict(sd, "gru")


def test_the_label_names_the_only_recurrent_prefix_read_from_its_shell_quoted_flag(tmp_path):
    """The label read the prefix back from the note's flag, which is now shell-quoted: a prefix with a space and
    "$(…)" is named whole. Control: a plain prefix as before."""
    gru = nn.GRU(2, 3).state_dict()
    for prefix in ("encoder.rnn", "$(touch pwned) x.rnn"):
        torch.save({f"{prefix}.{k}": v for k, v in gru.items()}, tmp_path / "w.pt")
        src = load_user_source(None, tmp_path / "w.pt", None, with_inputs=False)
        assert f", {prefix} (the file's only recurrent module)" in src.label, src.label
