package till_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	till "github.com/till-payments/till/clients/go"
)

// The examples run against fakeTill, a local stand-in that answers each operation as Till does.

func ExampleNewClient() {
	client := till.NewClient("sk_test_…", // the key picks the mode: sk_test_… or sk_live_…
		till.WithBaseURL(fakeTill()), // where your Till runs, e.g. https://pay.example.com
		till.WithTimeout(10*time.Second),
		till.WithMaxRetries(3),
	)
	session, err := client.GetSession(context.Background(), "sess_paid")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(session.Status)
	// Output: paid
}

func ExampleClient_CreateCheckout() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	session, err := client.CreateCheckout(context.Background(), &till.CheckoutParams{
		Amount:      9900, // ¥99.00
		Currency:    till.CNY,
		Description: "Order A-1",
		Metadata:    map[string]string{"orderId": "A-1"},
		SuccessURL:  "https://shop.example/orders/A-1/done",
		Params:      till.Params{IdempotencyKey: "checkout-A-1"}, // optional: one session per order
	})
	if err != nil {
		log.Fatal(err)
	}
	// Redirect the customer: http.Redirect(w, r, session.URL, http.StatusSeeOther)
	fmt.Println(session.ID, session.Status, session.URL)
	// Output: sess_new pending https://pay.example.com/c/sess_new
}

func ExampleClient_GetSession() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	// On the successUrl, with paid_confirmed=0 (or 1: anyone can type a query string), ask Till.
	session, err := client.GetSession(context.Background(), "sess_paid")
	if err != nil {
		log.Fatal(err)
	}
	switch session.Status {
	case till.SessionPaid:
		fmt.Println("paid:", session.Record.ID, session.Record.Amount)
	case till.SessionPending, till.SessionProcessing:
		fmt.Println("waiting for the payment to be confirmed")
	default:
		fmt.Println("not paid:", session.Status)
	}
	// Output: paid: rec_1 9900
}

