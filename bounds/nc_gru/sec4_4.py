"""nc_gru.md, Sec. 4.4 (Copying problem), the Results paragraph against Tables 4 and 9: both NC-GRU models beat LSTM,
GRU and GORU, and scoRNN beats every model (both hold)."""

from __future__ import annotations

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.nc_gru.sec4_1 import A_PRINTED
from rnnaudit.bounds.nc_gru.tables import NC_UC, NC_URUC, TABLE_CASES, Comparison, comparison_parts, exact_comparisons

__all__ = ["sec4_4", "SEC4_4"]

_OTHERS = ("LSTM", "GRU", "GORU", NC_UC, NC_URUC)

#: The paragraph's comparisons, on Table 4's loss and Table 9's accuracy (T = 2000).
SEC4_4 = tuple(
    Comparison(f"both NC-GRU outperform LSTM, GRU, GORU by a noticeable margin: {m}, {tab}, {T}", tab, T, m,
               ("LSTM", "GRU", "GORU"))
    for tab, T in (("Table 4", "T = 1000"), ("Table 4", "T = 2000"), ("Table 9", "T = 2000")) for m in (NC_UC, NC_URUC)
) + tuple(Comparison(f"scoRNN performed better than all of the other models: {tab}, {T}", tab, T, "scoRNN", _OTHERS)
          for tab, T in (("Table 4", "T = 1000"), ("Table 4", "T = 2000"), ("Table 9", "T = 2000")))

sec4_4 = Claim(
    id="nc_gru.sec4_4",
    source="nc_gru.md, Sec. 4.4 (Copying problem), Results paragraph, with Table 4 and Table 9 (SM 8)",
    statement="'Both NC-GRU models perform on the same level while outperforming LSTM, GRU, and GORU models by a "
              "noticeable margin. However, for this task, scoRNN performed better than all of the other models.'",
    assumptions=(A_PRINTED,),
    measure="Table 4's minimum validation loss (×10⁻²) or Table 9's error rate of the model said to be better",
    bound="the smallest value among the models it is said to beat, same column",
    evaluate=lambda c: comparison_parts(SEC4_4),
    cases=TABLE_CASES,
    explanation="Would mean Tables 4 or 9 contradict the paragraph.",
    notes="'Same level' (0.884 against 0.919 at T = 1000, 0.447 against 0.568 at T = 2000) and 'noticeable margin' "
          "are not quantified. Table 4's LSTM losses, 2.039 and 1.030 (×10⁻²), equal the memoryless baseline "
          "10 ln 8/(T + 20) (2.039 and 1.029 ×10⁻², nc_gru.copy_baseline): the LSTM did not learn the task.",
    exact=lambda: exact_comparisons(SEC4_4),
)
