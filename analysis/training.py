"""Training runs that record the quantities the theorems are about (issue 7).

A run directory holds

- ``run.json``: the :class:`TrainConfig` (written once, atomically);
- ``trajectory.jsonl``: one JSON object per recorded step, appended and fsync'ed line by line.
  A kill can cut at most the line being written; :func:`read_trajectory` ignores a trailing
  partial line, so no flushed record is ever lost and the file never has to be repaired;
- ``checkpoints/step_XXXXXXXX.pt`` and ``checkpoints/latest.txt``: model, optimizer, scheduler
  and RNG states, written atomically, loadable with ``torch.load(..., weights_only=True)``;
- ``jacobian/step_XXXXXXXX.pt``: ‖∂h_t/∂h_s‖₂ maps at the steps listed in ``jacobian_steps``.

``resume=True`` restores the latest checkpoint, drops trajectory records written after it and
continues; on the CPU with the same seed the result is the same trajectory as an uninterrupted
run (deterministic algorithms are switched on for the run).

Probes always run in float64 on a copy of the parameters, whatever precision training uses.

Tasks (:data:`TASK_SPECS`; generators and baselines in :mod:`analysis.tasks`). Token inputs are
fed one-hot (float); "per step" tasks apply the readout to every hidden state, the others to h_T
only.

=========== ======== ======= ============================== ============================ ====================
task        input    output  readout / loss                 baseline                     ``task_kwargs``
=========== ======== ======= ============================== ============================ ====================
adding      2        1       h_T / MSE                      1/6                          variant
copy        10       9       per step / cross-entropy       10 ln 8 / (T+20)             n_copy, n_symbols
denoise     11       10      per step / cross-entropy       10 ln 9 / (T+20)             n_data, n_symbols
parenthesis 7        18      per step / MSE vs one-hot(y)   Markov-chain formula (MSE)   n_types, max_count,
                                                                                         n_noise
=========== ======== ======= ============================== ============================ ====================

Presets (:data:`PRESETS`, ``<paper>-<task>`` named with the paper's own word for the task; each
entry's comment cites the section it comes from, and says which values the paper leaves open):

========================= ============ =========== ====== ===== ===== ======== ================= ======
preset                    cell         task        T      h     batch opt.     lr                steps
========================= ============ =========== ====== ===== ===== ======== ================= ======
sgornn-addition           sgornn       adding      –      128   64    rmsprop  1e-2, linear→0    20000
spectral_rnn-addition     spectral_rnn adding      –      –     –     adam     –                 –
spectral_rnn-copy         spectral_rnn copy        –      –     –     adam     –                 –
srnn-adding               srnn         adding      –      128   50    rmsprop  1e-3 (α = 0.9)    –
srnn-copy                 srnn         copy        –      128   20    rmsprop  1e-3 (α = 0.9)    –
enrnn-adding              enrnn        adding (*)  750    160   –     rmsprop  1e-4              9375
enrnn-copy                enrnn        copy        2000   192   20    rmsprop  1e-3, W^(L) 1e-5  4000
nc_gru-parenthesis        nc_gru       parenthesis –      56    16    adam     1e-3              –
nc_gru-denoise            nc_gru       denoise     –      118   128   adam     1e-3              10000
nc_gru-adding             nc_gru       adding (*)  –      80    50    adam     1e-3              20000
nc_gru-copy               nc_gru       copy        –      96    50    adam     1e-3, A 1e-4      10000
========================= ============ =========== ====== ===== ===== ======== ================= ======

(–: the paper does not fix it, or sweeps it, and the :class:`TrainConfig` default applies; (*):
the paper's own adding variant, ``task_kwargs={"variant": ...}``. Only sgornn.md states a
schedule; the other presets keep their rate constant. Cell arguments (ENRNN's block
sizes, the negative ones of scoRNN/NC-GRU's D, SRNN's f_r, Spectral-RNN's leaky ReLU) are in
the entries.) Use
:func:`preset_config` to build a config from a preset with overrides.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn
from tqdm import tqdm

from analysis.atomic import atomic_path, write_json_atomic, write_text_atomic
from analysis.jacobian import hidden_jacobian_norms
from analysis.tasks import (ADDITION_BASELINE_MSE, COPY_N_CLASSES, COPY_N_TOKENS, DENOISE_N_CLASSES,
                            DENOISE_N_TOKENS, PARENTHESIS_TOKENS, addition_problem, copy_task, denoise_task,
                            parenthesis_task, task_baseline)
from cells import NeumannCayleyUpdater, orthogonality_defect
from cells.registry import build_cell

__all__ = ["TrainConfig", "PRESETS", "preset_config", "SequenceModel", "train", "read_trajectory",
           "load_checkpoint", "build_model", "TaskSpec", "TASK_SPECS", "OPTIMIZERS", "CHECKPOINT_FORMAT"]

CHECKPOINT_FORMAT = "rnnaudit-checkpoint-1"


@dataclass
class TrainConfig:
    """Everything a run depends on; stored in run.json and in every checkpoint.

    Attributes:
        cell: name in :data:`cells.registry.CELLS`. task: name in :data:`TASK_SPECS`.
        T: sequence length. hidden_size: state width h. steps: optimizer steps. batch: batch size.
        lr: initial learning rate. optimizer: a key of :data:`OPTIMIZERS` (``"rmsprop"``,
            ``"adam"``, ``"sgd"``).
        schedule: ``"linear"`` (decay to 0 over ``steps``, sgornn.md Sec. 3.1) or ``"constant"``
            (applies to every parameter group).
        seed: seeds the model initialisation and the training data stream.
        record_every / checkpoint_every: steps between trajectory records / checkpoints.
        val_batches: fixed validation batches (sgornn.md: 10 batches every 100 steps).
        device: ``"cpu"`` or ``"cuda"``. amp: bfloat16 autocast on CUDA (probes stay float64).
        cell_kwargs: extra keyword arguments of the cell.
        neumann_order / neumann_reset: NC-GRU's Algorithm 1 order and reset period K.
        jacobian_steps: steps at which the Jacobian map of one validation sequence is saved.
        clip_grad_norm: optional gradient-norm clipping (None: off, as in the papers).
        task_kwargs: keyword arguments of the task generator that the task admits (see
            :class:`TaskSpec`), e.g. ``{"variant": "enrnn"}`` for the adding problem.
        optimizer_kwargs: further arguments of the torch optimizer other than ``lr``, e.g.
            ``{"alpha": 0.9}`` (RMSprop's decay rate, srnn.md Sec. 4).
        param_lr: ``{glob: lr}``: parameters whose name in the model (``cell.phi.theta``,
            ``cell.cayley.c.A``, ``readout.weight``, …; :func:`fnmatch.fnmatchcase` patterns)
            matches a pattern get their own learning rate, first match wins; the rest use ``lr``
            (enrnn.md Sec. 5.2 and nc_gru.md Sec. 4.4 train the orthogonal part slower).

    The last three fields default to empty, so run.json files and checkpoints written before
    they existed still load (:func:`load_checkpoint` fills in defaults).
    """

    cell: str = "sgornn"
    task: str = "adding"
    T: int = 100
    hidden_size: int = 128
    steps: int = 1000
    batch: int = 64
    lr: float = 1e-3
    optimizer: str = "rmsprop"
    schedule: str = "linear"
    seed: int = 0
    record_every: int = 100
    checkpoint_every: int = 500
    val_batches: int = 10
    device: str = "cpu"
    amp: bool = False
    cell_kwargs: dict = field(default_factory=dict)
    neumann_order: int = 2
    neumann_reset: int = 50
    jacobian_steps: list = field(default_factory=list)
    clip_grad_norm: float | None = None
    task_kwargs: dict = field(default_factory=dict)
    optimizer_kwargs: dict = field(default_factory=dict)
    param_lr: dict = field(default_factory=dict)

    def validate(self) -> None:
        """Raise ValueError naming the first bad field (checks that need the model, such as a
        ``param_lr`` pattern that matches no parameter, happen when training starts)."""
        positive = {"T": self.T, "hidden_size": self.hidden_size, "steps": self.steps, "batch": self.batch,
                    "record_every": self.record_every, "checkpoint_every": self.checkpoint_every,
                    "val_batches": self.val_batches}
        for name, value in positive.items():
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be a positive finite number, got {self.lr!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {self.optimizer!r}")
        if self.schedule not in ("linear", "constant"):
            raise ValueError(f"schedule must be 'linear' or 'constant', got {self.schedule!r}")
        if self.task not in TASK_SPECS:
            raise ValueError(f"task must be one of {sorted(TASK_SPECS)}, got {self.task!r}")
        for name in ("cell_kwargs", "task_kwargs", "optimizer_kwargs", "param_lr"):
            if not isinstance(getattr(self, name), dict):
                raise ValueError(f"{name} must be a dict, got {getattr(self, name)!r}")
        TASK_SPECS[self.task].check_kwargs(self.task, self.T, self.task_kwargs)
        _check_optimizer_kwargs(self.optimizer, self.optimizer_kwargs)
        for pattern, value in self.param_lr.items():
            if not isinstance(pattern, str) or not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                                    and value > 0 and math.isfinite(value)):
                raise ValueError(f"param_lr must map name patterns (str) to positive finite learning rates, "
                                 f"got {pattern!r}: {value!r}")
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"device must be 'cpu' or 'cuda', got {self.device!r}")
        if self.device == "cuda" and not torch.cuda.is_available():
            raise ValueError("device 'cuda' requested but torch.cuda.is_available() is False")


#: Paper configurations by name ``<paper>-<task>`` (the task in the paper's own words); keys
#: override :class:`TrainConfig` defaults. Only values the papers state are set; a comment says
#: where each comes from and what the paper leaves open (the TrainConfig default then applies).
#: No paper except sgornn.md mentions a learning-rate schedule for these tasks, so their presets
#: use a constant rate. Sequence lengths the paper sweeps (rather than fixes) are left to ``T``.
#: Lists, not tuples, so that a preset survives the JSON round trip of run.json unchanged.
PRESETS = {
    # sgornn.md Sec. 3.1: h = 128, k = 14, ReLU, RMSprop with linear decay to 0, batch 64, 20,000 steps,
    # validation on 10 unseen batches every 100 steps; initial lr 1e-2 (searched down to 1e-4).
    # k = 14 and ReLU are the SGORNN defaults at h = 128 (k is the maximum, 2 log2 h, as the paper says);
    # T is swept (500, 1000, 5000). Sec. 3.2-3.3 (HAR-2, PTB) are data sets the trainer has no task for.
    "sgornn-addition": dict(cell="sgornn", task="adding", hidden_size=128, batch=64, optimizer="rmsprop", lr=1e-2,
                            schedule="linear", steps=20000, record_every=100, val_batches=10),
    # spectral_rnn.md Sec. 7 and 7.1: Adam, "the same settings as (Arjovsky et al., 2016)" (not restated);
    # "In most cases leaky_ReLU is used as activation function except for LSTM" (Sec. 7): activation
    # "leaky_relu", slope not stated, so PyTorch's default 0.01 (cells.base.LEAKY_RELU_SLOPE). L = 30, 100, 300
    # are swept; n_h, m1, m2, r, lr, batch and steps appear only in the figures or not at all: defaults
    # (r = 0.01, σ* = 1 are the cell's defaults, "σ* usually set to 1 and r << 1", Sec. 4).
    "spectral_rnn-addition": dict(cell="spectral_rnn", task="adding", cell_kwargs={"activation": "leaky_relu"},
                                  optimizer="adam", schedule="constant"),
    # spectral_rnn.md Sec. 7.1 "Copy task": alphabet a_0..a_9, data a_0..a_7, blank a_8, delimiter a_9 at
    # x_{T+10}: the same sequences as analysis.tasks.copy_task up to the token names (one-hot inputs make
    # the naming immaterial). Adam, leaky ReLU (Sec. 7); T and everything else as in spectral_rnn-addition
    # (not stated).
    "spectral_rnn-copy": dict(cell="spectral_rnn", task="copy", cell_kwargs={"activation": "leaky_relu"},
                              optimizer="adam", schedule="constant"),
    # srnn.md Sec. 4 (intro): RMSProp, lr 0.001, decay rate 0.9 (torch's alpha), ReLU (cell default).
    # "Adding Problem": d_h = 128, minibatch 50, b has one hidden layer of size 8; T swept 100..1500;
    # number of steps not stated (Fig. 3 only).
    "srnn-adding": dict(cell="srnn", task="adding", hidden_size=128, batch=50, optimizer="rmsprop", lr=1e-3,
                        optimizer_kwargs={"alpha": 0.9}, schedule="constant", cell_kwargs={"fr_hidden": [8]}),
    # srnn.md Sec. 4 "Copying Memory Problem": minibatch 20, d_h = 128, f_r with one hidden layer of 8;
    # T swept 100..2000; optimizer as srnn-adding. The paper puts an embedding layer before the RNN for
    # one-hot inputs; f_r's first affine layer applied to the one-hot x already is a learned embedding.
    "srnn-copy": dict(cell="srnn", task="copy", hidden_size=128, batch=20, optimizer="rmsprop", lr=1e-3,
                      optimizer_kwargs={"alpha": 0.9}, schedule="constant", cell_kwargs={"fr_hidden": [8]}),
    # enrnn.md Sec. 5.1 and Table 1: T = 750, markers in [1, T/2) and [T/2, T) (the "enrnn" variant),
    # h^(L) = 96, h^(S) = 64 (n = 160), coupling W^(C), 29 negative ones in W^(L)'s scaling matrix, modReLU
    # and ε = 0 (Sec. 5; the cell's defaults), RMSprop 1e-4. Batch size not stated (default); 6 epochs of
    # 100,000 training sequences = 600,000 sequences = 9375 steps at the default batch 64.
    "enrnn-adding": dict(cell="enrnn", task="adding", task_kwargs={"variant": "enrnn"}, T=750, hidden_size=160,
                         cell_kwargs={"long_size": 96, "num_negative": 29}, optimizer="rmsprop", lr=1e-4,
                         schedule="constant", steps=9375),
    # enrnn.md Sec. 5.2, Table 1, Fig. 2: T = 2000, h^(L) = 172, h^(S) = 20 (n = 192), coupling, 52 negative
    # ones, RMSprop with lr 1e-5 "for h^(L)" (read as W^(L)'s parameters, as scoRNN's recurrent-weight rate
    # the same paragraph quotes) and 1e-3 for all other weights, 4,000 iterations of batch 20; test set
    # 1,000 sequences = 50 validation batches of 20.
    "enrnn-copy": dict(cell="enrnn", task="copy", T=2000, hidden_size=192,
                       cell_kwargs={"long_size": 172, "num_negative": 52}, optimizer="rmsprop", lr=1e-3,
                       param_lr={"cell.phi.*": 1e-5}, schedule="constant", steps=4000, batch=20, val_batches=50),
    # nc_gru.md Sec. 4.1: NC-GRU h = 56, 40 negative ones in D, batch 16, Adam 1e-3 (A included), Neumann
    # reset every 50 iterations, second order (Sec. 5.1: all Sec. 4 experiments). T = 100 and 200 are both
    # run; 200 epochs of a data set whose size is not stated: steps default. NC-GRU(Uc) (eq. 19), the model
    # every Sec. 4 experiment runs; NC-GRU(Ur, Uc) is cell_kwargs={"orthogonal": ["r", "c"], ...}.
    "nc_gru-parenthesis": dict(cell="nc_gru", task="parenthesis", hidden_size=56, cell_kwargs={"num_negative": 40},
                               batch=16, optimizer="adam", lr=1e-3, schedule="constant", neumann_order=2,
                               neumann_reset=50),
    # nc_gru.md Sec. 4.2: h = 118, 50 negative ones, Adam 1e-3 (A included), 10,000 iterations of batch 128,
    # Neumann reset every 50; T = 200 and 400 both run (Table 2).
    "nc_gru-denoise": dict(cell="nc_gru", task="denoise", hidden_size=118, cell_kwargs={"num_negative": 50},
                           batch=128, optimizer="adam", lr=1e-3, schedule="constant", steps=10000, neumann_order=2,
                           neumann_reset=50),
    # nc_gru.md Sec. 4.3: markers in the first input dimension (the "nc_gru" variant), h = 80, 43 negative
    # ones, Adam 1e-3 (A included), 10 epochs of 100,000 sequences at batch 50 = 20,000 steps, evaluated every
    # 100 iterations on the 10,000-sequence test set = 200 batches of 50; reset every 50; T = 200, 400 run.
    "nc_gru-adding": dict(cell="nc_gru", task="adding", task_kwargs={"variant": "nc_gru"}, hidden_size=80,
                          cell_kwargs={"num_negative": 43}, batch=50, optimizer="adam", lr=1e-3, schedule="constant",
                          steps=20000, record_every=100, val_batches=200, neumann_order=2, neumann_reset=50),
    # nc_gru.md Sec. 4.4: h = 96, 80 negative ones, Adam 1e-3 except 1e-4 for the A matrix, 10,000 iterations
    # of batch 50, evaluated every 50 iterations, Neumann reset every 20; T = 1000 and 2000 run (Fig. 4);
    # validation set size not stated (default).
    "nc_gru-copy": dict(cell="nc_gru", task="copy", hidden_size=96, cell_kwargs={"num_negative": 80}, batch=50,
                        optimizer="adam", lr=1e-3, param_lr={"cell.cayley.*.A": 1e-4}, schedule="constant",
                        steps=10000, record_every=50, neumann_order=2, neumann_reset=20),
}

#: Optimizer name → torch.optim class (``TrainConfig.optimizer``).
OPTIMIZERS = {"rmsprop": torch.optim.RMSprop, "adam": torch.optim.Adam, "sgd": torch.optim.SGD}


def _check_optimizer_kwargs(name: str, kwargs: dict) -> None:
    """ValueError unless torch.optim's ``name`` accepts ``kwargs`` (tried on a dummy parameter)."""
    if not isinstance(kwargs, dict):
        raise ValueError(f"optimizer_kwargs must be a dict, got {kwargs!r}")
    if "lr" in kwargs:
        raise ValueError("optimizer_kwargs must not set lr; use lr (and param_lr for parameter groups)")
    if not kwargs:
        return
    try:
        OPTIMIZERS[name]([torch.zeros(1, requires_grad=True)], lr=1e-3, **kwargs)
    except (TypeError, ValueError) as err:
        raise ValueError(f"optimizer_kwargs {kwargs!r} rejected by torch.optim.{OPTIMIZERS[name].__name__}: {err}") \
            from None


def preset_config(name: str, **overrides) -> TrainConfig:
    """The :class:`TrainConfig` of preset ``name`` with ``overrides`` applied (not yet validated).

    A value tied to a field that an override changes is dropped with it, unless the override
    sets it too: a different ``cell`` drops the preset's ``cell_kwargs`` and ``param_lr`` (their
    names belong to that cell), a different ``task`` drops ``task_kwargs``, a different
    ``optimizer`` drops ``optimizer_kwargs``.

    Raises:
        ValueError: unknown preset (the message lists them), unknown field.
    """
    if name not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {name!r}")
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"unknown TrainConfig field(s) {unknown}; fields are {sorted(known)}")
    config = {**asdict(TrainConfig()), **copy.deepcopy(PRESETS[name])}
    tied = {"cell": ("cell_kwargs", "param_lr"), "task": ("task_kwargs",), "optimizer": ("optimizer_kwargs",)}
    for key, dependents in tied.items():
        if key in overrides and overrides[key] != config[key]:
            for dep in dependents:
                if dep not in overrides:
                    config[dep] = {}
    config.update(overrides)
    return TrainConfig(**config)


