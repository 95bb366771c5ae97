# patches: lab-01-tensors.py
"""matmul_by_loops takes column i of b where it needs column j."""


def matmul_by_loops(a, b):
    rows, cols = a.shape[0], b.shape[1]
    result = torch.zeros(rows, cols, dtype=a.dtype)
    for i in range(rows):
        for j in range(cols):
            result[i, j] = dot(a[i, :], b[:, min(i, cols - 1)])
    return result
