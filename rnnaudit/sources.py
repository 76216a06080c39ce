"""What ``rnnaudit heatmap`` and ``rnnaudit spectrum`` draw from: a cell name with its paper's
defaults, a checkpoint file, or a run directory (its latest checkpoint)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor

from rnnaudit.training import TASK_SPECS, build_model, load_checkpoint
from rnnaudit.cells.registry import CELLS, build_cell

__all__ = ["Source", "load_source", "FIGURE_SUFFIXES"]

FIGURE_SUFFIXES = (".png", ".pdf", ".svg")


@dataclass
class Source:
    """A float64 cell and one input sequence x (T, n) to probe it with, plus a label for titles."""

    cell: torch.nn.Module
    x: Tensor
    label: str


def load_source(source: str, *, T: int | None = None, hidden: int = 64, seed: int = 0,
                step: int | None = None) -> Source:
    """Resolve SOURCE: an existing path is a checkpoint or run directory; otherwise a cell name.

    Args:
        source: path or a name in :data:`cells.registry.CELLS`.
        T: sequence length (default: the run's T, or 100 for a cell name).
        hidden: width for a cell name. seed: initialisation and input seed.
        step: for a run directory, the checkpoint of this training step (default: the latest).

    Returns:
        a :class:`Source`; for a run, x is one sequence of its task drawn with the run's
        ``task_kwargs`` (the adding variant it trained on), float64 (L, input_size).

    Raises:
        ValueError: neither an existing path nor a known cell name; T < 1; not a checkpoint; a
            ``step`` with no checkpoint (the message lists the available steps).
    """
    if T is not None and T < 1:
        raise ValueError(f"T must be >= 1, got {T}")
    gen = torch.Generator().manual_seed(seed)
    path = Path(source)
    if path.exists():
        if step is not None:
            if not path.is_dir():
                raise ValueError("--step needs a run directory, not a checkpoint file")
            path = path / "checkpoints" / f"step_{step:08d}.pt"
            if not path.is_file():
                have = sorted(int(p.stem.split("_")[1]) for p in path.parent.glob("step_*.pt"))
                raise ValueError(f"no checkpoint at step {step}; available steps: {have}")
        ckpt = load_checkpoint(path)
        config = ckpt["config"]
        config.device = "cpu"
        model = build_model(config)
        model.load_state_dict(ckpt["model"])
        length = T or config.T
        # The run's own task_kwargs (e.g. the nc_gru adding variant swaps the input channels); a
        # checkpoint older than the field loads with {} (load_checkpoint fills in the default).
        x, _ = TASK_SPECS[config.task].generate(1, length, gen, **(config.task_kwargs or {}))
        return Source(model.cell.double(), x[0].double(), f"{config.cell} step {ckpt['step']} ({path.name})")
    if source not in CELLS:
        raise ValueError(f"SOURCE must be an existing checkpoint/run directory or a cell name in {sorted(CELLS)}, "
                         f"got {source!r}")
    kwargs = {} if source == "lstm" else {"generator": gen}
    cell = build_cell(source, 2, hidden, dtype=torch.float64, **kwargs)
    x, _ = TASK_SPECS["adding"].generate(1, T or 100, gen)
    return Source(cell, x[0].double(), f"{source}, h = {hidden}, initialisation")
