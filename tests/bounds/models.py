"""Models as users bring them, for the classic claims' audit tests: torch's RNN/GRU/LSTM modules and a hand-written
IndRNN step, each with a way to make an assumption fail as training can (a recurrent matrix of norm > 1, forget
gates saturated at 1, an IndRNN weight |u_i| > 1)."""

import torch
from torch import nn

from rnnaudit.bounds.on_model import ModelView, assess
from rnnaudit.cells.adapters import wrap

F64 = torch.float64


class IndRNN(nn.Module):
    """h_t = relu(W_x x_t + u ⊙ h_(t−1) + b) (Li et al. 2018), written by hand as a user would."""

    def __init__(self, n: int, h: int, u: float | None = None):
        super().__init__()
        self.inp = nn.Linear(n, h, dtype=F64)
        self.u = nn.Parameter(torch.rand(h, dtype=F64) * 2 - 1 if u is None else torch.full((h,), u, dtype=F64))

    def step(self, x_t, h):
        return torch.relu(self.inp(x_t) + self.u * h)


def modules() -> dict[str, nn.Module]:
    """The Done-when list of issue 25's first item, at small sizes, in evaluation mode."""
    torch.manual_seed(0)
    return {"lstm": nn.LSTM(3, 6), "lstmcell": nn.LSTMCell(3, 6), "gru1": nn.GRU(3, 6), "gru2": nn.GRU(3, 6, 2),
            "rnn_tanh": nn.RNN(3, 6), "rnn_relu": nn.RNN(3, 6, nonlinearity="relu")}


def view(model, x=None, **wrap_args) -> ModelView:
    """The model (a torch module or an IndRNN) as the claims see it, on 2 sequences of length 12."""
    if x is None:
        x = torch.randn(2, 12, 3, generator=torch.Generator().manual_seed(1))
    cell = wrap(model.eval(), **wrap_args) if isinstance(model, nn.Module) and not isinstance(model, IndRNN) else \
        wrap(model, input_size=3, state_size=model.u.shape[0])
    return ModelView(cell, x)


def contractive(model: nn.Module, norm: float = 0.8) -> nn.Module:
    """``model`` with every recurrent block scaled to ‖·‖₂ = ``norm`` (inside the vanilla conditions)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.startswith("weight_hh"):
                for block in p.split(p.shape[1]):
                    block.mul_(norm / torch.linalg.matrix_norm(block.double(), ord=2).item())
    return model


def saturated(model: nn.Module) -> nn.Module:
    """``model`` as training can leave it: every recurrent matrix scaled to ‖·‖₂ = 1.5 and, for an LSTM, the forget
    gates' biases at 8 (f ≈ 1)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.startswith("weight_hh"):
                H = p.shape[1]
                for block in p.split(H):
                    block.mul_(1.5 / torch.linalg.matrix_norm(block.double(), ord=2).item())
            if name.startswith("bias_ih") and isinstance(model, (nn.LSTM, nn.LSTMCell)):
                H = p.shape[0] // 4
                p[H:2 * H] = 8.0
    return model


def assessed(claim, v: ModelView):
    """:func:`assess` of ``claim`` on the view."""
    return assess(claim, v)
