import { PROVIDERS, providerName as nameIn, type LiveProviderId } from '../../providers/index.js'
import { inLocale, type Localized } from '../../providers/module.js'
import { base, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'
import { credentialFields, settingFields } from './fields.js'

export interface ConfigItem {
  id: string
  provider: string
  label: string
  enabled: boolean
  isDefault: boolean
  /** Its settings as the form shows them. */
  settings: Record<string, string>
  identifies: Localized[]
}

const providerName = (c: ConsoleContext, p: string) => nameIn(p, c.locale)
/** Chinese text sets a Latin name off with a space (添加 Creem, but 添加微信支付). */
const spaced = (locale: string, name: string) => (locale.startsWith('zh') && /^[A-Za-z]/.test(name) ? ` ${name}` : name)

export function ProvidersPage({ c, configs, saved }: { c: ConsoleContext; configs: ConfigItem[]; saved: boolean }) {
  const { t } = c
  if (c.mode === 'test') {
    return (
      <ConsoleLayout c={c} title={t('providers.pageTitle')} section="providers">
        <h1>{t('providers.pageTitle')}</h1>
        <p>{t('providers.testNote')}</p>
        <p><a href={`${base('live')}/providers`}>{t('providers.showLive')}</a></p>
      </ConsoleLayout>
    )
  }
  return (
    <ConsoleLayout c={c} title={t('providers.pageTitle')} section="providers">
      <h1>{t('providers.pageTitle')}</h1>
      <p class="muted">{t('providers.intro')}</p>
      {saved && <Notice kind="ok">{t('providers.saved')}</Notice>}
      <div class="actions">
        {PROVIDERS.map((p, i) => (
          <a class={i === 0 ? 'button' : 'button button-secondary'} href={`${base('live')}/providers/new?provider=${p.id}`}>{t('providers.addProvider', { provider: spaced(c.locale, inLocale(p.name, c.locale)) })}</a>
        ))}
      </div>
      {configs.length === 0 ? <p>{t('providers.none')}</p> : (
        <table class="table">
          <thead><tr><th>{t('providers.provider')}</th><th>{t('providers.label')}</th><th>{t('providers.identifies')}</th><th>{t('providers.state')}</th><th></th></tr></thead>
          <tbody>
            {configs.map((p) => (
              <tr data-config={p.id}>
                <td data-label={t('providers.provider')}>{providerName(c, p.provider)}</td>
                <td data-label={t('providers.label')}><strong>{p.label}</strong></td>
                <td data-label={t('providers.identifies')}>{p.identifies.map((i) => <div class="mono">{inLocale(i, c.locale)}</div>)}</td>
                <td data-label={t('providers.state')}>
                  <span class={`badge ${p.enabled ? 'badge-ok' : 'badge-stop'}`}>{t(p.enabled ? 'providers.enabled' : 'providers.disabled')}</span>{' '}
                  {p.isDefault && <span class="badge">{t('providers.default')}</span>}
                </td>
                <td>
                  <div class="actions">
                    <a href={`${base('live')}/providers/${p.id}`}>{t('providers.edit')}</a>
                    <PostForm c={c} action={`${base('live')}/providers/${p.id}/state`} class="inline">
                      <input type="hidden" name="change" value={p.enabled ? 'disable' : 'enable'} />
                      <button type="submit" class="button button-secondary button-small">{t(p.enabled ? 'providers.disable' : 'providers.enable')}</button>
                    </PostForm>
                    {!p.isDefault && (
                      <PostForm c={c} action={`${base('live')}/providers/${p.id}/state`} class="inline">
                        <input type="hidden" name="change" value="default" />
                        <button type="submit" class="button button-secondary button-small">{t('providers.makeDefault')}</button>
                      </PostForm>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </ConsoleLayout>
  )
}

/** Every setting the provider's module declares: a choice where it lists its values. */
function SettingInputs({ c, provider, values }: { c: ConsoleContext; provider: LiveProviderId; values: Record<string, string> }) {
  const { t } = c
  return (
    <>
      {settingFields(provider).map((f) => (
        <div class="field">
          <label for={`set-${f.name}`}>{f.label[c.locale]}</label>
          {f.choices ? (
            <select id={`set-${f.name}`} name={f.name}>
              {f.choices.map((v) => <option value={v} selected={(values[f.name] ?? f.choices![0]) === v}>{v}</option>)}
            </select>
          ) : (
            <input id={`set-${f.name}`} name={f.name} type={f.name === 'apiBase' ? 'url' : 'text'} value={values[f.name] ?? ''} />
          )}
          <p class="help">{f.name === 'apiBase' ? t('providers.apiBaseHelp') : f.help}</p>
        </div>
      ))}
    </>
  )
}

function CredentialInputs({ c, provider, values }: { c: ConsoleContext; provider: LiveProviderId; values: Record<string, string> }) {
  const { t } = c
  return (
    <>
      {credentialFields(provider).map((f) => (
        <div class="field">
          <label for={`cred-${f.name}`}>{inLocale(f.label, c.locale)}</label>
          {f.pem ? (
            <>
              <textarea id={`cred-${f.name}`} name={f.name} spellcheck={false} autocomplete="off" placeholder="-----BEGIN …">{values[f.name] ?? ''}</textarea>
              <input type="file" name={`${f.name}File`} accept=".pem,.key,.txt,text/plain" aria-label={inLocale(f.label, c.locale)} />
              <p class="help">{t('providers.pemHelp')}</p>
            </>
          ) : (
            <input id={`cred-${f.name}`} name={f.name} type={f.secret ? 'password' : 'text'} autocomplete="off" spellcheck={false} value={f.secret ? '' : values[f.name] ?? ''} required={!f.optional} />
          )}
        </div>
      ))}
    </>
  )
}

export function NewPage({ c, provider, error, values }: { c: ConsoleContext; provider: LiveProviderId; error: string | null; values: Record<string, string> }) {
  const { t } = c
  const name = providerName(c, provider)
  const fresh = values.label === undefined
  // English needs the article the name takes: "an Alipay", "a WeChat Pay".
  const title = t('providers.newTitle', { aProvider: c.locale === 'en' ? `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}` : name })
  return (
    <ConsoleLayout c={c} title={title} section="providers">
      <h1>{title}</h1>
      {error && <Notice kind="error">{error}</Notice>}
      <PostForm c={c} action={`${base('live')}/providers`} enctype="multipart/form-data" class="panel">
        <input type="hidden" name="provider" value={provider} />
        <div class="field">
          <label for="label">{t('providers.label')}</label>
          <input id="label" name="label" type="text" required maxlength={40} value={values.label ?? 'main'} />
          <p class="help">{t('providers.labelHelp')}</p>
        </div>
        <fieldset>
          <legend>{t('providers.credentials')}</legend>
          <p class="help">{t('providers.credentialsNote')}</p>
          <CredentialInputs c={c} provider={provider} values={values} />
        </fieldset>
        <fieldset>
          <legend>{t('providers.settings')}</legend>
          <SettingInputs c={c} provider={provider} values={values} />
        </fieldset>
        <label class="check"><input type="checkbox" name="enabled" checked={fresh || values.enabled === 'on'} /> {t('providers.enabledField')}</label>
        <label class="check"><input type="checkbox" name="isDefault" checked={values.isDefault === 'on'} /> {t('providers.isDefault', { provider: name })}</label>
        <div class="actions">
          <button type="submit" class="button">{t('common.save')}</button>
          <a class="button button-secondary" href={`${base('live')}/providers`}>{t('common.cancel')}</a>
        </div>
      </PostForm>
    </ConsoleLayout>
  )
}

export function EditPage({ c, config, error }: { c: ConsoleContext; config: ConfigItem; error: string | null; saved: boolean }) {
  const { t } = c
  const name = providerName(c, config.provider)
  const provider = config.provider as LiveProviderId
  return (
    <ConsoleLayout c={c} title={t('providers.editTitle', { provider: name, label: config.label })} section="providers">
      <h1>{t('providers.editTitle', { provider: name, label: config.label })}</h1>
      {error && <Notice kind="error">{error}</Notice>}
      <p>{config.identifies.map((i) => <span class="mono">{inLocale(i, c.locale)} </span>)}</p>
      <div class="grid-2">
        <PostForm c={c} action={`${base('live')}/providers/${config.id}`} class="panel">
          <h2>{t('providers.details')}</h2>
          <div class="field">
            <label for="label">{t('providers.label')}</label>
            <input id="label" name="label" type="text" required maxlength={40} value={config.label} />
            <p class="help">{t('providers.labelHelp')}</p>
          </div>
          <SettingInputs c={c} provider={provider} values={config.settings} />
          <button type="submit" class="button">{t('common.save')}</button>
        </PostForm>
        <PostForm c={c} action={`${base('live')}/providers/${config.id}/credentials`} enctype="multipart/form-data" class="panel">
          <h2>{t('providers.replace')}</h2>
          <p class="help">{t('providers.replaceNote')}</p>
          <CredentialInputs c={c} provider={provider} values={{}} />
          <button type="submit" class="button">{t('providers.replace')}</button>
        </PostForm>
      </div>
      <p><a href={`${base('live')}/providers`}>{t('common.back')}</a></p>
    </ConsoleLayout>
  )
}
