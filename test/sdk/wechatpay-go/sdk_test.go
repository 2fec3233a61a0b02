// The official WeChat Pay Go SDK (github.com/wechatpay-apiv3/wechatpay-go) against a running
// `till fake wechat`: its signer signs every request the fake verifies, its response validator
// verifies every answer the fake signs, its notify handler verifies and decrypts the fake's
// notifications, its certificate downloader decrypts the fake's platform certificates; and every
// request Till's adapter sent to the fake (test/sdk/till-wechat-requests.ts, run first) decodes
// into the SDK's request types with unknown fields refused.
//
// Run by scripts/sdk-checks.sh with FAKE_JSON naming the file `till fake wechat --json` wrote.
package sdkcheck

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wechatpay-apiv3/wechatpay-go/core"
	"github.com/wechatpay-apiv3/wechatpay-go/core/auth/verifiers"
	"github.com/wechatpay-apiv3/wechatpay-go/core/downloader"
	"github.com/wechatpay-apiv3/wechatpay-go/core/notify"
	"github.com/wechatpay-apiv3/wechatpay-go/core/option"
	"github.com/wechatpay-apiv3/wechatpay-go/services/payments"
	"github.com/wechatpay-apiv3/wechatpay-go/services/payments/h5"
	"github.com/wechatpay-apiv3/wechatpay-go/services/payments/jsapi"
	"github.com/wechatpay-apiv3/wechatpay-go/services/payments/native"
	"github.com/wechatpay-apiv3/wechatpay-go/services/refunddomestic"
	"github.com/wechatpay-apiv3/wechatpay-go/utils"
)

type fakeInfo struct {
	URL         string `json:"url"`
	Credentials struct {
		MchID               string `json:"mchId"`
		AppID               string `json:"appId"`
		MerchantSerialNo    string `json:"merchantSerialNo"`
		PrivateKey          string `json:"privateKey"`
		APIv3Key            string `json:"apiV3Key"`
		PlatformPublicKeyID string `json:"platformPublicKeyId"`
		PlatformPublicKey   string `json:"platformPublicKey"`
	} `json:"credentials"`
}

type loggedRequest struct {
	Method          string          `json:"method"`
	Path            string          `json:"path"`
	Request         json.RawMessage `json:"request"`
	WechatpaySerial string          `json:"wechatpaySerial"`
	Status          int             `json:"status"`
}

func load(t *testing.T) (fakeInfo, *rsa.PrivateKey, *rsa.PublicKey) {
	t.Helper()
	raw, err := os.ReadFile(os.Getenv("FAKE_JSON"))
	if err != nil {
		t.Fatalf("FAKE_JSON must name the file `till fake wechat --json` wrote: %v", err)
	}
	var f fakeInfo
	if err := json.Unmarshal(bytes.SplitN(raw, []byte("\n"), 2)[0], &f); err != nil {
		t.Fatal(err)
	}
	key, err := utils.LoadPrivateKey(f.Credentials.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := utils.LoadPublicKey(f.Credentials.PlatformPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return f, key, pub
}

// The SDK's services call https://api.mch.weixin.qq.com; this sends them to the fake instead.
// Only the host changes: the signature covers the method, path, query and body.
type toFake struct{ base *url.URL }

func (r toFake) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.base.Scheme, r.base.Host, r.base.Host
	return http.DefaultTransport.RoundTrip(req)
}

func httpClient(f fakeInfo) *http.Client {
	base, _ := url.Parse(f.URL)
	return &http.Client{Transport: toFake{base}, Timeout: 10 * time.Second}
}

func knob(t *testing.T, f fakeInfo, path string, body any) []byte {
	t.Helper()
	method, payload := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, _ := json.Marshal(body)
		method, payload = http.MethodPost, bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.URL+"/__fake/wechat"+path, payload)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, out)
	}
	return out
}

func requests(t *testing.T, f fakeInfo) []loggedRequest {
	var log struct {
		Requests []loggedRequest `json:"requests"`
	}
	if err := json.Unmarshal(knob(t, f, "/requests", nil), &log); err != nil {
		t.Fatal(err)
	}
	return log.Requests
}

