"""The user's own model for the probes: an import string to a factory, a weights file, a plain
``state_dict`` of a ``torch.nn.RNN``/``GRU``/``LSTM``, and input sequences from a file.

What ``--model MODULE:FACTORY``, ``--weights FILE``, ``--arch rnn|gru|lstm`` and ``--inputs FILE.pt``
of the command line resolve to. Every bad input is a ValueError with one line that names the file,
module, key or shape at fault, never a traceback from deep inside torch or importlib, and files are
loaded with ``torch.load(..., weights_only=True)`` only: a file that holds anything but tensors and
plain containers is refused, never executed.
"""

from __future__ import annotations

import importlib
import os
import sys

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import complex_refusal, first_unsupported, unsupported_tensor
from rnnaudit.limits import check_sizes
from rnnaudit.untrusted import load_torch_file

__all__ = ["ARCHS", "import_factory", "load_state_dict_file", "load_checkpoint_file", "unwrapped", "load_weights", "model_from_state_dict", "load_inputs",
           "load_user_model"]

#: --arch name → the torch module built from a plain state_dict, and its gates per weight row block
ARCHS = {"rnn": (nn.RNN, 1), "gru": (nn.GRU, 3), "lstm": (nn.LSTM, 4)}


class _CurrentDirectoryOnPath:
    """The current directory first on ``sys.path`` inside the block (as uvicorn and gunicorn put it),
    removed afterwards if it was not there before."""

    def __enter__(self):
        self.cwd = os.getcwd()
        self.added = self.cwd not in sys.path and "" not in sys.path
        if self.added:
            sys.path.insert(0, self.cwd)
        return self

    def __exit__(self, *exc):
        if self.added and self.cwd in sys.path:
            sys.path.remove(self.cwd)
        return False


