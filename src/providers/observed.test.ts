import assert from 'node:assert/strict'
import { test } from 'node:test'
import { observed, type CallOutcome } from './observed.js'
import { ProviderError, type PaymentProvider } from './types.js'

test('each provider call is observed once with its outcome; local work is not; the adapter keeps its own this', async () => {
  const seen: string[] = []
  const observer = (provider: string, operation: string) => {
    seen.push(`start ${provider}.${operation}`)
    return (outcome: CallOutcome) => void seen.push(`end ${provider}.${operation} ${outcome}`)
  }
  const adapter = {
    id: 'wechat',
    capabilities: { currencies: ['CNY'], channels: [], partialRefunds: true, modes: ['test', 'live'] },
    calls: 0,
    async createAttempt() {
      this.calls++
      return { providerRef: 'p', action: { kind: 'none' }, data: {} }
    },
    async queryPayment() {
      throw new ProviderError('unknown', 'network', 'no answer')
    },
    async refund() {
      throw new ProviderError('rejected', 'denied', 'refused')
    },
    async queryRefund() {
      throw new TypeError('a bug')
    },
    async closePayment() {
      return { closed: true }
    },
    async parseNotification() {
      return { ack: { status: 200, body: {} }, facts: [] }
    },
    statements: { zone: 'UTC', fetch: async () => ({ ready: false, reason: 'later' }), parse: async function* () {} },
  }
  const o = observed(adapter as unknown as PaymentProvider, observer)
  assert.equal(o.id, 'wechat')
  assert.equal(o.finishBrowserStep, undefined)
  await o.createAttempt({} as never, {} as never)
  assert.equal(adapter.calls, 1)
  await assert.rejects(o.queryPayment({} as never, {} as never), /no answer/)
  await assert.rejects(o.refund({} as never, {} as never), /refused/)
  await assert.rejects(o.queryRefund({} as never, {} as never), /a bug/)
  await o.parseNotification({} as never, { body: Buffer.alloc(0), headers: {} })
  assert.deepEqual(await o.statements!.fetch({} as never, '2026-05-20'), { ready: false, reason: 'later' })
  assert.equal(o.statements!.zone, 'UTC')
  assert.deepEqual(seen, [
    'start wechat.createAttempt', 'end wechat.createAttempt ok',
    'start wechat.queryPayment', 'end wechat.queryPayment unknown',
    'start wechat.refund', 'end wechat.refund rejected',
    'start wechat.queryRefund', 'end wechat.queryRefund error',
    'start wechat.fetchStatement', 'end wechat.fetchStatement ok',
  ])
})
