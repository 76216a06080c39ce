"""Every enrnn.md claim record names its source, statement, assumptions and what breaks."""

from rnnaudit.bounds.enrnn import CLAIMS


def test_all_enrnn_claims_have_their_ids_and_sources():
    ids = [c.id for c in CLAIMS]
    assert ids == ["enrnn.spectral_norm", "enrnn.transient", "enrnn.eq3", "enrnn.eq3_sentence", "enrnn.decay",
                   "enrnn.decay.corrected",
                   "enrnn.coupling", "enrnn.theorem3.1", "enrnn.theorem3.1.general",
                   "enrnn.normalisation", "enrnn.proposition3.2",
                   "enrnn.proposition3.2.corrected", "enrnn.conjugate", "enrnn.eq4", "enrnn.eq4.corrected",
                   "enrnn.complexity", "enrnn.eq5", "enrnn.eq5.corrected", "enrnn.sec5", "enrnn.baselines",
                   "enrnn.table1", "enrnn.table1.corrected", "enrnn.comparisons", "enrnn.proof3.1", "enrnn.proof3.2",
                   "enrnn.eq7", "enrnn.eq7.corrected"]
    for c in CLAIMS:
        assert c.paper == "enrnn" and c.source.startswith("enrnn.md")
        assert c.statement and c.assumptions and c.explanation