@dataclass(frozen=True)
class TaskSpec:
    """How the trainer uses a task.

    Attributes:
        input_size / output_size: widths with the default ``task_kwargs``.
        generate: ``(batch, T, generator, **task_kwargs) -> (x, y)``, x float (batch, L, input_size).
        loss: ``(prediction, y) -> scalar``.
        baseline: ``(T, **task_kwargs) ->`` loss of the trivial predictor (:func:`analysis.tasks.task_baseline`).
        per_step: the readout is applied to every hidden state, prediction (batch, L, output_size);
            otherwise to h_T only, prediction (batch, output_size).
        kwargs: names of generator arguments ``TrainConfig.task_kwargs`` may set.
        sizes: ``(**task_kwargs) -> (input_size, output_size)`` when those arguments change them.
    """

    input_size: int
    output_size: int
    generate: object
    loss: object
    baseline: object
    per_step: bool = False
    kwargs: tuple = ()
    sizes: object = None

    def dims(self, task_kwargs: dict) -> tuple[int, int]:
        """(input_size, output_size) for these task_kwargs."""
        if self.sizes is None or not task_kwargs:
            return self.input_size, self.output_size
        return self.sizes(**task_kwargs)

    def check_kwargs(self, task: str, T: int, task_kwargs: dict) -> None:
        """ValueError for a name the task does not admit or a value its generator rejects (one
        length-T sequence is drawn to find out, only when task_kwargs is not empty)."""
        unknown = sorted(set(task_kwargs) - set(self.kwargs))
        if unknown:
            raise ValueError(f"task_kwargs {unknown} not accepted by task {task!r}; it accepts {list(self.kwargs)}")
        if task_kwargs:
            try:
                self.dims(task_kwargs)
                self.generate(1, T, torch.Generator().manual_seed(0), **task_kwargs)
            except (TypeError, ValueError) as err:
                raise ValueError(f"task_kwargs {task_kwargs!r} rejected by task {task!r}: {err}") from None


