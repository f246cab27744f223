"""Outgoing webhooks: Standard Webhooks signatures, the outbox, and delivery with retries."""
