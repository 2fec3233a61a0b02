/**
 * A strict copy of an SDK's zod (v3) schema, for checking wire JSON against it: every object
 * refuses keys it does not declare, at every depth, and transforms (the SDKs' snake_case to
 * camelCase remaps, date parsing) are dropped so the wire form itself is validated. Walks the
 * schema by its `_def.typeName`, so the test needs no zod of its own.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
export interface ZodLike {
  _def: { typeName: string; [k: string]: any }
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: Array<{ path: Array<string | number>; message: string; code: string }> } }
}

export function strictSchema(s: any, depth = 0): any {
  if (depth > 40) return s
  const next = (x: any) => strictSchema(x, depth + 1)
  switch (s._def.typeName) {
    case 'ZodEffects':
      return next(s._def.schema)
    case 'ZodObject': {
      const over = Object.fromEntries(Object.entries(s.shape as Record<string, any>).map(([k, v]) => [k, next(v)]))
      return s.extend(over).strict()
    }
    case 'ZodOptional':
      return next(s.unwrap()).optional()
    case 'ZodNullable':
      return next(s.unwrap()).nullable()
    case 'ZodDefault':
      return next(s._def.innerType).optional()
    case 'ZodArray':
      return next(s.element).array()
    case 'ZodUnion':
      return s.constructor.create(s.options.map(next))
    case 'ZodLazy':
      return next(s.schema)
    case 'ZodRecord':
      return s
    default:
      return s
  }
}

/** The problems a strict parse finds, as `path: message` lines (empty when the value fits). */
export function strictProblems(schema: unknown, value: unknown): string[] {
  const r = (strictSchema(schema) as ZodLike).safeParse(value)
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
}
