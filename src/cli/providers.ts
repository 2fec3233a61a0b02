/**
 * `till providers add|list|update|enable|disable|default`: a merchant's live provider
 * configurations through the admin API (docs/providers.md, docs/operate.md#admin-api). Credentials are read from a file or
 * stdin, never taken as a flag value, and never printed: Till does not return them either.
 */
import { connectionHelp, ADMIN_OPTIONS, JSON_OPTION, id, optionalString, readSecretInput, required, usageError, type Command, type Group, type Values } from './args.js'
import { PROVIDERS } from '../providers/index.js'
import type { ProviderModule } from '../providers/module.js'
import { adminApi } from './http.js'
import { print, printJson, table, time, yesNo } from './output.js'

interface Config {
  id: string
  provider: string
  label: string
  enabled: boolean
  isDefault: boolean
  settings: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

const merchantPath = (values: Values) => `/merchants/${encodeURIComponent(id(required(values, 'merchant', 'the merchant id, mer_…'), 'mer', '--merchant'))}`

async function credentials(source: string): Promise<Record<string, unknown>> {
  const text = await readSecretInput(source, '--credentials-file')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // JSON.parse's message quotes the text, which here is a secret.
    throw usageError(`--credentials-file: ${source === '-' ? 'stdin' : source} is not valid JSON`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw usageError('--credentials-file: the credentials must be one JSON object')
  return parsed as Record<string, unknown>
}

function settings(text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw usageError(`--settings must be a JSON object such as '{"apiBase":"https://…"}', not ${JSON.stringify(text)}`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw usageError('--settings must be a JSON object')
  return parsed as Record<string, unknown>
}

const describe = (c: Config) => `${c.provider}/${c.label} (${c.id}): ${c.enabled ? 'enabled' : 'disabled'}${c.isDefault ? ', default' : ''}`

const IDS = PROVIDERS.map((p) => p.id)
const [FIRST] = IDS

/** One line per credential or setting, from each provider's module. */
const lines = (p: ProviderModule, fields: readonly { name: string; help: string; optional?: boolean }[]) =>
  fields.map((f, i) => `  ${(i === 0 ? p.id : '').padEnd(8)}${f.name.padEnd(21)}${f.optional ? 'optional; ' : ''}${f.help}`).join('\n')

const CREDENTIALS_HELP = `Credentials, one JSON object (validated by Till when saved, stored encrypted, never shown again):
${PROVIDERS.map((p) => lines(p, p.credentials)).join('\n')}
They are read from a file or stdin, never from a flag value: a command line stays in the shell
history and is visible to every user of the machine through \`ps\`.

Settings, not secret (--settings, checked when saved):
${PROVIDERS.map((p) => lines(p, p.settings)).join('\n')}`

/** enable, disable and default: one PATCH each. */
function toggle(verb: string, summary: string, patch: Record<string, boolean>): Command {
  return {
    summary,
    help: `usage: till providers ${verb} --merchant ID CONFIG_ID [--json]

${summary[0].toUpperCase()}${summary.slice(1)}.${verb === 'default' ? ' The provider\'s previous default stops being it.' : ''}

  --merchant ID        the merchant, mer_…
  --json               print the configuration as JSON
${connectionHelp('admin')}

example:
  till providers ${verb} --merchant mer_2b8Zk… pc_5Hn2…`,
    options: { ...ADMIN_OPTIONS, ...JSON_OPTION, merchant: { type: 'string' } },
    positionals: ['CONFIG_ID'],
    async run({ values, positionals }) {
      const path = merchantPath(values)
      const configId = id(positionals[0], 'pc', 'CONFIG_ID')
      const c = await adminApi(values).request<Config>('PATCH', `${path}/provider_configs/${encodeURIComponent(configId)}`, patch)
      if (values.json) return printJson(c)
      print(describe(c))
    },
  }
}

export const providers: Group = {
  name: 'providers',
  summary: `a merchant's live provider configurations (${PROVIDERS.map((p) => p.name.en).join(', ')})`,
  commands: {
    add: {
      summary: 'add a provider configuration',
      help: `usage: till providers add --merchant ID --provider ${IDS.join('|')} --label LABEL
                         --credentials-file FILE [--settings JSON] [--default] [--disabled] [--json]

Adds a live provider configuration. The first configuration of a provider becomes its default.

  --merchant ID            the merchant, mer_…
  --provider NAME          ${IDS.join(' or ')}
  --label LABEL            1 to 40 letters, digits, dots, dashes or underscores; unique per provider
                           (sessions pick a configuration with "providerHints": {"${FIRST}": "LABEL"})
  --credentials-file FILE  the credentials as one JSON object, from FILE, or - for stdin
  --settings JSON          settings, not secret, e.g. '{"apiBase":"http://127.0.0.1:8091"}' for a fake
  --default                make it the provider's default configuration
  --disabled               add it disabled
  --json                   print the configuration as JSON
${connectionHelp('admin', 27)}

${CREDENTIALS_HELP}

examples:
  till providers add --merchant mer_2b8Zk… --provider ${FIRST} --label main --credentials-file ${FIRST}.json
${IDS.slice(1).map((p) => `  till providers add --merchant mer_2b8Zk… --provider ${p} --label shop --credentials-file - < ${p}.json\n`).join('')}  till providers add --merchant mer_2b8Zk… --provider ${FIRST} --label fake --credentials-file fake.json \\
    --settings '{"apiBase":"http://127.0.0.1:8091"}' --default`,
      options: {
        ...ADMIN_OPTIONS,
        ...JSON_OPTION,
        merchant: { type: 'string' },
        provider: { type: 'string' },
        label: { type: 'string' },
        'credentials-file': { type: 'string' },
        settings: { type: 'string' },
        default: { type: 'boolean' },
        disabled: { type: 'boolean' },
      },
      async run({ values }) {
        const path = merchantPath(values)
        const provider = required(values, 'provider', IDS.join(' or '))
        const label = required(values, 'label', 'a name for this configuration, e.g. main')
        const source = required(values, 'credentials-file', 'a JSON file with the credentials, or - for stdin')
        const settingsText = optionalString(values, 'settings')
        const body = {
          provider,
          label,
          credentials: await credentials(source),
          ...(settingsText === undefined ? {} : { settings: settings(settingsText) }),
          ...(values.default ? { isDefault: true } : {}),
          ...(values.disabled ? { enabled: false } : {}),
        }
        const c = await adminApi(values).request<Config>('POST', `${path}/provider_configs`, body)
        if (values.json) return printJson(c)
        print(`Added ${describe(c)}.`)
      },
    },
    list: {
      summary: 'list the configurations (never their credentials)',
      help: `usage: till providers list --merchant ID [--json]

  --merchant ID        the merchant, mer_…
  --json               print Till's answer as JSON: {"data":[{"id","provider","label","enabled","isDefault","settings",…}]}
${connectionHelp('admin')}

example:
  till providers list --merchant mer_2b8Zk…`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION, merchant: { type: 'string' } },
      async run({ values }) {
        const list = await adminApi(values).request<{ data: Config[] }>('GET', `${merchantPath(values)}/provider_configs`)
        if (values.json) return printJson(list)
        if (list.data.length === 0) return print('No provider configurations.')
        print(table(['ID', 'PROVIDER', 'LABEL', 'ENABLED', 'DEFAULT', 'UPDATED', 'SETTINGS'], list.data.map((c) => [
          c.id, c.provider, c.label, yesNo(c.enabled), yesNo(c.isDefault), time(c.updatedAt),
          Object.keys(c.settings ?? {}).length ? JSON.stringify(c.settings) : '-',
        ])))
      },
    },
    update: {
      summary: 'replace a configuration\'s credentials, settings or label',
      help: `usage: till providers update --merchant ID CONFIG_ID [--credentials-file FILE] [--settings JSON]
                            [--label LABEL] [--json]

Changes what is given and keeps the rest; e.g. new credentials after rotating them at the provider.

  --merchant ID            the merchant, mer_…
  --credentials-file FILE  the new credentials as one JSON object, from FILE, or - for stdin
  --settings JSON          the new settings (they replace the old ones as a whole)
  --label LABEL            a new label
  --json                   print the configuration as JSON
${connectionHelp('admin', 27)}

example:
  till providers update --merchant mer_2b8Zk… pc_5Hn2… --credentials-file ${FIRST}-2026.json`,
      options: { ...ADMIN_OPTIONS, ...JSON_OPTION, merchant: { type: 'string' }, 'credentials-file': { type: 'string' }, settings: { type: 'string' }, label: { type: 'string' } },
      positionals: ['CONFIG_ID'],
      async run({ values, positionals }) {
        const path = merchantPath(values)
        const configId = id(positionals[0], 'pc', 'CONFIG_ID')
        const source = optionalString(values, 'credentials-file')
        const settingsText = optionalString(values, 'settings')
        const label = optionalString(values, 'label')
        if (source === undefined && settingsText === undefined && label === undefined) {
          throw usageError('nothing to change: give --credentials-file, --settings or --label')
        }
        const body = {
          ...(source === undefined ? {} : { credentials: await credentials(source) }),
          ...(settingsText === undefined ? {} : { settings: settings(settingsText) }),
          ...(label === undefined ? {} : { label }),
        }
        const c = await adminApi(values).request<Config>('PATCH', `${path}/provider_configs/${encodeURIComponent(configId)}`, body)
        if (values.json) return printJson(c)
        print(`Updated ${describe(c)}.`)
      },
    },
    enable: toggle('enable', 'enable a configuration: live sessions may use it again', { enabled: true }),
    disable: toggle('disable', 'disable a configuration: new live sessions no longer use it', { enabled: false }),
    default: toggle('default', 'make a configuration its provider\'s default', { isDefault: true }),
  },
}
