"""The names the command line offers (papers, cells, tasks, presets, ...), without importing torch.

A leaf: ``rnnaudit --help`` builds its parser from these tuples, so it answers in a fraction of a
second. Each tuple mirrors a registry that lives with its code (``rnnaudit.bounds.registry``,
``rnnaudit.cells.registry``, ``rnnaudit.training``); tests/app/test_cli.py asserts they agree.
"""

__all__ = ["PAPERS", "SEED_PAPERS", "CLASSIC_PAPERS", "MODERN_PAPERS",
           "CELLS", "TASKS", "DATA_DIR_TASKS", "PRESETS", "OPTIMIZERS",
           "SCHEDULES", "ARCHS", "FIGURE_SUFFIXES", "PROFILES"]

#: The five specification papers, file stems of papers/*.md, in the order the report lists them.
SEED_PAPERS = ("sgornn", "spectral_rnn", "nc_gru", "srnn", "enrnn")
#: The classic results the seeds cite (packages under bounds/, no markdown copy in papers/).
CLASSIC_PAPERS = ("pascanu2013", "miller_hardt2019", "echo_state", "laurent2017", "contraction")
#: The modern recurrences' papers (packages under bounds/): LRU, S4D, Mamba, minGRU/minLSTM, xLSTM.
MODERN_PAPERS = ("lru", "s4d", "mamba", "min_rnn", "xlstm")
#: Every paper ``rnnaudit check`` knows, seeds first.
PAPERS = SEED_PAPERS + CLASSIC_PAPERS + MODERN_PAPERS
#: Cell names of :data:`rnnaudit.cells.registry.CELLS`.
CELLS = ("enrnn", "fastrnn", "gru", "lstm", "nc_gru", "ornn", "scornn", "sgornn", "spectral_rnn", "srnn", "vprnn")
#: Task names of :data:`rnnaudit.training.TASK_SPECS`: the synthetic tasks, then the data sets.
TASKS = ("adding", "copy", "denoise", "parenthesis", "digits", "permuted-digits", "smnist", "pmnist", "har2",
         "ptb-char")
#: The tasks that read files from a data directory (``rnnaudit train --data-dir DIR``).
DATA_DIR_TASKS = ("smnist", "pmnist", "har2", "ptb-char")
#: Preset names of :data:`rnnaudit.training.PRESETS`.
PRESETS = ("enrnn-adding", "enrnn-copy", "nc_gru-adding", "nc_gru-copy", "nc_gru-denoise", "nc_gru-parenthesis",
           "sgornn-addition", "spectral_rnn-addition", "spectral_rnn-copy", "srnn-adding", "srnn-copy")
#: Optimizer names of :data:`rnnaudit.training.OPTIMIZERS`.
OPTIMIZERS = ("adam", "rmsprop", "sgd")
#: Learning-rate schedules of :class:`rnnaudit.training.TrainConfig`.
SCHEDULES = ("linear", "constant")
#: torch.nn modules a plain state dict can be read as (``--arch``).
ARCHS = ("rnn", "gru", "lstm")
#: File types the figure commands write.
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")
#: Search profiles of :data:`rnnaudit.bounds.PROFILES`.
PROFILES = ("quick", "full")
