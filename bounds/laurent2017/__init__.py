"""Claims of Laurent & von Brecht 2017, "A recurrent neural network without chaos" (ICLR; arXiv 1612.06212).

======================================== =============================================== ==========================
claim id                                 statement                                       module
======================================== =============================================== ==========================
``laurent2017.chaotic_lstm``             an LSTM can be chaotic with zero input (λ₁ > 0) ``chaotic_lstm``
``laurent2017.chaotic_gru``              a GRU can be chaotic with zero input (λ₁ > 0)   ``chaotic_gru``
``laurent2017.cfn_zero_input``           the CFN's units decay with zero input           ``cfn_zero_input``
``laurent2017.no_chaos.general``         any cell: contraction ⇒ λ₁ ≤ log η < 0          ``no_chaos_general``
``laurent2017.chaos_explodes.general``   any cell: λ₁ > 0 ⇒ ‖∂h_T/∂h_0‖₂ ≥ e^(Tλ₁)       ``chaos_explodes_general``
======================================== =============================================== ==========================

What was read: the CFN's equations from implementations citing the paper; the paper's own text (its
propositions, their numbering, the printed chaotic example's weights) was not readable here.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.laurent2017.cfn_zero_input import cfn_zero_input
from rnnaudit.bounds.laurent2017.chaos_explodes_general import chaos_explodes_general
from rnnaudit.bounds.laurent2017.chaotic_gru import chaotic_gru
from rnnaudit.bounds.laurent2017.chaotic_lstm import chaotic_lstm
from rnnaudit.bounds.laurent2017.no_chaos_general import no_chaos_general

__all__ = ["CLAIMS", "COVERAGE", "chaotic_lstm", "chaotic_gru", "cfn_zero_input", "no_chaos_general",
           "chaos_explodes_general"]

CLAIMS = (chaotic_lstm, chaotic_gru, cfn_zero_input, no_chaos_general, chaos_explodes_general)

_NOT_READ = "the paper's wording and constants could not be read here; not guessed"

COVERAGE = (
    Statement("Sec. 2, LSTM/GRU with zero input can be chaotic (the paper's example and its attractor)",
              ("laurent2017.chaotic_lstm", "laurent2017.chaotic_gru"),
              "checked on rnnaudit's own examples; the paper's printed weights were not read"),
    Statement("Sec. 3, the CFN's definition", ("laurent2017.cfn_zero_input",)),
    Statement("Sec. 3, the CFN with zero input converges to the zero state (its only attractor)",
              ("laurent2017.cfn_zero_input",)),
    Statement("The contrast between contracting (CFN) and chaotic (LSTM, GRU) dynamics, for any cell on given data",
              ("laurent2017.no_chaos.general", "laurent2017.chaos_explodes.general"),
              "rnnaudit's extensions: contraction excludes chaos; chaos makes gradients explode"),
    Statement("Sec. 3, the CFN's decay rates after the input stops, and the slower decay of higher layers",
              reason=_NOT_READ + ". Tried (search tool, pages corpus, re-run for the index): 'Laurent von Brecht A "
                                 "recurrent neural network without chaos chaotic-free network CFN proposition zero "
                                 "input attractor': no copy of the paper came back"),
    Statement("Sec. 4 (experiments: word-level language modelling on Penn Treebank and Text8)",
              reason="an empirical result of the paper's training runs"),
)
