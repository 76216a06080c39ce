"""The step Jacobians of each recurrence of a model, as the audit's diagnostics read them after the claims: layer l's
own step Jacobian (its input, the layer below's new h, held fixed), which is the diagonal block of the packed state's
(:mod:`rnnaudit.analysis.diagnostics`), formed one sequence at a time when read, or taken as they are from a claim's map
that holds them. Split from :mod:`rnnaudit.auditing.model`.
"""

from __future__ import annotations

from torch import Tensor

from rnnaudit.bounds.core import NotApplicable
from rnnaudit.bounds.on_model import ModelView

__all__ = ["part_jacobians", "PartJacobians", "HELD_NUMBERS"]


def part_jacobians(cell, x: Tensor, parts, bidirectional: bool) -> list[PartJacobians | None]:
    """Per recurrence, its step Jacobians (T, S_l, S_l) of each of the m sequences (a :class:`PartJacobians`, formed
    when read): layer l's own step Jacobian, its input (the layer below's new h) held fixed, which is the diagonal
    block of the packed state's rows and columns of l's h (and c), as :mod:`rnnaudit.analysis.diagnostics` states,
    and equal to it entry for entry (the same closed form on the same states,
    :func:`~rnnaudit.bounds.architectures.layer_cases`). None where the parts are not such blocks (a bidirectional
    module, a user's step, an LSTM with proj_size): the diagnostics then form their own."""
    from rnnaudit.bounds.architectures import arch_cases_from_model, layer_cases

    if bidirectional:
        return [None] * len(parts)
    try:
        cases = arch_cases_from_model(ModelView(cell, x), kinds=("rnn_tanh", "rnn_relu", "gru", "lstm"))
    except NotApplicable:
        return [None] * len(parts)
    L = cases[0].layers
    if len(parts) != L:
        return [None] * len(parts)
    layers = [layer_cases(c) if L > 1 else [c] for c in cases]
    blocks = [PartJacobians([per[layer] for per in layers]) for layer in range(L)]
    from rnnaudit.bounds.step_maps import held_jacobians, held_step_norms

    # the Jacobians a claim's map holds now (the whole map of a one-layer model, a layer's own map) are read as they
    # are instead of formed again, up to HELD_NUMBERS numbers kept past the release of the maps
    kept = 0
    for b in range(len(cases)):
        for blk in blocks:
            J = held_jacobians(blk.cases[b])
            if J is not None and kept + J.numel() <= HELD_NUMBERS:
                blk.held[b] = J
                kept += J.numel()
                norms = held_step_norms(blk.cases[b])
                if norms is not None and norms.M.data_ptr() == J.data_ptr() and norms.M.shape == J.shape:
                    blk.norms[b] = norms
    return blocks


#: numbers of step Jacobians that the claims' maps held and the diagnostics read as they are (2^26 float64: 512 MB)
HELD_NUMBERS = 2 ** 26


class PartJacobians:
    """One layer's step Jacobians (T, S_l, S_l) of every sequence, formed one sequence at a time when read (``len``
    and ``[b]``; the last one read is kept): the diagnostics read every sequence without holding all of them, after
    the claims' packed maps are released. ``held``: sequence → the Jacobians a claim's map held (taken from a map
    of the same case content, the same numbers), each let go once read. ``norms``: sequence → that map's step norms
    (:class:`rnnaudit.analysis.norms.PairNorms` of the same tensor), where a claim asked for them: what
    :func:`rnnaudit.analysis.diagnostics.max_step_norm` reuses."""

    def __init__(self, cases: list):
        self.cases = cases
        self.held: dict[int, Tensor] = {}
        self.norms: dict = {}
        self._last: tuple[int, Tensor] | None = None

    def __len__(self) -> int:
        return len(self.cases)

    def __getitem__(self, b: int) -> Tensor:
        from rnnaudit.bounds.architectures import step_jacobians

        if self._last is None or self._last[0] != b:
            self._last = None  # dropped before the next is formed
            J = self.held.pop(b, None)
            self._last = (b, step_jacobians(self.cases[b], inputs=False)[0] if J is None else J)
        return self._last[1]
