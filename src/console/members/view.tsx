/** The team page: members with their roles, pending invitations, and (for an owner) the forms that change them. */
import { ASSIGNABLE, ROLES } from '../../domain/console-roles.js'
import type { MemberRow, TeamInvitation } from '../../services/members.js'
import { when } from '../format.js'
import type { ConsoleKey } from '../i18n/index.js'
import { base, ConsoleLayout, Notice, PostForm, ShownOnce, type ConsoleContext } from '../views/layout.js'

export interface MembersView {
  c: ConsoleContext
  me: string
  members: MemberRow[]
  invitations: TeamInvitation[]
  error?: string | null
  notice?: string | null
  /** An invitation's (or a password reset's) link when it was not mailed: shown once, to copy. */
  link?: { email: string; url: string; kind?: 'invitation' | 'reset' } | null
  /** The members with a second factor (an owner may reset theirs). */
  secondFactors?: string[]
}

const roleName = (c: ConsoleContext, role: string) => c.t(`role.${role}` as ConsoleKey)

/** Where an invitation's mail stands; why it has not arrived (the mail server's answer) only to those who can act on it. */
function MailState({ c, mail, manage }: { c: ConsoleContext; mail: TeamInvitation['mail']; manage: boolean }) {
  const { t } = c
  if (!mail) return <>{t('members.mailNone')}</>
  if (mail.status === 'sent') return <>{t('members.mailSent')}</>
  const state = mail.status === 'failed' ? t('members.mailFailed') : mail.attempts > 0 ? t('members.mailRetrying') : t('members.mailQueued')
  return <>{state}{manage && mail.lastError && <div class="muted" data-mail-error>{mail.lastError}</div>}</>
}

export function MembersPage(v: MembersView) {
  const { c } = v
  const { t } = c
  const at = `${base(c.mode)}/members`
  const manage = c.can('members')
  return (
    <ConsoleLayout c={c} title={t('members.pageTitle')} section="members">
      <h1>{t('members.pageTitle')}</h1>
      {v.error && <Notice kind="error">{v.error}</Notice>}
      {v.notice && <Notice kind="ok">{v.notice}</Notice>}
      {v.link && (v.link.kind === 'reset'
        ? <ShownOnce c={c} title={t('members.resetLinkTitle', { email: v.link.email })} note={t('members.resetLinkNote', { email: v.link.email })} value={v.link.url} />
        : <ShownOnce c={c} title={t('members.inviteLinkTitle', { email: v.link.email })} note={t('members.inviteLinkNote')} value={v.link.url} />)}
      <table class="table">
        <thead><tr><th>{t('members.email')}</th><th>{t('members.role')}</th><th>{t('members.joined')}</th>{manage && <th></th>}</tr></thead>
        <tbody>
          {v.members.map((m) => (
            <tr data-member={m.email}>
              <td data-label={t('members.email')}>{m.email}{m.id === v.me ? ` ${t('members.you')}` : ''}</td>
              <td data-label={t('members.role')}>{roleName(c, m.role)}</td>
              <td data-label={t('members.joined')}>{when(m.createdAt, c)}</td>
              {manage && (
                <td>
                  <div class="cell">
                    <PostForm c={c} action={`${at}/${m.id}/role`} class="inline">
                      <select name="role" aria-label={t('members.role')}>
                        {ROLES.map((r) => <option value={r} selected={r === m.role}>{roleName(c, r)}</option>)}
                      </select>
                      <button type="submit" class="button button-small">{t('members.changeRole')}</button>
                    </PostForm>
                    {m.id !== v.me && m.role !== 'owner' && (
                      <PostForm c={c} action={`${at}/${m.id}/transfer`} class="inline" confirm={t('members.transferConfirm')}>
                        <button type="submit" class="button button-small">{t('members.transfer')}</button>
                      </PostForm>
                    )}
                    <PostForm c={c} action={`${at}/${m.id}/reset`} class="inline">
                      <button type="submit" class="button button-small">{t('members.reset')}</button>
                    </PostForm>
                    {m.id !== v.me && v.secondFactors?.includes(m.id) && (
                      <PostForm c={c} action={`${at}/${m.id}/second-factor/reset`} class="inline" confirm={t('members.resetSecondFactorConfirm')}>
                        <button type="submit" class="button button-small">{t('members.resetSecondFactor')}</button>
                      </PostForm>
                    )}
                    <PostForm c={c} action={`${at}/${m.id}/remove`} class="inline" confirm={t('members.removeConfirm')}>
                      <button type="submit" class="button button-small button-danger">{t('members.remove')}</button>
                    </PostForm>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {v.invitations.length > 0 && (
        <section>
          <h2>{t('members.invitations')}</h2>
          <table class="table">
            <thead><tr><th>{t('members.email')}</th><th>{t('members.role')}</th><th>{t('members.expires')}</th><th>{t('members.mail')}</th>{manage && <th></th>}</tr></thead>
            <tbody>
              {v.invitations.map((i) => (
                <tr data-invitation={i.email}>
                  <td data-label={t('members.email')}>{i.email}</td>
                  <td data-label={t('members.role')}>{roleName(c, i.role)}</td>
                  <td data-label={t('members.expires')}>{when(i.expiresAt, c)}</td>
                  <td data-label={t('members.mail')} data-mail={i.mail?.status ?? 'none'}><MailState c={c} mail={i.mail} manage={manage} /></td>
                  {manage && (
                    <td>
                      <PostForm c={c} action={`${at}/invitations/withdraw`} class="inline">
                        <input type="hidden" name="invitation" value={i.tokenHash} />
                        <button type="submit" class="button button-small">{t('members.withdraw')}</button>
                      </PostForm>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {manage && (
        <section>
          <h2>{t('members.inviteTitle')}</h2>
          <PostForm c={c} action={`${at}/invite`} class="panel">
            <div class="field">
              <label for="email">{t('members.email')}</label>
              <input id="email" name="email" type="email" required />
            </div>
            <div class="field">
              <label for="role">{t('members.role')}</label>
              <select id="role" name="role">
                {ASSIGNABLE.map((r) => <option value={r}>{roleName(c, r)}</option>)}
              </select>
            </div>
            <button type="submit" class="button">{t('members.invite')}</button>
          </PostForm>
        </section>
      )}
    </ConsoleLayout>
  )
}
