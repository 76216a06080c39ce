"""What the model commands (``heatmap``, ``spectrum``, ``lyapunov``, ``audit``) look at: a cell name with its
paper's defaults, an rnnaudit checkpoint or run directory, or a user's own model (``--model
MODULE:FACTORY`` or ``--arch`` with ``--weights``), and the input sequences to probe it with
(the run's task, ``--task``, or ``--inputs FILE.pt``)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.nn.utils import parametrize
from torch import Tensor

from rnnaudit.cells.registry import CELLS, build_cell
from rnnaudit.limits import check_sizes, check_tensor_sizes
from rnnaudit.training import TASK_SPECS
from rnnaudit.training.runs import load_trained_model
from rnnaudit.untrusted import InputError

__all__ = ["Source", "load_source", "load_user_source", "monitored_source"]


@dataclass
class Source:
    """A float64 cell the probes accept, input sequences to probe it with, and a label for titles.

    Attributes:
        cell: the cell (float64; a wrapped user module keeps its own parametrisation).
        x: input sequences (m, T, n), float64 (``x[0]`` is the one the single-sequence probes use); None
            when loaded ``with_inputs=False`` (a command that reads only the weights, ``spectrum``).
        label: what it is, for titles and reports.
        config: the run's :class:`rnnaudit.training.TrainConfig` for a checkpoint or run, else None.
        readout: the trained readout weight (k, h) for a checkpoint or run, else None.
        trained_dtype: the dtype a user's model was trained in (the cell itself is float64).
        module: a user's own module (float64 copy) the cell wraps, else None.
        notes: how a user's weights file was read (a prefix selected or stripped, a wrapper looked through),
            one line each, for the output.
        part: for one direction of a bidirectional module, which recurrence the cell is ("layer 1, reverse"),
            its x the inputs of that recurrence in its own time order; else None.
    """

    cell: torch.nn.Module
    x: Tensor | None
    label: str
    config: object = None
    readout: Tensor | None = None
    trained_dtype: torch.dtype | None = None
    module: torch.nn.Module | None = None
    notes: list[str] = field(default_factory=list)
    part: str | None = None


#: The sequence length drawn when neither --T nor a run names one, for a task of no fixed length.
DEFAULT_T = 100


def _task_inputs(task: str, n: int, T: int | None, gen: torch.Generator, task_kwargs: dict | None = None) -> Tensor:
    """``n`` sequences of ``task``, float64; ``T`` None is the task's own length (a data set's fixed length, the
    digits' 64), else :data:`DEFAULT_T`, so ``--task digits`` needs no ``--T 64``."""
    spec = TASK_SPECS[task]
    if T is None:
        T = spec.length if spec.length is not None else DEFAULT_T
    x, _ = spec.generate(n, T, gen, **(task_kwargs or {}))
    return x.double()


