"""Factories the monitor tests name by import string (``tests.app.monitor_models:exp_rnn``), as a user
names their own: a model rnnaudit cannot rebuild from its sizes alone."""

import torch
from torch import nn


class ExpRNN(nn.Module):
    """A tanh RNN whose recurrent matrix is exp of a skew matrix (an expRNN written with plain torch),
    stepping through ``step(x_t, h)``: the protocol :func:`rnnaudit.wrap` reads with ``recurrent``."""

    def __init__(self, n: int = 2, h: int = 6):
        super().__init__()
        self.input_size, self.hidden_size = n, h
        self.inp = nn.Linear(n, h)
        self.rec = nn.Linear(h, h, bias=False)
        nn.utils.parametrizations.orthogonal(self.rec, orthogonal_map="matrix_exp")

    def step(self, x_t, h):
        return torch.tanh(self.inp(x_t) + self.rec(h))

    def forward(self, x):
        h = x.new_zeros(x.shape[0], self.hidden_size)
        for x_t in x.unbind(1):
            h = self.step(x_t, h)
        return h


def exp_rnn() -> ExpRNN:
    return ExpRNN()
