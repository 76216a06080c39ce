"""Backward cost of every cell's forward loop is linear in T.

Slicing a per-step input out of a (batch, T, ·) tensor inside the loop (``x[:, t]``) gives each step
its own Select/Slice backward node, and each of those materialises a full (batch, T, ·) zero
gradient: O(T²·batch·width) work and memory traffic in backward. At T = 1000, batch 64, h = 1024
that made SRNN's backward ~60× slower than the roll it is about (benchmarks/bench_cells.py).
The cells take their steps with ``unbind`` (one backward node for all T). Timings are not asserted
here; the structure of the autograd graph is.
"""

import pytest
import torch

from rnnaudit.cells.registry import CELLS, build_cell

F64 = torch.float64


def _sequence_slices(root, T: int) -> int:
    """Select/Slice backward nodes whose input has a time axis of length T (dim 1)."""
    count, seen, stack = 0, set(), [root]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if type(fn).__name__.startswith(("SelectBackward", "SliceBackward")):
            sizes = tuple(getattr(fn, "_saved_self_sym_sizes", ()))
            count += len(sizes) > 1 and sizes[1] == T
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return count


@pytest.mark.parametrize("name", sorted(CELLS))
def test_forward_has_no_per_step_slice_of_the_sequence(name):
    T = 40
    kwargs = {"generator": torch.Generator().manual_seed(0)} if name != "lstm" else {}
    cell = build_cell(name, 3, 8, dtype=F64, **kwargs)
    x = torch.randn(2, T, 3, dtype=F64, requires_grad=True)
    slices = _sequence_slices(cell(x).sum().grad_fn, T)
    # a few slices of the whole sequence are fine; one per step is the O(T²) backward
    assert slices < T // 4, f"{name}: {slices} slices of a length-{T} sequence (one per step?); use unbind(1)"


def test_the_check_sees_a_per_step_slice():
    """The graph check itself: a loop over x[:, t] is caught."""
    T = 40
    x = torch.randn(2, T, 3, dtype=F64, requires_grad=True)
    y = sum((x[:, t] * t).sum() for t in range(T))
    assert _sequence_slices(y.grad_fn, T) == T
