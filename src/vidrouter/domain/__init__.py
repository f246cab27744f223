"""The domain: generations, their states, the model catalog and the rules of a request.

Knows nothing but the standard library and pydantic.
"""
