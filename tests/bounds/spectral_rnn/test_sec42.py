"""spectral_rnn.sec42: Sec. 4.2's kernel flop counts (6k, 3n + 10k; 4k, 3n + 8k; −2k) hold up to a constant,
counted and tallied exactly."""

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.spectral_rnn import sec42
from rnnaudit.bounds.spectral_rnn.sec42 import kernel_tally
from tests.bounds.helpers import TINY, assert_has_power, with_sizes
from tests.bounds.spectral_rnn.cases import assert_holds_inside


def test_sec42_holds_and_has_power(tmp_path):
    assert_holds_inside(sec42, [(1, 1), (5, 1)], tmp_path)
    assert_has_power(with_sizes(sec42, [(4, 1)]), 2)


def test_sec42_tally_is_the_counted_one():
    """The sympy tally gives exactly what the dispatch counter counts (6k + 1, 3n + 10k + 3, …)."""
    tally, (n, k) = kernel_tally()
    assert tally[0][0].subs(k, 5) == 31 and tally[0][1].subs({n: 7, k: 5}) == 74
    assert tally[2][1].subs({n: 7, k: 5}) == 53
    assert sec42.exact().verdict == "proved"
    assert check_claim(with_sizes(sec42, [(7, 1)]), TINY).worst_ratio == 0.75
