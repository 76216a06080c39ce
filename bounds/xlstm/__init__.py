"""Claims of xLSTM's sLSTM (Beck, Pöppel, Spanring, Auer, Prudnikova, Kopp, Klambauer, Brandstetter & Hochreiter
2024, "xLSTM: Extended Long Short-Term Memory", arXiv 2405.04517), checked on :class:`rnnaudit.cells.SLSTM`.

======================== ===================================================================== ===============
claim id                 statement                                                             module
======================== ===================================================================== ===============
``xlstm.stabiliser``     the stabiliser m_t leaves h_t unchanged                               ``stabiliser``
``xlstm.normaliser``     n_t makes c_t/n_t a weighted mean of z_k, ‖h_t‖_∞ ≤ 1 (rnnaudit's)   ``normaliser``
======================== ===================================================================== ===============

What was read: the sLSTM equations as the ``xlstm`` package's vanilla backend computes them
(``slstm_forward_pointwise``, which the cell reproduces to 1.1e-16 in h), and the issue's paraphrase of the
stabilised gating; the paper's own text was not searched within this session's time, so no equation number is given
and no constant is quoted. The mLSTM (matrix memory) is not implemented yet.
Section and equation numbers are not given where the paper's text was not read.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.xlstm.normaliser import normaliser
from rnnaudit.bounds.xlstm.stabiliser import stabiliser

__all__ = ["CLAIMS", "COVERAGE", "stabiliser", "normaliser"]

CLAIMS = (stabiliser, normaliser)

_NOT_DONE = "the mLSTM cell is not implemented yet (left for a later session); its statement was not read"

COVERAGE = (
    Statement("the sLSTM's stabilised exponential gating", ("xlstm.stabiliser",)),
    Statement("the sLSTM's normaliser state", ("xlstm.normaliser",), "rnnaudit's derivation"),
    Statement("the mLSTM's matrix memory and its normaliser", reason=_NOT_DONE),
    Statement("the mLSTM's stabilised gating", reason=_NOT_DONE),
    Statement("the paper's language-modelling results", reason="needs the paper's data sets and training runs"),
)
