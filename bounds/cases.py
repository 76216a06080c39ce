"""Saving and reloading cases: one generic rule for every case class, so counterexamples reload.

A case is a dataclass. Its state is a dict with one entry per field:

- a tensor → a detached copy (reloaded onto the device, floating tensors in the dtype asked for,
  integer and boolean tensors, e.g. permutations, as they are);
- an ``nn.Module`` with a ``config()`` (every cell and orthogonal map of :mod:`rnnaudit.cells`)
  → ``{"type": class name, "config": ..., "params": state dict, "training": bool}``, rebuilt
  through :func:`rnnaudit.cells.registry.module_from_config` (only those types, so a file cannot
  name arbitrary code);
- None, numbers, strings, and tuples or lists of them → as they are.

The state holds only what ``torch.load(..., weights_only=True)`` accepts. A case class that needs
something else defines its own ``state()`` and classmethod ``from_state(state, device, dtype)``,
which take precedence.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch
from torch import Tensor, nn

from rnnaudit.cells.registry import module_from_config
from rnnaudit.limits import LIMITS, TooLargeError

__all__ = ["case_state", "case_from_state", "copy_case", "load_params", "check_state_sizes"]

_MODULE = "__module__"


def load_params(module: nn.Module, params: dict, device, dtype) -> None:
    """Load a saved state dict into ``module``: floating tensors cast to ``dtype`` on ``device``,
    integer and boolean buffers (e.g. permutations, latches) moved to ``device`` as they are.

    Raises:
        ValueError: the state dict does not fit the module (missing or unexpected keys, shapes).
    """
    if not isinstance(params, dict) or not all(isinstance(v, Tensor) for v in params.values()):
        raise ValueError(f"parameters of {type(module).__name__} must be a dict of tensors")
    try:
        module.load_state_dict({k: v.to(device=device, dtype=dtype) if v.is_floating_point() else v.to(device)
                                for k, v in params.items()})
    except RuntimeError as err:
        raise ValueError(f"saved parameters do not fit {type(module).__name__}: {err}") from None


def _value_state(value):
    if isinstance(value, Tensor):
        return value.detach().clone()
    if isinstance(value, nn.Module):
        return {_MODULE: type(value).__name__, "config": value.config(),
                "params": {k: v.detach().clone() for k, v in value.state_dict().items()}, "training": value.training}
    if isinstance(value, (tuple, list)):
        return type(value)(_value_state(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot save a case field of type {type(value).__name__}")


def _value_from_state(state, device, dtype):
    if isinstance(state, Tensor):
        return state.to(device=device, dtype=dtype) if state.is_floating_point() else state.to(device)
    if isinstance(state, dict) and _MODULE in state:
        module = module_from_config(state[_MODULE], state["config"], dtype=dtype, device=device)
        load_params(module, state["params"], device, dtype)
        return module.train(bool(state.get("training", True)))
    if isinstance(state, (tuple, list)):
        return type(state)(_value_from_state(v, device, dtype) for v in state)
    return state


def check_state_sizes(state, where: str, *, allow_large: bool = False) -> None:
    """Refuse a saved state that describes more work than :data:`rnnaudit.limits.LIMITS` allows, before
    anything is built from it: every integer of a module's config must be ≤ the hidden-size limit,
    and every other integer (seeds excepted) ≤ the elements limit.

    Raises:
        rnnaudit.limits.TooLargeError: a size above its limit (``allow_large`` lifts the limits).
    """
    if allow_large:
        return

    def walk(value, name: str, in_config: bool) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k), in_config or k == "config")
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v, name, in_config)
        elif isinstance(value, int) and not isinstance(value, bool) and "seed" not in name:
            limit = LIMITS.hidden if in_config else LIMITS.elements
            if value > limit:
                raise TooLargeError(f"{where}: {name} = {value} is above the limit {limit} (pass --allow-large to lift "
                                    "the limits if you mean it)")
    walk(state, "case", False)


def case_state(case) -> dict:
    """The case's fields as a dict of tensors and plain values (see the module docstring).

    Raises:
        TypeError: a field of a type with no rule (give the case class its own ``state()``).
    """
    if hasattr(case, "state"):
        return case.state()
    return {f.name: _value_state(getattr(case, f.name)) for f in dataclasses.fields(case)}


def case_from_state(case_type: type, state: dict, device="cpu", dtype=torch.float64) -> Any:
    """Rebuild a ``case_type`` case from :func:`case_state` on ``device`` in ``dtype``.

    Raises:
        ValueError: the state does not describe a ``case_type`` case (fields missing or unknown, a
            module type rnnaudit does not know, parameters that do not fit).
    """
    if hasattr(case_type, "from_state"):
        return case_type.from_state(state, device, dtype)
    if not isinstance(state, dict):
        raise ValueError(f"a {case_type.__name__} state must be a dict, got {type(state).__name__}")
    names = {f.name for f in dataclasses.fields(case_type)}
    required = {f.name for f in dataclasses.fields(case_type)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    if not required <= state.keys() or not state.keys() <= names:
        raise ValueError(f"a {case_type.__name__} state needs the fields {sorted(required)} (and may have "
                         f"{sorted(names - required)}), got {sorted(state)}")
    return case_type(**{k: _value_from_state(v, device, dtype) for k, v in state.items()})


def copy_case(case, device="cpu", dtype=torch.float64):
    """An independent copy of ``case`` (through its state) on ``device`` in ``dtype``."""
    return case_from_state(type(case), case_state(case), device, dtype)
