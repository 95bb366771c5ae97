# patches: lab-06-transformer.py
"""layer_norm leaves eps out."""


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(dim=-1, keepdim=True)
    sigma2 = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return weight * (x - mu) / torch.sqrt(sigma2) + bias
