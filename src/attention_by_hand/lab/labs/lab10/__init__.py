"""Lab 10, gradients by hand: its reference, its checks, and the hints of what to write.

    lab-10-gradients.py   the reference lab (the only copy: the learner's version is made from it)
    checks.py             the inputs its functions are called on, and the judges that name mistakes
"""

from attention_by_hand.lab.labs import Lab

LAB = Lab(
    number=10,
    slug="gradients",
    title="gradients by hand",
    summary="the softmax's backward, one head's backward from the whole matrix, then tile by tile from out and lse",
    # What the learner's version raises in place of each function: what to compute, not the code.
    functions={
        "softmax_backward": "D = sum of p * dp along the last axis (keepdim=True); return p * (dp - D): the "
        "Jacobian diag(p) - p p^T times dp, without building it",
        "attention_backward": "recompute s = q @ k^T / sqrt(head_size) (causal: -inf where key j > query i) and "
        "p = softmax(s); then dv = p^T @ d_out, dp = d_out @ v^T, ds = softmax_backward(p, dp), "
        "dq = ds @ k / sqrt(head_size), dk = ds^T @ q / sqrt(head_size); return (dq, dk, dv)",
        "tiled_attention_backward": "D = sum of d_out * out along the last axis; dq, dk, dv = zeros like q, k, v "
        "(their dtype); for each key block j and query block i (causal: i from j on, the diagonal tile masked "
        "j > i): s = q_i @ k_j^T / sqrt(head_size), p = exp(s - lse_i), dv_j += p^T @ d_out_i, "
        "dp = d_out_i @ v_j^T, ds = p * (dp - D_i), dq_i += ds @ k_j / sqrt(head_size), "
        "dk_j += ds^T @ q_i / sqrt(head_size); return (dq, dk, dv)",
    },
    package=__name__,
)
