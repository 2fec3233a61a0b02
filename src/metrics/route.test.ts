import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../config.js'
import { openMetricsWarning } from './route.js'

test('the start warns that /metrics is open only when others than this machine reach it and METRICS_TOKEN is unset', () => {
  const warning = (env: NodeJS.ProcessEnv) => openMetricsWarning(loadConfig(env))
  assert.equal(warning({}), null)
  assert.equal(warning({ HOST: '::1', BASE_URL: 'http://127.0.0.1:8080' }), null)
  assert.equal(warning({ HOST: '0.0.0.0' }), 'GET /metrics is open to anyone who reaches HOST 0.0.0.0: set METRICS_TOKEN to require a bearer token')
  assert.equal(warning({ BASE_URL: 'https://pay.example.com' }), 'GET /metrics is open to anyone who reaches https://pay.example.com: set METRICS_TOKEN to require a bearer token')
  assert.equal(warning({ HOST: '0.0.0.0', BASE_URL: 'https://pay.example.com', METRICS_TOKEN: 's3cret' }), null)
})
