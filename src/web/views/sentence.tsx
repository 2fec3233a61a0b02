/** A translated sentence with one placeholder filled by markup rather than text (a link, a <time>). */
import type { Child } from 'hono/jsx'

export function Sentence({ template, name, node }: { template: string; name: string; node: Child }) {
  const [before, ...after] = template.split(`{${name}}`)
  return <>{before}{node}{after.join(`{${name}}`)}</>
}
