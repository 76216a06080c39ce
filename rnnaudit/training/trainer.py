"""The trainer: runs that record the quantities the theorems are about, into a run directory
(:mod:`rnnaudit.training.runs`):

- ``run.json``: the :class:`TrainConfig` (written once, atomically);
- ``trajectory.jsonl``: one JSON object per recorded step, appended and fsync'ed line by line.
  A kill can cut at most the line being written; :func:`read_trajectory` ignores a trailing
  partial line, so no flushed record is ever lost and the file never has to be repaired;
- ``checkpoints/step_XXXXXXXX.pt`` and ``checkpoints/latest.txt``: model, optimizer, scheduler
  and RNG states, written atomically, loadable with ``torch.load(..., weights_only=True)``;
- ``jacobian/step_XXXXXXXX.pt``: ‖∂h_t/∂h_s‖₂ maps at the steps listed in ``jacobian_steps``;
- ``tensorboard/``: the same records as TensorBoard scalars, where tensorboard is installed
  (:mod:`rnnaudit.tensorboard_log`; the JSONL stays the source of truth).

A record holds the loss, the validation loss (and ``val_accuracy`` for classification tasks, on the
data set's held-out split) and the float64 probes. ``resume=True`` restores the latest checkpoint, drops trajectory
records written after it and continues; on the CPU with the same seed the result is the same trajectory as an
uninterrupted run (deterministic algorithms are switched on for the run).

Probes always run in float64 on a copy of the parameters, whatever precision training uses.
"""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
import math
import os
import re
import warnings
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn
from tqdm import tqdm

from rnnaudit.analysis.gradients import euclidean_norm
from rnnaudit.analysis.jacobian import hidden_jacobian_norms
from rnnaudit.atomic import atomic_path, write_json_atomic
from rnnaudit.cells import NeumannCayleyUpdater, orthogonality_defect
from rnnaudit.training.config import OPTIMIZERS, TrainConfig
from rnnaudit.training.model import SequenceModel, build_model
from rnnaudit.outputs import LOCK_NAME, RUN_MARKER, DirectoryLock, remove_own_files, remove_stale_temporaries
from rnnaudit.limits import check_sizes
from rnnaudit.provenance import provenance as run_provenance
from rnnaudit.tensorboard_log import event_writer, write_scalars
from rnnaudit.training.runs import (_append_record, _save_checkpoint, _truncate_trajectory, load_checkpoint,
                                    read_trajectory)
from rnnaudit.untrusted import InputError, read_json_file
from rnnaudit.training.task_specs import TASK_SPECS, TaskSpec
from rnnaudit.cells.linalg import eigvals

#: Tasks whose inputs are one-hot vectors of a vocabulary read from files (its size is checked).
ONE_HOT_TASKS = ("ptb-char",)

__all__ = ["train"]


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
    record = {"grad_h0": euclidean_norm(grads[0])}
    for role, g in zip(roles, grads[1:]):
        if g is not None:
            record[f"grad/{role}/max"] = float(g.abs().max())
            record[f"grad/{role}/fro"] = euclidean_norm(g)
    with torch.no_grad():
        W = cell.recurrent_matrix().detach()
        if W.dim() == 2 and W.shape[0] == W.shape[1]:
            record["spectral_radius"] = float(eigvals(W).abs().max())
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


