"""Any recurrent model as a :class:`~rnnaudit.cells.base.RecurrentCell`, so that every probe runs on it.

:func:`wrap` accepts

* ``torch.nn.RNN`` (tanh, relu), ``torch.nn.GRU``, ``torch.nn.LSTM`` (one or several layers,
  ``batch_first`` either way, with or without bias, ``proj_size``) and ``torch.nn.RNNCell``,
  ``GRUCell``, ``LSTMCell``: :class:`TorchRecurrent` re-implements the module's own step from its
  weights, which it reads from the module at every call (never a copy), so weights under
  ``torch.nn.utils.parametrize`` (``parametrizations.orthogonal`` with any ``orthogonal_map``) or
  geotorch constraints are seen exactly as the model uses them;
* anything else with a step, :class:`StepCell`: an object (``nn.Module`` or not) with a method
  ``step(x_t, h) -> h``, or a callable ``f(x_t, h) -> h`` (a function, or a module whose forward takes
  (x_t, h)); tuple states are packed by ``state_sizes`` or by ``pack``/``unpack`` functions.

The protocol needs no base class from us: an expRNN or scoRNN cell from another repository, here a
tanh RNN with an orthogonal recurrent matrix (exp of a skew matrix) written with plain torch::

    >>> import torch
    >>> from torch import nn
    >>> from rnnaudit import hidden_jacobian_maps, wrap
    >>> class ExpRNN(nn.Module):
    ...     def __init__(self, n, h):
    ...         super().__init__()
    ...         self.inp = nn.Linear(n, h, dtype=torch.float64)
    ...         self.rec = nn.Linear(h, h, bias=False, dtype=torch.float64)
    ...         nn.utils.parametrizations.orthogonal(self.rec, orthogonal_map="matrix_exp")
    ...     def step(self, x_t, h):
    ...         return torch.tanh(self.inp(x_t) + self.rec(h))
    >>> cell = wrap(ExpRNN(2, 16), input_size=2, state_size=16, recurrent={"W": "rec.weight"})
    >>> maps = hidden_jacobian_maps(cell, torch.randn(50, 2, dtype=torch.float64))
    >>> maps.spectral.shape
    torch.Size([51, 51])

Conventions (all wrapped cells): sequences are batch-first (batch, T, n) whatever the module's
``batch_first``; the state is one tensor (batch, S) and ``hidden_size`` is S, the width the probes
see (for an LSTM the (h, c) pair, not torch's ``hidden_size``); dropout between layers is not modelled
(the step is the evaluation-mode map; a module in training mode with dropout > 0 is refused).
"""

from __future__ import annotations

import inspect
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils import parametrize

from rnnaudit.cells._validate import check_state_memory, complex_refusal, first_unsupported
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.real_view import RealView

__all__ = ["wrap", "TorchRecurrent", "StepCell", "SUPPORTED_MODULES", "meta_tensor_name", "complex_tensor_name"]

#: torch module types :func:`wrap` models itself (anything else goes through the step protocol).
SUPPORTED_MODULES = (nn.RNN, nn.GRU, nn.LSTM, nn.RNNCell, nn.GRUCell, nn.LSTMCell)

#: torch tensor name → role of each gate block, in torch's stacking order (the names of the torch
#: documentation: W_ir, W_iz, W_in of GRU's weight_ih, ...); one block means the whole tensor.
_BLOCK_ROLES = {
    "rnn": {"weight_ih": ("W_ih",), "weight_hh": ("W_hh",), "bias_ih": ("b_ih",), "bias_hh": ("b_hh",)},
    "gru": {"weight_ih": ("W_ir", "W_iz", "W_in"), "weight_hh": ("W_hr", "W_hz", "W_hn"),
            "bias_ih": ("b_ir", "b_iz", "b_in"), "bias_hh": ("b_hr", "b_hz", "b_hn")},
    "lstm": {"weight_ih": ("W_ii", "W_if", "W_ig", "W_io"), "weight_hh": ("W_hi", "W_hf", "W_hg", "W_ho"),
             "bias_ih": ("b_ii", "b_if", "b_ig", "b_io"), "bias_hh": ("b_hi", "b_hf", "b_hg", "b_ho"),
             "weight_hr": ("W_hr",)},
}
#: role of a whole (stacked) tensor: used for the trainable originals of a parametrized tensor
_WHOLE_ROLES = {"weight_ih": "W_ih", "weight_hh": "W_hh", "bias_ih": "b_ih", "bias_hh": "b_hh", "weight_hr": "W_hr"}


def _supported_text() -> str:
    return ("torch.nn.RNN, GRU, LSTM, RNNCell, GRUCell, LSTMCell, a RecurrentCell, or an object with a method "
            "step(x_t, h) -> h, or a callable (x_t, h) -> h")


