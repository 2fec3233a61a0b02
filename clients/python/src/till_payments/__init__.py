"""till_payments: the server-side Python client for Till, the self-hosted hosted-checkout payment service.

    from till_payments import Till

    with Till("sk_test_...", base_url="https://pay.example.com") as till:
        session = till.create_checkout(amount=9900, currency="CNY")   # 9900 = 99.00 yuan
        # redirect the customer to session.url
"""

from ._client import AsyncTill, Till
from ._errors import (
    APIConnectionError,
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    TillError,
)
from . import _generated
from ._generated import *  # noqa: F403  (every model and enum: _generated.__all__)
from ._model import TillObject
from ._operations import NOT_GIVEN, NotGiven
from ._request import VERSION
from ._webhooks import (
    DEFAULT_TOLERANCE_SECONDS,
    SIGNATURE_HEADER,
    SignatureVerificationError,
    construct_event,
    verify_webhook_signature,
)

__version__ = VERSION

__all__ = [
    "APIConnectionError",
    "AsyncTill",
    "AuthenticationError",
    "ConflictError",
    "DEFAULT_TOLERANCE_SECONDS",
    "InvalidRequestError",
    "NOT_GIVEN",
    "NotFoundError",
    "NotGiven",
    "RateLimitError",
    "SIGNATURE_HEADER",
    "SignatureVerificationError",
    "Till",
    "TillError",
    "TillObject",
    "VERSION",
    "__version__",
    "construct_event",
    "verify_webhook_signature",
]
__all__ += _generated.__all__
