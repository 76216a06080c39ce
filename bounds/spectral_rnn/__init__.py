"""Claims of spectral_rnn.md (Spectral-RNN, Zhang, Lei & Dhillon 2018), one module per statement.

======================================== ==================================================== ===============
claim id                                 where in spectral_rnn.md                             module
======================================== ==================================================== ===============
``spectral_rnn.theorem1``                Theorem 1 (App. A.1 Proposition 1, A.2): M_1 = O(n)  ``theorem1``
``spectral_rnn.theorem2``                Theorem 2 (App. A.3): M_{1,1} reaches all of ℝ^{n×n}   ``theorem2``
``spectral_rnn.theorem3``                Theorem 3 (App. A.4, eq. 18–21): O(n) ⊆ M_{k1,k2}    ``theorem3``
``spectral_rnn.eq7``                     Sec. 4, eq. 6–7: singular values in [σ* − r, σ* + r] ``eq7``
``spectral_rnn.param_count``             Sec. 4 parameter count, Tables 2 and 4 (App. C.1)    ``param_count``
``spectral_rnn.param_count.corrected``   the same with m1 = m2 = 16 for Table 4               ``param_count``
``spectral_rnn.eq13``                    Sec. 4.1 eq. 12–13, Algorithms 1 and 3 as printed    ``eq13``
``spectral_rnn.eq13.corrected``          Algorithm 3 with α from the reflector input,         ``eq13``
                                         Algorithm 1 with Hgrad on the reflector input
``spectral_rnn.table1``                  Sec. 4.2, Table 1: flop counts                       ``table1``
``spectral_rnn.table1.corrected``        rows 3–6 as sums of Table 1's Hprod/Hgrad rows       ``table1``
``spectral_rnn.theorem4``                Theorem 4 with Lemma 1 (Sec. 5, App. A.5): M^{m,n}   ``theorem4``
``spectral_rnn.theorem5``                Theorem 5, Corollary 1 (Sec. 6, App. A.6)            ``theorem5``
``spectral_rnn.lemma3``                  Lemma 3 (App. A.6): eq. 22 (both readings), eq. 25   ``lemma3``
                                         and the output perturbation
``spectral_rnn.eq24``                    App. A.6, eq. 24: ‖h^(t)‖ ≤ B‖M‖ t max{‖W‖^{t−1}, 1} ``eq24``
======================================== ==================================================== ===============

Expressivity theorems are checked constructively: the Householder vectors the proofs promise are
computed (Proposition 1 for Theorem 1, with the SVD for Theorems 2 and 4, eq. 18/20 for Theorem 3),
the matrix is rebuilt by ``torch.linalg.householder_product`` (``cells.spectral.reflector_product``)
and by the reflector recurrence of Algorithm 1 (``cells.spectral.householder_forward``), and the
measured quantity is the reconstruction error against a rounding-error tolerance.

Shared: ``cases`` (case classes, samplers, Assumption 1, eq. 17's states), ``reflectors``
(Proposition 1 and the SVD reflectors, rebuilding, the reconstruction tolerance) and ``flops``
(the dispatch-level flop counter behind Table 1).
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.spectral_rnn.eq7 import eq7
from rnnaudit.bounds.spectral_rnn.algorithm1 import algorithm1, algorithm1_corrected
from rnnaudit.bounds.spectral_rnn.algorithm3 import algorithm3, algorithm3_corrected
from rnnaudit.bounds.spectral_rnn.eq13 import eq13
from rnnaudit.bounds.spectral_rnn.eq24 import eq24
from rnnaudit.bounds.spectral_rnn.lemma3 import lemma3
from rnnaudit.bounds.spectral_rnn.param_count import param_count, param_count_corrected
from rnnaudit.bounds.spectral_rnn.table1 import table1, table1_corrected
from rnnaudit.bounds.spectral_rnn.theorem1 import theorem1
from rnnaudit.bounds.spectral_rnn.theorem2 import theorem2
from rnnaudit.bounds.spectral_rnn.theorem3 import theorem3
from rnnaudit.bounds.spectral_rnn.theorem4 import theorem4
from rnnaudit.bounds.spectral_rnn.theorem5 import theorem5

__all__ = ["CLAIMS", "COVERAGE", "theorem1", "theorem2", "theorem3", "eq7", "param_count", "param_count_corrected",
           "eq13", "algorithm3", "algorithm3_corrected", "algorithm1", "algorithm1_corrected", "table1", "table1_corrected", "theorem4", "theorem5", "lemma3", "eq24"]

#: The claims in the order the paper states them.
CLAIMS = (theorem1, theorem2, theorem3, eq7, param_count, param_count_corrected, eq13, algorithm3, algorithm3_corrected,
          algorithm1, algorithm1_corrected, table1,
          table1_corrected, theorem4, theorem5, lemma3, eq24)

#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    Statement('Theorem 1', ('spectral_rnn.theorem1',)),
    Statement('Proposition 1', ('spectral_rnn.theorem1',)),
    Statement('Theorem 2', ('spectral_rnn.theorem2',)),
    Statement('Theorem 3', ('spectral_rnn.theorem3',)),
    Statement('eq. (18)', ('spectral_rnn.theorem3',)),
    Statement('eq. (20)', ('spectral_rnn.theorem3',)),
    Statement('eq. (6)', ('spectral_rnn.eq7',)),
    Statement('eq. (7)', ('spectral_rnn.eq7',)),
    Statement('Table 2', ('spectral_rnn.param_count', 'spectral_rnn.param_count.corrected')),
    Statement('Table 4', ('spectral_rnn.param_count', 'spectral_rnn.param_count.corrected')),
    Statement('eq. (12)', ('spectral_rnn.eq13', 'spectral_rnn.eq13.corrected')),
    Statement('eq. (13)', ('spectral_rnn.eq13', 'spectral_rnn.eq13.corrected')),
    Statement('Algorithm 1', ('spectral_rnn.eq13', 'spectral_rnn.eq13.corrected')),
    Statement('Algorithm 3', ('spectral_rnn.eq13', 'spectral_rnn.eq13.corrected')),
    Statement('Table 1', ('spectral_rnn.table1', 'spectral_rnn.table1.corrected')),
    Statement('Theorem 4', ('spectral_rnn.theorem4',)),
    Statement('Lemma 1', ('spectral_rnn.theorem4',)),
    Statement('Theorem 5', ('spectral_rnn.theorem5',)),
    Statement('Corollary 1', ('spectral_rnn.theorem5',)),
    Statement('Lemma 3', ('spectral_rnn.lemma3',)),
    Statement('eq. (22)', ('spectral_rnn.lemma3',)),
    Statement('eq. (25)', ('spectral_rnn.lemma3',)),
    Statement('eq. (24)', ('spectral_rnn.eq24',)),
)
