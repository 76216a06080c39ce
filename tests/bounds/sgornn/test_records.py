"""Every sgornn.md claim record names its source, statement, assumptions and what breaks."""

from rnnaudit.bounds.sgornn import CLAIMS

#: Statements with no hypotheses to state: the tables and sentences about printed numbers, the generator of
#: Sec. 3.1, identities that hold for every argument (eq. 2, 24–26, 29–30, 36) and the clip rule of Sec. 2,
#: whose claim is exactly that it needs none.
HYPOTHESIS_FREE = {"sgornn.eq2", "sgornn.eq2.domain", "sgornn.eq2.domain.corrected", "sgornn.eq3.clip", "sgornn.eq10",
                   "sgornn.table1", "sgornn.table2", "sgornn.table3", "sgornn.sec3.model_count", "sgornn.eq24",
                   "sgornn.eq24.corrected", "sgornn.eq25", "sgornn.eq36"}


def test_all_sgornn_claims_have_source_statement_and_assumptions():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.id.startswith("sgornn.") and c.source.startswith("sgornn.md") and c.paper == "sgornn"
        assert c.statement and c.explanation and c.measure and c.bound
        assert bool(c.assumptions) == (c.id not in HYPOTHESIS_FREE), c.id