def train(config: TrainConfig, run_dir: str | os.PathLike, *, resume: bool = False, overwrite: bool = False,
          progress: bool = True, tensorboard: bool | None = None, allow_large: bool = False) -> dict:
    """Train ``config`` and record its trajectory into ``run_dir`` (see the module docstring).

    One writer at a time: the run directory is locked (:class:`rnnaudit.outputs.DirectoryLock`) for
    the whole run, and a second ``train`` into it is refused at once.

    Args:
        config: the run. run_dir: output directory (created).
        resume: continue the run in ``run_dir`` (whose run.json must match ``config`` up to
            ``steps``) from its latest checkpoint; a run killed before its first checkpoint starts
            again from step 0, which gives the same trajectory. A finished run reports its result.
            A larger ``steps`` extends the run when its schedule is constant (recorded in run.json's
            ``steps_history``); with the linear schedule, which decays to 0 over ``steps``, a
            different ``steps`` is refused.
        overwrite: delete the run in ``run_dir`` (a directory rnnaudit wrote: it has run.json) and start
            again.
        progress: show a tqdm bar with the loss and rate.
        allow_large: lift the size limits (:mod:`rnnaudit.limits`, as ``--allow-large``): T, hidden size,
            batch, steps, batch·T·h, and a one-hot vocabulary above 10,000 tokens.
        tensorboard: also write every record as TensorBoard scalars into ``run_dir/tensorboard``
            (:mod:`rnnaudit.tensorboard_log`): None where tensorboard is installed, True always
            (ImportError without it), False never.

    Returns:
        {"final_loss", "final_val_loss", "final_val_accuracy", "baseline", "chance_accuracy",
        "beat_baseline", "steps", "diverged_at"} (the accuracies None for tasks without one): a run
        whose loss or gradients become NaN/Inf (exploding gradients) stops before that optimizer
        step; its last trajectory record has ``"diverged": true`` and float64 probes of the
        parameters that produced it, a checkpoint holds those parameters, ``steps`` is the number
        of steps taken and ``diverged_at`` the step that failed (None when the run finished).

    Raises:
        ValueError: invalid config; ``run_dir`` holds a run and neither resume nor overwrite was asked;
            resume of a directory without a run, or with a different config or steps (see above);
            overwrite of a directory rnnaudit did not write.
        rnnaudit.outputs.LockedError: another process is writing ``run_dir``.
        rnnaudit.limits.TooLargeError: sizes above the limits (``allow_large`` lifts them).
    """
    config.validate()
    check_sizes("the run's configuration", allow_large=allow_large, T=config.T, hidden=config.hidden_size,
                batch=config.batch, steps=config.steps, elements=config.batch * config.T * config.hidden_size)
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise ValueError(f"--out {run_dir} is a file; a run directory is expected")
    created = not run_dir.exists()
    try:
        with DirectoryLock(run_dir, inside=True):  # inside: a read-only parent of the run directory is no obstacle
            if overwrite:
                _remove_run(run_dir)
            remove_stale_temporaries(run_dir)  # temporaries of a process killed mid-write; we hold the lock
            previous = torch.are_deterministic_algorithms_enabled()
            if config.device == "cpu":
                torch.use_deterministic_algorithms(True)
            try:
                return _train(config, run_dir, resume, progress, tensorboard, allow_large)
            finally:
                torch.use_deterministic_algorithms(previous)
    except BaseException:
        if created:  # a run refused before it wrote anything leaves no empty directory behind
            try:
                run_dir.rmdir()
            except OSError:
                pass
        raise


#: The names the trainer writes in a run directory: what --overwrite may delete
#: (:func:`rnnaudit.outputs.remove_own_files`).
TRAIN_FILES = {"run.json": True, "trajectory.jsonl": True,
               "checkpoints": re.compile(r"step_\d{8}\.pt|latest\.txt"), "jacobian": re.compile(r"step_\d{8}\.pt"),
               "tensorboard": re.compile(r"events\.out\.tfevents\..+")}


def _remove_run(run_dir: Path) -> None:
    if not any(p.name != LOCK_NAME for p in run_dir.iterdir()):
        return
    remove_own_files(run_dir, TRAIN_FILES, what="--overwrite")


def _prepare(config: TrainConfig, run_dir: Path, resume: bool, provenance: dict) -> bool:
    """Check the run directory against the request and write or update run.json; returns whether a
    checkpoint is there to resume from."""
    run_json = run_dir / "run.json"
    if not resume:
        if run_json.exists() or (run_dir / "trajectory.jsonl").exists():
            raise ValueError(f"{run_dir} already holds a run; pass --resume to continue it, --overwrite to start it "
                             "again, or choose another --out")
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(run_json, {**RUN_MARKER, **asdict(config), "provenance": provenance,
                                     "steps_history": [config.steps]})
        return False
    if not run_json.is_file():
        raise ValueError(f"--resume: {run_dir} holds no run (no run.json)")
    saved = read_json_file(run_json, "run.json")
    mismatched = [k for k, v in asdict(config).items() if k != "steps" and saved.get(k) != v]
    if mismatched:
        raise ValueError(f"--resume: the config differs from the run's in {mismatched}")
    if saved.get("steps") != config.steps:
        if config.schedule == "linear":
            raise ValueError(f"--resume: the run has steps = {saved.get('steps')}; its linear schedule decays the "
                             f"learning rate to 0 over exactly those steps, so --steps {config.steps} would make it "
                             "jump; resume with the same --steps, or start a new run")
        history = list(saved.get("steps_history") or [saved.get("steps")]) + [config.steps]
        write_json_atomic(run_json, {**saved, "steps": config.steps, "steps_history": history})
    has_checkpoint = (run_dir / "checkpoints" / "latest.txt").is_file()
    if not has_checkpoint:
        _truncate_trajectory(run_dir, 0)  # killed before its first checkpoint: start again from step 0
        warnings.warn(f"--resume: {run_dir} has no checkpoint yet (stopped before the first); starting the run "
                      "from step 0", RuntimeWarning, stacklevel=2)
    return has_checkpoint


