"""Every sgornn.md claim record names its source, statement, assumptions and what breaks."""

from rnnaudit.bounds.sgornn import CLAIMS


def test_all_sgornn_claims_have_source_statement_and_assumptions():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.id.startswith("sgornn.") and c.source.startswith("sgornn.md") and c.paper == "sgornn"
        assert c.statement and c.assumptions and c.explanation
