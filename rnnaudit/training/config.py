"""The configuration of a training run and the papers' presets.

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
the entries.) Use :func:`preset_config` to build a config from a preset with overrides.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field, fields

import torch

from rnnaudit.names import CELLS as _CELL_NAMES
from rnnaudit.training.task_specs import TASK_SPECS

__all__ = ["TrainConfig", "PRESETS", "OPTIMIZERS", "preset_config"]


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

    def validate(self, *, device_available: bool = True) -> None:
        """Raise ValueError naming the first bad field (checks that need the model, such as a
        ``param_lr`` pattern that matches no parameter, happen when training starts).

        Args:
            device_available: also require a CUDA device when ``device`` is ``"cuda"`` (off when a
                checkpoint trained on a GPU is read on a CPU-only machine).
        """
        positive = {"T": self.T, "hidden_size": self.hidden_size, "steps": self.steps, "batch": self.batch,
                    "record_every": self.record_every, "checkpoint_every": self.checkpoint_every,
                    "val_batches": self.val_batches, "neumann_order": self.neumann_order,
                    "neumann_reset": self.neumann_reset}
        for name, value in positive.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be an integer in [0, 2^63), got {self.seed!r}")
        if self.cell not in _CELL_NAMES:
            raise ValueError(f"cell must be one of {sorted(_CELL_NAMES)}, got {self.cell!r}")
        if (isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not (self.lr > 0 and math.isfinite(
                self.lr)) or self.lr > 1e3):
            raise ValueError(f"lr must be a positive finite number ≤ 1000, got {self.lr!r}")
        if not isinstance(self.amp, bool):
            raise ValueError(f"amp must be true or false, got {self.amp!r}")
        if self.clip_grad_norm is not None and (isinstance(self.clip_grad_norm, bool) or not isinstance(
                self.clip_grad_norm, (int, float)) or not 0 < self.clip_grad_norm < math.inf):
            raise ValueError(f"clip_grad_norm must be None or a positive finite number, got {self.clip_grad_norm!r}")
        if not isinstance(self.jacobian_steps, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in self.jacobian_steps):
            raise ValueError(f"jacobian_steps must be a list of positive integers, got {self.jacobian_steps!r}")
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
        if device_available and self.device == "cuda" and not torch.cuda.is_available():
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
    # x_{T+10}: the same sequences as rnnaudit.tasks.synthetic.copy_task up to the token names (one-hot inputs make
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

