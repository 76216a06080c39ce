"""Cells by name, for the trainer, the CLI and checkpoints (which store the name and keyword
arguments, never pickled objects)."""

from __future__ import annotations

from rnnaudit.cells.base import RecurrentCell
from rnnaudit.cells.baselines import LSTM
from rnnaudit.cells.enrnn import ENRNN
from rnnaudit.cells.fastrnn import FastRNN
from rnnaudit.cells.nc_gru import GRU, NCGRU
from rnnaudit.cells.scornn import ScoRNN
from rnnaudit.cells.sgornn import SGORNN, VPRNN
from rnnaudit.cells.spectral import ORNN, SpectralRNN
from rnnaudit.cells.srnn import SRNN

__all__ = ["CELLS", "build_cell"]


def _enrnn(input_size: int, hidden_size: int, **kw) -> ENRNN:
    # the hidden width is split evenly between the long-term and short-term blocks (enrnn.md Sec. 3)
    long_size = kw.pop("long_size", hidden_size // 2)
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
