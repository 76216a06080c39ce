"""Claims of Mamba (Gu & Dao 2023, "Mamba: Linear-Time Sequence Modeling with Selective State Spaces",
arXiv 2312.00752), checked on :class:`rnnaudit.cells.SelectiveSSM`.

==================== ========================================================================== ============
claim id             statement                                                                  module
==================== ========================================================================== ============
``mamba.theorem1``   N = 1, A = −1, B = 1, Δ = softplus(Linear(x)): h_t = (1 − g_t)h_(t−1) + g_t x_t ``theorem1``
==================== ========================================================================== ============

What was read (search tool, pages corpus): notes and explainers of the paper (8hantanu.net's formula sheet: Ā =
exp(ΔA), B̄ = (ΔA)⁻¹(exp(ΔA) − I)ΔB, intuitivepapers.ai's summary), not the theorem's own text; the
theorem is checked in the form the issue gives (query tried: the theorem's wording "When N = 1, A = −1, B = 1,
s_Δ = Linear(x), and τ_Δ = softplus"; the pages returned were summaries). The discretisation the released code uses
(B̄ = ΔB) was read in ``mambapy`` (its selective_scan), which the cell reproduces to 2.2e-16
(tests/cells/test_modern_conformance.py).
Section and equation numbers are not given where the paper's text was not read.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.mamba.theorem1 import theorem1

__all__ = ["CLAIMS", "COVERAGE", "theorem1"]

CLAIMS = (theorem1,)

COVERAGE = (
    Statement("Theorem 1 (the selective SSM with N = 1 is a gated recurrence)", ("mamba.theorem1",),
              "holds as printed, exact under the paper's ZOH; the Reading 'B̄ = ΔB' (the released kernels' "
              "discretisation) has its own verdict, false: the input weight is softplus(z), not the gate σ(z)"),
    Statement("zero-order hold Ā = exp(ΔA), B̄ = (ΔA)⁻¹(exp(ΔA) − I)·ΔB", ("mamba.theorem1",),
              "used by the theorem's check; the cell offers both discretisations"),
    Statement("Algorithm 2 (the selective SSM)", ("mamba.theorem1",),
              "implemented as cells.SelectiveSSM and checked against mambapy (tests)"),
    Statement("the parallel (hardware-aware) scan computes the same recurrence as the sequential one",
              reason="an implementation property: mambapy's parallel and sequential scans both agree with "
                     "cells.SelectiveSSM to 2.2e-16 (tests/cells/test_modern_conformance.py), not a claim"),
    Statement("the S4D-Real initialisation of A (A_n = −(n + 1)) and the inverse-softplus initialisation of Δ's bias",
              reason="initialisations, implemented by cells.SelectiveSSM as mambapy does; no statement to check"),
    Statement("the paper's language-modelling and synthetic-task results",
              reason="needs the paper's data sets and training runs"),
)
