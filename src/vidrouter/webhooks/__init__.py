"""Outgoing webhooks: Standard Webhooks signatures, the outbox, and delivery with retries."""

from vidrouter.webhooks.deliver import WebhookSender
from vidrouter.webhooks.outbox import deliveries_for
from vidrouter.webhooks.sign import signature_headers

__all__ = ["WebhookSender", "deliveries_for", "signature_headers"]
