"""A flop counter at the ATen dispatch level: what the code actually executes, op by op.

Table 1 of spectral_rnn.md (Sec. 4.2) states flop counts; :mod:`rnnaudit.bounds.spectral_rnn.table1`
counts them with :class:`FlopCounter` while running the algorithms. The counter knows nothing of the
paper: it counts any computation built from the ops it has rules for, and refuses the others.
"""

from __future__ import annotations

from collections import Counter

import torch
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = ["FlopCounter", "count_flops"]

_ZERO_COST = {
    "clone", "slice", "select", "copy_", "detach", "view", "_unsafe_view", "expand", "unsqueeze", "squeeze",
    "t", "transpose", "permute", "alias", "lift_fresh", "lift_fresh_copy", "zeros", "zeros_like", "empty",
    "empty_like", "new_zeros", "new_empty", "fill_", "zero_", "cat", "stack", "_to_copy", "as_strided",
    "index", "index_put", "index_put_", "where", "gt", "lt", "ge", "le", "eq", "ne", "scalar_tensor", "full",
    "ones", "ones_like", "_local_scalar_dense", "split", "unbind", "diagonal", "resolve_conj", "resolve_neg",
    "new_empty_strided", "empty_strided", "logical_and", "logical_or", "any", "all",
}
_ELEMENTWISE = {"add", "sub", "mul", "div", "neg", "reciprocal", "rsub", "add_", "sub_", "mul_", "div_"}


class FlopCounter(TorchDispatchMode):
    """Counts the floating-point operations of the ATen calls made inside it (a dispatch-level count of
    what the code actually executes).

    Rules: elementwise add/sub/mul/div/neg/reciprocal cost one flop per output entry; ``dot`` of length k
    costs 2k − 1 (k products, k − 1 sums); ``mv``/``mm`` cost rows·cols·(2·inner − 1); ``sum`` costs
    (entries in − entries out). Data movement (views, copies, slicing, comparisons, ``where``) is free.
    Any other op raises, so nothing is silently left uncounted.

    Attributes:
        flops: total count. by_op: Counter of flops per op name.

    Raises:
        RuntimeError: an op without a rule (name given).

    Source: spectral_rnn.md Sec. 4.2 / Table 1 ("flops").
    """

    def __init__(self):
        super().__init__()
        self.flops = 0
        self.by_op: Counter = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name in _ZERO_COST:
            cost = 0
        elif name in _ELEMENTWISE:
            cost = out.numel()
        elif name in ("dot", "vdot"):
            cost = 2 * args[0].numel() - 1
        elif name == "mv":
            rows, inner = args[0].shape
            cost = rows * (2 * inner - 1)
        elif name == "mm":
            (rows, inner), cols = args[0].shape, args[1].shape[1]
            cost = rows * cols * (2 * inner - 1)
        elif name == "sum":
            cost = args[0].numel() - out.numel()
        else:
            raise RuntimeError(f"FlopCounter has no rule for aten.{name}")
        self.flops += cost
        self.by_op[name] += cost
        return out


def count_flops(fn, *args, **kwargs) -> tuple[int, object]:
    """(flops, result) of ``fn(*args, **kwargs)`` under :class:`FlopCounter` (no autograd recorded)."""
    with torch.no_grad(), FlopCounter() as counter:
        result = fn(*args, **kwargs)
    return counter.flops, result
