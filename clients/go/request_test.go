package till

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

const testKey = "sk_test_0123456789abcdefghijklmnopqrstuv"

const sessionJSON = `{"id":"sess_1","status":"pending","url":"http://till.test/c/sess_1","amount":9900,"currency":"CNY",` +
	`"expiresAt":"2026-11-21T10:30:00.000Z","createdAt":"2026-11-21T09:30:00.000Z","mode":"test"}`

// fast is a client whose waits are recorded instead of slept.
func fast(baseURL string, opts ...Option) (*Client, *[]time.Duration) {
	c := NewClient(testKey, append([]Option{WithBaseURL(baseURL), WithRetryBackoff(100*time.Millisecond, 300*time.Millisecond)}, opts...)...)
	var sleeps []time.Duration
	c.sleepHook = func(d time.Duration) { sleeps = append(sleeps, d) }
	return c, &sleeps
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestRequestsCarryKeyHeadersAndBody(t *testing.T) {
	fs := newFaultServer(t, func(seen, int) answer { return answer{status: 200, body: sessionJSON} })
	c, _ := fast(fs.URL + "/")
	ctx := context.Background()
	s, err := c.CreateCheckout(ctx, &CheckoutParams{
		Amount: 9900, Currency: CNY, Description: "Order A-1", Metadata: map[string]string{"order": "A-1"},
		ProviderHints: map[string]string{"wechat": "shop-2"}, Extra: map[string]any{"futureField": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "sess_1" || s.Amount != 9900 || s.Currency != CNY || s.ExpiresAt.Unix() != 1795257000 {
		t.Fatalf("%+v", s)
	}
	if _, err := c.GetSession(ctx, "sess_1/../x"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Refund(ctx, &RefundParams{RecordID: "rec_1", Params: Params{IdempotencyKey: "refund-order-7"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TestHelpers.Sessions.Expire(ctx, "sess_1", nil); err != nil {
		t.Fatal(err)
	}
	got := fs.seen()
	first := got[0]
	if first.Method != "POST" || first.URL != "/api/v1/checkout" {
		t.Fatalf("%s %s", first.Method, first.URL)
	}
	for k, want := range map[string]string{"Authorization": "Bearer " + testKey, "Content-Type": "application/json", "Accept": "application/json"} {
		if first.Header.Get(k) != want {
			t.Errorf("%s: %q", k, first.Header.Get(k))
		}
	}
	if !strings.HasPrefix(first.Header.Get("User-Agent"), "till-go/"+Version+" go") {
		t.Errorf("User-Agent %q", first.Header.Get("User-Agent"))
	}
	if !uuidV4.MatchString(first.Header.Get("Idempotency-Key")) {
		t.Errorf("generated key %q", first.Header.Get("Idempotency-Key"))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(first.Body), &body); err != nil {
		t.Fatal(err)
	}
	want := `{"amount":9900,"currency":"CNY","description":"Order A-1","futureField":true,"metadata":{"order":"A-1"},"providerHints":{"wechat":"shop-2"}}`
	if again, _ := json.Marshal(body); string(again) != want {
		t.Errorf("body %s", first.Body)
	}
	if got[1].Method != "GET" || got[1].URL != "/api/v1/sessions/sess_1%2F..%2Fx" || got[1].Header.Get("Idempotency-Key") != "" || got[1].Body != "" {
		t.Errorf("GET: %+v", got[1])
	}
	if got[2].Body != `{"recordId":"rec_1"}` || got[2].Header.Get("Idempotency-Key") != "refund-order-7" {
		t.Errorf("refund: a nil amount is left out, the given key is sent: %+v", got[2])
	}
	if got[3].URL != "/api/v1/test_helpers/sessions/sess_1/expire" || got[3].Body != "{}" || got[3].Header.Get("Idempotency-Key") == "" {
		t.Errorf("test helper: %+v", got[3])
	}
}

func TestParamsEncodeAsTheAPIExpects(t *testing.T) {
	cases := []struct {
		params any
		want   string
	}{
		{RefundParams{RecordID: "rec_1", Amount: Int64(1000), Reason: "damaged"}, `{"recordId":"rec_1","amount":1000,"reason":"damaged"}`},
		{CheckoutParams{Amount: 1500, Currency: JPY}, `{"amount":1500,"currency":"JPY"}`},
		{WebhookEndpointUpdateParams{Enabled: Bool(false)}, `{"enabled":false}`},
		{WebhookEndpointUpdateParams{AllEvents: true}, `{"events":null}`},
		{WebhookEndpointUpdateParams{Events: []EventType{EventRefundSucceeded}}, `{"events":["refund.succeeded"]}`},
		{PayParams{RefundBehavior: RefundBehaviorPending}, `{"refundBehavior":"pending"}`},
	}
	for _, tc := range cases {
		got, err := json.Marshal(tc.params)
		if err != nil || string(got) != tc.want {
			t.Errorf("%T: %s %v, want %s", tc.params, got, err, tc.want)
		}
	}
	if _, err := json.Marshal(WebhookEndpointUpdateParams{AllEvents: true, Events: []EventType{EventPaymentFailed}}); err == nil {
		t.Error("AllEvents with Events")
	}
}

// The interface specification tells merchants to send providerHints as an extra field: an Extra key
// naming a field is sent when the field is unset, and refused only when the two differ.
func TestCheckoutExtraMayNameAnUnsetField(t *testing.T) {
	hints := map[string]string{"wechat": "shop-2"}
	sent := []struct {
		params CheckoutParams
		want   string
	}{
		{CheckoutParams{Amount: 100, Currency: CNY, Extra: map[string]any{"providerHints": map[string]any{"wechat": "shop-2"}}},
			`{"amount":100,"currency":"CNY","providerHints":{"wechat":"shop-2"}}`},
		{CheckoutParams{Amount: 100, Currency: CNY, ProviderHints: hints, Extra: map[string]any{"providerHints": hints}},
			`{"amount":100,"currency":"CNY","providerHints":{"wechat":"shop-2"}}`},
		{CheckoutParams{Currency: CNY, Extra: map[string]any{"amount": 100, "successUrl": "https://shop.example/done"}},
			`{"amount":100,"currency":"CNY","successUrl":"https://shop.example/done"}`},
		{CheckoutParams{Amount: 100, Currency: CNY, CancelURL: "https://shop.example/cart", Extra: map[string]any{"successUrl": "https://shop.example/done"}},
			`{"amount":100,"cancelUrl":"https://shop.example/cart","currency":"CNY","successUrl":"https://shop.example/done"}`},
		{CheckoutParams{Amount: 100, Currency: CNY, ExpiresInSeconds: 600, Extra: map[string]any{"expiresInSeconds": 600.0}},
			`{"amount":100,"currency":"CNY","expiresInSeconds":600}`},
	}
	for _, tc := range sent {
		got, err := json.Marshal(tc.params)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: %s %v, want %s", tc.params, got, err, tc.want)
		}
	}
	refused := []struct {
		params CheckoutParams
		names  string
	}{
		{CheckoutParams{Amount: 100, Currency: CNY, ProviderHints: hints, Extra: map[string]any{"providerHints": map[string]string{"wechat": "shop-3"}}},
			`CheckoutParams.ProviderHints and Extra["providerHints"]`},
		{CheckoutParams{Amount: 100, Currency: CNY, Extra: map[string]any{"currency": "USD"}}, `CheckoutParams.Currency and Extra["currency"]`},
		{CheckoutParams{Amount: 1, Currency: USD, Extra: map[string]any{"amount": 100}}, `CheckoutParams.Amount and Extra["amount"]`},
	}
	for _, tc := range refused {
		if _, err := json.Marshal(tc.params); err == nil || !strings.Contains(err.Error(), tc.names) || !strings.Contains(err.Error(), "differ") {
			t.Errorf("%+v: %v, want an error naming %s", tc.params, err, tc.names)
		}
	}
}

func TestClientErrorsAreNotRetriedAndCarryTheAnswer(t *testing.T) {
	cases := []struct {
		status   int
		body     string
		sentinel error
	}{
		{400, `{"error":"amount exceeds refundable","code":"amount_exceeds_refundable","refundable":500}`, ErrInvalidRequest},
		{400, `{"error":"amount: must be an integer","code":"invalid_field","param":"amount"}`, ErrInvalidRequest},
		{401, `{"error":"invalid API key"}`, ErrAuthentication},
		{404, `{"error":"Not found"}`, ErrNotFound},
		{413, `<html>too large</html>`, nil},
	}
	for _, tc := range cases {
		fs := newFaultServer(t, func(seen, int) answer { return answer{status: tc.status, body: tc.body} })
		c, _ := fast(fs.URL)
		_, err := c.Refund(context.Background(), &RefundParams{RecordID: "rec_1", Amount: Int64(600)})
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%d: %v", tc.status, err)
		}
		if e.StatusCode != tc.status || string(e.Body) != tc.body || e.RequestID != "req_1" {
			t.Errorf("%d: %+v", tc.status, e)
		}
		for _, s := range []error{ErrInvalidRequest, ErrAuthentication, ErrNotFound, ErrConflict, ErrRateLimit} {
			if errors.Is(err, s) != (s == tc.sentinel) {
				t.Errorf("%d: errors.Is(%v) = %v", tc.status, s, !(s == tc.sentinel))
			}
		}
		if n := len(fs.seen()); n != 1 {
			t.Errorf("%d sent %d times", tc.status, n)
		}
	}
	fs := newFaultServer(t, func(seen, int) answer {
		return answer{status: 400, body: `{"error":"amount exceeds refundable","code":"amount_exceeds_refundable","refundable":500}`}
	})
	c, _ := fast(fs.URL)
	_, err := c.Refund(context.Background(), &RefundParams{RecordID: "rec_1"})
	var e *Error
	if !errors.As(err, &e) || e.Message != "amount exceeds refundable" || e.Code != "amount_exceeds_refundable" || e.Refundable == nil || *e.Refundable != 500 {
		t.Fatalf("%+v", e)
	}
	if err.Error() != "till: 400 amount exceeds refundable (code amount_exceeds_refundable) [request req_1]" {
		t.Errorf("Error() = %q", err.Error())
	}
	fs = newFaultServer(t, func(seen, int) answer {
		return answer{status: 400, body: `{"error":"amount: must be ≥ 1","code":"invalid_field","param":"amount"}`}
	})
	c, _ = fast(fs.URL)
	_, err = c.CreateCheckout(context.Background(), &CheckoutParams{Currency: CNY})
	if !errors.As(err, &e) || e.Param != "amount" || e.Code != "invalid_field" {
		t.Fatalf("%+v", e)
	}
	fs = newFaultServer(t, func(seen, int) answer { return answer{status: 502, body: `<html>bad gateway</html>`} })
	c, _ = fast(fs.URL, WithMaxRetries(0))
	_, err = c.GetSession(context.Background(), "sess_1")
	if !errors.As(err, &e) || e.Message != "HTTP 502" || string(e.Body) != "<html>bad gateway</html>" {
		t.Fatalf("a body that is not JSON: %+v", e)
	}
}

func TestConflictIsRetriedWithTheSameKeyUntilTheReplayAnswers(t *testing.T) {
	fs := newFaultServer(t, func(_ seen, n int) answer {
		if n < 3 {
			return answer{status: 409, body: `{"error":"a request with this idempotency key is still in progress"}`}
		}
		return answer{status: 200, body: sessionJSON}
	})
	c, sleeps := fast(fs.URL)
	if _, err := c.CreateCheckout(context.Background(), &CheckoutParams{Amount: 1, Currency: USD}); err != nil {
		t.Fatal(err)
	}
	if len(fs.seen()) != 3 || len(fs.keys()) != 1 || len(*sleeps) != 2 {
		t.Fatalf("%d requests, keys %v, sleeps %v", len(fs.seen()), fs.keys(), *sleeps)
	}
}

func TestAfterTheRetriesTheLastAnswerIsReturned(t *testing.T) {
	for _, tc := range []struct {
		status   int
		sentinel error
	}{{500, nil}, {503, nil}, {409, ErrConflict}, {429, ErrRateLimit}} {
		fs := newFaultServer(t, func(seen, int) answer {
			return answer{status: tc.status, body: `{"error":"e"}`, header: map[string]string{"Retry-After": "0"}}
		})
		c, _ := fast(fs.URL, WithMaxRetries(3))
		_, err := c.CreateCheckout(context.Background(), &CheckoutParams{Amount: 1, Currency: EUR})
		var e *Error
		if !errors.As(err, &e) || e.StatusCode != tc.status || (tc.sentinel != nil && !errors.Is(err, tc.sentinel)) {
			t.Errorf("%d: %v", tc.status, err)
		}
		if len(fs.seen()) != 4 || len(fs.keys()) != 1 {
			t.Errorf("%d: %d requests with keys %v, want 4 with one key", tc.status, len(fs.seen()), fs.keys())
		}
	}
}

func TestRetryAfterSetsTheWaitAndBackoffDoublesWithJitter(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	fs := newFaultServer(t, func(_ seen, n int) answer {
		switch n {
		case 1:
			return answer{status: 429, header: map[string]string{"Retry-After": "2"}}
		case 2:
			return answer{status: 503, header: map[string]string{"Retry-After": date}}
		}
		return answer{status: 200, body: `{}`}
	})
	c, sleeps := fast(fs.URL, WithMaxRetries(3))
	if _, err := c.Refund(context.Background(), &RefundParams{RecordID: "rec_1"}); err != nil {
		t.Fatal(err)
	}
	if s := *sleeps; len(s) != 2 || s[0] != 2*time.Second || s[1] < 28*time.Second || s[1] > 30*time.Second {
		t.Fatalf("waits %v", s)
	}

	fs = newFaultServer(t, func(seen, int) answer { return answer{status: 502} })
	c, sleeps = fast(fs.URL, WithMaxRetries(4))
	if _, err := c.GetSession(context.Background(), "sess_1"); err == nil {
		t.Fatal("no error after the retries")
	}
	s := *sleeps
	ms := func(i int) time.Duration { return s[i] / time.Millisecond }
	if len(s) != 4 || ms(0) < 50 || ms(0) > 100 || ms(1) < 100 || ms(1) > 200 || ms(2) < 150 || ms(2) > 300 || ms(3) < 150 || ms(3) > 300 {
		t.Fatalf("backoff %v: want 50-100, 100-200, then capped 150-300 ms", s)
	}
}

func TestRetryAfterIsWaitedForInRealTime(t *testing.T) {
	var first, second time.Time
	fs := newFaultServer(t, func(_ seen, n int) answer {
		if n == 1 {
			first = time.Now()
			return answer{status: 429, body: `{"error":"rate limit exceeded"}`, header: map[string]string{"Retry-After": "1"}}
		}
		second = time.Now()
		return answer{status: 200, body: sessionJSON}
	})
	if _, err := NewClient(testKey, WithBaseURL(fs.URL)).GetSession(context.Background(), "sess_1"); err != nil {
		t.Fatal(err)
	}
	if waited := second.Sub(first); waited < 990*time.Millisecond {
		t.Fatalf("waited %v", waited)
	}
}

func TestARetryAfterBeyondTheMaximumIsReturnedAtOnce(t *testing.T) {
	fs := newFaultServer(t, func(seen, int) answer {
		return answer{status: 429, body: `{"error":"rate limit exceeded"}`, header: map[string]string{"Retry-After": "3600"}}
	})
	c, sleeps := fast(fs.URL)
	_, err := c.GetSession(context.Background(), "sess_1")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrRateLimit) || e.RetryAfter != time.Hour {
		t.Fatalf("%v", err)
	}
	if len(*sleeps) != 0 || len(fs.seen()) != 1 {
		t.Fatalf("waited %v, sent %d", *sleeps, len(fs.seen()))
	}
}

func TestDroppedConnectionsAreRetriedWithTheSameKey(t *testing.T) {
	fs := newFaultServer(t, func(_ seen, n int) answer {
		if n <= 2 {
			return answer{reset: true}
		}
		return answer{status: 200, body: `{"id":"rec_1","refundedAmount":700,"refund":{"id":"ref_1","amount":700}}`}
	})
	c, _ := fast(fs.URL)
	r, err := c.Refund(context.Background(), &RefundParams{RecordID: "rec_1", Amount: Int64(700)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Refund.Amount != 700 || len(fs.seen()) != 3 || len(fs.keys()) != 1 {
		t.Fatalf("%+v, %d requests, keys %v", r, len(fs.seen()), fs.keys())
	}
	for _, s := range fs.seen() {
		if s.Body != `{"recordId":"rec_1","amount":700}` {
			t.Fatalf("a retry sent %q", s.Body)
		}
	}

	fs = newFaultServer(t, func(seen, int) answer { return answer{reset: true} })
	c, _ = fast(fs.URL)
	_, err = c.Refund(context.Background(), &RefundParams{RecordID: "rec_1"})
	var ce *ConnectionError
	if !errors.As(err, &ce) || ce.Timeout || ce.Attempts != 3 || ce.Method != "POST" || ce.Path != "/api/v1/refunds" {
		t.Fatalf("%#v", err)
	}
	var e *Error
	if errors.As(err, &e) {
		t.Fatal("a connection error is not an answer")
	}
}

func TestAServerThatNeverAnswersTimesOutPerAttempt(t *testing.T) {
	fs := newFaultServer(t, func(seen, int) answer { return answer{hang: true} })
	c, _ := fast(fs.URL, WithTimeout(100*time.Millisecond))
	start := time.Now()
	_, err := c.Refund(context.Background(), &RefundParams{RecordID: "rec_1"})
	var ce *ConnectionError
	if !errors.As(err, &ce) || !ce.Timeout || ce.Attempts != 3 {
		t.Fatalf("%v", err)
	}
	if err.Error() != "till: POST /api/v1/refunds timed out (3 attempts)" {
		t.Errorf("%q", err.Error())
	}
	if len(fs.seen()) != 3 || len(fs.keys()) != 1 {
		t.Fatalf("%d requests, keys %v", len(fs.seen()), fs.keys())
	}
	if took := time.Since(start); took < 300*time.Millisecond || took > 5*time.Second {
		t.Fatalf("took %v for 3 attempts of 100 ms", took)
	}
}

func TestARefusedConnectionNamesTheCause(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing accepts there now
	c, _ := fast("http://"+addr, WithMaxRetries(0))
	_, err = c.GetSession(context.Background(), "sess_1")
	var ce *ConnectionError
	if !errors.As(err, &ce) || ce.Timeout || ce.Attempts != 1 || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("%v", err)
	}
}

func TestCancellingTheContextStopsRetriesAtOnce(t *testing.T) {
	// Till asks to wait 30 s; the caller gives up after the first answer.
	fs := newFaultServer(t, func(seen, int) answer {
		return answer{status: 503, body: `{"error":"service unavailable"}`, header: map[string]string{"Retry-After": "30"}}
	})
	c := NewClient(testKey, WithBaseURL(fs.URL), WithMaxRetries(5))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-fs.got
		time.Sleep(50 * time.Millisecond) // let the client start waiting
		cancel()
	}()
	start := time.Now()
	_, err := c.CreateCheckout(ctx, &CheckoutParams{Amount: 1, Currency: USD})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("returned after %v", took)
	}
	if len(fs.seen()) != 1 {
		t.Fatalf("%d requests after the cancel", len(fs.seen()))
	}

	// Cancelled during an attempt that would hang: no retry either.
	fs = newFaultServer(t, func(seen, int) answer { return answer{hang: true} })
	c = NewClient(testKey, WithBaseURL(fs.URL), WithMaxRetries(5))
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		<-fs.got
		cancel()
	}()
	start = time.Now()
	if _, err := c.GetSession(ctx, "sess_1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
	if took := time.Since(start); took > 2*time.Second || len(fs.seen()) != 1 {
		t.Fatalf("returned after %v with %d requests", took, len(fs.seen()))
	}

	// A deadline on the context is reported as such.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.GetSession(ctx, "sess_1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
}

func TestAnUnusableConfigurationIsReportedByEveryCall(t *testing.T) {
	fs := newFaultServer(t, func(seen, int) answer { return answer{status: 200, body: sessionJSON} })
	for _, c := range []*Client{
		NewClient(""),
		NewClient(testKey, WithBaseURL("localhost:8080")),
		NewClient(testKey, WithBaseURL("not a url")),
		NewClient(testKey, WithBaseURL(fs.URL), WithTimeout(0)),
		NewClient(testKey, WithBaseURL(fs.URL), WithHTTPClient(nil)),
		NewClient(testKey, WithBaseURL(fs.URL), WithMaxRetries(-1)),
	} {
		if _, err := c.GetSession(context.Background(), "sess_1"); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%v", err)
		}
	}
	if c := NewClient(testKey, WithBaseURL("")); c.err != nil || c.baseURL != "http://localhost:8080" {
		t.Errorf("an empty base URL keeps the default: %q %v", c.baseURL, c.err)
	}
	c, _ := fast(fs.URL)
	var noContext context.Context
	if _, err := c.GetSession(noContext, "sess_1"); err == nil {
		t.Error("a nil context")
	}
	if _, err := c.GetSession(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "id must not be empty") {
		t.Errorf("an empty id: %v", err)
	}
	if _, err := c.Refund(context.Background(), nil); err == nil {
		t.Error("nil params")
	}
	if len(fs.seen()) != 0 {
		t.Fatalf("%d requests were sent", len(fs.seen()))
	}
}

func TestListsFetchPageAfterPage(t *testing.T) {
	fs := newFaultServer(t, func(s seen, n int) answer {
		switch n {
		case 1:
			return answer{status: 200, body: `{"data":[{"id":"evt_3"},{"id":"evt_2"}],"hasMore":true}`}
		case 2:
			return answer{status: 200, body: `{"data":[{"id":"evt_1"}],"hasMore":false}`}
		}
		return answer{status: 500}
	})
	c, _ := fast(fs.URL)
	it := c.Events.List(context.Background(), &EventListParams{ListParams: ListParams{Limit: 2}, Type: EventPaymentSucceeded})
	var ids []string
	for it.Next() {
		ids = append(ids, it.Current().ID)
	}
	if it.Err() != nil || strings.Join(ids, ",") != "evt_3,evt_2,evt_1" {
		t.Fatalf("%v %v", ids, it.Err())
	}
	urls := []string{}
	for _, s := range fs.seen() {
		urls = append(urls, s.URL)
	}
	if strings.Join(urls, " ") != "/api/v1/events?limit=2&type=payment.succeeded /api/v1/events?limit=2&starting_after=evt_2&type=payment.succeeded" {
		t.Fatalf("%v", urls)
	}

	fs = newFaultServer(t, func(s seen, n int) answer {
		if n == 1 {
			return answer{status: 200, body: `{"data":[{"id":"evt_9"}],"hasMore":true}`}
		}
		return answer{status: 401, body: `{"error":"invalid API key"}`}
	})
	c, _ = fast(fs.URL)
	it = c.Events.List(context.Background(), &EventListParams{ListParams: ListParams{StartingAfter: "evt_10"}})
	n := 0
	for it.Next() {
		n++
	}
	if n != 1 || !errors.Is(it.Err(), ErrAuthentication) || it.Next() {
		t.Fatalf("%d items, %v", n, it.Err())
	}
	if u := fs.seen()[0].URL; u != "/api/v1/events?starting_after=evt_10" {
		t.Fatalf("%s", u)
	}
}

func TestARedirectIsNotFollowed(t *testing.T) {
	fs := newFaultServer(t, func(seen, int) answer {
		return answer{status: 308, header: map[string]string{"Location": "https://pay.example.com/api/v1/refunds"}}
	})
	c, _ := fast(fs.URL)
	_, err := c.Refund(context.Background(), &RefundParams{RecordID: "rec_1"})
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 308 || !strings.Contains(e.Message, "redirect to https://pay.example.com/api/v1/refunds") {
		t.Fatalf("%v", err)
	}
	if len(fs.seen()) != 1 {
		t.Fatalf("%d requests", len(fs.seen()))
	}
}
