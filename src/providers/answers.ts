/**
 * An answer is about what was asked (docs/providers.md#answers-are-about-what-was-asked): a signed
 * answer replayed from another call (a man in the middle, a misrouted proxy) names another order or
 * refund, and believing it would give this one that one's state. Such an answer is `unknown`, never a state.
 */
import { ProviderError } from './types.js'

/**
 * Throws `unknown` `answer_mismatch` when `answer` names any id of `asked` differently, or leaves out
 * one of `named` (ids the provider always sends back).
 */
export function checkAbout(provider: string, call: string, asked: Record<string, unknown>, answer: object | null | undefined, named: readonly string[] = []): void {
  for (const [id, want] of Object.entries(asked)) {
    if (typeof want !== 'string') continue
    const got = (answer as Record<string, unknown> | null | undefined)?.[id]
    if (got === undefined || got === null ? named.includes(id) : got !== want) {
      throw new ProviderError('unknown', 'answer_mismatch', `${provider} answered ${call} for ${id} ${got === undefined || got === null ? '(none)' : String(got)}, not ${want}`)
    }
  }
}

/** Our refund id and the attempt it refunds, as WeChat Pay names them (out_refund_no, out_trade_no). */
export const refundIds = (r: { refundId: string; payment: { attemptId: string } }) => ({ out_refund_no: r.refundId, out_trade_no: r.payment.attemptId || undefined })
