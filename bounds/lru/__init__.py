"""Claims of the Linear Recurrent Unit (Orvieto, Smith, Gu, Fernando, Gulcehre, Pascanu & De 2023, "Resurrecting
Recurrent Neural Networks for Long Sequences", arXiv 2303.06349), checked on :class:`rnnaudit.cells.LRU`.

===================== ================================================================= ================
claim id              statement                                                         module
===================== ================================================================= ================
``lru.stability``     |exp(−exp(ν^log) + i exp(θ^log))| < 1 for every real ν^log        ``stability``
``lru.lemma_ring``    the ring initialisation is uniform on {r_min ≤ |z| ≤ r_max}       ``lemma_ring``
``lru.forward_norm``  with γ = sqrt(1 − |λ|²): E‖x_k‖² ≤ E‖Bu‖² (rnnaudit's derivation)  ``forward_norm``
===================== ================================================================= ================

What was read (search tool, pages corpus, 2026-11-29): a converted full text of the paper exists
(huggingface.datasetlab.ai/papers/2303.06349.md), but the search returned only its opening (title, abstract,
introduction); queries with the lemma's wording ("u1, u2 be independent uniform random variables", "r_min r_max ring
uniformly distributed") and the proposition's ("forward pass blow-up expected squared norm") returned nothing of
the method sections. The statements are checked in the form the issue paraphrases and rnnaudit derives; no constant
of the paper is quoted, and where rnnaudit states one (the ring-averaged blow-up factor) it is derived and proved by
sympy here. The parametrisation, the ring map and γ follow the ``lru-pytorch`` package
(tests/cells/test_modern_conformance.py: outputs agree to 1.8e-15).
Section and equation numbers are not given where the paper's text was not read.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.lru.forward_norm import forward_norm
from rnnaudit.bounds.lru.lemma_ring import lemma_ring
from rnnaudit.bounds.lru.stability import stability

__all__ = ["CLAIMS", "COVERAGE", "stability", "lemma_ring", "forward_norm"]

CLAIMS = (stability, lemma_ring, forward_norm)

_NOT_READ = ("the paper's method sections were not readable through the search tool (only the abstract and "
             "introduction came back); not guessed")

COVERAGE = (
    Statement("the exponential parametrisation λ = exp(−exp(ν^log) + i exp(θ^log)) and stability",
              ("lru.stability",)),
    Statement("the lemma on ring initialisation (uniform on the ring between r_min and r_max)",
              ("lru.lemma_ring",)),
    Statement("the proposition on the forward pass at initialisation and the γ normalisation",
              ("lru.forward_norm",),
              "checked in rnnaudit's derived form (white noise, γ = sqrt(1 − |λ|²)); " + _NOT_READ),
    Statement("the linearisation and complex diagonalisation of the recurrence",
              reason="design statements (equivalence of a dense linear RNN and its diagonalised form up to a change of "
                     "basis); " + _NOT_READ),
    Statement("the Long Range Arena results", reason="needs the paper's data sets and training runs"),
)
