"""The claims that once timed the recurrence (srnn.table1) and their counted companions give the same verdicts
and the same ratios, to the last bit, while other processes saturate every core: nothing they measure is a clock."""

import os
import subprocess
import sys

import pytest

from rnnaudit.bounds import PROFILES, check_claim
from rnnaudit.bounds.srnn import table1, table1_count, table1_count_corrected

CLAIMS = (table1, table1_count, table1_count_corrected)


def _outcomes():
    out = {}
    for claim in CLAIMS:
        r = check_claim(claim, PROFILES["quick"], seed=0)
        out[claim.id] = (r.verdict, r.worst_ratio, sorted(r.ratios))
    return out


@pytest.mark.slow
def test_counted_claims_give_identical_verdicts_while_every_core_is_busy():
    idle = _outcomes()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        loaded = _outcomes()
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert loaded == idle
    assert idle["srnn.table1"][0] == "holds"
