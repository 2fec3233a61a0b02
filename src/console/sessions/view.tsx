/** Open console sessions: one's own, or (an owner) everyone's; each can be ended. */
import { when } from '../format.js'
import { base, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'

export interface SessionItem {
  tokenHash: string
  email: string
  ip: string | null
  userAgent: string | null
  lastSeenAt: Date
  current: boolean
}

export function SessionsPage({ c, sessions, everyone, ended }: { c: ConsoleContext; sessions: SessionItem[]; everyone: boolean; ended: boolean }) {
  const { t } = c
  return (
    <ConsoleLayout c={c} title={t('sessions.pageTitle')} section="sessions">
      <h1>{t('sessions.pageTitle')}</h1>
      {ended && <Notice kind="ok">{t('sessions.ended')}</Notice>}
      <table class="table">
        <thead><tr>{everyone && <th>{t('sessions.who')}</th>}<th>{t('sessions.device')}</th><th>{t('sessions.address')}</th><th>{t('sessions.lastSeen')}</th><th></th></tr></thead>
        <tbody>
          {sessions.map((s) => (
            <tr data-session={s.email}>
              {everyone && <td data-label={t('sessions.who')}>{s.email}</td>}
              <td data-label={t('sessions.device')}><div class="cell">{s.userAgent ?? '—'}</div></td>
              <td data-label={t('sessions.address')} class="mono">{s.ip ?? '—'}</td>
              <td data-label={t('sessions.lastSeen')}>{when(s.lastSeenAt, c)}</td>
              <td>
                {s.current ? <strong>{t('sessions.current')}</strong> : (
                  <PostForm c={c} action={`${base(c.mode)}/sessions/end`} class="inline">
                    <input type="hidden" name="session" value={s.tokenHash} />
                    <button type="submit" class="button button-small">{t('sessions.end')}</button>
                  </PostForm>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ConsoleLayout>
  )
}
