/** Driving the console over HTTP as a browser without scripts would: a cookie jar, forms with their CSRF token. */
import type { TestApp } from './app.js'

export interface ConsolePage {
  status: number
  html: string
  headers: Headers
  location: string | null
}

/** A browser: the cookies it was given, sent back on every request. */
export class ConsoleBrowser {
  readonly cookies = new Map<string, string>()
  constructor(readonly ta: TestApp, readonly headers: Record<string, string> = {}) {}

  private remember(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      if (/Max-Age=0/i.test(c) || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async get(path: string): Promise<ConsolePage> {
    const res = await fetch(this.ta.baseUrl + path, { headers: { ...this.headers, cookie: this.cookieHeader() }, redirect: 'manual' })
    this.remember(res)
    return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get('location') }
  }

  async post(path: string, fields: Record<string, string | string[]>, o: { multipart?: Record<string, Blob> } = {}): Promise<ConsolePage> {
    let body: URLSearchParams | FormData
    if (o.multipart) {
      const fd = new FormData()
      for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) fd.append(k, x)
      for (const [k, v] of Object.entries(o.multipart)) fd.append(k, v, 'upload.bin')
      body = fd
    } else {
      const p = new URLSearchParams()
      for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) p.append(k, x)
      body = p
    }
    const res = await fetch(this.ta.baseUrl + path, { method: 'POST', headers: { ...this.headers, cookie: this.cookieHeader() }, body, redirect: 'manual' })
    this.remember(res)
    return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get('location') }
  }

  /** Posts a form with the CSRF token of the page `from` (GET first, as a person would). */
  async submit(from: string, action: string, fields: Record<string, string | string[]> = {}, o: { multipart?: Record<string, Blob> } = {}) {
    const page = await this.get(from)
    if (page.status !== 200) throw new Error(`${from}: ${page.status}`)
    return this.post(action, { csrf: csrfOf(page.html), ...fields }, o)
  }

  async signIn(email: string, password: string) {
    const page = await this.get('/console/login')
    return this.post('/console/login', { token: loginTokenOf(page.html), email, password })
  }
}

export const csrfOf = (html: string) => {
  const m = /name="csrf" value="([^"]+)"/.exec(html)
  if (!m) throw new Error('no CSRF token on this page')
  return m[1]
}

export const loginTokenOf = (html: string) => {
  const m = /name="token" value="([^"]+)"/.exec(html)
  if (!m) throw new Error('no sign-in token on this page')
  return m[1]
}

/** A merchant with a console login, made through the admin API. */
export async function merchantWithLogin(ta: TestApp, name = 'Shop', email = `${name.toLowerCase().replace(/\W/g, '')}@example.com`, password = 'correct horse battery') {
  const res = await ta.admin('POST', '/merchants', { name, email, password })
  if (res.status !== 201) throw new Error(`merchant not created: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: res.body.id as string, email, password, testKey: res.body.keys.test as string, liveKey: res.body.keys.live as string }
}

export async function signedIn(ta: TestApp, o: { name?: string } = {}) {
  const m = await merchantWithLogin(ta, o.name)
  const browser = new ConsoleBrowser(ta)
  const res = await browser.signIn(m.email, m.password)
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`)
  return { m, browser }
}