def _train(config: TrainConfig, run_dir: Path, resume: bool, progress: bool, tensorboard: bool | None,
           allow_large: bool = False) -> dict:
    task = TASK_SPECS[config.task]
    # the task's arguments bound once; every draw below goes through this spec
    kw = config.task_kwargs
    input_size, output_size = task.dims(kw)
    if config.task in ONE_HOT_TASKS:  # every step of every sequence is a one-hot vector of the vocabulary
        check_sizes(f"task {config.task!r} (its training vocabulary)", allow_large=allow_large, vocabulary=input_size,
                    elements=config.batch * config.T * input_size)
    spec = dataclasses.replace(task, input_size=input_size, output_size=output_size,
                               generate=lambda b, T, g: task.generate(b, T, g, **kw),
                               baseline=lambda T: task.baseline(T, **kw))
    model = build_model(config)
    optimizer = OPTIMIZERS[config.optimizer](_param_groups(model, config.param_lr), lr=config.lr,
                                             **config.optimizer_kwargs)
    total = config.steps
    lr_lambda = (lambda s: max(0.0, 1 - s / total)) if config.schedule == "linear" else (lambda s: 1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    data_gen = torch.Generator().manual_seed(config.seed + 1)
    val_gen = torch.Generator().manual_seed(config.seed + 2)
    if task.validation is not None:  # a data set's held-out split
        val = task.validation(config.batch, config.T, config.val_batches, **kw)
    else:
        val = [spec.generate(config.batch, config.T, val_gen) for _ in range(config.val_batches)]
    val = [(x.to(config.device), y.to(config.device)) for x, y in val]
    updater = NeumannCayleyUpdater(model, order=config.neumann_order, reset_every=config.neumann_reset) \
        if config.cell == "nc_gru" else None
    start = 0
    provenance = run_provenance(seed=config.seed)
    if _prepare(config, run_dir, resume, provenance):
        ckpt = load_checkpoint(run_dir, map_location=config.device)
        try:
            model.load_state_dict(ckpt["model"])
            optimizer.load_state_dict(ckpt["optimizer"])
            scheduler.load_state_dict(ckpt["scheduler"])
            data_gen.set_state(ckpt["data_rng"])
            torch.set_rng_state(ckpt["torch_rng"])
            start = int(ckpt["step"])
            model.cell.check_finite()
        except (RuntimeError, ValueError, TypeError, KeyError, IndexError) as err:
            raise InputError(f"{run_dir}: cannot resume from its latest checkpoint: "
                             f"{' '.join(str(err).split())[:300]}") from None
        if updater is not None:
            updater = NeumannCayleyUpdater(model, order=config.neumann_order, reset_every=config.neumann_reset)
            updater.k = int(ckpt["neumann_k"])
        _truncate_trajectory(run_dir, start)
    writer = event_writer(run_dir, tensorboard, purge_step=start + 1 if start else None)
    try:
        return _loop(_Run(config, run_dir, spec, model, optimizer, scheduler, data_gen, val, updater, start, provenance,
                          writer, kw), progress)
    finally:
        if writer is not None:
            writer.close()


@dataclasses.dataclass
class _Run:
    """What the training loop works on (built by :func:`_train`)."""

    config: TrainConfig
    run_dir: Path
    spec: TaskSpec
    model: SequenceModel
    optimizer: torch.optim.Optimizer
    scheduler: object
    data_gen: torch.Generator
    val: list
    updater: object
    start: int
    provenance: dict
    writer: object
    kw: dict


def _loop(run: _Run, progress: bool) -> dict:
    """The optimizer steps from ``run.start`` to ``config.steps``, recording and checkpointing."""
    config, run_dir, spec, model, optimizer, scheduler, data_gen, val, updater, start, provenance, writer, kw = (
        getattr(run, f.name) for f in dataclasses.fields(run))
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if config.amp and config.device == "cuda" else None
    bar = tqdm(range(start, config.steps), initial=start, total=config.steps, desc=f"{config.cell}/{config.task}",
               disable=not progress, dynamic_ncols=True)
    loss_value = val_loss = math.nan
    val_accuracy = None
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
                             updater, (x, y), spec, val, writer)
        if config.clip_grad_norm is not None:
            _clip_gradients(model, config.clip_grad_norm)
        optimizer.step()
        scheduler.step()
        if updater is not None:
            updater.step()
        loss_value = float(loss.detach())
        done = step + 1
        if done % config.record_every == 0 or done == config.steps:
            with torch.no_grad():
                val_loss, val_accuracy = _validation(model, spec, val)
            record = {"step": done, "loss": loss_value, "val_loss": val_loss, "lr": scheduler.get_last_lr()[0]}
            if val_accuracy is not None:
                record["val_accuracy"] = val_accuracy
            record.update(_probe_record(model, x, y, spec, updater))
            _append_record(run_dir, record)
            write_scalars(writer, record)
            bar.set_postfix(loss=f"{loss_value:.4g}", val=f"{val_loss:.4g}")
        if done in config.jacobian_steps:
            probe = copy.deepcopy(model.cell).double()
            with torch.no_grad():
                norms = hidden_jacobian_norms(probe, val[0][0][0].double())
            with atomic_path(run_dir / "jacobian" / f"step_{done:08d}.pt") as tmp:
                torch.save(norms.cpu(), tmp)
        if done % config.checkpoint_every == 0 or done == config.steps:
            _save_checkpoint(run_dir, config, done, model, optimizer, scheduler, data_gen, updater, provenance)
    bar.close()
    if start >= config.steps:  # a finished run resumed: its result is its last record
        last = read_trajectory(run_dir)
        loss_value, val_loss = float(last["loss"][-1]), float(last["val_loss"][-1])
        if "val_accuracy" in last:
            val_accuracy = float(last["val_accuracy"][-1])
    baseline = spec.baseline(config.T)
    return {"final_loss": loss_value, "final_val_loss": val_loss, "final_val_accuracy": val_accuracy,
            "baseline": baseline, "chance_accuracy": _chance(spec, kw), "beat_baseline": bool(val_loss < baseline),
            "steps": config.steps, "diverged_at": None}


