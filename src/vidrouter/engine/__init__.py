"""The engine: claims due generations under a lease and advances them, step by step."""
