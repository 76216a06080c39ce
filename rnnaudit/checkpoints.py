"""Checkpoint layouts: which tensors of a saved file are the recurrent module's.

A PyTorch user saves weights in a few standard shapes, and each reaches ``--weights`` as it is:

- a recurrent module's own ``state_dict()`` (``weight_ih_l0``, ``weight_hh_l0``, …, or a ``*Cell``'s
  ``weight_ih``, ``weight_hh``);
- a whole model's ``state_dict()`` (``rnn.weight_hh_l0``, ``head.weight``, …) or an HF-style safetensors
  file with prefixes (``encoder.rnn.weight_ih_l0``): ``--submodule rnn`` selects the prefix, and a file
  with a single recurrent-looking prefix selects it without the flag (the note says so);
- a checkpoint dict holding the state dict under ``"state_dict"`` (PyTorch Lightning, whose keys carry the
  LightningModule's attribute names, ``model.rnn.weight_ih_l0``), ``"model_state_dict"`` (the PyTorch
  tutorials) or ``"model"``;
- keys under a wrapper's prefix: ``module.`` (``nn.DataParallel``, ``DistributedDataParallel``) and
  ``_orig_mod.`` (``torch.compile``), stripped where every key carries it.

A prefix is "recurrent-looking" when it holds a ``weight_hh_l<k>`` or ``weight_hh`` tensor (directly or under
``parametrizations``), the one tensor every torch RNN, GRU, LSTM and their ``*Cell`` have. Imports nothing of
rnnaudit but :mod:`rnnaudit.untrusted` and :mod:`rnnaudit.weights_files`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import torch

from rnnaudit.untrusted import InputError, control_character
from rnnaudit.weights_files import layout_of

__all__ = ["WRAPPER_PREFIXES", "CHECKPOINT_KEYS", "RecurrentPrefix", "unwrap_checkpoint", "strip_wrappers",
           "recurrent_prefixes", "select_recurrent", "fit_to_model", "submodule_flag"]

#: prefixes a wrapper module adds to every key: DataParallel/DistributedDataParallel's attribute ``module``,
#: torch.compile's OptimizedModule's ``_orig_mod``
WRAPPER_PREFIXES = ("module.", "_orig_mod.")
#: where a checkpoint dict keeps the model's state dict: Lightning's key, the PyTorch tutorials', a common third
CHECKPOINT_KEYS = ("state_dict", "model_state_dict", "model")

_HH = re.compile(r"weight_hh(?:_l(\d+)(_reverse)?)?")


@dataclass(frozen=True)
class RecurrentPrefix:
    """A prefix under which a file holds a torch recurrent module's tensors.

    Attributes:
        prefix: the dotted path ("" for the file's top level). description: what the shapes say, e.g.
            "LSTM, 2 layers", "GRU, bidirectional", "RNNCell", or "recurrent" where the shapes do not tell.
    """

    prefix: str
    description: str

    def quoted(self) -> str:
        """"'encoder.rnn' (LSTM, 2 layers)", as the error messages list it."""
        return f"{self.prefix or '(top level)'!r} ({self.description})"


def _is_lightning(data: dict) -> bool:
    return any(k in data for k in ("pytorch-lightning_version", "optimizer_states", "lr_schedulers", "loops"))


def unwrap_checkpoint(data, where: str) -> tuple[dict, str]:
    """The state dict inside a checkpoint dict, and the words naming the layout for messages.

    Args:
        data: what the file holds. where: the file, for messages.

    Returns:
        (state dict, kind): kind "a Lightning checkpoint's state dict", "the checkpoint's 'model_state_dict'", …,
        or "a state dict" for a plain one.

    Raises:
        InputError: a checkpoint key holding no dict (names the key).
    """
    if not isinstance(data, dict):
        return data, "a state dict"
    for key in CHECKPOINT_KEYS:
        inner = data.get(key)
        if inner is None:
            continue
        if key == "model" and not (isinstance(inner, dict) and inner and all(
                isinstance(v, torch.Tensor) for v in inner.values())):
            continue  # a state dict may itself have a tensor named "model"; only a dict of tensors is a layout
        if not isinstance(inner, dict):
            raise InputError(f"{where}: the checkpoint's {key!r} holds a {type(inner).__name__}, not a state dict "
                             "(name → tensor)")
        kind = "a Lightning checkpoint's state dict" if key == "state_dict" and _is_lightning(data) else \
            f"the checkpoint's {key!r}"
        return inner, kind
    return data, "a state dict"


def strip_wrappers(keys) -> tuple[str, ...]:
    """The wrapper prefixes (:data:`WRAPPER_PREFIXES`) every key carries, outermost first, e.g.
    ("module.", "_orig_mod.") for a compiled model inside DataParallel."""
    keys, out = [str(k) for k in keys], []
    while keys:
        found = next((p for p in WRAPPER_PREFIXES if all(k.startswith(p) for k in keys)), None)
        if found is None:
            break
        out.append(found)
        keys = [k[len(found):] for k in keys]
    return tuple(out)


def _without_wrappers(state_dict: dict) -> tuple[dict, list[str]]:
    """``state_dict`` with the wrapper prefixes every key carries (:func:`strip_wrappers`) removed, and the note
    that says so (none where there was no wrapper)."""
    wrappers = strip_wrappers(state_dict)
    out = state_dict
    for p in wrappers:
        out = {k[len(p):]: v for k, v in out.items()}
    notes = [f"stripped the prefix {''.join(wrappers)!r} of a wrapped model (DataParallel, torch.compile)"] \
        if wrappers else []
    return out, notes


def _under(state_dict: dict, prefix: str) -> dict:
    if not prefix:
        return dict(state_dict)
    return {k[len(prefix) + 1:]: v for k, v in state_dict.items() if k.startswith(prefix + ".")}


def _describe(shapes: dict) -> str:
    layout = layout_of(shapes, None, strict=False)
    layers = {m.group(1) for k in shapes for part in k.split(".") if (m := _HH.fullmatch(part)) and m.group(1)}
    bidirectional = any(k.endswith("_reverse") for k in shapes)
    if layout is None or layout.arch is None:
        name = "recurrent"
    else:
        name = layout.arch.upper() + ("Cell" if layout.kind == "cell" else "")
    words = [name] + ([f"{len(layers)} layers"] if len(layers) > 1 else []) + (
        ["bidirectional"] if bidirectional else []) + (["parametrized"] if layout and layout.parametrized else [])
    return ", ".join(words)


def recurrent_prefixes(state_dict: dict) -> list[RecurrentPrefix]:
    """Every prefix holding a ``weight_hh_l<k>``/``weight_hh`` tensor, in the file's order, with what its shapes say.

    Args:
        state_dict: name → tensor (or anything with ``.shape``).
    """
    seen: dict[str, None] = {}
    for key in state_dict:
        parts = str(key).split(".")
        for i, part in enumerate(parts):
            if _HH.fullmatch(part) and (i == len(parts) - 1 or (i >= 1 and parts[i - 1] == "parametrizations")):
                head = parts[:i - 1] if i >= 1 and parts[i - 1] == "parametrizations" else parts[:i]
                seen.setdefault(".".join(head), None)
                break
    out = []
    for prefix in seen:
        shapes = {k: tuple(v.shape) for k, v in _under(state_dict, prefix).items() if hasattr(v, "shape")}
        out.append(RecurrentPrefix(prefix, _describe(shapes)))
    return out


def _listing(found: list[RecurrentPrefix]) -> str:
    quoted = [f.quoted() for f in found]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def submodule_flag(prefix: str, template: str) -> str:
    """``template`` with ``{flag}`` the ``--submodule`` flag selecting ``prefix``, shell-quoted: a key comes from the
    file, and a user pastes the suggestion into a shell. A prefix holding a control character gets no flag but
    its name, escaped, since no pasted line carries it and printed raw it would write to the terminal."""
    bad = control_character(prefix)
    if bad is not None:
        return (f"no --submodule can name {prefix!r} on a command line (it holds the control character "
                f"U+{ord(bad):04X}): save its weights under another name")
    return template.format(flag=f"--submodule {shlex.quote(prefix)}")


def _top_level(state_dict: dict) -> bool:
    shapes = {k: tuple(v.shape) for k, v in state_dict.items() if hasattr(v, "shape")}
    return layout_of(shapes, None, strict=False) is not None


def select_recurrent(state_dict: dict, submodule: str | None, where: str, kind: str = "a state dict"
                     ) -> tuple[dict, str | None]:
    """The recurrent module's own state dict inside a file's, and a note saying how it was found.

    Wrapper prefixes every key carries (``module.``, ``_orig_mod.``) are stripped first; then ``submodule``
    selects its prefix; without it, a state dict of the module itself is taken as it is, and a whole model's
    with exactly one recurrent-looking prefix is read under that prefix.

    Args:
        state_dict: the file's state dict (name → tensor). submodule: ``--submodule`` (a dotted path), or None.
        where: the file, for messages. kind: the layout in words (:func:`unwrap_checkpoint`).

    Returns:
        (state dict of the recurrent module, note or None): the note says which prefix was read and why, for
        the output.

    Raises:
        InputError: ``submodule`` naming no tensors; a whole model's state dict with several recurrent-looking
            prefixes, or none (one line listing what was found and the exact ``--submodule`` to pass).
    """
    stripped, notes = _without_wrappers(state_dict)
    found = recurrent_prefixes(stripped)
    base = ""
    if submodule is not None:
        inner = next((d for d in (_under(stripped, submodule), _under(state_dict, submodule)) if d), None)
        if inner is not None and _top_level(inner):
            return inner, ("; ".join(notes) or None)
        if inner is not None and any(f.prefix.startswith(submodule + ".") for f in found):
            stripped, base = inner, submodule + "."  # a model part holding the recurrent module deeper down
            found = [RecurrentPrefix(f"{base}{f.prefix}", f.description) for f in recurrent_prefixes(inner)]
        else:
            hint = f"; recurrent weights found under {_listing(found)}; " \
                f"{submodule_flag(found[0].prefix, 'pass {flag}')}" if found and found[0].prefix else (
                "; its recurrent weights are at the top level: leave out --submodule" if found else
                "; it holds no recurrent weights (no weight_hh_l0 or weight_hh)")
            what = "no tensors under that prefix" if inner is None else "no recurrent weights under that prefix"
            raise InputError(f"{where}: --submodule {submodule!r}: {what}{hint}")
    if not base and _top_level(stripped):
        return stripped, ("; ".join(notes) or None)
    named = [f for f in found if f.prefix]
    if len(named) == 1:
        place = repr(submodule) if base else "the file" if kind == "a state dict" else kind
        notes.append(f"read the recurrent weights under {named[0].prefix!r} ({named[0].description}), the only "
                     f"recurrent module in {place}; "
                     f"{submodule_flag(named[0].prefix, '{flag} selects it explicitly')}")
        return _under(stripped, named[0].prefix[len(base):]), "; ".join(notes)
    whole = f"the tensors under --submodule {submodule!r}" if base else \
        "a whole model's state dict" if kind == "a state dict" else kind
    if named:
        raise InputError(f"{where}: {whole}; recurrent weights found under {_listing(named)}; "
                         f"{submodule_flag(named[0].prefix, 'pass {flag}')}")
    keys = sorted(str(k) for k in stripped)[:6]
    raise InputError(f"{where}: {whole} with no recurrent weights (no weight_hh_l0 or weight_hh under any prefix; "
                     f"keys {keys}); for another model pass --model MODULE:FACTORY, a function that builds it, and "
                     "--weights loads into it")


def fit_to_model(state_dict: dict, expected: set[str], where: str, kind: str = "a state dict"
                 ) -> tuple[dict, str | None]:
    """A file's state dict with the keys of the model it is loaded into (``--model`` with ``--weights``).

    Wrapper prefixes (``module.``, ``_orig_mod.``) on every key are stripped; where the keys still differ
    from the model's, a prefix under which the file holds exactly the model's keys (a Lightning
    checkpoint's ``model.``) is read. Anything else is returned as it is, for the caller's strict load to
    name the mismatches.

    Args:
        state_dict: the file's. expected: the model's own state dict keys. where, kind: for the note.

    Returns:
        (state dict, note or None).
    """
    out, notes = _without_wrappers(state_dict)
    if set(out) != expected and expected:
        # every split of a key at a dot whose tail is one of the model's keys: O(keys × depth)
        heads = {k[:i + 1] for k in out for i, c in enumerate(k) if c == "." and k[i + 1:] in expected}
        fits = [h for h in heads if set(_under(out, h[:-1])) == expected]
        if len(fits) == 1:
            notes.append(f"read the model's tensors under {fits[0][:-1]!r} of {kind}")
            out = _under(out, fits[0][:-1])
    return out, ("; ".join(notes) or None)
