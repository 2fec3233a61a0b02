import { when } from '../format.js'
import { base, ConsoleLayout, Notice, PostForm, ShownOnce, type ConsoleContext } from '../views/layout.js'

interface KeyItem {
  id: string
  mode: string
  last4: string
  createdAt: string
  revokedAt: string | null
  lastUsedAt: string | null
}

export function KeysPage({ c, keys, created, revoked }: { c: ConsoleContext; keys: KeyItem[]; created: string | null; revoked: string | null }) {
  const { t, locale } = c
  return (
    <ConsoleLayout c={c} title={t('keys.pageTitle')} section="keys">
      <h1>{t('keys.pageTitle')}</h1>
      <p class="muted">{t('keys.intro', { mode: t(`mode.${c.mode}`) })}</p>
      {created && <ShownOnce c={c} title={t('keys.createdTitle')} note={t('keys.createdNote')} value={created} />}
      {revoked && <Notice kind="ok">{t('keys.revoked', { last4: revoked })}</Notice>}
      <PostForm c={c} action={`${base(c.mode)}/keys`} class="actions">
        <button type="submit" class="button">{t('keys.create')}</button>
      </PostForm>
      {keys.length === 0 ? <p>{t('keys.none')}</p> : (
        <table class="table">
          <thead><tr><th>{t('keys.key')}</th><th>{t('keys.created')}</th><th>{t('keys.lastUsed')}</th><th>{t('keys.status')}</th><th></th></tr></thead>
          <tbody>
            {keys.map((k) => (
              <tr data-key={k.id}>
                <td data-label={t('keys.key')}><code>sk_{k.mode}_…{k.last4}</code></td>
                <td data-label={t('keys.created')}>{when(k.createdAt, c)}</td>
                <td data-label={t('keys.lastUsed')}>{when(k.lastUsedAt, c) ?? t('common.never')}</td>
                <td data-label={t('keys.status')}>
                  {k.revokedAt ? <span class="badge badge-stop">{t('keys.revokedAt', { time: when(k.revokedAt, c)! })}</span> : <span class="badge badge-ok">{t('keys.active')}</span>}
                </td>
                <td>{!k.revokedAt && <a href={`${base(c.mode)}/keys/${k.id}/revoke`}>{t('keys.revoke')}</a>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </ConsoleLayout>
  )
}

export function RevokePage({ c, key }: { c: ConsoleContext; key: KeyItem }) {
  const { t } = c
  return (
    <ConsoleLayout c={c} title={t('keys.revokeTitle', { last4: key.last4 })} section="keys">
      <h1>{t('keys.revokeTitle', { last4: key.last4 })}</h1>
      <p><code>sk_{key.mode}_…{key.last4}</code></p>
      <p>{t('keys.revokeBody')}</p>
      <div class="actions">
        <PostForm c={c} action={`${base(c.mode)}/keys/${key.id}/revoke`}>
          <button type="submit" class="button button-danger">{t('keys.revokeConfirm')}</button>
        </PostForm>
        <a class="button button-secondary" href={`${base(c.mode)}/keys`}>{t('common.cancel')}</a>
      </div>
    </ConsoleLayout>
  )
}