func ExampleClient_Refund() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	ctx := context.Background()
	// Part of it: 1000 is ¥10.00.
	partial, err := client.Refund(ctx, &till.RefundParams{RecordID: "rec_1", Amount: till.Int64(1000), Reason: "damaged"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(partial.Status, partial.RefundedAmount, partial.Refund.Status)
	// The rest: no amount.
	rest, err := client.Refund(ctx, &till.RefundParams{RecordID: "rec_1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rest.Status, rest.RefundedAmount, rest.Refund.Amount)
	// Output:
	// partially_refunded 1000 succeeded
	// refunded 9900 8900
}

func ExampleError() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	_, err := client.Refund(context.Background(), &till.RefundParams{RecordID: "rec_2", Amount: till.Int64(20000)})
	var tillErr *till.Error
	switch {
	case errors.As(err, &tillErr) && tillErr.Code == till.CodeAmountExceedsRefundable:
		fmt.Println("only", *tillErr.Refundable, "left to refund")
	case errors.Is(err, till.ErrNotFound):
		fmt.Println("no such payment for this key")
	case err != nil:
		fmt.Println(err)
	}
	_, err = client.GetSession(context.Background(), "sess_unknown")
	fmt.Println(errors.Is(err, till.ErrNotFound), err)
	// Output:
	// only 9900 left to refund
	// true till: 404 Not found (code not_found) [request req_1]
}

func ExampleConstructEvent() {
	secret := "whsec_0123456789abcdefghijklmnopqrstuv" // the endpoint's, from WebhookEndpoints.Create
	handler := func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // the raw bytes: never decode and re-encode
		if err != nil {
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		event, err := till.ConstructEvent(body, r.Header.Get(till.SignatureHeader), secret, 0)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch event.Type {
		case till.EventPaymentSucceeded:
			data, err := event.SessionData()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			fmt.Println("paid:", data.Metadata["orderId"], data.RecordID, data.Amount)
		}
		w.WriteHeader(http.StatusOK)
	}

	w := httptest.NewRecorder()
	handler(w, signedDelivery(secret))
	fmt.Println(w.Code)
	// Output:
	// paid: A-1 rec_1 9900
	// 200
}

func ExampleVerifyWebhookSignature() {
	secret := "whsec_0123456789abcdefghijklmnopqrstuv"
	body := []byte(`{"id":"evt_1"}`)
	header := sign(secret, body) // as Till sends it in X-Service-Signature
	fmt.Println(till.VerifyWebhookSignature(body, header, secret))
	fmt.Println(till.VerifyWebhookSignature([]byte(`{"id": "evt_1"}`), header, secret))
	// Output:
	// true
	// false
}

func ExampleWebhookEndpointService_Create() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	endpoint, err := client.WebhookEndpoints.Create(context.Background(), &till.WebhookEndpointParams{
		URL:    "https://shop.example/till/webhooks",
		Events: []till.EventType{till.EventPaymentSucceeded, till.EventRefundSucceeded, till.EventRefundFailed},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(endpoint.ID, endpoint.Secret) // store the secret: it is shown only here
	// Output: we_1 whsec_0123456789abcdefghijklmnopqrstuv
}

func ExampleWebhookEndpointService_List() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	it := client.WebhookEndpoints.List(context.Background())
	for it.Next() {
		fmt.Println(it.Current().ID, it.Current().URL)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output: we_1 https://shop.example/till/webhooks
}

func ExampleWebhookEndpointService_Get() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	endpoint, err := client.WebhookEndpoints.Get(context.Background(), "we_1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(endpoint.Enabled, endpoint.Events)
	// Output: true [payment.succeeded refund.succeeded refund.failed]
}

func ExampleWebhookEndpointService_Update() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	endpoint, err := client.WebhookEndpoints.Update(context.Background(), "we_1", &till.WebhookEndpointUpdateParams{
		Enabled:   till.Bool(false),
		AllEvents: true, // every event type again
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(endpoint.Enabled, endpoint.Events == nil)
	// Output: false true
}

func ExampleWebhookEndpointService_Delete() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	deleted, err := client.WebhookEndpoints.Delete(context.Background(), "we_1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(deleted.ID, deleted.Deleted)
	// Output: we_1 true
}

func ExampleWebhookEndpointService_RotateSecret() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	endpoint, err := client.WebhookEndpoints.RotateSecret(context.Background(), "we_1", nil)
	if err != nil {
		log.Fatal(err)
	}
	// The old secret keeps signing beside the new one until then.
	fmt.Println(endpoint.Secret, endpoint.PreviousSecretExpiresAt.Format(time.RFC3339))
	// Output: whsec_Zq8m1TnV0c3XkLpR7sJd2yGh5WfB9aUe 2026-11-22T09:30:00Z
}

func ExampleEventService_List() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	// Catching up after an outage: every payment.succeeded event, newest first, page after page.
	it := client.Events.List(context.Background(), &till.EventListParams{Type: till.EventPaymentSucceeded})
	for it.Next() {
		event := it.Current()
		fmt.Println(event.ID, event.Type)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// evt_2 payment.succeeded
	// evt_1 payment.succeeded
}

func ExampleEventService_Get() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	event, err := client.Events.Get(context.Background(), "evt_1")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range event.Deliveries {
		fmt.Println(d.EndpointID, d.Status, len(d.Attempts), *d.Attempts[0].StatusCode)
	}
	// Output: we_1 delivered 1 200
}

func ExampleEventService_Redeliver() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	r, err := client.Events.Redeliver(context.Background(), "evt_1", &till.RedeliverParams{EndpointID: "we_1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.ID, r.Scheduled[0].EndpointID)
	// Output: evt_1 we_1
}

func ExampleTestSessionService_Pay() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	session, err := client.TestHelpers.Sessions.Pay(context.Background(), "sess_new", &till.PayParams{RefundBehavior: till.RefundBehaviorPending})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(session.Status, session.Record.ID)
	// Output: paid rec_1
}

func ExampleTestSessionService_Fail() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	session, err := client.TestHelpers.Sessions.Fail(context.Background(), "sess_new", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(session.Status)
	// Output: failed
}

func ExampleTestSessionService_Cancel() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	session, err := client.TestHelpers.Sessions.Cancel(context.Background(), "sess_new", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(session.Status)
	// Output: canceled
}

func ExampleTestSessionService_Expire() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	session, err := client.TestHelpers.Sessions.Expire(context.Background(), "sess_new", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(session.Status)
	// Output: expired
}

func ExampleTestRefundService_Succeed() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	record, err := client.TestHelpers.Refunds.Succeed(context.Background(), "ref_pending", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(record.Status, record.Refund.Status)
	// Output: refunded succeeded
}

func ExampleTestRefundService_Fail() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	record, err := client.TestHelpers.Refunds.Fail(context.Background(), "ref_pending", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(record.Status, record.Refund.Status)
	// Output: paid failed
}

func ExampleSessionService_List() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	// The paid sessions of one order, newest first, page after page.
	it := client.Sessions.List(context.Background(), &till.SessionListParams{
		Status:   till.SessionPaid,
		Metadata: map[string]string{"orderId": "A-1"},
	})
	for it.Next() {
		s := it.Current()
		fmt.Println(s.ID, s.Status, s.Record.RefundedAmount)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output: sess_paid paid 0
}

func ExampleRecordService_Get() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	record, err := client.Records.Get(context.Background(), "rec_9")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(record.Status, record.RefundedAmount)
	for _, r := range record.Refunds {
		fmt.Println(r.ID, r.Amount, r.Status)
	}
	// Output:
	// partially_refunded 1000
	// ref_9 1000 succeeded
}

func ExampleRecordService_List() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	it := client.Records.List(context.Background(), &till.RecordListParams{SessionID: "sess_paid"})
	for it.Next() {
		fmt.Println(it.Current().ID, it.Current().Amount)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output: rec_9 9900
}

func ExampleRefundService_Get() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	refund, err := client.Refunds.Get(context.Background(), "ref_9")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(refund.RecordID, refund.Amount, refund.Reason)
	// Output: rec_9 1000 damaged
}

