/** Parts of every document's frame: the head, and the links of the language switch. */
import { LANGUAGE_NAMES, LOCALES, type Locale } from '../locale.js'

/** Never indexed, no referrer, no favicon request (it would only ever be a 404). */
export function Head(p: { title: string; stylesheets: (string | null | undefined)[]; script?: string; refreshTo?: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex, nofollow" />
      <meta name="referrer" content="no-referrer" />
      {p.refreshTo && <meta http-equiv="refresh" content={`0;url=${p.refreshTo}`} />}
      <title>{p.title}</title>
      <link rel="icon" href="data:," />
      {p.stylesheets.map((href) => href && <link rel="stylesheet" href={href} />)}
      {p.script && <script src={p.script} defer></script>}
    </head>
  )
}

/** One link per language to `path?lang=…`, the current one marked. */
export function LanguageLinks({ path, locale }: { path: string; locale: Locale }) {
  return (
    <>
      {LOCALES.map((l) => (
        <a href={`${path}?lang=${l}`} hreflang={l} lang={l} aria-current={l === locale ? 'true' : undefined}>{LANGUAGE_NAMES[l]}</a>
      ))}
    </>
  )
}
