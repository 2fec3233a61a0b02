/** `till merchants create|show`: the admin API's merchants (docs/operate.md#admin-api). */
import { connectionHelp, ADMIN_OPTIONS, JSON_OPTION, id, optionalString, readSecretInput, required, type Group } from './args.js'
import { adminApi } from './http.js'
import { print, printJson, time } from './output.js'

interface Merchant {
  id: string
  name: string
  email: string | null
  keys: { test: string; live: string }
}

export const merchants: Group = {
  name: 'merchants',
  summary: 'merchants, created with a test and a live key',
  commands: {
    create: {
      summary: 'create a merchant; prints its test and live keys once',
      help: `usage: till merchants create --name NAME [--email EMAIL] [--password-file FILE] [--json]

Creates a merchant with one test key and one live key. The keys are printed only now: store them.
With --email and a password the merchant can sign in to the console.

  --name NAME           the merchant's name (1 to 200 characters)
  --email EMAIL         console login
  --password-file FILE  console password (at least 8 characters), read from FILE, or - for stdin;
                        not a flag value, which would stay in your shell history
  --json                print Till's answer as JSON: {"id","name","email","keys":{"test","live"}}
${connectionHelp('admin', 24)}

examples:
  till merchants create --name Acme
  till merchants create --name Acme --email ops@acme.example --password-file - --json <<< "$PASSWORD"`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION, name: { type: 'string' }, email: { type: 'string' }, 'password-file': { type: 'string' } },
      async run({ values }) {
        const name = required(values, 'name', 'the merchant\'s name')
        const email = optionalString(values, 'email')
        const passwordFile = optionalString(values, 'password-file')
        const password = passwordFile === undefined ? undefined : (await readSecretInput(passwordFile, '--password-file')).replace(/\r?\n$/, '')
        const api = adminApi(values)
        const m = await api.request<Merchant>('POST', '/merchants', { name, email, password })
        if (values.json) return printJson(m)
        print(`Created merchant ${JSON.stringify(m.name)} (${m.id})${m.email ? `, console login ${m.email}` : ''}.
  test key: ${m.keys.test}
  live key: ${m.keys.live}
These keys are shown only now: store them somewhere safe.`)
      },
    },
    'set-password': {
      summary: 'set or reset a merchant\'s console password; signs every console session out',
      help: `usage: till merchants set-password MERCHANT_ID --password-file FILE [--email EMAIL] [--json]

Sets the password the merchant signs in to the console with (/console/login), or resets a
forgotten one. Every console session of the merchant is signed out, and that owner's second factor
(two-factor sign-in) is removed: the way back for an owner who lost both phone and recovery codes.

  --password-file FILE  the new password (at least 8 characters), read from FILE, or - for stdin
  --email EMAIL         the console login, when the merchant has none yet (or to change it); a
                        member's email resets that member's password and makes them an owner
  --json                print Till's answer as JSON: {"id","email","passwordSet"}
${connectionHelp('admin', 24)}

example:
  till merchants set-password mer_2b8Zk… --password-file - <<< "$PASSWORD"`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION, email: { type: 'string' }, 'password-file': { type: 'string' } },
      positionals: ['MERCHANT_ID'],
      async run({ values, positionals }) {
        const merchantId = id(positionals[0], 'mer', 'MERCHANT_ID')
        const passwordFile = required(values, 'password-file', 'a file with the new password (or - for stdin)')
        const password = (await readSecretInput(passwordFile, '--password-file')).replace(/\r?\n$/, '')
        const email = optionalString(values, 'email')
        const r = await adminApi(values).request<{ id: string; email: string; passwordSet: true }>('POST', `/merchants/${encodeURIComponent(merchantId)}/password`, { password, email })
        if (values.json) return printJson(r)
        print(`Console password set for ${r.email} (${r.id}). Every console session of this merchant was signed out.`)
      },
    },
    show: {
      summary: 'show a merchant',
      help: `usage: till merchants show MERCHANT_ID [--json]

  --json               print Till's answer as JSON
${connectionHelp('admin')}

example:
  till merchants show mer_2b8Zk…`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION },
      positionals: ['MERCHANT_ID'],
      async run({ values, positionals }) {
        const merchantId = id(positionals[0], 'mer', 'MERCHANT_ID')
        const m = await adminApi(values).request<{ id: string; name: string; email: string | null; createdAt: string }>('GET', `/merchants/${encodeURIComponent(merchantId)}`)
        if (values.json) return printJson(m)
        print(`${m.id}  ${JSON.stringify(m.name)}  email ${m.email ?? '-'}  created ${time(m.createdAt)}`)
      },
    },
  },
}