def load_source(source: str | None = None, *, T: int | None = None, hidden: int = 64, seed: int = 0,
                step: int | None = None, task: str | None = None, n_sequences: int = 1,
                allow_large: bool = False, with_inputs: bool = True, factory: str | None = None) -> Source:
    """Resolve SOURCE: an existing path is a checkpoint or run directory (of the trainer or of
    :class:`rnnaudit.Monitor`, :func:`monitored_source`); otherwise a cell name.

    Args:
        source: path or a name in :data:`rnnaudit.cells.registry.CELLS`.
        T: sequence length (default: the run's T; else the task's own length where it has one, the digits'
            64; else 100).
        hidden: width for a cell name. seed: initialisation and input seed.
        step: for a run directory, the checkpoint of this training step (default: the latest).
        task: the task drawing the inputs (default: the run's own, with its ``task_kwargs``, e.g. the
            adding variant it trained on; ``adding`` for a cell name).
        n_sequences: how many input sequences.
        allow_large: lift the limits on sizes (:mod:`rnnaudit.limits`).
        with_inputs: False for the model alone (``x`` None): no task is drawn and no input file read.
        factory: ``MODULE:FACTORY`` the user passed (``--model``) to rebuild a monitored run's model; the
            one a run records is never imported.

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
        from rnnaudit.monitoring.runs import monitored_run_of

        if monitored_run_of(path) is not None:
            return monitored_source(path, step=step, T=T, task=task, seed=seed, n_sequences=n_sequences,
                                    allow_large=allow_large, with_inputs=with_inputs, factory=factory)
        if factory is not None:
            raise InputError("--model with SOURCE is for runs of rnnaudit.Monitor; a checkpoint or run of rnnaudit "
                             "train holds one of rnnaudit's own cells")
        ckpt, model = load_trained_model(path, step=step, allow_large=allow_large)
        config = ckpt["config"]
        own = task is None or task == config.task
        length = T or (config.T if own else None)  # another task than the run's draws its own length
        x = None if not with_inputs else _task_inputs(config.task if own else task, n_sequences, length, gen,
                                                      config.task_kwargs if own else None)
        if x is not None and x.shape[-1] != config_input_size(model):
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
    if step is not None:  # a cell name is its initialisation: there is no training step to choose
        raise InputError(f"--step {step} is for a run directory; {source!r} is a cell name (its initialisation)")
    task = task or "adding"
    width = TASK_SPECS[task].input_size
    kwargs = {} if source == "lstm" else {"generator": gen}
    cell = build_cell(source, width, hidden, dtype=torch.float64, **kwargs)
    x = _task_inputs(task, n_sequences, T, gen) if with_inputs else None
    return Source(cell, x, f"{source}, h = {hidden}, initialisation")


def config_input_size(model) -> int:
    """The input width of a :class:`rnnaudit.training.SequenceModel`'s cell."""
    return model.cell.input_size


