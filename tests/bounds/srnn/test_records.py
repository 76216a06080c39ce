"""Every srnn.md claim record names its source, statement, assumptions and what breaks, in paper order."""

from rnnaudit.bounds.srnn import CLAIMS


def test_all_srnn_claims_have_their_ids_and_sources():
    ids = [c.id for c in CLAIMS]
    assert ids == ["srnn.eq4", "srnn.eq9", "srnn.eq9.corrected", "srnn.eq10", "srnn.eq10.corrected", "srnn.eq11",
                   "srnn.eq11.corrected", "srnn.table1", "srnn.gamblers_ruin", "srnn.gamblers_ruin.corrected"]
    for c in CLAIMS:
        assert c.paper == "srnn" and c.source.startswith("srnn.md")
        assert c.statement and c.assumptions and c.explanation