def _sequence_ce(pred: Tensor, y: Tensor) -> Tensor:
    """Cross-entropy averaged over batch and all L steps (the convention of the copy baseline
    10 ln 8/(T+20), srnn.md Sec. 4): pred (B, L, C) logits, y (B, L) int64 classes."""
    return nn.functional.cross_entropy(pred.flatten(0, 1), y.flatten())


def _parenthesis_mse(pred: Tensor, y: Tensor) -> Tensor:
    """Squared error against one_hot(y) averaged over batch, steps, types and count classes
    (analysis.tasks.parenthesis_task, the loss task_baseline's "mse" form assumes): pred
    (B, T, n_types·K), y (B, T, n_types) int64 counts, K = max_count + 1 read off the widths."""
    K = pred.shape[-1] // y.shape[-1]
    return nn.functional.mse_loss(pred, nn.functional.one_hot(y, K).flatten(-2).to(pred.dtype))


def _token(task_fn):
    """Generator adapter: one-hot float32 inputs (the papers feed one-hot vectors, nc_gru.md Sec. 4.1)."""
    return lambda b, T, g, **kw: task_fn(b, T, generator=g, one_hot=True, dtype=torch.float32, **kw)


TASK_SPECS = {
    "adding": TaskSpec(2, 1, lambda b, T, g, **kw: addition_problem(b, T, generator=g, dtype=torch.float32, **kw),
                       lambda pred, y: nn.functional.mse_loss(pred[:, 0], y), lambda T, **kw: ADDITION_BASELINE_MSE,
                       kwargs=("variant",)),
    "copy": TaskSpec(COPY_N_TOKENS, COPY_N_CLASSES, _token(copy_task), _sequence_ce,
                     lambda T, **kw: task_baseline("copy", T, **kw), per_step=True, kwargs=("n_copy", "n_symbols"),
                     sizes=lambda n_copy=10, n_symbols=8: (n_symbols + 2, n_symbols + 1)),
    "denoise": TaskSpec(DENOISE_N_TOKENS, DENOISE_N_CLASSES, _token(denoise_task), _sequence_ce,
                        lambda T, **kw: task_baseline("denoise", T, **kw), per_step=True,
                        kwargs=("n_data", "n_symbols"),
                        sizes=lambda n_data=10, n_symbols=9: (n_symbols + 2, n_symbols + 1)),
    "parenthesis": TaskSpec(len(PARENTHESIS_TOKENS), 3 * (5 + 1), _token(parenthesis_task), _parenthesis_mse,
                            lambda T, **kw: task_baseline("parenthesis", T, loss="mse", **kw), per_step=True,
                            kwargs=("n_types", "max_count", "n_noise"),
                            sizes=lambda n_types=3, max_count=5, n_noise=1: (2 * n_types + n_noise,
                                                                              n_types * (max_count + 1))),
}