class TorchRecurrent(RecurrentCell):
    """A ``torch.nn`` RNN, GRU or LSTM (or their ``*Cell``) as a :class:`RecurrentCell` (see :func:`wrap`).

    The step is torch's own recurrence, written out from the module's weights (read at every call):

        RNN   h' = σ(W_ih x + b_ih + W_hh h + b_hh),  σ = tanh or relu (the module's ``nonlinearity``)
        GRU   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr),  z = sigmoid(W_iz x + b_iz + W_hz h + b_hz),
              n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),  h' = (1 − z) ⊙ n + z ⊙ h
        LSTM  i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (W_i· x + b_i· + W_h· h + b_h·),
              c' = f ⊙ c + i ⊙ g,  h' = o ⊙ tanh(c')  (with ``proj_size`` P: h' = W_hr (o ⊙ tanh(c')))

    torch's GRU applies the reset gate **after** the recurrent product, r ⊙ (W_hn h + b_hn), and z
    weights the old state; nc_gru.md eq. 1 (and :class:`rnnaudit.cells.GRU`) applies it before,
    U_c (r ⊙ h), and u weights the candidate. This class models torch's form exactly. With several
    layers, layer l > 0 takes layer l − 1's new h at the same t as its input (torch's stacking).

    State packing (the probes' state of width ``hidden_size`` = S): layers in order, and for an LSTM
    all h parts before all c parts,

        RNN, GRU  [h^(0) | h^(1) | … | h^(L−1)]                                 S = L·H
        LSTM      [h^(0) | … | h^(L−1) | c^(0) | … | c^(L−1)]                    S = L·(P + H)

    where each h^(l) has P = ``proj_size`` entries when torch's projection is on (H otherwise) and
    each c^(l) has H. :meth:`state_slices` names the parts; :meth:`pack_state` and
    :meth:`unpack_state` convert from and to torch's (h_n) or (h_n, c_n) of shape (L, batch, ·).

    Roles (:meth:`recurrent_matrices`, :meth:`parameters_by_role`) carry the prefix ``"l{k}."`` of
    layer k when the module has more than one layer, none otherwise: ``"W_hr"`` for a one-layer GRU,
    ``"l1.W_hr"`` for the second layer of a stacked one.

    A bidirectional module is two recurrences, one per direction: ``direction`` picks one. The reverse
    direction (torch's ``*_reverse`` weights) runs on reversed time, so it is probed on the flipped
    sequence (``x.flip(-2)``: its step 1 reads x_T). With several layers, layer l > 0 of either direction
    reads both directions' outputs of layer l − 1 (concatenated, forward first, as torch stacks them), so
    one direction is one recurrence per layer: ``layer`` picks it, and its inputs (width 2·P or 2·H) are
    those outputs. ``layer`` also picks one layer of a unidirectional stack (inputs: the layer below's h).

    Args:
        module: the torch module (kept, not copied: later changes to its weights are seen; its sizes
            are read once, here).
        direction: ``"forward"`` or ``"reverse"``, needed for a bidirectional module (None: forward).
        layer: one layer k of a stacked module (its ``*_l{k}`` weights) as a one-layer recurrence; needed
            for a bidirectional module of several layers (None: every layer).

    Attributes:
        module: the wrapped module. kind: ``"rnn"``, ``"gru"`` or ``"lstm"``. num_layers: L (1 with ``layer``).
        direction: "forward" or "reverse". layers: torch's layer indices modelled, in order.
        units: torch's ``hidden_size`` H. proj_size: P (0 without projection). input_size: n.
        hidden_size: S, the packed state width the probes see (above).

    Raises:
        ValueError: a bidirectional module without ``direction`` (or, with several layers, without ``layer``);
            ``direction="reverse"`` of a unidirectional module; a ``layer`` out of range or of a ``*Cell``.
    """

    def __init__(self, module: nn.Module, direction: str | None = None, layer: int | None = None):
        super().__init__()
        if not isinstance(module, SUPPORTED_MODULES):
            raise ValueError(f"TorchRecurrent wraps {', '.join(m.__name__ for m in SUPPORTED_MODULES)}, "
                             f"got {type(module).__name__}")
        self.module = module
        self.is_cell = isinstance(module, (nn.RNNCell, nn.GRUCell, nn.LSTMCell))
        self.layers = _chosen_layers(module, direction, layer, self.is_cell)
        self.direction = direction or "forward"
        self._suffix = "_reverse" if direction == "reverse" else ""
        self.kind = ("lstm" if isinstance(module, (nn.LSTM, nn.LSTMCell)) else
                     "gru" if isinstance(module, (nn.GRU, nn.GRUCell)) else "rnn")
        self.num_layers = len(self.layers)
        self.units = module.hidden_size  # torch's H
        self.proj_size = 0 if self.is_cell else module.proj_size
        self.h_size = self.proj_size or self.units  # width of each layer's h
        directions = 2 if getattr(module, "bidirectional", False) else 1
        self.input_size = module.input_size if self.layers[0] == 0 else directions * self.h_size
        L = self.num_layers
        self.hidden_size = L * (self.h_size + self.units) if self.kind == "lstm" else L * self.units
        if self.kind == "rnn":
            self.activation = {"tanh": torch.tanh, "relu": torch.relu}[module.nonlinearity]
        self._slices = self._state_layout()  # fixed by the sizes above; read by every step

    # ------------------------------------------------------------------ names and state layout

    def _prefix(self, layer: int) -> str:
        return f"l{layer}." if self.num_layers > 1 else ""

    def _torch_name(self, tensor: str, layer: int) -> str:
        return tensor if self.is_cell else f"{tensor}_l{self.layers[layer]}{self._suffix}"

    def state_slices(self) -> dict[str, slice]:
        """Part name → slice of the packed state: ``"h"`` (and ``"c"`` for an LSTM) for one layer,
        ``"l0.h"``, ``"l1.h"``, …, then ``"l0.c"``, … for several. Use them as ``rows``/``cols`` of
        :func:`rnnaudit.analysis.hidden_jacobian_maps` (e.g. the h part of an LSTM)."""
        return dict(self._slices)

    def _state_layout(self) -> dict[str, slice]:
        parts = [("h", self.h_size)] + ([("c", self.units)] if self.kind == "lstm" else [])
        out, start = {}, 0
        for name, width in parts:
            for layer in range(self.num_layers):
                out[f"{self._prefix(layer)}{name}"] = slice(start, start + width)
                start += width
        return out

    def pack_state(self, state) -> Tensor:
        """torch's state → the packed state (batch, S).

        Args:
            state: for ``nn.RNN``/``nn.GRU`` h_n (L, batch, H); for ``nn.LSTM`` (h_n, c_n) with h_n
                (L, batch, P or H) and c_n (L, batch, H); for the ``*Cell`` modules h (batch, H) or
                (h, c).

        Raises:
            ValueError: a part of the wrong shape.
        """
        parts = tuple(state) if self.kind == "lstm" and isinstance(state, (tuple, list)) else (state,)
        if len(parts) != (2 if self.kind == "lstm" else 1):
            want = "a pair (h, c)" if self.kind == "lstm" else "one tensor"
            raise ValueError(f"state must be {want}, got {len(parts)} part(s)")
        widths = (self.h_size, self.units)[:len(parts)]
        out = []
        for part, width in zip(parts, widths):
            if not isinstance(part, Tensor) or part.shape[-1] != width or part.dim() != (2 if self.is_cell else 3):
                shape = tuple(part.shape) if isinstance(part, Tensor) else type(part).__name__
                want = f"(batch, {width})" if self.is_cell else f"({self.num_layers}, batch, {width})"
                raise ValueError(f"state part must have shape {want}, got {shape}")
            out.append(part if self.is_cell else part.transpose(0, 1).reshape(part.shape[1], -1))
        return torch.cat(out, dim=-1)

    def unpack_state(self, state: Tensor):
        """The packed state (batch, S) → torch's format (inverse of :meth:`pack_state`).

        Raises:
            ValueError: state not (..., S).
        """
        if not isinstance(state, Tensor) or state.shape[-1:] != (self.hidden_size,):
            raise ValueError(f"state must have shape (batch, {self.hidden_size})")
        L, nh = self.num_layers, self.num_layers * self.h_size
        parts = [state[..., :nh]] + ([state[..., nh:]] if self.kind == "lstm" else [])
        if not self.is_cell:
            parts = [p.reshape(p.shape[0], L, -1).transpose(0, 1).contiguous() for p in parts]
        return tuple(parts) if self.kind == "lstm" else parts[0]

    # ------------------------------------------------------------------ weights, read at call time

    def _layer_weights(self) -> list[dict[str, Tensor | None]]:
        """Per layer, torch tensor name → the tensor as the module uses it now (a parametrized one is
        recomputed by the parametrization); None where absent (bias=False, no projection)."""
        names = _BLOCK_ROLES[self.kind]
        return [{t: getattr(self.module, self._torch_name(t, layer), None) for t in names}
                for layer in range(self.num_layers)]

    def _check_mode(self) -> None:
        if self.module.training and getattr(self.module, "dropout", 0) and self.num_layers > 1:
            raise ValueError(f"the module is in training mode with dropout={self.module.dropout} between layers, "
                             "which the step does not model; call module.eval() before probing")

    def _step(self, weights: list[dict], x_t: Tensor, state: Tensor) -> Tensor:
        sl = self._slices
        new_h, new_c = [], []
        inp = x_t
        for layer, w in enumerate(weights):
            p = self._prefix(layer)
            h = state[..., sl[p + "h"]]
            gi = F.linear(inp, w["weight_ih"], w["bias_ih"])
            gh = F.linear(h, w["weight_hh"], w["bias_hh"])
            if self.kind == "rnn":
                h = self.activation(gi + gh)
            elif self.kind == "gru":
                i_r, i_z, i_n = gi.chunk(3, -1)
                h_r, h_z, h_n = gh.chunk(3, -1)
                r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
                n = torch.tanh(i_n + r * h_n)
                h = (h - n) * z + n  # = (1 − z) n + z h, in torch's own order of operations
            else:
                i, f, g, o = (gi + gh).chunk(4, -1)
                c = torch.sigmoid(f) * state[..., sl[p + "c"]] + torch.sigmoid(i) * torch.tanh(g)
                h = torch.sigmoid(o) * torch.tanh(c)
                if w["weight_hr"] is not None:
                    h = F.linear(h, w["weight_hr"])
                new_c.append(c)
            new_h.append(h)
            inp = h
        parts = new_h + new_c
        return parts[0] if len(parts) == 1 else torch.cat(parts, dim=-1)

    # ------------------------------------------------------------------ RecurrentCell interface

    def initial_state(self, x: Tensor, h0: Tensor | None) -> Tensor:
        """As :meth:`RecurrentCell.initial_state`; also refuses a training-mode module with dropout.

        Raises:
            ValueError: see :meth:`RecurrentCell.initial_state`; dropout > 0 in training mode.
        """
        self._check_mode()
        return super().initial_state(x, h0)

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step of the module on the packed state: x_t (batch, n), h (batch, S) → (batch, S).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        return self._step(self._layer_weights(), x_t, h)

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """Packed states (batch, T, S) for x (batch, T, n) (batch-first whatever the module's
        ``batch_first``); the weights are read once per call.

        Raises:
            ValueError: see :meth:`RecurrentCell.forward`.
        """
        h = self.initial_state(x, h0)
        weights = self._layer_weights()
        states = []
        for x_t in x.unbind(1):  # unbind: slicing costs O(T) per step in backward (cells/base.py)
            h = self._step(weights, x_t, h)
            states.append(h)
        return torch.stack(states, dim=1)

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """Role → recurrent matrix as the module uses it now (blocks of ``weight_hh``, parametrized
        or not): RNN {"W_hh"}, GRU {"W_hr", "W_hz", "W_hn"}, LSTM {"W_hi", "W_hf", "W_hg", "W_ho"},
        each (H, H) ((H, P) with an LSTM projection), prefixed ``"l{k}."`` per layer when L > 1."""
        roles = _BLOCK_ROLES[self.kind]["weight_hh"]
        out = {}
        for layer, w in enumerate(self._layer_weights()):
            W = w["weight_hh"]
            for role, block in zip(roles, W.chunk(len(roles), 0) if len(roles) > 1 else (W,)):
                out[self._prefix(layer) + role] = block
        return out

    def recurrent_matrix(self) -> Tensor:
        """The recurrent matrix W_hh (H, H) of a one-layer RNN / RNNCell.

        Raises:
            ValueError: the module has several recurrent matrices (GRU, LSTM, several layers); the
                message lists their roles, for :meth:`recurrent_matrices`.
        """
        mats = self.recurrent_matrices()
        if len(mats) != 1:
            raise ValueError(f"a wrapped {type(self.module).__name__} has {len(mats)} recurrent matrices "
                             f"{sorted(mats)}; use recurrent_matrices()[role]")
        return next(iter(mats.values()))

    def parameters_by_role(self) -> dict[str, Tensor]:
        """Trainable tensors by role: gate blocks of each torch tensor (``W_hr``, ``b_iz``, …, views of
        the parameter, named as in the torch documentation; their gradients are the same blocks of the
        parameter's gradient, :func:`rnnaudit.analysis.parameter_gradients`), prefixed ``"l{k}."``
        per layer when L > 1. A parametrized tensor contributes its trainable originals whole, as
        ``"W_hh.original"`` (``"W_hh.original0"``, … for several), since its blocks are no parameters.
        Frozen tensors (``requires_grad=False``) are left out."""
        roles = {}
        for layer in range(self.num_layers):
            p = self._prefix(layer)
            for tensor, blocks in _BLOCK_ROLES[self.kind].items():
                name = self._torch_name(tensor, layer)
                if parametrize.is_parametrized(self.module, name):
                    for orig, value in self.module.parametrizations[name].named_parameters(recurse=False):
                        if value.requires_grad:
                            roles[f"{p}{_WHOLE_ROLES[tensor]}.{orig}"] = value
                    continue
                value = getattr(self.module, name, None)
                if value is None or not value.requires_grad:
                    continue
                for role, block in zip(blocks, value.chunk(len(blocks), 0) if len(blocks) > 1 else (value,)):
                    roles[p + role] = block
        return roles

    def config(self) -> dict:
        """Not available: a wrapped module is rebuilt by the user's own code (save its ``state_dict``).

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError(f"a wrapped {type(self.module).__name__} has no rnnaudit config; rebuild the "
                                  "module with your own code and load its state_dict")


def _chosen_layers(module: nn.Module, direction: str | None, layer: int | None, is_cell: bool) -> tuple[int, ...]:
    """torch's layer indices a :class:`TorchRecurrent` models, after checking ``direction`` and ``layer``."""
    name = type(module).__name__
    bidirectional = bool(getattr(module, "bidirectional", False))
    layers = 1 if is_cell else module.num_layers
    if direction not in (None, "forward", "reverse"):
        raise ValueError(f"direction must be 'forward' or 'reverse', got {direction!r}")
    if bidirectional and direction is None:
        raise ValueError(f"a bidirectional {name} is two recurrences, one per direction: pass direction='forward' "
                         "or direction='reverse' (the reverse one runs on reversed time: probe it on x.flip(-2))")
    if not bidirectional and direction == "reverse":
        raise ValueError(f"direction='reverse': the {name} is unidirectional (bidirectional=False)")
    if layer is not None:
        if is_cell:
            raise ValueError(f"layer={layer!r}: a {name} has one layer; leave out layer")
        if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < layers:
            raise ValueError(f"layer must be an int in [0, {layers - 1}] (torch's weight_hh_l<k>), got {layer!r}")
        return (layer,)
    if bidirectional and layers > 1:
        raise ValueError(f"a bidirectional {name} of {layers} layers: layer k > 0 reads both directions of layer "
                         f"k − 1, so one direction is one recurrence per layer; pass layer=k too (0 … {layers - 1}), "
                         "and probe it on the outputs of the layers below")
    return tuple(range(layers))