def load_user_source(model: str | None = None, weights=None, arch: str | None = None, *, inputs=None,
                     task: str | None = None, T: int | None = None, seed: int = 0, nonlinearity: str = "tanh",
                     n_sequences: int = 1, allow_large: bool = False, with_inputs: bool = True,
                     submodule: str | None = None, direction: str | None = None, layer: int | None = None) -> Source:
    """A user's own model, wrapped for the probes (:func:`rnnaudit.cells.adapters.wrap`), and its inputs.

    Args:
        model: ``MODULE:FACTORY`` (with optional ``weights``), or None with ``arch``.
        weights: a state dict file. arch: ``rnn``, ``gru`` or ``lstm`` for a plain state dict.
        inputs: a ``.pt`` file with a tensor (T, n) or (batch, T, n); otherwise sequences of ``task``
            (default adding), of length ``T`` (default: the task's own length where it has one, else 100),
            seeded by ``seed``.
        nonlinearity: of ``--arch rnn`` (tanh or relu: a state dict cannot say which).
        n_sequences: how many task sequences when no inputs file is given.
        with_inputs: False for the model alone (``x`` None): no task is drawn, so a model of any input
            width loads without ``inputs``.
        submodule: a dotted path to the recurrent module inside the model (``encoder.rnn``), which is the
            one probed; its inputs are the submodule's own (``--inputs``). With ``--weights`` alone (or
            ``--arch``), the prefix of its tensors in the file (:func:`rnnaudit.checkpoints.select_recurrent`).
        direction: ``forward`` or ``reverse``, one direction of a bidirectional module for the figures
            (:func:`rnnaudit.cells.adapters.wrap`'s ``direction``); None leaves ``cell`` None for a bidirectional
            module (the audit splits it itself).
        layer: with ``direction``, the layer of a stacked bidirectional module (default: the last); its x are
            then the outputs of the layers below, and the reverse direction's run on reversed time.

    Returns:
        a :class:`Source`: the wrapped cell (float64), x (m, T, n) float64, a label naming the model.

    Raises:
        rnnaudit.untrusted.InputError / ValueError: anything :func:`rnnaudit.user_models.load_user_model`
            or :func:`rnnaudit.user_models.load_inputs` refuses; a task whose inputs do not fit the model
            (pass ``--inputs``).
        rnnaudit.limits.TooLargeError: sizes above the limits.
    """
    from rnnaudit.cells.adapters import wrap
    from rnnaudit.user_models import load_inputs, load_user_model

    from rnnaudit.cells.copying import probe_copy

    notes: list[str] = []
    module = load_user_model(model, weights, arch, nonlinearity=nonlinearity, dtype=None, allow_large=allow_large,
                             submodule=submodule if model is None else None, notes=notes)
    if submodule is not None and model is not None:
        module = _submodule(module, submodule)
    # from the shapes, before the float64 copy below allocates them again
    check_tensor_sizes(dict(module.named_parameters()), f"the model {model or arch or weights}",
                       allow_large=allow_large)
    trained = next((p.dtype for p in module.parameters() if p.is_floating_point()), torch.float64)
    _refuse_complex_torch_module(module, "--model" if model is not None else "--weights")
    module = probe_copy(module)
    try:
        cell = wrap(module)
    except ValueError as err:
        if not getattr(module, "bidirectional", False):
            raise InputError(f"--model: {err}; {_recurrent_children_hint(module)}") from None
        cell = None  # a bidirectional module: the audit splits it into its directions, a figure takes --direction
    mapping = getattr(cell, "package_mapping", None)  # a pip implementation mapped onto a reference cell
    width = module.input_size if cell is None else mapping.input_size if mapping is not None else cell.input_size
    check_sizes("the model", allow_large=allow_large, hidden=module.hidden_size if cell is None else cell.hidden_size)
    if not with_inputs:
        x = None
    elif inputs is not None:
        x = load_inputs(inputs, width, allow_large=allow_large)
        check_sizes(f"{inputs}", allow_large=allow_large, T=x.shape[1], batch=x.shape[0])
    else:
        task = task or "adding"
        check_sizes("the flags", allow_large=allow_large, T=T, batch=n_sequences)
        if TASK_SPECS[task].input_size != width:
            raise InputError(f"task {task!r} draws inputs of width {TASK_SPECS[task].input_size}, the model takes "
                             f"{width}: pass --inputs FILE.pt with your own sequences")
        x = _task_inputs(task, n_sequences, T, torch.Generator().manual_seed(seed))
    if mapping is not None:
        notes.append(f"{mapping.module_class} ({mapping.package}) is probed as {mapping.reference}: "
                     + _mapping_words(mapping, x))
        if x is not None:
            x = mapping.inputs(x).detach()
    part = None
    if direction is not None:
        cell, x, part = _one_direction(module, cell, direction, layer, x)
    name = model if model is not None else f"torch.nn.{type(module).__name__} from {Path(weights).name}"
    name += f", {submodule}" if submodule else ""
    if part is not None:
        name += f", {part} direction" + (" (on reversed time: its step 1 reads the last input)"
                                          if part.endswith("reverse") else "")
    # the flag as checkpoints.submodule_flag writes it, shell-quoted: unquoted here, for the label
    flag = re.compile(r"--submodule ((?:'[^']*'|\"[^\"]*\"|[^\s'\"])+) selects it explicitly")
    inferred = next((shlex.split(m.group(1))[0] for n in notes if (m := flag.search(n))), None)
    if inferred is not None and not submodule:
        name += f", {inferred} (the file's only recurrent module)"
    kind = parametrize.type_before_parametrizations(module).__name__
    label = f"{name} ({kind}, {_size_words(module, cell)})".encode("utf-8", "replace").decode("utf-8")
    return Source(cell, x, label, trained_dtype=trained, module=module, notes=notes, part=part)


