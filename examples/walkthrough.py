import rnnaudit  # first: it sets OMP_WAIT_POLICY before torch starts
import torch
from torch import nn
from rnnaudit.tasks.digits import digits_splits

H = 64


def train(rnn, run_dir, data, steps=300, h=H):
    """Adam on the last state's cross-entropy, recorded by rnnaudit.Monitor; returns the test accuracy."""
    (x, y), (x_test, y_test) = data["train"], data["test"]
    head = nn.Linear(h, 10)
    opt = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-2)
    with rnnaudit.Monitor(rnn, run_dir, every=10, inputs=x_test[:8], targets=y_test[:8],
                          loss_fn=nn.functional.cross_entropy, readout=head) as mon:
        for step in range(steps):
            i = torch.randint(len(x), (64,))
            loss = nn.functional.cross_entropy(head(rnn(x[i])[0][:, -1]), y[i])
            opt.zero_grad()
            loss.backward()
            mon.record(step, loss)  # after backward (it reads .grad), before the optimizer step
            opt.step()
    with torch.no_grad():
        return (head(rnn(x_test)[0][:, -1]).argmax(-1) == y_test).float().mean().item()


if __name__ == "__main__":
    data = digits_splits(permute=True)  # scikit-learn's UCI digits, pixel by pixel (T = 64), one fixed permutation
    torch.manual_seed(0)
    models = {"gru": nn.GRU(1, H, batch_first=True),
              "ornn": nn.utils.parametrizations.orthogonal(nn.RNN(1, H, batch_first=True), "weight_hh_l0")}
    for name, rnn in models.items():
        print(name, "test accuracy", train(rnn, f"runs/{name}", data))
