"""A model as the recurrences it is made of: one per layer and direction, each a one-layer float64 module
driven by the outputs of the layer below, so that the diagnostics and the summary speak per layer and
a bidirectional module's two directions are reported separately.

For a stacked unidirectional torch module, layer l's own step Jacobian is the diagonal block of the
whole stack's (:mod:`rnnaudit.analysis.diagnostics`), so the per-layer modules give the per-layer
quantities exactly. A bidirectional layer is two recurrences: the forward one on x_1 … x_T and the
reverse one on x_T … x_1; the next layer reads both outputs concatenated, as torch stacks them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from rnnaudit.cells.adapters import SUPPORTED_MODULES, TorchRecurrent, wrap

__all__ = ["Recurrence", "recurrences", "state_layout", "torch_sizes", "split_directions"]

_STACKED = (nn.RNN, nn.GRU, nn.LSTM)
_TENSORS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


@dataclass
class Recurrence:
    """One recurrence of a model.

    Attributes:
        label: "layer 0", "layer 1, reverse", or "state" for a model that is one recurrence.
        cell: the float64 cell of this recurrence alone. inputs: (m, T, n_l) float64, in the cell's own
            time order (reversed for a reverse direction). state: its state in words ("h (64), c (64)").
    """

    label: str
    cell: torch.nn.Module
    inputs: Tensor
    state: str


def torch_sizes(module: nn.Module) -> dict | None:
    """Sizes of a torch recurrent module as torch names them (None for anything else): hidden_size H,
    num_layers, bidirectional, proj_size, batch_first, kind (rnn/gru/lstm), nonlinearity."""
    if not isinstance(module, SUPPORTED_MODULES):
        return None
    kind = ("lstm" if isinstance(module, (nn.LSTM, nn.LSTMCell)) else
            "gru" if isinstance(module, (nn.GRU, nn.GRUCell)) else "rnn")
    stacked = isinstance(module, _STACKED)
    return {"kind": kind, "input_size": int(module.input_size), "hidden_size": int(module.hidden_size),
            "num_layers": int(module.num_layers) if stacked else 1,
            "bidirectional": bool(getattr(module, "bidirectional", False)),
            "proj_size": int(getattr(module, "proj_size", 0)),
            "batch_first": bool(getattr(module, "batch_first", True)),
            "nonlinearity": getattr(module, "nonlinearity", None), "cell": not stacked}


def _layer_module(module: nn.Module, layer: int, suffix: str, input_size: int) -> nn.Module:
    """Layer ``layer`` (direction ``suffix``: "" or "_reverse") of a stacked module as a one-layer float64
    module with the weights as the module uses them (parametrizations evaluated), on the module's device."""
    device = getattr(module, f"weight_hh_l{layer}{suffix}").device
    kwargs = dict(num_layers=1, bias=module.bias, batch_first=True, dtype=torch.float64, device=device)
    if isinstance(module, nn.RNN) and not isinstance(module, (nn.GRU, nn.LSTM)):
        kwargs["nonlinearity"] = module.nonlinearity
    if isinstance(module, nn.LSTM) and module.proj_size:
        kwargs["proj_size"] = module.proj_size
    one = _base_class(module)(input_size, module.hidden_size, **kwargs)
    with torch.no_grad():
        for name in _TENSORS:
            value = getattr(module, f"{name}_l{layer}{suffix}", None)
            if value is not None:
                getattr(one, f"{name}_l0").copy_(value.detach().double())
    return one.eval()


def _base_class(module: nn.Module) -> type:
    from torch.nn.utils import parametrize

    return parametrize.type_before_parametrizations(module)


def split_directions(module: nn.Module) -> list[tuple[str, nn.Module, bool]]:
    """A one-layer bidirectional module as its two directions: [("forward", module, False),
    ("reverse", module, True)], each a unidirectional float64 module (the bool: runs on reversed time).

    Raises:
        ValueError: not a one-layer bidirectional torch RNN/GRU/LSTM.
    """
    if not (isinstance(module, _STACKED) and module.bidirectional and module.num_layers == 1):
        raise ValueError("split_directions takes a one-layer bidirectional torch.nn.RNN, GRU or LSTM")
    return [("forward", _layer_module(module, 0, "", module.input_size), False),
            ("reverse", _layer_module(module, 0, "_reverse", module.input_size), True)]


def state_layout(cell) -> str:
    """The packed state of a wrapped model in words, e.g. "state = [h (64) | c (64)]" or
    "state = [l0.h (48) | l1.h (48)]" (the names of ``state_slices()``, layers counted from 0)."""
    slices = cell.state_slices() if isinstance(cell, TorchRecurrent) else {"state": slice(0, cell.hidden_size)}
    return "state = [" + " | ".join(f"{name} ({s.stop - s.start})" for name, s in slices.items()) + "]"


def _state_words(kind: str, h: int, H: int) -> str:
    return f"h ({h}), c ({H})" if kind == "lstm" else f"h ({h})"


def recurrences(model, x: Tensor) -> list[Recurrence]:
    """The recurrences of ``model`` (any model :func:`rnnaudit.wrap` accepts, or a bidirectional torch
    module) with their inputs, computed from x (m, T, n) float64 (batch-first, whatever the module's
    ``batch_first``). A model that is not a stacked torch module is one recurrence, its whole state.

    Raises:
        ValueError: a model :func:`rnnaudit.wrap` refuses (other than for being bidirectional).
    """
    model = model.module if isinstance(model, TorchRecurrent) else model
    if not isinstance(model, _STACKED) or (model.num_layers == 1 and not model.bidirectional):
        cell = wrap(model)
        sizes = torch_sizes(model) if isinstance(model, nn.Module) else None
        state = (_state_words(sizes["kind"], sizes["proj_size"] or sizes["hidden_size"], sizes["hidden_size"])
                 if sizes else f"state ({cell.hidden_size})")
        return [Recurrence("layer 0" if sizes else "state", cell, x, state)]
    out = []
    inp = x
    directions = ("", "_reverse") if model.bidirectional else ("",)
    h = model.proj_size or model.hidden_size
    kind = torch_sizes(model)["kind"]
    for layer in range(model.num_layers):
        outputs = []
        for suffix in directions:
            one = _layer_module(model, layer, suffix, inp.shape[-1])
            seq = inp.flip(1) if suffix else inp
            label = f"layer {layer}" + (", reverse" if suffix else ", forward" if model.bidirectional else "")
            out.append(Recurrence(label, wrap(one), seq, _state_words(kind, h, model.hidden_size)))
            with torch.no_grad():
                y = one(seq)[0]
            outputs.append(y.flip(1) if suffix else y)
        inp = torch.cat(outputs, dim=-1)
    return out