func newestCertificateSerial(t *testing.T, f fakeInfo) string {
	var id struct {
		Certificates []struct {
			Serial string `json:"serial"`
			Pem    string `json:"pem"`
		} `json:"certificates"`
	}
	if err := json.Unmarshal(knob(t, f, "/identity", nil), &id); err != nil {
		t.Fatal(err)
	}
	newest, serial := time.Time{}, ""
	for _, c := range id.Certificates {
		block, _ := pem.Decode([]byte(c.Pem))
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if serial == "" || cert.NotBefore.After(newest) {
			newest, serial = cert.NotBefore, c.Serial
		}
	}
	return serial
}

func strictDecode(raw json.RawMessage, into any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(into); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

// sdkType is the SDK's request type for a request Till sends, by path.
func sdkType(method, path string) any {
	p := strings.SplitN(path, "?", 2)[0]
	switch {
	case method == "POST" && p == "/v3/pay/transactions/native":
		return &native.PrepayRequest{}
	case method == "POST" && p == "/v3/pay/transactions/jsapi":
		return &jsapi.PrepayRequest{}
	case method == "POST" && p == "/v3/pay/transactions/h5":
		return &h5.PrepayRequest{}
	case method == "POST" && strings.HasSuffix(p, "/close"):
		return &native.CloseOrderRequest{}
	case method == "POST" && p == "/v3/refund/domestic/refunds":
		return &refunddomestic.CreateRequest{}
	}
	return nil
}

// Till's requests (test/sdk/till-wechat-requests.ts) decode into the SDK's request types with
// unknown fields refused, and in certificate mode name the newest certificate as the SDK does.
func TestTillRequestsDecodeIntoSDKTypes(t *testing.T) {
	f, _, _ := load(t)
	seen := map[string]int{}
	certSerials := map[string]bool{}
	for _, r := range requests(t, f) {
		if !strings.Contains(r.Path, "att_") && !strings.Contains(string(r.Request), `"att_`) && !strings.Contains(r.Path, "ref_") {
			continue // not Till's (the certificate list, or this SDK's own calls)
		}
		if r.WechatpaySerial == "" {
			t.Errorf("Till's %s %s named no Wechatpay-Serial", r.Method, r.Path)
		} else if !strings.HasPrefix(r.WechatpaySerial, "PUB_KEY_ID_") {
			certSerials[r.WechatpaySerial] = true
		}
		into := sdkType(r.Method, r.Path)
		if into == nil {
			if len(r.Request) > 0 && string(r.Request) != "null" {
				t.Errorf("Till's %s %s sent a body the SDK sends none for: %s", r.Method, r.Path, r.Request)
			}
			seen["GET"]++
			continue
		}
		if err := strictDecode(r.Request, into); err != nil {
			t.Errorf("Till's %s %s does not decode into %T: %v\n%s", r.Method, r.Path, into, err, r.Request)
		}
		seen[fmt.Sprintf("%T", into)]++
	}
	for _, want := range []string{"*native.PrepayRequest", "*jsapi.PrepayRequest", "*h5.PrepayRequest", "*native.CloseOrderRequest", "*refunddomestic.CreateRequest", "GET"} {
		if seen[want] < 2 {
			t.Errorf("expected Till's requests of %s in both modes, saw %d", want, seen[want])
		}
	}
	newest := newestCertificateSerial(t, f)
	if len(certSerials) != 1 || !certSerials[newest] {
		t.Errorf("in certificate mode Till named %v, the SDK names the newest certificate %s", certSerials, newest)
	}
	// The check bites: a field the SDK's type lacks is refused.
	if err := strictDecode(json.RawMessage(`{"appid":"wx1","mchid":"1","amount":{"total":1,"currency":"CNY"},"extra":1}`), &native.PrepayRequest{}); err == nil {
		t.Error("an unknown field was not refused")
	}
}

// Public-key mode: signer, response validator, notify handler and the JSAPI paySign, end to end.
func TestSDKAgainstFakeInPublicKeyMode(t *testing.T) {
	f, key, pub := load(t)
	ctx := context.Background()
	c := f.Credentials
	client, err := core.NewClient(ctx,
		option.WithWechatPayPublicKeyAuthCipher(c.MchID, c.MerchantSerialNo, key, c.PlatformPublicKeyID, pub),
		option.WithHTTPClient(httpClient(f)))
	if err != nil {
		t.Fatal(err)
	}
	handler := notify.NewNotifyHandler(c.APIv3Key, verifiers.NewSHA256WithRSAPubkeyVerifier(c.PlatformPublicKeyID, *pub))
	type note struct {
		event   string
		content map[string]any
		err     error
	}
	notes := make(chan note, 8)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		content := map[string]any{}
		req, err := handler.ParseNotifyRequest(ctx, r, &content)
		if err != nil {
			notes <- note{err: err}
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		notes <- note{event: req.EventType, content: content}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer hook.Close()
	wait := func(event string) map[string]any {
		t.Helper()
		select {
		case n := <-notes:
			if n.err != nil {
				t.Fatalf("the SDK's notify handler refused the fake's %s: %v", event, n.err)
			}
			if n.event != event {
				t.Fatalf("expected %s, got %s", event, n.event)
			}
			return n.content
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s notification", event)
		}
		return nil
	}

	stamp := fmt.Sprintf("%d", time.Now().UnixNano()%1e12)
	outTradeNo := "sdk_native_" + stamp
	nativeAPI := native.NativeApiService{Client: client}
	prepay, _, err := nativeAPI.Prepay(ctx, native.PrepayRequest{
		Appid: core.String(c.AppID), Mchid: core.String(c.MchID), Description: core.String("SDK check"), OutTradeNo: core.String(outTradeNo),
		TimeExpire: core.Time(time.Now().Add(time.Hour)), NotifyUrl: core.String(hook.URL + "/notify"), LimitPay: []string{"no_credit"},
		Amount: &native.Amount{Total: core.Int64(9900), Currency: core.String("CNY")},
	})
	if err != nil {
		t.Fatalf("native prepay: %v", err)
	}
	if !strings.HasPrefix(*prepay.CodeUrl, "weixin://wxpay/bizpayurl/up?pr=") {
		t.Errorf("code_url %s", *prepay.CodeUrl)
	}
	tx, _, err := nativeAPI.QueryOrderByOutTradeNo(ctx, native.QueryOrderByOutTradeNoRequest{OutTradeNo: core.String(outTradeNo), Mchid: core.String(c.MchID)})
	if err != nil || *tx.TradeState != "NOTPAY" {
		t.Fatalf("query: %v %v", err, tx)
	}
	knob(t, f, "/pay", map[string]string{"out_trade_no": outTradeNo})
	paid := wait("TRANSACTION.SUCCESS")
	if paid["out_trade_no"] != outTradeNo || paid["trade_state"] != "SUCCESS" {
		t.Errorf("decrypted transaction: %v", paid)
	}
	var asTransaction payments.Transaction
	b, _ := json.Marshal(paid)
	if err := strictDecode(b, &asTransaction); err != nil {
		t.Errorf("the notification's transaction does not decode into payments.Transaction: %v", err)
	}

	refunds := refunddomestic.RefundsApiService{Client: client}
	outRefundNo := "sdk_refund_" + stamp
	refund, _, err := refunds.Create(ctx, refunddomestic.CreateRequest{
		OutTradeNo: core.String(outTradeNo), OutRefundNo: core.String(outRefundNo), Reason: core.String("SDK check"), NotifyUrl: core.String(hook.URL + "/notify"),
		Amount: &refunddomestic.AmountReq{Refund: core.Int64(100), Total: core.Int64(9900), Currency: core.String("CNY")},
	})
	if err != nil || *refund.Status != refunddomestic.STATUS_PROCESSING {
		t.Fatalf("refund: %v %v", err, refund)
	}
	refunded := wait("REFUND.SUCCESS")
	if refunded["out_refund_no"] != outRefundNo || refunded["refund_status"] != "SUCCESS" {
		t.Errorf("decrypted refund: %v", refunded)
	}
	queried, _, err := refunds.QueryByOutRefundNo(ctx, refunddomestic.QueryByOutRefundNoRequest{OutRefundNo: core.String(outRefundNo)})
	if err != nil || *queried.Status != refunddomestic.STATUS_SUCCESS {
		t.Fatalf("refund query: %v %v", err, queried)
	}

	h5API := h5.H5ApiService{Client: client}
	h5No := "sdk_h5_" + stamp
	if _, _, err := h5API.Prepay(ctx, h5.PrepayRequest{
		Appid: core.String(c.AppID), Mchid: core.String(c.MchID), Description: core.String("SDK check"), OutTradeNo: core.String(h5No),
		NotifyUrl: core.String(hook.URL + "/notify"), Amount: &h5.Amount{Total: core.Int64(100), Currency: core.String("CNY")},
		SceneInfo: &h5.SceneInfo{PayerClientIp: core.String("203.0.113.7"), H5Info: &h5.H5Info{Type: core.String("Wap")}},
	}); err != nil {
		t.Fatalf("h5 prepay: %v", err)
	}
	// A close answers 204 with an empty body, which the SDK's validator still verifies.
	if _, err := h5API.CloseOrder(ctx, h5.CloseOrderRequest{OutTradeNo: core.String(h5No), Mchid: core.String(c.MchID)}); err != nil {
		t.Fatalf("close: %v", err)
	}

	jsapiAPI := jsapi.JsapiApiService{Client: client}
	params, _, err := jsapiAPI.PrepayWithRequestPayment(ctx, jsapi.PrepayRequest{
		Appid: core.String(c.AppID), Mchid: core.String(c.MchID), Description: core.String("SDK check"), OutTradeNo: core.String("sdk_jsapi_" + stamp),
		NotifyUrl: core.String(hook.URL + "/notify"), Amount: &jsapi.Amount{Total: core.Int64(100), Currency: core.String("CNY")},
		Payer: &jsapi.Payer{Openid: core.String("oUpF8uMuAJO_M2pxb1Q9zNjWeS6o")},
	})
	if err != nil {
		t.Fatalf("jsapi prepay: %v", err)
	}
	var bridge struct {
		OK     bool   `json:"ok"`
		Reason string `json:"reason"`
	}
	json.Unmarshal(knob(t, f, "/jsapi/check", map[string]string{
		"appId": *params.Appid, "timeStamp": *params.TimeStamp, "nonceStr": *params.NonceStr, "package": *params.Package, "signType": *params.SignType, "paySign": *params.PaySign,
	}), &bridge)
	if !bridge.OK {
		t.Errorf("the fake refused the SDK's paySign: %s", bridge.Reason)
	}

	// The SDK names the public key in Wechatpay-Serial on every call, as Till does.
	for _, r := range requests(t, f) {
		if strings.Contains(r.Path, "sdk_") || strings.Contains(string(r.Request), `"sdk_`) {
			if r.WechatpaySerial != c.PlatformPublicKeyID {
				t.Errorf("the SDK's %s %s named %q", r.Method, r.Path, r.WechatpaySerial)
			}
		}
	}
}

// Certificate mode: the SDK's downloader decrypts the fake's certificates, and a client trusting
// them verifies the fake's answers; the serial it names is the one Till named.
func TestSDKAgainstFakeInCertificateMode(t *testing.T) {
	f, key, _ := load(t)
	ctx := context.Background()
	c := f.Credentials
	knob(t, f, "/mode", map[string]any{"mode": "platformCert"})
	defer knob(t, f, "/mode", map[string]any{"mode": "publicKey"})

	plain, err := core.NewClient(ctx, option.WithMerchantCredential(c.MchID, c.MerchantSerialNo, key), option.WithoutValidator(), option.WithHTTPClient(httpClient(f)))
	if err != nil {
		t.Fatal(err)
	}
	certs, err := downloader.NewCertificateDownloaderWithClient(ctx, plain, c.APIv3Key)
	if err != nil {
		t.Fatalf("the SDK's certificate downloader: %v", err)
	}
	newest := certs.GetNewestSerial(ctx)
	if newest != newestCertificateSerial(t, f) {
		t.Fatalf("downloaded newest %s, the fake's is %s", newest, newestCertificateSerial(t, f))
	}
	var list []*x509.Certificate
	for _, cert := range certs.GetAll(ctx) {
		list = append(list, cert)
	}
	client, err := core.NewClient(ctx, option.WithMerchantCredential(c.MchID, c.MerchantSerialNo, key), option.WithWechatPayCertificate(list), option.WithHTTPClient(httpClient(f)))
	if err != nil {
		t.Fatal(err)
	}
	outTradeNo := fmt.Sprintf("sdk_cert_%d", time.Now().UnixNano()%1e12)
	nativeAPI := native.NativeApiService{Client: client}
	if _, _, err := nativeAPI.Prepay(ctx, native.PrepayRequest{
		Appid: core.String(c.AppID), Mchid: core.String(c.MchID), Description: core.String("SDK check"), OutTradeNo: core.String(outTradeNo),
		NotifyUrl: core.String("https://shop.example.com/notify"), Amount: &native.Amount{Total: core.Int64(100), Currency: core.String("CNY")},
	}); err != nil {
		t.Fatalf("prepay verified with the downloaded certificate: %v", err)
	}
	for _, r := range requests(t, f) {
		if strings.Contains(string(r.Request), outTradeNo) && r.WechatpaySerial != newest {
			t.Errorf("the SDK named %q, the newest certificate is %s", r.WechatpaySerial, newest)
		}
	}
}

// Bills, as the SDK's FAQ describes them: the apply call (/v3/bill/tradebill) answers a signed
// {hash_type, hash_value, download_url} its validator accepts; the download is signed but its answer
// is not (a validating client refuses it, one built WithoutValidator reads it); the SHA1 is of the
// uncompressed file, gzip or plain. The day's statement holds a payment the statement knob added.
func TestSDKFetchesTradeBill(t *testing.T) {
	f, key, pub := load(t)
	ctx := context.Background()
	c := f.Credentials
	day := time.Now().In(time.FixedZone("CST", 8*3600)).AddDate(0, 0, -2).Format("2006-01-02")
	ref := fmt.Sprintf("sdkbill%d", time.Now().UnixNano()%1e12)
	knob(t, f, "/statements/unknown-payment", map[string]any{"date": day, "amount": 4321, "ref": ref})

	client, err := core.NewClient(ctx,
		option.WithWechatPayPublicKeyAuthCipher(c.MchID, c.MerchantSerialNo, key, c.PlatformPublicKeyID, pub),
		option.WithHTTPClient(httpClient(f)))
	if err != nil {
		t.Fatal(err)
	}
	files, err := core.NewClient(ctx, option.WithMerchantCredential(c.MchID, c.MerchantSerialNo, key), option.WithoutValidator(), option.WithHTTPClient(httpClient(f)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tar := range []string{"&tar_type=GZIP", ""} {
		res, err := client.Get(ctx, f.URL+"/v3/bill/tradebill?bill_date="+day+"&bill_type=ALL"+tar)
		if err != nil {
			t.Fatalf("tradebill%s: %v", tar, err)
		}
		var applied struct {
			HashType    string `json:"hash_type"`
			HashValue   string `json:"hash_value"`
			DownloadURL string `json:"download_url"`
		}
		body, _ := io.ReadAll(res.Response.Body)
		if err := strictDecode(body, &applied); err != nil || applied.HashType != "SHA1" {
			t.Fatalf("tradebill answer %s: %v", body, err)
		}
		if _, err := client.Get(ctx, applied.DownloadURL); err == nil {
			t.Errorf("the SDK's validator accepted a download answer, which WeChat never signs")
		}
		res, err = files.Get(ctx, applied.DownloadURL)
		if err != nil {
			t.Fatalf("download%s: %v", tar, err)
		}
		raw, _ := io.ReadAll(res.Response.Body)
		if tar != "" {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("not gzip: %v", err)
			}
			raw, _ = io.ReadAll(zr)
		}
		if sum := sha1.Sum(raw); hex.EncodeToString(sum[:]) != applied.HashValue {
			t.Errorf("download%s: SHA1 %x, the apply call said %s", tar, sum, applied.HashValue)
		}
		if !strings.HasPrefix(string(raw), "交易时间,") || !strings.Contains(string(raw), "`"+ref+",") || !strings.Contains(string(raw), "`43.21,") {
			t.Errorf("download%s: %s", tar, raw)
		}
	}
}
