"""Claims of minGRU and minLSTM (Feng, Tung, Ahmed, Bengio & Hajimirsadeghi 2024, "Were RNNs All We Needed?",
arXiv 2410.01201), checked on :class:`rnnaudit.cells.MinGRU` and :class:`rnnaudit.cells.MinLSTM`.

====================== ====================================================================== =============
claim id               statement                                                              module
====================== ====================================================================== =============
``min_rnn.bounded``    h_t between the running min and max of h_0, h̃_1..h̃_t (rnnaudit's)     ``bounded``
``min_rnn.jacobian``   ∂h_t/∂h_s = Π diag(a_k), ‖·‖₂ = max_j Π a_{k,j} < 1 (rnnaudit's)        ``jacobian``
====================== ====================================================================== =============

What was read: the update equations as the issue and the ``mingru-pytorch`` package (its sequential mode, which the
cells reproduce to 2.2e-16; its log-space parallel mode to 2.2e-15) give them; the paper's own text was not searched
for a theorem on boundedness or gradients, and both claims are rnnaudit's derivations from the equations, labelled
so. The package's minLSTM parallel mode with a given previous state applies g to that state (log_g(prev_hidden)),
where its sequential mode (and its minGRU, prev_hidden.log()) use the state as it is; since g(x) ≠ x for every x,
the two modes disagree whenever a previous state is passed (measured: max difference 0.34 at T = 6,
h_0 ~ U[0.1, 1.1]). A package finding, not a claim of the paper; the conformance tests compare the parallel mode
from h_0 = 0 only.
Section and equation numbers are not given where the paper's text was not read.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.min_rnn.bounded import bounded
from rnnaudit.bounds.min_rnn.jacobian import jacobian

__all__ = ["CLAIMS", "COVERAGE", "bounded", "jacobian"]

CLAIMS = (bounded, jacobian)

COVERAGE = (
    Statement("minGRU's update (the gate does not see h)", ("min_rnn.bounded", "min_rnn.jacobian"),
              "rnnaudit's derivations from the equation"),
    Statement("minLSTM's normalised gates f' = f/(f + i), i' = i/(f + i)", ("min_rnn.bounded",
                                                                                     "min_rnn.jacobian"),
              "rnnaudit's derivations from the equation"),
    Statement("Appendix B, the log-space parallel scan with g keeping h̃ positive", ("min_rnn.bounded",),
              "the positivity follows from the bound with g > 0; the scan's agreement with the sequential mode is a "
              "test against mingru-pytorch"),
    Statement("the parallel (log-space) mode computes the sequential mode's states",
              reason="an implementation property, checked against mingru-pytorch from h_0 = 0 (2.2e-15) by a test; "
                     "the package's minLSTM disagrees with itself when a previous state is passed (module docstring)"),
    Statement("the parameter counts of minGRU/minLSTM against GRU/LSTM",
              reason="the paper's counts were not read; not guessed"),
    Statement("the paper's benchmark results", reason="needs the paper's data sets and training runs"),
)
