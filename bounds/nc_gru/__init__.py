"""Claims of nc_gru.md (GRU gradient analysis, NC-GRU, Neumann-Cayley update), one module per statement.

================================= ========================================================= ===============
claim id                          where in nc_gru.md                                        module
================================= ========================================================= ===============
``nc_gru.eq5``                    Sec. 2.2, eq. 5–6: the scaled Cayley gradient Vᵀ − V       ``eq5``
``nc_gru.theorem1``               Theorem 1, eq. 8–12 (proof SM 7, eq. 23–45), max_i [h]_i   ``theorem1``
``nc_gru.theorem1.corrected``     the same with max_i |h_i|, max_i |c_i| (eq. 41)            ``theorem1``
``nc_gru.corollary1``             Corollary 1, eq. 13 (proof eq. 46–58), printed α, β        ``corollary1``
``nc_gru.corollary1.corrected``   |[h_t]_i|, |[c_t]_i| ≤ 1 and eq. 13 for the |·| α, β       ``corollary1``
``nc_gru.corollary2``             Corollary 2, eq. 14–15 (proof eq. 59–64), ≲ as ≤ y(1 + ε)  ``corollary2``
``nc_gru.corollary2.corrected``   eq. 14–15 with the error term ε(1 − ε)[…] written out      ``corollary2``
``nc_gru.eq18``                   Sec. 3.2, eq. 16–18: Neumann series, order-p error         ``eq18``
``nc_gru.eq18.corrected``         Algorithm 1 as run (stored Ã in line 7): residual          ``eq18``
                                  recursion
``nc_gru.corollary3``             Corollary 3, eq. 21–22 (proof eq. 65–68), NC-GRU, eq. 19   ``corollary3``
``nc_gru.corollary3.corrected``   eq. 21–22 for every NC-GRU variant, norms explicit         ``corollary3``
================================= ========================================================= ===============

Shared GRU cases, samplers and assumptions of the gate claims (Theorem 1, Corollaries 1–3): ``cases``.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.nc_gru.corollary1 import corollary1, corollary1_corrected
from rnnaudit.bounds.nc_gru.corollary2 import corollary2, corollary2_corrected
from rnnaudit.bounds.nc_gru.corollary3 import corollary3, corollary3_corrected
from rnnaudit.bounds.nc_gru.eq5 import eq5
from rnnaudit.bounds.nc_gru.eq18 import eq18, eq18_corrected
from rnnaudit.bounds.nc_gru.theorem1 import theorem1, theorem1_corrected

__all__ = ["CLAIMS", "COVERAGE", "eq5", "theorem1", "theorem1_corrected", "corollary1", "corollary1_corrected",
           "corollary2", "corollary2_corrected", "eq18", "eq18_corrected", "corollary3", "corollary3_corrected"]

#: The claims in the order the paper states them.
CLAIMS = (eq5, theorem1, theorem1_corrected, corollary1, corollary1_corrected, corollary2, corollary2_corrected,
          eq18, eq18_corrected, corollary3, corollary3_corrected)

#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    Statement('eq. (5)', ('nc_gru.eq5',)),
    Statement('eq. (6)', ('nc_gru.eq5',)),
    Statement('Theorem 1', ('nc_gru.theorem1', 'nc_gru.theorem1.corrected')),
    Statement('Corollary 1', ('nc_gru.corollary1', 'nc_gru.corollary1.corrected')),
    Statement('Corollary 2', ('nc_gru.corollary2', 'nc_gru.corollary2.corrected')),
    Statement('eq. (18)', ('nc_gru.eq18', 'nc_gru.eq18.corrected')),
    Statement('Algorithm 1', ('nc_gru.eq18.corrected',)),
    Statement('Corollary 3', ('nc_gru.corollary3', 'nc_gru.corollary3.corrected')),
)
