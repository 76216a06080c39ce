"""What identifies a case inside one audit, and what is computed once per case: its content key (a digest of every
tensor the step Jacobians depend on), its trajectory, and which block of a stack's packed state each of its layers is.
Split from :mod:`rnnaudit.bounds.step_maps` (the step maps themselves), which re-exports these names; both live only
inside :func:`rnnaudit.bounds.step_maps.shared_maps`, which clears them (:func:`forget_cases`).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from contextvars import ContextVar
from typing import TYPE_CHECKING

import torch
from torch import Tensor

if TYPE_CHECKING:
    from rnnaudit.bounds.architectures import ArchCase

__all__ = ["shared_trajectory", "note_layers", "forget_cases", "TRAJECTORY_SLOTS"]

#: inside :func:`rnnaudit.bounds.step_maps.shared_maps` (one model's audit)
_SHARED: ContextVar[bool] = ContextVar("rnnaudit_shared_maps", default=False)


def _case_key(case: ArchCase) -> tuple | None:
    """A key that changes whenever anything the step Jacobians depend on changes: the kind and every weight, input
    and initial-state tensor (dtype, device, shape, bytes). None for a ``step`` case (its cell's forward is code,
    not data) and for a case whose tensors require a gradient (an ascent differentiates through the result)."""
    if case.cell is not None:
        return None
    tensors = [case.x, case.h0] + [t for w in case.weights for t in w]
    if any(t.requires_grad for t in tensors):
        return None
    digest = hashlib.blake2b(digest_size=16)
    for t in tensors:
        digest.update(f"{t.dtype}|{t.device}|{tuple(t.shape)};".encode())
        digest.update(_tensor_digest(t))
    return case.kind, digest.hexdigest()


#: (data pointer, dtype, device, shape, strides) → (a copy of the tensor's bytes, their digest), inside one audit
#: (:func:`~rnnaudit.bounds.step_maps.shared_maps`): an audit keys the same few weight and input tensors some 200
#: times, each claim through its own ``detach()`` alias or view of them (80 MB of hashing for a GRU(256), against 3 MB
#: of distinct tensors). An entry is used only where the tensor's bytes equal the copy (one comparison pass, several
#: times cheaper than hashing): a write through any alias (``.data``, numpy, ``set_``), which no version counter need
#: see, and another tensor at a freed address are then hashed afresh.
_DIGESTS: dict[tuple, tuple[Tensor, bytes]] = {}
#: tensors of up to this many numbers are remembered (a copy each: 32 MB of float64); a larger one, which no audit
#: keys more than a few times, is hashed on each use
DIGEST_COPY_NUMBERS = 2 ** 22
#: the integer type of each floating type's width, to compare bytes (−0.0 against 0.0, NaN payloads) rather than values
_BITS = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16,
         torch.bfloat16: torch.int16}


def _tensor_digest(t: Tensor) -> bytes:
    """The blake2b digest of the tensor's bytes (its values: a conjugate or negative view is resolved first),
    remembered within :func:`~rnnaudit.bounds.step_maps.shared_maps` for the same memory layout while the bytes there
    are unchanged (:data:`_DIGESTS`); computed afresh outside it."""
    t = t.detach()
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    bits = _BITS.get(t.dtype) if _SHARED.get() and 0 < t.numel() <= DIGEST_COPY_NUMBERS else None
    where = (t.data_ptr(), t.dtype, str(t.device), tuple(t.shape), t.stride()) if bits is not None else None
    held = _DIGESTS.get(where) if where is not None else None
    if held is not None and torch.equal(held[0].view(bits), t.view(bits)):
        return held[1]
    data = t.cpu().contiguous().reshape(-1).view(torch.uint8).numpy()
    value = hashlib.blake2b(data, digest_size=16).digest()
    if where is not None:
        _DIGESTS[where] = (t.clone(), value)
    return value


#: the trajectories of the cases met inside :func:`~rnnaudit.bounds.step_maps.shared_maps` (a few, T·S numbers
#: each), by case content
_TRAJECTORIES: OrderedDict[tuple, Tensor] = OrderedDict()
#: at most this many trajectories held (the packed state's, each layer's, and the claims' second starts)
TRAJECTORY_SLOTS = 16


#: a stack's layer case (its key) → (the packed case's key, the packed state's coordinate ranges of that layer), noted
#: by :func:`rnnaudit.bounds.architectures.layer_cases` inside :func:`~rnnaudit.bounds.step_maps.shared_maps`
_LAYER_OF: dict[tuple, tuple[tuple, list[tuple[int, int]]]] = {}


def note_layers(case: ArchCase, layers: list[ArchCase], ranges: list[list[tuple[int, int]]]) -> None:
    """Inside :func:`~rnnaudit.bounds.step_maps.shared_maps`, remember which block of ``case``'s packed state each
    of its ``layers`` is (``ranges[l]``: layer l's coordinate ranges, its h, then its c for an LSTM, as
    :func:`rnnaudit.bounds.architectures.layer_cases` slices them), so that a layer's map reads its step Jacobians
    from the packed map where that is held (:func:`rnnaudit.bounds.step_maps._packed_block`)."""
    if not _SHARED.get() or case.kind not in ("rnn_tanh", "rnn_relu", "gru", "lstm") or len(layers) < 2:
        return
    packed = _case_key(case)
    if packed is None:
        return
    for layer, coords in zip(layers, ranges, strict=True):
        key = _case_key(layer)
        if key is not None:
            _LAYER_OF[key] = (packed, coords)


def shared_trajectory(case: ArchCase, compute) -> Tensor:
    """``compute(case)`` (the states h_0 … h_T of :func:`rnnaudit.bounds.architectures.trajectory`), computed once
    per case content inside :func:`~rnnaudit.bounds.step_maps.shared_maps` and held until it ends (or until
    :data:`TRAJECTORY_SLOTS` newer ones push it out); computed afresh outside it, and for a case with no key
    (:func:`_case_key`: a user's step, or tensors an ascent differentiates)."""
    key = _case_key(case) if _SHARED.get() else None
    if key is None:
        return compute(case)
    held = _TRAJECTORIES.get(key)
    if held is None:
        held = _TRAJECTORIES[key] = compute(case)
        while len(_TRAJECTORIES) > TRAJECTORY_SLOTS:
            _TRAJECTORIES.popitem(last=False)
    else:
        _TRAJECTORIES.move_to_end(key)
    return held


def forget_cases() -> None:
    """Drop the digests, trajectories and layer blocks held for one audit (on leaving its ``shared_maps``)."""
    _DIGESTS.clear()
    _TRAJECTORIES.clear()
    _LAYER_OF.clear()
