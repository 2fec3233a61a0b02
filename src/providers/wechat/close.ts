/**
 * Closing an unpaid order, on either WeChat service. WeChat refuses to close a paid one, and a
 * customer can pay between our query and the close: any refusal is followed by a query, so money
 * is never hidden behind a "closed".
 */
import type { CloseResult, PaymentFact, PaymentRef, PaymentState, ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { credentialsOf, type WechatClient } from './http.js'

export async function closeOrConfirm(
  client: WechatClient, cfg: ProviderConfig, closePath: string, ref: PaymentRef,
  confirm: () => Promise<{ state: PaymentState; fact: () => PaymentFact }>,
): Promise<CloseResult> {
  try {
    const res = await client.call(cfg, 'POST', closePath, { mchid: credentialsOf(cfg).mchId })
    // A close is answered 204 with no body, which names nothing: any other signed answer (another call's, replayed) is not one.
    if (res.status !== 204 || res.data !== null) throw new ProviderError('unknown', 'answer_mismatch', `WeChat Pay answered the close with HTTP ${res.status} and a body, not its empty 204`)
    return { closed: true }
  } catch (e) {
    if (!(e instanceof ProviderError) || e.outcome !== 'rejected') throw e
    const { state, fact } = await confirm()
    if (state.status === 'succeeded') return { alreadyPaid: { ...fact(), attemptId: ref.attemptId } }
    if (state.status === 'closed') return { closed: true }
    throw e
  }
}