func ExampleRefundService_List() {
	client := till.NewClient("sk_test_…", till.WithBaseURL(fakeTill()))
	it := client.Refunds.List(context.Background(), &till.RefundListParams{
		RecordID:     "rec_9",
		CreatedRange: till.CreatedRange{CreatedGTE: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
	})
	for it.Next() {
		fmt.Println(it.Current().ID, it.Current().Status)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output: ref_9 succeeded
}

// fakeTill answers like Till, from canned bodies, on a loopback port shared by the examples.
var fakeTill = sync.OnceValue(func() string {
	const session = `"url":"https://pay.example.com/c/sess_new","amount":9900,"currency":"CNY","expiresAt":"2026-11-21T10:30:00.000Z","createdAt":"2026-11-21T09:30:00.000Z","mode":"test"`
	const paid = `{"id":"sess_paid","status":"paid",` + session + `,"chosenProvider":"mock","record":{"id":"rec_1","provider":"mock","providerRef":"mock_1","amount":9900,"refundedAmount":0,"status":"paid","paidAt":"2026-11-21T09:31:00.000Z"}}`
	const record = `"sessionId":"sess_paid","provider":"mock","providerRef":"mock_1","amount":9900,"currency":"CNY","mode":"test","paidAt":"2026-11-21T09:31:00.000Z","createdAt":"2026-11-21T09:31:00.000Z"`
	const endpoint = `"id":"we_1","url":"https://shop.example/till/webhooks","mode":"test","previousSecretExpiresAt":null,"createdAt":"2026-11-21T09:30:00.000Z","updatedAt":"2026-11-21T09:30:00.000Z"`
	const events = `"events":["payment.succeeded","refund.succeeded","refund.failed"],"enabled":true`
	const event = `"type":"payment.succeeded","createdAt":"2026-11-21T09:31:00.000Z","mode":"test","data":{}`
	const refund9 = `{"id":"ref_9","amount":1000,"status":"succeeded","providerRef":"mock_r9","reason":"damaged","createdAt":"2026-11-21T09:40:00.000Z","recordId":"rec_9"}`
	const record9 = `{"id":"rec_9",` + record + `,"status":"partially_refunded","refundedAmount":1000,"refunds":[` + refund9 + `]}`
	answers := map[string]string{
		"POST /api/v1/checkout":                              `{"id":"sess_new","status":"pending",` + session + `}`,
		"GET /api/v1/sessions/sess_paid":                     paid,
		"POST /api/v1/test_helpers/sessions/sess_new/pay":    strings.Replace(paid, "sess_paid", "sess_new", 1),
		"POST /api/v1/test_helpers/sessions/sess_new/fail":   `{"id":"sess_new","status":"failed",` + session + `,"chosenProvider":"mock"}`,
		"POST /api/v1/test_helpers/sessions/sess_new/cancel": `{"id":"sess_new","status":"canceled",` + session + `,"chosenProvider":null}`,
		"POST /api/v1/test_helpers/sessions/sess_new/expire": `{"id":"sess_new","status":"expired",` + session + `,"chosenProvider":null}`,
		"POST /api/v1/test_helpers/refunds/ref_pending/succeed": `{"id":"rec_1",` + record + `,"status":"refunded","refundedAmount":9900,` +
			`"refund":{"id":"ref_pending","amount":9900,"status":"succeeded","providerRef":"mock_r1","reason":null,"createdAt":"2026-11-21T09:40:00.000Z"}}`,
		"POST /api/v1/test_helpers/refunds/ref_pending/fail": `{"id":"rec_1",` + record + `,"status":"paid","refundedAmount":0,` +
			`"refund":{"id":"ref_pending","amount":9900,"status":"failed","providerRef":null,"reason":null,"createdAt":"2026-11-21T09:40:00.000Z"}}`,
		"POST /api/v1/webhook_endpoints":        `{` + endpoint + `,` + events + `,"secret":"whsec_0123456789abcdefghijklmnopqrstuv"}`,
		"GET /api/v1/webhook_endpoints":         `{"data":[{` + endpoint + `,` + events + `}]}`,
		"GET /api/v1/webhook_endpoints/we_1":    `{` + endpoint + `,` + events + `}`,
		"PATCH /api/v1/webhook_endpoints/we_1":  `{` + endpoint + `,"events":null,"enabled":false}`,
		"DELETE /api/v1/webhook_endpoints/we_1": `{"id":"we_1","deleted":true}`,
		"POST /api/v1/webhook_endpoints/we_1/rotate_secret": `{` + strings.Replace(endpoint, `"previousSecretExpiresAt":null`, `"previousSecretExpiresAt":"2026-11-22T09:30:00.000Z"`, 1) +
			`,` + events + `,"secret":"whsec_Zq8m1TnV0c3XkLpR7sJd2yGh5WfB9aUe"}`,
		"GET /api/v1/events?type=payment.succeeded":                      `{"data":[{"id":"evt_2",` + event + `}],"hasMore":true}`,
		"GET /api/v1/events?starting_after=evt_2&type=payment.succeeded": `{"data":[{"id":"evt_1",` + event + `}],"hasMore":false}`,
		"GET /api/v1/events/evt_1": `{"id":"evt_1",` + event + `,"deliveries":[{"endpointId":"we_1","url":"https://shop.example/till/webhooks","status":"delivered",` +
			`"nextAttemptAt":null,"deliveredAt":"2026-11-21T09:31:01.000Z","attempts":[{"attemptedAt":"2026-11-21T09:31:01.000Z","statusCode":200,"latencyMs":35,"responseBody":"","error":null}]}]}`,
		"GET /api/v1/sessions?metadata%5BorderId%5D=A-1&status=paid":               `{"data":[` + paid + `],"hasMore":false}`,
		"GET /api/v1/records/rec_9":                                                record9,
		"GET /api/v1/records?session_id=sess_paid":                                 `{"data":[` + record9 + `],"hasMore":false}`,
		"GET /api/v1/refunds/ref_9":                                                refund9,
		"GET /api/v1/refunds?created_gte=2026-11-01T00%3A00%3A00Z&record_id=rec_9": `{"data":[` + refund9 + `],"hasMore":false}`,
		"POST /api/v1/events/evt_1/redeliver":                                      `{"id":"evt_1","scheduled":[{"endpointId":"we_1","url":"https://shop.example/till/webhooks","nextAttemptAt":"2026-11-21T10:00:00.000Z"}]}`,
	}
	refunded := map[string]int64{}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_1")
		if r.Header.Get("Authorization") != "Bearer sk_test_…" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":"invalid API key","code":"invalid_api_key"}`)
			return
		}
		if r.Method == http.MethodPost && r.URL.Path == "/api/v1/refunds" {
			// A little state per record, so the refund example shows a partial then a full refund.
			var in struct {
				RecordID string `json:"recordId"`
				Amount   *int64 `json:"amount"`
			}
			_ = json.NewDecoder(r.Body).Decode(&in)
			mu.Lock()
			defer mu.Unlock()
			left := 9900 - refunded[in.RecordID]
			amount := left
			if in.Amount != nil {
				amount = *in.Amount
			}
			if amount > left {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":"amount exceeds refundable","code":"amount_exceeds_refundable","refundable":%d}`, left)
				return
			}
			refunded[in.RecordID] += amount
			status := "partially_refunded"
			if refunded[in.RecordID] == 9900 {
				status = "refunded"
			}
			fmt.Fprintf(w, `{"id":%q,%s,"status":%q,"refundedAmount":%d,"refund":{"id":"ref_%d","amount":%d,"status":"succeeded","providerRef":"mock_r","reason":null,"createdAt":"2026-11-21T09:40:00.000Z"}}`,
				in.RecordID, record, status, refunded[in.RecordID], refunded[in.RecordID], amount)
			return
		}
		answer, ok := answers[r.Method+" "+r.URL.RequestURI()]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"Not found","code":"not_found"}`)
			return
		}
		_, _ = io.WriteString(w, answer)
	}))
	return srv.URL
})

func sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// signedDelivery is a webhook delivery as Till sends it, signed now.
func signedDelivery(secret string) *http.Request {
	body := `{"id":"evt_1","type":"payment.succeeded","createdAt":"` + time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + `","mode":"test",` +
		`"data":{"sessionId":"sess_1","status":"paid","amount":9900,"currency":"CNY","metadata":{"orderId":"A-1"},"recordId":"rec_1","provider":"mock","providerRef":"mock_1","paidAt":"2026-11-21T09:31:00.000Z"}}`
	r := httptest.NewRequest(http.MethodPost, "/till/webhooks", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(till.SignatureHeader, sign(secret, []byte(body)))
	return r
}