class StepCell(RecurrentCell):
    """Any step function as a :class:`RecurrentCell` (the protocol of :func:`wrap`).

    ``step(x_t, state) -> state`` is called with x_t (batch, n) and the user's state: the packed
    tensor (batch, S) itself, or the tuple from ``unpack``/``state_sizes``. Rows must be independent
    (row i of the output depends on row i of the inputs only), as for every cell: the probes evaluate
    many time steps as one batch. The step must be differentiable by ``torch.func`` (``jvp`` inside
    ``vmap``): plain torch operations, no in-place writes to its inputs, no ``.item()``.

    Args:
        step: the step function. owner: the ``nn.Module`` holding its parameters (registered as
            ``self.module``, so ``parameters()``, ``.to()`` and the NaN checks see them), or None.
        input_size: n. state_size: S, the packed width. dtype: used when ``owner`` has no parameters.
        pack, unpack: the user's state → (batch, S) and back; None for a tensor state.
        recurrent: role → recurrent matrix source, each a dotted attribute path on ``owner``
            (e.g. ``"rec.weight"``, read at every call, so parametrizations apply), a zero-argument
            callable, or a 2-D tensor (used as given); None to use ``owner.recurrent_matrices()`` or
            ``owner.recurrent_matrix()`` where they exist.
    """

    def __init__(self, step: Callable, owner: nn.Module | None, *, input_size: int, state_size: int,
                 dtype: torch.dtype, pack: Callable | None = None, unpack: Callable | None = None,
                 recurrent: dict | None = None):
        super().__init__()
        self.__dict__["_user_step"] = step  # not registered: a callable module is registered once, as owner
        self.module = owner
        self.input_size, self.hidden_size = input_size, state_size
        self._dtype_default = dtype
        self._pack, self._unpack = pack, unpack
        self._recurrent = recurrent

    def _dtype(self) -> torch.dtype:
        p = next(self.parameters(), None)
        return self._dtype_default if p is None else p.dtype

    def has_complex_state(self) -> bool:
        """A complex state when ``dtype`` or any parameter or buffer of the owner is complex (an LRU keeps real ν, θ
        beside a complex B), or the owner declares ``complex_state = True``."""
        return (bool(getattr(self.module, "complex_state", False)) or self._dtype_default.is_complex
                or any(t.is_complex() for t in (*self.parameters(), *self.buffers())))

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One user step on the packed state: x_t (batch, n), h (batch, S) → (batch, S).

        Raises:
            ValueError: wrong argument shapes/dtypes; the user's step returning something that does
                not pack to (batch, S).
        """
        self.check_step_args(x_t, h)
        out = self._user_step(x_t, h if self._unpack is None else self._unpack(h))
        packed = out if self._pack is None else self._pack(out)
        if not isinstance(packed, Tensor) or packed.shape != h.shape:
            shape = tuple(packed.shape) if isinstance(packed, Tensor) else type(packed).__name__
            raise ValueError(f"the wrapped step must return the next state, packed to shape {tuple(h.shape)} "
                             f"(batch, state_size={self.hidden_size}), got {shape}")
        return packed

    def declares_diagonal(self) -> bool:
        """Whether the owner declares its Jacobian diagonal: a method ``diagonal_jacobian(x_t, h) -> (batch, S)``
        on an unpacked tensor state (:mod:`analysis.diagonal`)."""
        return self._unpack is None and callable(getattr(self.module, "diagonal_jacobian", None))

    def diagonal_jacobian(self, x_t: Tensor, h: Tensor) -> Tensor:
        """The owner's ``diagonal_jacobian(x_t, h)``: a (batch, S) with ∂step/∂h = diag(a).

        Raises:
            AttributeError: the owner declares none (:meth:`declares_diagonal`).
        """
        if not self.declares_diagonal():
            raise AttributeError(f"{type(self.module).__name__} declares no diagonal_jacobian(x_t, h)")
        return self.module.diagonal_jacobian(x_t, h)

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """Role → recurrent matrix, from ``recurrent`` or the owner's own methods (see the class doc);
        {} when none is declared."""
        if self._recurrent is not None:
            mats = {role: (src if isinstance(src, Tensor) else src() if callable(src)
                           else _attribute(self.module, src, role))
                    for role, src in self._recurrent.items()}
            for role, W in mats.items():  # a path or callable is read only now: its tensor is checked now
                if isinstance(W, Tensor) and W.is_complex():
                    raise ValueError(complex_refusal(f"recurrent[{role!r}]", W.dtype, "in wrap(recurrent=...)"))
            return mats
        owner = self.module
        if owner is not None and callable(getattr(owner, "recurrent_matrices", None)):
            return dict(owner.recurrent_matrices())
        if owner is not None and callable(getattr(owner, "recurrent_matrix", None)):
            return {"W": owner.recurrent_matrix()}
        return {}

    def recurrent_matrix(self) -> Tensor:
        """The single declared recurrent matrix.

        Raises:
            ValueError: none declared (pass ``recurrent={role: "attr.path"}`` to :func:`wrap`) or several.
        """
        mats = self.recurrent_matrices()
        if len(mats) != 1:
            hint = ("none is declared: pass recurrent={role: 'attribute.path'} to wrap()" if not mats
                    else f"there are {len(mats)} {sorted(mats)}; use recurrent_matrices()[role]")
            raise ValueError(f"no single recurrent matrix: {hint}")
        return next(iter(mats.values()))

    def parameters_by_role(self) -> dict[str, Tensor]:
        """The owner's trainable parameters under their own names (``named_parameters``; a parametrized
        tensor appears as ``parametrizations.<name>.original``)."""
        if self.module is None:
            return {}
        return {name: p for name, p in self.module.named_parameters() if p.requires_grad}

    def config(self) -> dict:
        """Not available: a wrapped step is rebuilt by the user's own code.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError("a wrapped step function has no rnnaudit config; rebuild it with your own code")


