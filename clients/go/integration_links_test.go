package till_test

import (
	"errors"
	"strings"
	"testing"

	till "github.com/till-payments/till/clients/go"
)

func TestIntegrationPaymentLinks(t *testing.T) {
	client, ctx := requireTill(t)
	link, err := client.PaymentLinks.Create(ctx, &till.PaymentLinkParams{
		Amount: till.Int64(9900), Currency: till.CNY, Description: "Tea", Metadata: map[string]string{"sku": "T-1"}, MaxPayments: till.Int64(3),
	})
	ok(t, err)
	if !strings.HasPrefix(link.ID, "plink_") || link.URL != server.BaseURL+"/l/"+link.ID || *link.Amount != 9900 || link.MinAmount != nil ||
		*link.Description != "Tea" || link.Metadata["sku"] != "T-1" || *link.MaxPayments != 3 || !link.Active || link.PaidCount != 0 {
		t.Fatalf("created %+v", link)
	}
	got, err := client.PaymentLinks.Get(ctx, link.ID)
	ok(t, err)
	if got.ID != link.ID || !got.CreatedAt.Equal(link.CreatedAt) {
		t.Fatalf("read back %+v", got)
	}
	found := false
	for it := client.PaymentLinks.List(ctx, &till.ListParams{Limit: 1}); it.Next(); {
		found = found || it.Current().ID == link.ID
	}
	if !found {
		t.Fatal("the link is not listed")
	}
	off, err := client.PaymentLinks.Update(ctx, link.ID, &till.PaymentLinkUpdateParams{Active: till.Bool(false)})
	ok(t, err)
	if off.Active {
		t.Fatal("still active")
	}
	_, err = client.PaymentLinks.Create(ctx, &till.PaymentLinkParams{Amount: till.Int64(100), MinAmount: till.Int64(1), MaxAmount: till.Int64(2), Currency: till.CNY})
	var invalid *till.Error
	if !errors.Is(err, till.ErrInvalidRequest) || !errors.As(err, &invalid) || invalid.Code != till.CodeInvalidField || invalid.Param != "amount" {
		t.Fatalf("a link with both kinds of amount: %v", err)
	}
}
