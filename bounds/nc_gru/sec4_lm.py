"""nc_gru.md, Sec. 4.5–4.7 (character and word level Penn TreeBank, WikiText-2), the Results sentences against
Tables 5–7, and the abstract's summary against Tables 1–7 (all hold)."""

from __future__ import annotations

from rnnaudit.bounds.core import Claim, Reading
from rnnaudit.bounds.nc_gru.sec4_1 import A_PRINTED
from rnnaudit.bounds.nc_gru.tables import (NC_UC, NC_URUC, TABLE_CASES, Comparison, comparison_parts, exact_comparisons,
                                           value)

__all__ = ["sec4_lm", "SEC4_LM", "ABSTRACT_URUC"]

_SYNTHETIC = (("Table 1", "T = 100"), ("Table 1", "T = 200"), ("Table 2", "T = 200"), ("Table 2", "T = 400"),
              ("Table 3", "T = 200"), ("Table 3", "T = 400"), ("Table 4", "T = 1000"), ("Table 4", "T = 2000"))

#: Sec. 4.5–4.7's comparisons, and the abstract's "NC-GRU significantly outperforms GRU" read for the better of the
#: two NC-GRU models in each column (the only one in Tables 5–7).
SEC4_LM = (
    Comparison("Sec. 4.5: NC-GRU outperformed scoRNN, GRU, and even LSTM (bpc)", "Table 5", "bpc", NC_UC,
               ("LSTM", "GRU", "scoRNN")),
    Comparison("Sec. 4.6: improved performance over both baseline GRU and LSTM (PPL)", "Table 6", "PPL", NC_UC,
               ("LSTM", "GRU", "GRU (authors' runs)")),
    Comparison("Sec. 4.7: outperforms scoRNN and GRU by a significant margin (PPL)", "Table 7", "PPL", NC_UC,
               ("GRU", "scoRNN")),
    Comparison("Sec. 4.7: the LSTM model seems to be better suited (PPL)", "Table 7", "PPL", "LSTM", (NC_UC,)),
    Comparison("Abstract: NC-GRU outperforms GRU (Table 5)", "Table 5", "bpc", NC_UC, ("GRU",)),
    Comparison("Abstract: NC-GRU outperforms GRU (Table 6)", "Table 6", "PPL", NC_UC, ("GRU", "GRU (authors' runs)")),
    Comparison("Abstract: NC-GRU outperforms GRU (Table 7)", "Table 7", "PPL", NC_UC, ("GRU",)),
) + tuple(Comparison(f"Abstract: the better NC-GRU outperforms GRU ({tab}, {T})", tab, T,
                     min((NC_UC, NC_URUC), key=lambda m, tab=tab, T=T: value(tab, m, T)), ("GRU",))
          for tab, T in _SYNTHETIC)

#: The abstract's "NC-GRU significantly outperforms GRU" read for NC-GRU(Ur, Uc) alone on the synthetic tasks
#: (Tables 1–4), the variant with both recurrent weights constrained.
ABSTRACT_URUC = tuple(Comparison(f"Abstract: NC-GRU(Ur, Uc) outperforms GRU ({tab}, {T})", tab, T, NC_URUC, ("GRU",))
                      for tab, T in _SYNTHETIC)


sec4_lm = Claim(
    id="nc_gru.sec4_lm",
    source="nc_gru.md, Sec. 4.5–4.7 Results sentences with Tables 5–7; the abstract's 'NC-GRU significantly "
           "outperforms GRU' with Tables 1–7",
    statement="Sec. 4.5: NC-GRU outperformed scoRNN, GRU and LSTM; Sec. 4.6: improved over GRU and LSTM; Sec. 4.7: "
              "outperforms scoRNN and GRU, LSTM better; abstract: NC-GRU outperforms GRU",
    assumptions=(A_PRINTED,),
    measure="the bpc or perplexity (Tables 5–7), or minimum loss (Tables 1–4), of the model said to be better",
    bound="the smallest value among the models it is said to beat, same column",
    evaluate=lambda c: comparison_parts(SEC4_LM),
    cases=TABLE_CASES,
    explanation="Would mean Tables 1–7 contradict these sentences.",
    notes="The abstract is read for the better of the two NC-GRU models in each column (the abstract names no "
          "variant). Its reading for NC-GRU(Ur, Uc) alone is false (its Reading, exact): NC-GRU(Ur, Uc) alone loses "
          "to GRU on the adding task (Table 3: 4.086 against 3.137 at T = 200, 5.412 against 2.193 at T = 400). "
          "Table 6's GRU has the quoted 92.48 and the authors' 80.90; NC-GRU's 77.05 beats both. 'Significant' is not "
          "tested (three seeds).",
    exact=lambda: exact_comparisons(SEC4_LM),
    readings=(Reading("the abstract's NC-GRU read as NC-GRU(Ur, Uc)",
                      "NC-GRU(Ur, Uc) has a smaller minimum loss than GRU in every column of Tables 1–4",
                      "the abstract's 'NC-GRU' names no variant; Tables 1–4 show two, and NC-GRU(Ur, Uc) is the "
                      "NC-GRU model of eq. (19), with both Ur(Ar) and Uc(Ac) orthogonal (Sec. 3.3; Table 1's "
                      "note), and Sec. 4 says the best performance comes from orthogonality in both Uc and Ur",
                      evaluate=lambda c: comparison_parts(ABSTRACT_URUC),
                      exact=lambda: exact_comparisons(ABSTRACT_URUC)),),
)