def _mapping_words(mapping, x: Tensor | None) -> str:
    """How a mapped module's reference cell was checked against the module's own forward on x
    (:func:`rnnaudit.cells.packages.check_mapping`), in words; InputError (one line) where it differs."""
    from rnnaudit.cells.packages import check_mapping

    if x is None:
        return "mapped from its parameters, not checked (no inputs read)"
    try:
        diff, tol = check_mapping(mapping, x)
    except ValueError as err:
        raise InputError(f"--model: {err}") from None
    return f"float64 max difference from the module's own forward on these inputs {diff:.2g} (tolerance {tol:.2g})"


def _one_direction(module: torch.nn.Module, cell, direction: str, layer: int | None, x: Tensor | None):
    """(cell, x, part) of one direction of a bidirectional module: its layer ``layer`` (default the last) wrapped
    (:func:`rnnaudit.cells.adapters.wrap`), the inputs it reads in its own time order (the layers below run on
    ``x``; reversed for the reverse direction), and its label ("layer 0, reverse"), as the audit splits it
    (:func:`rnnaudit.auditing.layers.recurrences`). A unidirectional model keeps ``cell`` (its only direction is
    forward).

    Raises:
        InputError: --direction reverse of a unidirectional module; --layer out of range.
    """
    from rnnaudit.auditing.layers import recurrences
    from rnnaudit.cells.adapters import wrap

    if not getattr(module, "bidirectional", False):
        if direction == "reverse":
            raise InputError(f"--direction reverse: the {type(module).__name__} is unidirectional (no _reverse weights)")
        return cell, x, None
    layers = module.num_layers
    k = layers - 1 if layer is None else layer
    if not 0 <= k < layers:
        raise InputError(f"--layer {layer}: the {type(module).__name__} has layers 0 … {layers - 1}")
    cell = wrap(module, direction=direction, layer=k if layers > 1 else None)
    part = f"layer {k}, {direction}"
    if x is not None:
        x = next(p.inputs for p in recurrences(module, x) if p.label == part)
    return cell, x, part


def _refuse_complex_torch_module(module: torch.nn.Module, flag: str) -> None:
    """A torch RNN/GRU/LSTM with a complex tensor, refused with its own dtype (before the float64 probe copy turns
    complex64 into complex128) and without a --submodule hint, which cannot help.

    Raises:
        InputError: the module's first complex parameter or buffer, named (:func:`cells._validate.complex_refusal`).
    """
    from rnnaudit.cells._validate import complex_refusal
    from rnnaudit.cells.adapters import SUPPORTED_MODULES, complex_tensor_name

    odd = complex_tensor_name(module) if isinstance(module, SUPPORTED_MODULES) else None
    if odd is not None:
        raise InputError(f"{flag}: " + complex_refusal(f"the model's {odd[0]}", odd[1],
                                                       "in torch.nn.RNN/GRU/LSTM (real arithmetic)"))


def _recurrent_children_hint(model: torch.nn.Module) -> str:
    """The --submodule to pass: the model's torch recurrent submodules, listed, or a generic example."""
    from rnnaudit.cells.adapters import SUPPORTED_MODULES

    found = [(name, type(m).__name__) for name, m in model.named_modules() if name and isinstance(m, SUPPORTED_MODULES)]
    if not found:
        return "to probe an RNN inside a larger model, name it with --submodule PATH (e.g. encoder.rnn)"
    listed = ", ".join(f"{name!r} ({kind})" for name, kind in found[:8])
    from rnnaudit.checkpoints import submodule_flag

    return f"its recurrent submodules are {listed}; {submodule_flag(found[0][0], 'pass {flag}')}"


def _submodule(model: torch.nn.Module, path: str) -> torch.nn.Module:
    """``model.get_submodule(path)``, refused with one line naming the path and the model's children. A path
    written with a wrapper's prefix (``module.rnn`` of DataParallel, ``_orig_mod.rnn`` of torch.compile) is read
    without it once the wrapper has been looked through."""
    from rnnaudit.checkpoints import WRAPPER_PREFIXES

    for prefix in WRAPPER_PREFIXES:
        if path.startswith(prefix) and not hasattr(model, prefix[:-1]):
            path = path[len(prefix):]
    try:
        return model.get_submodule(path)
    except AttributeError:
        children = [name for name, _ in model.named_modules() if name][:12]
        raise InputError(f"--submodule {path!r}: the model has no such submodule; its submodules are {children}") \
            from None


