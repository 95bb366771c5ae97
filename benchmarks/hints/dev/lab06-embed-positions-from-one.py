# patches: lab-06-transformer.py
"""embed numbers the positions from 1."""


def embed(tokens, token_embedding, position_embedding):
    T = tokens.shape[-1]
    return token_embedding(tokens) + position_embedding(torch.arange(1, T + 1) % position_embedding.num_embeddings)
