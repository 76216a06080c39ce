"""Claims of the echo state property's classic conditions: Jaeger 2001 (GMD Report 148, sufficient σ_max(W) < 1,
necessary ρ(W) < 1 for zero input) and Yildiz, Jaeger & Kiebel 2012 ("Re-visiting the echo state property",
Neural Networks 35).

============================ ============================================================== ==============
claim id                     statement                                                      module
============================ ============================================================== ==============
``echo_state.sufficient``    σ_max(W) < 1 ⇒ ESP (tanh; relu, torch's nn.RNN every layer,    ``sufficient``
                             IndRNN by extension)
``echo_state.necessary``     zero input: ρ(W) > 1 ⇒ no ESP (the zero state is unstable)     ``necessary``
``echo_state.rho_sufficient`` ρ(W) < 1 ⇒ ESP, the criterion Yildiz et al. 2012 refute: false ``rho_sufficient``
============================ ============================================================== ==============

What was read (search tool, pages corpus): Jaeger's report was not found; of Yildiz et al. 2012 the abstract is
readable (the MPG publication record, pure.mpg.de, and a preprint copy on scribd whose first page only came back):
ρ(W) < 1 'is not sufficient' for the ESP, shown by 'analytical examples' from 'local bifurcation properties';
'new sufficient conditions for the echo state property of standard sigmoid and leaky integrator ESNs'; 'an
improved technical definition' of the ESP. Their examples, conditions and definition themselves were not
readable (queries tried: the title with 'abstract spectral radius not sufficient'; 'period-doubling bifurcation
two neuron example spectral radius less than one zero input fixed point unstable'). The conditions of Jaeger 2001
are the standard statements (the issue's paraphrase), checked here.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.echo_state.necessary import necessary
from rnnaudit.bounds.echo_state.rho_sufficient import rho_sufficient
from rnnaudit.bounds.echo_state.sufficient import sufficient

__all__ = ["CLAIMS", "COVERAGE", "sufficient", "necessary", "rho_sufficient"]

CLAIMS = (sufficient, necessary, rho_sufficient)

_NOT_READ = ("the statement itself could not be read here (only the abstract names it); not guessed. Tried: the search "
             "tool's pages corpus with the title and with the terms of the condition")

COVERAGE = (
    Statement("Jaeger 2001, definition of the echo state property", ("echo_state.sufficient",),
              "checked through the convergence of two trajectories of the same input"),
    Statement("Jaeger 2001, sufficient condition σ_max(W) < 1", ("echo_state.sufficient",)),
    Statement("Jaeger 2001, the necessary condition for zero input, in the form checked: ρ(W) > 1 rules out the ESP",
              ("echo_state.necessary",),
              "Decision: the paraphrase 'ρ(W) < 1 is necessary' would also exclude ρ(W) = 1, which it should not: the "
              "scalar reservoir x(n + 1) = tanh(x(n)) (W = 1, ρ = 1, zero input) has the ESP, every trajectory "
              "tends to 0 since |tanh x| < |x| for x ≠ 0; the check covers ρ(W) > 1, where the condition bites"),
    Statement("Jaeger 2001, the recipe: scale a random W to ρ(W) slightly below 1", ("echo_state.rho_sufficient",),
              "a design recipe; that ρ(W) < 1 alone does not give the ESP is Yildiz et al.'s point, checked by "
              "echo_state.rho_sufficient"),
    Statement("Yildiz, Jaeger & Kiebel 2012, abstract: ρ(W) < 1 is not sufficient for the ESP",
              ("echo_state.rho_sufficient",),
              "read in the abstract (pure.mpg.de record; preprint copy); their analytical examples were not readable, "
              "so rnnaudit exhibits its own: the criterion 'ρ(W) < 1 ⇒ ESP' comes out false on a 2-unit tanh "
              "reservoir with ρ(W) = 0.9 and two more stable fixed points (Yildiz et al.'s statement is confirmed)"),
    Statement("Yildiz, Jaeger & Kiebel 2012, abstract: new sufficient conditions for the ESP of standard sigmoid and "
              "leaky-integrator ESNs", reason=_NOT_READ),
    Statement("Yildiz, Jaeger & Kiebel 2012, abstract: an improved technical definition of the ESP", reason=_NOT_READ),
    Statement("Yildiz, Jaeger & Kiebel 2012, abstract: what practitioners should (and should not) observe when they "
              "optimise reservoirs", reason="advice, not a statement; its content was not readable here"),
)
