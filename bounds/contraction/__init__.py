"""Contraction certificates a trained model can meet: weighted non-Euclidean (ℓ∞) norms and gate bounds taken
over the range the gates can reach or the data visit, instead of ‖W‖₂ < 1.

============================== ================================================================ =================
claim id                       statement                                                        module
============================== ================================================================ =================
``contraction.weighted_inf``   ρ(|W|) < 1 (a diagonal weight η with ‖|W|‖_∞,η < 1) ⇒ the vanilla ``weighted_inf``
                               RNN contracts in ‖·‖_∞,η (tanh, relu, torch's nn.RNN every
                               layer, IndRNN)
``contraction.gated_box``      certified rate < 1 on the forward-invariant box ⇒ contraction    ``gated_box``
                               (tanh RNN, GRU, LSTM)
``contraction.data_box``       certified rate < 1 on the box the data reach ⇒ every step        ``data_box``
                               contracts there (‖J‖_∞,η ≤ c, ‖J‖₂ ≤ ‖M‖₂)
============================== ================================================================ =================

These are sufficient conditions only. A certificate that holds proves contraction (in the weighted norm it
names, at the rate it names, on the region it names); one that fails says nothing: the model may contract or
not. The engine is :mod:`rnnaudit.analysis.contraction` (interval bounds, the Perron weight).

What was read, through the search tool (pages corpus), and where:

- Davydov, Proskurnikov & Bullo, arXiv 2110.08298 (arxiv.org/html/2110.08298v5; the IEEE TAC record at
  iris.polito.it/handle/11583/2996521): the abstract only. The weighted ℓ∞ argument here is rnnaudit's own
  discrete-time counterpart; their continuous-time theorems were not readable (queries tried: the title;
  "firing-rate ... slope-restricted [0,1] strongly infinitesimally contracting ... ℓ∞ ... Metzler majorant").
- Bonassi, Farina & Scattolini 2021, "On the stability properties of Gated Recurrent Units neural networks"
  (Systems & Control Letters; ar5iv.labs.arxiv.org/html/2011.06806): the abstract and introduction only; the δISS
  condition itself was not readable (queries tried: the title with "δISS condition"; the condition's terms
  "‖U_r‖∞ σ̄_z ... 1/4 inequality").
- Terzi, Bonassi, Farina & Scattolini 2021, "Learning model predictive control with long short-term memory
  networks" (IJRNC): the abstract only (latex-in-arxiv.com, staging.scite.ai); the δISS condition was not
  readable (query: "LSTM δISS condition ρ(A_δ) < 1 σ̄_f σ̄_i σ̄_o ‖U_c‖∞").
- De Carli et al., "Infinity-norm-based Input-to-State-Stable Long Short-Term Memory networks", arXiv 2503.11553
  (arxiv.org/html/2503.11553v2): the abstract and introduction only; the ISS∞ condition was not readable. A
  public MATLAB training loss of an "iss-promoted LSTM" (found by the code search, repository not named by the
  tool) computes σ(max|[W_f ū, R_f, b_f]|) + σ(max|[W_i ū, R_i, b_i]|)·max|R_g| < 1 with entrywise maxima; it is not
  the paper's text, so it is recorded here and not checked.

So no constant of the δISS/ISS papers is used; the gated certificates are rnnaudit's own, with their proofs in
their modules.
"""

from rnnaudit.bounds.contraction.data_box import data_box
from rnnaudit.bounds.contraction.gated_box import gated_box
from rnnaudit.bounds.contraction.weighted_inf import weighted_inf
from rnnaudit.bounds.core import Statement

__all__ = ["CLAIMS", "COVERAGE", "weighted_inf", "gated_box", "data_box"]

CLAIMS = (weighted_inf, gated_box, data_box)

_NOT_READ = ("the condition itself could not be read here (only the abstract and introduction); not guessed, and "
             "no constant of it is used. rnnaudit's own certificate contraction.gated_box covers the same cells")

COVERAGE = (
    Statement("Davydov, Proskurnikov & Bullo, abstract: contractivity of firing-rate networks in weighted ℓ1/ℓ∞ norms, "
              "the weight from a linear program or a Metzler matrix, with the optimal rate",
              ("contraction.weighted_inf",),
              "their theorems are about continuous time and were not readable; checked in rnnaudit's discrete-time "
              "form (‖|W|‖_∞,η < 1 with η the Perron weight, which attains min over η = ρ(|W|))"),
    Statement("rnnaudit: contraction of a tanh RNN, GRU or LSTM on its forward-invariant box, gates bounded by their "
              "reachable range", ("contraction.gated_box",)),
    Statement("rnnaudit: a bound on ‖∂s_t/∂s_(t−1)‖ over the box of states and inputs the data reach",
              ("contraction.data_box",)),
    Statement("Bonassi, Farina & Scattolini 2021, the δISS condition for single- and multi-layer GRUs", reason=_NOT_READ),
    Statement("Terzi, Bonassi, Farina & Scattolini 2021, the δISS condition for LSTMs", reason=_NOT_READ),
    Statement("De Carli et al. 2025 (arXiv 2503.11553), the ISS∞ condition for LSTMs", reason=_NOT_READ),
)
