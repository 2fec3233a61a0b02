"""Payment links through the client against a real Till (as test_integration.py): create, read, list, update, deactivate."""

from __future__ import annotations

from typing import List

import pytest

from till_payments import InvalidRequestError, PaymentLink

from conftest import MakeDriver


def test_payment_links_create_read_list_update_and_deactivate(make_driver: MakeDriver) -> None:
    do = make_driver()
    link: PaymentLink = do(lambda t: t.payment_links.create(amount=9900, currency="CNY", description="Tea", metadata={"sku": "T-1"}, max_payments=3))
    assert link.id.startswith("plink_") and link.url.endswith(f"/l/{link.id}")
    assert (link.amount, link.min_amount, link.description, link.metadata, link.max_payments, link.active, link.paid_count) == (
        9900, None, "Tea", {"sku": "T-1"}, 3, True, 0)
    assert do(lambda t: t.payment_links.retrieve(link.id)).to_dict() == link.to_dict()
    listed: List[str] = [x.id for x in do.items(lambda t: t.payment_links.iterate(limit=1))]
    assert link.id in listed and len(listed) == len(set(listed))
    off = do(lambda t: t.payment_links.update(link.id, active=False, max_payments=5))
    assert (off.active, off.max_payments) == (False, 5)
    with pytest.raises(InvalidRequestError) as refused:
        do(lambda t: t.payment_links.create(amount=100, min_amount=1, max_amount=2, currency="CNY"))
    assert (refused.value.code, refused.value.param) == ("invalid_field", "amount")
