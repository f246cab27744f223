"""The application layer: what clients do (create, get, list, cancel, delete a generation;
list models; stay within their limits), shared by every API and free of HTTP."""
