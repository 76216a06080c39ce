"""``rnnaudit.Monitor``: the trainer's records, from the user's own training loop.

    import rnnaudit

    with rnnaudit.Monitor(rnn, "runs/mine", every=10, inputs=x_probe, targets=y_probe,
                          loss_fn=F.cross_entropy, readout=head) as mon:
        for step in range(steps):
            loss = F.cross_entropy(head(rnn(x)[0][:, -1]), y)
            opt.zero_grad(); loss.backward()
            mon.record(step, loss)            # after backward: reads the gradients it left
            opt.step()

Every ``every`` steps the monitor appends one record to ``RUN_DIR/trajectory.jsonl`` (fsync'ed: a
kill or Ctrl-C keeps every record written before it) with what :func:`rnnaudit.train` records
(:mod:`rnnaudit.monitoring.probes`): the loss, the gradient norms by role from the ``.grad`` the user's
backward left, ‖∂L/∂h_0‖ on the probe inputs, and per recurrent matrix the spectral radius and
norm, the orthogonality defect and the σ range; at summary steps also a Jacobian-norm summary and
the top Lyapunov exponent. It checkpoints the model's ``state_dict`` at chosen steps and at close,
and writes TensorBoard events where tensorboard is installed. The directory is a run directory
(:mod:`rnnaudit.monitoring.runs`): ``rnnaudit audit RUN_DIR``, ``rnnaudit compare`` and the
trajectory figures read it.

The user's model and its gradients are only read: every probe runs in float64 on the monitor's own
copy of the parameters (reloaded at each record), and no RNG the user's loop draws from is used.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import math
import numbers
import os
import shutil
import warnings
from pathlib import Path
from typing import Callable

import torch
from torch import Tensor, nn

from rnnaudit.atomic import atomic_path, write_json_atomic, write_text_atomic
from rnnaudit.monitoring.probes import (RADIUS_EVERY_RECORD_MAX, gate_record, gradient_norms_from_grad,
                                     initial_state_gradient, initial_state_gradient_fused, jacobian_summary,
                                     matrix_record, orthogonality_concerned, top_lyapunov_exponent)
from rnnaudit.monitoring.runs import (CHECKPOINT_FORMAT, MONITOR_FILES, RUN_FORMAT, build_torch_module, describe_model,
                                      plain_weights)
from rnnaudit.limits import check_tensor_sizes
from rnnaudit.outputs import (RUN_MARKER, DirectoryLock, check_output_location, remove_own_files,
                              remove_stale_temporaries)
from rnnaudit.provenance import provenance
from rnnaudit.tensorboard_log import TENSORBOARD_DIR, event_writer, write_scalars

__all__ = ["Monitor"]

#: keys a user's extra scalars may not take (the monitor writes them)
_RESERVED = ("step", "loss", "diverged")


def _positive_int(name: str, value, *, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a positive integer, got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return value


def _number(name: str, value) -> float:
    """A real number from a Python number or a one-element tensor (which syncs a GPU once)."""
    if isinstance(value, Tensor):
        if value.numel() != 1 or value.is_complex():
            raise TypeError(f"{name} must be a real number or a one-element tensor, got a tensor of shape "
                            f"{tuple(value.shape)}")
        return float(value.detach())
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number or a one-element tensor, got {type(value).__name__}")
    return float(value)


class Monitor:
    """Records a user's training loop into a run directory (module docstring).

    Args:
        model: the recurrent module: a ``torch.nn`` RNN, GRU, LSTM or ``*Cell`` (parametrized weights
            included), or anything :func:`rnnaudit.wrap` accepts with ``wrap_kwargs``.
        run_dir: the run directory (created; a directory that already holds a run is refused unless
            ``overwrite``).
        every: record every ``every`` steps (the steps ``record`` is called with that are multiples of it).
        inputs: probe sequences (m, T, n) or (T, n), a few of the user's own (the audit measures the
            bounds on them, stored as ``inputs.pt``); None: no ‖∂L/∂h_0‖, Jacobian summary, Lyapunov
            exponent, and ``rnnaudit audit`` cannot measure bounds on this run.
        targets: what ``loss_fn`` compares the outputs of ``inputs`` with (e.g. (m,) class labels);
            stored as ``targets.pt``.
        loss_fn: ``loss_fn(output, targets)`` (or ``loss_fn(output)`` without targets) → scalar, for
            ‖∂L/∂h_0‖; output is ``readout`` of the last state (every state with ``per_step``).
        readout: the module mapping the recurrent state (its last layer's h) to the output, e.g. an
            ``nn.Linear``; probed on a float64 copy; its weight goes into the checkpoints, and into
            the audit as the model's readout.
        per_step: the readout applies to every state (sequence-to-sequence), not only the last.
        summary_every: steps between Jacobian-norm summaries and top Lyapunov exponents (a multiple of
            ``every``; default 100 · every); also at the first record and at close. Recurrent matrices wider
            than 256 get their spectral radius (an eigensolve: 0.9 s per 1024-wide matrix) at these records only.
            A summary costs about 10 (GRU) to 20 (RNN) training steps of the README's loop (h = 64, T = 64,
            batch 64), a record without one about one step (benchmarks/bench_monitor.py).
        summary_length: the summaries run on the first ``summary_length`` steps of ``inputs[0]`` (≥ 2).
        summary_method: ``"exact"`` (default: the certified all-pairs map, :data:`probes.SUMMARY_RTOL`) or
            ``"sketch"``: randomized sweeps that never form a Jacobian, each map value within a stated factor
            (recorded as ``jacobian/factor``) at confidence 0.9999 per cell, for wide states (an exact summary
            of ``nn.LSTM(128, 1024)``'s 2048-wide state at summary_length 64 forms 2,145 products of
            2048 × 2048 matrices; benchmarks/bench_monitor.py ``--scale``). The top Lyapunov exponent is
            computed matrix-free for wide states either way.
        checkpoint_every: steps between checkpoints (a multiple of ``every``; default 10 · every); also
            at the first record and at close.
        factory: ``"package.module:function"`` returning the model (without weights), recorded so that
            the audit can rebuild a model that is not a torch recurrent module; checked here by loading
            the model's state_dict into what it builds.
        wrap_kwargs: keyword arguments of :func:`rnnaudit.wrap` for a model it cannot read itself
            (``input_size``, ``state_size``, ``state_sizes``, ``recurrent`` given as attribute paths);
            JSON values only, recorded in run.json.
        tensorboard: write TensorBoard events into ``run_dir/tensorboard``: None where tensorboard is
            installed, True always (ImportError without it), False never.
        T: the sequence length the model is trained on, recorded in run.json: the audit judges the
            assumptions that depend on T at it (without it, and without ``inputs``, they are reported as
            not evaluated).
        overwrite: delete the run ``run_dir`` holds and start again: only the files the monitor writes, in a
            directory whose run.json carries rnnaudit's marker; any other file there is refused (named).

    Raises:
        TypeError / ValueError: a bad argument (named), a model :func:`rnnaudit.wrap` refuses, inputs
            of the wrong width, not finite or above the size limits (:mod:`rnnaudit.limits`), a loss_fn
            that fails on the inputs, a factory whose model does not take the state_dict, a directory
            that holds a run with a record or a checkpoint (one stopped before its first record is started again,
            with a RuntimeWarning; with ``overwrite``, files rnnaudit did not write are refused), a run_dir that is a
            file or cannot be created, or a missing run_dir whose parent is missing outside the current
            directory (the command line's ``--out`` rule, :func:`rnnaudit.outputs.check_output_location`).
        rnnaudit.outputs.LockedError: another Monitor or ``rnnaudit train`` is writing ``run_dir``.
        ImportError: ``tensorboard=True`` without tensorboard.
    """

    def __init__(self, model: nn.Module, run_dir: str | os.PathLike, *, every: int = 10, inputs: Tensor | None = None,
                 targets: Tensor | None = None, loss_fn: Callable | None = None, readout: nn.Module | None = None,
                 per_step: bool = False, summary_every: int | None = None, summary_length: int = 64,
                 summary_method: str = "exact",
                 checkpoint_every: int | None = None, factory: str | None = None, wrap_kwargs: dict | None = None,
                 tensorboard: bool | None = None, overwrite: bool = False, T: int | None = None):
        from rnnaudit.cells.adapters import wrap

        if not isinstance(model, nn.Module):
            raise TypeError(f"model must be a torch.nn.Module (the recurrent module), got {type(model).__name__}")
        if not isinstance(run_dir, (str, os.PathLike)):
            raise TypeError(f"run_dir must be a path (str or os.PathLike), got {type(run_dir).__name__}"
                            + (" (a bytes name: pass os.fsdecode(name), which keeps one that is not UTF-8)"
                               if isinstance(run_dir, bytes) else ""))
        self.every = _positive_int("every", every)
        self.T = _positive_int("T", T, allow_none=True)
        self.summary_every = self._multiple("summary_every", summary_every, 100)
        self.checkpoint_every = self._multiple("checkpoint_every", checkpoint_every, 10)
        self.summary_length = _positive_int("summary_length", summary_length)
        if self.summary_length < 2:
            raise ValueError(f"summary_length must be at least 2 steps, got {summary_length}")
        if summary_method not in ("exact", "sketch"):
            raise ValueError(f"summary_method must be 'exact' or 'sketch', got {summary_method!r}")
        self.summary_method = summary_method
        for name, value in (("per_step", per_step), ("overwrite", overwrite)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be True or False, got {value!r}")
        if tensorboard is not None and not isinstance(tensorboard, bool):
            raise TypeError(f"tensorboard must be True, False or None (when installed), got {tensorboard!r}")
        if loss_fn is not None and not callable(loss_fn):
            raise TypeError(f"loss_fn must be callable, got {type(loss_fn).__name__}")
        if readout is not None and not isinstance(readout, nn.Module):
            raise TypeError(f"readout must be a torch.nn.Module (e.g. nn.Linear), got {type(readout).__name__}")
        if factory is not None and not isinstance(factory, str):
            raise TypeError(f"factory must be an import string 'package.module:function', got {type(factory).__name__}")
        if wrap_kwargs is not None and not isinstance(wrap_kwargs, dict):
            raise TypeError(f"wrap_kwargs must be a dict of rnnaudit.wrap's keyword arguments, got "
                            f"{type(wrap_kwargs).__name__}")
        self.wrap_kwargs = dict(wrap_kwargs or {})
        picked = sorted({"direction", "layer"} & set(self.wrap_kwargs))
        if isinstance(model, nn.RNNBase) and model.bidirectional:
            raise ValueError(f"model: a bidirectional {type(model).__name__} is two recurrences, which Monitor does "
                             "not follow yet; audit it with rnnaudit.audit(model, x), which reports each direction")
        if picked:  # the reverse direction runs on reversed time, which the recorded probes do not follow
            raise ValueError(f"wrap_kwargs: {picked} pick one recurrence of a torch module, which Monitor does not "
                             "follow (its probes run the inputs in their own order); audit a bidirectional model "
                             "with rnnaudit.audit(model, x), which reports each direction")
        from rnnaudit.cells.adapters import complex_tensor_name
        from rnnaudit.cells._validate import complex_refusal

        from rnnaudit.cells.packages import package_mapping

        # a pip implementation (lru-pytorch's complex B, C among them) is probed as its reference cell, re-mapped from
        # the float64/complex128 twin at every record (rnnaudit.cells.packages)
        mapping = package_mapping(model)
        self._mapped = mapping is not None
        if self._mapped and mapping.input_size != mapping.cell.input_size:
            raise ValueError(f"model: a {mapping.module_class}'s recurrence reads its own projected and convolved "
                             "inputs, which change as it trains; the Monitor does not follow them yet: audit its "
                             "checkpoints with rnnaudit.audit(model, x)")
        odd = None if self._mapped else complex_tensor_name(model)
        if odd is not None:  # a complex step of one's own: its state is complex, which the Monitor does not follow
            raise ValueError(f"model: {complex_refusal(odd[0], odd[1], 'by the Monitor')}")
        try:
            self.model, self.cell = model, wrap(model, **self.wrap_kwargs)
        except (TypeError, ValueError) as err:
            raise ValueError(f"model: {err}") from None
        from rnnaudit.cells.real_view import RealView

        if isinstance(self.cell, RealView):
            raise ValueError("model: its state is complex, which the Monitor does not record yet (the probes do: "
                             "rnnaudit.hidden_jacobian_maps, lyapunov_spectrum, the CLI's heatmap/lyapunov/spectrum)")
        self.run_dir, self.readout, self.loss_fn, self.per_step = Path(run_dir), readout, loss_fn, per_step
        self.factory = self._check_factory(factory)
        self.description = describe_model(model, self.cell)
        self.twin, self.twin_cell, self.twin_readout = self._copies(wrap)
        self.inputs, self.targets = self._check_inputs(inputs, targets)
        if loss_fn is not None and self.inputs is None:
            raise ValueError("loss_fn needs inputs (the sequences ‖∂L/∂h_0‖ is measured on)")
        self._sync_twin()
        if loss_fn is not None:
            try:
                with torch.enable_grad():
                    self._grad_h0()
            except Exception as err:  # noqa: BLE001 - refused here, not at the first record mid-training
                raise ValueError(f"loss_fn fails on the inputs (outputs of readout, targets): {type(err).__name__}: "
                                 f"{err}") from err
        self.last_step: int | None = None
        self.last_recorded: int | None = None
        self._last_loss = None
        self._versions = None
        self._checkpointed: set[int] = set()
        self._warned_diverged = False
        self.closed = False
        if self.run_dir.exists() and not self.run_dir.is_dir():
            raise ValueError(f"run_dir must be a directory (created when missing), but {self.run_dir} is a file")
        created = not self.run_dir.exists()
        if created:  # the command line's --out rule: missing directories only under the current directory
            check_output_location(self.run_dir, "run_dir")
        try:  # the lock lives inside run_dir, so a read-only parent of an existing run_dir is no obstacle
            self._lock = DirectoryLock(self.run_dir, inside=True).__enter__()
        except OSError as err:
            raise ValueError(f"run_dir {self.run_dir} cannot be created: {err.strerror or err}") from err
        self._writer = None
        try:
            self._start(overwrite, tensorboard)
        except BaseException:
            # whole or absent: nothing of a failed constructor stays, so that a retry starts afresh
            self._abandon(created)
            raise

    # ------------------------------------------------------------------------------------ set-up

    def _multiple(self, name: str, value, default_records: int) -> int:
        value = _positive_int(name, value, allow_none=True)
        if value is None:
            return default_records * self.every
        if value % self.every:
            raise ValueError(f"{name} must be a multiple of every = {self.every} (it acts at recorded steps), "
                             f"got {value}")
        return value

    def _check_factory(self, factory: str | None) -> str | None:
        if factory is None:
            return None
        from rnnaudit.user_models import import_factory, load_weights

        with torch.random.fork_rng(devices=[]):  # the factory's initialisation must not move the user's RNG
            load_weights(import_factory(factory), self.model.state_dict(), "the model's state_dict (factory check)")
        return factory

    def _copies(self, wrap):
        """The float64 copies the probes run on: a plain torch module of the same sizes for a torch
        recurrent module (loaded with its weights as used, parametrizations evaluated), a deep copy
        otherwise (or, where the module cannot be copied, the factory's)."""
        device = next((p.device for p in self.model.parameters()), torch.device("cpu"))
        self._plain_twin = self.description["torch_module"]
        if self._plain_twin:
            twin = build_torch_module(self.description, torch.float64, device)
        else:
            try:
                from rnnaudit.cells.copying import probe_copy

                twin = probe_copy(self.model)  # float64; complex tensors complex128, never cast to real
            except RuntimeError as err:  # e.g. a module holding non-leaf tensors from its last forward
                if self.factory is None:
                    raise ValueError(f"model: cannot copy it for the float64 probes ({err}); pass factory=") from None
                from rnnaudit.user_models import import_factory

                from rnnaudit.cells.copying import probe_copy

                with torch.random.fork_rng(devices=[]):
                    twin = probe_copy(import_factory(self.factory))
            twin = twin.to(device=device)
        twin.eval().requires_grad_(False)
        readout = None
        if self.readout is not None:
            readout = copy.deepcopy(self.readout).to(device=device, dtype=torch.float64).eval().requires_grad_(False)
        return twin, wrap(twin, **self.wrap_kwargs), readout

    def _check_inputs(self, inputs, targets) -> tuple[Tensor | None, Tensor | None]:
        if inputs is None:
            if targets is not None:
                raise ValueError("targets need inputs (the sequences they belong to)")
            return None, None
        n = self.cell.input_size
        if not isinstance(inputs, Tensor):
            raise TypeError(f"inputs must be a tensor (m, T, {n}) or (T, {n}), got {type(inputs).__name__}")
        if inputs.is_complex():
            from rnnaudit.cells._validate import complex_refusal

            raise ValueError(complex_refusal("inputs", inputs.dtype, "as inputs"))
        if not inputs.is_floating_point() or inputs.dim() not in (2, 3) or inputs.shape[-1] != n or 0 in inputs.shape:
            raise ValueError(f"inputs must be a non-empty floating tensor (m, T, {n}) or (T, {n}), got "
                             f"{inputs.dtype} {tuple(inputs.shape)}")
        # the float64 copy below allocates every element, even of an expanded tensor: sizes first
        check_tensor_sizes(inputs, "inputs")
        if not torch.isfinite(inputs).all():
            raise ValueError("inputs hold NaN or Inf entries")
        x = (inputs[None] if inputs.dim() == 2 else inputs).detach()
        if targets is not None:
            if not isinstance(targets, Tensor):
                raise TypeError(f"targets must be a tensor, got {type(targets).__name__}")
            if targets.dim() == 0 or targets.shape[0] != x.shape[0]:
                raise ValueError(f"targets must have one entry per input sequence (first dimension {x.shape[0]}), got "
                                 f"shape {tuple(targets.shape)}")
            targets = targets.detach()
        device = next((p.device for p in self.twin.parameters()), torch.device("cpu"))
        self._stored = (x.cpu().clone(), None if targets is None else targets.cpu().clone())
        y = None if targets is None else targets.to(device=device,
                                                     dtype=torch.float64 if targets.is_floating_point() else None)
        return x.to(device=device, dtype=torch.float64), y

    def _start(self, overwrite: bool, tensorboard: bool | None) -> None:
        run_dir = self.run_dir
        if (run_dir / "run.json").exists() or (run_dir / "trajectory.jsonl").exists():
            trajectory = run_dir / "trajectory.jsonl"
            # a record written before the kill is data a restart would delete: only an empty run starts again
            never_checkpointed = (not any((run_dir / "checkpoints").glob("step_*.pt"))
                                  and (not trajectory.is_file() or trajectory.stat().st_size == 0))
            if not overwrite and not never_checkpointed:
                raise ValueError(f"run_dir {run_dir} already holds a run; pass overwrite=True to start it again, or "
                                 "choose another directory")
            if not overwrite:  # killed before its first record: nothing to resume from, nothing of value lost
                warnings.warn(f"run_dir {run_dir} holds a run stopped before its first record; starting it again "
                              "from scratch", RuntimeWarning, stacklevel=3)
            remove_own_files(run_dir, MONITOR_FILES, what="overwrite")
        remove_stale_temporaries(run_dir)  # left by a process killed mid-write; we hold the lock
        self._wrote: list[Path] = []
        x, y = self._stored if self.inputs is not None else (None, None)
        for name, tensor in (("inputs.pt", x), ("targets.pt", y)):
            if tensor is not None:
                with atomic_path(run_dir / name) as tmp:
                    torch.save(tensor, tmp)
                self._wrote.append(run_dir / name)
        readout = None
        if self.readout is not None:
            weight = getattr(self.readout, "weight", None)
            readout = {"type": type(self.readout).__name__,
                       "shape": list(weight.shape) if isinstance(weight, Tensor) else None}
        self._provenance = provenance()
        had_events = (run_dir / TENSORBOARD_DIR).exists()
        self._writer = event_writer(run_dir, tensorboard)
        if not had_events and (run_dir / TENSORBOARD_DIR).exists():
            self._wrote.append(run_dir / TENSORBOARD_DIR)
        # run.json last: a constructor that fails before this line leaves no run behind
        write_json_atomic(run_dir / "run.json", {
            **RUN_MARKER, "kind": "monitor", "format": RUN_FORMAT, "model": self.description, "factory": self.factory,
            "wrap_kwargs": self.wrap_kwargs, "readout": readout, "per_step": self.per_step, "every": self.every,
            "summary_every": self.summary_every, "checkpoint_every": self.checkpoint_every,
            "summary_length": self.summary_length, "summary_method": self.summary_method, "T": self.T,
            "inputs": "inputs.pt" if x is not None else None,
            "targets": "targets.pt" if y is not None else None,
            "loss_fn": None if self.loss_fn is None else getattr(self.loss_fn, "__name__", type(self.loss_fn).__name__),
            "provenance": self._provenance})

    def _abandon(self, created: bool) -> None:
        """Undo a constructor that failed: close the event writer, remove the files it wrote (run.json is
        written last, so it is never among them), release the lock, and remove run_dir if it made it."""
        try:
            if self._writer is not None:
                self._writer.close()
            for path in getattr(self, "_wrote", []):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        finally:
            self._lock.__exit__(None, None, None)
        if created:
            try:
                self.run_dir.rmdir()  # only if empty: never anything of the user's
            except OSError:
                pass

    # ---------------------------------------------------------------------------------- recording

    def record(self, step: int, loss=None, **scalars) -> dict | None:
        """Call after ``loss.backward()`` (before ``optimizer.zero_grad()``): at a multiple of
        ``every``, append a record of this step; otherwise return at once.

        Args:
            step: the user's step counter, a non-negative int increasing from call to call.
            loss: the training loss of this step (a one-element tensor or a number; read only at
                recorded steps, so other steps cost no GPU synchronisation), or None.
            **scalars: further numbers to record under their names (e.g. ``val_accuracy=0.93``).

        Returns:
            the record written, or None when this step is not recorded.

        Raises:
            TypeError / ValueError: a step that is not an int or does not increase, a loss or scalar
                that is not a number, a scalar named like a recorded quantity.
            RuntimeError: the monitor is closed.

        Warns:
            RuntimeWarning: once per monitor, at the first record with a NaN/Inf loss, gradient or
                parameter (the record says ``diverged``; the loop is the user's to stop).
        """
        if self.closed:
            raise RuntimeError("record() on a closed Monitor")
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"step must be an int, got {type(step).__name__}")
        if step < 0 or (self.last_step is not None and step <= self.last_step):
            after = "" if self.last_step is None else f" greater than the last step {self.last_step}"
            raise ValueError(f"step must be a non-negative int{after}, got {step}")
        if loss is not None and not isinstance(loss, (Tensor, numbers.Real)):
            raise TypeError(f"loss must be a one-element tensor or a number, got {type(loss).__name__}")
        self.last_step, self._last_loss = step, loss
        self._versions = self._parameter_versions()
        if step % self.every:
            return None
        values = {}
        for name, value in scalars.items():
            if name in _RESERVED:
                raise ValueError(f"scalar {name!r} is recorded by the monitor itself; choose another name")
            values[name] = _number(name, value)
        first = self.last_recorded is None
        record = self._measure(step, loss, values, summary=first or step % self.summary_every == 0, grads=True)
        if first or step % self.checkpoint_every == 0:
            self._checkpoint(step)
        return record

    def _parameter_versions(self) -> tuple[int, ...]:
        """In-place update counters of the user's parameters: an optimizer step changes them."""
        return tuple(p._version for p in self.model.parameters())

    def _measure(self, step: int, loss, scalars: dict, *, summary: bool, grads: bool) -> dict:
        measured: dict = {} if loss is None else {"loss": _number("loss", loss)}
        if grads:
            # a mapped module's reference cell holds copies: the gradients are on the module's own parameters
            roles = dict(self.model.named_parameters()) if self._mapped else self.cell.parameters_by_role()
            measured.update(gradient_norms_from_grad(roles))
        finite = self._sync_twin()
        if not finite or not all(math.isfinite(v) for v in measured.values()):
            measured["diverged"] = True  # recorded as measured; the probes need finite parameters
            if not self._warned_diverged:
                self._warned_diverged = True
                names = [k for k, v in measured.items() if isinstance(v, float) and not math.isfinite(v)]
                bad = "the parameters" if not finite else ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
                warnings.warn(f"step {step}: {bad} not finite (NaN/Inf); recorded as diverged, without the probes "
                              "that need finite parameters", RuntimeWarning, stacklevel=3)
        if finite:
            measured.update(self._probes(step, summary))
        clash = sorted(set(scalars) & set(measured))
        if clash:
            raise ValueError(f"scalars {clash} are recorded by the monitor itself; choose other names")
        record = {"step": step, **{k: measured.pop(k) for k in ("loss",) if k in measured}, **scalars, **measured}
        self._append(record)
        self.last_recorded = step
        return record

    def _sync_twin(self) -> bool:
        """Load the user's current parameters into the float64 copies; whether they are all finite.

        Raises:
            ValueError: the model's parameters changed names or shapes since the monitor was created.
        """
        with torch.no_grad():
            state = plain_weights(self.model) if self._plain_twin else self.model.state_dict()
            own = self.twin.state_dict()
            changed = sorted(set(own) ^ set(state)) or [k for k in own if own[k].shape != state[k].shape]
            if changed:
                k = changed[0]
                what = (f"{k!r} has shape {tuple(state[k].shape)}, it had {tuple(own[k].shape)}"
                        if k in own and k in state else f"{k!r} {'appeared' if k in state else 'disappeared'}")
                raise ValueError(f"model: its parameters changed since the Monitor was created ({what}); a Monitor "
                                 "records one model: start a new Monitor (another run_dir) for a changed model")
            self.twin.load_state_dict(state)
            if self._mapped:  # the reference cell holds copies of the twin's parameters: map them afresh
                from rnnaudit.cells.adapters import wrap

                self.twin_cell = wrap(self.twin)
            if self.twin_readout is not None:
                self.twin_readout.load_state_dict(self.readout.state_dict())
            tensors = list(self.twin.parameters()) + list(self.twin_readout.parameters() if self.twin_readout else [])
            return all(bool(torch.isfinite(t).all()) for t in tensors)

    def _grad_h0(self) -> float:
        if isinstance(self.twin, nn.RNNBase) and not self.twin.bidirectional:
            return initial_state_gradient_fused(self.twin, self.inputs, self.loss_fn, targets=self.targets,
                                                readout=self.twin_readout, per_step=self.per_step)
        return initial_state_gradient(self.twin_cell, self.inputs, self.loss_fn, targets=self.targets,
                                      readout=self.twin_readout, per_step=self.per_step)

    def _probes(self, step: int, summary: bool) -> dict:
        out = {}
        with torch.no_grad():
            matrices = self.twin_cell.recurrent_matrices()
            narrow = all(W.shape[-1] <= RADIUS_EVERY_RECORD_MAX for W in matrices.values())
            out.update(matrix_record(matrices, radius=summary or narrow,
                                     orthogonality=orthogonality_concerned(self.twin_cell)))
            out.update(gate_record(self.twin_cell))
        if self.inputs is None:
            return out
        with torch.enable_grad():
            if self.loss_fn is not None:
                out["grad_h0"] = self._grad_h0()
            if summary:
                x = self.inputs[0, :self.summary_length]
                record, norms = jacobian_summary(self.twin_cell, x, self.summary_method)
                out.update(record)
                out.update(top_lyapunov_exponent(self.twin_cell, x))
                with self._writing(f"jacobian/step_{step:08d}.pt"), \
                        atomic_path(self.run_dir / "jacobian" / f"step_{step:08d}.pt") as tmp:
                    torch.save(norms.detach().cpu(), tmp)
        return out

    def _append(self, record: dict) -> None:
        from rnnaudit.training.runs import _append_record

        with self._writing("trajectory.jsonl"):
            _append_record(self.run_dir, record)
        write_scalars(self._writer, record)

    @contextlib.contextmanager
    def _writing(self, what: str):
        """One clear OSError, naming the file and the run directory, for a write that fails (a full disk:
        torch.save reports it as a RuntimeError from its zip writer, worded by torch's C++ code and not always
        naming a write, e.g. "[enforce fail at inline_container.cc:672] unexpected pos 128 vs 0" after an earlier
        ENOSPC). The block holds file writes only, so every RuntimeError in it is one."""
        try:
            yield
        except (OSError, RuntimeError) as err:
            reason = getattr(err, "strerror", None) or str(err).strip().splitlines()[0][:200]
            raise OSError(getattr(err, "errno", None) or errno.EIO,
                          f"Monitor: cannot write {what} in {self.run_dir} ({reason}); the records and checkpoints "
                          "written before are whole and kept") from None

    def _checkpoint(self, step: int) -> None:
        from rnnaudit.training.runs import _checkpoint_path

        payload = {"format": CHECKPOINT_FORMAT, "step": step, "model": self.description, "factory": self.factory,
                   "state_dict": {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()},
                   "plain_state_dict": plain_weights(self.model) if self._plain_twin else None,
                   "readout_state_dict": (None if self.readout is None else
                                          {k: v.detach().cpu().clone() for k, v in self.readout.state_dict().items()}),
                   "provenance": self._provenance}
        path = _checkpoint_path(self.run_dir, step)
        with self._writing(f"checkpoints/{path.name}"):
            with atomic_path(path) as tmp:
                torch.save(payload, tmp)
            write_text_atomic(self.run_dir / "checkpoints" / "latest.txt", path.name + "\n")
        self._checkpointed.add(step)

    # ---------------------------------------------------------------------------------- closing

    def close(self) -> None:
        """Write the final record and checkpoint, and release the directory (idempotent).

        The final parameters are labelled with the last step passed to :meth:`record` when no
        optimizer step changed them since that call (the loop calls ``record`` after
        ``optimizer.step()``), otherwise with that step + 1: the step whose ``record`` call would have
        seen them. A step not yet recorded gets a record of its parameter probes (with the loss and
        gradients when they belong to these parameters) and a checkpoint.

        Raises:
            OSError: the final record or checkpoint cannot be written (e.g. a full disk; one message naming
                the file). The directory is released all the same, and what was written before is kept.
        """
        if self.closed:
            return
        try:
            if self.last_step is not None:
                unchanged = self._parameter_versions() == self._versions
                step = self.last_step if unchanged else self.last_step + 1
                if step != self.last_recorded:
                    self._measure(step, self._last_loss if unchanged else None, {}, summary=True, grads=unchanged)
                if step not in self._checkpointed:
                    self._checkpoint(step)
        finally:
            self._release()

    def _release(self) -> None:
        self.closed = True
        try:
            if self._writer is not None:
                self._writer.close()
        finally:
            self._lock.__exit__(None, None, None)

    def __enter__(self) -> "Monitor":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.close()
        else:  # Ctrl-C or an error mid-step: keep the records written so far, write nothing half-done
            self._release()
        return False

    def __repr__(self) -> str:
        return (f"Monitor({self.description['type']}, {str(self.run_dir)!r}, every={self.every}, "
                f"last_step={self.last_step}, closed={self.closed})")
