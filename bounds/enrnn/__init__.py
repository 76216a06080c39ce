"""Claims of enrnn.md (Eigenvalue-Normalized RNN, Helfrich & Ye), one module per statement.

================================== ======================================================= ====================
claim id                           where in enrnn.md                                       module
================================== ======================================================= ====================
``enrnn.transient``                Sec. 2: transient amplification via the pseudospectrum  ``transient``
``enrnn.coupling``                 Sec. 3, remark after eq. 3: W of eq. 2 is block upper   ``coupling``
                                   triangular, so ρ(W) = max(ρ(W^(L)), ρ(W^(S))) ≤ 1
``enrnn.theorem3.1``               Theorem 3.1 (proof in Sec. 8.1)                         ``theorem3_1``
``enrnn.proposition3.2``           Proposition 3.2 as printed (proof in Sec. 8.2)          ``proposition3_2``
``enrnn.proposition3.2.corrected`` the same with the inner factor 1/ρ(T), for ε ≥ 0        ``proposition3_2``
``enrnn.eq5``                      Sec. 4, eq. 5: eigenvalues "uniformly distributed on    ``eq5``
                                   the complex unit disc" (false: |λ| ~ U[0, 1])
``enrnn.eq5.corrected``            eq. 5's own distribution of γ_j, t_j, |λ| and arg λ     ``eq5``
================================== ======================================================= ====================

Shared cases (:class:`~rnnaudit.bounds.enrnn.cases.ENRNNCase`, random ENRNN cells, the assumption
that W is block upper triangular): ``cases``.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.enrnn.coupling import coupling
from rnnaudit.bounds.enrnn.eq5 import eq5, eq5_corrected
from rnnaudit.bounds.enrnn.proposition3_2 import proposition3_2, proposition3_2_corrected
from rnnaudit.bounds.enrnn.theorem3_1 import theorem3_1
from rnnaudit.bounds.enrnn.transient import transient

__all__ = ["CLAIMS", "COVERAGE", "transient", "coupling", "theorem3_1", "proposition3_2", "proposition3_2_corrected",
           "eq5", "eq5_corrected"]

#: The claims in the order the paper states them.
CLAIMS = (transient, coupling, theorem3_1, proposition3_2, proposition3_2_corrected, eq5, eq5_corrected)

#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    Statement('Sec. 2', ('enrnn.transient',)),
    Statement('eq. (2)', ('enrnn.coupling',)),
    Statement('Theorem 3.1', ('enrnn.theorem3.1',)),
    Statement('Proposition 3.2', ('enrnn.proposition3.2', 'enrnn.proposition3.2.corrected')),
    Statement('eq. (5)', ('enrnn.eq5', 'enrnn.eq5.corrected')),
)