class SequenceModel(nn.Module):
    """A cell plus a linear readout (sgornn.md Sec. 3: one RNN layer and a fully connected output),
    of the last hidden state or, with ``per_step``, of every hidden state (the sequence-to-sequence
    tasks: copy, srnn.md Sec. 4; denoise and parenthesis, nc_gru.md Sec. 4.1–4.2).

    The readout sees the first ``units`` entries of the state (all of it except for the LSTM,
    whose state is [h, c]).
    """

    def __init__(self, cell: nn.Module, output_size: int, per_step: bool = False):
        super().__init__()
        self.cell = cell
        self.per_step = per_step
        self.units = getattr(cell, "units", cell.hidden_size)
        self.readout = nn.Linear(self.units, output_size, dtype=next(cell.parameters()).dtype)

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """x (batch, T, n) → predictions (batch, output_size) from h_T, or (batch, T, output_size)
        from every h_t when ``per_step``."""
        if self.per_step:
            return self.readout(self.cell(x, h0)[..., : self.units])
        return self.readout(self.cell(x, h0)[:, -1, : self.units])


def build_model(config: TrainConfig) -> SequenceModel:
    """The model a config describes, initialised from ``config.seed``, float32, on ``config.device``."""
    spec = TASK_SPECS[config.task]
    input_size, output_size = spec.dims(config.task_kwargs)
    torch.manual_seed(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    kwargs = dict(config.cell_kwargs)
    if _accepts_generator(config.cell):
        kwargs.setdefault("generator", gen)
    cell = build_cell(config.cell, input_size, config.hidden_size, **kwargs)
    return SequenceModel(cell, output_size, per_step=spec.per_step).to(config.device)


def _param_groups(model: nn.Module, param_lr: dict):
    """model.parameters() as they are without ``param_lr``; otherwise the parameters matching no
    pattern (learning rate ``lr``) and then one group per pattern, in the dict's order.

    Raises:
        ValueError: a pattern matches no parameter (the message lists the names).
    """
    if not param_lr:
        return model.parameters()
    groups = {pattern: [] for pattern in param_lr}
    rest = []
    for name, param in model.named_parameters():
        match = next((pattern for pattern in param_lr if fnmatch.fnmatchcase(name, pattern)), None)
        (rest if match is None else groups[match]).append(param)
    empty = [pattern for pattern, params in groups.items() if not params]
    if empty:
        names = [name for name, _ in model.named_parameters()]
        raise ValueError(f"param_lr pattern(s) {empty} match no parameter; the model's are {names}")
    return ([{"params": rest}] if rest else []) + [{"params": params, "lr": float(param_lr[pattern])}
                                                   for pattern, params in groups.items()]


def _accepts_generator(name: str) -> bool:
    return name not in ("lstm",)


def _checkpoint_path(run_dir: Path, step: int) -> Path:
    return run_dir / "checkpoints" / f"step_{step:08d}.pt"


def _save_checkpoint(run_dir: Path, config: TrainConfig, step: int, model, optimizer, scheduler, data_gen,
                     updater) -> None:
    payload = {"format": CHECKPOINT_FORMAT, "config": asdict(config), "step": step,
               "model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
               "data_rng": data_gen.get_state(), "torch_rng": torch.get_rng_state(),
               "neumann_k": updater.k if updater is not None else 0}
    path = _checkpoint_path(run_dir, step)
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)
    write_text_atomic(run_dir / "checkpoints" / "latest.txt", path.name + "\n")


