"""Fixed points and slow points of a user's model (Sussillo & Barak 2013), as the public
``rnnaudit.fixed_points`` and as the audit's "Fixed points" section; the engine is
:func:`rnnaudit.analysis.fixed_points.find_fixed_points`."""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.analysis.fixed_points import FixedPoints, find_fixed_points

__all__ = ["fixed_points", "fixed_point_sections", "AUDIT_STARTS", "AUDIT_ITERATIONS"]

#: Starts and LBFGS iterations of the audit's search: bounded so that the audit's time grows little (the cost is
#: AUDIT_STARTS·(AUDIT_ITERATIONS + a few Newton steps) evaluations of one batched step and its gradient, and
#: AUDIT_STARTS Jacobians and eigensolves of S × S); ``rnnaudit.fixed_points`` defaults to more.
AUDIT_STARTS = 16
AUDIT_ITERATIONS = 50


def fixed_points(model, x: Tensor, input="zero", *, n_starts: int = 64, seed: int = 0, **options) -> FixedPoints:
    """``rnnaudit.fixed_points(model, x)``: the fixed points and slow points of the model's step map under a
    constant input, with the eigenvalues, stability and time constants at each (Sussillo & Barak 2013,
    "Opening the black box", Neural Computation 25(3); :mod:`rnnaudit.analysis.fixed_points`).

    Args:
        model: any model :func:`rnnaudit.wrap` accepts (``torch.nn.RNN``/``GRU``/``LSTM`` with any number of layers,
            their ``*Cell``, rnnaudit's cells, a wrapped step); searched on a float64 copy, the model itself is not
            changed. A torch module's state is the packed state of :class:`rnnaudit.cells.adapters.TorchRecurrent`
            (every layer's h, then every layer's c).
        x: sequences whose visited states are the starts, (T, n) or (m, T, n), batch first whatever the module's
            ``batch_first``; any real floating dtype (used in float64).
        input: the constant input x*: ``"zero"``, ``"mean"`` (of x over sequences and time) or a tensor of n numbers.
        n_starts: how many starts (≥ 1). seed: of the starts' draw and noise (≥ 0).
        options: ``noise``, ``max_iter``, ``newton_steps``, ``slow_fraction``, ``h0`` of
            :func:`~rnnaudit.analysis.fixed_points.find_fixed_points`.

    Returns:
        :class:`~rnnaudit.analysis.fixed_points.FixedPoints`: points (K, S) float64, ``is_fixed``, ``eigenvalues``
        (K, S) complex128, ``stability``, ``n_unstable``, ``time_constants`` (K, S) in steps, ...

    Raises:
        TypeError: x not a tensor. ValueError: a model :func:`rnnaudit.wrap` refuses (a bidirectional module: pass
            one direction), x of the wrong shape or not finite, a bad ``input`` or option.

    Example:
        >>> import torch, rnnaudit
        >>> rnn = torch.nn.RNN(1, 1, bias=False)
        >>> with torch.no_grad():
        ...     _ = rnn.weight_hh_l0.fill_(1.5)   # h ↦ tanh(1.5 h): 0 unstable, ±0.8586 stable
        >>> fp = rnnaudit.fixed_points(rnn, torch.randn(4, 30, 1))
        >>> sorted(round(float(h), 4) for h in fp.points[:, 0]), fp.stability.count("unstable")
        ([-0.8586, 0.0, 0.8586], 1)
    """
    from rnnaudit.auditing.model import _probe_of
    from rnnaudit.cells.adapters import wrap

    if not isinstance(x, Tensor):
        raise TypeError(f"x must be a tensor (T, n) or (m, T, n), got {type(x).__name__}")
    if not x.is_floating_point() or x.is_complex():
        raise ValueError(f"x must be a real floating tensor, got {x.dtype}")
    if isinstance(model, (torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM)) and model.bidirectional:
        raise ValueError("model: a bidirectional module is two recurrences with no single step map; pass one "
                         "direction (a bidirectional=False module with that direction's weights)")
    from rnnaudit.cells.adapters import TorchRecurrent
    from rnnaudit.cells.copying import probe_copy

    if isinstance(model, TorchRecurrent) and (getattr(model.module, "bidirectional", False)
                                              or len(model.layers) != getattr(model.module, "num_layers", 1)):
        # one direction or one layer of a larger module: the same recurrence, on a float64 copy
        one_layer = len(model.layers) == 1 and getattr(model.module, "num_layers", 1) > 1
        cell = TorchRecurrent(probe_copy(model.module), direction=model.direction,
                              layer=model.layers[0] if one_layer else None)
    else:
        cell = wrap(_probe_of(model))
    return find_fixed_points(cell, x.detach().to(torch.float64), input, n_starts=n_starts, seed=seed, **options)


def fixed_point_sections(cell, x: Tensor, parts=None) -> list[dict]:
    """The audit's "Fixed points" section: one entry per recurrence searched, under the data's mean input, with
    :data:`AUDIT_STARTS` starts and :data:`AUDIT_ITERATIONS` LBFGS iterations.

    Args:
        cell: the float64 cell of the whole model (every layer at once: the step map of a stack is one map), or
            None for a bidirectional module. x: (m, T, n) float64.
        parts: the model's recurrences (:func:`rnnaudit.auditing.layers.recurrences`), searched one by one when
            ``cell`` is None (each direction with the mean of its own inputs: for layers above the first, the
            layer below's outputs on the data).

    Returns:
        [{"part", "input": "mean", "state_size", **:meth:`FixedPoints.to_json`}].
    """
    if cell is not None:
        searched = [(parts[0].label if parts and len(parts) == 1 else "all layers", cell, x)]
    else:
        searched = [(p.label, p.cell, p.inputs) for p in parts]
    out = []
    with torch.enable_grad():  # forward-mode Jacobians and LBFGS need autograd on, whatever the caller's mode
        for label, c, inputs in searched:
            fp = find_fixed_points(c, inputs, "mean", n_starts=AUDIT_STARTS, max_iter=AUDIT_ITERATIONS)
            out.append({"part": label, "input": "mean", "state_size": int(c.hidden_size), **fp.to_json()})
    return out
