"""Run directories written by :class:`rnnaudit.Monitor` from a user's own training loop: what they hold,
and how the audit, the figures and ``compare`` read them back.

The layout is the trainer's (:mod:`rnnaudit.training.runs`), so ``read_trajectory``, ``compare`` and
the trajectory figures read both:

- ``run.json``: ``{"kind": "monitor", "format", "model": <description>, "factory", "wrap_kwargs",
  "readout", "per_step", "every", "summary_every", "checkpoint_every", "summary_length", "summary_method", "T",
  "inputs", "targets", "loss_fn", "provenance"}``;
- ``trajectory.jsonl``: one record per recorded step, appended and fsync'ed line by line;
- ``checkpoints/step_XXXXXXXX.pt`` and ``checkpoints/latest.txt``: ``{"format", "step", "state_dict"
  (the module's own, as ``module.load_state_dict`` takes it), "plain_state_dict" (torch modules: the
  weights as the module uses them, parametrizations evaluated, under torch's names), "readout_state_dict",
  "model", "factory", "provenance"}``, loadable with ``torch.load(..., weights_only=True)``;
- ``inputs.pt`` (and ``targets.pt``): the sequences the monitor probes with, which the audit measures
  the bounds on; ``jacobian/step_XXXXXXXX.pt``: the ‖∂h_t/∂h_s‖₂ maps of the summary steps;
  ``tensorboard/``: event files where tensorboard is installed.

A checkpoint's step is the user's step at which the monitor read the parameters (``record(step, ...)``);
the one :meth:`Monitor.close` writes holds the parameters at close (its step says which, see there).

To rebuild the model a checkpoint holds, the audit needs its class: a ``torch.nn`` RNN, GRU, LSTM or
their ``*Cell`` is rebuilt from its recorded sizes and plain weights (as ``--arch`` does,
:func:`rnnaudit.user_models.model_from_state_dict`); any other module through a factory import string
(``"pkg.module:fn"``, :func:`rnnaudit.user_models.import_factory`) that the user passes in this process
(``--model``, ``factory=``). The factory the monitor recorded is only named, never imported: a run
directory is data, and whoever can write one must not be able to run code.
Everything read back is untrusted input: each reader raises :class:`rnnaudit.untrusted.InputError`
naming the file and field.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import torch
from torch import Tensor, nn
from torch.nn.utils import parametrize

from rnnaudit.cells._validate import unsupported_tensor
from rnnaudit.limits import TooLargeError
from rnnaudit.untrusted import InputError, load_torch_file, read_json_file, require_inside

__all__ = ["monitored_run_of", "RUN_FORMAT", "MONITOR_FILES", "CHECKPOINT_FORMAT", "TORCH_RECURRENT", "describe_model",
           "plain_weights",
           "build_torch_module", "is_monitored_run", "read_monitored_run", "load_monitored_checkpoint",
           "rebuild_model", "monitored_inputs"]

RUN_FORMAT = "rnnaudit-monitor-run-1"
#: The names the monitor writes in a run directory: what ``overwrite`` may delete
#: (:func:`rnnaudit.outputs.remove_own_files`).
MONITOR_FILES = {"run.json": True, "trajectory.jsonl": True, "inputs.pt": True, "targets.pt": True,
                 "checkpoints": re.compile(r"step_\d{8}\.pt|latest\.txt"), "jacobian": re.compile(r"step_\d{8}\.pt"),
                 "tensorboard": re.compile(r"events\.out\.tfevents\..+")}
CHECKPOINT_FORMAT = "rnnaudit-monitor-checkpoint-1"
#: torch module types rebuilt from their recorded sizes (no factory needed)
TORCH_RECURRENT = {"RNN": nn.RNN, "GRU": nn.GRU, "LSTM": nn.LSTM, "RNNCell": nn.RNNCell, "GRUCell": nn.GRUCell,
                   "LSTMCell": nn.LSTMCell}
_ARCH = {"RNN": "rnn", "GRU": "gru", "LSTM": "lstm"}


def _torch_type(module: nn.Module) -> str | None:
    """The name in :data:`TORCH_RECURRENT` of a torch recurrent module (its exact class before any
    parametrization: a user's subclass may change the step), else None."""
    cls = parametrize.type_before_parametrizations(module)
    return next((name for name, torch_cls in TORCH_RECURRENT.items() if cls is torch_cls), None)


def describe_model(module: nn.Module, cell) -> dict:
    """What run.json records about the user's model: its class, sizes and dtype, and for a torch
    recurrent module the constructor arguments that rebuild it.

    Args:
        module: the user's module. cell: ``rnnaudit.wrap(module)`` (for the state width S).

    Returns:
        {"type", "class", "arch" (rnn/gru/lstm or None), "input_size", "state_size", "dtype",
        "parametrized" (tensor names under torch.nn.utils.parametrize), "torch_module" (exactly one of
        :data:`TORCH_RECURRENT`, rebuilt without a factory), "rnnaudit_config" for one of rnnaudit's
        own cells (its ``config()``, rebuilt without a factory too), and for torch modules
        "hidden_size", "bias", "nonlinearity", and for RNN/GRU/LSTM "num_layers", "proj_size",
        "batch_first"}.
    """
    dtype = next((p.dtype for p in module.parameters() if p.is_floating_point()), torch.float32)
    cls = parametrize.type_before_parametrizations(module)
    out = {"type": cls.__name__, "class": f"{cls.__module__}.{cls.__qualname__}",
           "arch": None, "input_size": int(cell.input_size), "state_size": int(cell.hidden_size),
           "dtype": str(dtype).replace("torch.", ""),
           "parametrized": sorted(module.parametrizations) if parametrize.is_parametrized(module) else []}
    name = _torch_type(module)
    out["torch_module"] = name is not None
    from rnnaudit.cells.registry import MODULE_TYPES

    if MODULE_TYPES.get(cls.__name__) is cls:  # one of rnnaudit's cells: rebuilt from its own config
        out["rnnaudit_config"] = module.config()
    if name is not None:
        out.update(type=name, arch=_ARCH.get(name), hidden_size=int(module.hidden_size), bias=bool(module.bias),
                   nonlinearity=getattr(module, "nonlinearity", None))
        if name in _ARCH:
            out.update(num_layers=int(module.num_layers), proj_size=int(module.proj_size),
                       batch_first=bool(module.batch_first))
    return out


def plain_weights(module: nn.Module) -> dict[str, Tensor]:
    """The weights of a torch recurrent module as its step uses them, under torch's own names
    (``weight_hh_l0``, ...): a parametrized tensor evaluated (e.g. the orthogonal W_hh of
    ``parametrizations.orthogonal``), detached, on the CPU, in its own dtype."""
    with torch.no_grad():
        own = {k: v for k, v in module.state_dict().items() if not k.startswith("parametrizations.")}
        for name in (module.parametrizations if parametrize.is_parametrized(module) else ()):
            own[name] = getattr(module, name)
        return {k: v.detach().cpu().clone() for k, v in own.items()}


def build_torch_module(description: dict, dtype: torch.dtype = torch.float64, device=None, *,
                       allow_large: bool = False) -> nn.Module:
    """A torch recurrent module of the described class and sizes (no parametrizations), in ``dtype``, with
    uninitialised weights: load weights into it. It is built on the meta device and then allocated,
    so it draws nothing from torch's random generators (a monitored loop stays the loop it was).

    Raises:
        InputError: a description that is not of a torch recurrent module, or with fields of the wrong kind.
        rnnaudit.limits.TooLargeError: sizes above the limits (checked from the description before anything is
            built: a run.json can claim any size).
    """
    name = description.get("type")
    if name not in TORCH_RECURRENT:
        raise InputError(f"the model is a {name!r}, not one of {sorted(TORCH_RECURRENT)}; it is rebuilt through its "
                         "factory")
    kwargs = dict(input_size=description.get("input_size"), hidden_size=description.get("hidden_size"),
                  bias=description.get("bias"))
    if name in _ARCH:
        kwargs.update(num_layers=description.get("num_layers"), batch_first=description.get("batch_first"))
        if name == "LSTM":
            kwargs["proj_size"] = description.get("proj_size")
    if name in ("RNN", "RNNCell"):
        kwargs["nonlinearity"] = description.get("nonlinearity")
    for key, value in kwargs.items():
        kind = bool if key in ("bias", "batch_first") else str if key == "nonlinearity" else int
        if not isinstance(value, kind) or (kind is int and (isinstance(value, bool) or value < 0)):
            raise InputError(f"run.json: model field {key!r} must be a {kind.__name__}, got {value!r}")
    from rnnaudit.limits import check_sizes

    hidden, width, layers = kwargs["hidden_size"], kwargs["input_size"], kwargs.get("num_layers", 1)
    check_sizes("run.json's model", allow_large=allow_large, hidden=max(1, hidden),
                elements=max(1, 4 * layers * max(1, hidden) * (max(1, hidden) + max(1, width))))
    try:
        module = TORCH_RECURRENT[name](**kwargs, dtype=dtype, device="meta")
    except (ValueError, TypeError, RuntimeError) as err:
        raise InputError(f"run.json: cannot build torch.nn.{name}({kwargs}): {err}") from None
    return module.to_empty(device=device or "cpu")


# ---------------------------------------------------------------------------------------- reading

def is_monitored_run(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a run directory written by :class:`rnnaudit.Monitor` (its run.json says so).

    Raises:
        InputError: a run.json that is there but cannot be read as one (no permission, a directory, a symlink
            out of the run, not JSON, not an object): whose run it is cannot be told, and taking it for a
            trainer's run misreported it as a checkpoint of the wrong format. Named, with what is wrong.
    """
    run_json = Path(path) / "run.json"
    if not run_json.exists() and not run_json.is_symlink():
        return False
    require_inside(run_json, path, "run.json")
    return read_json_file(run_json, "run.json").get("kind") == "monitor"


def monitored_run_of(path: str | os.PathLike) -> Path | None:
    """The monitored run directory ``path`` is, or whose ``checkpoints/`` holds the file ``path``; else None."""
    path = Path(path)
    if path.is_dir():
        return path if is_monitored_run(path) else None
    run_dir = path.parent.parent
    return run_dir if path.parent.name == "checkpoints" and is_monitored_run(run_dir) else None


def read_monitored_run(run_dir: str | os.PathLike, *, allow_large: bool = False) -> dict:
    """The run.json of a monitored run, with the fields the readers rely on checked.

    Args:
        run_dir: the run directory. allow_large: lift the limit on the recorded ``T`` (:data:`rnnaudit.limits.LIMITS`).

    Raises:
        InputError: no readable run.json, not a monitored run, or fields of the wrong kind (named).
        rnnaudit.limits.TooLargeError: a recorded ``T`` above the limit (a file can claim T = 10¹², and the audit
            of a run without inputs draws sequences of that length).
    """
    path = require_inside(Path(run_dir) / "run.json", run_dir, "run.json")
    info = read_json_file(path, "run.json")
    if info.get("kind") != "monitor" or info.get("format") != RUN_FORMAT:
        raise InputError(f"{path}: not a run directory of rnnaudit.Monitor (format {RUN_FORMAT})")
    if not isinstance(info.get("model"), dict) or not isinstance(info["model"].get("type"), str):
        raise InputError(f"{path}: field 'model' must describe the model (a dict with 'type')")
    for key in ("factory", "inputs", "targets"):
        if info.get(key) is not None and not isinstance(info[key], str):
            raise InputError(f"{path}: field {key!r} must be a string or null, got {type(info[key]).__name__}")
    wrap_kwargs = info.get("wrap_kwargs", {})
    if not isinstance(wrap_kwargs, dict):
        raise InputError(f"{path}: field 'wrap_kwargs' must be a dict")
    if wrap_kwargs and info["model"].get("torch_module") is True:  # wrap() takes a torch module's own sizes
        raise InputError(f"{path}: field 'wrap_kwargs' must be empty for a torch.nn {info['model']['type'][:40]} "
                         f"(wrapped from its own attributes), got keys {sorted(map(str, wrap_kwargs))[:5]}")
    from rnnaudit.limits import check_sizes

    for key in ("input_size", "state_size"):
        value = wrap_kwargs.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InputError(f"{path}: field 'wrap_kwargs.{key}' must be an integer, got {str(value)[:40]!r}")
        if value is not None:
            check_sizes(f"{path}: field 'wrap_kwargs.{key}'", allow_large=allow_large, hidden=value)
    T = info.get("T")
    if T is not None and (isinstance(T, bool) or not isinstance(T, int) or T < 1):
        raise InputError(f"{path}: field 'T' must be a positive integer or null, got {str(T)[:40]!r}")
    if T is not None:
        check_sizes(f"{path}: field 'T'", allow_large=allow_large, T=T)
    return info


def load_monitored_checkpoint(path: str | os.PathLike, step: int | None = None, *, allow_large: bool = False) -> dict:
    """A checkpoint of a monitored run: the run directory's latest (or the one of ``step``), or a file.

    Raises:
        InputError: no such checkpoint (the message lists the steps there are), not a monitor
            checkpoint, or fields of the wrong kind.
    """
    from rnnaudit.training.runs import _checkpoint_path, _latest, checkpoint_steps

    path = Path(path)
    if path.is_dir():
        if step is None:
            path = _latest(path)
        else:
            candidate = require_inside(_checkpoint_path(path, step), path, "checkpoint")
            if not candidate.is_file():
                raise InputError(f"{path}: no checkpoint at step {step}; available steps: {checkpoint_steps(path)}")
            path = candidate
    payload = load_torch_file(path, "checkpoint", allow_large=allow_large)
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise InputError(f"{path} is not a checkpoint of rnnaudit.Monitor (format {CHECKPOINT_FORMAT})")
    for key, kind in (("step", int), ("state_dict", dict), ("model", dict)):
        if not isinstance(payload.get(key), kind) or isinstance(payload.get(key), bool):
            raise InputError(f"{path}: checkpoint field {key!r} must be a {kind.__name__}, got "
                             f"{type(payload.get(key)).__name__}")
    payload["path"] = str(path)
    return payload


def _check_weights(weights, where: str, *, required: bool) -> None:
    """A checkpoint's state dict must be a dict of real tensors with finite floating entries (a file may hold
    anything: a list, NaN weights), or absent where it is optional.

    Raises:
        InputError: naming the entry.
    """
    if weights is None and not required:
        return
    if not isinstance(weights, dict) or not weights:
        raise InputError(f"{where}: expected a non-empty dict of parameter tensors, got {type(weights).__name__}")
    for name, tensor in weights.items():
        if not isinstance(name, str) or not isinstance(tensor, Tensor):
            raise InputError(f"{where}: entry {str(name)[:80]!r} is not a named tensor")
        why = unsupported_tensor(tensor)
        if why is not None:  # float8, sparse or meta tensors fail deep inside torch (isfinite) otherwise
            raise InputError(f"{where}: {name!r} is {why}")
        if tensor.is_complex():  # integer buffers (a step counter) are fine; complex weights are not real
            from rnnaudit.cells._validate import complex_refusal

            raise InputError(f"{where}: {complex_refusal(repr(name), tensor.dtype, 'in Monitor checkpoints')}")
        if tensor.is_floating_point() and not torch.isfinite(tensor).all():
            raise InputError(f"{where}: {name!r} holds NaN or Inf entries")


def _check_config_sizes(config: dict, where: str, *, allow_large: bool = False) -> None:
    """The sizes an rnnaudit cell's recorded config claims, checked before the cell is built: a run.json or
    checkpoint may claim any width (hidden_size 30000 built a 7 GB cell before its weights were compared).

    Each integer field named ``*_size`` or ``units`` (the widths: input_size, hidden_size, long_size, ...) is a
    ``hidden`` size, and a cell of width w = their sum holds at most 4·w² parameters (a gated cell's four
    w × w blocks); that many float64 numbers must also fit the memory limit, even with ``allow_large``.

    Raises:
        InputError: a width that is not a non-negative integer (named).
        rnnaudit.limits.TooLargeError: a width or the parameter count above the limits, or above memory.
    """
    from rnnaudit.analysis.grid_maps import default_memory_limit
    from rnnaudit.limits import check_sizes

    widths = {}
    for key, value in config.items():
        if isinstance(key, str) and (key.endswith("_size") or key == "units"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"{where}: model field 'rnnaudit_config.{key}' must be a non-negative integer, got "
                                 f"{str(value)[:40]!r}")
            widths[key] = value
    for key, value in widths.items():
        check_sizes(f"{where}: model field 'rnnaudit_config.{key}'", allow_large=allow_large, hidden=max(1, value))
    elements = 4 * sum(widths.values()) ** 2
    check_sizes(f"{where}: model field 'rnnaudit_config' ({', '.join(f'{k} = {v}' for k, v in widths.items())})",
                allow_large=allow_large, elements=max(1, elements))
    limit = default_memory_limit()
    if 8 * elements > limit:
        raise TooLargeError(f"{where}: model field 'rnnaudit_config' describes a cell of up to {elements} float64 "
                            f"parameters ({8 * elements / 2**30:.3g} GiB), above the memory limit of "
                            f"{limit / 2**30:.3g} GiB")


def rebuild_model(checkpoint: dict, wrap_kwargs: dict | None = None, *, factory: str | None = None,
                  allow_large: bool = False) -> tuple[nn.Module, Tensor | None]:
    """The user's model of a monitor checkpoint, in the dtype it was trained in, evaluation mode, and its
    readout weight (k, h) when the monitor was given a readout with a ``weight``.

    Through ``factory`` when the caller gives one (with the module's own state_dict); otherwise one of
    rnnaudit's cells from its recorded config, and a torch recurrent module from its recorded sizes with
    the plain weights (through :func:`rnnaudit.user_models.model_from_state_dict` for RNN/GRU/LSTM).
    The ``factory`` a checkpoint or run.json records is never imported: files are data, and a tampered
    run directory must not run code (``"os:abort"``, a module placed beside it). The error names it, so
    that a user who trusts it can pass it.

    Args:
        checkpoint: as :func:`load_monitored_checkpoint` returns it.
        factory: ``"package.module:function"`` given by the user in this process (``--model``,
            ``factory=``), or None.
        allow_large: lift the size limits on what the recorded description claims (the memory limit stays).

    Raises:
        InputError: a model that is neither a torch recurrent module nor one of rnnaudit's cells, without
            a ``factory`` (names the one the run records); weights that do not fit (each key and shape
            named); a factory that fails (named).
        rnnaudit.limits.TooLargeError: sizes the description claims above the limits, checked before building.
    """
    from rnnaudit.user_models import import_factory, load_weights, model_from_state_dict

    where = checkpoint.get("path", "checkpoint")
    description, recorded = checkpoint["model"], checkpoint.get("factory")
    for key in ("state_dict", "plain_state_dict"):
        _check_weights(checkpoint.get(key), f"{where} ({key})", required=key == "state_dict")
    dtype = getattr(torch, str(description.get("dtype", "float32")), None)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise InputError(f"{where}: model dtype {description.get('dtype')!r} is not a floating torch dtype")
    try:
        if factory is not None:
            module = load_weights(import_factory(factory), checkpoint["state_dict"], f"{where} (state_dict)")
        elif isinstance(description.get("rnnaudit_config"), dict):
            from rnnaudit.cells.registry import module_from_config

            _check_config_sizes(description["rnnaudit_config"], where, allow_large=allow_large)
            module = load_weights(module_from_config(description["type"], description["rnnaudit_config"],
                                                     dtype=dtype), checkpoint["state_dict"], f"{where} (state_dict)")
        elif description.get("torch_module") is True and description.get("type") in TORCH_RECURRENT:
            plain = checkpoint.get("plain_state_dict") or checkpoint["state_dict"]
            if description.get("arch") is not None:
                module = model_from_state_dict(plain, description["arch"],
                                               nonlinearity=description.get("nonlinearity") or "tanh", dtype=dtype)
            else:
                module = load_weights(build_torch_module(description, dtype, allow_large=allow_large), plain,
                                      f"{where} (plain_state_dict)")
        elif isinstance(recorded, str):
            raise InputError(f"{where}: the run names the factory {recorded[:120]!r}, and rnnaudit never imports "
                             "code a file names; if you trust it, pass it yourself: --model on the command line, "
                             "factory= in Python")
        else:
            raise InputError(f"{where}: the model is a {description.get('class', description.get('type'))}, which "
                             "rnnaudit can rebuild only through its factory: pass --model package.module:build_fn "
                             "(factory= in Python)")
    except (InputError, TooLargeError):  # they name the file already
        raise
    except ValueError as err:
        raise InputError(f"{where}: {err}") from None
    readout = checkpoint.get("readout_state_dict")
    weight = readout.get("weight") if isinstance(readout, dict) else None
    return module.to(dtype).eval(), (weight if isinstance(weight, Tensor) and weight.dim() == 2 else None)


def monitored_inputs(run_dir: str | os.PathLike, input_size: int, *, allow_large: bool = False) -> Tensor:
    """The probe sequences of a monitored run (inputs.pt), (m, T, n) float64.

    Raises:
        InputError: the run stored none (the monitor was given no inputs), or the file does not fit.
    """
    from rnnaudit.user_models import load_inputs

    info = read_monitored_run(run_dir, allow_large=allow_large)
    if info.get("inputs") is None:
        raise InputError(f"{run_dir}: the monitor was given no inputs, so there are no sequences to measure the "
                         "bounds on; pass Monitor(..., inputs=x) (a few of your sequences), or audit a checkpoint with "
                         "--arch/--model --weights and --inputs FILE.pt")
    name = Path(info["inputs"]).name  # a name inside the run directory, never a path elsewhere
    try:
        return load_inputs(require_inside(Path(run_dir) / name, run_dir, "inputs"), input_size,
                           allow_large=allow_large)
    except ValueError as err:
        raise InputError(str(err)) from None
