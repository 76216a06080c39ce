"""The user's own model from an import string, a weights file or a plain state_dict, and inputs from a
file (rnnaudit/user_models.py): each happy path, and every error path named in one clear line."""

import os
import pickle
import sys
import textwrap

import pytest
import torch
from torch import nn

from rnnaudit.user_models import (import_factory, load_inputs, load_state_dict_file, load_user_model, load_weights,
                                  model_from_state_dict)

F64 = torch.float64


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    """A project directory of the user's, the current directory, with a package of factories."""
    pkg = tmp_path / "mymodels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "nets.py").write_text(textwrap.dedent("""
        import torch
        from torch import nn

        def gru():
            torch.manual_seed(0)
            return nn.GRU(2, 5, batch_first=True)

        class Holder:
            @staticmethod
            def rnn():
                return nn.RNN(3, 4)

        MODEL = nn.LSTM(2, 3)
        NUMBER = 7

        def not_a_module():
            return "a string"

        def broken():
            raise RuntimeError("the factory failed")
    """))
    (pkg / "needs_missing.py").write_text("import a_package_that_does_not_exist\n")
    (pkg / "bad_syntax.py").write_text("def (:\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path
    for name in [m for m in sys.modules if m == "mymodels" or m.startswith("mymodels.")]:
        del sys.modules[name]


# ----------------------------------------------------------------------------- import_factory

def test_import_factory_finds_a_module_in_the_current_directory_and_calls_the_factory(user_dir):
    model = import_factory("mymodels.nets:gru")
    assert isinstance(model, nn.GRU) and model.hidden_size == 5
    assert str(user_dir) not in sys.path  # put there for the import only


def test_import_factory_takes_dotted_attributes_and_module_instances(user_dir):
    assert isinstance(import_factory("mymodels.nets:Holder.rnn"), nn.RNN)
    assert isinstance(import_factory("mymodels.nets:MODEL"), nn.LSTM)


@pytest.mark.parametrize("spec,message", [
    ("mymodels.nets", "must be MODULE:FACTORY"),
    ("a:b:c", "must be MODULE:FACTORY"),
    (":gru", "must be MODULE:FACTORY"),
    ("mymodels.nope:gru", "module 'mymodels.nope' not found"),
    ("nopkg.nets:gru", "module 'nopkg.nets' not found"),
    ("mymodels.needs_missing:f", "importing 'mymodels.needs_missing' failed: No module named "
                                 "'a_package_that_does_not_exist'"),
    ("mymodels.bad_syntax:f", "importing 'mymodels.bad_syntax' raised SyntaxError"),
    ("mymodels.nets:missing", "has no attribute 'missing'"),
    ("mymodels.nets:NUMBER", "is not callable (a int)"),
    ("mymodels.nets:not_a_module", "must return a torch.nn.Module, got str"),
    ("mymodels.nets:broken", "calling mymodels.nets:broken() raised RuntimeError: the factory failed"),
])
def test_import_factory_errors_name_what_is_wrong(user_dir, spec, message):
    with pytest.raises(ValueError) as err:
        import_factory(spec)
    assert message in str(err.value) and "\n" not in str(err.value)


# ----------------------------------------------------------------------------- weights files

def _gru_state(tmp_path, **kw):
    torch.manual_seed(1)
    gru = nn.GRU(2, 5, **kw)
    path = tmp_path / "gru.pt"
    torch.save(gru.state_dict(), path)
    return gru, path


def test_a_state_dict_file_loads_and_a_checkpoint_layout_is_unwrapped(tmp_path):
    gru, path = _gru_state(tmp_path)
    sd = load_state_dict_file(path)
    assert sd.keys() == gru.state_dict().keys()
    torch.save({"epoch": 3, "model_state_dict": gru.state_dict()}, tmp_path / "ckpt.pt")
    assert load_state_dict_file(tmp_path / "ckpt.pt").keys() == sd.keys()


class _Payload:
    def __reduce__(self):
        return (os.system, ("echo this must never run",))


def test_bad_weights_files_are_refused_naming_the_file(tmp_path):
    gru, good = _gru_state(tmp_path)
    raw = good.read_bytes()
    cases = {
        "missing.pt": None,
        "garbage.pt": b"this is not a torch file",
        "empty.pt": b"",
        "truncated.pt": raw[: len(raw) // 2],
    }
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError) as err:
            load_state_dict_file(tmp_path / name)
        message = str(err.value)
        expected = ("no such",) if content is None else ("is empty", "not a readable", "not a torch file")
        assert name in message and any(e in message for e in expected), message
        assert "weights_only=False" not in message and "weights_only` set to `False" not in message


def test_malicious_and_pickled_module_files_are_refused_without_advising_weights_only_false(tmp_path, capfd):
    torch.save({"weight": _Payload()}, tmp_path / "evil.pt")
    with open(tmp_path / "plain_pickle.pt", "wb") as f:
        pickle.dump(_Payload(), f)
    torch.save(nn.GRU(2, 3), tmp_path / "whole_module.pt")
    for name in ("evil.pt", "plain_pickle.pt", "whole_module.pt"):
        with pytest.raises(ValueError) as err:
            load_state_dict_file(tmp_path / name)
        message = str(err.value)
        assert name in message and "refused" in message and "state_dict()" in message
        assert "False" not in message and "\n" not in message
    assert "this must never run" not in capfd.readouterr().out
    assert "posix.system" in _message(tmp_path / "evil.pt") or "nt.system" in _message(tmp_path / "evil.pt")


def _message(path):
    with pytest.raises(ValueError) as err:
        load_state_dict_file(path)
    return str(err.value)


def test_files_that_are_not_state_dicts_are_refused(tmp_path):
    torch.save(torch.zeros(3), tmp_path / "tensor.pt")
    torch.save({}, tmp_path / "empty_dict.pt")
    torch.save({"w": torch.zeros(2), "epoch": 3}, tmp_path / "mixed.pt")
    assert "non-empty state_dict" in _message(tmp_path / "tensor.pt")
    assert "an empty dict" in _message(tmp_path / "empty_dict.pt")
    assert "['epoch'] are not tensors" in _message(tmp_path / "mixed.pt")


# ----------------------------------------------------------------------------- plain state_dicts

@pytest.mark.parametrize("arch,kw", [
    ("rnn", dict(num_layers=2)), ("rnn", dict(bias=False, nonlinearity="relu")), ("gru", dict()),
    ("gru", dict(num_layers=3, bias=False)), ("lstm", dict()), ("lstm", dict(num_layers=2, proj_size=3)),
])
def test_model_from_state_dict_infers_the_module_and_reproduces_it(arch, kw):
    torch.manual_seed(2)
    original = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[arch](4, 6, batch_first=True, dtype=F64, **kw)
    rebuilt = model_from_state_dict(original.state_dict(), arch, nonlinearity=kw.get("nonlinearity", "tanh"))
    assert type(rebuilt) is type(original) and rebuilt.batch_first and not rebuilt.training
    for name in ("input_size", "hidden_size", "num_layers", "bias", "proj_size"):
        assert getattr(rebuilt, name) == getattr(original, name), name
    x = torch.randn(2, 5, 4, dtype=F64)
    assert torch.equal(rebuilt(x)[0], original(x)[0])


def test_model_from_state_dict_errors_name_keys_and_shapes():
    gru = nn.GRU(2, 5, num_layers=2).state_dict()
    with pytest.raises(ValueError, match="arch must be one of"):
        model_from_state_dict(gru, "transformer")
    with pytest.raises(ValueError, match="nonlinearity must be"):
        model_from_state_dict(gru, "rnn", nonlinearity="sigmoid")
    with pytest.raises(ValueError, match=r"multiple of 4 rows, got shape \(15, 2\)"):
        model_from_state_dict(gru, "lstm")
    with pytest.raises(ValueError, match="prefix 'rnn.': pass --submodule rnn"):
        model_from_state_dict({f"rnn.{k}": v for k, v in gru.items()}, "gru")
    broken = dict(gru)
    broken["weight_hh_l1"] = torch.zeros(15, 4)
    del broken["bias_hh_l0"]
    broken["extra"] = torch.zeros(1)
    with pytest.raises(ValueError) as err:
        model_from_state_dict(broken, "gru")
    message = str(err.value)
    assert "missing keys ['bias_hh_l0']" in message and "unexpected keys ['extra']" in message
    assert "weight_hh_l1: expected (15, 5), got (15, 4)" in message
    bi = nn.GRU(2, 5, num_layers=2, bidirectional=True).state_dict()  # read, each direction audited
    rebuilt = model_from_state_dict(bi, "gru")
    assert rebuilt.bidirectional and rebuilt.num_layers == 2 and torch.equal(rebuilt.weight_hh_l1_reverse,
                                                                              bi["weight_hh_l1_reverse"].double())


def test_an_rnn_state_dict_read_as_a_gru_is_refused():
    with pytest.raises(ValueError, match="multiple of 3 rows, got shape"):
        model_from_state_dict(nn.RNN(2, 5).state_dict(), "gru")


def test_load_weights_names_mismatches():
    module = nn.GRU(2, 5)
    with pytest.raises(ValueError, match=r"w.pt does not fit GRU: missing keys \['bias_hh_l0'\]"):
        load_weights(module, {k: v for k, v in nn.GRU(2, 5).state_dict().items() if k != "bias_hh_l0"}, "w.pt")
    loaded = load_weights(module, nn.GRU(2, 5).state_dict())
    assert loaded is module


# ----------------------------------------------------------------------------- inputs

def test_load_inputs_accepts_one_or_several_sequences(tmp_path):
    torch.save(torch.randn(7, 3), tmp_path / "one.pt")
    torch.save(torch.randn(2, 7, 3, dtype=F64), tmp_path / "batch.pt")
    assert load_inputs(tmp_path / "one.pt", 3).shape == (1, 7, 3)
    x = load_inputs(tmp_path / "batch.pt", 3)
    assert x.shape == (2, 7, 3) and x.dtype == F64


@pytest.mark.parametrize("value,message", [
    (torch.randn(7, 4), "has input width 4 (last dimension), but the model takes input_size = 3"),
    (torch.randn(7), "must have shape (T, 3) or (batch, T, 3), got (7,)"),
    (torch.randn(1, 2, 7, 3), "got (1, 2, 7, 3)"),
    (torch.zeros(0, 3), "at least one sequence of T >= 1 steps"),
    (torch.ones(7, 3, dtype=torch.int64), "floating-point tensor, got dtype torch.int64"),
    (torch.tensor([[0.0, float("nan"), 1.0]]), "holds 1 NaN/Inf entries"),
    ({"x": torch.zeros(7, 3)}, "must hold one tensor of shape (T, 3) or (batch, T, 3), got a dict"),
])
def test_load_inputs_errors(tmp_path, value, message):
    torch.save(value, tmp_path / "x.pt")
    with pytest.raises(ValueError) as err:
        load_inputs(tmp_path / "x.pt", 3)
    assert message in str(err.value) and "x.pt" in str(err.value)


def test_load_inputs_refuses_unsafe_and_missing_files(tmp_path):
    torch.save(_Payload(), tmp_path / "evil.pt")
    with pytest.raises(ValueError, match="evil.pt: refused: the inputs file"):
        load_inputs(tmp_path / "evil.pt", 3)
    with pytest.raises(ValueError, match="no such inputs file"):
        load_inputs(tmp_path / "none.pt", 3)


# ----------------------------------------------------------------------------- load_user_model

def test_load_user_model_from_a_factory_with_weights_and_from_an_arch(user_dir):
    reference = nn.GRU(2, 5, batch_first=True)
    torch.save(reference.state_dict(), user_dir / "w.pt")
    model = load_user_model("mymodels.nets:gru", user_dir / "w.pt")
    assert model.weight_hh_l0.dtype == F64 and not model.training
    assert torch.equal(model.weight_hh_l0, reference.weight_hh_l0.double())
    plain = load_user_model(arch="gru", weights=user_dir / "w.pt")
    assert isinstance(plain, nn.GRU) and torch.equal(plain.weight_hh_l0, model.weight_hh_l0)
    torch.save(nn.GRU(2, 6).state_dict(), user_dir / "other.pt")
    with pytest.raises(ValueError, match="other.pt.* does not fit GRU: shape mismatches"):
        load_user_model("mymodels.nets:gru", user_dir / "other.pt")
    with pytest.raises(ValueError, match="either --model"):
        load_user_model()
    with pytest.raises(ValueError, match="either --model"):
        load_user_model("mymodels.nets:gru", arch="gru")
    with pytest.raises(ValueError, match="--arch needs --weights"):
        load_user_model(arch="gru")


def test_arch_against_the_shapes_of_another_arch_says_which_arch_the_shapes_are():
    """--arch gru on an LSTM's weights named only a shape mismatch; it now says the shapes are an LSTM's and which
    flag to pass. Control: --arch lstm on the same weights loads."""
    from torch import nn

    from rnnaudit.user_models import model_from_state_dict

    sd = nn.LSTM(2, 6).state_dict()
    with pytest.raises(ValueError, match=r"does not fit GRU: .*; the shapes are a torch\.nn\.LSTM's: pass --arch "
                                         r"lstm, or leave out --arch$"):
        model_from_state_dict(sd, "gru")
    assert isinstance(model_from_state_dict(sd, "lstm"), nn.LSTM)
