"""Board definitions (BoardSpec), reference boards and the real driver factory."""
