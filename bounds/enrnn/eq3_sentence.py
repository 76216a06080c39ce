"""enrnn.md, Sec. 3, the sentence after eq. 3: "with the coupling block, h^(L)_t is determined from the current input,
the short-term hidden state h^(S)_t and h^(L)_t".

As printed, h^(L)_t would take W^(C)h^(S)_t, the short-term state of the same step, which is not eq. 3 (and
"from h^(L)_t" is circular); eq. 3, two lines above, uses h^(S)_{t−1} and h^(L)_{t−1}: the sentence's subscripts
are an index slip, and read as t − 1 it states eq. 3.
"""

from __future__ import annotations

from rnnaudit.bounds.core import Claim, Reading
from rnnaudit.bounds.enrnn.cases import A_UPPER
from rnnaudit.bounds.enrnn.eq3 import _EQ3_CASES, _measure

__all__ = ["eq3_sentence"]

eq3_sentence = Claim(
    id="enrnn.eq3_sentence",
    source="enrnn.md, Sec. 3, the sentence after eq. 3 (h^(L)_t 'is determined from the current input, the "
           "short-term hidden state h^(S)_t and h^(L)_t')",
    statement="With the coupling block W^(C), h^(L)_t is computed from x_t, h^(S)_t and h^(L) (the short-term state of "
              "the same step t), and this is the forward pass of the RNN with W of eq. 2",
    assumptions=(A_UPPER,),
    measure="eq. 3 line by line with W^(C)h^(S)_t in place of W^(C)h^(S)_{t−1}, against h_t = σ(Ux_t + Wh_{t−1} + b) "
            "with the dense W (cells.enrnn_recurrence)",
    bound="EQ3_RTOL·(1 + the largest sum of |terms|), as enrnn.eq3",
    evaluate=lambda c: _measure(c, current_short=True),
    cases=_EQ3_CASES,
    explanation="The recurrence with W of eq. 2 feeds the previous short-term state: h_t = σ(Ux_t + Wh_{t−1} + b) "
                "gives W^(C)h^(S)_{t−1} in the long-term line (eq. 3 itself). With h^(S)_t the long-term state "
                "differs wherever W^(C) ≠ 0 and h^(S) changes between steps.",
    notes="The sentence's 'h^(L)_t' among the inputs of h^(L)_t is read as the previous long-term state; the check "
          "is about the short-term state's index, the one that changes the computation.",
    readings=(Reading("h_t read as h_{t−1} (an index slip)",
                      "h^(L)_t is determined from x_t, h^(S)_{t−1} and h^(L)_{t−1}",
                      "eq. 3, two lines above the sentence, writes W^(L)h^(L)_{t−1} + W^(C)h^(S)_{t−1}", _measure),),
)