def import_factory(spec: str) -> nn.Module:
    """Import ``"package.module:factory"`` with the current directory on ``sys.path`` and return
    ``factory()``, the user's ``nn.Module``.

    Args:
        spec: ``MODULE:ATTRIBUTE``, MODULE a dotted import path, ATTRIBUTE a (dotted) name in it: a
            callable taking no arguments that returns an ``nn.Module``, or an ``nn.Module`` instance.

    Returns:
        The module (as the factory built it: its dtype, mode and weights).

    Raises:
        ValueError: spec not of the form MODULE:ATTRIBUTE; the module not found; importing it raised
            (the error is named); the attribute missing; not callable; the call raised; the result is
            not an ``nn.Module``, or one on the meta device.
    """
    if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
        raise ValueError(f"--model must be MODULE:FACTORY (e.g. mypkg.models:build), got {spec!r}")
    module_name, attr = spec.split(":")
    with _CurrentDirectoryOnPath():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (module_name == exc.name or module_name.startswith(exc.name + ".")):
                raise ValueError(f"module {module_name!r} not found (looked in the current directory "
                                 f"{os.getcwd()} and on sys.path)") from None
            raise ValueError(f"importing {module_name!r} failed: {exc}") from exc
        except SystemExit as exc:  # a script's sys.exit() at import time must not end rnnaudit silently
            raise ValueError(f"importing {module_name!r} called sys.exit({exc.code!r}); --model needs a module "
                             "that defines the factory without running a script") from None
        except Exception as exc:
            raise ValueError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}") from exc
        obj = module
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise ValueError(f"module {module_name!r} has no attribute {attr!r}")
            obj = getattr(obj, part)
        if isinstance(obj, nn.Module):
            _require_data(obj, spec)
            return obj
        if not callable(obj):
            raise ValueError(f"{spec!r} is not callable (a {type(obj).__name__}); it must be a function returning "
                             "an nn.Module")
        if _is_step_function(obj):
            raise ValueError(f"{spec} takes (x_t, h): a step function, where --model needs a factory returning the "
                             f"model; define one that returns rnnaudit.wrap({attr.split('.')[-1]}, input_size=n, "
                             "state_size=S, recurrent={'W': tensor}) (docs/your-model.md, 'Figures of your own model')")
        try:
            model = obj()
        except SystemExit as exc:
            raise ValueError(f"calling {spec}() called sys.exit({exc.code!r})") from None
        except Exception as exc:
            raise ValueError(f"calling {spec}() raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(model, nn.Module):
        raise ValueError(f"{spec}() must return a torch.nn.Module, got {type(model).__name__}")
    _require_data(model, f"{spec}()")
    return model


def _is_step_function(obj) -> bool:
    """A callable that needs exactly two arguments, (x_t, h): a step, not a factory (which takes none)."""
    import inspect

    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    try:
        sig.bind()
    except TypeError:
        try:
            sig.bind(None, None)
            return True
        except TypeError:
            return False
    return False


def _require_data(module: nn.Module, where: str) -> None:
    """Refuse a module whose tensors hold no data (the meta device): every probe would fail deep in torch."""
    from rnnaudit.cells.adapters import meta_tensor_name

    meta = meta_tensor_name(module)
    if meta is not None:
        raise ValueError(f"{where} returned a module on the meta device ({meta!r} has a shape but no values); build "
                         "it on the CPU, or call .to_empty(device='cpu') and load its weights")


def _safe_load(path, what: str, allow_large: bool = False):
    """torch.load(path, weights_only=True) with every failure as one ValueError naming the file, and the
    sizes its tensors describe checked from their shapes (:func:`rnnaudit.untrusted.load_torch_file`)."""
    return load_torch_file(path, f"{what} file", allow_large=allow_large)


def load_state_dict_file(path, *, allow_large: bool = False) -> dict[str, Tensor]:
    """A ``state_dict`` (parameter name → tensor) from a file saved by ``torch.save`` or a ``.safetensors`` file.

    Loaded with ``weights_only=True`` (torch) or as safetensors data, the sizes its header (safetensors) or
    zip records and shapes (torch) declare checked against the limits first
    (:func:`rnnaudit.weights_files.read_weights_file`). A checkpoint dict holding the state_dict under
    ``"state_dict"`` (PyTorch Lightning), ``"model_state_dict"`` or ``"model"`` is accepted too
    (:func:`rnnaudit.checkpoints.unwrap_checkpoint`).

    Raises:
        ValueError: the file missing, unreadable (garbage, truncated), holding objects other than
            tensors (a pickled module, a malicious payload), not a non-empty dict of tensors, complex, a tensor
            in a dtype or layout the probes cannot compute with (float8, sparse, meta: named with its dtype),
            or with NaN/Inf entries; the message names the file.
        rnnaudit.limits.TooLargeError: sizes above the limits (``allow_large`` lifts them).
    """
    return load_checkpoint_file(path, allow_large=allow_large)[0]


def load_checkpoint_file(path, *, allow_large: bool = False) -> tuple[dict[str, Tensor], str]:
    """:func:`load_state_dict_file`, and the layout in words for messages ("a state dict", "a Lightning
    checkpoint's state dict", …; :func:`rnnaudit.checkpoints.unwrap_checkpoint`).

    Raises:
        ValueError: as :func:`load_state_dict_file`.
    """
    from rnnaudit.checkpoints import unwrap_checkpoint
    from rnnaudit.weights_files import read_weights_file

    data = read_weights_file(path, allow_large=allow_large)
    data, kind = unwrap_checkpoint(data, str(path))
    if not isinstance(data, dict) or not data:
        raise ValueError(f"weights file {str(path)!r} must hold a non-empty state_dict (name → tensor), got "
                         f"{type(data).__name__ if not isinstance(data, dict) else 'an empty dict'}")
    bad = [str(k) for k, v in data.items() if not isinstance(k, str) or not isinstance(v, Tensor)]
    if bad:
        raise ValueError(f"weights file {str(path)!r} is not a state_dict: entries {bad[:5]} are not tensors "
                         "named by strings")
    bad = first_unsupported(data.items())
    if bad is not None:  # float8, sparse or meta tensors fail deep inside torch (isfinite) otherwise
        raise ValueError(f"weights file {str(path)!r}: tensor {bad[0]!r} is {bad[1]}")
    odd = [k for k, v in data.items() if v.is_complex()]
    if odd:
        refusal = complex_refusal(repr(odd[0]), data[odd[0]].dtype, "in weights files")
        raise ValueError(f"weights file {str(path)!r}: {refusal}")
    nonfinite = {k: int((~torch.isfinite(v)).sum()) for k, v in data.items() if v.is_floating_point()}
    nonfinite = {k: n for k, n in nonfinite.items() if n}
    if nonfinite:
        name, n = next(iter(nonfinite.items()))
        raise ValueError(f"weights file {str(path)!r}: {name!r} holds {n} NaN/Inf entries"
                         f"{f' (and {len(nonfinite) - 1} more tensors)' if len(nonfinite) > 1 else ''}; "
                         "the probes need finite parameters (a diverged run?)")
    return dict(data), kind


def _mismatches(expected: dict[str, Tensor], given: dict[str, Tensor]) -> list[str]:
    missing = [k for k in expected if k not in given]
    unexpected = [k for k in given if k not in expected]
    shapes = [f"{k}: expected {tuple(expected[k].shape)}, got {tuple(given[k].shape)}"
              for k in expected if k in given and given[k].shape != expected[k].shape]
    out = []
    if missing:
        out.append(f"missing keys {missing}")
    if unexpected:
        out.append(f"unexpected keys {unexpected}")
    if shapes:
        out.append(f"shape mismatches [{'; '.join(shapes)}]")
    return out


def load_weights(module: nn.Module, state_dict: dict[str, Tensor], source: str = "state_dict") -> nn.Module:
    """``module.load_state_dict(state_dict)`` (strict), with mismatches named in one ValueError.

    Args:
        module: the user's model. state_dict: its weights. source: how to name the weights in errors
            (e.g. the file name).

    Returns:
        module, with the weights loaded.

    Raises:
        ValueError: missing or unexpected keys, shapes that differ (each named), an integer or complex
            tensor for a floating parameter.
    """
    expected = module.state_dict()
    problems = _mismatches(expected, state_dict)
    if problems:
        raise ValueError(f"{source} does not fit {type(module).__name__}: {'; '.join(problems)}")
    kinds = [f"{k} is {v.dtype}, the model's is {expected[k].dtype}" for k, v in state_dict.items()
             if expected[k].is_floating_point() and not v.is_floating_point()]
    if kinds:  # load_state_dict would cast an int64 or complex tensor silently (and drop an imaginary part)
        raise ValueError(f"{source} does not fit {type(module).__name__}: {kinds[0]} (floating weights expected)")
    module.load_state_dict(state_dict)
    return module


def model_from_state_dict(state_dict: dict[str, Tensor], arch: str | None, *, nonlinearity: str = "tanh",
                          dtype: torch.dtype = torch.float64, allow_large: bool = False) -> nn.Module:
    """The ``torch.nn.RNN``/``GRU``/``LSTM`` a plain ``state_dict`` belongs to, built and loaded.

    A ``*Cell`` state dict (keys ``weight_ih``, ``weight_hh``, no ``_l0``) gives the ``RNNCell``/``GRUCell``/
    ``LSTMCell``; ``arch`` None infers the architecture from weight_hh's rows per column (1, 3, 4) or an LSTM
    projection. A parametrized state dict (``parametrizations.<name>.original``) is refused with a hint naming
    ``--model``: the parametrization that maps it to the weight is not in the file.

    Sizes are read from the tensors: input_size and H from ``weight_ih_l0`` ((gates·H, n)), the number
    of layers from the ``weight_ih_l{k}`` present, bias from ``bias_ih_l0``, proj_size from
    ``weight_hr_l0`` (LSTM), bidirectional from ``weight_ih_l0_reverse``; the module is ``batch_first=True``
    and in evaluation mode.

    Args:
        state_dict: torch's parameter names (``weight_ih_l0``, ...) → tensors.
        arch: ``"rnn"``, ``"gru"`` or ``"lstm"``.
        nonlinearity: of an ``"rnn"`` (``"tanh"`` or ``"relu"``; tensors do not tell).
        dtype: of the built module (float64 for the probes).

    Raises:
        ValueError: unknown arch or nonlinearity; no ``weight_ih_l0``; row counts that are no multiple of the arch's gates; keys or shapes that do not match the
            inferred module (each named).
    """
    from rnnaudit.weights_files import layout_of

    if arch is not None and arch not in ARCHS:
        raise ValueError(f"arch must be one of {sorted(ARCHS)}, got {arch!r}")
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
    layout = layout_of({k: tuple(v.shape) for k, v in state_dict.items()}, arch, strict=False)
    if layout is not None and layout.kind == "parametrized":
        raise ValueError(f"the state_dict holds {', '.join(layout.parametrized)} under torch.nn.utils.parametrize "
                         f"(parametrizations.{layout.parametrized[0]}.original): the weight it stands for depends on "
                         "the parametrization, which the file does not record; pass --model MODULE:FACTORY, a "
                         "function that builds the parametrized module, and --weights loads into it")
    if arch is None:
        if layout is None or layout.arch is None:
            hh = state_dict.get("weight_hh_l0", state_dict.get("weight_hh"))
            if isinstance(hh, Tensor) and (hh.dim() != 2 or not hh.shape[1] or hh.shape[0] % hh.shape[1] or
                                           hh.shape[0] // hh.shape[1] not in (1, 3, 4)):
                # no arch has this shape: --arch cannot help, the file is not one module's weights
                raise ValueError(f"weight_hh is {tuple(hh.shape)}: no torch RNN, GRU or LSTM has that shape (expected "
                                 "(gates·h, h) with 1, 3 or 4 gates); the file is damaged or holds another model's "
                                 "weights (--model MODULE:FACTORY)")
            raise ValueError("cannot tell from the tensors whether the weights are of an RNN, GRU or LSTM; pass --arch "
                             "rnn|gru|lstm, or --model MODULE:FACTORY for another model")
        arch = layout.arch
    cls, gates = ARCHS[arch]
    if layout is not None and layout.kind == "cell":
        return _cell_from_state_dict(state_dict, arch, nonlinearity, dtype, allow_large)
    first = state_dict.get("weight_ih_l0")
    if not isinstance(first, Tensor) or first.dim() != 2:
        prefixed = sorted({k[: -len("weight_ih_l0")] for k in state_dict if k.endswith("weight_ih_l0")})
        from rnnaudit.checkpoints import submodule_flag

        hint = f"; the keys carry a prefix {prefixed[0]!r}: {submodule_flag(prefixed[0].rstrip('.'), 'pass {flag}')}" \
            if prefixed else ""
        raise ValueError(f"a state_dict of torch.nn.{cls.__name__} needs a 2-D 'weight_ih_l0', keys are "
                         f"{sorted(state_dict)[:8]}{hint}")
    rows, input_size = first.shape
    if rows % gates:
        raise ValueError(f"arch {arch!r} stacks {gates} gate blocks: weight_ih_l0 must have a multiple of {gates} "
                         f"rows, got shape {tuple(first.shape)}{_other_arch_hint(state_dict, arch)}")
    layers = 0
    while f"weight_ih_l{layers}" in state_dict:
        layers += 1
    # a bidirectional module (keys ending in '_reverse'): the audit puts each direction to the claims, the
    # figures take one (--direction)
    kwargs = dict(num_layers=layers, bias="bias_ih_l0" in state_dict, batch_first=True,
                  bidirectional="weight_ih_l0_reverse" in state_dict, dtype=dtype)
    if arch == "rnn":
        kwargs["nonlinearity"] = nonlinearity
    if arch == "lstm" and isinstance(state_dict.get("weight_hr_l0"), Tensor):
        kwargs["proj_size"] = state_dict["weight_hr_l0"].shape[0]
    hidden = rows // gates
    # before the module is built: its h × h matrices are allocated from these sizes
    check_sizes("the state_dict", allow_large=allow_large, hidden=hidden, elements=max(1, gates * hidden * hidden))
    if kwargs.get("proj_size", 0) >= hidden:
        raise ValueError(f"weight_hr_l0 has {kwargs['proj_size']} rows, but an LSTM projection must be smaller than "
                         f"H = {hidden}")
    module = cls(input_size, hidden, **kwargs)
    try:
        load_weights(module, state_dict,
                     f"the state_dict (read as torch.nn.{cls.__name__}(input_size={input_size}, hidden_size={hidden}, "
                     f"{', '.join(f'{k}={v}' for k, v in kwargs.items() if k != 'dtype')}))")
    except ValueError as err:
        hint = _other_arch_hint(state_dict, arch)
        if hint:
            raise ValueError(f"{err}{hint}") from None
        raise
    return module.eval()


def _other_arch_hint(state_dict: dict, arch: str) -> str:
    """``"; the shapes are a torch.nn.LSTM's: pass --arch lstm, or leave out --arch"`` where the tensors' shapes are
    those of another architecture than ``arch`` (the --arch given), else ``""``."""
    from rnnaudit.weights_files import layout_of

    shapes = layout_of({k: tuple(v.shape) for k, v in state_dict.items() if isinstance(v, Tensor)}, None,
                       strict=False)
    if shapes is None or shapes.arch is None or shapes.arch == arch:
        return ""
    return f"; the shapes are a torch.nn.{ARCHS[shapes.arch][0].__name__}'s: pass --arch {shapes.arch}, or leave out --arch"


_CELLS = {"rnn": (nn.RNNCell, 1), "gru": (nn.GRUCell, 3), "lstm": (nn.LSTMCell, 4)}


def _cell_from_state_dict(state_dict: dict[str, Tensor], arch: str, nonlinearity: str, dtype: torch.dtype,
                          allow_large: bool = False) -> nn.Module:
    """The ``torch.nn.RNNCell``/``GRUCell``/``LSTMCell`` of a state dict with keys ``weight_ih``, ``weight_hh``
    (and ``bias_ih``, ``bias_hh``), sizes from ``weight_ih`` ((gates·H, n))."""
    cls, gates = _CELLS[arch]
    rows, input_size = state_dict["weight_ih"].shape
    check_sizes("the state_dict", allow_large=allow_large, hidden=max(1, rows // gates),
                elements=max(1, rows * max(1, rows // gates)))
    if rows % gates:
        raise ValueError(f"arch {arch!r} stacks {gates} gate blocks: weight_ih must have a multiple of {gates} rows, "
                         f"got shape {tuple(state_dict['weight_ih'].shape)}")
    kwargs = dict(bias="bias_ih" in state_dict, dtype=dtype)
    if arch == "rnn":
        kwargs["nonlinearity"] = nonlinearity
    module = cls(input_size, rows // gates, **kwargs)
    load_weights(module, state_dict, f"the state_dict (read as torch.nn.{cls.__name__}(input_size={input_size}, "
                                     f"hidden_size={rows // gates}))")
    return module.eval()


def load_inputs(path, input_size: int, *, dtype: torch.dtype = torch.float64, allow_large: bool = False) -> Tensor:
    """Input sequences from a ``.pt`` file holding one tensor (T, n) or (batch, T, n).

    Args:
        path: the file (``torch.save(x, path)``). input_size: n of the model.
        dtype: of the returned tensor.

    Returns:
        (batch, T, n) in ``dtype`` (a (T, n) tensor gets batch 1).

    Raises:
        ValueError: the file missing/unreadable/unsafe (as :func:`load_state_dict_file`); complex (not yet
            supported); not a floating tensor; not 2-D or 3-D; T = 0 or batch = 0; last dimension ≠ input_size; NaN/Inf.
    """
    x = _safe_load(path, "inputs", allow_large)
    where = f"inputs file {str(path)!r}"
    if not isinstance(x, Tensor):
        raise ValueError(f"{where} must hold one tensor of shape (T, {input_size}) or (batch, T, {input_size}), "
                         f"got a {type(x).__name__}")
    if x.is_complex():
        raise ValueError(f"{where}: {complex_refusal('the tensor', x.dtype, 'as inputs')}")
    why = unsupported_tensor(x)
    if why is not None:
        raise ValueError(f"{where}: its tensor is {why}")
    if not x.is_floating_point():
        raise ValueError(f"{where} must hold a floating-point tensor, got dtype {x.dtype}")
    if x.dim() not in (2, 3):
        raise ValueError(f"{where} must have shape (T, {input_size}) or (batch, T, {input_size}), got {tuple(x.shape)}")
    x = x[None] if x.dim() == 2 else x
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"{where} must hold at least one sequence of T >= 1 steps, got shape {tuple(x.shape)}")
    if x.shape[2] != input_size:
        raise ValueError(f"{where} has input width {x.shape[2]} (last dimension), but the model takes "
                         f"input_size = {input_size}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{where} holds {int((~torch.isfinite(x)).sum())} NaN/Inf entries")
    return x.to(dtype)


def unwrapped(module: nn.Module) -> nn.Module:
    """The model inside a wrapper that adds a prefix to every key: ``nn.DataParallel``,
    ``DistributedDataParallel`` or a module like them (no tensors of its own, one child named ``module``), and
    torch.compile's ``OptimizedModule`` (its child ``_orig_mod``), any number deep."""
    from rnnaudit.cells.base import RecurrentCell

    while True:
        if isinstance(module, RecurrentCell):  # rnnaudit.wrap(...)'s cell keeps what it was told (sizes, roles)
            return module
        children = dict(module.named_children())
        inner = children.get("module", children.get("_orig_mod"))
        if inner is None or len(children) != 1 or any(True for _ in module.parameters(recurse=False)) or any(
                True for _ in module.buffers(recurse=False)):
            return module
        module = inner


def load_user_model(model: str | None = None, weights=None, arch: str | None = None, *,
                    nonlinearity: str = "tanh", dtype: torch.dtype | None = torch.float64,
                    allow_large: bool = False, submodule: str | None = None,
                    notes: list[str] | None = None) -> nn.Module:
    """The model the command line names: ``--model MODULE:FACTORY`` (with optional ``--weights``), or
    ``--arch rnn|gru|lstm --weights FILE`` (a plain state_dict), or ``--weights FILE`` alone (the architecture
    inferred from the shapes); in ``dtype`` (None: the dtype it was trained in, so the audit can judge its
    constraints with the matching slack), evaluation mode.

    Checkpoints as users save them (:mod:`rnnaudit.checkpoints`): with ``--arch`` or ``--weights`` alone, a whole
    model's state dict, a Lightning checkpoint or an HF-style safetensors file is read under the prefix
    ``submodule`` names (or its only recurrent-looking prefix); with ``--model``, a factory's wrapper
    (DataParallel, DistributedDataParallel, torch.compile) is looked through (:func:`unwrapped`) and the file's
    wrapper or Lightning prefixes are matched to the model's keys.

    Args:
        submodule: with ``--arch``/``--weights`` alone, the prefix of the recurrent module's tensors in the file
            (with ``--model`` the caller selects the submodule of the built model).
        notes: a list the notes on how the file was read are appended to (for the output), or None.

    Raises:
        ValueError: both model and arch; neither with no weights; arch without weights; any error of
            :func:`import_factory`, :func:`load_state_dict_file`, :func:`load_weights`,
            :func:`model_from_state_dict`, :func:`rnnaudit.checkpoints.select_recurrent`.
    """
    from rnnaudit.checkpoints import fit_to_model, select_recurrent

    notes = [] if notes is None else notes
    if (model is not None and arch is not None) or (model is None and arch is None and weights is None):
        raise ValueError("give either --model MODULE:FACTORY (with optional --weights) or --arch rnn|gru|lstm with "
                         "--weights FILE")
    if model is None:
        if weights is None:
            raise ValueError("--arch needs --weights FILE (the state_dict to read the sizes from)")
        state_dict, kind = load_checkpoint_file(weights, allow_large=allow_large)
        state_dict, note = select_recurrent(state_dict, submodule, str(weights), kind)
        notes += [f"{weights}: {note}"] if note else []
        odd = next((k for k, v in state_dict.items() if not v.is_floating_point()), None)
        if odd is not None:  # every tensor of a torch RNN/GRU/LSTM is a floating weight or bias
            raise ValueError(f"weights file {str(weights)!r}: {odd!r} is {state_dict[odd].dtype}; the weights of "
                             f"{'a torch RNN, GRU or LSTM' if arch is None else f'--arch {arch}'} must be real "
                             "floating tensors")
        trained = next((t.dtype for t in state_dict.values() if t.is_floating_point()), torch.float64)
        return model_from_state_dict(state_dict, arch, nonlinearity=nonlinearity, dtype=dtype or trained,
                                     allow_large=allow_large)
    module = import_factory(model)
    inner = unwrapped(module)
    if inner is not module:
        notes.append(f"{model}() returned a wrapper ({type(module).__name__}); probing the {type(inner).__name__} "
                     "inside it")
        module = inner
    if weights is not None:
        state_dict, kind = load_checkpoint_file(weights, allow_large=allow_large)
        state_dict, note = fit_to_model(state_dict, set(module.state_dict()), str(weights), kind)
        notes += [f"{weights}: {note}"] if note else []
        load_weights(module, state_dict, f"weights file {str(weights)!r}")
    return (module if dtype is None else module.to(dtype)).eval()
