# patches: lab-01-tensors.py
"""dot averages the products instead of adding them up."""


def dot(a, b):
    products = a * b
    return products.mean()
