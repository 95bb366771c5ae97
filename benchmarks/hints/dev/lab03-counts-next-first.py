# patches: lab-03-bigram.py
"""bigram_counts indexes rows by the next character and columns by the current one."""


def bigram_counts(ids, vocab_size):
    table = torch.zeros(vocab_size, vocab_size)
    for current, nxt in zip(ids[:-1].tolist(), ids[1:].tolist()):
        table[nxt, current] += 1
    return table
