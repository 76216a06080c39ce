"""Claims of S4D (Gu, Gupta, Goel & Ré 2022, "On the Parameterization and Initialization of Diagonal State Space
Models", arXiv 2206.11893), checked on :class:`rnnaudit.cells.S4D`.

=================== ==================================================================== =============
claim id            statement                                                            module
=================== ==================================================================== =============
``s4d.init``        S4D-Lin A_n = −1/2 + iπn, S4D-Inv A_n = −1/2 + i(N/π)(N/(2n+1) − 1)  ``init``
``s4d.stability``   ZOH of Re A < 0: |Ā_n| = exp(Δ Re A_n) < 1 for every Δ > 0          ``stability``
=================== ==================================================================== =============

What was read: the search tool's pages corpus returned summaries of the paper (deep-paper.org, emergentmind.com:
diagonal A, ZOH discretisation, the Vandermonde kernel), not its statements; the initialisations' formulas were read
in the reference code (state-spaces/s4, models/s4/s4d.py for S4D-Lin's −1/2 + iπn; the ``init`` options of its DPLR
kernel for S4D-Inv's (1/π)·N·(N/(2n+1) − 1)), which is what the claims check. The paper's own equation numbers are not
given for that reason.
Section and equation numbers are not given where the paper's text was not read.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.s4d.init import init
from rnnaudit.bounds.s4d.stability import stability

__all__ = ["CLAIMS", "COVERAGE", "init", "stability"]

CLAIMS = (init, stability)

COVERAGE = (
    Statement("S4D-Lin initialisation A_n = −1/2 + iπn", ("s4d.init",),
              "formula read in the reference code (models/s4/s4d.py), not in the paper's text"),
    Statement("S4D-Inv initialisation A_n = −1/2 + i(N/π)(N/(2n + 1) − 1)", ("s4d.init",),
              "formula read in the reference code (the DPLR kernel's 'inv' option), not in the paper's text"),
    Statement("zero-order hold Ā = exp(ΔA), B̄ = (ΔA)⁻¹(exp(ΔA) − I)ΔB, and the stability of Ā",
              ("s4d.stability",),
              "the Vandermonde kernel 2Re(C B̄ Āˡ) equals the recurrence: tests/cells/test_modern.py"),
    Statement("the convolution (Vandermonde) kernel K_l = 2 Re(Σ_n C_n B̄_n Ā_nˡ) computes the recurrence's outputs",
              reason="an identity of the implementation, checked by a test (tests/cells/test_modern.py, to 1e-13), "
                     "not a claim"),
    Statement("S4D-Real initialisation A_n = −(n + 1)",
              reason="not an init option of cells.S4D; cells.SelectiveSSM initialises A with it (Mamba's choice)"),
    Statement("the paper's results on the Long Range Arena and other benchmarks",
              reason="needs the paper's data sets and training runs"),
)
