/** The man in the middle (mitm.ts) for Alipay's gateway: which method a call was and what it asked. */
import type { TestContext } from 'node:test'
import { startMitm, type Exchange } from './mitm.js'

/** A gateway call's method and biz_content: the common parameters are in the URL, the rest in the form. */
export function alipayCall(c: Exchange): { method: string; biz: Record<string, string> } {
  const params = new URLSearchParams(new URL(c.path, 'http://x').search)
  for (const [k, v] of new URLSearchParams(c.requestBody)) params.set(k, v)
  return { method: params.get('method') ?? '', biz: JSON.parse(params.get('biz_content') ?? '{}') }
}

export async function alipayMitm(t: TestContext) {
  const mitm = await startMitm(t)
  return {
    ...mitm,
    /** Answers calls of `method` with `answer` (the call's own text when it returns it), others as sent. */
    on(method: string, answer: ((text: string, biz: Record<string, string>) => string) | null) {
      mitm.rewrite(answer && ((c) => {
        const call = alipayCall(c)
        return call.method === method ? answer(c.text, call.biz) : c.text
      }))
    },
    /** The genuine answer to the last call of `method` about `outTradeNo`. */
    answerTo: (method: string, outTradeNo: string) => mitm.answerTo((c) => alipayCall(c).method === method && alipayCall(c).biz.out_trade_no === outTradeNo).text,
  }
}

/** The body with one more member at its top level, after everything Alipay sent (JSON.parse keeps the last of repeated keys). */
export const appendMember = (text: string, key: string, value: object) => `${text.trimEnd().slice(0, -1)},"${key}":${JSON.stringify(value)}}`
