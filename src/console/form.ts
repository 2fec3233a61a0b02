/**
 * The one reading of a console form body, urlencoded or multipart: one value per field. A field sent
 * twice has no single meaning (`amount=50&amount=50` once read as "no amount": everything left was
 * refunded), so the whole form is refused before any route sees it; so is text PostgreSQL cannot
 * store (NUL), which would otherwise fail its query with a 500.
 */
import { TillError } from '../domain/errors.js'
import { unstorableCharacter } from '../domain/reasons.js'

/** Fields that are lists by design (the webhook form's event checkboxes): always an array, never refused. */
const LIST_FIELDS = new Set(['events'])

export class DuplicateField extends TillError {
  constructor(readonly field: string) {
    super(400, `form field ${JSON.stringify(field)} sent more than once`)
  }
}

export class UnstorableField extends TillError {
  constructor(readonly field: string, readonly character: string) {
    super(400, `form field ${JSON.stringify(field)} holds ${character}, which cannot be stored`)
  }
}

const checked = <V>(name: string, value: V) => {
  const bad = typeof value === 'string' ? unstorableCharacter(value) : null
  if (bad) throw new UnstorableField(name, bad)
  return value
}

/** The fields of a form, each once (list fields as arrays); a null-prototype object, so no name reaches Object.prototype. */
export function formFields<V>(entries: Iterable<[string, V]>): Record<string, V | V[]> {
  const out: Record<string, V | V[]> = Object.create(null)
  for (const [name, value] of entries) {
    if (LIST_FIELDS.has(name)) ((out[name] ??= []) as V[]).push(checked(name, value))
    else if (Object.hasOwn(out, name)) throw new DuplicateField(name)
    else out[name] = checked(name, value)
  }
  return out
}
