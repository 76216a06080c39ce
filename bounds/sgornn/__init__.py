"""Claims of sgornn.md (SGORNN, with FastRNN and VPRNN), one module per statement.

=========================== ============================================== ======================
claim id                    where in sgornn.md                             module
=========================== ============================================== ======================
``sgornn.eq3``              Sec. 2, eq. 3: β ≤ 1 − 2α by clipping          ``eq3``
``sgornn.theorem1``         Theorem 1, eq. 6 (proof A.1, eq. 16–23)        ``theorem1``
``sgornn.theorem2``         Theorem 2, eq. 7–8 (proof A.2, eq. 25–33)      ``theorem2``
``sgornn.corollary1``       Corollary 1, eq. 9 (A.3, eq. 34–36)            ``corollary1``
``sgornn.hidden_state``     A.2, ‖h_t‖₂ ≤ αT R_W R_x                       ``hidden_state``
``sgornn.eq31``             A.2, eq. 31, ‖X‖₁,₁ ≤ √h‖X‖_F ≤ h‖X‖₂          ``eq31``
``sgornn.eq31.corrected``   the repaired step through ‖G‖_*                ``eq31``
``sgornn.eq34``             A.3, eq. 34, φ is 2⌈log₂h⌉-Lipschitz           ``eq34``
=========================== ============================================== ======================

FastRNN's eq. 4 is an assumption, not a claim: :func:`~rnnaudit.bounds.sgornn.eq4.fastrnn_eq4_assumption`
(module ``eq4``). Shared cases and assumptions: ``cases``.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.sgornn.corollary1 import corollary1
from rnnaudit.bounds.sgornn.eq3 import eq3
from rnnaudit.bounds.sgornn.eq4 import fastrnn_eq4_assumption, fastrnn_eq4_limit
from rnnaudit.bounds.sgornn.eq31 import eq31, eq31_corrected
from rnnaudit.bounds.sgornn.eq34 import eq34
from rnnaudit.bounds.sgornn.hidden_state import hidden_state
from rnnaudit.bounds.sgornn.theorem1 import theorem1
from rnnaudit.bounds.sgornn.theorem2 import theorem2

__all__ = ["CLAIMS", "COVERAGE", "eq3", "theorem1", "theorem2", "corollary1", "hidden_state", "eq31",
           "eq31_corrected", "eq34", "fastrnn_eq4_assumption", "fastrnn_eq4_limit"]

#: The claims in the order the paper states them.
CLAIMS = (eq3, theorem1, theorem2, corollary1, hidden_state, eq31, eq31_corrected, eq34)

#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    Statement('eq. (3)', ('sgornn.eq3',)),
    Statement('Theorem 1', ('sgornn.theorem1',)),
    Statement('Theorem 2', ('sgornn.theorem2', 'sgornn.hidden_state')),
    Statement('Corollary 1', ('sgornn.corollary1',)),
    Statement('eq. (31)', ('sgornn.eq31', 'sgornn.eq31.corrected')),
    Statement('eq. (34)', ('sgornn.eq34',)),
)
