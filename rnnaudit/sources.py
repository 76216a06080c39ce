"""What the model commands (``heatmap``, ``spectrum``, ``lyapunov``, ``audit``) look at: a cell name with its
paper's defaults, an rnnaudit checkpoint or run directory, or a user's own model (``--model
MODULE:FACTORY`` or ``--arch`` with ``--weights``), and the input sequences to probe it with
(the run's task, ``--task``, or ``--inputs FILE.pt``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor

from rnnaudit.cells.registry import CELLS, build_cell
from rnnaudit.limits import check_sizes
from rnnaudit.training import TASK_SPECS
from rnnaudit.training.runs import load_trained_model
from rnnaudit.untrusted import InputError

__all__ = ["Source", "load_source"]


@dataclass
class Source:
    """A float64 cell the probes accept, input sequences to probe it with, and a label for titles.

    Attributes:
        cell: the cell (float64; a wrapped user module keeps its own parametrisation).
        x: input sequences (m, T, n), float64 (``x[0]`` is the one the single-sequence probes use).
        label: what it is, for titles and reports.
        config: the run's :class:`rnnaudit.training.TrainConfig` for a checkpoint or run, else None.
        readout: the trained readout weight (k, h) for a checkpoint or run, else None.
    """

    cell: torch.nn.Module
    x: Tensor
    label: str
    config: object = None
    readout: Tensor | None = None


def _task_inputs(task: str, n: int, T: int, gen: torch.Generator, task_kwargs: dict | None = None) -> Tensor:
    x, _ = TASK_SPECS[task].generate(n, T, gen, **(task_kwargs or {}))
    return x.double()


def load_source(source: str | None = None, *, T: int | None = None, hidden: int = 64, seed: int = 0,
                step: int | None = None, task: str | None = None, n_sequences: int = 1,
                allow_large: bool = False) -> Source:
    """Resolve SOURCE: an existing path is a checkpoint or run directory; otherwise a cell name.

    Args:
        source: path or a name in :data:`rnnaudit.cells.registry.CELLS`.
        T: sequence length (default: the run's T, or 100 for a cell name).
        hidden: width for a cell name. seed: initialisation and input seed.
        step: for a run directory, the checkpoint of this training step (default: the latest).
        task: the task drawing the inputs (default: the run's own, with its ``task_kwargs``, e.g. the
            adding variant it trained on; ``adding`` for a cell name).
        n_sequences: how many input sequences.
        allow_large: lift the limits on sizes (:mod:`rnnaudit.limits`).

    Returns:
        a :class:`Source` with x of shape (n_sequences, L, input_size), float64.

    Raises:
        rnnaudit.untrusted.InputError: neither an existing path nor a known cell name; not a checkpoint; a
            ``step`` with no checkpoint (the message lists the available steps); a task whose inputs do
            not fit the model.
        rnnaudit.limits.TooLargeError: sizes above the limits.
    """
    if source is None:
        raise InputError("give a SOURCE (a cell name, a checkpoint or a run directory) or --model/--arch")
    check_sizes("the flags", allow_large=allow_large, T=T, hidden=hidden, batch=n_sequences)
    gen = torch.Generator().manual_seed(seed)
    path = Path(source)
    if path.exists():
        ckpt, model = load_trained_model(path, step=step, allow_large=allow_large)
        config = ckpt["config"]
        length = T or config.T
        own = task is None or task == config.task
        x = _task_inputs(config.task if own else task, n_sequences, length, gen, config.task_kwargs if own else None)
        if x.shape[-1] != config_input_size(model):
            raise InputError(f"task {task!r} draws inputs of width {x.shape[-1]}, the model takes "
                             f"{config_input_size(model)}")
        # a file name need not be valid UTF-8 (surrogate escapes): titles must still render
        name = (path.name if path.is_file() else f"{path.name}/checkpoints/step_{ckpt['step']:08d}.pt").encode(
            "utf-8", "replace").decode("utf-8")
        return Source(model.cell.double(), x, f"{config.cell} step {ckpt['step']} ({name})", config,
                      model.readout.weight.detach().double())
    if source not in CELLS:
        raise InputError(f"SOURCE must be an existing checkpoint or run directory, or a cell name in {sorted(CELLS)}; "
                         f"got {source!r}")
    task = task or "adding"
    width = TASK_SPECS[task].input_size
    kwargs = {} if source == "lstm" else {"generator": gen}
    cell = build_cell(source, width, hidden, dtype=torch.float64, **kwargs)
    x = _task_inputs(task, n_sequences, T or 100, gen)
    return Source(cell, x, f"{source}, h = {hidden}, initialisation")


def config_input_size(model) -> int:
    """The input width of a :class:`rnnaudit.training.SequenceModel`'s cell."""
    return model.cell.input_size