def _chance(spec: TaskSpec, kw: dict) -> float | None:
    return None if spec.chance_accuracy is None else float(spec.chance_accuracy(**kw))


def _validation(model: nn.Module, spec: TaskSpec, val: list) -> tuple[float, float | None]:
    """Loss over the fixed validation batches (each batch's mean loss weighted by its size), and the
    share of correct predictions for a task with an accuracy (else None); call under ``torch.no_grad()``."""
    sizes, losses, correct = [], [], []
    for vx, vy in val:
        pred = model(vx)
        sizes.append(vy.shape[0])
        losses.append(float(spec.loss(pred, vy)))
        if spec.accuracy is not None:
            correct.append(float(spec.accuracy(pred, vy)))
    loss = float(np.average(losses, weights=sizes))
    return loss, (float(np.average(correct, weights=sizes)) if correct else None)


def _finite(loss: Tensor, model: nn.Module) -> bool:
    """Whether the loss and every gradient are finite (one reduction per tensor, one sync). Not by summing
    the entries: float32 gradients of an exploding run (entries of 1e35 and more) overflow a sum while
    every entry is finite."""
    flags = [torch.isfinite(loss.detach()).all()] + [torch.isfinite(p.grad).all() for p in model.parameters()
                                                     if p.grad is not None]
    return bool(torch.stack(flags).all())


def _clip_gradients(model: nn.Module, max_norm: float) -> None:
    """``torch.nn.utils.clip_grad_norm_`` with a total norm that cannot overflow: torch's sums squares in the
    gradients' dtype, which for float32 entries above about 1.8e19 gives inf and then scales every gradient
    to 0 (a silently wasted step). There the norm is taken by :func:`rnnaudit.analysis.euclidean_norm`."""
    params = [p for p in model.parameters() if p.grad is not None]
    if not params:
        return
    total = nn.utils.get_total_norm([p.grad for p in params])
    if not torch.isfinite(total):  # the gradients themselves are finite (_finite ran first)
        total = torch.tensor(euclidean_norm(torch.cat([p.grad.reshape(-1) for p in params])), dtype=torch.float64)
    nn.utils.clip_grads_with_norm_(params, max_norm, total)


def _diverged(config: TrainConfig, run_dir: Path, step: int, loss_value: float, model, optimizer, scheduler,
              data_gen, updater, batch, spec: TaskSpec, val, writer) -> dict:
    """Record and checkpoint a run whose loss or gradients at optimizer step ``step + 1`` are not
    finite (in the training precision); the parameters are those after ``step`` steps."""
    x, y = batch
    with torch.no_grad():
        val_loss, val_accuracy = _validation(model, spec, val)
    record = {"step": step + 1, "loss": loss_value, "val_loss": val_loss, "lr": scheduler.get_last_lr()[0],
              "diverged": True}
    if val_accuracy is not None:
        record["val_accuracy"] = val_accuracy
    record.update(_probe_record(model, x, y, spec, updater))  # float64: finite where float32 overflowed
    _append_record(run_dir, record)
    write_scalars(writer, record)
    _save_checkpoint(run_dir, config, step, model, optimizer, scheduler, data_gen, updater,
                     run_provenance(seed=config.seed))
    return {"final_loss": loss_value, "final_val_loss": val_loss, "final_val_accuracy": val_accuracy,
            "baseline": spec.baseline(config.T), "chance_accuracy": _chance(spec, config.task_kwargs),
            "beat_baseline": False, "steps": step, "diverged_at": step + 1}
