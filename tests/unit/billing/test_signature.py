"""The billing callback's signatures are Stripe's scheme: the `stripe` package itself accepts what
actors/tenancy/billing_callbacks.sign makes and refuses an altered body. Run in a separate process: importing
`stripe` takes half a second and grows the heap of the test worker it runs in."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime

from actors.tenancy.billing_callbacks import sign

CHECK = """
import sys
import stripe
payload, header, secret = sys.argv[1].encode(), sys.argv[2], sys.argv[3]
stripe.WebhookSignature.verify_header(payload, header, secret, tolerance=300)
try:
    stripe.WebhookSignature.verify_header(payload + b" ", header, secret, tolerance=300)
except stripe.SignatureVerificationError:
    print("accepted, altered refused")
"""


def test_stripe_accepts_the_signature_and_refuses_an_altered_body() -> None:
    payload = '{"id":"evt_1","type":"checkout.session.completed","data":{"object":{"id":"cs_1"}}}'
    secret = "whsec_" + "ab" * 32
    header = sign(payload.encode(), secret, datetime.fromtimestamp(time.time(), UTC))
    done = subprocess.run([sys.executable, "-c", CHECK, payload, header, secret], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "accepted, altered refused"