def load_checkpoint(path: str | os.PathLike, map_location: str = "cpu") -> dict:
    """Load a checkpoint file (untrusted input: ``weights_only=True``) or the latest checkpoint of a
    run directory.

    Returns:
        the checkpoint dict, with ``config`` turned back into a :class:`TrainConfig`.

    Raises:
        ValueError: not an rnnaudit checkpoint, or a run directory without checkpoints.
    """
    path = Path(path)
    if path.is_dir():
        latest = path / "checkpoints" / "latest.txt"
        if not latest.is_file():
            raise ValueError(f"{path} has no checkpoints/latest.txt; is it an rnnaudit run directory?")
        path = path / "checkpoints" / latest.read_text().strip()
    payload = torch.load(path, map_location=map_location, weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not an rnnaudit checkpoint (format {CHECKPOINT_FORMAT})")
    known = {f.name for f in fields(TrainConfig)}
    payload["config"] = TrainConfig(**{k: v for k, v in payload["config"].items() if k in known})
    return payload


def _append_record(run_dir: Path, record: dict) -> None:
    with open(run_dir / "trajectory.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, allow_nan=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _truncate_trajectory(run_dir: Path, last_step: int) -> None:
    """Keep only records with step ≤ last_step (those after the checkpoint will be recomputed)."""
    path = run_dir / "trajectory.jsonl"
    if not path.exists():
        return
    kept = [json.dumps(r, allow_nan=True) for r in _records(path) if r["step"] <= last_step]
    write_text_atomic(path, "".join(line + "\n" for line in kept))


def _records(path: Path) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                break  # the line a kill interrupted; everything before it was flushed whole
            out.append(json.loads(line))
    return out


def read_trajectory(run_dir: str | os.PathLike) -> dict[str, np.ndarray]:
    """All records of a run as numpy arrays, one per key (NaN where a record lacks the key).

    Keys include ``step``, ``loss``, ``val_loss``, ``grad/<role>/max|fro``, ``grad_h0``,
    ``spectral_radius``, ``spectral_norm``, ``orthogonality_defect``, ``alpha``, ``beta``,
    ``sigma_min``/``sigma_max`` and ``neumann_condition`` where they apply to the cell, and
    ``diverged`` (1 on the record of the step whose loss or gradients were NaN/Inf).

    Raises:
        ValueError: no trajectory.jsonl in ``run_dir``.
    """
    path = Path(run_dir) / "trajectory.jsonl"
    if not path.is_file():
        raise ValueError(f"{run_dir} has no trajectory.jsonl; is it an rnnaudit run directory?")
    records = _records(path)
    keys = sorted({k for r in records for k in r})
    return {k: np.array([r.get(k, np.nan) for r in records], dtype=float) for k in keys}


def _probe_record(model: SequenceModel, x: Tensor, y: Tensor, spec: TaskSpec, updater) -> dict:
    """The recorded quantities, in float64 on a copy of the model."""
    probe = copy.deepcopy(model).double()
    x = x.double()
    y = y.double() if y.is_floating_point() else y  # class indices stay int64
    cell = probe.cell
    h0 = torch.zeros(x.shape[0], cell.hidden_size, dtype=torch.float64, device=x.device, requires_grad=True)
    loss = spec.loss(probe(x, h0), y)
    roles = cell.parameters_by_role()
    grads = torch.autograd.grad(loss, [h0, *roles.values()], allow_unused=True)
    record = {"grad_h0": float(torch.linalg.vector_norm(grads[0]))}
    for role, g in zip(roles, grads[1:]):
        if g is not None:
            record[f"grad/{role}/max"] = float(g.abs().max())
            record[f"grad/{role}/fro"] = float(torch.linalg.vector_norm(g))
    with torch.no_grad():
        W = cell.recurrent_matrix().detach()
        if W.dim() == 2 and W.shape[0] == W.shape[1]:
            record["spectral_radius"] = float(torch.linalg.eigvals(W).abs().max())
            record["spectral_norm"] = float(torch.linalg.matrix_norm(W, ord=2))
            record["orthogonality_defect"] = float(orthogonality_defect(W))
        for gate in ("alpha", "beta"):
            value = getattr(cell, gate, None)
            if isinstance(value, Tensor):
                record[gate] = float(value)
        sigma = getattr(cell, "sigma", None)
        if isinstance(sigma, Tensor):
            record["sigma_min"], record["sigma_max"] = float(sigma.min()), float(sigma.max())
    if updater is not None and updater.records:
        record["neumann_condition"] = max(r["convergence"] for r in updater.records[-len(updater.maps):])
    return record


def train(config: TrainConfig, run_dir: str | os.PathLike, *, resume: bool = False, progress: bool = True) -> dict:
    """Train ``config`` and record its trajectory into ``run_dir`` (see the module docstring).

    Args:
        config: the run. run_dir: output directory (created). resume: continue from the latest
            checkpoint of ``run_dir`` (whose run.json must match ``config`` up to ``steps``).
        progress: show a tqdm bar with the loss and rate.

    Returns:
        {"final_loss", "final_val_loss", "baseline", "beat_baseline", "steps", "diverged_at"}: a run
        whose loss or gradients become NaN/Inf (exploding gradients) stops before that optimizer
        step; its last trajectory record has ``"diverged": true`` and float64 probes of the
        parameters that produced it, a checkpoint holds those parameters, ``steps`` is the number
        of steps taken and ``diverged_at`` the step that failed (None when the run finished).

    Raises:
        ValueError: invalid config; resume without checkpoints, or with a different config.
    """
    config.validate()
    previous = torch.are_deterministic_algorithms_enabled()
    if config.device == "cpu":
        torch.use_deterministic_algorithms(True)
    try:
        return _train(config, Path(run_dir), resume, progress)
    finally:
        torch.use_deterministic_algorithms(previous)


def _train(config: TrainConfig, run_dir: Path, resume: bool, progress: bool) -> dict:
    task = TASK_SPECS[config.task]
    # the task's arguments bound once; every draw below goes through this spec
    spec = TaskSpec(*task.dims(config.task_kwargs), lambda b, T, g: task.generate(b, T, g, **config.task_kwargs),
                    task.loss, lambda T: task.baseline(T, **config.task_kwargs), task.per_step)
    model = build_model(config)
    optimizer = OPTIMIZERS[config.optimizer](_param_groups(model, config.param_lr), lr=config.lr,
                                             **config.optimizer_kwargs)
    total = config.steps
    lr_lambda = (lambda s: max(0.0, 1 - s / total)) if config.schedule == "linear" else (lambda s: 1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    data_gen = torch.Generator().manual_seed(config.seed + 1)
    val_gen = torch.Generator().manual_seed(config.seed + 2)
    val = [spec.generate(config.batch, config.T, val_gen) for _ in range(config.val_batches)]
    val = [(x.to(config.device), y.to(config.device)) for x, y in val]
    updater = NeumannCayleyUpdater(model, order=config.neumann_order, reset_every=config.neumann_reset) \
        if config.cell == "nc_gru" else None
    start = 0
    if resume:
        ckpt = load_checkpoint(run_dir, map_location=config.device)
        saved = asdict(ckpt["config"])
        mismatched = [k for k, v in asdict(config).items() if k != "steps" and saved.get(k) != v]
        if mismatched:
            raise ValueError(f"resume: config differs from the run's in {mismatched}")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        data_gen.set_state(ckpt["data_rng"])
        torch.set_rng_state(ckpt["torch_rng"])
        start = int(ckpt["step"])
        if updater is not None:
            updater = NeumannCayleyUpdater(model, order=config.neumann_order, reset_every=config.neumann_reset)
            updater.k = int(ckpt["neumann_k"])
        _truncate_trajectory(run_dir, start)
    else:
        if (run_dir / "trajectory.jsonl").exists():
            raise ValueError(f"{run_dir} already holds a run; pass resume=True (--resume) or choose another --out")
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(run_dir / "run.json", asdict(config))
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if config.amp and config.device == "cuda" else None
    bar = tqdm(range(start, config.steps), initial=start, total=config.steps, desc=f"{config.cell}/{config.task}",
               disable=not progress, dynamic_ncols=True)
    loss_value = val_loss = math.nan
    for step in bar:
        before = data_gen.get_state()  # to checkpoint the state before a step that diverges
        x, y = spec.generate(config.batch, config.T, data_gen)
        x, y = x.to(config.device), y.to(config.device)
        optimizer.zero_grad(set_to_none=True)
        if autocast is not None:
            with autocast:
                loss = spec.loss(model(x).float(), y)
        else:
            loss = spec.loss(model(x), y)
        loss.backward()
        if not _finite(loss, model):
            # exploding gradients (sgornn.md Sec. 3.1, FastRNN at T = 1000): stop before the step
            # that would write NaN/Inf into the parameters, record the float64 probes of the
            # parameters that produced it, and checkpoint them so the audit can examine them
            data_gen.set_state(before)
            bar.close()
            return _diverged(config, run_dir, step, float(loss.detach()), model, optimizer, scheduler, data_gen,
                             updater, (x, y), spec, val)
        if config.clip_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), config.clip_grad_norm)
        optimizer.step()
        scheduler.step()
        if updater is not None:
            updater.step()
        loss_value = float(loss.detach())
        done = step + 1
        if done % config.record_every == 0 or done == config.steps:
            with torch.no_grad():
                val_loss = _validation_loss(model, spec, val)
            record = {"step": done, "loss": loss_value, "val_loss": val_loss, "lr": scheduler.get_last_lr()[0]}
            record.update(_probe_record(model, x, y, spec, updater))
            _append_record(run_dir, record)
            bar.set_postfix(loss=f"{loss_value:.4g}", val=f"{val_loss:.4g}")
        if done in config.jacobian_steps:
            probe = copy.deepcopy(model.cell).double()
            with torch.no_grad():
                norms = hidden_jacobian_norms(probe, val[0][0][0].double())
            with atomic_path(run_dir / "jacobian" / f"step_{done:08d}.pt") as tmp:
                torch.save(norms.cpu(), tmp)
        if done % config.checkpoint_every == 0 or done == config.steps:
            _save_checkpoint(run_dir, config, done, model, optimizer, scheduler, data_gen, updater)
    bar.close()
    baseline = spec.baseline(config.T)
    return {"final_loss": loss_value, "final_val_loss": val_loss, "baseline": baseline,
            "beat_baseline": bool(val_loss < baseline), "steps": config.steps, "diverged_at": None}


def _validation_loss(model: nn.Module, spec: TaskSpec, val: list) -> float:
    """Mean loss over the fixed validation batches (call under ``torch.no_grad()``)."""
    return float(np.mean([float(spec.loss(model(vx), vy)) for vx, vy in val]))


def _finite(loss: Tensor, model: nn.Module) -> bool:
    """Whether the loss and every gradient are finite (one reduction per tensor, one sync)."""
    sums = [loss.detach().float().reshape(())] + [p.grad.detach().float().sum() for p in model.parameters()
                                                  if p.grad is not None]
    return bool(torch.isfinite(torch.stack(sums)).all())


def _diverged(config: TrainConfig, run_dir: Path, step: int, loss_value: float, model, optimizer, scheduler,
              data_gen, updater, batch, spec: TaskSpec, val) -> dict:
    """Record and checkpoint a run whose loss or gradients at optimizer step ``step + 1`` are not
    finite (in the training precision); the parameters are those after ``step`` steps."""
    x, y = batch
    with torch.no_grad():
        val_loss = _validation_loss(model, spec, val)
    record = {"step": step + 1, "loss": loss_value, "val_loss": val_loss, "lr": scheduler.get_last_lr()[0],
              "diverged": True}
    record.update(_probe_record(model, x, y, spec, updater))  # float64: finite where float32 overflowed
    _append_record(run_dir, record)
    _save_checkpoint(run_dir, config, step, model, optimizer, scheduler, data_gen, updater)
    return {"final_loss": loss_value, "final_val_loss": val_loss, "baseline": spec.baseline(config.T),
            "beat_baseline": False, "steps": step, "diverged_at": step + 1}