def _attribute(owner, path: str, role: str) -> Tensor:
    obj = owner
    for part in path.split("."):
        if obj is None or not hasattr(obj, part):
            raise ValueError(f"recurrent[{role!r}] = {path!r}: the wrapped object has no attribute {path!r}")
        obj = getattr(obj, part)
    if not isinstance(obj, Tensor) or obj.dim() != 2:
        raise ValueError(f"recurrent[{role!r}] = {path!r} must name a 2-D tensor, got "
                         f"{tuple(obj.shape) if isinstance(obj, Tensor) else type(obj).__name__}")
    return obj


def _check_recurrent(recurrent) -> None:
    """Refuse a ``recurrent`` argument that is not role → path, callable or 2-D tensor (one line naming the role)."""
    if recurrent is None:
        return
    if not isinstance(recurrent, dict):
        raise ValueError(f"recurrent must be a dict of role -> attribute path, callable or 2-D tensor, got "
                         f"{type(recurrent).__name__}")
    for role, src in recurrent.items():
        if not isinstance(role, str) or not role:
            raise ValueError(f"recurrent: roles must be non-empty strings, got {role!r}")
        if isinstance(src, Tensor):
            if src.is_complex():
                raise ValueError(complex_refusal(f"recurrent[{role!r}]", src.dtype, "in wrap(recurrent=...)"))
            if src.dim() != 2:
                raise ValueError(f"recurrent[{role!r}] must be a 2-D tensor, got shape {tuple(src.shape)}")
        elif not (isinstance(src, str) or callable(src)):
            raise ValueError(f"recurrent[{role!r}] must be an attribute path such as 'rec.weight', a zero-argument "
                             f"callable or a 2-D tensor, got {type(src).__name__}")


