// Type-checked by test/package.test.ts as a merchant's ESM TypeScript would import the package.
import { Till, TillError, constructEvent, type Session, type WebhookEvent } from '@till-payments/node'

const till = new Till({ apiKey: 'sk_test_x' })
export async function read(id: string): Promise<Session['status']> {
  try {
    return (await till.getSession(id)).status
  } catch (e) {
    if (e instanceof TillError) return 'failed'
    throw e
  }
}
export const verify = (body: Buffer, header: string | undefined): WebhookEvent['type'] => constructEvent(body, header, 'whsec_x').type
