// Package till is the server-side Go client for Till, the self-hosted hosted-checkout payment
// service: create a payment session, send the customer to Till's checkout page, read the result,
// refund, and verify Till's signed webhooks.
//
// Every amount is an integer in the currency's minor unit: 9900 CNY is ¥99.00, 1999 USD is
// $19.99, but 1500 JPY is ¥1,500 (never multiply or divide JPY by 100).
//
// Every method takes a context.Context first; cancelling it stops the call, retries included, at
// once. Every POST carries an Idempotency-Key (generated unless set in the params) that is reused
// on every retry, so a retried refund can never refund twice. Failures are *Error (Till answered
// with a status of 400 or more) or *ConnectionError (no answer); use errors.As, or errors.Is with
// ErrNotFound, ErrAuthentication, ErrRateLimit and the other sentinels.
//
// The package uses the standard library only and needs Go 1.21 or newer.
package till