def _size_words(module: torch.nn.Module, cell) -> str:
    """Sizes as torch names them: "hidden size 64, 2 layers, state = [...]", never the packed width as h."""
    hidden = getattr(module, "hidden_size", None)
    width = getattr(cell, "complex_width", None)
    if width is not None:  # the probes' convention for a complex state, said on every figure's title
        return f"complex state z ∈ ℂ^{width}, probed as (Re z, Im z) ∈ ℝ^{2 * width}"
    if not isinstance(hidden, int) or cell is None or not hasattr(cell, "state_slices"):
        return f"hidden size {hidden}" if isinstance(hidden, int) else f"state size {cell.hidden_size}"
    layers = getattr(module, "num_layers", 1)
    return f"hidden size {hidden}" + (f", {layers} layers" if layers > 1 else "") + (
        f", state = [{' | '.join(cell.state_slices())}]" if cell.kind == "lstm" or layers > 1 else "")


def monitored_source(path, *, step: int | None = None, T: int | None = None, task: str | None = None, seed: int = 0,
                     n_sequences: int = 1, allow_large: bool = False, with_inputs: bool = True,
                     factory: str | None = None) -> Source:
    """The model of a run of :class:`rnnaudit.Monitor` (its latest checkpoint, that of ``step``, or a
    checkpoint file inside it), wrapped in float64, with the run's own probe sequences (the first
    ``n_sequences``, cut to ``T`` steps) or, with ``task``, sequences of that task.

    Raises:
        rnnaudit.untrusted.InputError: as :func:`rnnaudit.auditing.monitored.audit_monitored_checkpoint`; T
            longer than the stored sequences; a task whose inputs do not fit the model.
        rnnaudit.limits.TooLargeError: sizes above the limits.
    """
    from rnnaudit.cells.adapters import wrap
    from rnnaudit.monitoring.runs import (load_monitored_checkpoint, monitored_inputs, monitored_run_of,
                                          read_monitored_run, rebuild_model)

    run_dir = monitored_run_of(path)
    info = read_monitored_run(run_dir, allow_large=allow_large)
    ckpt = load_monitored_checkpoint(path, step, allow_large=allow_large)
    module, readout = rebuild_model(ckpt, factory=factory, allow_large=allow_large)
    trained = next((p.dtype for p in module.parameters() if p.is_floating_point()), torch.float64)
    module = module.double()
    cell = wrap(module, **info.get("wrap_kwargs", {}))
    check_sizes(f"{run_dir}", allow_large=allow_large, hidden=cell.hidden_size, T=T, batch=n_sequences)
    if not with_inputs:  # the weights alone (spectrum): a run recorded without inputs= is fine
        x = None
    elif task is not None:
        if TASK_SPECS[task].input_size != cell.input_size:
            raise InputError(f"task {task!r} draws inputs of width {TASK_SPECS[task].input_size}, the model takes "
                             f"{cell.input_size}")
        x = _task_inputs(task, n_sequences, T, torch.Generator().manual_seed(seed))
    else:
        x = monitored_inputs(run_dir, cell.input_size, allow_large=allow_large)[:n_sequences]
        if T is not None and T > x.shape[1]:
            raise InputError(f"--T {T}: the run's probe sequences have {x.shape[1]} steps")
        x = x[:, :T] if T is not None else x
    name = f"{Path(run_dir).name}/checkpoints/step_{ckpt['step']:08d}.pt".encode("utf-8", "replace").decode("utf-8")
    return Source(cell, x, f"{ckpt['model'].get('type')} step {ckpt['step']} ({name})", None,
                  None if readout is None else readout.double(), trained, module)
