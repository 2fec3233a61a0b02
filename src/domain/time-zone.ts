/** A merchant's time zone: an IANA name Intl knows (Asia/Shanghai, Europe/London, UTC), kept as Intl spells it. */
import { InvalidField } from './errors.js'

export function checkTimeZone(name: string, param = 'timeZone'): string {
  const v = name.trim()
  if (/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(v)) {
    try {
      return new Intl.DateTimeFormat('en', { timeZone: v }).resolvedOptions().timeZone
    } catch {}
  }
  throw new InvalidField(param, 'must be a time zone name such as Asia/Shanghai, Europe/London or UTC')
}
