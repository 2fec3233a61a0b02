/**
 * The one reading of a console form body, urlencoded or multipart: one value per field. A field sent
 * twice has no single meaning (`amount=50&amount=50` once read as "no amount": everything left was
 * refunded), so the whole form is refused before any route sees it.
 */
import { TillError } from '../domain/errors.js'

/** Fields that are lists by design (the webhook form's event checkboxes): always an array, never refused. */
const LIST_FIELDS = new Set(['events'])

export class DuplicateField extends TillError {
  constructor(readonly field: string) {
    super(400, `form field ${JSON.stringify(field)} sent more than once`)
  }
}

/** The fields of a form, each once (list fields as arrays); a null-prototype object, so no name reaches Object.prototype. */
export function formFields<V>(entries: Iterable<[string, V]>): Record<string, V | V[]> {
  const out: Record<string, V | V[]> = Object.create(null)
  for (const [name, value] of entries) {
    if (LIST_FIELDS.has(name)) ((out[name] ??= []) as V[]).push(value)
    else if (Object.hasOwn(out, name)) throw new DuplicateField(name)
    else out[name] = value
  }
  return out
}
