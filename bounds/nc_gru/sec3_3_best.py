"""nc_gru.md, Sec. 3.3, after eq. 20: "We derive from our experiments that the best performance is achieved using
orthogonality in Uc and Ur hidden weights", against the tables that print both variants (Tables 1–4, 8–9).

Reading: the two-orthogonal model NC-GRU(Ur, Uc) is at least as good as NC-GRU(Uc) in every column of every table
that reports both; Sec. 5.2's ablation (Figure 7) prints no numbers. It fails in 7 of the 10 columns.
"""

from __future__ import annotations

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.nc_gru.sec4_1 import A_PRINTED
from rnnaudit.bounds.nc_gru.tables import (NC_UC, NC_URUC, TABLE_CASES, TABLES, Comparison, comparison_parts,
                                           exact_comparisons)

__all__ = ["sec3_3_best", "SEC3_3_BEST", "BOTH_VARIANTS"]

#: The tables that print both NC-GRU variants (Tables 5–7 report NC-GRU(Uc) only).
BOTH_VARIANTS = tuple(t for t, rows in TABLES.items() if NC_UC in rows and NC_URUC in rows)

#: One comparison per column of those tables: NC-GRU(Ur, Uc) at least as good as NC-GRU(Uc).
SEC3_3_BEST = tuple(Comparison(f"NC-GRU(Ur, Uc) at least as good as NC-GRU(Uc): {t}, {col}", t, col, NC_URUC,
                               (NC_UC,))
                    for t in BOTH_VARIANTS for col in TABLES[t][NC_URUC])

sec3_3_best = Claim(
    id="nc_gru.sec3_3_best",
    source="nc_gru.md, Sec. 3.3, paragraph after eq. 20, against Tables 1–4 and 8–9",
    statement="'The best performance is achieved using orthogonality in Uc and Ur hidden weights': NC-GRU(Ur, Uc) is "
              "at least as good as NC-GRU(Uc) wherever the tables report both",
    assumptions=(A_PRINTED,),
    measure="the printed loss (Tables 1–4) or error rate 100 − accuracy (Tables 8–9) of NC-GRU(Ur, Uc)",
    bound="the same entry of NC-GRU(Uc)",
    evaluate=lambda c: comparison_parts(SEC3_3_BEST),
    cases=TABLE_CASES,
    explanation="NC-GRU(Uc) is better in 7 of the 10 columns that print both: Table 1 at T = 200 (0.217 against "
                "0.221), Table 2 at both lengths, Table 3 at both lengths (0.918 against 4.086 and 1.009 against "
                "5.412, ×10⁻⁵: ratio 5.36), Table 4 at both lengths; only Table 1 at T = 100 and the accuracies of "
                "Tables 8–9 favour NC-GRU(Ur, Uc). The model of most of Sec. 4 (and of Tables 5–7) is NC-GRU(Uc).",
    notes="Reading: 'best performance' as the tables' means (smaller loss, larger accuracy), column by column. Sec. "
          "5.2's ablation (Figure 7) is cited for it but prints no numbers, so it cannot be checked. nc_gru.sec4_1 "
          "and nc_gru.sec4_2 check the Sec. 4 sentences that make the same comparison on Tables 1 and 2.",
    exact=lambda: exact_comparisons(SEC3_3_BEST),
)
