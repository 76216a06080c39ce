"""Claims of srnn.md (Shuffling RNN, Rotman & Wolf), one module per statement; all in Sec. 3.

================================ ====================================================== =================
claim id                         where in srnn.md                                       module
================================ ====================================================== =================
``srnn.eq4``                     eq. 4, 'Analysis of gradient dynamics': W_p orthogonal ``eq4``
``srnn.eq9``                     eq. 8–9 as printed, against autograd                   ``eq9``
``srnn.eq9.corrected``           eq. 8–9 with σ'(z_t) W_p, ∏ over the steps after i     ``eq9``
``srnn.eq10``                    eq. 10 as printed                                      ``eq10``
``srnn.eq10.corrected``          ‖∂h_t/∂b_k‖ ≤ Σ_i ‖∂b(x_i)/∂b_k‖                       ``eq10``
``srnn.eq11``                    eq. 11 as printed                                      ``eq11``
``srnn.eq11.corrected``          |∂L/∂b_k| ≤ Σ_t ‖∂L/∂h_t‖ Σ_{i≤t} ‖∂b(x_i)/∂b_k‖       ``eq11``
``srnn.table1``                  Table 1, 'Time complexity': cost linear in d_h         ``table1``
``srnn.gamblers_ruin``           Gambler's ruin after eq. 11, as printed                ``gamblers_ruin``
``srnn.gamblers_ruin.corrected`` E[steps until vanishing | vanish] = (2T+1)/3           ``gamblers_ruin``
================================ ====================================================== =================

Shared cases (the SRNN sequence of eq. 8–11) and the Jacobians they measure: ``cases``.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.srnn.eq4 import eq4
from rnnaudit.bounds.srnn.eq9 import eq9, eq9_corrected
from rnnaudit.bounds.srnn.eq10 import eq10, eq10_corrected
from rnnaudit.bounds.srnn.eq11 import eq11, eq11_corrected
from rnnaudit.bounds.srnn.gamblers_ruin import gamblers_ruin, gamblers_ruin_corrected
from rnnaudit.bounds.srnn.table1 import table1

__all__ = ["CLAIMS", "COVERAGE", "eq4", "eq9", "eq9_corrected", "eq10", "eq10_corrected", "eq11", "eq11_corrected",
           "table1", "gamblers_ruin", "gamblers_ruin_corrected"]

#: The claims in the order the paper states them (Table 1 is printed inside the Gambler's-ruin
#: paragraph, before the estimate itself).
CLAIMS = (eq4, eq9, eq9_corrected, eq10, eq10_corrected, eq11, eq11_corrected, table1, gamblers_ruin,
          gamblers_ruin_corrected)

#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    Statement('eq. (4)', ('srnn.eq4',)),
    Statement('eq. (8)', ('srnn.eq9', 'srnn.eq9.corrected')),
    Statement('eq. (9)', ('srnn.eq9', 'srnn.eq9.corrected')),
    Statement('eq. (10)', ('srnn.eq10', 'srnn.eq10.corrected')),
    Statement('eq. (11)', ('srnn.eq11', 'srnn.eq11.corrected')),
    Statement('Table 1', ('srnn.table1',)),
    Statement("Sec. 3, Gambler's Ruin", ('srnn.gamblers_ruin', 'srnn.gamblers_ruin.corrected')),
)
