"""Cells by name, for the trainer, the CLI and checkpoints (which store the name and keyword
arguments, never pickled objects), and module types by class name, for rebuilding a saved module
from its :meth:`~rnnaudit.cells.base.RecurrentCell.config` (saved counterexamples)."""

from __future__ import annotations

import torch

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.baselines import LSTM
from rnnaudit.cells.enrnn import ENRNN
from rnnaudit.cells.fastrnn import FastRNN
from rnnaudit.cells.lru import LRU
from rnnaudit.cells.min_rnn import MinGRU, MinLSTM
from rnnaudit.cells.nc_gru import GRU, NCGRU
from rnnaudit.cells.s4d import S4D
from rnnaudit.cells.mlstm import MLSTM
from rnnaudit.cells.slstm import SLSTM
from rnnaudit.cells.selective_ssm import SelectiveSSM
from rnnaudit.cells.orthogonal import MatrixExponential, ScaledCayley, VPRNNRotations
from rnnaudit.cells.scornn import ScoRNN
from rnnaudit.cells.sgornn import SGORNN, VPRNN
from rnnaudit.cells.spectral import ORNN, SpectralRNN
from rnnaudit.cells.srnn import SRNN

__all__ = ["CELLS", "build_cell", "MODULE_TYPES", "module_from_config"]


def _enrnn(input_size: int, hidden_size: int, **kw) -> ENRNN:
    # the hidden width is split evenly between the long-term and short-term blocks (enrnn.md Sec. 3)
    check_sizes(input_size=input_size, hidden_size=hidden_size)
    long_size = kw.pop("long_size", hidden_size // 2)
    if isinstance(long_size, int) and not isinstance(long_size, bool) and not 0 <= long_size <= hidden_size:
        raise ValueError(f"ENRNN's long block long_size = {long_size} does not fit in hidden_size = {hidden_size} "
                         f"(need 0 <= long_size <= hidden_size; short_size = hidden_size - long_size)")
    return ENRNN(input_size, long_size, hidden_size - long_size, **kw)


#: name → constructor(input_size, hidden_size, **kwargs); the source paper is in each class docstring.
CELLS = {
    "sgornn": SGORNN, "fastrnn": FastRNN, "vprnn": VPRNN,
    "spectral_rnn": SpectralRNN, "ornn": ORNN,
    "scornn": ScoRNN, "gru": GRU, "nc_gru": NCGRU,
    "srnn": SRNN, "enrnn": _enrnn, "lstm": LSTM,
}


def build_cell(name: str, input_size: int, hidden_size: int, **kwargs) -> RecurrentCell:
    """Construct the cell registered as ``name``.

    Raises:
        ValueError: unknown name (the message lists the known ones), or the cell's own
            argument errors.
    """
    if name not in CELLS:
        raise ValueError(f"cell must be one of {sorted(CELLS)}, got {name!r}")
    return CELLS[name](input_size, hidden_size, **kwargs)


#: class name → class, for every module type with a ``config()``: the cells and the orthogonal maps.
MODULE_TYPES = {cls.__name__: cls for cls in (SGORNN, FastRNN, VPRNN, SpectralRNN, ORNN, ScoRNN, GRU, NCGRU, SRNN,
                                               ENRNN, LSTM, VPRNNRotations, MatrixExponential, ScaledCayley,
                                               LRU, S4D, SelectiveSSM, MinGRU, MinLSTM, SLSTM, MLSTM)}


def module_from_config(type_name: str, config: dict, *, dtype=None, device=None):
    """A new module of type ``type_name`` (a key of :data:`MODULE_TYPES`) built from ``config``; its
    values are an initialisation drawn from a fixed generator, to be overwritten by a state dict.

    Raises:
        ValueError: unknown type name, or a config the constructor rejects (the message names both).
    """
    if type_name not in MODULE_TYPES:
        raise ValueError(f"module type must be one of {sorted(MODULE_TYPES)}, got {type_name!r}")
    if not isinstance(config, dict) or not all(isinstance(k, str) for k in config):
        raise ValueError(f"config of {type_name} must be a dict of keyword arguments, got {config!r}")
    cls = MODULE_TYPES[type_name]
    kwargs = dict(config, dtype=dtype, device=device)
    if cls is not LSTM:  # the one type whose initialisation takes no generator
        kwargs["generator"] = torch.Generator().manual_seed(0)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise ValueError(f"cannot build {type_name} from config {config!r}: {err}") from None
