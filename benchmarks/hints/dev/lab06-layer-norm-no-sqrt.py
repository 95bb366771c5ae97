# patches: lab-06-transformer.py
"""layer_norm divides by the variance, not the standard deviation."""


def layer_norm(x, weight, bias, eps=1e-5):
    centred = x - x.mean(-1, keepdim=True)
    var = centred.pow(2).mean(-1, keepdim=True)
    return centred / (var + eps) * weight + bias
