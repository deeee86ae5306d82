"""The camera simulator: rendered card faces and backs, table frames, a frame stream."""
