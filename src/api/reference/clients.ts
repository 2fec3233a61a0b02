/**
 * What the code samples of the reference import: the client libraries' names, in this one place
 * (test/docs/samples.test.ts checks them against clients/js/package.json, clients/python and
 * clients/go/go.mod, so renaming a library fails there until this follows).
 */
export const CLIENT_NAMES = {
  /** The npm package of clients/js. */
  node: '@till-payments/node',
  /** The module a Python program imports (clients/python/src/<module>). */
  python: 'till_payments',
  /** The Go module of clients/go, imported as `till`. */
  go: 'github.com/till-payments/till/clients/go',
}
