"""Every enrnn.md claim record names its source, statement, assumptions and what breaks."""

from rnnaudit.bounds.enrnn import CLAIMS


def test_all_enrnn_claims_have_their_ids_and_sources():
    ids = [c.id for c in CLAIMS]
    assert ids == ["enrnn.transient", "enrnn.coupling", "enrnn.theorem3.1", "enrnn.proposition3.2",
                   "enrnn.proposition3.2.corrected", "enrnn.eq5", "enrnn.eq5.corrected"]
    for c in CLAIMS:
        assert c.paper == "enrnn" and c.source.startswith("enrnn.md")
        assert c.statement and c.assumptions and c.explanation