def _concatenation(sizes: tuple[int, ...]) -> tuple[Callable, Callable]:
    """pack/unpack of a tuple state whose parts have the widths ``sizes``, packed in that order."""
    def pack(state) -> Tensor:
        parts = tuple(state) if isinstance(state, (tuple, list)) else (state,)
        widths = tuple(p.shape[-1] if isinstance(p, Tensor) else None for p in parts)
        if widths != sizes:
            raise ValueError(f"the wrapped step must return a state of parts with widths {sizes} (state_sizes), "
                             f"got {widths}")
        return torch.cat(parts, dim=-1)

    return pack, lambda packed: tuple(packed.split(sizes, dim=-1))


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return value


def _takes_two_arguments(fn) -> bool:
    try:
        inspect.signature(fn.forward if isinstance(fn, nn.Module) else fn).bind(None, None)
    except TypeError:
        return False
    except ValueError:  # no signature (some builtins): let the first call decide
        return True
    return True


def meta_tensor_name(module: nn.Module) -> str | None:
    """The name of the first parameter or buffer of ``module`` on the meta device (a shape without values), or None:
    every probe of such a module would fail deep in torch."""
    return next((name for name, t in [*module.named_parameters(), *module.named_buffers()] if t.is_meta), None)


def complex_tensor_name(module: nn.Module) -> tuple[str, torch.dtype] | None:
    """The first parameter or buffer of ``module`` that is complex, as ("parameter 'lam'", dtype), or None: torch's
    own RNN modules and the surfaces that still refuse complex tensors name it
    (:func:`cells._validate.complex_refusal`)."""
    return next(((f"{kind} {name!r}", t.dtype) for kind, items in (("parameter", module.named_parameters()),
                                                                  ("buffer", module.named_buffers()))
                 for name, t in items if t.is_complex()), None)


