/** `till keys create|list|revoke`: a merchant's secret keys through the admin API (docs/integrate.md#keys-modes-and-authentication, docs/operate.md#admin-api). */
import { connectionHelp, ADMIN_OPTIONS, JSON_OPTION, id, oneOf, required, type Group, type Values } from './args.js'
import { adminApi } from './http.js'
import { maskedKey, print, printJson, table, time } from './output.js'

interface StoredKey {
  id: string
  mode: 'test' | 'live'
  last4: string
  createdAt: string
  revokedAt: string | null
}

const merchantPath = (values: Values) => `/merchants/${encodeURIComponent(id(required(values, 'merchant', 'the merchant id, mer_…'), 'mer', '--merchant'))}`
const MERCHANT_HELP = '  --merchant ID        the merchant, mer_…'

export const keys: Group = {
  name: 'keys',
  summary: 'a merchant\'s secret keys',
  commands: {
    create: {
      summary: 'create a secret key; prints it once',
      help: `usage: till keys create --merchant ID --mode test|live [--json]

Creates another secret key for the merchant (a merchant may hold several per mode, e.g. to
rotate one without downtime). The key is printed only now: Till keeps only its hash.

${MERCHANT_HELP}
  --mode test|live     test keys use the mock provider; live keys the real ones
  --json               print Till's answer as JSON: {"id","mode","key"}
${connectionHelp('admin')}

example:
  till keys create --merchant mer_2b8Zk… --mode live`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION, merchant: { type: 'string' }, mode: { type: 'string' } },
      async run({ values }) {
        const path = merchantPath(values)
        const mode = oneOf(required(values, 'mode', 'test or live'), '--mode', ['test', 'live'])
        const key = await adminApi(values).request<{ id: string; mode: string; key: string }>('POST', `${path}/api_keys`, { mode })
        if (values.json) return printJson(key)
        print(`Created ${key.mode} key ${key.id}:
  ${key.key}
This key is shown only now: store it somewhere safe.`)
      },
    },
    list: {
      summary: 'list a merchant\'s keys (never the keys themselves)',
      help: `usage: till keys list --merchant ID [--json]

Lists every key of the merchant, revoked ones included, by id, mode and last four characters.

${MERCHANT_HELP}
  --json               print Till's answer as JSON: {"data":[{"id","mode","last4","createdAt","revokedAt"}]}
${connectionHelp('admin')}

example:
  till keys list --merchant mer_2b8Zk…`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION, merchant: { type: 'string' } },
      async run({ values }) {
        const path = merchantPath(values)
        const list = await adminApi(values).request<{ data: StoredKey[] }>('GET', `${path}/api_keys`)
        if (values.json) return printJson(list)
        if (list.data.length === 0) return print('No keys.')
        print(table(['ID', 'MODE', 'KEY', 'CREATED', 'REVOKED'], list.data.map((k) => [
          k.id, k.mode, maskedKey(k.mode, k.last4), time(k.createdAt), time(k.revokedAt),
        ])))
      },
    },
    revoke: {
      summary: 'revoke a key: it answers 401 from then on',
      help: `usage: till keys revoke --merchant ID KEY_ID [--json]

Revokes the key at once, on every Till instance: requests with it answer 401 from then on.
KEY_ID is the key's id (key_…, see \`till keys list\`), not the secret key itself.

${MERCHANT_HELP}
  --json               print Till's answer as JSON: {"id","mode","revoked","revokedAt"}
${connectionHelp('admin')}

example:
  till keys revoke --merchant mer_2b8Zk… key_7QpL…`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION, merchant: { type: 'string' } },
      positionals: ['KEY_ID'],
      async run({ values, positionals }) {
        const path = merchantPath(values)
        const keyId = id(positionals[0], 'key', 'KEY_ID')
        const r = await adminApi(values).request<{ id: string; mode: string; revokedAt: string }>('DELETE', `${path}/api_keys/${encodeURIComponent(keyId)}`)
        if (values.json) return printJson(r)
        print(`Revoked ${r.mode} key ${r.id} (at ${time(r.revokedAt)}).`)
      },
    },
  },
}
