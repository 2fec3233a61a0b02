// Type-checked by test/package.test.ts as a merchant's CommonJS TypeScript would require the package.
import till = require('@till-payments/node')

const client = new till.Till({ apiKey: 'sk_test_x' })
export async function pay(amount: number): Promise<string> {
  const session = await client.createCheckout({ amount, currency: 'CNY' })
  return session.url
}
export const ok: boolean = till.verifyWebhookSignature('{}', 'ab', 'whsec_x')
