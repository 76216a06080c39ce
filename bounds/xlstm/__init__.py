"""Claims of xLSTM's sLSTM (Beck, Pöppel, Spanring, Auer, Prudnikova, Kopp, Klambauer, Brandstetter & Hochreiter
2024, "xLSTM: Extended Long Short-Term Memory", arXiv 2405.04517), checked on :class:`rnnaudit.cells.SLSTM`.

======================== ===================================================================== ===============
claim id                 statement                                                             module
======================== ===================================================================== ===============
``xlstm.stabiliser``     the stabiliser m_t leaves h_t unchanged                               ``stabiliser``
``xlstm.normaliser``     n_t makes c_t/n_t a weighted mean of z_k, ‖h_t‖_∞ ≤ 1 (rnnaudit's)   ``normaliser``
``xlstm.mlstm_stabiliser`` the mLSTM's stabiliser leaves h_t unchanged (ε = 0)               ``mlstm_stabiliser``
======================== ===================================================================== ===============

What was read: the sLSTM equations as the ``xlstm`` package's vanilla backend computes them
(``slstm_forward_pointwise``, which the cell reproduces to 1.1e-16 in h), and the issue's paraphrase of the
stabilised gating; the paper's own text was not searched within this session's time, so no equation number is given
and no constant is quoted. The mLSTM as the package's recurrent step computes it (recurrent_step_stabilized_simple,
reproduced to 2.2e-16 with its ε = 1e-6); that ε breaks the stabiliser's invariance (the Reading of
``xlstm.mlstm_stabiliser``). The sLSTM claims are checked with the stabiliser started at m_0 = −∞ (an empty
memory, ``SLSTM(stabiliser_start="empty")``); the package's m_0 = 0 is a Reading of each that fails in float64
where the first forget gate is far above the first input gate (bounds/xlstm/stabiliser.py).
Section and equation numbers are not given where the paper's text was not read.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.xlstm.mlstm_stabiliser import mlstm_stabiliser
from rnnaudit.bounds.xlstm.normaliser import normaliser
from rnnaudit.bounds.xlstm.stabiliser import stabiliser

__all__ = ["CLAIMS", "COVERAGE", "stabiliser", "normaliser", "mlstm_stabiliser"]

CLAIMS = (stabiliser, normaliser, mlstm_stabiliser)

_NOT_READ = "the paper's wording was not read; not guessed"

COVERAGE = (
    Statement("the sLSTM's stabilised exponential gating", ("xlstm.stabiliser",),
              "holds from m_0 = −∞; the package's m_0 = 0 is a Reading with its own verdict (fails in float64)"),
    Statement("the sLSTM's normaliser state", ("xlstm.normaliser",), "rnnaudit's derivation"),
    Statement("the mLSTM's matrix memory and its normaliser max(|nᵀq|, 1)", ("xlstm.mlstm_stabiliser",),
              "as the package's recurrent step computes it; " + _NOT_READ),
    Statement("the mLSTM's stabilised gating", ("xlstm.mlstm_stabiliser",),
              "holds with ε = 0; the package's ε = 1e-6 is a Reading with its own verdict"),
    Statement("the paper's language-modelling results", reason="needs the paper's data sets and training runs"),
)