def _require_values(module) -> None:
    """Refuse a module whose tensors hold no values (:func:`meta_tensor_name`), a torch RNN/GRU/LSTM with complex
    tensors (:func:`complex_tensor_name`: torch computes them in real arithmetic only; a step of one's own may be
    complex), or tensors the probes cannot compute with: float8 or quantized dtypes, sparse layouts
    (:func:`cells._validate.unsupported_tensor`)."""
    if not isinstance(module, nn.Module):
        return
    odd = complex_tensor_name(module) if isinstance(module, SUPPORTED_MODULES) else None
    if odd is not None:
        raise ValueError(complex_refusal(f"the model's {odd[0]}", odd[1], "in torch.nn.RNN/GRU/LSTM (real arithmetic)"))
    meta = meta_tensor_name(module)
    if meta is not None:
        raise ValueError(f"the model is on the meta device ({meta!r} has a shape but no values); build it on the "
                         "CPU, or call .to_empty(device='cpu') and load its weights")
    bad = first_unsupported([*module.named_parameters(), *module.named_buffers()])
    if bad is not None:  # float8 or sparse weights fail deep inside torch at the first probe
        raise ValueError(f"the model's tensor {bad[0]!r} is {bad[1]}")


def wrap(model, *, input_size: int | None = None, state_size: int | None = None,
         state_sizes: tuple[int, ...] | None = None, pack: Callable | None = None, unpack: Callable | None = None,
         recurrent: dict | None = None, dtype: torch.dtype = torch.float64, direction: str | None = None,
         layer: int | None = None) -> RecurrentCell:
    """The probes' view of any recurrent model (see the module docstring for an example).

    Args:
        model: one of

            * a :class:`RecurrentCell` (returned as is);
            * a pip implementation of a modern recurrence (``lru-pytorch``'s ``LRU``, ``mambapy``'s ``MambaBlock``,
              ``mingru-pytorch``'s ``minGRU``/``minLSTM``): the reference cell its parameters map onto, float64
              copies, with the :class:`~rnnaudit.cells.packages.PackageMapping` as ``cell.package_mapping``
              (check it on your inputs with :func:`~rnnaudit.cells.packages.check_mapping`; a Mamba block's
              recurrence reads ``mapping.inputs(x)``, :mod:`rnnaudit.cells.packages`);
            * ``torch.nn.RNN``/``GRU``/``LSTM``/``RNNCell``/``GRUCell``/``LSTMCell``: a
              :class:`TorchRecurrent` (the other arguments must be left out);
            * an object with a method ``step(x_t, h) -> h``, or a callable ``(x_t, h) -> h`` (a function,
              a bound method, a module whose forward takes (x_t, h)): a :class:`StepCell`. Its
              parameters are found on the object (or on the module of a bound method).

        input_size: n; default ``model.input_size``.
        state_size: S, the packed state width; default ``sum(state_sizes)`` or ``model.hidden_size``.
        state_sizes: for a tuple state (h, c, …): the width of each part; the state is packed as their
            concatenation in this order.
        pack, unpack: instead of ``state_sizes``, any packing rule: ``pack(state) -> (batch, S)`` and
            ``unpack((batch, S)) -> state``, inverse to each other (give both, and ``state_size``).
        recurrent: role → recurrent matrix, for the spectral probes and the spectrum figure
            (:func:`rnnaudit.analysis.recurrent_matrix_probes`, :func:`rnnaudit.figures.spectrum.plot_spectra`):
            a dotted attribute path on the model (``"rec.weight"``, read at every call, so a parametrization is
            seen as the model uses it), a zero-argument callable, or a 2-D tensor (used as given: a parameter
            itself stays current as an optimizer updates it in place; a tensor computed from it does not).
        dtype: of the state when the model has no parameters (float64 by default; otherwise the
            parameters' dtype). Probes expect float64: convert the model first, e.g.
            ``wrap(copy.deepcopy(model).double())`` to keep the original in float32.
        direction: for a bidirectional ``torch.nn.RNN``/``GRU``/``LSTM`` (needed there): ``"forward"`` or
            ``"reverse"``, the recurrence of that direction alone; the reverse one runs on reversed time, so
            probe it on ``x.flip(-2)`` (see :class:`TorchRecurrent`).
        layer: one layer k of a stacked torch module, as a one-layer recurrence whose inputs are the outputs
            of the layers below (needed with ``direction`` for a bidirectional module of several layers).

    Returns:
        A :class:`RecurrentCell` sharing the model's parameters (no copy); for a complex state (complex
        parameters or ``dtype``, or a cell declaring ``complex_state``) the real view
        :class:`cells.real_view.RealView`, whose state is (Re z, Im z) of width 2N.

    Raises:
        ValueError: an unsupported object (the message names what is supported), a bidirectional torch
            module without ``direction`` (or, of several layers, without ``layer``), ``direction``/``layer`` for
            anything but a torch RNN/GRU/LSTM or out of range, sizes missing or not positive ints, sizes whose (S, S) and (S, n) Jacobians do not fit the
            memory limit (:func:`cells._validate.check_state_memory`), ``pack`` without ``unpack``, ``state_sizes``
            not summing to ``state_size``, protocol arguments given for a torch module, a module on the meta
            device (shapes without values), complex tensors in a torch RNN/GRU/LSTM
            (:func:`cells._validate.complex_refusal`), or a parameter or buffer in a dtype or
            layout the probes cannot compute with (float8, quantized, sparse; the message names the tensor).
    """
    protocol = dict(input_size=input_size, state_size=state_size, state_sizes=state_sizes, pack=pack, unpack=unpack,
                    recurrent=recurrent)
    from rnnaudit.cells.packages import package_mapping

    mapping = package_mapping(model)  # a pip implementation (lru-pytorch, mambapy, mingru-pytorch): its reference cell
    if mapping is not None:
        given = [k for k, v in {**protocol, "direction": direction, "layer": layer}.items() if v is not None]
        if given:
            raise ValueError(f"{mapping.module_class} is mapped onto {mapping.reference} from its own parameters; "
                             f"leave out {given}")
        mapping.cell.package_mapping = mapping
        return mapping.cell
    _require_values(model if isinstance(model, nn.Module) else getattr(getattr(model, "step", model), "__self__", None))
    if (direction is not None or layer is not None) and not isinstance(model, SUPPORTED_MODULES):
        raise ValueError(f"direction= and layer= pick one recurrence of a torch.nn.RNN, GRU or LSTM; got a "
                         f"{type(model).__name__}")
    if isinstance(model, (RecurrentCell, *SUPPORTED_MODULES)):
        given = [k for k, v in protocol.items() if v is not None]
        if given:
            raise ValueError(f"{type(model).__name__} is wrapped from its own attributes; leave out {given}")
        if isinstance(model, RecurrentCell):
            return RealView(model) if model.has_complex_state() else model
        return TorchRecurrent(model, direction, layer)
    step_method = getattr(model, "step", None)
    fn = step_method if callable(step_method) else model
    if not callable(fn) or not _takes_two_arguments(fn):
        raise ValueError(f"wrap() supports {_supported_text()}; got {type(model).__name__}")
    owner = model if isinstance(model, nn.Module) else getattr(fn, "__self__", None)
    owner = owner if isinstance(owner, nn.Module) else None
    source = owner if owner is not None else model
    if input_size is None:
        input_size = getattr(source, "input_size", None)
    if (pack is None) != (unpack is None):
        raise ValueError("pack and unpack go together: give both functions, or state_sizes for a tuple of tensors")
    if state_sizes is not None:
        if pack is not None:
            raise ValueError("give either state_sizes or pack/unpack, not both")
        sizes = tuple(_positive_int("state_sizes entries", s) for s in state_sizes)
        if not sizes:
            raise ValueError("state_sizes must name at least one part")
        if state_size is not None and state_size != sum(sizes):
            raise ValueError(f"state_size = {state_size} but state_sizes {sizes} sum to {sum(sizes)}")
        state_size = sum(sizes)
        pack, unpack = _concatenation(sizes)
    if state_size is None and pack is None:
        state_size = getattr(source, "hidden_size", None)
    for name, value in (("input_size", input_size), ("state_size", state_size)):
        if value is None:
            raise ValueError(f"{name} is not known for a {type(model).__name__}: pass wrap(..., {name}=...)")
        _positive_int(name, value)
    check_state_memory(input_size, state_size)
    _check_recurrent(recurrent)
    cell = StepCell(fn, owner, input_size=input_size, state_size=state_size, dtype=dtype, pack=pack, unpack=unpack,
                    recurrent=recurrent)
    return RealView(cell) if cell.has_complex_state() else cell
